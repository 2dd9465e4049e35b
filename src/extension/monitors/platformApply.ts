// One account's instance list applied to the store, in time linear in the list: stored
// instances are indexed by platform id and SSH endpoint (core/platforms/reconcile), every
// change (new entries, links, prices, observed states) is collected and written in ONE store
// update. 2000 instances took 33 s when each was a linear search and a globalState write of
// the whole list; 10,000, about 14 minutes. No vscode here: the unit tests run it on a real
// in-memory store. A login the platform reports is applied only as platformLoginDecision says.
import type { Catalog } from '../../core/catalog';
import type { GuardPlatformFacts } from '../../core/guards/facts';
import type { ReleaseWatch } from '../../core/guards/release';
import { platformReleaseWatch } from '../../core/platforms/clock';
import { createInstance, MAX_STORED_INSTANCES, newInstanceId, withPricing, withState, withoutStillBilling, type Instance } from '../../core/instances';
import { billedState, indexStored, matchIndexed, observedChange, platformLoginDecision } from '../../core/platforms/reconcile';
import { can, CATALOG_PLATFORM, MAX_INSTANCES_PER_ACCOUNT, type Connector, type PlatformInstance, type PlatformKind, type PlatformState, type PlatformTimer, type SshLogin } from '../../core/platforms/types';
import { currentState, type InstanceState } from '../../core/spend';
import { prefillPricing } from '../prefill';
import type { InstanceStore } from '../store';

export interface Observation {
  account: string;
  ref: string;
  state: PlatformState;
  rawState: string;
  readAt: number;
  priceFenPerHour?: number;
  priceReadAt?: number;
  /** The platform's clock for a stopped instance (AutoDL stopped_at / release_at), epoch seconds. */
  stoppedAt?: number;
  releaseAt?: number;
  /** The region the platform lists it in (clouds). */
  region?: string;
  /** A timer the platform keeps itself (AutoDL timed shutdown, 阿里云 auto-release), as last read. */
  platformTimer?: PlatformTimer;
}

export interface ApplyDeps {
  store: InstanceStore;
  now: () => number;
  catalog: () => Catalog;
  log: { info(message: string): void };
  /** Drops the pooled connection of an instance that stopped or was released. */
  invalidate: (id: string) => void;
  observations: Map<string, Observation>;
  /** Platforms whose list carries no price (阿里云, 腾讯云) are asked for it here, at most hourly. */
  priceOf?: (id: string, p: PlatformInstance) => Promise<PlatformInstance>;
}

export interface AccountRef {
  id: string;
  kind: PlatformKind;
}

export interface ApplyResult {
  /** Linked instances that run but have no login yet: the caller asks the platform for one. */
  needLogin: string[];
  /** The list was longer than the most read from one account (or the store is full) and was cut. */
  cut: boolean;
}

/** An observation applied to one instance, without writing: a new price from now, then the observed state change. */
export function observedInstance(inst: Instance, kind: PlatformKind, p: PlatformInstance, now: number): { instance: Instance; state?: InstanceState; priceChanged: boolean } {
  // Seen stopped or released: a still-billing mark (a power action that did not happen) goes.
  let next = p.state === 'stopped' || p.state === 'released' || (p.state === 'noGpu' && inst.stillBilling?.action === 'noGpu') ? withoutStillBilling(inst) : inst;
  let priceChanged = false;
  // A new price applies from now, before a state change opens its interval at it.
  if (p.priceFenPerHour !== undefined && p.priceFenPerHour !== inst.pricing.hourlyRate && p.state === 'running') {
    next = withPricing(next, { ...next.pricing, hourlyRate: p.priceFenPerHour }, now);
    priceChanged = true;
  }
  const state = observedChange(billedState(kind, p), currentState(next.intervals));
  if (state) {
    const r = withState(next, state, now);
    if (r.ok) return { instance: r.instance, state, priceChanged };
  }
  return { instance: next, priceChanged };
}

/** Records what the platform said about one instance (the tree and the commands read it). */
export function recordObservation(observations: Map<string, Observation>, id: string, account: string, p: PlatformInstance, now: number): void {
  const prev = observations.get(id);
  const clock = { ...(p.stoppedAt !== undefined ? { stoppedAt: p.stoppedAt } : {}), ...(p.releaseAt !== undefined ? { releaseAt: p.releaseAt } : {}), ...(p.region ? { region: p.region } : {}), ...(p.platformTimer ? { platformTimer: p.platformTimer } : {}) };
  observations.set(id, { account, ref: p.ref, state: p.state, rawState: p.rawState, readAt: now, ...clock, ...(p.priceFenPerHour !== undefined ? { priceFenPerHour: p.priceFenPerHour, priceReadAt: p.priceReadAt ?? now } : prev?.priceFenPerHour !== undefined ? { priceFenPerHour: prev.priceFenPerHour, priceReadAt: prev.priceReadAt! } : {}) });
}

/** The release watch of a linked, stopped instance by the platform's own clock (stopped_at / release_at) from the last read, if it gave one. */
export function observedReleaseWatch(observations: ReadonlyMap<string, Observation>, inst: Instance, facts: GuardPlatformFacts, now: number): ReleaseWatch | undefined {
  const o = observations.get(inst.id);
  if (!o || !inst.platformRef || o.account !== inst.platformRef.account || o.ref !== inst.platformRef.ref) return undefined;
  return platformReleaseWatch(facts, o, now);
}

/** A stored entry for an instance first seen on the platform. */
function fromPlatform(d: ApplyDeps, a: AccountRef, p: PlatformInstance, login: SshLogin | undefined, taken: Set<string>, now: number): Instance {
  const platform = CATALOG_PLATFORM[a.kind];
  const card = p.card || 'unknown';
  const n = p.gpuCount ?? 1;
  // The list does not say how big the billed data disk is: its storage cost is `?` until the renter says (issue 41 bug 5).
  const pre = { ...prefillPricing(d.catalog(), platform, card, n, 'hour', 0).pricing, dataDiskUnknown: true as const };
  // The billing mode the platform states: prepaid compute was paid ahead (nothing more accrues here);
  // spot bills the spot price the connector read; postpaid its own price.
  const pricing =
    p.billing === 'prepaid'
      ? { ...pre, billingMode: 'month' as const, hourlyRate: 0 }
      : p.billing === 'spot'
        ? { ...pre, ...(p.priceFenPerHour !== undefined ? { spotRate: p.priceFenPerHour } : {}) }
        : p.priceFenPerHour !== undefined
          ? { ...pre, hourlyRate: p.priceFenPerHour }
          : pre;
  const ssh = login ?? p.ssh;
  const billed = billedState(a.kind, p);
  const state: InstanceState = billed === 'running' || billed === 'starting' ? (p.billing === 'spot' ? 'spot' : 'running') : billed === 'noGpu' ? 'noGpu' : 'stopped';
  const id = newInstanceId(taken);
  taken.add(id);
  return createInstance(
    {
      id,
      name: p.name.slice(0, 120) || p.ref,
      platform,
      card: card.slice(0, 120),
      gpuCount: n,
      login: { host: ssh?.host ?? 'invalid', port: ssh?.port ?? 22, user: ssh?.user ?? 'root', auth: login?.password !== undefined ? 'password' : 'agent' },
      pricing,
      platformRef: { account: a.id, ref: p.ref },
    },
    state,
    now,
  );
}

/**
 * Applies one account's list: new instances added, manual entries linked by SSH host:port
 * (never duplicated), prices and observed states recorded at the time seen, linked instances
 * the platform no longer lists marked released. At most MAX_INSTANCES_PER_ACCOUNT are taken.
 * `partial`: some regions of the account failed (RegionsFailed): what was listed is applied,
 * and nothing is marked released for not being listed.
 */
export async function applyPlatformList(d: ApplyDeps, a: AccountRef, c: Pick<Connector, 'sshLogin'>, list: readonly PlatformInstance[], partial = false): Promise<ApplyResult> {
  const now = d.now();
  const cut = partial || list.length > MAX_INSTANCES_PER_ACCOUNT;
  const stored = d.store.list();
  const ix = indexStored(stored);
  const taken = new Set(stored.map((i) => i.id));
  const claimed = new Set<string>();
  const added: Instance[] = [];
  const changed = new Map<string, Instance>();
  const passwords = new Map<string, string>();
  const stopped: string[] = [];
  const needLogin: string[] = [];
  const log: string[] = [];
  const current = (i: Instance) => changed.get(i.id) ?? i;
  const observe = (inst: Instance, p: PlatformInstance) => {
    recordObservation(d.observations, inst.id, a.id, p, now);
    const r = observedInstance(current(inst), a.kind, p, now);
    if (r.instance !== current(inst)) changed.set(inst.id, r.instance);
    if (r.priceChanged) log.push(`[${inst.id}] price read from ${a.id}: ${p.priceFenPerHour} fen/h`);
    if (r.state) {
      log.push(`[${inst.id}] ${a.id} reports ${p.rawState}: state → ${r.state}`);
      if (r.state === 'stopped' || r.state === 'released') stopped.push(inst.id);
    }
  };
  const seenRefs = new Set<string>();
  let full = false;
  for (const listed of list.slice(0, MAX_INSTANCES_PER_ACCOUNT)) {
    // The platform listed the same id twice: the first row counts.
    if (seenRefs.has(listed.ref)) continue;
    seenRefs.add(listed.ref);
    const inst = matchIndexed(ix, a.id, listed, claimed);
    if (!inst) {
      if (listed.state === 'released') continue;
      // The store loads no more than this: an entry beyond it would make the whole list unreadable.
      if (stored.length + added.length >= MAX_STORED_INSTANCES) {
        full = true;
        continue;
      }
      const p = d.priceOf ? await d.priceOf('', listed) : listed;
      // A shut-down AutoDL instance has its login in its snapshot too: it is not imported with host `invalid`.
      const login = (p.state === 'running' || p.state === 'stopped' || p.state === 'noGpu') && can(a.kind, 'sshLogin') ? await c.sshLogin(p.ref).catch(() => undefined) : undefined;
      const fresh = fromPlatform(d, a, p, login, taken, now);
      added.push(fresh);
      claimed.add(fresh.id);
      if (login?.password !== undefined) passwords.set(fresh.id, login.password);
      log.push(`[${fresh.id}] added from ${a.id}: ${p.ref} (${p.rawState})`);
      // It starts in the state seen, at the price seen: only the observation is recorded.
      recordObservation(d.observations, fresh.id, a.id, p, now);
      continue;
    }
    if (!inst.platformRef) {
      changed.set(inst.id, { ...current(inst), platformRef: { account: a.id, ref: listed.ref } });
      log.push(`[${inst.id}] linked to ${a.id}/${listed.ref}`);
    }
    claimed.add(inst.id);
    const p = d.priceOf ? await d.priceOf(inst.id, listed) : listed;
    observe(inst, p);
    if (p.ssh && current(inst).login.host === 'invalid' && p.state === 'running') needLogin.push(inst.id);
  }
  // A linked instance the platform no longer lists is gone.
  if (!cut) {
    for (const i of stored) {
      if (i.platformRef?.account === a.id && !claimed.has(i.id) && currentState(current(i).intervals) !== 'released') observe(i, { ref: i.platformRef.ref, name: i.name, state: 'released', rawState: 'not listed' });
    }
  }
  await d.store.applyBatch(added, changed, passwords);
  for (const line of log.slice(0, 200)) d.log.info(line);
  if (log.length > 200) d.log.info(`[${a.id}] … and ${log.length - 200} more changes`);
  for (const id of stopped) d.invalidate(id);
  return { needLogin, cut: cut || full };
}

/** What a platform-reported login did to a stored instance. */
export type LoginOutcome = 'applied' | 'unchanged' | 'confirm' | 'gone';

/**
 * A login the platform reports for an instance: taken when the instance had none, or when
 * only the port moved on the same host and user (the session recognises the host key from the
 * endpoint before); with a new host or user the stored login and its password stay and the
 * caller asks the user (useNewLogin when confirmed).
 */
export async function applyPlatformLogin(store: InstanceStore, id: string, l: SshLogin): Promise<LoginOutcome> {
  const inst = store.get(id);
  if (!inst) return 'gone';
  const decision = platformLoginDecision(inst.login, l);
  if (decision === 'confirm') return 'confirm';
  if (decision === 'same' && l.password === undefined) return 'unchanged';
  const auth = l.password !== undefined ? 'password' : inst.login.auth;
  await store.setLogin(id, { ...inst.login, host: l.host, port: l.port, user: l.user, auth }, l.password);
  return 'applied';
}

/**
 * The user confirmed a new login on another host (or user): it replaces the stored one, but
 * the stored password does NOT go with it — it is cleared (asked for at the next connect)
 * unless the platform gave this instance a password of its own.
 */
export async function useNewLogin(store: InstanceStore, id: string, l: SshLogin): Promise<Instance | undefined> {
  const inst = store.get(id);
  if (!inst) return undefined;
  const { sshConfigHost: _alias, ...rest } = inst.login;
  const login = { ...rest, host: l.host, port: l.port, user: l.user, auth: l.password !== undefined ? ('password' as const) : inst.login.auth };
  if (l.password === undefined) await store.clearPassword(id);
  return store.setLogin(id, login, l.password);
}


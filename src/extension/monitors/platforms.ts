// The platforms' truth in the panel. While the Instances view is visible, every connected
// account is asked (at most every 60 s; longer after a 429/5xx, doubling up to 15 min) for its
// instances and balance: new ones are added, existing manual entries are linked by platform id
// or SSH host:port (never duplicated), an observed state change is recorded at the time it was
// seen with the price in force, and a price read from the platform applies from then on.
// Instances no API covers are checked over SSH and a state is only ever PROPOSED.
import * as vscode from 'vscode';
import { showWarning } from '../notify';
import { endpointsFromEnv, makeConnector, mergeEndpoints, type Account } from '../../app/platforms/accounts';
import { PlatformError } from '../../app/platforms/errors';
import { RegionsFailed } from '../../app/platforms/regions';
import type { SnapshotCache } from '../../app/platforms/autodl';
import { accountIdentity } from '../../core/platforms/billing';
import type { Instance } from '../../core/instances';
import { can, isTransient, MAX_INSTANCES_PER_ACCOUNT, type Connector, type PlatformInstance, type SshLogin } from '../../core/platforms/types';
import type { CommandContext } from '../services/context';
import type { VisibilitySource } from '../view/visibility';
import type { PlatformAccounts } from '../services/accountStore';
import { platformErrorText } from '../words/platforms';
import { PowerOnLocks, withPowerOnLock } from '../../app/platforms/powerLock';
import { configHome } from '../../app/platforms/accountFile';
import { join } from 'node:path';
import { applyPlatformList, applyPlatformLogin, observedInstance, recordObservation, useNewLogin, type ApplyDeps, type Observation } from './platformApply';
import { PlatformFacts, type AccountStatus } from './platformFacts';
import { StateProposals } from './stateProposals';

export type { Observation } from './platformApply';
export { PlatformFacts, type AccountStatus } from './platformFacts';

const MAX_BACKOFF_S = 900;
const TIMEOUT_MS = 15_000;
const PRICE_EVERY_S = 3600;

/** What the monitor uses of the extension (made before the commands' context, which asks the monitor for power actions). */
export type PlatformMonitorDeps = Pick<CommandContext, 'store' | 'sessions' | 'settings' | 'now' | 'catalog' | 'log'>;

export class PlatformMonitor implements vscode.Disposable {
  readonly observations: Map<string, Observation>;
  readonly status: Map<string, AccountStatus>;
  readonly accounts: PlatformAccounts;
  /** One lock per instance shared by every power-on path (connectors made here take it for each power-on; Start When a Card Is Free holds it while it waits), also the lock file `gpu-rent` takes. */
  readonly powerLocks = new PowerOnLocks({ dir: join(configHome(process.env), 'locks'), owner: 'VS Code' });
  private readonly backoff = new Map<string, { until: number; seconds: number }>();
  private readonly snapshots = new Map<string, SnapshotCache>();
  private readonly identities = new Map<string, string>();
  private readonly proposals: StateProposals;
  private timer: ReturnType<typeof setInterval> | undefined;
  private polling: Promise<void> | undefined;
  private readonly subs: vscode.Disposable[];

  constructor(
    /** The Instances view's visibility: the accounts are read only while it shows. */
    private readonly view: VisibilitySource,
    private readonly ctx: PlatformMonitorDeps,
    readonly facts: PlatformFacts,
  ) {
    this.accounts = facts.accounts;
    this.observations = facts.observations;
    this.status = facts.status;
    const accounts = this.accounts;
    this.proposals = new StateProposals(ctx);
    this.subs = [view.onDidChangeVisibility(() => this.restart()), { dispose: accounts.onDidChange(() => this.restart()).dispose }];
    this.restart();
  }

  restart(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (!this.view.visible) return;
    this.timer = setInterval(() => void this.pollNow(), this.ctx.settings().platformPollSeconds * 1000);
    void this.pollNow();
  }

  powerAllowed(accountId: string): boolean {
    return this.ctx.settings().platformPowerActions.includes(accountId);
  }

  /** The accounts kept from release on their own (gpuRent.platforms.keepAlive; monitors/keepAlive.ts). */
  keepAliveAccounts(): readonly string[] {
    return this.ctx.settings().platformKeepAlive;
  }

  async connector(a: Account): Promise<Connector | undefined> {
    const secret = await this.accounts.secret(a.id);
    if (!secret) return undefined;
    const endpoints = mergeEndpoints(this.ctx.settings().platformEndpoints, endpointsFromEnv(process.env));
    // AutoDL snapshots are kept per account across polls: read again only when an instance's state changes.
    this.identities.set(a.id, accountIdentity(a.kind, secret));
    let snapshots = this.snapshots.get(a.id);
    if (!snapshots) this.snapshots.set(a.id, (snapshots = new Map()));
    return withPowerOnLock(makeConnector(a, secret, endpoints, { timeoutMs: TIMEOUT_MS, now: this.ctx.now, snapshots }), a.id, this.powerLocks);
  }

  /** The account and connector of a linked instance. */
  async link(inst: Instance): Promise<{ account: Account; connector: Connector } | undefined> {
    const account = inst.platformRef ? this.accounts.get(inst.platformRef.account) : undefined;
    const connector = account ? await this.connector(account) : undefined;
    return account && connector ? { account, connector } : undefined;
  }

  /**
   * Polls every account (one poll at a time; callers wait for it). Without `force` an account
   * read less than the poll interval ago is skipped, so showing and hiding the view never reads
   * a platform more often than that; the user's own refresh and a new account force it.
   */
  pollNow(force = false): Promise<void> {
    return (this.polling ??= this.pollAll(force).finally(() => (this.polling = undefined)));
  }

  private async pollAll(force: boolean): Promise<void> {
    await Promise.all(this.accounts.list().map((a) => this.pollAccount(a, force)));
    await this.proposals.check();
    this.facts.polled();
  }

  private async pollAccount(a: Account, force: boolean): Promise<void> {
    const now = this.ctx.now();
    const b = this.backoff.get(a.id);
    if (b && now < b.until) return;
    const last = this.status.get(a.id)?.polledAt;
    if (!force && last !== undefined && now - last < this.ctx.settings().platformPollSeconds - 1) return;
    const c = await this.connector(a);
    if (!c) return;
    const st: AccountStatus = { ...this.status.get(a.id), polledAt: now, ...(this.identities.has(a.id) ? { identity: this.identities.get(a.id)! } : {}) };
    try {
      const list = await c.list();
      st.error = undefined;
      this.backoff.delete(a.id);
      st.cut = await this.apply(a, c, list) || list.length >= MAX_INSTANCES_PER_ACCOUNT;
      // A balance that cannot be read (a RAM/CAM key without billing permission) is "balance: ?"; the instances still show.
      if (can(a.kind, 'balance')) {
        try {
          st.balance = await c.balance();
          st.balanceError = undefined;
        } catch (e) {
          st.balance = undefined;
          st.balanceError = platformErrorText(e);
          this.ctx.log.warn(`[${a.id}] balance read failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    } catch (e) {
      st.error = platformErrorText(e);
      this.ctx.log.warn(`[${a.id}] platform poll failed: ${e instanceof Error ? e.message : String(e)}`);
      // Some regions failed (named in the error): the others' instances still show; none is taken for gone.
      if (e instanceof RegionsFailed && e.instances.length) await this.apply(a, c, e.instances, true).catch(() => undefined);
      if (e instanceof PlatformError && isTransient(e.failure)) {
        const seconds = Math.min(MAX_BACKOFF_S, (b?.seconds ?? this.ctx.settings().platformPollSeconds) * 2);
        this.backoff.set(a.id, { until: now + seconds, seconds });
      }
    }
    this.status.set(a.id, st);
  }

  /** Applies one account's list to the store: indexed, one store write (platformApply.ts). */
  async apply(a: Account, c: Connector, list: readonly PlatformInstance[], partial = false): Promise<boolean> {
    const r = await applyPlatformList(this.applyDeps(c), a, c, list, partial);
    for (const id of r.needLogin) await this.refreshLogin(id, a, c);
    return r.cut;
  }

  private applyDeps(c?: Connector): ApplyDeps {
    return {
      store: this.ctx.store,
      now: this.ctx.now,
      catalog: this.ctx.catalog,
      log: this.ctx.log,
      invalidate: (id) => this.ctx.sessions.invalidate(id),
      observations: this.observations,
      ...(c ? { priceOf: (id: string, p: PlatformInstance) => this.withPrice(id, c, p) } : {}),
    };
  }

  /** Platforms whose list carries no price (阿里云, 腾讯云): asked for it at most hourly per running instance. */
  private async withPrice(id: string, c: Connector, p: PlatformInstance): Promise<PlatformInstance> {
    // Prepaid (包年包月) compute was paid ahead: no hourly price to ask for.
    if (p.priceFenPerHour !== undefined || p.state !== 'running' || p.billing === 'prepaid' || !can(c.kind, 'price')) return p;
    const prev = id ? this.observations.get(id) : undefined;
    if (prev?.priceReadAt !== undefined && this.ctx.now() - prev.priceReadAt < PRICE_EVERY_S) return p;
    const price = await c.price(p.ref).catch(() => undefined);
    return price ? { ...p, priceFenPerHour: price.fenPerHour, priceReadAt: price.readAt } : p;
  }

  /** Records what the platform says about one stored instance, at the time it was seen (one store write). */
  async observe(id: string, a: Account, p: PlatformInstance): Promise<void> {
    const now = this.ctx.now();
    recordObservation(this.observations, id, a.id, p, now);
    this.facts.changed(id);
    const inst = this.ctx.store.get(id);
    if (!inst) return;
    const r = observedInstance(inst, a.kind, p, now);
    if (r.priceChanged || r.state) await this.ctx.store.applyBatch([], new Map([[id, r.instance]]));
    if (r.priceChanged) this.ctx.log.info(`[${id}] price read from ${a.id}: ${p.priceFenPerHour} fen/h`);
    if (r.state) {
      this.ctx.log.info(`[${id}] ${a.id} reports ${p.rawState}: state → ${r.state}`);
      if (r.state === 'stopped' || r.state === 'released') this.ctx.sessions.invalidate(id);
    }
    if (p.ssh && r.instance.login.host === 'invalid' && p.state === 'running') await this.refreshLogin(id, a);
  }

  /**
   * The platform's SSH login (AutoDL: new port and password after a restart) into the instance;
   * the pooled connection is dropped. A login on another host or user is not taken: the
   * instance is marked and the user asked (platformApply.ts applyPlatformLogin / useNewLogin).
   */
  async refreshLogin(id: string, a: Account, c?: Connector): Promise<boolean> {
    const inst = this.ctx.store.get(id);
    if (!inst?.platformRef || !can(a.kind, 'sshLogin')) return false;
    const conn = c ?? (await this.connector(a));
    const l = conn ? await conn.sshLogin(inst.platformRef.ref).catch(() => undefined) : undefined;
    if (!l) return false;
    const outcome = await applyPlatformLogin(this.ctx.store, id, l);
    if (outcome === 'confirm') {
      this.ctx.log.info(`[${id}] ${a.id} reports a new login ${l.user}@${l.host}:${l.port} (stored: ${inst.login.user}@${inst.login.host}:${inst.login.port}): kept the stored one, asking`);
      const prev = this.facts.pendingLogins.get(id);
      this.facts.pendingLogins.set(id, l);
      this.facts.changed(id);
      if (!prev || prev.host !== l.host || prev.port !== l.port || prev.user !== l.user) void this.askNewLogin(id, inst.name, inst.login, l);
      return false;
    }
    if (this.facts.pendingLogins.delete(id)) this.facts.changed(id);
    if (outcome !== 'applied') return false;
    this.ctx.sessions.invalidate(id);
    this.ctx.log.info(`[${id}] login from ${a.id}: ${l.user}@${l.host}:${l.port}`);
    return true;
  }

  /** *Review Login Reported by the Platform…*: the question again, for a prompt that was dismissed. False when nothing is pending. */
  async reviewLogin(id: string): Promise<boolean> {
    const inst = this.ctx.store.get(id);
    const l = this.facts.pendingLogins.get(id);
    if (!inst || !l) return false;
    await this.askNewLogin(id, inst.name, inst.login, l);
    return true;
  }

  /** Asks before a platform moves a stored login to another host or user; the stored password never goes along. */
  private async askNewLogin(id: string, name: string, old: { host: string; port: number; user: string }, l: SshLogin): Promise<void> {
    const use = vscode.l10n.t('Use New Login');
    const msg = l.password !== undefined
      ? vscode.l10n.t('{0}: the platform reports a new login, {1}, instead of {2}. Use it? The platform gives a password for it; the stored one is not sent to the new host.', name, `${l.user}@${l.host}:${l.port}`, `${old.user}@${old.host}:${old.port}`)
      : vscode.l10n.t('{0}: the platform reports a new login, {1}, instead of {2}. Use it? The stored password is not sent to the new host: you will be asked for it at the next connection.', name, `${l.user}@${l.host}:${l.port}`, `${old.user}@${old.host}:${old.port}`);
    if ((await showWarning(msg, use)) !== use) return;
    // Still the login asked about (a later poll may have replaced or withdrawn it).
    const cur = this.facts.pendingLogins.get(id);
    if (!cur || cur.host !== l.host || cur.port !== l.port || cur.user !== l.user) return;
    await useNewLogin(this.ctx.store, id, l);
    this.facts.pendingLogins.delete(id);
    this.ctx.sessions.invalidate(id);
    this.ctx.log.info(`[${id}] login moved by the user to ${l.user}@${l.host}:${l.port}${l.password !== undefined ? ' with the platform\'s password' : '; the stored password was cleared'}`);
    this.facts.changed(id);
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.subs.forEach((d) => d.dispose());
  }
}

// Grab a card (`gpu-rent grab`, *Grab a Card…*): watch stock across the accounts and regions
// allowed until a card that fits the limits set before the start (card, GPUs, regions, the most
// per hour, the image and disk of a create) is free, then act once: start an instance, clone it
// onto a host with a free card (AutoDL console), or create one. One action at a time; a miss (the
// card taken meanwhile, a price above the limit in the create's quote) goes back to watching.
// The pace is the power-on wait's (core/platforms/gpuWait.ts: backoff, a rate-limit reply slows
// it down) over a floor of one stock read a minute per account; a refusal that waiting does not
// mend ends the watch at once. The target's lock (the instance's power-on lock; for a create its
// name) is held for the whole watch: never two grabs, nor a grab and a power-on, for one target.
import { nextDelayMs, waitVerdict, type WaitVerdict } from '../core/platforms/gpuWait';
import { closestWhy, grabCreateLockKey, GRAB_MIN_INTERVAL_MS, regionFamily, judgeStock, priceVerdict, regionAllowed, regionsFor, type GrabAction, type GrabLimits, type GrabWhy, type Offer } from '../core/platforms/grab';
import { isCloneRefusal, type CloneCandidate, type CloneRefusal } from '../core/platforms/autodlClone';
import { isRefusal, type CreateRefusal } from '../core/platforms/create';
import { descriptorOf, PLATFORM_DESCRIPTORS, type PlatformKind } from '../core/platforms/descriptors';
import type { Account } from './platforms/accounts';
import type { Fen } from '../core/money';
import type { StockRow } from '../core/platforms/stock';
import { can, type Connector, type PlatformFailure, type PlatformInstance, type SshLogin } from '../core/platforms/types';
import { canClone, cloneInstance, planClone } from './platforms/clone';
import { createInstance, previewCreate } from './platforms/create';
import { PlatformError, transportError } from './platforms/errors';
import { powerLockKey, unlockedConnector, type PowerLockHolder, type PowerOnLocks } from './platforms/powerLock';
import { TARGET, waitForState } from './platforms/settle';
import { hasStock } from './platforms/stock';
import { realClock, type WaitClock } from './platforms/waitForGpu';

export interface GrabAccount {
  account: Pick<Account, 'id' | 'kind'>;
  connector: Connector;
}

/** What to do once a card fits. */
export type GrabThen =
  | { action: 'start'; account: GrabAccount; instance: PlatformInstance }
  | { action: 'clone'; account: GrabAccount; instance: PlatformInstance; cloneName?: string }
  | { action: 'create'; accounts: GrabAccount[]; name: string; image?: string; diskGb?: number; cudaMin?: string; torch?: string };

export interface GrabOptions {
  limits: GrabLimits;
  then: GrabThen;
  /** The lock map every power-on path shares (file-backed in the CLI and the extension). */
  locks: PowerOnLocks;
  /** Who holds the lock, for a second caller's message. */
  lockWhat?: string;
  maxWaitMs: number;
  clock?: WaitClock;
  signal?: AbortSignal;
  /** The floor between two rounds (a minute unless a test lowers it), and the longest pause. */
  minIntervalMs?: number;
  maxIntervalMs?: number;
  random?: () => number;
  /** How long to follow the new state after acting, and how often. */
  settleMs: number;
  settleIntervalMs: number;
  onRound?: (r: GrabRound) => void;
  /** Said just before the one action is sent. */
  onAct?: (a: GrabAct) => void;
  onProgress?: (line: string) => void;
}

/** One account's read that failed this round, and what it means for the watch. */
export interface GrabReadFailure {
  account: string;
  failure: PlatformFailure;
  verdict: WaitVerdict;
}

export interface GrabRound {
  round: number;
  waitedMs: number;
  /** Why nothing was done this round (a miss), when it was read. */
  why?: GrabWhy;
  /** A miss found only when acting: the card was taken meanwhile, or the quote is above the limit. */
  missed?: { code: 'taken' | 'noAnswer' | 'priceAbove' | 'priceUnknown'; priceFen?: Fen; detail?: string };
  failures: GrabReadFailure[];
  /** Accounts no longer watched (a refusal that waiting does not mend). */
  dropped: string[];
  nextInMs?: number;
}

export interface GrabAct {
  action: GrabAction;
  account: string;
  card: string;
  region?: string;
  priceFen?: Fen;
}

export type GrabOutcome =
  | { kind: 'done'; action: GrabAction; account: string; ref: string; name: string; card: string; region?: string; priceFen?: Fen; rounds: number; waitedMs: number; settled: boolean; state?: string; recovered: boolean; login?: SshLogin }
  /** The watch ran out: the last reason. */
  | { kind: 'gaveUp'; rounds: number; waitedMs: number; why?: GrabWhy; failures: GrabReadFailure[] }
  /** A refusal that waiting does not mend. */
  | { kind: 'refused'; rounds: number; waitedMs: number; account?: string; failure?: PlatformFailure; create?: CreateRefusal; clone?: CloneRefusal }
  /** A create or clone whose answer was lost and that is not listed yet: it may still appear. */
  | { kind: 'unknown'; rounds: number; waitedMs: number; account: string; name: string; reason: string }
  | { kind: 'cancelled'; rounds: number; waitedMs: number; inFlight: boolean }
  /** Another grab or power-on holds this target: nothing was read or sent. */
  | { kind: 'busy'; holder: PowerLockHolder };

/** The lock key of a grab's target. */
export function grabLockKey(then: GrabThen): string {
  return then.action === 'create' ? grabCreateLockKey(then.name) : powerLockKey(then.account.account.id, then.instance.ref);
}

const failureOf = (c: Connector, e: unknown): PlatformFailure => (e instanceof PlatformError ? e : transportError(c.kind, e)).failure;

/** What this round's act gave: done, a miss (watch on), or the end. */
type ActResult = { kind: 'miss'; missed: GrabRound['missed']; verdict?: WaitVerdict } | Exclude<GrabOutcome, { kind: 'busy' | 'gaveUp' }>;

export async function grab(o: GrabOptions): Promise<GrabOutcome> {
  const lock = o.locks.tryAcquire(grabLockKey(o.then), o.lockWhat ?? `grab --then ${o.then.action}`);
  if ('busy' in lock) return { kind: 'busy', holder: lock.busy };
  try {
    return await watch(o);
  } finally {
    lock.release();
  }
}

/** The most offers whose quote is read in one round (the previews are reads, bounded all the same). */
export const MAX_QUOTES_PER_ROUND = 5;

async function watch(o: GrabOptions): Promise<GrabOutcome> {
  const clock = o.clock ?? realClock;
  const random = o.random ?? Math.random;
  const minMs = Math.max(1, o.minIntervalMs ?? GRAB_MIN_INTERVAL_MS);
  const maxMs = Math.max(minMs, o.maxIntervalMs ?? minMs * 5);
  const start = clock.now();
  const waited = () => clock.now() - start;
  const accounts = o.then.action === 'create' ? [...o.then.accounts] : [o.then.account];
  const dropped = new Set<string>();
  let rounds = 0;
  let pause = 0;
  let lastWhy: GrabWhy | undefined;
  let lastFailures: GrabReadFailure[] = [];
  const cancelled = (inFlight = false): GrabOutcome => ({ kind: 'cancelled', rounds, waitedMs: waited(), inFlight });
  for (;;) {
    if (o.signal?.aborted) return cancelled();
    rounds++;
    const failures: GrabReadFailure[] = [];
    const live = accounts.filter((a) => !dropped.has(a.account.id));
    // Read every allowed account (each once this round), then act on the best offer (the next ones only while the quote is what misses).
    const reads = await Promise.all(live.map((a) => readOffers(a, o).then((r) => ({ a, ...r }), (e: unknown) => (e instanceof CloneRefused ? { a, clone: e.refusal } : { a, error: failureOf(a.connector, e) }))));
    if (o.signal?.aborted) return cancelled();
    for (const r of reads) if ('clone' in r) return { kind: 'refused', rounds, waitedMs: waited(), account: r.a.account.id, clone: r.clone };
    const whys: GrabWhy[] = [];
    const candidates: { a: GrabAccount; offer: Offer }[] = [];
    for (const r of reads) {
      if ('clone' in r) continue;
      if ('error' in r) {
        const verdict = waitVerdict(r.error.kind);
        failures.push({ account: r.a.account.id, failure: r.error, verdict });
        if (verdict === 'stop') dropped.add(r.a.account.id);
        continue;
      }
      if (r.why) whys.push(r.why);
      for (const offer of r.offers) candidates.push({ a: r.a, offer });
    }
    // Cheapest known price first (a stable sort: each account's own order among the unknown).
    candidates.sort((x, y) => (x.offer.priceFen ?? Number.MAX_SAFE_INTEGER) - (y.offer.priceFen ?? Number.MAX_SAFE_INTEGER));
    const stopped = failures.filter((f) => f.verdict === 'stop');
    if (stopped.length && accounts.every((a) => dropped.has(a.account.id))) return { kind: 'refused', rounds, waitedMs: waited(), account: stopped[0]!.account, failure: stopped[0]!.failure };
    let missed: GrabRound['missed'];
    let actVerdict: WaitVerdict | undefined;
    // One action at a time: the offers are tried in order while only their quote misses (a preview reads, it does not act), at most MAX_QUOTES_PER_ROUND.
    for (const best of candidates.slice(0, MAX_QUOTES_PER_ROUND)) {
      const r = await act(best.a, best.offer, o).catch((e: unknown): ActResult => {
        // A read before the send failed (the preview, the host list): a blip is watched through, a refusal ends it.
        if (o.signal?.aborted) return { kind: 'cancelled', rounds, waitedMs: waited(), inFlight: false };
        const f = failureOf(best.a.connector, e);
        const v = waitVerdict(f.kind);
        return v === 'stop' ? { kind: 'refused', rounds, waitedMs: waited(), account: best.a.account.id, failure: f } : { kind: 'miss', missed: { code: 'noAnswer', detail: [f.code, f.message].filter(Boolean).join(' ').slice(0, 200) }, verdict: v };
      });
      if (r.kind !== 'miss') return r.kind === 'cancelled' ? { ...r, rounds, waitedMs: waited() } : fill(r, rounds, waited());
      if (o.signal?.aborted) return cancelled();
      missed = r.missed;
      actVerdict = r.verdict;
      if (r.missed?.code !== 'priceAbove' && r.missed?.code !== 'priceUnknown') break;
    }
    lastWhy = closestWhy(whys) ?? lastWhy;
    lastFailures = failures;
    const verdict: Exclude<WaitVerdict, 'stop'> = actVerdict === 'rateLimited' || failures.some((f) => f.verdict === 'rateLimited') ? 'rateLimited' : failures.some((f) => f.verdict === 'transient') ? 'transient' : 'noCard';
    pause = nextDelayMs(rounds, verdict, pause, { minMs, maxMs, jitter: random() });
    const report: GrabRound = { round: rounds, waitedMs: waited(), ...(lastWhy && !missed ? { why: lastWhy } : {}), ...(missed ? { missed } : {}), failures, dropped: [...dropped] };
    if (o.maxWaitMs - waited() < pause) {
      o.onRound?.(report);
      return { kind: 'gaveUp', rounds, waitedMs: waited(), ...(lastWhy ? { why: lastWhy } : {}), failures: lastFailures };
    }
    o.onRound?.({ ...report, nextInMs: pause });
    await clock.sleep(pause, o.signal);
  }
}

function fill(r: Exclude<ActResult, { kind: 'miss' | 'cancelled' }>, rounds: number, waitedMs: number): GrabOutcome {
  return { ...r, rounds, waitedMs } as GrabOutcome;
}

/** One account's offers this round: its stock read (start, create) or the clone's host list. */
async function readOffers(a: GrabAccount, o: GrabOptions): Promise<{ offers: Offer[]; why?: GrabWhy }> {
  const c = a.connector;
  const then = o.then;
  if (then.action === 'clone') return cloneOffers(a, then.instance, o);
  const kind = regionFamily(c.kind);
  if (then.action === 'start' && !hasStock(c)) {
    // No stock read for this platform: the power-on itself is the check (as power-on --wait-for-gpu).
    const inst = then.instance;
    const price = inst.priceFenPerHour;
    const row: StockRow = { card: inst.card ?? o.limits.card, region: inst.region ?? '', status: 'unknown', source: 'autodl-console-list', readAt: 0 };
    const pv = priceVerdict(price, o.limits.maxPriceFen);
    if (pv === 'above') return { offers: [], why: { code: 'priceAbove', card: row.card, region: row.region, priceFen: price!, maxFen: o.limits.maxPriceFen! } };
    if (pv === 'unknown') return { offers: [], why: { code: 'priceUnknown', card: row.card, region: row.region, maxFen: o.limits.maxPriceFen! } };
    return { offers: [{ row, ...(price !== undefined ? { priceFen: price } : {}) }] };
  }
  if (!hasStock(c)) return { offers: [] };
  // AutoDL console stock is the hosts of the account's own instances (regions are its own); the others take the regions named, where they fit the platform.
  const hostStock = PLATFORM_DESCRIPTORS[c.kind].clone === true;
  const askable = hostStock ? [] : regionsFor(kind, o.limits.regions);
  if (o.limits.regions.length && !hostStock && !askable.length) return { offers: [] };
  const rows = await c.stock({ ...(askable.length ? { regions: askable } : {}), ...(o.signal ? { signal: o.signal } : {}) });
  if (then.action === 'start') {
    // The instance's own place where the platform says (its region, or its host on the AutoDL console).
    const inst = then.instance;
    const own = rows.filter((r) => (inst.region !== undefined && (r.region === inst.region || r.zone === inst.region)));
    const j = judgeStock(own.length ? own : rows, o.limits);
    // The instance's price where the stock does not say one.
    const offers = j.offers.map((x) => (x.priceFen === undefined && inst.priceFenPerHour !== undefined ? { ...x, priceFen: inst.priceFenPerHour } : x));
    return gatePrice(offers, j.why, o.limits);
  }
  return judgeStock(rows, o.limits, { needProSpec: byDataCenter(c.kind) });
}

/** A create by a card spec in a data center (AutoDL Pro's pool): its rows carry the Pro spec (from the descriptors: no kind named here). */
const byDataCenter = (kind: PlatformKind): boolean => PLATFORM_DESCRIPTORS[kind].create?.where === 'dataCenter';

/** A start acts only on a price it knows to be within the limit. */
function gatePrice(offers: Offer[], why: GrabWhy | undefined, l: GrabLimits): { offers: Offer[]; why?: GrabWhy } {
  const ok = offers.filter((x) => priceVerdict(x.priceFen, l.maxPriceFen) === 'ok');
  if (ok.length) return { offers: ok };
  const x = offers[0];
  if (!x) return { offers: [], ...(why ? { why } : {}) };
  const region = x.row.zone ?? x.row.region;
  return { offers: [], why: x.priceFen === undefined ? { code: 'priceUnknown', card: x.row.card, region, maxFen: l.maxPriceFen! } : { code: 'priceAbove', card: x.row.card, region, priceFen: x.priceFen, maxFen: l.maxPriceFen! } };
}

/** The AutoDL console's hosts with the instance's card free, within the regions and the price. */
async function cloneOffers(a: GrabAccount, inst: PlatformInstance, o: GrabOptions): Promise<{ offers: Offer[]; why?: GrabWhy; plan?: unknown }> {
  const plan = await planClone(a.connector, inst.ref, o.signal);
  const card = inst.card ?? o.limits.card;
  if (isCloneRefusal(plan)) {
    if (plan.code === 'noCandidate') return { offers: [], why: { code: 'soldOut', card } };
    throw new CloneRefused(plan);
  }
  const rows = plan.candidates.map((x) => candidateRow(x, plan.source.card));
  const inPlace = rows.filter((r) => regionAllowed(r, o.limits.regions));
  if (!inPlace.length) return { offers: [], why: { code: 'soldOut', card } };
  const offers = inPlace.map((r) => ({ row: r, ...(r.priceFenPerHour !== undefined ? { priceFen: r.priceFenPerHour } : {}) }));
  return gatePrice(offers, undefined, o.limits);
}

/** A clone candidate as a row: its region sign (and name) as the place, its host id as the zone. */
function candidateRow(x: CloneCandidate, card: string): StockRow & { machineId: string; regionName: string } {
  return { card, region: x.regionSign, zone: x.machineId, free: x.idle, status: 'free', ...(x.priceFenPerHour !== undefined ? { priceFenPerHour: x.priceFenPerHour } : {}), source: 'autodl-console-list', readAt: 0, machineId: x.machineId, regionName: x.regionName };
}

class CloneRefused extends Error {
  constructor(readonly refusal: CloneRefusal) {
    super(refusal.code);
  }
}

async function act(a: GrabAccount, offer: Offer, o: GrabOptions): Promise<ActResult> {
  const c = a.connector;
  const base = { rounds: 0, waitedMs: 0 };
  if (o.then.action === 'create') {
    const card = byDataCenter(c.kind) ? offer.row.proSpec! : (offer.row.instanceType ?? offer.row.card);
    const region = byDataCenter(c.kind) ? offer.row.region : (offer.row.zone ?? offer.row.region);
    const t = o.then;
    const p = await previewCreate(c, { card, gpus: o.limits.gpus, name: t.name, region, ...(t.image !== undefined ? { image: t.image } : {}), ...(t.diskGb !== undefined ? { diskGb: t.diskGb } : {}), ...(t.cudaMin !== undefined ? { cudaMin: t.cudaMin } : {}), ...(t.torch !== undefined ? { torch: t.torch } : {}) }, o.signal);
    if (isRefusal(p)) return p.code === 'noStock' || p.code === 'cudaUnmet' ? { kind: 'miss', missed: { code: 'taken', detail: p.code } } : { kind: 'refused', ...base, account: a.account.id, create: p };
    const price = p.priceFenPerHour ?? offer.priceFen;
    if (!p.existing) {
      const pv = priceVerdict(price, o.limits.maxPriceFen);
      if (pv !== 'ok') return { kind: 'miss', missed: { code: pv === 'above' ? 'priceAbove' : 'priceUnknown', ...(price !== undefined ? { priceFen: price } : {}) } };
    }
    o.onAct?.({ action: 'create', account: a.account.id, card: offer.row.card, region, ...(price !== undefined ? { priceFen: price } : {}) });
    if (o.signal?.aborted) return { kind: 'cancelled', ...base, inFlight: false };
    const r = await createInstance(c, p, { settleMs: o.settleMs, intervalMs: o.settleIntervalMs, ...(o.signal ? { signal: o.signal } : {}), ...(o.onProgress ? { onProgress: o.onProgress } : {}) });
    if (r.status === 'refused') return r.refusal.code === 'noStock' || r.refusal.code === 'cudaUnmet' ? { kind: 'miss', missed: { code: 'taken', detail: r.refusal.code } } : { kind: 'refused', ...base, account: a.account.id, create: r.refusal };
    if (r.status === 'unknown') return { kind: 'unknown', ...base, account: a.account.id, name: r.name, reason: r.reason };
    return { kind: 'done', ...base, action: 'create', account: a.account.id, ref: r.ref, name: t.name, card: offer.row.card, region, ...(price !== undefined ? { priceFen: price } : {}), settled: r.settled, ...(r.instance ? { state: r.instance.rawState } : {}), recovered: r.recovered, ...(r.login ? { login: r.login } : {}) };
  }
  const inst = o.then.instance;
  if (o.then.action === 'start') {
    o.onAct?.({ action: 'start', account: a.account.id, card: inst.card ?? offer.row.card, ...(inst.region ? { region: inst.region } : {}), ...(offer.priceFen !== undefined ? { priceFen: offer.priceFen } : {}) });
    if (o.signal?.aborted) return { kind: 'cancelled', ...base, inFlight: false };
    try {
      // The grab holds the instance's lock: the unlocked connector sends it.
      await unlockedConnector(c).powerOn(inst.ref, 'gpu', o.signal);
    } catch (e) {
      if (o.signal?.aborted) return { kind: 'cancelled', ...base, inFlight: true };
      const f = failureOf(c, e);
      const v = waitVerdict(f.kind);
      if (v === 'stop') return { kind: 'refused', ...base, account: a.account.id, failure: f };
      return { kind: 'miss', missed: { code: v === 'noCard' ? 'taken' : 'noAnswer', detail: [f.code, f.message].filter(Boolean).join(' ').slice(0, 200) }, verdict: v };
    }
    let last = '';
    const r = await waitForState(c, inst.ref, TARGET.powerOnGpu, { deadlineMs: o.settleMs, intervalMs: o.settleIntervalMs, ...(o.signal ? { signal: o.signal } : {}), onProgress: (x) => x.state !== last && o.onProgress?.((last = x.state)) }).catch(() => ({ settled: false as const, last: undefined }));
    const login = r.settled && can(c.kind, 'sshLogin') ? await c.sshLogin(inst.ref, o.signal).catch(() => undefined) : undefined;
    return { kind: 'done', ...base, action: 'start', account: a.account.id, ref: inst.ref, name: inst.name, card: inst.card ?? offer.row.card, ...(inst.region ? { region: inst.region } : {}), ...(offer.priceFen !== undefined ? { priceFen: offer.priceFen } : {}), settled: r.settled, ...(r.last ? { state: r.last.rawState } : {}), recovered: false, ...(login ? { login } : {}) };
  }
  // Clone: the plan read again just before (the hosts move), the offer's host if it is still there.
  const t = o.then;
  const plan = await planClone(c, inst.ref, o.signal);
  if (isCloneRefusal(plan)) return plan.code === 'noCandidate' ? { kind: 'miss', missed: { code: 'taken' } } : { kind: 'refused', ...base, account: a.account.id, clone: plan };
  const target = plan.candidates.find((x) => x.machineId === offer.row.zone);
  if (!target) return { kind: 'miss', missed: { code: 'taken' } };
  const pv = priceVerdict(target.priceFenPerHour, o.limits.maxPriceFen);
  if (pv !== 'ok') return { kind: 'miss', missed: { code: pv === 'above' ? 'priceAbove' : 'priceUnknown', ...(target.priceFenPerHour !== undefined ? { priceFen: target.priceFenPerHour } : {}) } };
  o.onAct?.({ action: 'clone', account: a.account.id, card: plan.source.card, region: target.regionName || target.regionSign, ...(target.priceFenPerHour !== undefined ? { priceFen: target.priceFenPerHour } : {}) });
  if (o.signal?.aborted) return { kind: 'cancelled', ...base, inFlight: false };
  const r = await cloneInstance(c, plan, target, { ...(t.cloneName ? { name: t.cloneName } : {}), settleMs: o.settleMs, intervalMs: o.settleIntervalMs, ...(o.signal ? { signal: o.signal } : {}), ...(o.onProgress ? { onProgress: o.onProgress } : {}) });
  if (r.status === 'unknown') return { kind: 'unknown', ...base, account: a.account.id, name: r.name, reason: r.reason };
  if (r.status === 'failed') return { kind: 'refused', ...base, account: a.account.id, failure: { platform: c.kind, kind: 'other', code: 'CloneFailed', message: `${r.ref} ended ${r.rawState}` } };
  return { kind: 'done', ...base, action: 'clone', account: a.account.id, ref: r.ref, name: r.name, card: plan.source.card, region: target.regionName || target.regionSign, ...(target.priceFenPerHour !== undefined ? { priceFen: target.priceFenPerHour } : {}), settled: r.settled, state: r.rawState, recovered: r.recovered, ...(r.login ? { login: r.login } : {}) };
}

/** Whether an account can be watched for this action (create: the platform creates; clone: AutoDL console; start: any). */
export function canGrabWith(c: Connector, action: GrabAction): boolean {
  if (action === 'create') return descriptorOf(c.kind).create !== undefined && hasStock(c);
  if (action === 'clone') return canClone(c);
  return true;
}

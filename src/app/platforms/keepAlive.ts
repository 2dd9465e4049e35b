// Keep from Release, written once for every front end: start a shut-down instance (no-GPU mode
// where the API can), read it back running (the check), shut it down again and read it back
// stopped, holding the instance's power-on lock the whole time so no other power-on (Power On,
// Start When a Card Is Free, a schedule, `gpu-rent power-on`) runs beside it. The manual command
// calls `keepAliveLocked`; `runKeepAlive` does it on its own for the accounts that opted in, for
// each instance inside the last days before its release day by the platform's clock
// (core/platforms/keepAlive.ts), from `gpu-rent schedule run` (cron) and from VS Code.
import { PlatformError, describeFailure } from './errors';
import { busyText, powerLockKey, unlockedConnector, type PowerLockHolder, type PowerOnLocks } from './powerLock';
import { TARGET, waitForState } from './settle';
import { keepAliveCostFen, keepAliveSupport, keepAliveVerdict, noGpuRateFen } from '../../core/platforms/keepAlive';
import { isTransient, type Connector, type PlatformFailure, type PlatformInstance, type PlatformKind, type PowerOnMode } from '../../core/platforms/types';

export type CycleStep = 'starting' | 'started' | 'stopping' | 'stopped';

export type CycleResult =
  /** Started, seen running, shut down and seen stopped. `after` is the last reading (its new release day). */
  | { kind: 'done'; ranS: number; up: boolean; upSeen?: PlatformInstance; after?: PlatformInstance }
  /** The start was refused: nothing changed, nothing bills. */
  | { kind: 'startRefused'; error: unknown }
  /** The shut-down was refused: it STILL BILLS. */
  | { kind: 'stopRefused'; error: unknown; ranS: number; last?: PlatformInstance }
  /** The shut-down was accepted but it was not seen stopped before the deadline: it may STILL BILL. */
  | { kind: 'notStopped'; ranS: number; upSeen?: PlatformInstance; last?: PlatformInstance };

export interface CycleOptions {
  deadlineMs: number;
  intervalMs: number;
  signal?: AbortSignal;
  onStep?: (step: CycleStep, seen?: PlatformInstance) => void;
  onProgress?: (seen: PlatformInstance) => void;
}

/** One start and shut-down. `c` must not take the power-on lock itself (the caller holds it). */
export async function keepAliveCycle(c: Connector, ref: string, how: PowerOnMode, o: CycleOptions): Promise<CycleResult> {
  const settle = { deadlineMs: o.deadlineMs, intervalMs: o.intervalMs, ...(o.signal ? { signal: o.signal } : {}), ...(o.onProgress ? { onProgress: o.onProgress } : {}) };
  o.onStep?.('starting');
  const t0 = Date.now();
  try {
    await c.powerOn(ref, how, o.signal);
  } catch (e) {
    return { kind: 'startRefused', error: e };
  }
  const up = await waitForState(c, ref, how === 'noGpu' ? TARGET.powerOnNoGpu : TARGET.powerOnGpu, settle).catch(() => ({ settled: false as const, last: undefined }));
  o.onStep?.('started', up.last);
  // Shut down whether or not it was seen up: a start that is still settling bills as well.
  o.onStep?.('stopping');
  try {
    await c.powerOff(ref, 'keep', o.signal);
  } catch (e) {
    return { kind: 'stopRefused', error: e, ranS: Math.round((Date.now() - t0) / 1000), ...(up.last ? { last: up.last } : {}) };
  }
  const down = await waitForState(c, ref, TARGET.powerOff, settle).catch(() => ({ settled: false as const, last: undefined }));
  const ranS = Math.max(1, Math.round((Date.now() - t0) / 1000));
  o.onStep?.('stopped', down.last);
  const upSeen = up.last ? { upSeen: up.last } : {};
  if (!down.settled) return { kind: 'notStopped', ranS, ...upSeen, ...(down.last ? { last: down.last } : {}) };
  return { kind: 'done', ranS, up: up.settled, ...upSeen, ...(down.last ? { after: down.last } : {}) };
}

/** The cycle under the instance's power-on lock; `busy` (nothing sent) while another power-on holds it. */
export async function keepAliveLocked(locks: PowerOnLocks, accountId: string, c: Connector, ref: string, how: PowerOnMode, o: CycleOptions & { what?: string }): Promise<CycleResult | { kind: 'busy'; holder: PowerLockHolder }> {
  const held = locks.tryAcquire(powerLockKey(accountId, ref), o.what ?? 'keep-alive');
  if ('busy' in held) return { kind: 'busy', holder: held.busy };
  try {
    return await keepAliveCycle(unlockedConnector(c), ref, how, o);
  } finally {
    held.release();
  }
}

export interface KeepAliveAccount {
  id: string;
  kind: PlatformKind;
  powerActions: boolean;
  /** The account's opt-in (`gpu-rent accounts keep-alive ID on`, VS Code's gpuRent.platforms.keepAlive). */
  keepAlive: boolean;
  connector: Connector;
}

export const KEEP_ALIVE_OUTCOMES = ['done', 'notDue', 'notStopped', 'noClock', 'busy', 'refused', 'failed', 'unsettled'] as const;
export type KeepAliveOutcome = (typeof KEEP_ALIVE_OUTCOMES)[number];

/** Why, as a code the front ends turn into their own words (the English `detail` is for logs and --json). */
export type KeepAliveCode =
  | 'done'
  | 'doneNotSeenUp'
  | 'doneNoNewDay'
  | 'doneSameDay'
  | 'notDue'
  | 'notStopped'
  | 'startedMeanwhile'
  | 'restartedMeanwhile'
  | 'noClock'
  | 'busy'
  | 'platformNoClock'
  | 'noNoGpuStart'
  | 'readOnly'
  | 'listFailed'
  | 'readFailed'
  | 'startRefused'
  | 'stopRefused'
  | 'notSeenStopped';

export interface KeepAliveResult {
  code: KeepAliveCode;
  /** The platform's state word (notStopped, startedMeanwhile, notSeenStopped) or who holds the lock (busy), bounded. */
  raw?: string;
  account: string;
  /** Empty for a result about the whole account (its list could not be read, it is read-only). */
  ref: string;
  name: string;
  outcome: KeepAliveOutcome;
  /** Plain English; the platform's words inside it bounded (front ends render it as box text). */
  detail: string;
  /** Day N of `days` since it was shut down, by the platform's clock. */
  day?: number;
  days?: number;
  releaseAt?: number;
  /** When it becomes due (notDue). */
  dueAt?: number;
  /** The release day the platform gives after the keep-alive (done). */
  newReleaseAt?: number;
  /** Seconds between the start and seen stopped, and what that cost at the no-GPU rate (fen). */
  ranS?: number;
  costFen?: number;
  rateFenPerHour?: number;
  /** It may still bill: the shut-down was refused or not seen. */
  stillBilling?: boolean;
  failure?: Pick<PlatformFailure, 'platform' | 'kind' | 'code' | 'message'>;
}

export interface KeepAliveRunOptions {
  /** Epoch seconds (the platform's clock is compared with it). */
  now: number;
  accounts: readonly KeepAliveAccount[];
  locks: PowerOnLocks;
  settleMs?: number;
  intervalMs?: number;
  onResult?: (r: KeepAliveResult) => void;
}

const failureOf = (e: unknown) => (e instanceof PlatformError ? { platform: e.failure.platform, kind: e.failure.kind, code: e.failure.code, message: e.failure.message } : undefined);
const words = (e: unknown) => (e instanceof PlatformError ? describeFailure(e.failure) : e instanceof Error ? e.message : String(e)).slice(0, 400);

/** Every opted-in account's shut-down instances: those inside the last days before their release day are started without GPU and shut down again. */
export async function runKeepAlive(o: KeepAliveRunOptions): Promise<KeepAliveResult[]> {
  const out: KeepAliveResult[] = [];
  const push = (r: KeepAliveResult) => {
    out.push(r);
    o.onResult?.(r);
  };
  for (const a of o.accounts) {
    if (!a.keepAlive) continue;
    const support = keepAliveSupport(a.kind);
    if (support !== 'ok') {
      push({ code: support === 'noClock' ? 'platformNoClock' : 'noNoGpuStart', account: a.id, ref: '', name: '', outcome: 'refused', detail: support === 'noClock' ? 'the platform does not release shut-down instances on a clock: nothing to keep alive' : 'the API has no no-GPU start (AutoDL Pro): keep-alive is left to the manual Keep from Release' });
      continue;
    }
    if (!a.powerActions) {
      push({ code: 'readOnly', account: a.id, ref: '', name: '', outcome: 'refused', detail: `account ${a.id} is read-only: power actions are not allowed, so keep-alive cannot start its instances` });
      continue;
    }
    let rows: PlatformInstance[];
    try {
      rows = await a.connector.list();
    } catch (e) {
      const f = failureOf(e);
      push({ code: 'listFailed', account: a.id, ref: '', name: '', outcome: 'failed', detail: `its instances could not be read: ${words(e)}`, ...(f ? { failure: f } : {}) });
      continue;
    }
    const rate = noGpuRateFen(a.kind) ?? 0;
    for (const row of rows) {
      const v = keepAliveVerdict(row, o.now);
      const base = { account: a.id, ref: row.ref, name: row.name.slice(0, 128) };
      if (v.kind === 'notStopped') {
        push({ ...base, code: 'notStopped', raw: (row.rawState || row.state).slice(0, 60), outcome: 'notStopped', detail: `${row.rawState || row.state}: not shut down, not on the release clock` });
        continue;
      }
      if (v.kind === 'noClock') {
        push({ ...base, code: 'noClock', outcome: 'noClock', detail: 'shut down, but the platform gives no stop or release time to count from' });
        continue;
      }
      if (v.kind === 'notYet') {
        push({ ...base, code: 'notDue', outcome: 'notDue', detail: `day ${v.day} of ${v.days} shut down: due from ${v.days - 2 > 0 ? `day ${v.days - 2}` : 'its last days'}`, day: v.day, days: v.days, releaseAt: v.releaseAt, dueAt: v.dueAt });
        continue;
      }
      push(await keepOne(o, a, row, rate));
    }
  }
  return out;
}

async function keepOne(o: KeepAliveRunOptions, a: KeepAliveAccount, row: PlatformInstance, rate: number): Promise<KeepAliveResult> {
  const base = { account: a.id, ref: row.ref, name: row.name.slice(0, 128), rateFenPerHour: rate };
  const held = o.locks.tryAcquire(powerLockKey(a.id, row.ref), 'keep-alive');
  if ('busy' in held) return { ...base, code: 'busy', raw: busyText(held.busy), outcome: 'busy', detail: `${busyText(held.busy)}: nothing sent; tried again at the next run` };
  try {
    const c = unlockedConnector(a.connector);
    // Read again under the lock: another runner may have just kept it alive, or someone started it.
    let now: PlatformInstance;
    try {
      now = await c.get(row.ref);
    } catch (e) {
      const f = failureOf(e);
      return { ...base, code: 'readFailed', outcome: 'failed', detail: `its state could not be read again: ${words(e)}`, ...(f ? { failure: f } : {}) };
    }
    const v = keepAliveVerdict(now, o.now);
    if (v.kind === 'notStopped') return { ...base, code: 'startedMeanwhile', raw: (now.rawState || now.state).slice(0, 60), outcome: 'notStopped', detail: `${now.rawState || now.state}: started meanwhile, nothing sent` };
    if (v.kind !== 'due') return { ...base, code: v.kind === 'noClock' ? 'noClock' : 'restartedMeanwhile', outcome: v.kind === 'noClock' ? 'noClock' : 'notDue', detail: 'its clock was restarted meanwhile: nothing sent', ...(v.kind === 'notYet' ? { day: v.day, days: v.days, releaseAt: v.releaseAt, dueAt: v.dueAt } : {}) };
    const clock = { day: v.day, days: v.days, releaseAt: v.releaseAt };
    const r = await keepAliveCycle(c, row.ref, 'noGpu', { deadlineMs: o.settleMs ?? 120_000, intervalMs: o.intervalMs ?? 3000 });
    if (r.kind === 'startRefused') {
      const f = failureOf(r.error);
      const transient = r.error instanceof PlatformError && isTransient(r.error.failure);
      return { ...base, ...clock, code: 'startRefused', outcome: transient || !(r.error instanceof PlatformError) ? 'failed' : 'refused', detail: `the no-GPU start was refused: ${words(r.error)}; it stays shut down`, ...(f ? { failure: f } : {}) };
    }
    const costFen = keepAliveCostFen(rate, r.ranS);
    if (r.kind === 'stopRefused') {
      const f = failureOf(r.error);
      return { ...base, ...clock, code: 'stopRefused', outcome: 'failed', ranS: r.ranS, costFen, stillBilling: true, detail: `started in no-GPU mode, but the shut-down was refused: ${words(r.error)}. It STILL BILLS: shut it down in the console`, ...(f ? { failure: f } : {}) };
    }
    if (r.kind === 'notStopped') return { ...base, ...clock, code: 'notSeenStopped', raw: (r.last?.rawState || r.last?.state || 'unknown').slice(0, 60), outcome: 'unsettled', ranS: r.ranS, costFen, stillBilling: true, detail: `shut-down sent, but it reports "${r.last?.rawState || r.last?.state || 'unknown'}": it may STILL BILL, check it in the console` };
    const newReleaseAt = r.after?.releaseAt;
    const moved = newReleaseAt !== undefined && newReleaseAt > v.releaseAt;
    return {
      ...base,
      ...clock,
      code: !r.up ? 'doneNotSeenUp' : moved ? 'done' : newReleaseAt === undefined ? 'doneNoNewDay' : 'doneSameDay',
      outcome: 'done',
      ranS: r.ranS,
      costFen,
      ...(newReleaseAt !== undefined ? { newReleaseAt } : {}),
      detail: `started in no-GPU mode${r.up ? ', seen running' : ' (not seen running before the shut-down)'}, shut down again after ${r.ranS} s${moved ? '' : newReleaseAt === undefined ? '; the platform gave no new release day' : '; the platform still gives the old release day'}`,
    };
  } finally {
    held.release();
  }
}

// Power schedules kept in $GPU_RENT_HOME/schedules.json (0600, written atomically) and run by
// `runDue(now)`: each due rule is done through its account's connector (a power-on under the
// instance's power-on lock), and each result recorded: done, skipped (nothing to do), refused
// with the platform's reason, failed, missed (its time passed outside the grace window while
// nothing ran) or superseded (a later rule of the same instance was due too). One run at a
// time (a lock file); a rule is marked handled once its occurrence is settled, so a run that
// dies halfway does the rest next time, and a transient failure is tried again while the
// rule is still inside its window.
import { mkdir } from 'node:fs/promises';
import { readPrivateJson } from './privateFile';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './atomicWrite';
import { PlatformError, describeFailure } from './platforms/errors';
import { acquireFileLock, busyText, PowerOnLocks, powerLockKey, unlockedConnector, type Release } from './platforms/powerLock';
import { TARGET, waitForState } from './platforms/settle';
import { isTransient, type Connector, type PlatformFailure, type PlatformKind } from '../core/platforms/types';
import { actionCapability, dueRules, planAction, DEFAULT_GRACE_S, MAX_RULES, ScheduleRuleSchema, SCHEDULE_ACTIONS, type ScheduleAction, type ScheduleRule, type ScheduleTime } from '../core/schedule';

export const SCHEDULE_FILE = 'schedules.json';
const MAX_HISTORY = 200;

export const OUTCOMES = ['done', 'unsettled', 'skipped', 'refused', 'failed', 'missed', 'superseded', 'busy'] as const;
export type Outcome = (typeof OUTCOMES)[number];

const HistorySchema = z.strictObject({
  rule: z.string().max(16),
  account: z.string().max(64),
  ref: z.string().max(128),
  action: z.enum(SCHEDULE_ACTIONS),
  /** The occurrence (epoch seconds) and when it was handled. */
  at: z.number().int(),
  ranAt: z.number().int(),
  outcome: z.enum(OUTCOMES),
  detail: z.string().max(600),
});
export type HistoryEntry = z.infer<typeof HistorySchema>;

const FileSchema = z.strictObject({
  version: z.literal(1),
  rules: z.array(ScheduleRuleSchema).max(MAX_RULES),
  history: z.array(HistorySchema).max(MAX_HISTORY),
});
export type ScheduleFile = z.infer<typeof FileSchema>;

export class ScheduleFileError extends Error {}

const empty = (): ScheduleFile => ({ version: 1, rules: [], history: [] });

export async function readSchedules(home: string): Promise<ScheduleFile> {
  // It decides power actions: one others may write is refused, as the account file is (privateFile.ts, the one reader).
  return (await readPrivateJson(join(home, SCHEDULE_FILE), FileSchema, (m) => new ScheduleFileError(m), { onlyRefuseWritable: true })) ?? empty();
}

export async function writeSchedules(home: string, f: ScheduleFile): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  const checked = FileSchema.parse({ ...f, history: f.history.slice(-MAX_HISTORY) });
  await writeFileAtomic(join(home, SCHEDULE_FILE), JSON.stringify(checked, null, 2) + '\n', { mode: 0o600 });
}

export interface NewRule extends ScheduleTime {
  account: string;
  ref: string;
  name: string;
  action: ScheduleAction;
}

export async function addRule(home: string, n: NewRule, now: number): Promise<ScheduleRule> {
  const f = await readSchedules(home);
  if (f.rules.length >= MAX_RULES) throw new ScheduleFileError(`at most ${MAX_RULES} schedule rules`);
  let id: string;
  do id = randomBytes(4).toString('hex');
  while (f.rules.some((r) => r.id === id));
  const rule = ScheduleRuleSchema.parse({ id, account: n.account, ref: n.ref, name: n.name.slice(0, 128), days: n.days, minute: n.minute, action: n.action, createdAt: Math.floor(now) });
  f.rules.push(rule);
  await writeSchedules(home, f);
  return rule;
}

/** The removed rule, or undefined when there is none with that id. */
export async function removeRule(home: string, id: string): Promise<ScheduleRule | undefined> {
  const f = await readSchedules(home);
  const rule = f.rules.find((r) => r.id === id);
  if (!rule) return undefined;
  await writeSchedules(home, { ...f, rules: f.rules.filter((r) => r.id !== id) });
  return rule;
}

export interface ScheduleAccount {
  id: string;
  kind: PlatformKind;
  powerActions: boolean;
  connector: Connector;
}

export interface RunResult {
  rule: ScheduleRule;
  at: number;
  outcome: Outcome;
  /** Plain English, the platform's words inside it bounded (front ends still render it as box text). */
  detail: string;
  failure?: Pick<PlatformFailure, 'kind' | 'code' | 'message'>;
  /** The state the instance was left in, as read. */
  state?: string;
  /** Earlier occurrences also missed (the machine was off for several of them). */
  missedBefore?: number;
  /** Not marked handled: the next run tries again while the rule is inside its window. */
  retry?: boolean;
}

export interface RunOptions {
  home: string;
  now: number;
  accounts: readonly ScheduleAccount[];
  graceS?: number;
  /** How long to follow a state after an action, and how often. */
  settleMs?: number;
  intervalMs?: number;
  /** The extension's locks (file-backed: the lock files gpu-rent takes), when it runs schedules itself. */
  locks?: PowerOnLocks;
  /**
   * Rules of accounts not in `accounts` are left alone (not run, not marked handled) for another
   * runner that holds them: the extension runs only its own accounts' rules and leaves the rest
   * to `gpu-rent schedule run`. Without it such a rule fails with "no account".
   */
  onlyTheseAccounts?: boolean;
  onResult?: (r: RunResult) => void;
}

const hhmmAgo = (s: number) => (s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min` : `${Math.floor(s / 60)} min`);

function failureOf(e: unknown): Pick<PlatformFailure, 'kind' | 'code' | 'message'> | undefined {
  return e instanceof PlatformError ? { kind: e.failure.kind, code: e.failure.code, message: e.failure.message } : undefined;
}

/** Runs every due rule once; `busy` when another run holds the schedule lock. */
export async function runDue(o: RunOptions): Promise<{ busy: { pid: number } } | { results: RunResult[] }> {
  const lock = acquireFileLock(join(o.home, 'locks'), 'schedule-run', 'schedule run');
  if ('busy' in lock) return { busy: { pid: lock.busy.pid } };
  try {
    const f = await readSchedules(o.home);
    const results: RunResult[] = [];
    const mine = o.onlyTheseAccounts ? f.rules.filter((r) => o.accounts.some((a) => a.id === r.account)) : f.rules;
    for (const v of dueRules(mine, o.now, o.graceS ?? DEFAULT_GRACE_S)) {
      let r: RunResult;
      if (v.kind === 'missed') r = { rule: v.rule, at: v.at, outcome: 'missed', detail: `its time passed ${hhmmAgo(v.lateS)} ago while nothing ran, outside the ${Math.round((o.graceS ?? DEFAULT_GRACE_S) / 60)} min window: not run late`, missedBefore: v.missedBefore };
      else if (v.kind === 'superseded') r = { rule: v.rule, at: v.at, outcome: 'superseded', detail: `a later rule of the same instance (${v.by}) was due too: only that one ran` };
      else r = { ...(await perform(o, v.rule, v.at)), ...(v.missedBefore ? { missedBefore: v.missedBefore } : {}) };
      results.push(r);
      o.onResult?.(r);
      // Recorded at once (read again: a `schedule add` may have written meanwhile).
      const now = await readSchedules(o.home);
      const rules = r.retry ? now.rules : now.rules.map((x) => (x.id === r.rule.id ? { ...x, handledUntil: Math.max(x.handledUntil ?? 0, r.at) } : x));
      const entry: HistoryEntry = { rule: r.rule.id, account: r.rule.account, ref: r.rule.ref, action: r.rule.action, at: r.at, ranAt: Math.floor(o.now), outcome: r.outcome, detail: r.detail.slice(0, 600) };
      await writeSchedules(o.home, { ...now, rules, history: [...now.history, entry] });
    }
    return { results };
  } finally {
    lock.release();
  }
}

async function perform(o: RunOptions, rule: ScheduleRule, at: number): Promise<RunResult> {
  const base = { rule, at };
  const a = o.accounts.find((x) => x.id === rule.account);
  // Not marked handled: the other runner (VS Code's, with its own accounts) may hold this account.
  if (!a) return { ...base, outcome: 'failed', detail: `no account ${rule.account} here (gpu-rent accounts list; VS Code's runner acts for its own accounts)`, retry: true };
  if (!a.powerActions) return { ...base, outcome: 'refused', detail: `account ${a.id} is read-only: power actions are not allowed` };
  const cap = actionCapability(a.kind, rule.action);
  if (!cap) return { ...base, outcome: 'refused', detail: `the platform offers no ${rule.action} through its API` };
  const c = a.connector;
  const settle = { deadlineMs: o.settleMs ?? 120_000, intervalMs: o.intervalMs ?? 3000 };
  let inst;
  try {
    inst = await c.get(rule.ref);
  } catch (e) {
    const f = failureOf(e);
    if (f?.kind === 'notFound') return { ...base, outcome: 'failed', detail: 'the instance is gone from the account (released?)', failure: f };
    return { ...base, outcome: 'failed', detail: `its state could not be read: ${e instanceof Error ? e.message : String(e)}`, ...(f ? { failure: f } : {}), retry: !f || isTransient(f) };
  }
  const plan = planAction(rule.action, inst.state);
  if (plan.kind === 'skip') {
    const why = { alreadyRunning: 'already running', alreadyNoGpu: 'already in no-GPU mode', alreadyStopped: 'already shut down', stoppedNotStarted: 'it is shut down: not started just to be in no-GPU mode', changingState: `it is changing state (${inst.rawState || inst.state}): tried again while in its window`, released: 'it is released' }[plan.reason];
    return { ...base, outcome: 'skipped', detail: why, state: inst.state, ...(plan.reason === 'changingState' ? { retry: true } : {}) };
  }
  const offMode = cap === 'powerOff:stopCharging' || actionCapability(a.kind, 'power-off') === 'powerOff:stopCharging' ? 'stopCharging' : 'keep';
  const refused = (e: unknown, what: string): RunResult => {
    const f = failureOf(e);
    if (e instanceof PlatformError) return { ...base, outcome: isTransient(e.failure) ? 'failed' : 'refused', detail: `${what}: ${describeFailure(e.failure)}`, failure: f!, state: inst.state, ...(isTransient(e.failure) ? { retry: true } : {}) };
    return { ...base, outcome: 'failed', detail: `${what}: ${e instanceof Error ? e.message : String(e)}`, state: inst.state };
  };
  if (plan.kind === 'powerOff') {
    try {
      await c.powerOff(rule.ref, offMode);
    } catch (e) {
      return refused(e, 'power-off refused');
    }
    const s = await waitForState(c, rule.ref, TARGET.powerOff, settle).catch(() => ({ settled: false, last: undefined }));
    return s.settled ? { ...base, outcome: 'done', detail: `shut down${offMode === 'stopCharging' ? ' (economical mode asked)' : ''}`, state: 'stopped' } : { ...base, outcome: 'unsettled', detail: `power-off sent, but it reports "${s.last?.rawState || s.last?.state || 'unknown'}" after ${Math.round(settle.deadlineMs / 1000)} s: it may STILL BILL, check it in the console`, state: s.last?.state ?? inst.state };
  }
  // Power-ons take the instance's lock: never two in flight (a --wait-for-gpu, the extension's
  // Start When a Card Is Free, another run). The extension passes its own locks, file-backed.
  const key = powerLockKey(a.id, rule.ref);
  const locks = o.locks?.file ? o.locks : new PowerOnLocks({ dir: join(o.home, 'locks') });
  const held = locks.tryAcquire(key, `schedule ${rule.id}`);
  if ('busy' in held) return { ...base, outcome: 'busy', detail: `${busyText(held.busy)}: nothing sent`, state: inst.state };
  // An in-process map without a file (a test's): taken too, so its connector's paths are refused.
  const mem = o.locks && o.locks !== locks ? o.locks.tryAcquire(key, `schedule ${rule.id}`) : undefined;
  if (mem && 'busy' in mem) {
    held.release();
    return { ...base, outcome: 'busy', detail: `${busyText(mem.busy)}: nothing sent`, state: inst.state };
  }
  const release: Release = () => (held.release(), mem && 'release' in mem ? mem.release() : undefined);
  // Holding the lock: a connector's own locked powerOn would refuse us.
  const pc = unlockedConnector(c);
  try {
    if (plan.kind === 'switchToNoGpu') {
      try {
        await c.powerOff(rule.ref, 'keep');
      } catch (e) {
        return refused(e, 'shut-down before the no-GPU start refused');
      }
      const s = await waitForState(c, rule.ref, TARGET.powerOff, settle).catch(() => ({ settled: false, last: undefined }));
      if (!s.settled) return { ...base, outcome: 'unsettled', detail: `shut down sent to switch to no-GPU mode, but it reports "${s.last?.rawState || s.last?.state || 'unknown'}" after ${Math.round(settle.deadlineMs / 1000)} s: not started in no-GPU mode`, state: s.last?.state ?? inst.state };
    }
    const mode = plan.kind === 'powerOn' ? plan.mode : 'noGpu';
    try {
      await pc.powerOn(rule.ref, mode);
    } catch (e) {
      return refused(e, plan.kind === 'switchToNoGpu' ? 'shut down, but the no-GPU start was refused (it stays shut down)' : 'power-on refused');
    }
    const s = await waitForState(c, rule.ref, mode === 'gpu' ? TARGET.powerOnGpu : TARGET.powerOnNoGpu, settle).catch(() => ({ settled: false, last: undefined }));
    const words = mode === 'gpu' ? 'started with its GPU' : 'switched to no-GPU mode';
    return s.settled ? { ...base, outcome: 'done', detail: words, state: s.last?.state ?? 'running' } : { ...base, outcome: 'unsettled', detail: `${mode === 'gpu' ? 'power-on' : 'no-GPU start'} sent; it reports "${s.last?.rawState || s.last?.state || 'unknown'}" after ${Math.round(settle.deadlineMs / 1000)} s`, state: s.last?.state ?? inst.state };
  } finally {
    release();
  }
}

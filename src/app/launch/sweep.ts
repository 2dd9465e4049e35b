// A sweep (issue 42): a task with `matrix:` run as one launch per combination, a layer around the
// single launch (run.ts's launchTask), never inside it. Each run is a task of its own
// (core/task/sweep.ts: its name <task>-N, its state file, its workdir on the box, its checkpoint
// folders, its values put into run/resume/env/paths) on the box the plan gives it: a listed box
// (runs one after another, or one per GPU lane with CUDA_VISIBLE_DEVICES) or a new box of its own.
// The scheduler here keeps max_parallel, one budget over the whole sweep (each run's cap is its
// share of what is left), fail_fast, and the end action of a shared box: only the box's last run
// carries it, and it starts once the box's other runs have ended (a stop before it starts: the
// sweep does that end itself, or says the box still bills). The sweep's own state (which run
// went where, with which cap, how it ended) is a file of its own, so `--resume` continues it.
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { launchExitCode, spentFen, type LaunchBox, type LaunchState } from '../../core/task/launch';
import { combinations, laneDevices, memberName, memberTask, planSweep, type SweepParams, type SweepPlan } from '../../core/task/sweep';
import { TASK_ENDS, type Task } from '../../core/task/types';
import { ENGLISH } from '../../core/l10n';
import { writeFileAtomic } from '../atomicWrite';
import { acquireFileLock } from '../platforms/powerLock';
import type { LaunchHost, LaunchOptions } from './context';
import { platformPowerActions } from './end';
import { endRefusedUpFront } from './endCheck';
import { isFinished, errText } from './rules';
import { LaunchError, launchTask } from './run';
import { readState, statePath } from './store';

const MAX_SWEEP_STATE_BYTES = 256 * 1024;
const text = (max: number) => z.string().max(max);

export const MEMBER_STATUSES = ['queued', 'running', 'done', 'failed', 'skipped'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

const MemberSchema = z.strictObject({
  index: z.int().min(1).max(64),
  name: text(64),
  params: z.record(text(32), z.union([text(100), z.number().refine(Number.isFinite), z.boolean()])),
  slot: z.int().min(0).max(64),
  lane: z.int().min(0).max(64).nullable(),
  devices: text(64).nullable(),
  end: z.enum(TASK_ENDS as [string, ...string[]]),
  budgetFen: z.int().min(0).nullable(),
  status: z.enum(MEMBER_STATUSES),
  exitCode: z.int().nullable(),
  detail: text(1000).nullable(),
});
export type SweepMemberState = z.infer<typeof MemberSchema>;

const BoxEndSchema = z.strictObject({
  slot: z.int().min(0).max(64),
  label: text(300),
  end: z.enum(TASK_ENDS as [string, ...string[]]),
  /** The end action happened (the platform reports the state it asked for); false: the box still bills. */
  ok: z.boolean(),
  fenPerHour: z.int().min(0).nullable(),
  detail: text(1000),
});
export type SweepBoxEnd = z.infer<typeof BoxEndSchema>;

export const SweepStateSchema = z.strictObject({
  version: z.literal(1),
  sweep: text(64),
  file: text(4096),
  smoke: z.boolean(),
  startedAt: z.number(),
  updatedAt: z.number(),
  maxParallel: z.int().min(1).max(64),
  failFast: z.boolean(),
  budgetFen: z.int().min(0).nullable(),
  /** Why no further run starts (fail_fast, the budget, Ctrl-C); null while runs may start. */
  stopped: text(1000).nullable(),
  members: z.array(MemberSchema).max(64),
  /** Shared boxes whose last run (the end action's carrier) never started: the task's end done by the sweep, or why the box still bills. */
  boxEnds: z.array(BoxEndSchema).max(64).optional(),
});
export type SweepState = z.infer<typeof SweepStateSchema>;

/** <config home>/sweeps/<task>-<digest of the task file path>.json (beside launches/, whose files are launch states only). */
export function sweepStatePath(configHome: string, file: string, name: string): string {
  const key = createHash('sha256').update(file).digest('hex').slice(0, 12);
  return join(configHome, 'sweeps', `${name}-${key}.json`);
}

export async function readSweepState(path: string): Promise<SweepState | undefined> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  if (buf.length > MAX_SWEEP_STATE_BYTES) throw new Error(`the sweep state ${path} is too large (${buf.length} bytes); move it away to start the sweep afresh`);
  const r = SweepStateSchema.safeParse(JSON.parse(buf.toString('utf8')));
  if (!r.success) throw new Error(`the sweep state ${path} is not a sweep state (${r.error.issues.slice(0, 2).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}); move it away to start the sweep afresh`);
  return r.data;
}

async function writeSweepState(path: string, s: SweepState): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, JSON.stringify(s, null, 1) + '\n', { mode: 0o600 });
}

export const sweepFinished = (s: SweepState) => s.members.every((m) => m.status !== 'queued' && m.status !== 'running');

/** The sweep's exit status: 4 when a box may still bill, else 1 for a failed run, 2 refused, 3 a budget or GPU-check stop, 130 interrupted, 0 all done. */
export function sweepExitCode(s: SweepState): number {
  if (s.boxEnds?.some((b) => !b.ok)) return 4;
  const codes = s.members.map((m) => m.exitCode ?? (m.status === 'skipped' ? (s.stopped?.startsWith('budget') ? 3 : 1) : m.status === 'done' ? 0 : 1));
  for (const c of [4, 1, 2, 3]) if (codes.includes(c)) return c;
  return codes.some((c) => c !== 0) ? 1 : 0;
}

/**
 * A starting run's cap: what is left of the sweep's budget (the budget less what every run has
 * spent so far, the ended runs' actual spend, so a run that ended under its cap leaves the rest to
 * the runs after it) over the runs that may go at once; null when nothing is left (no run starts).
 */
export function budgetShare(budgetFen: number, spentFen: number, maxParallel: number, notEnded: number): number | null {
  const left = budgetFen - spentFen;
  if (left <= 0) return null;
  return Math.max(1, Math.floor(left / Math.max(1, Math.min(maxParallel, notEnded))));
}

/** The run on its box as a task: its values in, its box, its lane's cards, its end action and budget share. */
export function memberTaskOf(task: Task, plan: SweepPlan, m: Pick<SweepMemberState, 'index' | 'params' | 'slot' | 'devices' | 'end' | 'budgetFen'>): Task {
  return memberTask(task, m.index, m.params, {
    instance: plan.slots[m.slot]!.instance,
    ...(m.devices !== null ? { devices: m.devices } : {}),
    end: m.end as Task['end'],
    ...(m.budgetFen !== null ? { budgetFen: m.budgetFen } : {}),
  });
}

function newSweepState(task: Task, o: LaunchOptions, plan: SweepPlan, combos: SweepParams[], now: number): SweepState {
  const sweep = task.sweep!;
  return {
    version: 1,
    sweep: task.name,
    file: o.file,
    smoke: o.smoke,
    startedAt: now,
    updatedAt: now,
    maxParallel: plan.maxParallel,
    failFast: sweep.failFast,
    budgetFen: task.budgetFen ?? null,
    stopped: null,
    members: combos.map((params, i) => {
      const slot = plan.slotOf[i]!;
      const own = plan.slots[slot]!.instance.kind === 'new' || plan.endCarrier[slot] === undefined || plan.endCarrier[slot] === i;
      return { index: i + 1, name: memberName(task.name, i + 1), params, slot, lane: null, devices: null, end: own ? task.end : 'none', budgetFen: null, status: 'queued' as const, exitCode: null, detail: null };
    }),
  };
}

export interface SweepHost extends LaunchHost {
  /** Each run's start and end, for the front end's lines. */
  onMember?(m: SweepMemberState, s: SweepState): void;
}

/**
 * Runs (or, with `resume`, continues) the sweep of `o.task` (a task with a matrix). Throws a
 * LaunchError like launchTask for a sweep in progress without --resume, nothing to resume, a
 * changed matrix, another gpu-rent driving it, or an end action refused up front.
 */
export async function launchSweep(o: LaunchOptions, host: SweepHost): Promise<SweepState> {
  const task = o.task;
  if (!task.sweep) throw new Error(`${task.name} has no matrix: it is a single launch`);
  const now = host.now ?? (() => Date.now() / 1000);
  const combos = combinations(task.sweep.matrix);
  const plan = planSweep(task, combos.length);
  const path = sweepStatePath(host.configHome, o.file, task.name);
  const lock = acquireFileLock(join(path, '..'), `sweep:${path}`, 'sweep');
  if ('busy' in lock) throw new LaunchError('busy', `another gpu-rent (pid ${lock.busy.pid}) is driving the sweep ${task.name} now`);
  try {
    const earlier = await readSweepState(path);
    let s: SweepState;
    if (earlier && !sweepFinished(earlier)) {
      if (!o.resume) throw new LaunchError('inProgress', `a sweep of ${task.name} is in progress (${earlier.members.filter((m) => m.status === 'running').length} running, ${earlier.members.filter((m) => m.status === 'queued').length} queued): continue it with --resume, or see it with --status`);
      const same = earlier.members.length === combos.length && earlier.members.every((m, i) => JSON.stringify(m.params) === JSON.stringify(combos[i]) && m.slot === plan.slotOf[i]);
      if (!same) throw new LaunchError('taskChanged', `the matrix or the boxes of ${task.name} changed since this sweep started; finish it with the old task file, or move ${path} away to start afresh`);
      s = { ...earlier, stopped: earlier.stopped?.startsWith('interrupted') ? null : earlier.stopped };
    } else if (o.resume) {
      throw new LaunchError('nothingToResume', earlier ? `the sweep ${task.name} has ended; start it again without --resume` : `no sweep of ${task.name} to resume`);
    } else {
      // An end action that cannot happen is refused before anything is rented (each run's own check follows in launchTask).
      if (task.end !== 'none') {
        const refused = endRefusedUpFront(task, await host.accounts(), host.l10n ?? ENGLISH);
        if (refused) throw new LaunchError('endRefused', refused);
      }
      s = newSweepState(task, o, plan, combos, now());
    }
    const d = new SweepDriver(o, oneQuestionAtATime(host), plan, path, s, now);
    await d.save();
    await d.drive();
    return d.s;
  } finally {
    lock.release();
  }
}

/** Runs going at once may each ask (a create, a release): one question at a time, never two prompts on one terminal. */
function oneQuestionAtATime(host: SweepHost): SweepHost {
  let chain: Promise<unknown> = Promise.resolve();
  const queued = <A extends unknown[]>(ask: ((...a: A) => Promise<boolean>) | undefined) =>
    ask &&
    ((...a: A): Promise<boolean> => {
      const next = chain.then(() => ask(...a));
      chain = next.catch(() => undefined);
      return next;
    });
  const confirmCreate = queued(host.confirmCreate?.bind(host));
  const confirmRelease = queued(host.confirmRelease?.bind(host));
  return { ...host, ...(confirmCreate ? { confirmCreate } : {}), ...(confirmRelease ? { confirmRelease } : {}) };
}

class SweepDriver {
  private readonly running = new Map<number, Promise<void>>();
  private interrupted: unknown;

  constructor(
    readonly o: LaunchOptions,
    readonly host: SweepHost,
    readonly plan: SweepPlan,
    readonly path: string,
    public s: SweepState,
    readonly now: () => number,
  ) {}

  async save(): Promise<void> {
    this.s = { ...this.s, updatedAt: this.now() };
    await writeSweepState(this.path, this.s);
  }

  private async update(index: number, patch: Partial<SweepMemberState>): Promise<SweepMemberState> {
    this.s = { ...this.s, members: this.s.members.map((m) => (m.index === index ? { ...m, ...patch } : m)) };
    await this.save();
    const m = this.s.members.find((x) => x.index === index)!;
    this.host.onMember?.(m, this.s);
    return m;
  }

  private memberState(m: SweepMemberState): Promise<LaunchState | undefined> {
    return readState(statePath(this.host.configHome, this.o.file, m.name)).catch(() => undefined);
  }

  /** What every run has cost so far (its launch state's boxes), and whether a price is unknown. */
  async spent(): Promise<{ fen: number; unknown: boolean }> {
    let fen = 0;
    let unknown = false;
    for (const m of this.s.members) {
      if (m.status === 'queued' || m.status === 'skipped') continue;
      const st = await this.memberState(m);
      if (!st) continue;
      const x = spentFen(st, this.now());
      fen += x.fen;
      unknown ||= x.unknown;
    }
    return { fen, unknown };
  }

  /** Whether run m may start now: a free place in the sweep and on its box, its box's earlier runs started, and a box's end-carrier only once the others on that box ended. */
  private canStart(m: SweepMemberState): boolean {
    if (this.running.size >= this.s.maxParallel) return false;
    const slot = this.plan.slots[m.slot]!;
    const mates = this.s.members.filter((x) => x.slot === m.slot && x.index !== m.index);
    if (slot.instance.kind !== 'new') {
      if (mates.filter((x) => this.running.has(x.index)).length >= slot.lanes) return false;
      if (mates.some((x) => x.index < m.index && x.status === 'queued')) return false;
      if (this.plan.endCarrier[m.slot] === m.index - 1 && mates.some((x) => x.status === 'queued' || x.status === 'running')) return false;
    }
    return true;
  }

  private freeLane(m: SweepMemberState): number {
    const used = new Set(this.s.members.filter((x) => x.slot === m.slot && this.running.has(x.index)).map((x) => x.lane));
    for (let l = 0; ; l++) if (!used.has(l)) return l;
  }

  async drive(): Promise<void> {
    // Runs left running by an earlier process first: each continues where its own launch state is.
    for (const m of this.s.members.filter((x) => x.status === 'running')) this.start(m, m.lane ?? 0, true);
    for (;;) {
      if (this.host.signal?.aborted && !this.interrupted) this.interrupted = new Error('cancelled');
      if (!this.s.stopped && !this.interrupted) {
        for (const m of this.s.members) {
          if (m.status !== 'queued' || !this.canStart(m)) continue;
          if (!(await this.budgetAllows(m))) break;
          const fresh = this.s.members.find((x) => x.index === m.index)!;
          const lane = this.freeLane(fresh);
          const gpr = this.o.task.sweep!.gpusPerRun;
          const devices = gpr && this.plan.slots[m.slot]!.instance.kind !== 'new' ? laneDevices(lane, gpr) : null;
          const started = await this.update(m.index, { status: 'running', lane, devices });
          this.start(started, lane, false);
        }
      }
      if (!this.running.size) break;
      await Promise.race(this.running.values());
    }
    if (this.interrupted) {
      this.s = { ...this.s, stopped: 'interrupted: continue with --resume' };
      await this.save();
      throw this.interrupted;
    }
    // A shared box whose last run will not start now: the task's end action, before that run is marked skipped (a crash here: --resume comes back to it).
    await this.endLeftBoxes();
    // What never started (fail_fast, the budget) is skipped, with the reason.
    for (const m of this.s.members) if (m.status === 'queued') await this.update(m.index, { status: 'skipped', detail: this.s.stopped });
  }

  /**
   * The sweep stopped (fail_fast, the budget) before a shared box's last run started: that run
   * carried the task's end action, and the runs before it ended with `none`, so the box would
   * bill on. Its other runs have all ended: the task's end action is done to it now through its
   * platform (a power-off, or the no-GPU restart); where that cannot happen (an SSH login, a
   * read-only account, a refusal) the sweep's state says the box still bills, at what rate.
   */
  private async endLeftBoxes(): Promise<void> {
    const end = this.o.task.end;
    if (end === 'none') return;
    const boxEnds = [...(this.s.boxEnds ?? [])];
    for (const [slot, carrier] of this.plan.endCarrier.entries()) {
      if (carrier === undefined || this.s.members[carrier]?.status !== 'queued' || boxEnds.some((b) => b.slot === slot)) continue;
      const box = await this.boxOfSlot(slot);
      // No run got the box: the sweep rented nothing there.
      if (!box) continue;
      boxEnds.push({ slot, label: box.label.slice(0, 300), end, fenPerHour: box.priceFenPerHour, ...(await this.endBox(box, end)) });
    }
    if (boxEnds.length !== (this.s.boxEnds?.length ?? 0)) {
      this.s = { ...this.s, boxEnds };
      await this.save();
    }
  }

  /** The box the slot's runs used, as the latest of them that got one recorded it. */
  private async boxOfSlot(slot: number): Promise<LaunchBox | undefined> {
    const ran = this.s.members.filter((x) => x.slot === slot && (x.status === 'done' || x.status === 'failed')).reverse();
    for (const m of ran) {
      const st = await this.memberState(m);
      const box = st?.box ?? st?.boxes.at(-1);
      if (box) return box;
    }
    return undefined;
  }

  private async endBox(box: LaunchBox, end: string): Promise<{ ok: boolean; detail: string }> {
    const why = `its last run never started (${this.s.stopped ?? 'the sweep stopped'})`;
    const a = box.kind === 'platform' ? (await this.host.accounts().catch(() => [])).find((x) => x.id === box.account) : undefined;
    if (box.kind !== 'platform' || !box.ref) return { ok: false, detail: `${why}; an SSH login is not powered off by the sweep` };
    if (!a) return { ok: false, detail: `${why}; its platform account ${box.account ?? '?'} is not available` };
    if (!a.powerActions) return { ok: false, detail: `${why}; account ${a.id} is read-only` };
    if (end !== 'power-off' && end !== 'no-gpu') return { ok: false, detail: `${why}; end: ${end} is not done to a box the launch did not create` };
    const target = end === 'power-off' ? 'stopped' : 'noGpu';
    try {
      const now = await a.connector.get(box.ref, this.host.signal);
      if (now?.state === target) return { ok: true, detail: `${why}; already ${target}` };
      const power = platformPowerActions(a, box.ref, { deadlineMs: this.host.settleMs ?? 300_000, intervalMs: this.host.settleIntervalMs ?? 3000 });
      await (end === 'power-off' ? power.powerOff() : power.noGpu());
      return { ok: true, detail: `${why}; ${end} done by the sweep (the platform reports ${target})` };
    } catch (e) {
      return { ok: false, detail: `${why}; ${end} FAILED: ${errText(e)}`.slice(0, 1000) };
    }
  }

  /** The budget left covers another run (its cap is its share of what is left); else the sweep stops starting runs. */
  private async budgetAllows(m: SweepMemberState): Promise<boolean> {
    if (this.s.budgetFen === null) return true;
    if (m.budgetFen !== null) return true;
    const spent = await this.spent();
    const notEnded = this.s.members.filter((x) => x.status === 'queued' || x.status === 'running').length;
    const share = budgetShare(this.s.budgetFen, spent.fen, this.s.maxParallel, notEnded);
    if (share === null) {
      this.s = { ...this.s, stopped: `budget: the sweep's cap ${this.s.budgetFen} fen is spent` };
      await this.save();
      return false;
    }
    await this.update(m.index, { budgetFen: share });
    return true;
  }

  private start(m: SweepMemberState, lane: number, continuing: boolean): void {
    const p = this.runMember({ ...m, lane }, continuing).finally(() => this.running.delete(m.index));
    this.running.set(m.index, p);
  }

  private async runMember(m: SweepMemberState, continuing: boolean): Promise<void> {
    const task = memberTaskOf(this.o.task, this.plan, m);
    const before = continuing ? await this.memberState(m) : undefined;
    try {
      let st: LaunchState;
      if (before && isFinished(before)) st = before;
      else st = await launchTask({ ...this.o, task, resume: !!before }, this.host);
      const exit = launchExitCode(st);
      await this.update(m.index, { status: exit === 0 ? 'done' : 'failed', exitCode: exit, detail: st.outcome ? `${st.outcome.kind}: ${st.outcome.detail}`.slice(0, 1000) : null });
      if (exit !== 0) this.failed(m);
    } catch (e) {
      if (this.host.signal?.aborted) {
        this.interrupted ??= e;
        return;
      }
      const code = e instanceof LaunchError && e.code === 'endRefused' ? 2 : 1;
      await this.update(m.index, { status: 'failed', exitCode: code, detail: errText(e).slice(0, 1000) });
      this.failed(m);
    }
  }

  private failed(m: SweepMemberState): void {
    if (this.s.failFast && !this.s.stopped) this.s = { ...this.s, stopped: `fail_fast: ${m.name} failed` };
  }
}

/** One row of `launch --status` for a sweep: the run, its values, where its launch is. */
export interface SweepRow {
  member: SweepMemberState;
  state: LaunchState | undefined;
  spentFen: number | null;
}

/** The sweep's state and each run's launch state, or undefined when the sweep never started. */
export async function sweepStatus(configHome: string, file: string, name: string, now = Date.now() / 1000): Promise<{ sweep: SweepState; rows: SweepRow[]; spentFen: number; spentUnknown: boolean } | undefined> {
  const sweep = await readSweepState(sweepStatePath(configHome, file, name));
  if (!sweep) return undefined;
  const rows: SweepRow[] = [];
  let total = 0;
  let unknown = false;
  for (const m of sweep.members) {
    const state = m.status === 'queued' || m.status === 'skipped' ? undefined : await readState(statePath(configHome, file, m.name)).catch(() => undefined);
    const x = state ? spentFen(state, now) : undefined;
    if (x) {
      total += x.fen;
      unknown ||= x.unknown;
    }
    rows.push({ member: m, state, spentFen: x && !x.unknown ? x.fen : x ? null : 0 });
  }
  return { sweep, rows, spentFen: total, spentUnknown: unknown };
}

export const _forTests = { oneQuestionAtATime };

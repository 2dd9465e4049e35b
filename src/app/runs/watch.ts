// The progress of every running job the front end watches, one LogTail per job so each poll
// reads only what the log gained. The finish is re-estimated on each look with the clock moved
// on since the read (the box's clock for staleness, the caller's for the finish time).
import { estimateFinish, type Finish, type Progress, type RunPrice } from '../../core/progress';
import type { RemoteConnection } from '../../remote/connection';
import { Emitter, type Event } from '../events';
import { LogTail } from './logTail';

export interface RunEntry {
  instanceId: string;
  jobId: string;
  progress: Progress;
  alive: boolean;
  price: RunPrice | null;
  /** Caller's clock and the box's at the last read. */
  readAt: number;
  boxAt: number;
}

const key = (instanceId: string, jobId: string) => `${instanceId}\u0000${jobId}`;

/** Where the loss was NaN/±Inf, by step: the monitor marks these on its curve (which holds finite losses only). */
export interface DivergedSpan {
  value: 'nan' | 'inf' | '-inf';
  /** The step of the first non-finite reading and of the latest one while it lasted (null: the log gave no step). */
  from: number | null;
  to: number | null;
  readings: number;
  since: number;
}

/** Divergences remembered per run (the latest ones). */
export const MAX_DIVERGED_SPANS = 50;

export class RunWatch {
  private readonly tails = new Map<string, LogTail>();
  /** The user's progress pattern for plain runs (gpuRent.progress.pattern, checked by app/runs/progressSetting), read on every line first. */
  private pattern: RegExp | null = null;
  private readonly entries = new Map<string, RunEntry>();
  /** Instances whose box did not answer the last poll: their runs' progress is stale (the caller's clock when first missed). */
  private readonly unreachableSince = new Map<string, number>();
  private readonly spans = new Map<string, DivergedSpan[]>();
  private readonly updates = new Emitter<RunEntry>();
  private readonly changes = new Emitter<string>();

  /** Called after every read of a run's log (the diverged-run monitor listens); a throwing listener is ignored. */
  readonly onUpdate: Event<RunEntry> = this.updates.event;

  /**
   * The instance whose runs' figures changed: a log read, its box stopped answering, or a run
   * forgotten (the tree, the status bar and the GPU monitor listen).
   */
  readonly onDidChange: Event<string> = this.changes.event;

  /** Reads the new part of the job's log and records its progress. */
  async update(conn: RemoteConnection, o: { instanceId: string; jobId: string; logPath: string; alive: boolean; price: RunPrice | null; now: number }): Promise<RunEntry> {
    const k = key(o.instanceId, o.jobId);
    let tail = this.tails.get(k);
    if (!tail || tail.path !== o.logPath) this.tails.set(k, (tail = new LogTail(o.logPath, { pattern: this.pattern })));
    const u = await tail.update(conn);
    const entry: RunEntry = { instanceId: o.instanceId, jobId: o.jobId, progress: u.progress, alive: o.alive, price: o.price, readAt: o.now, boxAt: u.chunk.boxNow ?? o.now };
    this.entries.set(k, entry);
    this.unreachableSince.delete(o.instanceId);
    this.noteDiverged(k, u.progress);
    // A listener's failure is its own (Emitter): the read stands.
    this.updates.fire(entry);
    this.changes.fire(o.instanceId);
    return entry;
  }

  /** Sets the user's progress pattern (null: none); a change reads every run's log afresh with it at the next update. */
  setPattern(re: RegExp | null): void {
    if ((re?.source ?? null) === (this.pattern?.source ?? null) && (re?.flags ?? null) === (this.pattern?.flags ?? null)) return;
    this.pattern = re;
    this.tails.clear();
  }

  private noteDiverged(k: string, p: Progress): void {
    const d = p.diverged;
    if (!d) return;
    let list = this.spans.get(k);
    if (!list) this.spans.set(k, (list = []));
    const last = list[list.length - 1];
    if (last && last.since === d.since && last.from === d.step) {
      last.to = p.step;
      last.readings = d.readings;
      last.value = d.value;
      return;
    }
    list.push({ value: d.value, from: d.step, to: p.step, readings: d.readings, since: d.since });
    if (list.length > MAX_DIVERGED_SPANS) list.splice(0, list.length - MAX_DIVERGED_SPANS);
  }

  /** The run's divergences seen so far, oldest first (the current one last while it lasts). */
  divergedSpans(instanceId: string, jobId: string): readonly DivergedSpan[] {
    return this.spans.get(key(instanceId, jobId)) ?? [];
  }

  get(instanceId: string, jobId: string): RunEntry | undefined {
    return this.entries.get(key(instanceId, jobId));
  }

  /** The box did not answer a poll: its runs stop counting down until it answers again (update). */
  unreachable(instanceId: string, now: number): void {
    if (this.unreachableSince.has(instanceId)) return;
    this.unreachableSince.set(instanceId, now);
    this.changes.fire(instanceId);
  }

  /** Seconds since the run was last read while its box does not answer; null while it answers. */
  lastSeen(e: RunEntry, now: number): number | null {
    return this.unreachableSince.has(e.instanceId) ? Math.max(0, now - e.readAt) : null;
  }

  /** The finish as of `now` (the caller's clock); frozen at the last read while the box does not answer. */
  finish(e: RunEntry, now: number): Finish {
    const stale = this.unreachableSince.has(e.instanceId);
    const elapsed = stale ? 0 : Math.max(0, now - e.readAt);
    return estimateFinish(e.progress, e.price, { boxNow: e.boxAt + elapsed, localNow: stale ? e.readAt : now, alive: e.alive });
  }

  /** Every entry of running jobs (for the status bar). */
  running(): RunEntry[] {
    return [...this.entries.values()].filter((e) => e.alive);
  }

  /** The whole log text is not kept; the tail's bytes read so far (tests, bench). */
  bytesRead(instanceId: string, jobId: string): number {
    return this.tails.get(key(instanceId, jobId))?.bytesRead ?? 0;
  }

  forget(instanceId: string, jobId?: string): void {
    let changed = false;
    for (const k of [...this.entries.keys()]) {
      const [i, j] = k.split('\u0000');
      if (i === instanceId && jobId === undefined) this.unreachableSince.delete(instanceId);
      if (i === instanceId && (jobId === undefined || j === jobId)) {
        this.entries.delete(k);
        this.tails.delete(k);
        this.spans.delete(k);
        changed = true;
      }
    }
    if (changed) this.changes.fire(instanceId);
  }

  dispose(): void {
    this.updates.dispose();
    this.changes.dispose();
  }
}

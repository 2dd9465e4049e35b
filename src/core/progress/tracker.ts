// A training log's progress, built up from text as it arrives. Fed chunk by chunk (the tail of
// the log, from a byte offset), it splits at \n and \r (tqdm redraws its bar with \r), keeps an
// unfinished last line for the next chunk, and folds each line's reading into one state: step,
// total, rate, loss and other scalars, and when progress last moved. Pure: time comes in.
import { isLossKey, MAX_LINE, readLineParts, type LineReading, type ProgressSource } from './lines';
import { readByPattern } from './patternRead';
import { tableRow } from './general';

export interface LossPoint {
  step: number;
  loss: number;
}

/** The training loss came out NaN or ±Inf: the run has diverged and every hour from here is paid for nothing. */
export interface Diverged {
  value: 'nan' | 'inf' | '-inf';
  /** Loss readings in a row that were not finite. */
  readings: number;
  /** Epoch seconds of the first of them. */
  since: number;
  /** The step it was first seen at, where the log said. */
  step: number | null;
  /** The last finite loss before it, if any. */
  lastFiniteLoss: number | null;
}

export interface Progress {
  step: number | null;
  total: number | null;
  /** Steps per second (the library's own figure, else measured from the log's steps over time). */
  rate: number | null;
  epoch: number | null;
  epochTotal: number | null;
  loss: number | null;
  /** The latest value of every scalar the log printed (loss, learning_rate, grad_norm, acc, …). */
  scalars: Record<string, number>;
  /** 'epoch' when only the current epoch's steps are known (Lightning without max epochs). */
  scope: 'run' | 'epoch';
  source: ProgressSource | null;
  /** Epoch seconds when a line that carries progress last arrived. */
  lastUpdateAt: number | null;
  /** Epoch seconds when any output last arrived. */
  lastOutputAt: number | null;
  /** Loss by step, oldest first, at most MAX_LOSS_POINTS (thinned evenly when full). */
  lossCurve: LossPoint[];
  /** Set while the latest training loss is NaN or ±Inf; back to null at the next finite loss. */
  diverged: Diverged | null;
  /**
   * Epochs per second, measured from the epochs a log prints when it prints no step (`Training Epoch:[653/1500] loss=…`):
   * progress and ETA in epochs. Null while unknown or when the log counts steps.
   */
  epochRate?: number | null;
  /**
   * The log printed lines but none was read as progress (a format the reader does not know): how many and the
   * last one, for the tree, `jobs` and `launch --status` to say so, and the user to teach it a pattern (`progress:`).
   * Null once any line is read, or while nothing was printed.
   */
  unread?: { lines: number; lastLine: string } | null;
}

export const MAX_LOSS_POINTS = 2000;
/** The unread state's last line is cut to this many characters. */
export const MAX_UNREAD_LINE = 200;
/** An unfinished line longer than this is cut (a log without newlines cannot grow memory). */
const MAX_PENDING = 64 * 1024;
const RATE_WINDOW_SECONDS = 600;
const EVAL_BANNER = /^\s{0,8}\*{3,8}([^*]{1,60})\*{3,8}\s{0,8}$/;
const VAL_BANNER = /\b(?:eval|evaluation|valid|validation|test|dev)\b/i;
const LOSS_KEYS = ['loss', 'train_loss', 'train_loss_step', 'loss_step', 'lm_loss', 'lm loss', 'total_loss'];

export function emptyProgress(): Progress {
  return { step: null, total: null, rate: null, epoch: null, epochTotal: null, loss: null, scalars: {}, scope: 'run', source: null, lastUpdateAt: null, lastOutputAt: null, lossCurve: [], diverged: null, epochRate: null, unread: null };
}

function pickLoss(scalars: Record<string, number>): number | undefined {
  for (const k of LOSS_KEYS) if (k in scalars) return scalars[k];
  for (const [k, v] of Object.entries(scalars)) if (isLossKey(k)) return v;
  return undefined;
}

const nonFiniteName = (v: number): Diverged['value'] => (Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf');

export class ProgressTracker {
  private pending = '';
  private p: Progress = emptyProgress();
  private headerTotal: number | null = null;
  private headerEpochs: number | null = null;
  /** Largest tqdm total seen without a header: smaller bars (evaluation) are not the run. */
  private barTotal: number | null = null;
  private perEpochTotal: number | null = null;
  private explicitRateAt: number | null = null;
  private samples: { t: number; step: number }[] = [];
  /** When each epoch was first seen, for a log that prints no step. */
  private epochSamples: { t: number; epoch: number }[] = [];
  private sawEpochZero = false;
  /** A YOLO table header's loss column names, for the rows under it. */
  private yoloColumns: string[] | null = null;
  /** A `|` table's header (`| Iteration | Loss | … |`), for the rows under it. */
  private tableColumns: string[] | null = null;
  /** The unfinished last line as it was last read: the same line read again (grown, or finished) is the same reading, not a new one. */
  private lastPending = '';
  /** The user's pattern (task file `progress:`, checked by checkProgressPattern), read before the built-in formats. */
  private readonly pattern: RegExp | null;
  /** Lines with text, and lines any reading came from: a log that prints but is never read says so (Progress.unread). */
  private linesSeen = 0;
  private linesRead = 0;
  /** Under an evaluation banner (BERT's `***** Eval results *****`, the Trainer's `***** eval metrics *****`): its indented `loss = …` lines are not the training loss. */
  private evalBlock = false;

  constructor(opts: { pattern?: RegExp | null } = {}) {
    this.pattern = opts.pattern ?? null;
  }
  /** The rank of the loss last kept (lines.ts' lossRank) and the step it was read at: a component does not replace a total read at the same step. */
  private lossRank: 0 | 1 | null = null;
  private lossRankStep: number | null = null;

  get progress(): Progress {
    return this.p;
  }

  /** Feeds new log text; returns whether the progress changed. */
  feed(text: string, now: number): boolean {
    if (text.length === 0) return false;
    const before = this.p.lastUpdateAt;
    const beforeStep = this.p.step;
    this.p.lastOutputAt = now;
    const all = this.pending + text;
    let start = 0;
    let changed = false;
    // The pending part has no line end (it was scanned before): look only at the new text.
    for (let i = this.pending.length; i < all.length; i++) {
      const c = all.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      if (i > start && this.apply(all.slice(start, i), now, false)) changed = true;
      start = i + 1;
    }
    this.pending = all.slice(start);
    if (this.pending.length > MAX_PENDING) this.pending = this.pending.slice(-MAX_PENDING);
    // tqdm's current bar has no line end yet: read it now, and again when it is finished.
    if (this.pending.length > 0 && this.apply(this.pending, now, true)) changed = true;
    return changed || before !== this.p.lastUpdateAt || beforeStep !== this.p.step;
  }

  private apply(line: string, now: number, unfinished: boolean): boolean {
    // The unfinished line read last time, grown or finished now: its readings were already counted.
    const again = this.lastPending !== '' && line.startsWith(this.lastPending);
    this.lastPending = unfinished ? line : '';
    let changed = false;
    const own = this.pattern && !unfinished ? readByPattern(this.pattern, line.length > MAX_LINE ? line.slice(0, MAX_LINE) : line) : null;
    const readings = own ? [own] : readLineParts(line, !unfinished);
    if (!unfinished) {
      const banner = EVAL_BANNER.exec(line);
      if (banner) this.evalBlock = VAL_BANNER.test(banner[1]!);
      else if (!/^\s/.test(line)) this.evalBlock = false;
      else if (this.evalBlock) for (const r of readings) if (r.scalars) for (const k of Object.keys(r.scalars)) if (isLossKey(k)) delete r.scalars[k];
    }
    for (const r of readings) if (this.fold(r, now, again)) changed = true;
    if (!unfinished && line.trim() !== '') {
      this.linesSeen++;
      if (readings.length) this.linesRead++;
      this.noteUnread(line);
    }
    return changed;
  }

  private fold(r: LineReading, now: number, again: boolean): boolean {
    const p = this.p;
    if (r.tableColumns) {
      this.tableColumns = r.tableColumns;
      return false;
    }
    if (r.cells) {
      const row = this.tableColumns ? tableRow(this.tableColumns, r.cells) : null;
      if (!row) return false;
      // A table lists what was logged, behind a bar that counts on (a notebook's `Step | Training Loss` under `[ 3/600 …]`): a row never moves the step back.
      if (row.step !== undefined && p.step !== null && row.step < p.step) delete row.step;
      r = row;
    }
    if (r.columns) {
      this.yoloColumns = r.columns;
      return false;
    }
    if (r.headerTotal !== undefined && r.headerTotal > 0) {
      this.headerTotal = r.headerTotal;
      p.total = r.headerTotal;
      p.scope = 'run';
      return true;
    }
    if (r.headerEpochs !== undefined && r.headerEpochs > 0) {
      this.headerEpochs = r.headerEpochs;
      if (p.epochTotal === null) p.epochTotal = r.headerEpochs;
      return true;
    }
    let step = r.step;
    let total = r.total;
    if (r.source === 'tqdm' || r.source === 'lightning') {
      if (total === undefined) return false;
      if (r.source === 'tqdm') {
        if (this.headerTotal !== null && total !== this.headerTotal) return false;
        if (this.headerTotal === null) {
          if (this.barTotal !== null && total < this.barTotal) return false;
          this.barTotal = total;
        }
      }
    }
    if (r.epoch !== undefined) {
      if (r.epoch === 0) this.sawEpochZero = true;
      p.epoch = r.epoch;
    }
    if (r.epochTotal !== undefined) p.epochTotal = r.epochTotal;
    if (r.epoch !== undefined && step === undefined && p.step === null) this.addEpoch(now, r.epoch);
    // Per-epoch counts (Lightning's bar, YOLO's epoch rows, `Epoch [3/10] Step [45/100]`): the run is
    // epochs × steps, and a finished epoch is not a finished run.
    const perEpoch = r.perEpoch || (r.source === 'generic' && step !== undefined && total !== undefined && r.epochTotal !== undefined);
    // A per-epoch count printed on a line of its own (Keras' `50000/50000 [====]` under `Epoch 10/200`): the epoch read last.
    const epochNow = r.epoch ?? (perEpoch && r.source === 'generic' ? (p.epoch ?? undefined) : undefined);
    if (perEpoch && step !== undefined && total !== undefined && epochNow !== undefined) {
      this.perEpochTotal = total;
      const zeroBased = r.epochBase !== undefined ? r.epochBase === 0 : r.source === 'lightning' || this.sawEpochZero;
      const epochIndex = zeroBased ? epochNow : Math.max(0, epochNow - 1);
      const epochs = p.epochTotal ?? this.headerEpochs;
      if (epochs) {
        step = epochIndex * total + step;
        total = epochs * total;
        p.scope = 'run';
      } else p.scope = 'epoch';
    }
    // Trainer dicts without a bar carry only the epoch: the step follows from the header.
    if (step === undefined && r.source === 'hf' && r.epoch !== undefined && this.headerTotal && this.headerEpochs && p.source !== 'tqdm') {
      step = Math.round((r.epoch / this.headerEpochs) * this.headerTotal);
    }
    let moved = false;
    if (step !== undefined && Number.isFinite(step) && step >= 0) {
      if (step !== p.step) moved = true;
      p.step = step;
      if (total !== undefined && total > 0) p.total = total;
      else if (this.headerTotal !== null) p.total = this.headerTotal;
      if (p.total !== null && p.step > p.total && r.source !== 'tqdm') p.total = null;
      if (r.source !== 'hf' || p.source === null) p.source = r.source;
      this.addSample(now, step);
    }
    if (r.rate !== undefined && r.rate > 0) {
      p.rate = r.rate;
      this.explicitRateAt = now;
    } else if (moved && (this.explicitRateAt === null || now - this.explicitRateAt > RATE_WINDOW_SECONDS)) {
      const measured = this.measuredRate();
      if (measured !== null) p.rate = measured;
    }
    let scalars = r.scalars;
    let loss = scalars ? pickLoss(scalars) : undefined;
    if (r.losses) {
      // A YOLO row names its losses only in the header above it; the first column is the run's loss.
      const names = this.yoloColumns;
      scalars = { ...scalars };
      r.losses.forEach((v, i) => (scalars![names?.[i] ?? `loss${i + 1}`] = v));
      // YOLOv5's older tables print a `total` column: that is the run's loss.
      const totalAt = names ? names.findIndex((n) => n.toLowerCase() === 'total') : -1;
      loss = totalAt >= 0 && totalAt < r.losses.length ? r.losses[totalAt] : r.losses[0];
    }
    if (loss !== undefined && r.lossRank !== undefined) {
      // A component (Caffe's `Train net output #0: loss_x16 = …` after `Iteration 370, loss = …`) keeps the total read at this step.
      if (r.lossRank === 1 && this.lossRank === 0 && this.lossRankStep === p.step) loss = undefined;
      else {
        this.lossRank = r.lossRank;
        this.lossRankStep = p.step;
      }
    } else if (loss !== undefined) {
      this.lossRank = 0;
      this.lossRankStep = p.step;
    }
    if (scalars) for (const [k, v] of Object.entries(scalars)) if (Number.isFinite(v)) p.scalars[k] = v;
    if (loss !== undefined && Number.isFinite(loss)) {
      p.loss = loss;
      p.diverged = null;
      this.addLoss(p.step ?? p.lossCurve.length, loss);
    } else if (loss !== undefined) {
      const d = p.diverged;
      if (d) {
        if (!again) d.readings++;
        d.value = nonFiniteName(loss);
      } else p.diverged = { value: nonFiniteName(loss), readings: 1, since: now, step: p.step, lastFiniteLoss: p.loss };
    }
    if (moved || scalars || r.rate !== undefined) p.lastUpdateAt = now;
    if (p.source === null) p.source = r.source;
    return true;
  }

  private addSample(t: number, step: number): void {
    const s = this.samples;
    if (s.length && s[s.length - 1]!.t === t) s[s.length - 1] = { t, step };
    else s.push({ t, step });
    while (s.length > 2 && s[0]!.t < t - RATE_WINDOW_SECONDS) s.shift();
    if (s.length > 256) s.splice(0, s.length - 256);
  }

  /** While no line was ever read: how many were printed and the last of them (ANSI and a tqdm redraw's \r removed, capped). */
  private noteUnread(line: string): void {
    if (this.linesRead > 0) {
      this.p.unread = null;
      return;
    }
    const clean = line.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').trim();
    this.p.unread = { lines: this.linesSeen, lastLine: clean.length > MAX_UNREAD_LINE ? clean.slice(0, MAX_UNREAD_LINE) + '…' : clean };
  }

  /** An epoch-only log: epochs over time, from the first epoch seen to the latest. */
  private addEpoch(t: number, epoch: number): void {
    const s = this.epochSamples;
    const last = s[s.length - 1];
    if (last && epoch <= last.epoch) return;
    s.push({ t, epoch });
    if (s.length > 64) s.splice(1, s.length - 64);
    const a = s[0]!;
    const dt = t - a.t;
    const de = epoch - a.epoch;
    this.p.epochRate = dt > 0 && de > 0 ? de / dt : (this.p.epochRate ?? null);
    this.p.lastUpdateAt = t;
  }

  private measuredRate(): number | null {
    const s = this.samples;
    if (s.length < 2) return null;
    const a = s[0]!;
    const b = s[s.length - 1]!;
    const dt = b.t - a.t;
    const ds = b.step - a.step;
    return dt > 0 && ds > 0 ? ds / dt : null;
  }

  private addLoss(step: number, loss: number): void {
    const c = this.p.lossCurve;
    const last = c[c.length - 1];
    if (last && last.step === step) {
      last.loss = loss;
      return;
    }
    if (last && step < last.step) return;
    c.push({ step, loss });
    if (c.length > MAX_LOSS_POINTS) this.p.lossCurve = c.filter((_, i) => i % 2 === 0 || i === c.length - 1);
  }
}

/** Reads a whole text at once (fixtures, a short log). */
export function progressOf(text: string, now: number, opts: { pattern?: RegExp | null } = {}): Progress {
  const t = new ProgressTracker(opts);
  t.feed(text, now);
  return t.progress;
}

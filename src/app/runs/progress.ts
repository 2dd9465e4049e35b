// A job's progress as both front ends show it: read the log's tail, estimate the finish at the
// instance's price, and put it into the shape `gpu-rent jobs --json` prints.
import { estimateFinish, type Finish, type Progress, type RunPrice } from '../../core/progress';
import type { Instance } from '../../core/instances';
import { currentInterval } from '../../core/spend';
import { fenToYuan } from '../../core/money';
import type { RemoteConnection } from '../../remote/connection';
import type { JobInfo } from '../../remote/jobs';
import { LogTail } from './logTail';
import { ENGLISH as ENGLISH_WORDS, type L10n } from '../../core/l10n';

/** The price to finish at: the instance's current compute and storage rates (spot: with the rework model). */
export function runPriceOf(inst: Pick<Instance, 'intervals'>, syncIntervalSeconds: number): RunPrice | null {
  const cur = currentInterval(inst.intervals);
  if (!cur || cur.state === 'released') return null;
  return { computeFenPerHour: cur.computeRate, storageFenPerDay: cur.storageRate, ...(cur.state === 'spot' ? { spot: { syncIntervalSeconds } } : {}) };
}

/** What `jobs --json` prints per job: null where unknown. costToFinish in yuan (as quote --json). */
export interface ProgressJson {
  step: number | null;
  total: number | null;
  /** Steps per second. */
  rate: number | null;
  etaSeconds: number | null;
  costToFinish: number | null;
  loss?: number;
  stalled: boolean;
}

export function progressJson(p: Progress, f: Finish): ProgressJson {
  return {
    step: p.step,
    total: p.total,
    rate: p.rate === null ? null : Number(p.rate.toPrecision(6)),
    etaSeconds: f.etaSeconds,
    costToFinish: f.costToFinishFen === null ? null : fenToYuan(f.costToFinishFen),
    ...(p.loss !== null ? { loss: p.loss } : {}),
    stalled: f.stalled,
  };
}

/** One look at a job's log (its last `firstReadBytes`), for a one-shot command. */
export async function jobProgress(conn: RemoteConnection, job: Pick<JobInfo, 'logPath' | 'state'>, price: RunPrice | null, opts: { localNow: number; firstReadBytes?: number }): Promise<{ progress: Progress; finish: Finish } | null> {
  if (!job.logPath) return null;
  const tail = new LogTail(job.logPath, { firstReadBytes: opts.firstReadBytes ?? 512 * 1024 });
  const u = await tail.update(conn, { maxReads: 1 });
  if (u.chunk.size < 0) return null;
  const finish = estimateFinish(u.progress, job.state === 'running' ? price : null, { boxNow: u.chunk.boxNow ?? opts.localNow, localNow: opts.localNow, alive: job.state === 'running' });
  return { progress: u.progress, finish };
}

/** "2 h 10 min", "45 min", "30 s". */
export function durationWords(seconds: number, l10n: L10n = ENGLISH_WORDS): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return l10n.t('{0} s', s);
  const m = Math.round(s / 60);
  if (m < 60) return l10n.t('{0} min', m);
  const h = Math.floor(m / 60);
  const rest = m % 60;
  if (h < 48) return rest ? l10n.t('{0} h {1} min', h, rest) : l10n.t('{0} h', h);
  return l10n.t('{0} d {1} h', Math.floor(h / 24), h % 24);
}

/** "21:40" in the given UTC offset (minutes), default the machine's zone. */
export function clockText(t: number, offsetMinutes = -new Date(t * 1000).getTimezoneOffset()): string {
  const d = new Date((t + offsetMinutes * 60) * 1000);
  return `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
}

/** `step 450/1500`, or `step 450` without a total. */
export function stepText(step: number, total: number | null, l10n: L10n): string {
  return total !== null ? l10n.t('step {0}/{1}', step, total) : l10n.t('step {0}', step);
}

/** `box not answering · last seen 10 min ago`: the figures' age where the box does not answer. */
export function lastSeenText(seconds: number, l10n: L10n): string {
  return l10n.t('box not answering · last seen {0} ago', durationWords(seconds, l10n));
}

/** What a progress line shows beyond the figures, per front end. */
export interface ProgressWordsOptions {
  /** Money's words (the cost to finish). */
  formatFen: (fen: number) => string;
  /** A finish time's clock words. */
  clockOf: (t: number) => string;
  /** The box does not answer and the figures are this old: no countdown, no cost, the age instead. */
  lastSeenSeconds?: number | null;
  /** The last loss at the end (the CLI's line; the tree shows it elsewhere). */
  loss?: boolean;
}

/**
 * `step 450/1500 · 2 h 10 min left (21:40) · ¥7.80 to finish`, the same sentences for the CLI's
 * line and the extension's tree: stalled says for how long (no countdown, no cost); an
 * epoch-scoped count (a log that counts steps per epoch) says what is left of this epoch, with
 * no finish time or cost for the whole run; '' when the log shows no progress.
 */
export function progressWords(p: Progress, f: Finish, l10n: L10n, o: ProgressWordsOptions): string {
  const parts: string[] = [];
  if (p.step !== null) parts.push(stepText(p.step, p.total, l10n));
  else if (p.epoch !== null) parts.push(l10n.t('epoch {0}', p.epochTotal ? `${p.epoch}/${p.epochTotal}` : String(p.epoch)));
  const seen = o.lastSeenSeconds ?? null;
  const loss = () => (o.loss && p.loss !== null ? [l10n.t('loss {0}', Number(p.loss.toPrecision(4)))] : []);
  if (parts.length === 0) {
    if (seen !== null) return lastSeenText(seen, l10n);
    // The log prints but no line is progress the reader knows (issue 40): say so, with its last line.
    if (p.unread) return l10n.t('progress not read from {0} log lines (teach it with progress: in the task file); last: {1}', p.unread.lines, p.unread.lastLine);
    return loss().join(' · ');
  }
  if (p.scope === 'epoch' && p.epoch !== null) parts[0] += ' ' + l10n.t('(epoch {0})', p.epoch);
  if (seen !== null) parts.push(lastSeenText(seen, l10n));
  else if (f.stalled) parts.push(l10n.t('stalled: no progress for {0}', durationWords(f.quietSeconds ?? 0, l10n)));
  else {
    if (f.etaSeconds !== null && f.finishAt !== null) parts.push(p.scope === 'epoch' ? l10n.t('{0} left in this epoch', durationWords(f.etaSeconds, l10n)) : l10n.t('{0} left ({1})', durationWords(f.etaSeconds, l10n), o.clockOf(f.finishAt)));
    if (f.costToFinishFen !== null && p.scope !== 'epoch') parts.push(l10n.t('{0} to finish', o.formatFen(f.costToFinishFen)));
  }
  return [...parts, ...loss()].join(' · ');
}

/**
 * The CLI's line: `step 450/1500 · 2 h 10 min left (21:40) · ¥7.80 to finish · loss 0.4123`, English
 * or through `l10n` (the CLI's l10nIn(lang): the bundle's zh), the clock in the given UTC offset.
 */
export function progressLine(p: Progress, f: Finish, formatFen: (fen: number) => string, offsetMinutes?: number, l10n: L10n = ENGLISH_WORDS): string {
  return progressWords(p, f, l10n, { formatFen, clockOf: (t) => clockText(t, offsetMinutes), loss: true });
}

// Words for training runs: the progress line in the tree and the status bar tooltip, the cause
// of a run's end with what helps, and the end action's result. Pure: l10n is passed in.
import { formatCny } from '../../core/money';
import type { Diverged, EndCause, Finish, Progress } from '../../core/progress';
import { causeRemedies, causeSummary, type CauseLang, type RemedyFacts } from '../../core/progress/causeText';
import { formatRate, type L10n } from './present';
import type { RunWatch } from '../../app/runs/watch';
import { burningFenPerHour } from '../../app/runs/diverged';
import { lastSeenText, progressWords, stepText } from '../../app/runs/progress';

/** "21:40" on the machine's clock. */
export function clock(t: number): string {
  const d = new Date(t * 1000);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** `step 450/1500 · 2 h 10 min left (21:40) · ¥7.80 to finish` (app/runs/progress.ts progressWords); '' when the log shows no progress. */
/** `lastSeenSeconds`: the box does not answer and the figures are this old: no countdown, no cost, the age instead. */
/** A diverged run leads with it (`loss NaN since step 1200 · ¥3.60/h burning · step 1250/5000`): no countdown, no cost to finish. */
export function progressText(p: Progress, f: Finish, l10n: L10n, clockOf: (t: number) => string = clock, lastSeenSeconds: number | null = null, burningFenPerHour: number | null = null): string {
  if (p.diverged) return divergedProgressText(p, p.diverged, l10n, lastSeenSeconds, burningFenPerHour);
  return progressWords(p, f, l10n, { formatFen: formatCny, clockOf, lastSeenSeconds });
}

/** NaN, Inf, -Inf: as Python prints them, the same in every language. */
export function nonFiniteLabel(v: Diverged['value']): string {
  return v === 'nan' ? 'NaN' : v === 'inf' ? 'Inf' : '-Inf';
}

/** `loss NaN since step 1200`, or without a step `loss NaN for 20 log lines`. */
export function divergedText(d: Diverged, l10n: L10n): string {
  return d.step !== null ? l10n.t('loss {0} since step {1}', nonFiniteLabel(d.value), d.step) : l10n.t('loss {0} for {1} log lines', nonFiniteLabel(d.value), d.readings);
}

function divergedProgressText(p: Progress, d: Diverged, l10n: L10n, lastSeenSeconds: number | null, burning: number | null): string {
  const parts = [divergedText(d, l10n)];
  if (burning !== null && burning > 0) parts.push(l10n.t('{0} burning', formatRate(burning, l10n)));
  if (p.step !== null) parts.push(stepText(p.step, p.total, l10n));
  if (lastSeenSeconds !== null) parts.push(lastSeenText(lastSeenSeconds, l10n));
  return parts.join(' · ');
}

/** What the cause is and what helps: the CLI's words (core/progress/causeText.ts), in the UI's language (`causeLang(vscode.env.language)`). */
export function causeText(c: EndCause, _l10n: L10n, lang: CauseLang = 'en', facts: RemedyFacts = {}): string {
  return [causeSummary(c, lang), ...causeRemedies(c, lang, facts).map((r) => r.text)].join(' ');
}

/** One line per running job for the status bar tooltip: `job: step 450/1500 · …`. */
export function runLines(runs: RunWatch, now: number, l10n: L10n): string[] {
  return runs
    .running()
    .map((e) => {
      const t = progressText(e.progress, runs.finish(e, now), l10n, undefined, runs.lastSeen(e, now), burningFenPerHour(e.price));
      return t ? `${e.jobId}: ${t}` : '';
    })
    .filter(Boolean);
}

/** Running jobs whose loss is NaN/±Inf now (the status bar turns to a warning while any is). */
export function divergedCount(runs: RunWatch): number {
  return runs.running().filter((e) => e.progress.diverged !== null).length;
}

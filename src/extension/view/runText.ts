// Words for training runs: the progress line in the tree and the status bar tooltip, the cause
// of a run's end with what helps, and the end action's result. Pure: l10n is passed in.
import { formatCny } from '../../core/money';
import type { Diverged, EndCause, Finish, Progress } from '../../core/progress';
import { causeRemedies, causeSummary, type CauseLang, type RemedyFacts } from '../../core/progress/causeText';
import { formatRate, type L10n } from './present';
import type { RunWatch } from '../../app/runs/watch';
import { burningFenPerHour } from '../../app/runs/diverged';

export function etaDuration(seconds: number, l10n: L10n): string {
  const m = Math.round(Math.max(0, seconds) / 60);
  if (seconds < 60) return l10n.t('{0} s', Math.max(0, Math.round(seconds)));
  if (m < 60) return l10n.t('{0} min', m);
  const h = Math.floor(m / 60);
  if (h >= 48) return l10n.t('{0} d {1} h', Math.floor(h / 24), h % 24);
  return m % 60 ? l10n.t('{0} h {1} min', h, m % 60) : l10n.t('{0} h', h);
}

/** "21:40" on the machine's clock. */
export function clock(t: number): string {
  const d = new Date(t * 1000);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** `step 450/1500 · 2 h 10 min left (21:40) · ¥7.80 to finish`; '' when the log shows no progress. */
/** `lastSeenSeconds`: the box does not answer and the figures are this old: no countdown, no cost, the age instead. */
/** A diverged run leads with it (`loss NaN since step 1200 · ¥3.60/h burning · step 1250/5000`): no countdown, no cost to finish. */
export function progressText(p: Progress, f: Finish, l10n: L10n, clockOf: (t: number) => string = clock, lastSeenSeconds: number | null = null, burningFenPerHour: number | null = null): string {
  if (p.diverged) return divergedProgressText(p, p.diverged, l10n, lastSeenSeconds, burningFenPerHour);
  const parts: string[] = [];
  if (p.step !== null) parts.push(p.total !== null ? l10n.t('step {0}/{1}', p.step, p.total) : l10n.t('step {0}', p.step));
  else if (p.epoch !== null) parts.push(l10n.t('epoch {0}', p.epochTotal ? `${p.epoch}/${p.epochTotal}` : String(p.epoch)));
  if (parts.length === 0) return lastSeenSeconds !== null ? l10n.t('box not answering · last seen {0} ago', etaDuration(lastSeenSeconds, l10n)) : '';
  if (p.scope === 'epoch' && p.epoch !== null) parts[0] += ' ' + l10n.t('(epoch {0})', p.epoch);
  if (lastSeenSeconds !== null) {
    parts.push(l10n.t('box not answering · last seen {0} ago', etaDuration(lastSeenSeconds, l10n)));
    return parts.join(' · ');
  }
  if (f.stalled) {
    parts.push(l10n.t('stalled: no progress for {0}', etaDuration(f.quietSeconds ?? 0, l10n)));
    return parts.join(' · ');
  }
  if (f.etaSeconds !== null && f.finishAt !== null) parts.push(p.scope === 'epoch' ? l10n.t('{0} left in this epoch', etaDuration(f.etaSeconds, l10n)) : l10n.t('{0} left ({1})', etaDuration(f.etaSeconds, l10n), clockOf(f.finishAt)));
  if (f.costToFinishFen !== null && p.scope !== 'epoch') parts.push(l10n.t('{0} to finish', formatCny(f.costToFinishFen)));
  return parts.join(' · ');
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
  if (p.step !== null) parts.push(p.total !== null ? l10n.t('step {0}/{1}', p.step, p.total) : l10n.t('step {0}', p.step));
  if (lastSeenSeconds !== null) parts.push(l10n.t('box not answering · last seen {0} ago', etaDuration(lastSeenSeconds, l10n)));
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

// Words and Markdown of Launch Status, pure (l10n passed in): one section per task from its
// launch state. Box and platform text (labels, details, event lines) is data: escaped with
// forMarkdown in prose, inert (backticks replaced) inside the one fenced block.
import { formatCny } from '../../../core/money';
import { spentFen, type LaunchOutcome, type LaunchState } from '../../../core/task/launch';
import { forMarkdown, forMarkdownCode } from '../../../core/text';
import type { L10n } from '../../view/present';
import { launchRowText, outcomeLine } from '../../view/launchRows';
import { launchOutcomeWords, progressText } from '../../../app/launch/words';

const when = (s: number) => new Date(s * 1000).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
const clock = (s: number) => new Date(s * 1000).toISOString().slice(11, 19);

export function outcomeWords(k: LaunchOutcome, l10n: L10n): string {
  return launchOutcomeWords(k, l10n);
}

export function spentText(s: LaunchState, now: number, l10n: L10n): string {
  const spent = spentFen(s, now);
  return spent.unknown ? l10n.t('? (a box’s price is not known; {0} known)', formatCny(spent.fen)) : formatCny(spent.fen);
}

/** One task's section of the report. */
export function launchMarkdown(name: string, s: LaunchState | undefined, now: number, l10n: L10n): string {
  const md = forMarkdown;
  if (!s) return [`## ${md(name)}`, '', l10n.t('Not launched yet.'), ''].join('\n');
  const p = s.progress;
  const lines = [
    `## ${md(name)} — ${md(s.phase)}${s.smoke ? ` (${l10n.t('smoke test')})` : ''}`,
    '',
    ...(s.outcome ? [`- **${l10n.t('Outcome')}**: ${md(outcomeLine(outcomeWords(s.outcome.kind, l10n), s.outcome.detail))}`] : []),
    `- **${l10n.t('Started')}**: ${md(when(s.startedAt))}, ${l10n.t('updated')} ${md(clock(s.updatedAt))}`,
    `- **${l10n.t('Box')}**: ${s.box ? `${md(s.box.label)}, ${s.box.priceFenPerHour === null ? '? ¥/h' : md(`${formatCny(s.box.priceFenPerHour)}/h`)}${s.box.spot ? `, ${l10n.t('spot')}` : ''}` : l10n.t('none held')}`,
    `- **${l10n.t('Spent')}**: ${md(spentText(s, now, l10n))} · #recoveries ${s.recoveries}`,
    ...(p ? [`- **${l10n.t('Progress')}**: ${md(progressText(p, l10n) || '?')}`] : []),
    ...(s.lastSync ? [`- **${l10n.t('Last verified sync')}**: ${md(clock(s.lastSync.at))}, ${l10n.t('{0} file(s)', s.lastSync.files)}${s.lastSync.checkpoint ? `, ${l10n.t('newest {0}', md(s.lastSync.checkpoint))}` : ''}`] : []),
    ...(s.end ? [`- **${l10n.t('End')}** (${md(s.end.action)}): ${s.end.ok ? l10n.t('done') : `**${l10n.t('NOT done')}**`}${s.end.stillBilling ? ` — **${l10n.t('STILL BILLING')}**` : ''}: ${md(s.end.detail)}`] : []),
    ...s.boxes.map((b) => `- ${l10n.t('Earlier box')}: ${md(b.label)} (${md(b.leftBecause ?? 'left')})${b.leftAt === undefined ? ` — **${l10n.t('STILL BILLING')}**` : ''}`),
    '',
    `### ${l10n.t('Recent events')}`,
    '',
    '```text',
    ...s.events.slice(-20).map((e) => forMarkdownCode(`${clock(e.at)} ${e.text}`).replace(/\n/g, ' ')),
    '```',
    '',
  ];
  return lines.join('\n');
}

/**
 * The launch's progress notification: the row's words (phase, box, step, a divergence, spent),
 * then the latest event that is not a watch line (those are the row's figures again). Fed every
 * state read and every event; `next` gives the message only when it changed.
 */
export class LaunchToastText {
  private event = '';
  private said = '';
  private readonly watchPrefix: string;

  constructor(private readonly l10n: L10n) {
    this.watchPrefix = l10n.t('watch: {0} · {1}', '\u0000', '').split('\u0000')[0]!;
  }

  next(st: LaunchState, now: number, line?: string): string | undefined {
    if (line !== undefined && !line.startsWith(this.watchPrefix)) this.event = line;
    const message = [launchRowText(st, now, this.l10n).description, this.event].filter(Boolean).join(' — ').slice(0, 400);
    if (message === this.said) return undefined;
    return (this.said = message);
  }
}

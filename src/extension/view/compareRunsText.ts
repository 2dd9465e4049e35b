// Compare Runs' report as Markdown (no vscode: the words come in as l10n): the table of cost,
// speed, duration and final loss, the best of each, and each run's loss against step, hours and
// yuan (at most ~25 rows per run; the JSON of `gpu-rent runs compare` has every point).
import type { Comparison } from '../../core/ledger/compare';
import { formatCny } from '../../core/money';
import { lossChartSvg, svgImage } from '../../core/ledger/svg';
import { forMarkdown } from '../../core/text';

export const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 16).replace('T', ' ');
export const num = (v: number | null, d = 4) => (v === null ? '?' : String(Number(v.toPrecision(d))));

/** How a run ended, in the report's language. */
function endWords(end: string, l10n: { t(message: string, ...args: (string | number)[]): string }): string {
  switch (end) {
    case 'finished':
      return l10n.t('finished');
    case 'failed':
      return l10n.t('failed');
    case 'stopped':
      return l10n.t('stopped early');
    case 'lost':
      return l10n.t('lost');
    case 'reclaimed':
      return l10n.t('reclaimed');
    case 'budget':
      return l10n.t('budget stop');
    default:
      return '?';
  }
}

/** The report's Markdown; `folder` is where the ledger lies. */
export function comparisonMarkdown(c: Comparison, l10n: { t(message: string, ...args: (string | number)[]): string }, folder: string): string {
  // forMarkdown escapes | too: a name cannot break the table.
  const cell = (s: string) => forMarkdown(s);
  const lines = [`# ${l10n.t('Compare Runs')}`, '', `| ${[l10n.t('Run'), l10n.t('Card'), l10n.t('Started (UTC)'), l10n.t('Duration (h)'), l10n.t('Steps'), l10n.t('Steps/s'), l10n.t('Final loss'), l10n.t('Cost'), l10n.t('Ended')].join(' | ')} |`, `|${' --- |'.repeat(9)}`];
  for (const r of c.runs) lines.push(`| ${[cell(`${r.name} (${r.id})`), r.card ? cell(`${r.gpus ?? 1}× ${r.card}`) : '?', day(r.startedAt), (r.seconds / 3600).toFixed(2), r.steps === null ? '?' : String(r.steps), num(r.stepsPerSecond), num(r.finalLoss), r.costFen === null ? '?' : formatCny(r.costFen), endWords(r.end, l10n)].join(' | ')} |`);
  const name = (id: string | null) => (id === null ? '?' : cell(c.runs.find((r) => r.id === id)?.name ?? id));
  lines.push('', l10n.t('Cheapest: {0} · fastest: {1} · shortest: {2} · lowest final loss: {3}', name(c.best.cost), name(c.best.speed), name(c.best.duration), name(c.best.finalLoss)));
  for (const [axis, label] of [['step', l10n.t('Step')], ['hours', l10n.t('Hours')], ['yuan', l10n.t('Yuan')]] as const) {
    const svg = lossChartSvg(c, axis, label);
    if (svg) lines.push('', svgImage(svg, l10n.t('Loss against {0}', label)));
  }
  for (const r of c.runs) {
    lines.push('', `## ${cell(r.name)}: ${l10n.t('loss against step, hours and yuan')}`, '', `| ${[l10n.t('Step'), 'Loss', l10n.t('Hours'), l10n.t('Yuan')].join(' | ')} |`, '| ---: | ---: | ---: | ---: |');
    const step = Math.max(1, Math.ceil(r.curve.length / 25));
    r.curve.forEach((p, i) => {
      if (i % step === 0 || i === r.curve.length - 1) lines.push(`| ${p.step} | ${num(p.loss)} | ${p.hours === null ? '?' : p.hours.toFixed(3)} | ${p.yuan === null ? '?' : p.yuan.toFixed(2)} |`);
    });
  }
  lines.push('', l10n.t('All points: gpu-rent runs compare {0} --json (with GPU_RENT_HOME set to this folder: {1})', c.runs.map((r) => r.id).join(' '), forMarkdown(folder)));
  return lines.join('\n') + '\n';
}


// Words and figures for the tree, the status bar and its tooltip. Pure: `l10n` is passed in
// (vscode.l10n in the extension, a plain formatter in unit tests).
import { formatCny } from '../../core/money';
import { forMarkdown } from '../../core/text';
import { beijingDateTime, beijingMonthKey, currentState, storageUnknown, type BudgetLevel, type InstanceState, type SpendSummary } from '../../core/spend';
import type { Instance } from '../../core/instances';
import type { Catalog } from '../../core/catalog';
import type { Dating } from '../../core/format';
import { prefillPricing } from '../prefill';
import { catalogSourceText } from '../words/sourceWords';
import type { L10n } from '../../core/l10n';
import { Commands } from '../commandIds';

export type { L10n } from '../../core/l10n';

export function formatDuration(seconds: number, l10n: L10n): string {
  const s = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return l10n.t('{0}d {1}h', d, h);
  if (h > 0) return l10n.t('{0}h {1}m', h, String(m).padStart(2, '0'));
  if (m > 0) return l10n.t('{0}m', m);
  return l10n.t('{0}s', s % 60);
}

/** ¥/h with two decimals (rates are whole fen except storage spread over hours). */
export function formatRate(fenPerHour: number, l10n: L10n): string {
  return l10n.t('{0}/h', formatCny(Math.round(fenPerHour)));
}

/**
 * A rate of which the storage part is not known (a platform instance whose disk size was never
 * given): `?/h` where nothing else bills, else the known part `+ disk ?`; never ¥0.00 (issue 41 bug 5).
 */
export function formatRateOf(fenPerHour: number, storageUnknown: boolean, l10n: L10n): string {
  if (!storageUnknown) return formatRate(fenPerHour, l10n);
  return fenPerHour > 0 ? l10n.t('{0}/h + disk ?', formatCny(Math.round(fenPerHour))) : l10n.t('?/h (disk size not known)');
}

/** Whether any of these instances' storage cost is not known now. */
function anyStorageUnknown(instances: readonly Instance[]): boolean {
  return instances.some((i) => storageUnknown(i.pricing, currentState(i.intervals)));
}

export function stateLabel(state: InstanceState | undefined, l10n: L10n): string {
  switch (state) {
    case 'running':
      return l10n.t('Running');
    case 'noGpu':
      return l10n.t('No-GPU mode');
    case 'stopped':
      return l10n.t('Stopped (storage only)');
    case 'spot':
      return l10n.t('Running (spot)');
    case 'released':
    case undefined:
      return l10n.t('Released');
  }
}

/** Codicon ids for the tree. */
export const STATE_ICONS: Record<InstanceState, string> = {
  running: 'vm-running',
  spot: 'zap',
  noGpu: 'circle-slash',
  stopped: 'debug-pause',
  released: 'archive',
};

/** Theme color ids (the tree wraps them in ThemeColor). */
export const STATE_COLORS: Record<InstanceState, string> = {
  running: 'charts.green',
  spot: 'charts.yellow',
  noGpu: 'charts.blue',
  stopped: 'charts.orange',
  released: 'disabledForeground',
};

/** `stillBilling`: how many instances carry a still-billing mark (a power action that did not happen): the icon warns. */
export function statusBarText(s: SpendSummary, l10n: L10n, stillBilling = 0, instances: readonly Instance[] = []): string {
  const icon = s.budget.level === 'exceeded' ? '$(error)' : s.budget.level === 'warning' || stillBilling > 0 ? '$(warning)' : '$(credit-card)';
  return `${icon} ${l10n.t('Today {0} · Month {1} · {2}', formatCny(s.todayFen), formatCny(s.monthFen), formatRateOf(s.burnRate, anyStorageUnknown(instances), l10n))}`;
}

export function statusBarAccessibility(s: SpendSummary, l10n: L10n, instances: readonly Instance[] = []): string {
  return l10n.t('GPU spend: today {0}, this month {1}, now {2}', formatCny(s.todayFen), formatCny(s.monthFen), formatRateOf(s.burnRate, anyStorageUnknown(instances), l10n));
}

const md = forMarkdown;

/** The status bar tooltip: totals, budget with the projected month-end, and one row per instance. */
export function tooltipMarkdown(s: SpendSummary, instances: readonly Instance[], l10n: L10n, platformName: (id: string) => string = (id) => id): string {
  const lines: string[] = [];
  lines.push(`**${l10n.t('GPU spend')}** — ${l10n.t('Beijing time')}`, '');
  const unknown = anyStorageUnknown(instances);
  lines.push(`${l10n.t('Today')}: **${formatCny(s.todayFen)}** · ${l10n.t('This month')}: **${formatCny(s.monthFen)}** · ${l10n.t('Now')}: **${formatRateOf(s.burnRate, unknown, l10n)}**`, '');
  // A disk of unknown size bills on: the projection is a floor, said so.
  lines.push(`${l10n.t('Projected month-end')}: ${unknown ? l10n.t('{0} + disk ? (a disk size is not known)', formatCny(s.projectedMonthEndFen)) : formatCny(s.projectedMonthEndFen)}`);
  for (const inst of instances) {
    const m = stillBillingText(inst, s.now, l10n);
    if (m) lines.push('', `$(warning) **${md(inst.name)}**: ${md(m.description)} (${md(m.since)})`);
  }
  if (s.budget.level !== 'none') {
    const pct = Math.round(s.budget.ratio * 100);
    const line = l10n.t('Budget {0}: {1}% used', formatCny(s.budget.budgetFen), pct);
    const warn = s.budget.level === 'exceeded' ? ` — $(error) ${l10n.t('over budget')}` : s.budget.level === 'warning' ? ` — $(warning) ${l10n.t('over 80%')}` : '';
    lines.push('', line + warn + (s.budget.projectedOver ? ` · ${l10n.t('projected to exceed it')}` : ''));
  }
  const byId = new Map(instances.map((i) => [i.id, i]));
  if (s.perInstance.length > 0) {
    lines.push('', `| ${l10n.t('Instance')} | ${l10n.t('State')} | ${l10n.t('Rate')} | ${l10n.t('Today')} | ${l10n.t('This month')} |`, '|---|---|--:|--:|--:|');
    for (const p of s.perInstance) {
      const inst = byId.get(p.id);
      lines.push(`| ${md(inst?.name ?? p.id)} | ${stateLabel(p.state, l10n)} | ${formatRateOf(p.burnRate, !!inst && storageUnknown(inst.pricing, p.state), l10n)} | ${formatCny(p.todayFen)} | ${formatCny(p.monthFen)} |`);
    }
  }
  if (s.perPlatform.length > 1) {
    lines.push('', s.perPlatform.map((p) => `${md(platformName(p.platform))} ${formatCny(p.monthFen)}`).join(' · '));
  }
  lines.push('', `[${l10n.t('Open cost calculator')}](command:${Commands.openCalculator})`);
  return lines.join('\n');
}

/** The tree item's description: card × count · rate · accrued · time in state. */
export function instanceDescription(inst: Instance, spend: { totalFen: number; burnRate: number; secondsInState: number }, l10n: L10n): string {
  return [`${inst.card} ×${inst.gpuCount}`, formatRateOf(spend.burnRate, storageUnknown(inst.pricing, currentState(inst.intervals)), l10n), formatCny(spend.totalFen), formatDuration(spend.secondsInState, l10n)].join(' · ');
}

/**
 * A power action that did not happen, for the tree row, its tooltip and the status bar:
 * "still billing ¥2.10/h — did not power off". undefined when the instance carries no mark.
 */
export function stillBillingText(inst: Instance, now: number, l10n: L10n): { description: string; since: string; tooltip: string } | undefined {
  const m = inst.stillBilling;
  if (!m) return undefined;
  const rate = formatRate(m.fenPerHour, l10n);
  const description = m.action === 'noGpu' ? l10n.t('still billing {0} — did not switch to no-GPU mode', rate) : l10n.t('still billing {0} — did not power off', rate);
  const since = l10n.t('for {0}', formatDuration(now - m.since, l10n));
  const tooltip = [
    m.action === 'noGpu' ? l10n.t('Still billing {0}: the switch to no-GPU mode did not happen ({1}).', rate, m.why) : l10n.t('Still billing {0}: the power-off did not happen ({1}).', rate, m.why),
    l10n.t('Power it off through the account, release it (its checkpoints are checked first), or stop it in the platform’s console. This mark goes when the box is seen stopped or its state is changed.'),
  ].join(' ');
  return { description, since, tooltip };
}

/** A connection failure that means the box is down (refused, or no answer at all): a still-billing mark ends. */
export function endsStillBilling(code: string): boolean {
  return code === 'connect-refused' || code === 'timeout';
}

export interface BudgetMemo {
  month: string;
  level: BudgetLevel;
}

/** Which budget warning to show now, at most once per level per Beijing month. */
export function budgetNotice(memo: BudgetMemo | undefined, s: SpendSummary): { show: 'warning' | 'exceeded' | undefined; memo: BudgetMemo } {
  const month = beijingMonthKey(s.now);
  const prev = memo && memo.month === month ? memo.level : 'none';
  const rank = { none: 0, ok: 0, warning: 1, exceeded: 2 } as const;
  const level = s.budget.level;
  if (rank[level] > rank[prev]) return { show: level === 'exceeded' ? 'exceeded' : 'warning', memo: { month, level } };
  return { show: undefined, memo: { month, level: rank[level] >= rank[prev] ? level : prev } };
}

/**
 * Where an instance's GPU price comes from, for its tooltip: the catalog's figure with its
 * source and date when the instance uses it, otherwise the renter's own figure beside the
 * catalog's (so a stale or edited price is never shown without provenance).
 */
/** When a figure was true, as known, in the display language. Never a date nobody measured. */
export function datingText(d: Dating, l10n: L10n): string {
  switch (d.kind) {
    case 'readAt':
    {
      // One zone in a view (issue 41 friction): the platform's own clock, Beijing time, as the release day and the stop time beside it.
      const t = Date.parse(d.at);
      return Number.isFinite(t) ? l10n.t('read from the platform {0} (Beijing time)', beijingDateTime(Math.floor(t / 1000))) : l10n.t('read from the platform {0}', d.at.slice(0, 16).replace('T', ' '));
    }
    case 'asOf':
      return l10n.t('as of {0}', d.date);
    case 'reportTestWeek':
      return l10n.t('undated (field report test week)');
    case 'unknown':
      return l10n.t('date unknown');
  }
}

/**
 * The platform's state line for a tooltip: its raw word only where it says more than the label
 * ("running (running)" said nothing twice; "stopped (shutdown)" keeps the platform's word).
 */
export function platformStateLine(label: string, state: string, rawState: string, age: string, l10n: L10n): string {
  const raw = rawState.trim().toLowerCase();
  const same = raw === '' || raw === label.trim().toLowerCase() || raw === state.toLowerCase();
  return same ? l10n.t('Platform: {0}, read {1} ago', label, age) : l10n.t('Platform: {0} ({1}), read {2} ago', label, rawState, age);
}

/**
 * `platform`: the price the platform account reported for this instance and when (epoch s).
 * Where it is the price in force, the line says so with its time instead of "entered by you".
 */
export function priceProvenance(inst: Instance, catalog: Catalog, l10n: L10n, platform?: { fenPerHour: number; readAt: number }): string {
  if (platform && platform.fenPerHour === inst.pricing.hourlyRate) {
    return l10n.t('Price: {0}, {1}', formatRate(platform.fenPerHour, l10n), datingText({ kind: 'readAt', at: new Date(platform.readAt * 1000).toISOString() }, l10n));
  }
  const pre = prefillPricing(catalog, inst.platform, inst.card, inst.gpuCount, inst.pricing.billingMode, inst.pricing.dataDiskGb);
  const src = pre.priceSource;
  if (!src) return l10n.t('Price: entered by you (the catalog has no price for this card here)');
  // Undated figures (the field report's test week) say so instead of "as of".
  if (!src.asOf) {
    if (pre.pricing.hourlyRate === inst.pricing.hourlyRate) return l10n.t('Price: catalog, {0} (source: {1})', datingText(src.dating, l10n), catalogSourceText(src.source, l10n));
    return l10n.t('Price: entered by you; the catalog says {0}, {1} (source: {2})', formatRate(pre.pricing.hourlyRate, l10n), datingText(src.dating, l10n), catalogSourceText(src.source, l10n));
  }
  if (pre.pricing.hourlyRate === inst.pricing.hourlyRate) return l10n.t('Price: catalog, as of {0} (source: {1})', src.asOf, catalogSourceText(src.source, l10n));
  return l10n.t('Price: entered by you; the catalog says {0} as of {1} (source: {2})', formatRate(pre.pricing.hourlyRate, l10n), src.asOf, catalogSourceText(src.source, l10n));
}

// The calculator's results: the table of quotes (sortable, the cheapest marked, each price's
// date), the stacked cost bars, the break-even chart of one platform's billing modes, and the
// platforms' warnings and row notes.
import { dating, WARNING_TEXT, type WarningCode } from '../core/catalog';
import { breakEvenHours, midpoint, type QuoteRow } from '../core/cost';
import { formatCny } from '../core/money';
import { breakEvenChart, crossover, stackedBars, type Bar, type ModeLine } from './charts';
import { SORT_KEYS } from './protocol';
import { fill } from './strings';
import { h, modeName, page, platformName, schedule } from './calculator-page';
import { startNowNode } from './calculator-stock';

const other = (r: QuoteRow) => midpoint(r.breakdown.idle) + midpoint(r.breakdown.download) + midpoint(r.breakdown.spotRework);

function sortRows(rows: QuoteRow[]): QuoteRow[] {
  const key = page.inputs.sort.key;
  const val = (r: QuoteRow): number | string =>
    key === 'platform' ? platformName(r.platform, r) : key === 'total' ? midpoint(r.total) : key === 'gpu' ? midpoint(r.breakdown.gpu) : key === 'storage' ? midpoint(r.breakdown.storage) : key === 'other' ? other(r) : r.wallHours;
  const sorted = [...rows].sort((a, b) => {
    const x = val(a);
    const y = val(b);
    return typeof x === 'string' ? x.localeCompare(String(y)) : x - (y as number);
  });
  return page.inputs.sort.descending ? sorted.reverse() : sorted;
}

function money(r: { min: number; max: number }): string {
  return r.min === r.max ? formatCny(r.min) : `${formatCny(r.min)}–${formatCny(r.max).replace('¥', '')}`;
}

/** A money cell that may wrap after the range's dash (never inside a number), so the table fits a narrow panel. */
function moneyNodes(r: { min: number; max: number }, unknown = false): (Node | string)[] {
  const text = money(r);
  const dash = text.indexOf('–');
  const out: (Node | string)[] = dash === -1 ? [text] : [text.slice(0, dash + 1), document.createElement('wbr'), text.slice(dash + 1)];
  if (unknown) out.push(' ', h('span', { class: 'unknown' }, '+?'));
  return out;
}

function dateCell(r: QuoteRow): HTMLElement {
  const d = dating(r.price);
  if (d.kind === 'reportTestWeek') return h('td', { class: 'date', title: fill(page.S.undatedTitle, { 0: r.price.source }) }, page.S.undated);
  const text = d.kind === 'readAt' ? fill(page.S.readAt, { 0: d.at.slice(0, 16).replace('T', ' ') }) : d.kind === 'asOf' ? d.date : page.S.unknownDate;
  return h('td', { class: 'date', title: r.price.source }, text);
}

export function renderTable(rows: QuoteRow[], cheapest: QuoteRow | undefined): HTMLElement {
  const head = (key: (typeof SORT_KEYS)[number] | undefined, label: string) => {
    if (!key) return h('th', { scope: 'col' }, label);
    const active = page.inputs.sort.key === key;
    const btn = h('button', { type: 'button', class: 'sort', 'data-key': key }, label + (active ? (page.inputs.sort.descending ? ' ▼' : ' ▲') : ''));
    btn.addEventListener('click', () => {
      page.inputs = { ...page.inputs, sort: { key, descending: active ? !page.inputs.sort.descending : false } };
      schedule(0);
    });
    return h('th', { scope: 'col', 'aria-sort': active ? (page.inputs.sort.descending ? 'descending' : 'ascending') : undefined }, btn);
  };
  const body = sortRows(rows).map((r) =>
    h(
      'tr',
      { class: r === cheapest ? 'best' : undefined },
      h('td', {}, platformName(r.platform, r), r === cheapest ? h('span', { class: 'badge' }, page.S.cheapest) : undefined, startNowNode(r)),
      h('td', {}, modeName(r.mode) + (r.periods ? ` ×${r.periods}` : '')),
      h('td', { class: 'num', title: r.hoursEstimated ? page.S.estimated : undefined }, fill(page.S.hoursUnit, { 0: (Math.round(r.wallHours * 10) / 10).toString() }) + (r.hoursEstimated ? ' ≈' : '')),
      h('td', { class: 'num' }, ...moneyNodes(r.breakdown.gpu)),
      h('td', { class: 'num', title: r.unpriced.includes('storage') ? fill(page.S.unpriced, { 0: page.S.storage }) : undefined }, ...(r.unpriced.includes('storage') ? ['?'] : moneyNodes(r.breakdown.storage))),
      h('td', { class: 'num', title: r.unpriced.length ? fill(page.S.unpriced, { 0: r.unpriced.map((u) => page.S[u]).join(', ') }) : undefined }, formatCny(other(r)), ...(r.unpriced.some((u) => u !== 'storage') ? [' ', h('span', { class: 'unknown' }, '+?')] : [])),
      h('td', { class: 'num total', title: r.unpriced.length ? fill(page.S.unpriced, { 0: r.unpriced.map((u) => page.S[u]).join(', ') }) : undefined }, ...moneyNodes(r.total, r.unpriced.length > 0)),
      dateCell(r),
    ),
  );
  return h(
    'table',
    { id: 'quotes', class: 'quotes' },
    h('caption', {}, page.S.table),
    h('thead', {}, h('tr', {}, head('platform', page.S.platform), head(undefined, page.S.mode), head('hours', page.S.hours), head('gpu', page.S.gpu), head('storage', page.S.storage), head('other', page.S.other), head('total', page.S.total), head(undefined, page.S.priceAsOf))),
    h('tbody', {}, ...body),
    h('tfoot', {}, h('tr', {}, h('td', { colspan: '8', class: 'muted note' }, page.S.datedNote))),
  );
}

export function renderBars(rows: QuoteRow[], cheapest: QuoteRow | undefined, width: number): string {
  const bars: Bar[] = rows.slice(0, 15).map((r) => ({
    label: `${platformName(r.platform, r)} · ${modeName(r.mode)}`,
    parts: { gpu: midpoint(r.breakdown.gpu), storage: midpoint(r.breakdown.storage), idle: midpoint(r.breakdown.idle), download: midpoint(r.breakdown.download), spotRework: midpoint(r.breakdown.spotRework) },
    highlight: r === cheapest,
    ...(r.unpriced.length ? { unknown: fill(page.S.unpriced, { 0: r.unpriced.map((u) => page.S[u]).join(', ') }) } : {}),
  }));
  return stackedBars(bars, { width, title: page.S.chartTitle, legend: { gpu: page.S.gpu, storage: page.S.storage, idle: page.S.idle, download: page.S.download, spotRework: page.S.spotRework } });
}

export function renderBreakEven(width: number): HTMLElement {
  const card = page.inputs.card;
  const gpus = page.inputs.gpus;
  const candidates = page.catalog.platforms.filter((p) => (['hour', 'day', 'week', 'month'] as const).filter((m) => p.prices.some((q) => q.card === card && q.mode === m && q.price)).length >= 2);
  const wrap = h('div', { id: 'breakeven' });
  if (candidates.length === 0) {
    wrap.append(h('p', { class: 'muted' }, page.S.breakEvenNone));
    return wrap;
  }
  if (!page.breakEvenPlatform || !candidates.some((p) => p.id === page.breakEvenPlatform)) page.breakEvenPlatform = candidates[0]!.id;
  const select = h('select', { id: 'be-platform', 'aria-label': page.S.breakEvenPlatform }, ...candidates.map((p) => h('option', { value: p.id, selected: p.id === page.breakEvenPlatform }, platformName(p.id))));
  select.addEventListener('change', () => {
    page.breakEvenPlatform = select.value;
    schedule(0);
  });
  const platform = candidates.find((p) => p.id === page.breakEvenPlatform)!;
  const lines: ModeLine[] = (['hour', 'day', 'week', 'month'] as const).flatMap((mode) => {
    const pr = platform.prices.find((q) => q.card === card && q.mode === mode && q.price);
    return pr?.price ? [{ mode, label: modeName(mode), pricePerPeriod: midpoint(pr.price) * gpus }] : [];
  });
  const svg = h('div', { class: 'chart-box' });
  svg.innerHTML = breakEvenChart(lines, { width, title: page.S.breakEvenTitle, axis: page.S.breakEvenAxis });
  const notes = breakEvenHours(platform, card).map((b) => {
    const a = lines.find((l) => l.mode === b.shorter);
    const c = lines.find((l) => l.mode === b.longer);
    const at = a && c ? crossover(a, c) : null;
    return at === null ? undefined : h('li', {}, fill(page.S.breakEvenLine, { longer: modeName(b.longer), shorter: modeName(b.shorter), units: fill(page.S.hoursUnit, { 0: at }) }));
  });
  const dates = [...new Set(platform.prices.filter((q) => q.card === card).map((q) => {
    const d = dating(q);
    return d.kind === 'reportTestWeek' ? page.S.undated : d.kind === 'readAt' ? fill(page.S.readAt, { 0: d.at.slice(0, 16).replace('T', ' ') }) : d.kind === 'asOf' ? d.date : page.S.unknownDate;
  }))].join(', ');
  wrap.append(h('div', { class: 'row' }, h('label', { for: 'be-platform' }, page.S.breakEvenPlatform), select, h('span', { class: 'muted' }, `${page.S.priceAsOf}: ${dates}`)), svg, h('ul', { class: 'be-lines' }, ...notes));
  return wrap;
}

export function renderWarnings(rows: QuoteRow[]): HTMLElement {
  const codes = new Set<string>();
  for (const r of rows) {
    for (const w of page.catalog.platforms.find((p) => p.id === r.platform)?.warnings ?? []) codes.add(`${r.platform}:${w}`);
    for (const n of r.notes) if (!(n in WARNING_TEXT)) codes.add(`*:${n}`);
  }
  const items = [...codes].map((k) => {
    const [pid, code] = k.split(':') as [string, string];
    const w = WARNING_TEXT[code as WarningCode];
    const text = w ? (page.locale === 'zh-cn' ? w.zh : w.en) : page.S.notes[code] ?? code;
    return h('li', {}, pid === '*' ? '' : h('strong', {}, `${platformName(pid)}: `), text);
  });
  return h('ul', { id: 'warnings', class: 'warnings' }, ...items);
}

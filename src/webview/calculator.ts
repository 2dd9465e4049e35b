// The calculator page. Runs core's cost model in the browser: the host only sends the locale,
// the catalog override and the inputs. Every message in is validated (protocol.ts); state is
// kept with setState so a reload restores the form.
import '../../media/calculator.css';
import { builtinCatalog, dating, mergeCatalog, WARNING_TEXT, type Catalog, type WarningCode } from '../core/catalog';
import { findCard } from '../core/cards';
import { breakEvenHours, cheapestPricedRow, midpoint, quoteCatalog, type QuoteRow } from '../core/cost';
import { formatCny } from '../core/money';
import { DEFAULT_JOB } from '../core/job-defaults';
import { jobInputFor } from './job-input';
import { inputsForCard } from './rescale';
import { breakEvenChart, crossover, stackedBars, type Bar, type ModeLine } from './charts';
import { boundProblem } from '../core/bounds';
import { CalculatorInputsSchema, DEFAULT_INPUTS, FIELD_BOUNDS, parseHostMessage, restoreState, SORT_KEYS, type CalculatorInputs, type Locale, type NumField, type WebviewMessage } from './protocol';
import { startNowText } from '../core/quote-notes';
import { MAX_STOCK_KEYS, type StartNowMark, type StockKey } from './protocol';
import { fill, strings, type Strings } from './strings';

declare function acquireVsCodeApi(): { postMessage(msg: unknown): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();

type NumKey = NumField;
// Only the input's step is the form's own; its bounds are protocol.ts' FIELD_BOUNDS (core's BOUNDS).
const FIELDS: { key: NumKey; step: string }[] = [
  { key: 'gpuHours', step: '0.5' },
  { key: 'steps', step: '100' },
  { key: 'secondsPerStep', step: '0.1' },
  { key: 'gpus', step: '1' },
  { key: 'storageGb', step: '1' },
  { key: 'vramGb', step: '1' },
  { key: 'days', step: '1' },
  { key: 'idleHours', step: '1' },
  { key: 'downloadGb', step: '1' },
];

let locale: Locale = document.documentElement.lang.toLowerCase().startsWith('zh') ? 'zh-cn' : 'en';
let S: Strings = strings(locale);
let catalog: Catalog = builtinCatalog();
let overrideProblem: string | undefined;
let inputs: CalculatorInputs = restoreState(vscode.getState()).inputs;
const invalid = new Set<string>();
let breakEvenPlatform: string | undefined;

// Start now: asked only when the host has accounts, for the rows shown, again each minute while
// the page exists (it is dropped when the panel is hidden); the host answers through its cache.
const STOCK_EVERY_MS = 60_000;
let stockAvailable = false;
let marks = new Map<string, StartNowMark['mark']>();
let marksAt: number | undefined;
let stockAsked = { keys: '', at: 0, id: 100 };
let shownKeys: StockKey[] = [];
const stockKey = (k: { platform: string; card: string; gpus: number }) => `${k.platform}\u0000${k.card}\u0000${k.gpus}`;

function askStock(rows: readonly QuoteRow[]): void {
  const keys = [...new Map(rows.map((r) => [stockKey(r), { platform: r.platform, card: r.card, gpus: r.gpus }])).values()].slice(0, MAX_STOCK_KEYS);
  shownKeys = keys;
  if (!stockAvailable || !keys.length) return;
  const sig = keys.map(stockKey).join('\u0001');
  if (sig === stockAsked.keys && Date.now() - stockAsked.at < STOCK_EVERY_MS) return;
  stockAsked = { keys: sig, at: Date.now(), id: stockAsked.id + 1 };
  post({ type: 'stockWanted', requestId: stockAsked.id, rows: keys });
}

/** The row's mark under its platform: can start now (where) / none free now / not checked; nothing without an account. */
function startNowNode(r: QuoteRow): HTMLElement | undefined {
  const m = marks.get(stockKey(r));
  const text = m ? startNowText(m, locale, 1) : undefined;
  if (!m || !text) return undefined;
  return h('div', { class: `startnow startnow-${m.state}`, 'data-startnow': m.state === 'unknown' ? m.reason : m.state, title: marksAt ? fill(S.startNowTitle, { 0: new Date(marksAt).toLocaleTimeString() }) : undefined }, text);
}

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | undefined> = {}, ...children: (Node | string | undefined)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== undefined) el.append(c);
  return el;
}

function platformName(id: string, row?: QuoteRow): string {
  const p = row?.platformName ?? catalog.platforms.find((q) => q.id === id)?.name;
  return p ? (locale === 'zh-cn' ? p.zh : p.en) : id;
}

function modeName(m: string): string {
  return m === 'hour' ? S.hour : m === 'day' ? S.day : m === 'week' ? S.week : m === 'month' ? S.month : S.spotMode;
}

function validate(key: NumKey, text: string): string | undefined {
  const b = FIELD_BOUNDS[key];
  const t = text.trim();
  if (t === '') return S.errEmpty;
  const problem = boundProblem(Number(t), b);
  if (problem === 'notNumber') return S.errNumber;
  if (problem === 'notInteger') return S.errInteger;
  if (problem === 'belowMin') return fill(S.errMin, { 0: b.min });
  if (problem === 'aboveMax') return fill(S.errMax, { 0: b.max });
  return undefined;
}

function saveState(): void {
  vscode.setState({ version: 1, inputs });
}

function post(msg: WebviewMessage): void {
  vscode.postMessage(msg);
}

// ---- form ----

function numberField(key: NumKey): HTMLElement {
  const f = FIELDS.find((x) => x.key === key)!;
  const b = FIELD_BOUNDS[key];
  const id = `f-${key}`;
  const input = h('input', { id, type: 'number', inputmode: 'decimal', min: String(b.min), max: String(b.max), step: f.step, value: String(inputs[key] ?? DEFAULT_JOB.vramGb), 'aria-describedby': `${id}-err` });
  const err = h('span', { id: `${id}-err`, class: 'error', role: 'alert' });
  const onChange = () => {
    const problem = validate(key, input.value);
    err.textContent = problem ?? '';
    input.setAttribute('aria-invalid', problem ? 'true' : 'false');
    if (problem) invalid.add(key);
    else {
      invalid.delete(key);
      inputs = { ...inputs, [key]: Number(input.value) };
    }
    schedule();
  };
  input.addEventListener('input', onChange);
  input.addEventListener('change', onChange);
  return h('label', { class: `field field-${key}`, for: id }, h('span', { class: 'name' }, S[key]), input, err);
}

const round1 = (x: number) => (Math.round(x * 10) / 10).toString();
const cardName = (id: string) => catalog.cards.find((c) => c.id === id)?.name ?? id;

function cardsWithPrices(): { id: string; name: string }[] {
  const ids = new Set(catalog.platforms.flatMap((p) => p.prices.filter((q) => q.price).map((q) => q.card)));
  return catalog.cards.filter((c) => ids.has(c.id)).map((c) => ({ id: c.id, name: c.name }));
}

function renderForm(): HTMLElement {
  const cards = cardsWithPrices();
  const wanted = findCard(inputs.card, catalog.cards)?.id;
  const cardId = cards.find((c) => c.id === wanted)?.id ?? cards.find((c) => c.id === 'rtx3090')?.id ?? cards[0]?.id ?? '';
  if (cardId && inputs.card !== cardId) inputs = { ...inputs, card: cardId };
  const select = h('select', { id: 'f-card' }, ...cards.map((c) => h('option', { value: c.id, selected: c.id === cardId }, c.name)));
  select.addEventListener('change', () => {
    // The same job on another card: its hours follow the card's speed (as gpu-rent quote counts them).
    const r = inputsForCard(inputs, select.value, catalog.cards);
    inputs = r.inputs;
    for (const key of ['gpuHours', 'secondsPerStep'] as const) {
      const field = document.getElementById(`f-${key}`) as HTMLInputElement | null;
      if (field && !invalid.has(key)) field.value = String(inputs[key]);
    }
    const note = document.getElementById('f-card-rescaled');
    if (note) note.textContent = r.rescale ? fill(r.rescale.measured ? S.rescaledMeasured : S.rescaledEstimated, { 0: round1(r.rescale.fromHours), 1: cardName(r.rescale.fromCard), 2: round1(r.rescale.toHours), 3: cardName(r.rescale.toCard) }) : '';
    breakEvenPlatform = undefined;
    renderPlatforms();
    schedule();
  });
  const mode = (m: 'hours' | 'steps', label: string) => {
    const r = h('input', { type: 'radio', name: 'workMode', value: m, checked: inputs.workMode === m, id: `f-mode-${m}` });
    r.addEventListener('change', () => {
      if (!r.checked) return;
      inputs = { ...inputs, workMode: m };
      document.body.dataset.workMode = m;
      schedule();
    });
    return h('label', { class: 'radio', for: `f-mode-${m}` }, r, label);
  };
  document.body.dataset.workMode = inputs.workMode;
  const spot = h('input', { type: 'checkbox', id: 'f-spot', checked: inputs.spot });
  spot.addEventListener('change', () => {
    inputs = { ...inputs, spot: spot.checked };
    schedule();
  });
  return h(
    'form',
    { id: 'form', class: 'form', novalidate: true },
    h('label', { class: 'field field-card', for: 'f-card' }, h('span', { class: 'name' }, S.card), select, h('span', { id: 'f-card-rescaled', class: 'hint', role: 'status' })),
    h('fieldset', { class: 'workmode' }, h('legend', {}, S.workMode), mode('hours', S.byHours), mode('steps', S.bySteps)),
    ...FIELDS.map((f) => numberField(f.key)),
    h('label', { class: 'field checkbox', for: 'f-spot' }, spot, S.spot),
    h('fieldset', { id: 'platforms', class: 'platforms' }, h('legend', {}, S.platforms)),
  );
}

function renderPlatforms(): void {
  const box = document.getElementById('platforms');
  if (!box) return;
  box.replaceChildren(h('legend', {}, S.platforms));
  const card = inputs.card;
  for (const p of catalog.platforms.filter((q) => q.prices.some((r) => r.card === card && r.price))) {
    const id = `f-p-${p.id}`;
    const cb = h('input', { type: 'checkbox', id, value: p.id, checked: inputs.platforms.includes(p.id) });
    cb.addEventListener('change', () => {
      const set = new Set(inputs.platforms);
      if (cb.checked) set.add(p.id);
      else set.delete(p.id);
      inputs = { ...inputs, platforms: [...set] };
      schedule();
    });
    box.append(h('label', { class: 'checkbox', for: id }, cb, platformName(p.id)));
  }
}

// ---- results ----

const other = (r: QuoteRow) => midpoint(r.breakdown.idle) + midpoint(r.breakdown.download) + midpoint(r.breakdown.spotRework);

function sortRows(rows: QuoteRow[]): QuoteRow[] {
  const key = inputs.sort.key;
  const val = (r: QuoteRow): number | string =>
    key === 'platform' ? platformName(r.platform, r) : key === 'total' ? midpoint(r.total) : key === 'gpu' ? midpoint(r.breakdown.gpu) : key === 'storage' ? midpoint(r.breakdown.storage) : key === 'other' ? other(r) : r.wallHours;
  const sorted = [...rows].sort((a, b) => {
    const x = val(a);
    const y = val(b);
    return typeof x === 'string' ? x.localeCompare(String(y)) : x - (y as number);
  });
  return inputs.sort.descending ? sorted.reverse() : sorted;
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
  if (d.kind === 'reportTestWeek') return h('td', { class: 'date', title: fill(S.undatedTitle, { 0: r.price.source }) }, S.undated);
  const text = d.kind === 'readAt' ? fill(S.readAt, { 0: d.at.slice(0, 16).replace('T', ' ') }) : d.kind === 'asOf' ? d.date : S.unknownDate;
  return h('td', { class: 'date', title: r.price.source }, text);
}

function renderTable(rows: QuoteRow[], cheapest: QuoteRow | undefined): HTMLElement {
  const head = (key: (typeof SORT_KEYS)[number] | undefined, label: string) => {
    if (!key) return h('th', { scope: 'col' }, label);
    const active = inputs.sort.key === key;
    const btn = h('button', { type: 'button', class: 'sort', 'data-key': key }, label + (active ? (inputs.sort.descending ? ' ▼' : ' ▲') : ''));
    btn.addEventListener('click', () => {
      inputs = { ...inputs, sort: { key, descending: active ? !inputs.sort.descending : false } };
      schedule(0);
    });
    return h('th', { scope: 'col', 'aria-sort': active ? (inputs.sort.descending ? 'descending' : 'ascending') : undefined }, btn);
  };
  const body = sortRows(rows).map((r) =>
    h(
      'tr',
      { class: r === cheapest ? 'best' : undefined },
      h('td', {}, platformName(r.platform, r), r === cheapest ? h('span', { class: 'badge' }, S.cheapest) : undefined, startNowNode(r)),
      h('td', {}, modeName(r.mode) + (r.periods ? ` ×${r.periods}` : '')),
      h('td', { class: 'num', title: r.hoursEstimated ? S.estimated : undefined }, fill(S.hoursUnit, { 0: (Math.round(r.wallHours * 10) / 10).toString() }) + (r.hoursEstimated ? ' ≈' : '')),
      h('td', { class: 'num' }, ...moneyNodes(r.breakdown.gpu)),
      h('td', { class: 'num', title: r.unpriced.includes('storage') ? fill(S.unpriced, { 0: S.storage }) : undefined }, ...(r.unpriced.includes('storage') ? ['?'] : moneyNodes(r.breakdown.storage))),
      h('td', { class: 'num', title: r.unpriced.length ? fill(S.unpriced, { 0: r.unpriced.map((u) => S[u]).join(', ') }) : undefined }, formatCny(other(r)), ...(r.unpriced.some((u) => u !== 'storage') ? [' ', h('span', { class: 'unknown' }, '+?')] : [])),
      h('td', { class: 'num total', title: r.unpriced.length ? fill(S.unpriced, { 0: r.unpriced.map((u) => S[u]).join(', ') }) : undefined }, ...moneyNodes(r.total, r.unpriced.length > 0)),
      dateCell(r),
    ),
  );
  return h(
    'table',
    { id: 'quotes', class: 'quotes' },
    h('caption', {}, S.table),
    h('thead', {}, h('tr', {}, head('platform', S.platform), head(undefined, S.mode), head('hours', S.hours), head('gpu', S.gpu), head('storage', S.storage), head('other', S.other), head('total', S.total), head(undefined, S.priceAsOf))),
    h('tbody', {}, ...body),
    h('tfoot', {}, h('tr', {}, h('td', { colspan: '8', class: 'muted note' }, S.datedNote))),
  );
}

function renderBars(rows: QuoteRow[], cheapest: QuoteRow | undefined, width: number): string {
  const bars: Bar[] = rows.slice(0, 15).map((r) => ({
    label: `${platformName(r.platform, r)} · ${modeName(r.mode)}`,
    parts: { gpu: midpoint(r.breakdown.gpu), storage: midpoint(r.breakdown.storage), idle: midpoint(r.breakdown.idle), download: midpoint(r.breakdown.download), spotRework: midpoint(r.breakdown.spotRework) },
    highlight: r === cheapest,
    ...(r.unpriced.length ? { unknown: fill(S.unpriced, { 0: r.unpriced.map((u) => S[u]).join(', ') }) } : {}),
  }));
  return stackedBars(bars, { width, title: S.chartTitle, legend: { gpu: S.gpu, storage: S.storage, idle: S.idle, download: S.download, spotRework: S.spotRework } });
}

function renderBreakEven(width: number): HTMLElement {
  const card = inputs.card;
  const gpus = inputs.gpus;
  const candidates = catalog.platforms.filter((p) => (['hour', 'day', 'week', 'month'] as const).filter((m) => p.prices.some((q) => q.card === card && q.mode === m && q.price)).length >= 2);
  const wrap = h('div', { id: 'breakeven' });
  if (candidates.length === 0) {
    wrap.append(h('p', { class: 'muted' }, S.breakEvenNone));
    return wrap;
  }
  if (!breakEvenPlatform || !candidates.some((p) => p.id === breakEvenPlatform)) breakEvenPlatform = candidates[0]!.id;
  const select = h('select', { id: 'be-platform', 'aria-label': S.breakEvenPlatform }, ...candidates.map((p) => h('option', { value: p.id, selected: p.id === breakEvenPlatform }, platformName(p.id))));
  select.addEventListener('change', () => {
    breakEvenPlatform = select.value;
    schedule(0);
  });
  const platform = candidates.find((p) => p.id === breakEvenPlatform)!;
  const lines: ModeLine[] = (['hour', 'day', 'week', 'month'] as const).flatMap((mode) => {
    const pr = platform.prices.find((q) => q.card === card && q.mode === mode && q.price);
    return pr?.price ? [{ mode, label: modeName(mode), pricePerPeriod: midpoint(pr.price) * gpus }] : [];
  });
  const svg = h('div', { class: 'chart-box' });
  svg.innerHTML = breakEvenChart(lines, { width, title: S.breakEvenTitle, axis: S.breakEvenAxis });
  const notes = breakEvenHours(platform, card).map((b) => {
    const a = lines.find((l) => l.mode === b.shorter);
    const c = lines.find((l) => l.mode === b.longer);
    const at = a && c ? crossover(a, c) : null;
    return at === null ? undefined : h('li', {}, fill(S.breakEvenLine, { longer: modeName(b.longer), shorter: modeName(b.shorter), units: fill(S.hoursUnit, { 0: at }) }));
  });
  const dates = [...new Set(platform.prices.filter((q) => q.card === card).map((q) => {
    const d = dating(q);
    return d.kind === 'reportTestWeek' ? S.undated : d.kind === 'readAt' ? fill(S.readAt, { 0: d.at.slice(0, 16).replace('T', ' ') }) : d.kind === 'asOf' ? d.date : S.unknownDate;
  }))].join(', ');
  wrap.append(h('div', { class: 'row' }, h('label', { for: 'be-platform' }, S.breakEvenPlatform), select, h('span', { class: 'muted' }, `${S.priceAsOf}: ${dates}`)), svg, h('ul', { class: 'be-lines' }, ...notes));
  return wrap;
}

function renderWarnings(rows: QuoteRow[]): HTMLElement {
  const codes = new Set<string>();
  for (const r of rows) {
    for (const w of catalog.platforms.find((p) => p.id === r.platform)?.warnings ?? []) codes.add(`${r.platform}:${w}`);
    for (const n of r.notes) if (!(n in WARNING_TEXT)) codes.add(`*:${n}`);
  }
  const items = [...codes].map((k) => {
    const [pid, code] = k.split(':') as [string, string];
    const w = WARNING_TEXT[code as WarningCode];
    const text = w ? (locale === 'zh-cn' ? w.zh : w.en) : S.notes[code] ?? code;
    return h('li', {}, pid === '*' ? '' : h('strong', {}, `${platformName(pid)}: `), text);
  });
  return h('ul', { id: 'warnings', class: 'warnings' }, ...items);
}

let timer: ReturnType<typeof setTimeout> | undefined;
function schedule(ms = 120): void {
  if (timer) clearTimeout(timer);
  timer = setTimeout(compute, ms);
}

function compute(): void {
  const status = document.getElementById('status')!;
  if (invalid.size > 0) {
    status.textContent = S.invalid;
    status.hidden = false;
    return;
  }
  status.hidden = true;
  const checked = CalculatorInputsSchema.safeParse(inputs);
  if (!checked.success) {
    post({ type: 'error', message: `inputs rejected: ${checked.error.issues[0]?.message ?? ''}`.slice(0, 2000) });
    return;
  }
  saveState();
  const res = quoteCatalog(catalog, jobInputFor(inputs));
  const rows = res.rows;
  const cheapest = cheapestPricedRow(rows);
  const width = Math.max(360, Math.min(1100, (document.getElementById('results')?.clientWidth ?? 800) - 8));
  const bars = document.getElementById('bars')!;
  const table = document.getElementById('table')!;
  if (rows.length === 0) {
    bars.replaceChildren(h('p', { class: 'muted' }, S.noRows));
    table.replaceChildren();
  } else {
    bars.innerHTML = renderBars(rows, cheapest, width);
    table.replaceChildren(renderTable(rows, cheapest));
  }
  document.getElementById('breakeven-box')!.replaceChildren(renderBreakEven(width));
  document.getElementById('warnings-box')!.replaceChildren(renderWarnings(rows));
  askStock(rows);
  post({ type: 'computed', inputs, rows: Math.min(rows.length, 1000), ...(cheapest ? { cheapest: cheapest.platform.slice(0, 200), cheapestTotalFen: Math.max(0, midpoint(cheapest.total)) } : {}) });
}

function render(): void {
  S = strings(locale);
  document.title = S.title;
  const override = h('p', { id: 'override', class: 'notice', hidden: !overrideProblem }, overrideProblem ? fill(S.overrideIgnored, { 0: overrideProblem }) : '');
  const edit = h('button', { type: 'button', class: 'link' }, S.editPrices);
  edit.addEventListener('click', () => post({ type: 'openSettings', key: 'gpuRent.catalog.overrides' }));
  const app = document.getElementById('app')!;
  app.replaceChildren(
    h('header', {}, h('h1', {}, S.title), h('p', { class: 'muted' }, S.intro, ' ', edit), override),
    h(
      'div',
      { class: 'layout' },
      renderForm(),
      h(
        'div',
        { id: 'results', class: 'results' },
        h('p', { id: 'status', class: 'notice', hidden: true, role: 'status' }),
        h('section', {}, h('h2', {}, S.chartTitle), h('div', { id: 'bars', class: 'chart-box' })),
        h('section', { id: 'table' }),
        h('section', {}, h('h2', {}, S.breakEvenTitle), h('div', { id: 'breakeven-box' })),
        h('section', {}, h('h2', {}, S.warnings), h('div', { id: 'warnings-box' })),
      ),
    ),
  );
  renderPlatforms();
  compute();
}

function applyOverride(override: Record<string, unknown>): void {
  if (Object.keys(override).length === 0) {
    catalog = builtinCatalog();
    overrideProblem = undefined;
    return;
  }
  const r = mergeCatalog(builtinCatalog(), override);
  if (r.ok) {
    catalog = r.catalog;
    overrideProblem = undefined;
  } else {
    catalog = builtinCatalog();
    overrideProblem = r.errors.slice(0, 3).map((e) => `${e.path}: ${e.message}`).join('; ');
  }
}

window.addEventListener('message', (ev: MessageEvent<unknown>) => {
  const msg = parseHostMessage(ev.data);
  if (!msg) return;
  switch (msg.type) {
    case 'init':
      locale = msg.locale;
      applyOverride(msg.catalogOverride);
      if (msg.inputs) inputs = msg.inputs;
      invalid.clear();
      render();
      return;
    case 'setInputs':
      inputs = { ...inputs, ...msg.inputs };
      invalid.clear();
      render();
      return;
    case 'catalogChanged':
      applyOverride(msg.catalogOverride);
      render();
      return;
    case 'stockAvailable':
      stockAvailable = msg.available;
      // Accounts changed: ask afresh (the host's cache still reads each account at most once a minute).
      stockAsked = { ...stockAsked, at: 0 };
      if (!stockAvailable) marks = new Map();
      schedule(0);
      return;
    case 'startNow':
      // Only the answer to the last question; an older one is stale.
      if (msg.requestId !== stockAsked.id) return;
      marks = new Map(msg.marks.map((m) => [stockKey(m.key), m.mark]));
      marksAt = Date.now();
      schedule(0);
      return;
  }
});

setInterval(() => {
  if (stockAvailable && document.visibilityState === 'visible' && shownKeys.length) {
    stockAsked = { ...stockAsked, at: 0 };
    schedule(0);
  }
}, STOCK_EVERY_MS);

let resizeTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('resize', () => {
  if (resizeTimer) clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => schedule(0), 150);
});

if (!CalculatorInputsSchema.safeParse(inputs).success) inputs = DEFAULT_INPUTS;
render();
post({ type: 'ready', requestId: 1 });

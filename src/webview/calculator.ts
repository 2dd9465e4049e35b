// The calculator page. Runs core's cost model in the browser: the host only sends the locale,
// the catalog override and the inputs. Every message in is validated (protocol.ts); state is
// kept with setState so a reload restores the form. The page's parts: its state and helpers
// (calculator-page.ts), the form (calculator-form.ts), the results (calculator-results.ts) and
// the start-now marks (calculator-stock.ts); here the recompute, the first render and the
// message loop.
import '../../media/calculator.css';
import { builtinCatalog, mergeCatalog } from '../core/catalog';
import { cheapestPricedRow, midpoint, quoteCatalog } from '../core/cost';
import { jobInputFor } from './job-input';
import { CalculatorInputsSchema, DEFAULT_INPUTS, parseHostMessage } from './protocol';
import { fill, strings } from './strings';
import { h, onSchedule, page, post, saveState, schedule } from './calculator-page';
import { renderForm, renderMyRuns, renderPlatforms } from './calculator-form';
import { renderBars, renderBreakEven, renderTable, renderWarnings } from './calculator-results';
import { askStock, STOCK_EVERY_MS, stockAvailability, stockDue, takeMarks } from './calculator-stock';

function compute(): void {
  const status = document.getElementById('status')!;
  if (page.invalid.size > 0) {
    status.textContent = page.S.invalid;
    status.hidden = false;
    return;
  }
  status.hidden = true;
  const checked = CalculatorInputsSchema.safeParse(page.inputs);
  if (!checked.success) {
    post({ type: 'error', message: `inputs rejected: ${checked.error.issues[0]?.message ?? ''}`.slice(0, 2000) });
    return;
  }
  saveState();
  const res = quoteCatalog(page.catalog, jobInputFor(page.inputs));
  const rows = res.rows;
  const cheapest = cheapestPricedRow(rows);
  const width = Math.max(360, Math.min(1100, (document.getElementById('results')?.clientWidth ?? 800) - 8));
  const bars = document.getElementById('bars')!;
  const table = document.getElementById('table')!;
  if (rows.length === 0) {
    bars.replaceChildren(h('p', { class: 'muted' }, page.S.noRows));
    table.replaceChildren();
  } else {
    bars.innerHTML = renderBars(rows, cheapest, width);
    table.replaceChildren(renderTable(rows, cheapest));
  }
  document.getElementById('breakeven-box')!.replaceChildren(renderBreakEven(width));
  document.getElementById('warnings-box')!.replaceChildren(renderWarnings(rows));
  askStock(rows);
  post({ type: 'computed', inputs: page.inputs, rows: Math.min(rows.length, 1000), ...(cheapest ? { cheapest: cheapest.platform.slice(0, 200), cheapestTotalFen: Math.max(0, midpoint(cheapest.total)) } : {}) });
}
onSchedule(compute);

function render(): void {
  page.S = strings(page.locale);
  document.title = page.S.title;
  const override = h('p', { id: 'override', class: 'notice', hidden: !page.overrideProblem }, page.overrideProblem ? fill(page.S.overrideIgnored, { 0: page.overrideProblem }) : '');
  const edit = h('button', { type: 'button', class: 'link' }, page.S.editPrices);
  edit.addEventListener('click', () => post({ type: 'openSettings', key: 'gpuRent.catalog.overrides' }));
  const app = document.getElementById('app')!;
  app.replaceChildren(
    h('header', {}, h('h1', {}, page.S.title), h('p', { class: 'muted' }, page.S.intro, ' ', edit), override),
    h(
      'div',
      { class: 'layout' },
      renderForm(),
      h(
        'div',
        { id: 'results', class: 'results' },
        h('p', { id: 'status', class: 'notice', hidden: true, role: 'status' }),
        h('section', {}, h('h2', {}, page.S.chartTitle), h('div', { id: 'bars', class: 'chart-box' })),
        h('section', { id: 'table' }),
        h('section', {}, h('h2', {}, page.S.breakEvenTitle), h('div', { id: 'breakeven-box' })),
        h('section', {}, h('h2', {}, page.S.warnings), h('div', { id: 'warnings-box' })),
      ),
    ),
  );
  renderPlatforms();
  renderMyRuns();
  compute();
}

function applyOverride(override: Record<string, unknown>): void {
  if (Object.keys(override).length === 0) {
    page.catalog = builtinCatalog();
    page.overrideProblem = undefined;
    return;
  }
  const r = mergeCatalog(builtinCatalog(), override);
  if (r.ok) {
    page.catalog = r.catalog;
    page.overrideProblem = undefined;
  } else {
    page.catalog = builtinCatalog();
    page.overrideProblem = r.errors.slice(0, 3).map((e) => `${e.path}: ${e.message}`).join('; ');
  }
}

window.addEventListener('message', (ev: MessageEvent<unknown>) => {
  const msg = parseHostMessage(ev.data);
  if (!msg) return;
  switch (msg.type) {
    case 'init':
      page.locale = msg.locale;
      applyOverride(msg.catalogOverride);
      if (msg.inputs) page.inputs = msg.inputs;
      page.invalid.clear();
      render();
      return;
    case 'setInputs':
      page.inputs = { ...page.inputs, ...msg.inputs };
      page.invalid.clear();
      render();
      return;
    case 'catalogChanged':
      applyOverride(msg.catalogOverride);
      render();
      return;
    case 'stockAvailable':
      stockAvailability(msg.available);
      schedule(0);
      return;
    case 'startNow':
      if (!takeMarks(msg)) return;
      schedule(0);
      return;
    case 'myRuns':
      page.myRuns = msg.runs;
      renderMyRuns();
      return;
  }
});

setInterval(() => {
  if (stockDue()) schedule(0);
}, STOCK_EVERY_MS);

let resizeTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('resize', () => {
  if (resizeTimer) clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => schedule(0), 150);
});

if (!CalculatorInputsSchema.safeParse(page.inputs).success) page.inputs = DEFAULT_INPUTS;
render();
post({ type: 'ready', requestId: 1 });

// The calculator's form: the card, how the work is given (hours or steps), the number fields
// checked against core's bounds as typed, spot, and the platforms that price the card.
import { findCard } from '../core/cards';
import { boundProblem } from '../core/bounds';
import { DEFAULT_JOB } from '../core/job-defaults';
import { FIELD_BOUNDS, type NumField } from './protocol';
import { inputsForCard } from './rescale';
import { fill } from './strings';
import { h, page, platformName, schedule } from './calculator-page';

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

function validate(key: NumKey, text: string): string | undefined {
  const S = page.S;
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

function numberField(key: NumKey): HTMLElement {
  const f = FIELDS.find((x) => x.key === key)!;
  const b = FIELD_BOUNDS[key];
  const id = `f-${key}`;
  const input = h('input', { id, type: 'number', inputmode: 'decimal', min: String(b.min), max: String(b.max), step: f.step, value: String(page.inputs[key] ?? DEFAULT_JOB.vramGb), 'aria-describedby': `${id}-err` });
  const err = h('span', { id: `${id}-err`, class: 'error', role: 'alert' });
  const onChange = () => {
    const problem = validate(key, input.value);
    err.textContent = problem ?? '';
    input.setAttribute('aria-invalid', problem ? 'true' : 'false');
    if (problem) page.invalid.add(key);
    else {
      page.invalid.delete(key);
      // Another job than the run's: its hours are no longer measured (the GPUs and the disk are not the job).
      const job = key === 'gpuHours' || key === 'steps' || key === 'secondsPerStep';
      page.inputs = { ...page.inputs, [key]: Number(input.value), ...(job ? { measured: undefined } : {}) };
      if (job) showMeasured();
    }
    schedule();
  };
  input.addEventListener('input', onChange);
  input.addEventListener('change', onChange);
  return h('label', { class: `field field-${key}`, for: id }, h('span', { class: 'name' }, page.S[key]), input, err);
}

const round1 = (x: number) => (Math.round(x * 10) / 10).toString();
const cardName = (id: string) => page.catalog.cards.find((c) => c.id === id)?.name ?? id;

function cardsWithPrices(): { id: string; name: string }[] {
  const catalog = page.catalog;
  const ids = new Set(catalog.platforms.flatMap((p) => p.prices.filter((q) => q.price).map((q) => q.card)));
  return catalog.cards.filter((c) => ids.has(c.id)).map((c) => ({ id: c.id, name: c.name }));
}

export function renderForm(): HTMLElement {
  const S = page.S;
  const cards = cardsWithPrices();
  const wanted = findCard(page.inputs.card, page.catalog.cards)?.id;
  const cardId = cards.find((c) => c.id === wanted)?.id ?? cards.find((c) => c.id === 'rtx3090')?.id ?? cards[0]?.id ?? '';
  if (cardId && page.inputs.card !== cardId) page.inputs = { ...page.inputs, card: cardId };
  const select = h('select', { id: 'f-card' }, ...cards.map((c) => h('option', { value: c.id, selected: c.id === cardId }, c.name)));
  select.addEventListener('change', () => {
    // The same job on another card: its hours follow the card's speed (as gpu-rent quote counts them).
    const r = inputsForCard(page.inputs, select.value, page.catalog.cards);
    page.inputs = r.inputs;
    for (const key of ['gpuHours', 'secondsPerStep'] as const) {
      const field = document.getElementById(`f-${key}`) as HTMLInputElement | null;
      if (field && !page.invalid.has(key)) field.value = String(page.inputs[key]);
    }
    const note = document.getElementById('f-card-rescaled');
    if (note) note.textContent = r.rescale ? fill(r.rescale.measured ? page.S.rescaledMeasured : page.S.rescaledEstimated, { 0: round1(r.rescale.fromHours), 1: cardName(r.rescale.fromCard), 2: round1(r.rescale.toHours), 3: cardName(r.rescale.toCard) }) : '';
    page.breakEvenPlatform = undefined;
    renderPlatforms();
    schedule();
  });
  const mode = (m: 'hours' | 'steps', label: string) => {
    const r = h('input', { type: 'radio', name: 'workMode', value: m, checked: page.inputs.workMode === m, id: `f-mode-${m}` });
    r.addEventListener('change', () => {
      if (!r.checked) return;
      page.inputs = { ...page.inputs, workMode: m, measured: undefined };
      showMeasured();
      document.body.dataset.workMode = m;
      schedule();
    });
    return h('label', { class: 'radio', for: `f-mode-${m}` }, r, label);
  };
  document.body.dataset.workMode = page.inputs.workMode;
  const spot = h('input', { type: 'checkbox', id: 'f-spot', checked: page.inputs.spot });
  spot.addEventListener('change', () => {
    page.inputs = { ...page.inputs, spot: spot.checked };
    schedule();
  });
  return h(
    'form',
    { id: 'form', class: 'form', novalidate: true },
    h('div', { id: 'my-runs', class: 'field field-runs', hidden: true }),
    h('label', { class: 'field field-card', for: 'f-card' }, h('span', { class: 'name' }, S.card), select, h('span', { id: 'f-card-rescaled', class: 'hint', role: 'status' })),
    h('fieldset', { class: 'workmode' }, h('legend', {}, S.workMode), mode('hours', S.byHours), mode('steps', S.bySteps)),
    ...FIELDS.map((f) => numberField(f.key)),
    h('label', { class: 'field checkbox', for: 'f-spot' }, spot, S.spot),
    h('fieldset', { id: 'platforms', class: 'platforms' }, h('legend', {}, S.platforms)),
  );
}

export function renderPlatforms(): void {
  const box = document.getElementById('platforms');
  if (!box) return;
  box.replaceChildren(h('legend', {}, page.S.platforms));
  const card = page.inputs.card;
  for (const p of page.catalog.platforms.filter((q) => q.prices.some((r) => r.card === card && r.price))) {
    const id = `f-p-${p.id}`;
    const cb = h('input', { type: 'checkbox', id, value: p.id, checked: page.inputs.platforms.includes(p.id) });
    cb.addEventListener('change', () => {
      const set = new Set(page.inputs.platforms);
      if (cb.checked) set.add(p.id);
      else set.delete(p.id);
      page.inputs = { ...page.inputs, platforms: [...set] };
      schedule();
    });
    box.append(h('label', { class: 'checkbox', for: id }, cb, platformName(p.id)));
  }
}

const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);

/** The measured note under the run picker: which card's hours are measured, and in which run. */
function showMeasured(): void {
  const note = document.getElementById('f-runs-measured');
  if (!note) return;
  const m = page.inputs.measured;
  note.textContent = m ? fill(page.S.measuredNote, { 0: cardName(m.card), 1: String(page.inputs.gpus), 2: m.run, 3: day(m.at) }) : '';
  const select = document.getElementById('f-runs') as HTMLSelectElement | null;
  if (select && !m) select.value = '';
}

/** From my runs: a picker of the user's finished runs (hidden when there are none); picking one fills the job it did. */
export function renderMyRuns(): void {
  const box = document.getElementById('my-runs');
  if (!box) return;
  const S = page.S;
  box.hidden = page.myRuns.length === 0;
  if (!page.myRuns.length) return box.replaceChildren();
  const runs = page.myRuns;
  const select = h(
    'select',
    { id: 'f-runs' },
    h('option', { value: '' }, S.fromMyRunsNone),
    ...runs.map((r) => h('option', { value: r.id, selected: page.inputs.measured?.run === r.name && page.inputs.measured.at === r.endedAt }, `${r.name} · ${cardName(r.card)}${r.gpus > 1 ? ` × ${r.gpus}` : ''} · ${day(r.endedAt)}`)),
  );
  select.addEventListener('change', () => {
    const r = runs.find((x) => x.id === select.value);
    if (!r) {
      page.inputs = { ...page.inputs, measured: undefined };
      showMeasured();
      return schedule();
    }
    page.inputs = { ...page.inputs, card: r.card, gpus: r.gpus, workMode: 'steps', steps: r.steps, secondsPerStep: r.secondsPerStep, measured: { run: r.name, at: r.endedAt, card: r.card, gpuHours: r.gpuHours } };
    page.invalid.clear();
    // The form shows the run's job (card, GPUs, steps × seconds per step).
    const app = document.getElementById('form');
    if (app) app.replaceWith(renderForm());
    renderPlatforms();
    renderMyRuns();
    schedule(0);
  });
  box.replaceChildren(h('label', { for: 'f-runs' }, h('span', { class: 'name' }, S.fromMyRuns), select), h('span', { id: 'f-runs-measured', class: 'hint', role: 'status' }));
  showMeasured();
}

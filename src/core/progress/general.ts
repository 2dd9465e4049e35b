// The general reader: what a line that no known printer wrote says, read from its words rather
// than from one library's format. The line is cut into tokens (words, numbers, `N/M` counters) by
// one linear pattern; then
// - a counter or number is bound to the step / iter / batch / update / epoch word just before it
//   (`Iteration 1800,`, `iter: 6879`, `progress: 300/22000`, `Batch[430/6920]`, `Epoch[1]`) or,
//   for a count, just after it (`0025028 updates`); a counter right after an epoch's value or count
//   is that epoch's iteration (`Epoch: [127/300][335/464]`, `Train Epoch: 50 [7200/50000 (14%)]`,
//   `| epoch 001:    650 / 1891`, `Epoch 4 ---------- 232/291`); a counter bound to nothing
//   (`acc: 43.75%(7/16)`, a date) is not progress;
// - a loss is a number beside a word that says loss, in any spelling (`loss=`, `Loss: `, `loss = `,
//   `Loss 1.5e+00`, `trainloss     3.72`, `total loss is 44.99`, `loss train: 3.669`, `11.8750 loss`);
//   the total is preferred over its components (`Tot Loss` over `Cls Loss`, `avg_loss` over
//   `avg_bpp_loss`), train over validation (`val_loss`, `Vali Loss`, whatever follows `valid`/`eval`).
// Nothing is read that the line does not print: no total is guessed. Linear in the line's length
// (one pass to cut, bounded passes over at most MAX_TOKENS tokens).
import { printedNumber } from './formats';
import type { LineReading } from './lines';

type Kind = 'epoch' | 'step' | 'iter' | 'update' | 'batch' | 'inner';

interface Tok {
  type: 'num' | 'count' | 'word' | 'punct';
  start: number;
  end: number;
  /** num / count: the value (count: the first number). */
  v: number;
  /** count: the second number. */
  total: number;
  /** num: letters right after it (`s`, `ms`, `k`, `%`, `it`). */
  unit: string;
  /** word: as printed; punct: the character. */
  text: string;
  integer: boolean;
}

const MAX_TOKENS = 400;
// One alternative per token kind, each bounded: counter, `N of M`, number with a unit, word, any other character.
const TOKEN = /(\d{1,12})[ \t]{0,4}\/[ \t]{0,4}(\d{1,12})(?![\d.])|(\d{1,12}) of (\d{1,12})(?!\d)|(?<![\d,.])(\d{1,3}(?:,\d{3}){1,4})(?![\d.]|,\d)|([-+]?(?:\d{1,15}(?:\.\d{0,20})?|\.\d{1,20})(?:[eE][-+]?\d{1,3})?)([A-Za-z%]{0,6})|([A-Za-z][\w./-]{0,60})|(\S)/g;

/** A word without the `.`, `/`, `-` it ends with (`Avg.` → `Avg`), by hand: `/[./-]+$/` is quadratic on a long run. */
function trimTrail(w: string): string {
  let end = w.length;
  while (end > 0 && (w[end - 1] === '.' || w[end - 1] === '/' || w[end - 1] === '-')) end--;
  return w.slice(0, end);
}

function tokens(line: string): Tok[] {
  const out: Tok[] = [];
  const re = new RegExp(TOKEN.source, 'g');
  let m: RegExpExecArray | null;
  while (out.length < MAX_TOKENS && (m = re.exec(line))) {
    const start = m.index;
    const end = start + m[0].length;
    const base = { start, end, v: NaN, total: NaN, unit: '', text: m[0], integer: false };
    if (m[1] !== undefined) out.push({ ...base, type: 'count', v: Number(m[1]), total: Number(m[2]), integer: true });
    else if (m[3] !== undefined) out.push({ ...base, type: 'count', v: Number(m[3]), total: Number(m[4]), integer: true });
    else if (m[5] !== undefined) out.push({ ...base, type: 'num', v: Number(m[5].replace(/,/g, '')), text: m[5], integer: true });
    else if (m[6] !== undefined) {
      const unit = m[7] ?? '';
      let v = Number(m[6]);
      if (unit === 'k' || unit === 'K') v *= 1e3;
      else if (unit === 'M') v *= 1e6;
      out.push({ ...base, type: 'num', v, unit, text: m[6], integer: /^[-+]?\d+$/.test(m[6]) && (unit === '' || unit === 'k' || unit === 'K' || unit === 'M') });
    } else if (m[8] !== undefined) {
      const w = trimTrail(m[8]);
      if (/^(?:nan|inf|infinity)$/i.test(w)) {
        const neg = out.length > 0 && out[out.length - 1]!.text === '-' && out[out.length - 1]!.end === start;
        if (neg) out.pop();
        out.push({ ...base, start: neg ? start - 1 : start, type: 'num', v: neg ? -printedNumber(w) : printedNumber(w), text: w });
      } else out.push({ ...base, type: 'word', text: w || m[8] });
    } else out.push({ ...base, type: 'punct' });
  }
  return out;
}

/** A word's parts: `train/total_loss` → train, total, loss. */
const parts = (w: string): string[] => w.toLowerCase().split(/[_./-]/, 12).filter((p) => p.length > 0);

const KINDS: Record<string, Kind> = {
  epoch: 'epoch', epochs: 'epoch', ep: 'epoch',
  step: 'step', steps: 'step', progress: 'step',
  iter: 'iter', iters: 'iter', iteration: 'iter', iterations: 'iter',
  update: 'update', updates: 'update',
  batch: 'batch', batches: 'batch',
};
/** Words before a kind word that make it something else: `number of skipped iterations`, `time per iteration`. */
const NOT_PROGRESS_BEFORE = new Set(['of', 'skipped', 'nan', 'per', 'each', 'every', 'max', 'total', 'num', 'warmup', 'save', 'eval', 'log', 'logging', 'print', 'accumulation', 'optimization', 'checkpoint', 'at', 'after', 'before', 'sampling']);

/** The progress word a word is: `Iteration` → iter, `total_step` → step, `num_updates` → update; `max_steps`, `epoch_time` → none. */
function kindOf(word: string): Kind | null {
  const p = parts(word);
  if (p.length === 0 || p.length > 3) return null;
  const k = KINDS[p[p.length - 1]!];
  if (!k) return null;
  if (p.length > 1 && /^(?:max|warmup|eval|val|valid|test|save|log|skip|skipped|per|n)$/.test(p[0]!)) return null;
  return k;
}

const VAL_WORD = /^(?:val|valid|vali|validation|validating|eval|evaluation|evaluating|test|testing|dev)(?:loss|acc|[_./-]|$)/i;
const TRAIN_WORD = /^(?:train|training|trn)(?:[_./-]|$)/i;

/** Punctuation that may sit between a progress word and its value: `iter: 5`, `Epoch[1]`, `step=5`, `Batch [3]`. */
const BIND = new Set([':', '=', '[', '(', '{', '#']);
/** …and between an epoch and its iteration counter: `Epoch: [1/3][5/10]`, `epoch 1: 5 / 10`, `Epoch 4 ---- 5/10`. */
const NEST = new Set([':', '=', '[', ']', '(', ')', '{', '}', '|', ',', '-', '—', '─', '━', '#', '>', '.', '•']);

interface Binding {
  kind: Kind;
  v: number;
  total?: number;
  at: number;
  /** A Keras bar's counter: of several on a line (redraws joined), the last counts. */
  bar?: boolean;
}

const LOSS_WORD = /loss/i;
const CE_WORDS = new Set(['ce', 'nll', 'xent']);
const QUALIFIERS = new Set(['train', 'training', 'trn', 'avg', 'average', 'mean', 'cur', 'curr', 'current', 'step', 'batch', 'running', 'run', 'smoothed', 'smooth', 'is', 'lm', 'global', 'model', 'main', 'final', 'full', 'ave', 'iter', 'epoch']);
const TOTAL_WORDS = new Set(['total', 'tot', 'overall', 'sum', 'all']);

interface LossCandidate {
  v: number;
  /** 0: the total or plain loss; 1: a component (`box_loss`, `Cls Loss`, `ce`). */
  rank: 0 | 1;
  total: boolean;
  /** Read as `11.8750 loss` (the number before its word). */
  before: boolean;
  at: number;
}

const onlySpace = (line: string, a: number, b: number): boolean => b >= a && line.slice(a, b).trim() === '';

/** What a line that no known printer wrote says, or null when it names no progress and no loss. */
export function generalLine(line: string): LineReading | null {
  const t = tokens(line);
  if (t.length < 2) return null;
  const bound: Binding[] = [];
  const losses: LossCandidate[] = [];
  let phase: 'train' | 'val' | null = null;
  let rate: number | undefined;
  // A throughput (`Speed: 26175.9 samples/sec`, `images/s`): the line reports training, so a bare batch or step beside it is progress.
  let throughput = false;
  let kw: { kind: Kind; at: number } | null = null;
  let epochAt = -1; // the token index where the last epoch value or count ended
  let kerasAt = -1; // the last Keras bar's counter
  for (let i = 0; i < t.length; i++) {
    const tok = t[i]!;
    if (tok.type === 'word') {
      if (VAL_WORD.test(tok.text)) phase = 'val';
      else if (TRAIN_WORD.test(tok.text)) phase = 'train';
      const prev = i > 0 ? t[i - 1]! : null;
      // `iter/s`, `it/s`, `s/it` after a number: the rate.
      if (prev && prev.type === 'num' && onlySpace(line, prev.end, tok.start) && Number.isFinite(prev.v) && prev.v > 0) {
        const w = tok.text.toLowerCase();
        if (/^(?:it|its|iter|iters|step|steps|batch|batches)\/s$/.test(w)) rate = prev.v;
        else if (/^(?:samples?|images?|imgs?|tokens?|examples?|sentences?|words?)\/(?:s|sec|second)$/.test(w)) throughput = true;
      }
      const kind = phase === 'val' ? null : kindOf(tok.text);
      if (kind) {
        const before = i > 0 && t[i - 1]!.type === 'word' ? t[i - 1]!.text.toLowerCase() : '';
        if (NOT_PROGRESS_BEFORE.has(before)) {
          kw = null;
          continue;
        }
        kw = { kind, at: i };
        // `0025028 updates`: a count before its word, when nothing follows the word.
        const next = t[i + 1];
        const bindsForward = next && (next.type === 'num' || next.type === 'count' || (next.type === 'punct' && BIND.has(next.text)));
        if (!bindsForward && prev && prev.type === 'num' && prev.integer && prev.v >= 0 && onlySpace(line, prev.end, tok.start) && kind !== 'epoch') {
          const before2 = i > 1 ? t[i - 2]! : null;
          if (!before2 || before2.type === 'punct') bound.push({ kind, v: prev.v, at: i });
        }
        continue;
      }
      if (LOSS_WORD.test(tok.text) || CE_WORDS.has(tok.text.toLowerCase())) {
        const c = lossAt(line, t, i, phase);
        if (c) losses.push(c);
      }
      kw = null;
      continue;
    }
    if (tok.type === 'punct') {
      // `1.21s/it`: a number with unit s, a slash, `it`.
      if (tok.text === '/' && i > 0 && i + 1 < t.length) {
        const a = t[i - 1]!;
        const b = t[i + 1]!;
        if (a.type === 'num' && a.end === tok.start && b.type === 'word' && b.start === tok.end && a.v > 0) {
          const bw = b.text.toLowerCase();
          if (a.unit === 's' && /^(?:it|iter|step|batch)$/.test(bw)) rate = 1 / a.v;
          else if (/^(?:it|iter|step|batch)s?$/.test(a.unit.toLowerCase()) && bw === 's') rate = a.v;
        }
      }
      if (kw && !BIND.has(tok.text)) kw = null;
      continue;
    }
    // A number or a counter.
    if (kw) {
      if (tok.type === 'count' || (tok.integer && tok.v >= 0)) {
        bound.push({ kind: kw.kind, v: tok.v, ...(tok.type === 'count' ? { total: tok.total } : {}), at: i });
        if (kw.kind === 'epoch') epochAt = i;
      }
      kw = null;
      continue;
    }
    if (tok.type === 'count' && epochAt >= 0 && i > epochAt) {
      let nested = true;
      for (let j = epochAt + 1; j < i && nested; j++) if (t[j]!.type !== 'punct' || !NEST.has(t[j]!.text)) nested = false;
      if (nested) {
        bound.push({ kind: 'inner', v: tok.v, total: tok.total, at: i });
        epochAt = -1;
        continue;
      }
    }
    // A Keras progress bar: `50000/50000 [====…] - 712s - loss: …` counts this epoch's samples (redraws
    // joined on one line: the last counts); with verbose=2 it has no bar: `1079/1079 - 11s - loss: …`.
    if (tok.type === 'count' && t[i + 1]?.text === '[' && /^[=>.]$/.test(t[i + 2]?.text ?? '')) {
      bound.push({ kind: 'inner', v: tok.v, total: tok.total, at: i, bar: true });
      kerasAt = i;
    } else if (tok.type === 'count' && i === 0 && t[1]?.text === '-' && t[2]?.type === 'num' && /^(?:s|ms|us)$/.test(t[2].unit)) bound.push({ kind: 'inner', v: tok.v, total: tok.total, at: i });
  }

  const r: LineReading = { source: 'generic' };
  const epoch = bound.find((b) => b.kind === 'epoch');
  if (epoch) {
    r.epoch = epoch.v;
    if (epoch.total !== undefined && epoch.total > 0) r.epochTotal = epoch.total;
  }
  let step = pickStep(bound);
  // Keras redraws joined on one line: the loss printed after the last bar.
  const loss = pickLoss(kerasAt >= 0 && losses.some((c) => c.at > kerasAt) ? losses.filter((c) => c.at > kerasAt) : losses);
  // A bare step value is progress only beside a loss, a rate or an epoch (`Dumping profiler traces at step 200` is not).
  // …or as a line's closing `key: value` report of the step itself (faceswap's `INFO     iterations: 29107`, BERT's `  global_step = 20`).
  const report = step !== undefined && step.at === t.length - 1 && (t[step.at - 1]?.text === ':' || t[step.at - 1]?.text === '=') && STEP_REPORT.has((t[step.at - 2]?.text ?? '').toLowerCase());
  if (step && step.total === undefined && !loss && rate === undefined && !epoch && !throughput && !report) step = undefined;
  if (step) {
    r.step = step.v;
    if (step.total !== undefined && step.total > 0 && step.total >= step.v) r.total = step.total;
    if (step.kind === 'inner' || (r.total !== undefined && (step.kind === 'batch' || r.epochTotal !== undefined))) r.perEpoch = true;
  } else if (loss?.before) {
    // `   10 4.40 s run, 11.8750 loss, …`, darknet's `21423: 1.261652, 1.456173 avg loss, …`: the step is the line's
    // first number (after a paste's backtick or quote mark), followed by a number or by `:` and a number.
    let f = 0;
    while (f < 2 && t[f]?.type === 'punct' && /^[`'">*]$/.test(t[f]!.text)) f++;
    const first = t[f];
    const colon = t[f + 1]?.text === ':' ? 1 : 0;
    const next = t[f + 1 + colon];
    const lead = line.slice(0, first?.start ?? 0).trim();
    if (first && first.type === 'num' && first.integer && first.v >= 0 && next?.type === 'num' && (colon || onlySpace(line, first.end, next.start)) && /^[`'">*]{0,2}$/.test(lead)) r.step = first.v;
  }
  if (loss) {
    r.scalars = { loss: loss.v };
    r.lossRank = loss.rank;
  }
  if (rate !== undefined && Number.isFinite(rate) && rate > 0 && r.step !== undefined) r.rate = rate;
  // An epoch alone says little (`| epoch 010 | valid on 'valid' subset`): the known formats read epoch lines.
  if (r.step === undefined && !loss) return null;
  return r;
}

/** The words a line may end on with the step's value alone (`iterations: 29107`): the step itself, never a setting (`logging_steps = 10`). */
const STEP_REPORT = new Set(['step', 'global_step', 'iter', 'iteration', 'iterations']);

const KIND_ORDER: Kind[] = ['step', 'iter', 'update', 'batch', 'inner'];

/** The run's step among a line's bound counts: a count with its total first, then step over iter over update over batch. */
function pickStep(bound: Binding[]): Binding | undefined {
  const steps = bound.filter((b) => b.kind !== 'epoch');
  if (!steps.length) return undefined;
  const rank = (b: Binding): number => (b.total !== undefined ? 0 : 10) + KIND_ORDER.indexOf(b.kind);
  let best = steps[0]!;
  for (const b of steps) if (rank(b) < rank(best) || (b.bar && best.bar && rank(b) === rank(best))) best = b;
  return best;
}

/** The line's training loss: the total before the plain loss before a component, the first of each. */
function pickLoss(c: LossCandidate[]): LossCandidate | undefined {
  const after = c.filter((x) => !x.before);
  const pool = after.length ? after : c;
  return pool.find((x) => x.rank === 0 && x.total) ?? pool.find((x) => x.rank === 0) ?? pool.find((x) => x.rank === 1);
}

/** The loss named by the word at `i`, if a number goes with it and it is not validation's. */
function lossAt(line: string, t: Tok[], i: number, phase: 'train' | 'val' | null): LossCandidate | null {
  const w = t[i]!.text;
  if (VAL_WORD.test(w) || phase === 'val') return null;
  const p = parts(w);
  if (p.some((x) => /^(?:scale|scaler|count|weight|weights|ratio|fn|type|func|function|curve|plot|lr)$/.test(x))) return null;
  const next = t[i + 1];
  if (next && next.type === 'word' && /^(?:scale|scaler|function|fn|type|weight|curve|landscape)$/i.test(next.text)) return null;
  // The label: the word and up to two words printed right before it (`Tot Loss`, `total loss`, `mtp_1 loss`).
  const label: string[] = [...p];
  let labelAt = i;
  for (let j = i - 1, n = 0; j >= 0 && n < 2; j--, n++) {
    const a = t[j]!;
    if (a.type !== 'word' || !onlySpace(line, a.end, t[j + 1]!.start)) break;
    if (VAL_WORD.test(a.text)) return null;
    if (kindOf(a.text)) break;
    label.push(...parts(a.text));
    labelAt = j;
  }
  const rest: string[] = [];
  let total = false;
  for (const x of label) {
    const r = x === 'loss' ? '' : x.replace(/loss/g, '');
    if (!r) continue;
    if (TOTAL_WORDS.has(r)) total = true;
    else if (!QUALIFIERS.has(r)) rest.push(r);
  }
  const ce = CE_WORDS.has(w.toLowerCase());
  const rank: 0 | 1 = !ce && rest.length === 0 ? 0 : total && !ce ? 0 : 1;
  // The value after the label: `loss: 1`, `loss = 1`, `Loss 1`, `loss train: 1`, `loss train (curr): 1`, `loss is 1`.
  for (let j = i + 1, n = 0; j < t.length && n < 8; j++, n++) {
    const a = t[j]!;
    if (a.type === 'num') return Number.isNaN(a.v) && !/^[-+]?(?:nan|inf|infinity)$/i.test(a.text) ? null : { v: a.v, rank, total, before: false, at: j };
    // `'loss': '43.708477'` (a quoted key and value on a line that is no dict): the quote marks are skipped too.
    if (a.type === 'punct' && (a.text === ':' || a.text === '=' || a.text === '(' || a.text === ')' || a.text === "'" || a.text === '"')) continue;
    if (a.type === 'word' && /^(?:train|training|is|curr|current|avg|mean|value|of)$/i.test(a.text)) continue;
    break;
  }
  // `11.8750 loss,` / `(* 1 = 2.9 loss)` / darknet's `1.456173 avg loss`: the number right before the label.
  const prev = labelAt > 0 ? t[labelAt - 1]! : null;
  if (prev && prev.type === 'num' && !prev.unit && onlySpace(line, prev.end, t[labelAt]!.start)) {
    const before = labelAt > 1 ? t[labelAt - 2]! : null;
    if (!before || before.type === 'punct' || onlySpace(line, before.end, prev.start)) return { v: prev.v, rank, total, before: true, at: labelAt - 1 };
  }
  return null;
}

const MAX_CELLS = 24;
/** A header cell naming the training loss (`Loss`, `Training Loss`), not validation's (`Validation Loss`, `val_loss`). */
const trainLossCell = (c: string): boolean => LOSS_WORD.test(c) && !c.split(' ', 4).some((w) => VAL_WORD.test(w));

/**
 * A table printed with `|` between cells (turicreate, some custom loggers): its header names the
 * columns (`| Iteration | Loss | Elapsed Time |`: one a progress word, one a loss), its rows hold
 * numbers (`| 10 | 5.40187 | 9.41s |`). The tracker keeps the header and reads the rows under it.
 */
export function tableLine(line: string): Pick<LineReading, 'tableColumns' | 'cells'> | null {
  const t = line.trim();
  if (t.length < 5 || t[0] !== '|' || t[t.length - 1] !== '|') return null;
  const cells = t.slice(1, -1).split('|', MAX_CELLS + 1).map((c) => c.trim());
  if (cells.length < 2 || cells.length > MAX_CELLS) return null;
  const nums = cells.map((c) => {
    const m = /^([-+]?(?:\d{1,15}(?:\.\d{0,20})?|\.\d{1,20})(?:[eE][-+]?\d{1,3})?|nan|inf|-inf)([a-z%]{0,3})$/i.exec(c);
    return m ? printedNumber(m[1]!) : null;
  });
  if (nums.filter((n) => n !== null).length >= 2) return { cells: nums };
  const names = cells.map((c) => c.toLowerCase());
  if (names.some((n) => kindOf(n) !== null) && names.some(trainLossCell)) return { tableColumns: names };
  return null;
}

const NAME_CELL = /^[A-Za-z_][\w./ -]{0,60}$/;
const NUMBER_CELL = /^[-+]?(?:\d{1,15}(?:\.\d{0,20})?|\.\d{1,20})(?:[eE][-+]?\d{1,3})?$|^(?:nan|inf|-inf)$/i;

/**
 * A table without outer pipes, read only where the general reader found nothing on the line: a notebook's
 * `Step | Training Loss` copied as text (rows `1 | 1.461600`), or a CSV of metrics (`…,train/loss_step,global_step,epoch`
 * with rows `0.147,…,649.0,0,2025-11-07 …`). A header names a progress column and a training loss column; a row of
 * `|` cells must be numbers only, a CSV row at least two.
 */
export function looseTableLine(line: string): Pick<LineReading, 'tableColumns' | 'cells'> | null {
  const t = line.trim();
  if (t.length < 3 || t.length > 2000) return null;
  const pipe = t.includes(' | ');
  if (!pipe && t.split(',', 4).length < 3) return null;
  const cells = t.split(pipe ? '|' : ',', MAX_CELLS + 1).map((c) => c.trim());
  if (cells.length < 2 || cells.length > MAX_CELLS) return null;
  if (cells.every((c) => NAME_CELL.test(c))) {
    const names = cells.map((c) => c.toLowerCase());
    if (names.some((n) => kindOf(n) !== null && !LOSS_WORD.test(n)) && names.some(trainLossCell)) return { tableColumns: names };
    return null;
  }
  const nums = cells.map((c) => (NUMBER_CELL.test(c) ? printedNumber(c) : null));
  const count = nums.filter((n) => n !== null).length;
  if (pipe ? count === cells.length : count >= 2) return { cells: nums };
  return null;
}

/** A row under a table header: the step from its progress column (step, iter, update, batch), the loss from its loss column. */
export function tableRow(columns: string[], cells: (number | null)[]): LineReading | null {
  if (columns.length !== cells.length) return null;
  const r: LineReading = { source: 'generic' };
  let best = -1;
  columns.forEach((c, i) => {
    // `train/loss_step` is a loss, not a step column.
    const k = LOSS_WORD.test(c) ? null : kindOf(c);
    const v = cells[i];
    if (v === null || v === undefined || !Number.isInteger(v) || v < 0) return;
    if (k === 'epoch') r.epoch = v;
    else if (k && (best < 0 || KIND_ORDER.indexOf(k) < KIND_ORDER.indexOf(kindOf(columns[best]!)!))) best = i;
  });
  if (best >= 0) r.step = cells[best]!;
  const lossAt = columns.findIndex(trainLossCell);
  if (lossAt >= 0 && cells[lossAt] !== null && cells[lossAt] !== undefined) r.scalars = { loss: cells[lossAt]! };
  return r.step !== undefined || r.scalars ? r : null;
}

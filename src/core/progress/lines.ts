// One log line → what it says about training progress. Each recogniser knows one library's
// printed format and returns null for anything else: tqdm's bars (bars.ts), the Trainer's and
// ms-swift's log dicts (dicts.ts), the rest of formats.ts; here the Trainer's header, DeepSpeed's
// step lines, generic `step 3/10` lines and the dispatch over one line's parts.
// Input is untrusted box output: lines are capped (core/boxLines) and every pattern is linear
// (eslint's regexp/no-super-linear-backtracking and -move over this folder).
import { MAX_BOX_LINE } from '../boxLines';
import { lastBar, parseCount, parseInterval } from './bars';
import { logDict, pyDict } from './dicts';
import { generalLine, looseTableLine, tableLine } from './general';
import { charRnn, epochIterLogger, epochNotice, fairseq, isLossKey, iterLoss, jsonPairs, keyValues, megatron, notebookBar, printedNumber, stepWithLoss, yoloHeader } from './formats';

export { isLossKey, parseCount, parseInterval, printedNumber, pyDict };

export type ProgressSource = 'tqdm' | 'hf' | 'swift' | 'lightning' | 'deepspeed' | 'generic' | 'jsonl' | 'yolo' | 'mmengine' | 'megatron';

export interface LineReading {
  source: ProgressSource;
  step?: number;
  total?: number;
  /** Steps per second. */
  rate?: number;
  epoch?: number;
  epochTotal?: number;
  /** The bar's own remaining time, seconds. */
  remainingSeconds?: number;
  /** The bar counts steps within one epoch (Lightning), not the whole run. */
  perEpoch?: boolean;
  /** Scalars as printed; a loss may be NaN or ±Infinity (a diverged run): the tracker keeps only finite ones. */
  scalars?: Record<string, number>;
  /** A header line: the run's total optimization steps / epochs. */
  headerTotal?: number;
  headerEpochs?: number;
  /** How the printed epoch counts: 1 when the first epoch is printed as 1 (YOLO, YOLOX, mmengine), 0 when as 0 (Lightning, MetricLogger). */
  epochBase?: 0 | 1;
  /** A YOLO table header's loss column names. */
  columns?: string[];
  /** A YOLO epoch row's losses, in column order (the first is the run's loss: the table prints no total). */
  losses?: number[];
  /** The general reader's loss: 0 the total or plain loss, 1 a component (`box_loss`, `Cls Loss`), which does not replace a total read at the same step. */
  lossRank?: 0 | 1;
  /** A `|` table's header cells (general.ts tableLine), and a row's cells as numbers (null where not one): the tracker reads rows under their header. */
  tableColumns?: string[];
  cells?: (number | null)[];
}

/** Longest line looked at; the rest of a pathological line is ignored. */
export const MAX_LINE = MAX_BOX_LINE;

const HTML: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'" };

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]/g;

const finite = (n: number): number | undefined => (Number.isFinite(n) ? n : undefined);
/** `, loss=0.512, v_num=0, train_loss=0.5` or `loss: 0.512` after a step. */
const postfixScalars = keyValues;

/** DeepSpeed engine and Megatron-DeepSpeed lines. */
function deepspeed(line: string): LineReading | null {
  let m = /\[Rank \d+\] step=(\d{1,12}), skipped=(\d{1,12}), lr=\[([^\]]{0,200})\]/.exec(line);
  if (m) {
    const r: LineReading = { source: 'deepspeed', step: Number(m[1]) };
    const lr = Number(m[3]!.split(',')[0]);
    r.scalars = { skipped: Number(m[2]) };
    if (Number.isFinite(lr)) r.scalars.lr = lr;
    return r;
  }
  m = /global_step=(\d{1,12}),.*?RunningAvgSamplesPerSec=([0-9.]+)/.exec(line);
  if (m) return { source: 'deepspeed', step: Number(m[1]), scalars: { samples_per_sec: Number(m[2]) } };
  m = /\bsteps: (\d{1,12}) loss: (-?[0-9.]+(?:e[-+]?\d+)?|-?nan|-?inf)(?: iter time \(s\): ([0-9.]+))?(?: samples\/sec: ([0-9.]+))?/.exec(line);
  if (m) {
    const r: LineReading = { source: 'deepspeed', step: Number(m[1]) };
    r.scalars = { loss: printedNumber(m[2]!) };
    if (m[3] && Number(m[3]) > 0) r.rate = 1 / Number(m[3]);
    if (m[4]) r.scalars.samples_per_sec = Number(m[4]);
    return r;
  }
  return null;
}

/** Trainer's `***** Running training *****` block: `Total optimization steps = 1,500`, `Num Epochs = 3`. */
function header(line: string): LineReading | null {
  let m = /Total optimization steps\s*=\s*([0-9][0-9,]{0,15})/.exec(line);
  if (m) return { source: 'hf', headerTotal: Number(m[1]!.replace(/,/g, '')) };
  // Unsloth's banner: `Total batch size = 16 | Total steps = 312`.
  m = /\bTotal steps = ([0-9][0-9,]{0,15})/.exec(line);
  if (m) return { source: 'hf', headerTotal: Number(m[1]!.replace(/,/g, '')) };
  m = /\bNum Epochs\s*=\s*([0-9][0-9,]{0,9})/.exec(line);
  if (m) return { source: 'hf', headerEpochs: Number(m[1]!.replace(/,/g, '')) };
  m = /\btrain_iters\s*\.{2,}\s*([0-9]{1,12})\s*$/.exec(line);
  if (m && Number(m[1]) > 0) return { source: 'deepspeed', headerTotal: Number(m[1]) };
  m = /\bmax_steps\s*[=:]\s*([0-9]{1,12})\b/.exec(line);
  if (m && Number(m[1]) > 0) return { source: 'generic', headerTotal: Number(m[1]) };
  // mmcv's EpochBasedRunner: `workflow: [('train', 1)], max: 50 epochs`.
  m = /\bmax: ([0-9]{1,6}) epochs\b/.exec(line);
  if (m && Number(m[1]) > 0) return { source: 'generic', headerEpochs: Number(m[1]) };
  return null;
}

/** Google's CLU metric writer: `logging_writer.py:35] [500] steps_per_second=1.78, train_accuracy=…, train_loss=0.88`: the step in brackets before `key=value` metrics. */
function bracketStep(line: string): LineReading | null {
  const m = /(?:^|\] )\[(\d{1,12})\] ([A-Za-z_][\w/]{0,60}=)/.exec(line);
  if (!m) return null;
  const scalars = keyValues(line.slice(m.index + m[0].length - m[2]!.length));
  if (!Object.keys(scalars).length) return null;
  return { source: 'generic', step: Number(m[1]), scalars };
}

/** `step 450/1500`, `Step [450/1500]`, `iter: 450/1500`, `epoch 3/10`, with `loss=0.5` or `loss: 0.5`. */
function generic(line: string): LineReading | null {
  // Each run of spaces is read by one quantifier only (`\s*[:=]?\s*\[?\s*` split a run three ways: cubic).
  const s = /\b(?:global[_ ])?(?:step|iter|iteration|it)s?\s*(?:[:=]\s*)?(?:\[\s*)?(\d{1,12})\s*\/\s*(\d{1,12})\b/i.exec(line);
  const e = /\bepoch\s*(?:[:=]\s*)?(?:\[\s*)?(\d{1,6})\s*\/\s*(\d{1,6})\b/i.exec(line);
  if (!s && !e) return null;
  const r: LineReading = { source: 'generic' };
  if (s) {
    r.step = Number(s[1]);
    if (Number(s[2]) > 0) r.total = Number(s[2]);
  }
  if (e) {
    r.epoch = Number(e[1]);
    if (Number(e[2]) > 0) r.epochTotal = Number(e[2]);
  }
  const scalars = postfixScalars(line.slice(Math.max(s?.index ?? 0, e?.index ?? 0)));
  delete scalars.step;
  delete scalars.epoch;
  delete scalars.iter;
  if (Object.keys(scalars).length) r.scalars = scalars;
  return r;
}

const hasLoss = (r: LineReading): boolean => r.scalars !== undefined && Object.keys(r.scalars).some(isLossKey);

/**
 * What a piece of a line with no bar in it says: a known printer's format first; where none knows
 * the line, or the one that does finds neither a step nor a loss in it, the general reader (general.ts).
 */
function readSegment(line: string, finished: boolean): LineReading | null {
  if (line.trim().length < 4) return null;
  const known = readKnown(line);
  // A line still being written is read by the general reader only once it ends (`loss = 2.0` of `loss = 2.07986`).
  if (!finished) return known;
  // A printed dict says what it says: its keys are read as named (dicts.ts), never by the general reader.
  if (line.includes("{'") || line.includes('{"')) return known;
  if (!known && line.trimStart().startsWith('|')) {
    const table = tableLine(line);
    if (table) return { source: 'generic', ...table };
  }
  if (known && known.step !== undefined && !hasLoss(known)) {
    // A known format's step with a loss it does not name (OpenNMT's `Step 50/ 5000; … xent: 7.31;`): the general reader's loss.
    const g = generalLine(line);
    if (g?.scalars?.loss !== undefined && (g.step === undefined || g.step === known.step)) {
      known.scalars = { ...known.scalars, loss: g.scalars.loss };
      if (g.lossRank !== undefined) known.lossRank = g.lossRank;
    }
    return known;
  }
  if (known && (known.step !== undefined || known.headerTotal !== undefined || known.headerEpochs !== undefined || known.columns)) return known;
  const g = generalLine(line);
  if (!g && !known) {
    const loose = looseTableLine(line);
    return loose ? { source: 'generic', ...loose } : null;
  }
  if (!g) return known;
  if (!known) return g;
  // A known format that found no step (an epoch, a loss): the general reader's step or loss, with the known parts.
  if (g.step === undefined && (!hasLoss(g) || hasLoss(known))) return known;
  if (known.epoch !== undefined) {
    g.epoch = known.epoch;
    if (known.epochTotal !== undefined) g.epochTotal = known.epochTotal;
  }
  if (known.scalars) {
    const own = g.scalars ?? {};
    g.scalars = { ...known.scalars };
    // The general reader's loss (the total, train over validation) over the known one's first `loss`-named key.
    if (hasLoss(g)) for (const k of Object.keys(g.scalars)) if (isLossKey(k)) delete g.scalars[k];
    Object.assign(g.scalars, own);
  }
  return g;
}

/** What a known printer's line says. */
function readKnown(line: string): LineReading | null {
  if (line.includes("{'")) {
    const d = pyDict(line);
    return d ? logDict(line, d, 'hf') : null;
  }
  if (line.includes('{"')) {
    const d = jsonPairs(line);
    return d ? logDict(line, d, 'jsonl') : null;
  }
  if (line.includes('Epoch') || line.includes('Iter')) {
    const m = epochIterLogger(line) ?? yoloHeader(line);
    if (m) return m;
  }
  if (line.includes('iteration')) {
    const m = megatron(line);
    if (m) return m;
  }
  if (line.includes('| epoch ')) {
    const m = fairseq(line);
    if (m) return m;
  }
  if (line.includes('(epoch ')) {
    const m = charRnn(line);
    if (m) return m;
  }
  if (line.includes(' it/s')) {
    const m = notebookBar(line);
    if (m) return m;
  }
  if (line.includes('step')) {
    const d = deepspeed(line);
    if (d) return d;
  }
  if (line.includes('] [')) {
    const b = bracketStep(line);
    if (b) return b;
  }
  if (line.includes(' = ') || line.includes('max_steps') || line.includes('train_iters') || line.includes('max: ')) {
    const h = header(line);
    if (h) return h;
  }
  if (line.includes('epoch') || line.includes('Epoch') || line.includes('training for')) {
    const m = epochNotice(line);
    if (m) return m;
  }
  if (!/step|iter|epoch|\bit\b/i.test(line)) return null;
  const g = iterLoss(line) ?? generic(line);
  if (g && g.step !== undefined) return g;
  // `Epoch 1/10, step 100, loss: 0.5`: the epoch from generic, the step (no total) beside its loss.
  const s = stepWithLoss(line);
  if (!g || !s) return g ?? s;
  s.epoch = g.epoch ?? s.epoch;
  if (g.epochTotal !== undefined) s.epochTotal = g.epochTotal;
  return s;
}

/**
 * Everything one line (already split off at \r or \n) says, in the order printed: a dict before a bar,
 * the line's last training bar, then whatever was printed after that bar without a line end (a
 * `tqdm.write` dict, a DeepSpeed step line, a logger's next message). Never throws.
 */
export function readLineParts(raw: string, finished = true): LineReading[] {
  if (raw.length < 4 || raw.trim().length < 4) return [];
  const cut = raw.length > MAX_LINE ? raw.slice(0, MAX_LINE) : raw;
  const plain = cut.includes('\x1b') ? cut.replace(ANSI, '') : cut;
  // A bar pasted through a log viewer or Markdown escapes its pipes: `10%\|###  \| 15/144`; a notebook's output
  // copied as HTML escapes `<` (`[ 3/600 00:06 &lt; 1:04:41, 0.15 it/s, …]`).
  const unpiped = plain.includes('\\|') ? plain.replace(/\\\|/g, '|') : plain;
  const line = unpiped.includes('&') ? unpiped.replace(/&(lt|gt|amp|quot|#39);/g, (_, e: string) => HTML[e] ?? '') : unpiped;
  try {
    const bar = line.includes('%') ? lastBar(line) : null;
    if (!bar) {
      const r = readSegment(line, finished);
      return r ? [r] : [];
    }
    const out: LineReading[] = [];
    const head = line.slice(0, bar.descStart);
    if (head.includes("{'") || head.includes('{"')) {
      const h = readSegment(head, finished);
      if (h) out.push(h);
    }
    if (bar.reading) out.push(bar.reading);
    let tail = line.slice(bar.end);
    const another = tail.indexOf('%|');
    if (another >= 0) tail = tail.slice(0, another);
    const t = readSegment(tail, finished);
    if (t) out.push(t);
    return out;
  } catch {
    return [];
  }
}

/** What one line says: its last training bar if it has one, else its one reading, or null. Never throws. */
export function readLine(raw: string): LineReading | null {
  const parts = readLineParts(raw);
  return parts.find((r) => r.source === 'tqdm' || r.source === 'lightning' || r.source === 'yolo') ?? parts[0] ?? null;
}

export { finite };

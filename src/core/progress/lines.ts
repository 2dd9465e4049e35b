// One log line → what it says about training progress. Each recogniser knows one library's
// printed format (tqdm's format_meter, the Hugging Face Trainer's log dicts and header,
// ms-swift's dicts, Lightning's bar, DeepSpeed's step lines) and returns null for anything else.
// Input is untrusted box output: lines are capped (core/boxLines) and every pattern is linear
// (eslint's regexp/no-super-linear-backtracking and -move over this folder).
import { MAX_BOX_LINE } from '../boxLines';
import { charRnn, epochIterLogger, epochNotice, fairseq, isLossKey, iterLoss, jsonPairs, keyValues, megatron, notebookBar, printedNumber, stepWithLoss, torchtuneDesc, yoloHeader, yoloRow } from './formats';

export { isLossKey, printedNumber };

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
}

/** Longest line looked at; the rest of a pathological line is ignored. */
export const MAX_LINE = MAX_BOX_LINE;

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]/g;

/** tqdm's format_interval: `MM:SS`, `H:MM:SS`, or `Nd, H:MM:SS`. */
export function parseInterval(s: string): number | undefined {
  const m = /^(?:(\d{1,5})d, ?)?(\d{1,7}):(\d{2})(?::(\d{2}))?$/.exec(s.trim());
  if (!m) return undefined;
  const days = m[1] ? Number(m[1]) : 0;
  const [a, b, c] = [Number(m[2]), Number(m[3]), m[4] !== undefined ? Number(m[4]) : undefined];
  return days * 86400 + (c === undefined ? a * 60 + b : a * 3600 + b * 60 + c);
}

const UNIT_SCALE = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Z: 1e21, Y: 1e24 } as const;

/** tqdm's unit_scale numbers (`1.50k`, `2M`) and plain ones with thousands separators. */
export function parseCount(s: string): number | undefined {
  const m = /^([0-9][0-9,]*(?:\.[0-9]+)?)([kMGTPEZY]?)$/.exec(s.trim());
  if (!m) return undefined;
  const base = Number(m[1]!.replace(/,/g, ''));
  const mult = UNIT_SCALE[m[2] as 'k'] ?? 1;
  const v = base * mult;
  return Number.isFinite(v) ? v : undefined;
}

const finite = (n: number): number | undefined => (Number.isFinite(n) ? n : undefined);

/** swift's `5m 0s`, `1h 2m 3s`, `2d 1h`. */
function parseWords(s: string): number | undefined {
  const m = /^(?:(\d{1,6})d\s?)?(?:(\d{1,6})h\s?)?(?:(\d{1,6})m\s?)?(?:(\d{1,6}(?:\.\d+)?)s)?$/.exec(s.trim());
  if (!m || !(m[1] || m[2] || m[3] || m[4])) return undefined;
  return Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
}

// Bars that are not the training loop: downloads, dataset maps, shard loading, evaluation.
const NOT_TRAINING = /download|fetch|loading|load |map|token|filter|shard|generat|convert|extract|upload|eval|valid|predict|test|infer|sanity|pack|preprocess|resolv|verif|sampl|saving|writ/i;
const TRAINING_BAR_UNITS = /^(?:it|step|steps|batch|batches|iter|iters|ba)$/;

/** One bar on a line: its reading (null when it is not the training loop's), where its desc starts and where it ends. */
interface Bar {
  reading: LineReading | null;
  descStart: number;
  end: number;
}

const BAR_TAIL = /\|\s*([0-9][0-9.,]*[kMGTPEZY]?)\/([0-9][0-9.,]*[kMGTPEZY]?|\?)\s*\[(\d{1,5}d, \d[\d:]{0,12}|[\d:]{1,14}|\?)(?:<(\d{1,5}d, \d[\d:]{0,12}|[\d:]{1,14}|\?))?(?:,\s*([^\]]*))?\]?/;
// A bar printed without its glyphs (Colab, `ascii` off in a pipe): `Epoch 0:  93% 1586/1702 [12:50<00:56, …]`.
const BARE_TAIL = /^ +([0-9][0-9.,]*[kMGTPEZY]?)\/([0-9][0-9.,]*[kMGTPEZY]?|\?) ?\[(\d{1,5}d, \d[\d:]{0,12}|[\d:]{1,14}|\?)(?:<(\d{1,5}d, \d[\d:]{0,12}|[\d:]{1,14}|\?))?(?:,\s*([^\]]*))?\]?/;
const MAX_BARS_LOOKED_AT = 64;

/**
 * The last training bar on a line (tqdm's format_meter, default bar_format). Several redraws joined on
 * one line (a pasted or `nohup` log lost their \r) read as the last of them; a bar without glyphs too.
 */
function lastBar(line: string): Bar | null {
  const at: { pct: number; bare: boolean }[] = [];
  for (let i = line.indexOf('%'); i >= 0 && at.length < MAX_BARS_LOOKED_AT * 4; i = line.indexOf('%', i + 1)) {
    const next = line.charCodeAt(i + 1);
    if (next === 124 /* | */) at.push({ pct: i, bare: false });
    else if (next === 32 && i > 0 && isDigit(line.charCodeAt(i - 1))) at.push({ pct: i, bare: true });
  }
  let later: Bar | null = null;
  for (let k = at.length - 1, tried = 0; k >= 0 && tried < MAX_BARS_LOOKED_AT; k--, tried++) {
    // The desc starts where the bar before it on the line ended (redraws joined without their \r).
    let from = 0;
    for (let j = k - 1, back = 0; j >= 0 && back < 4; j--, back++) {
      const e = barEnd(line, at[j]!.pct, at[j]!.bare);
      if (e !== null && e <= at[k]!.pct) {
        from = e;
        break;
      }
    }
    const bar = tqdmBar(line, at[k]!.pct, at[k]!.bare, from);
    if (!bar) continue;
    if (bar.reading) return bar;
    later ??= bar;
  }
  return later;
}

/** Where the bar whose percentage sign is at `pct` ends, or null when there is no bar there. */
function barEnd(line: string, pct: number, bare: boolean): number | null {
  const after = bare ? pct + 1 : pct + 2;
  const tail = (bare ? BARE_TAIL : BAR_TAIL).exec(line.slice(after, after + 600));
  return tail ? after + tail.index + tail[0].length : null;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** The bar whose percentage sign is at `pct`: `{desc}: {pct}%|{bar}| {n}/{total} [{elapsed}<{remaining}, {rate}{postfix}]`. */
function tqdmBar(line: string, pct: number, bare: boolean, from: number): Bar | null {
  let d = pct;
  while (d > 0 && d > pct - 4 && isDigit(line.charCodeAt(d - 1))) d--;
  if (d === pct) return null;
  const after = bare ? pct + 1 : pct + 2;
  const tail = (bare ? BARE_TAIL : BAR_TAIL).exec(line.slice(after, after + 600));
  if (!tail) return null;
  const end = after + tail.index + tail[0].length;
  // The desc starts after the previous bar on the line, at most 200 characters back.
  const descStart = Math.max(from, d - 200, 0);
  const bar: Bar = { reading: null, descStart, end };
  const desc = trimColons(line.slice(descStart, d));
  const step = parseCount(tail[1]!);
  const total = tail[2] === '?' ? undefined : parseCount(tail[2]!);
  if (step === undefined) return bar;
  const r: LineReading = { source: 'tqdm', step };
  if (total !== undefined && total > 0) r.total = total;
  const rem = tail[4] !== undefined && tail[4] !== '?' ? parseInterval(tail[4]) : undefined;
  if (rem !== undefined) r.remainingSeconds = rem;
  const extra = tail[5] ?? '';
  const rate = /^\s*(\?|[0-9.]+(?:e[-+]?\d+)?)\s*(s\/([A-Za-z]+)|([A-Za-z]+)\/s)/.exec(extra);
  let unit = 'it';
  if (rate) {
    unit = rate[3] ?? rate[4] ?? 'it';
    if (rate[1] !== '?') {
      const v = Number(rate[1]);
      const perSecond = rate[3] ? (v > 0 ? 1 / v : undefined) : v;
      if (perSecond !== undefined && Number.isFinite(perSecond) && perSecond > 0) r.rate = perSecond;
    }
  }
  if (!TRAINING_BAR_UNITS.test(unit)) return bar;
  const scalars = postfixScalars(extra.slice(rate ? rate[0].length : 0));
  const lightning = /^Epoch (\d{1,6})(?:\/(\d{1,6}))?$/.exec(desc);
  const yolo = lightning ? null : yoloRow(desc);
  const tune = lightning || yolo ? null : torchtuneDesc(desc);
  if (lightning) {
    r.source = 'lightning';
    r.epoch = Number(lightning[1]);
    if (lightning[2] !== undefined && Number(lightning[2]) > 0) r.epochTotal = Number(lightning[2]);
    r.perEpoch = true;
    r.epochBase = 0;
  } else if (yolo) {
    // An epoch row: the bar counts this epoch's batches; the run is epochs × batches.
    r.source = 'yolo';
    r.epoch = yolo.epoch!;
    if (yolo.epochTotal! > 0) r.epochTotal = yolo.epochTotal!;
    r.losses = yolo.losses!;
    r.perEpoch = true;
    r.epochBase = 1;
  } else if (tune) {
    r.epoch = tune.epoch!;
    r.perEpoch = true;
    r.epochBase = 1;
    Object.assign(scalars, tune.scalars);
  } else if (desc && NOT_TRAINING.test(desc) && !/train/i.test(desc)) return bar;
  if (Object.keys(scalars).length) r.scalars = scalars;
  bar.reading = r;
  return bar;
}

/** `s` without the colons and spaces around it (a bar's `desc: `), by hand: `/[:\s]+$/` is quadratic on a long run. */
function trimColons(s: string): string {
  let end = s.length;
  while (end > 0 && (s[end - 1] === ':' || /\s/.test(s[end - 1]!))) end--;
  return s.slice(0, end).trim();
}

/** `, loss=0.512, v_num=0, train_loss=0.5` or `loss: 0.512` after a bar's rate. */
const postfixScalars = keyValues;

/** A Python dict repr's `'key': value` pairs (numbers, quoted strings): the last whole dict on the line (dicts printed back to back, a bar's `tqdm.write` joined). */
export function pyDict(text: string): Map<string, number | string> | null {
  const close = text.lastIndexOf('}');
  if (close < 0) return null;
  const open = text.lastIndexOf("{'", close);
  if (open < 0) return null;
  const body = text.slice(open + 1, close);
  const out = new Map<string, number | string>();
  const re = /'([^'\\]{1,80})':\s*(?:'([^'\\]{0,200})'|"([^"\\]{0,200})"|(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|-inf)|(?:np\.float\d+\()?(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\)?)/g;
  let m: RegExpExecArray | null;
  let n = 0;
  while ((m = re.exec(body)) && n++ < 64) {
    const s = m[2] ?? m[3];
    if (s !== undefined) out.set(m[1]!, s);
    else out.set(m[1]!, printedNumber(m[4] ?? m[5]!));
  }
  return out.size ? out : null;
}

const PRINTED_NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$|^[-+]?(?:nan|inf(?:inity)?)$/i;
const HF_NOT_SCALARS = new Set(['epoch', 'global_step/max_steps', 'percentage', 'elapsed_time', 'remaining_time', 'step', 'Step', 'current_steps', 'total_steps', 'iter', 'mode']);

/** Trainer / LLaMA-Factory / ms-swift / accelerate-example log dicts, and the same as JSON lines (`trainer_log.jsonl`, swift's `logging.jsonl`, mmcv's `*.log.json`). */
function logDict(line: string, d: Map<string, number | string>, source: ProgressSource): LineReading | null {
  const mode = d.get('mode');
  if (typeof mode === 'string' && mode !== 'train') return null;
  const r: LineReading = { source };
  const scalars: Record<string, number> = {};
  // Newer ms-swift prints every value as a string (`'loss': '0.3605'`, `'epoch': '0.129'`); a quoted `'nan'` is a loss too.
  const numberOf = (v: number | string | undefined): number | undefined => (typeof v === 'number' ? v : typeof v === 'string' && PRINTED_NUMBER.test(v) ? printedNumber(v) : undefined);
  for (const [k, v] of d) {
    const num = numberOf(v);
    if (num !== undefined && !HF_NOT_SCALARS.has(k) && (Number.isFinite(num) || isLossKey(k))) scalars[k] = num;
  }
  const epoch = numberOf(d.get('epoch'));
  if (epoch !== undefined && Number.isFinite(epoch)) r.epoch = epoch;
  const gs = d.get('global_step/max_steps');
  if (typeof gs === 'string') {
    r.source = 'swift';
    const m = /^\s*(\d{1,12})\s*\/\s*(\d{1,12})\s*$/.exec(gs);
    if (m) {
      r.step = Number(m[1]);
      if (Number(m[2]) > 0) r.total = Number(m[2]);
    }
  }
  // LLaMA-Factory's `current_steps`/`total_steps`, mlx's `'Step': '20'`, mmcv's `iter`.
  const stepOf = (v: number | string | undefined): number | undefined => {
    const n = typeof v === 'string' && /^\d{1,12}$/.test(v) ? Number(v) : v;
    return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
  };
  const step = stepOf(d.get('global_step')) ?? stepOf(d.get('step')) ?? stepOf(d.get('Step')) ?? stepOf(d.get('current_steps')) ?? stepOf(d.get('iter'));
  if (r.step === undefined && step !== undefined) r.step = step;
  const total = stepOf(d.get('total_steps')) ?? stepOf(d.get('max_steps'));
  if (r.total === undefined && total !== undefined && total > 0) r.total = total;
  const rem = d.get('remaining_time');
  if (typeof rem === 'string') {
    const s = parseWords(rem) ?? parseInterval(rem);
    if (s !== undefined) r.remainingSeconds = s;
  }
  const speed = numberOf(d.get('train_speed(iter/s)'));
  const slowness = numberOf(d.get('train_speed(s/it)'));
  if (speed !== undefined && speed > 0 && Number.isFinite(speed)) r.rate = speed;
  else if (slowness !== undefined && slowness > 0 && Number.isFinite(slowness)) r.rate = 1 / slowness;
  delete scalars['train_speed(iter/s)'];
  delete scalars['train_speed(s/it)'];
  delete scalars['global_step'];
  // accelerate's examples: `epoch 0: {'accuracy': 0.75, 'f1': 0.83}`
  const ep = /^\s*epoch\s+(\d{1,6})\s*:/i.exec(line);
  if (ep && r.epoch === undefined) r.epoch = Number(ep[1]);
  if (Object.keys(scalars).length) r.scalars = scalars;
  if (r.step === undefined && r.epoch === undefined && !r.scalars) return null;
  return r;
}

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
  return null;
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

/** What a piece of a line with no bar in it says. */
function readSegment(line: string): LineReading | null {
  if (line.trim().length < 4) return null;
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
  if (line.includes(' = ') || line.includes('max_steps') || line.includes('train_iters')) {
    const h = header(line);
    if (h) return h;
  }
  if (line.includes('epoch') || line.includes('training for')) {
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
export function readLineParts(raw: string): LineReading[] {
  if (raw.length < 4 || raw.trim().length < 4) return [];
  const cut = raw.length > MAX_LINE ? raw.slice(0, MAX_LINE) : raw;
  const line = cut.includes('\x1b') ? cut.replace(ANSI, '') : cut;
  try {
    const bar = line.includes('%') ? lastBar(line) : null;
    if (!bar) {
      const r = readSegment(line);
      return r ? [r] : [];
    }
    const out: LineReading[] = [];
    const head = line.slice(0, bar.descStart);
    if (head.includes("{'") || head.includes('{"')) {
      const h = readSegment(head);
      if (h) out.push(h);
    }
    if (bar.reading) out.push(bar.reading);
    let tail = line.slice(bar.end);
    const another = tail.indexOf('%|');
    if (another >= 0) tail = tail.slice(0, another);
    const t = readSegment(tail);
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

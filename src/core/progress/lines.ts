// One log line → what it says about training progress. Each recogniser knows one library's
// printed format (tqdm's format_meter, the Hugging Face Trainer's log dicts and header,
// ms-swift's dicts, Lightning's bar, DeepSpeed's step lines) and returns null for anything else.
// Input is untrusted box output: lines are capped (core/boxLines) and every pattern is linear
// (eslint's regexp/no-super-linear-backtracking and -move over this folder).
import { MAX_BOX_LINE } from '../boxLines';

export type ProgressSource = 'tqdm' | 'hf' | 'swift' | 'lightning' | 'deepspeed' | 'generic';

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

/** A printed number, with Python's and C's spellings of the non-finite ones (`nan`, `inf`, `-inf`, `Infinity`). */
export function printedNumber(s: string): number {
  const t = s.trim().toLowerCase();
  if (t === 'nan' || t === '-nan' || t === '+nan') return NaN;
  if (t === 'inf' || t === '+inf' || t === 'infinity' || t === '+infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  return Number(t);
}

/** swift's `5m 0s`, `1h 2m 3s`, `2d 1h`. */
function parseWords(s: string): number | undefined {
  const m = /^(?:(\d{1,6})d\s?)?(?:(\d{1,6})h\s?)?(?:(\d{1,6})m\s?)?(?:(\d{1,6}(?:\.\d+)?)s)?$/.exec(s.trim());
  if (!m || !(m[1] || m[2] || m[3] || m[4])) return undefined;
  return Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
}

// Bars that are not the training loop: downloads, dataset maps, shard loading, evaluation.
const NOT_TRAINING = /download|fetch|loading|load |map|token|filter|shard|generat|convert|extract|upload|eval|valid|predict|test|infer|sanity|pack|preprocess|resolv|verif|sampl|saving|writ/i;
const TRAINING_BAR_UNITS = /^(?:it|step|steps|batch|batches|iter|iters|ba)$/;

/** A tqdm bar (format_meter with the default bar_format). */
function tqdmBar(line: string): LineReading | null {
  const pipe = line.indexOf('%|');
  if (pipe < 0) return null;
  // `{desc}: {pct}%|{bar}| {n}/{total} [{elapsed}<{remaining}, {rate}{postfix}]`
  let d = pipe;
  while (d > 0 && d > pipe - 4 && line.charCodeAt(d - 1) >= 48 && line.charCodeAt(d - 1) <= 57) d--;
  const head = d < pipe ? [line, line.slice(Math.max(0, pipe - 200, 0), d)] : null;
  const tail = /\|\s*([0-9][0-9.,]*[kMGTPEZY]?)\/([0-9][0-9.,]*[kMGTPEZY]?|\?)\s*\[(\d{1,5}d, \d[\d:]{0,12}|[\d:]{1,14}|\?)(?:<(\d{1,5}d, \d[\d:]{0,12}|[\d:]{1,14}|\?))?(?:,\s*([^\]]*))?\]?/.exec(line.slice(pipe + 2, pipe + 2 + 600));
  if (!tail) return null;
  const desc = trimColons(head?.[1] ?? '');
  const step = parseCount(tail[1]!);
  const total = tail[2] === '?' ? undefined : parseCount(tail[2]!);
  if (step === undefined) return null;
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
  if (!TRAINING_BAR_UNITS.test(unit)) return null;
  const scalars = postfixScalars(extra.slice(rate ? rate[0].length : 0));
  const lightning = /^Epoch (\d{1,6})(?:\/(\d{1,6}))?$/.exec(desc);
  if (lightning) {
    r.source = 'lightning';
    r.epoch = Number(lightning[1]);
    if (lightning[2] !== undefined && Number(lightning[2]) > 0) r.epochTotal = Number(lightning[2]);
    r.perEpoch = true;
  } else if (desc && NOT_TRAINING.test(desc) && !/train/i.test(desc)) return null;
  if (Object.keys(scalars).length) r.scalars = scalars;
  return r;
}

/** `s` without the colons and spaces around it (a bar's `desc: `), by hand: `/[:\s]+$/` is quadratic on a long run. */
function trimColons(s: string): string {
  let end = s.length;
  while (end > 0 && (s[end - 1] === ':' || /\s/.test(s[end - 1]!))) end--;
  return s.slice(0, end).trim();
}

/** `, loss=0.512, v_num=0, train_loss=0.5` or `loss: 0.512` after a bar's rate. */
function postfixScalars(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  const re = /([A-Za-z_][A-Za-z0-9_./()-]{0,40})\s*[=:]\s*(-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|[-+]?(?:nan|inf(?:inity)?)(?![a-z]))/gi;
  let m: RegExpExecArray | null;
  let n = 0;
  while ((m = re.exec(text)) && n++ < 32) {
    const v = printedNumber(m[2]!);
    if (Number.isFinite(v) || isLossKey(m[1]!)) out[m[1]!] = v;
  }
  return out;
}

/** A Python dict repr's `'key': value` pairs (numbers, quoted strings). */
export function pyDict(text: string): Map<string, number | string> | null {
  const open = text.indexOf("{'");
  if (open < 0) return null;
  const close = text.indexOf('}', open);
  const body = text.slice(open + 1, close < 0 ? undefined : close);
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

const HF_NOT_SCALARS = new Set(['epoch', 'global_step/max_steps', 'percentage', 'elapsed_time', 'remaining_time', 'step']);

/** Trainer / LLaMA-Factory / ms-swift / accelerate-example log dicts. */
function logDict(line: string): LineReading | null {
  const d = pyDict(line);
  if (!d) return null;
  const r: LineReading = { source: 'hf' };
  const scalars: Record<string, number> = {};
  for (const [k, v] of d) {
    const num = typeof v === 'number' ? v : /^-?[0-9.]+(?:e[-+]?\d+)?$/i.test(v) ? Number(v) : NaN;
    if (!HF_NOT_SCALARS.has(k) && (Number.isFinite(num) || (typeof v === 'number' && isLossKey(k)))) scalars[k] = num;
  }
  const epoch = d.get('epoch');
  if (typeof epoch === 'number' && Number.isFinite(epoch)) r.epoch = epoch;
  const gs = d.get('global_step/max_steps');
  if (typeof gs === 'string') {
    r.source = 'swift';
    const m = /^\s*(\d{1,12})\s*\/\s*(\d{1,12})\s*$/.exec(gs);
    if (m) {
      r.step = Number(m[1]);
      if (Number(m[2]) > 0) r.total = Number(m[2]);
    }
  }
  const step = d.get('global_step') ?? d.get('step');
  if (r.step === undefined && typeof step === 'number' && Number.isInteger(step) && step >= 0) r.step = step;
  const rem = d.get('remaining_time');
  if (typeof rem === 'string') {
    const s = parseWords(rem) ?? parseInterval(rem);
    if (s !== undefined) r.remainingSeconds = s;
  }
  const speed = d.get('train_speed(iter/s)');
  if (typeof speed === 'number' && speed > 0 && Number.isFinite(speed)) r.rate = speed;
  delete scalars['train_speed(iter/s)'];
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

/** A training-loss key (not eval/val/test): its non-finite value is kept, it is the sign of a diverged run. */
export function isLossKey(k: string): boolean {
  return /loss/i.test(k) && !/^(eval|val|test)/i.test(k);
}

/** What one line (already split off at \r or \n) says, or null. Never throws. */
export function readLine(raw: string): LineReading | null {
  if (raw.length < 4 || raw.trim().length < 4) return null;
  const cut = raw.length > MAX_LINE ? raw.slice(0, MAX_LINE) : raw;
  const line = cut.includes('\x1b') ? cut.replace(ANSI, '') : cut;
  try {
    if (line.includes('%|')) return tqdmBar(line);
    if (line.includes("{'")) return logDict(line);
    if (line.includes('step')) {
      const d = deepspeed(line);
      if (d) return d;
    }
    if (line.includes(' = ') || line.includes('max_steps') || line.includes('train_iters')) {
      const h = header(line);
      if (h) return h;
    }
    if (/step|iter|epoch|\bit\b/i.test(line)) return generic(line);
    return null;
  } catch {
    return null;
  }
}

export { finite };

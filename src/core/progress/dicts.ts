// Log dicts: the Hugging Face Trainer's / LLaMA-Factory's / ms-swift's / accelerate's printed
// Python dicts, and the same as JSON lines. Linear patterns only (lines.ts' note).
import { parseInterval } from './bars';
import { isLossKey, printedNumber } from './formats';
import type { LineReading, ProgressSource } from './lines';

/** swift's `5m 0s`, `1h 2m 3s`, `2d 1h`. */
function parseWords(s: string): number | undefined {
  const m = /^(?:(\d{1,6})d\s?)?(?:(\d{1,6})h\s?)?(?:(\d{1,6})m\s?)?(?:(\d{1,6}(?:\.\d+)?)s)?$/.exec(s.trim());
  if (!m || !(m[1] || m[2] || m[3] || m[4])) return undefined;
  return Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
}

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
export function logDict(line: string, d: Map<string, number | string>, source: ProgressSource): LineReading | null {
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
  const step = stepOf(d.get('global_step')) ?? stepOf(d.get('step')) ?? stepOf(d.get('Step')) ?? stepOf(d.get('current_steps')) ?? stepOf(d.get('iter')) ?? stepOf(d.get('num_updates')) ?? stepOf(d.get('train_num_updates'));
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
  delete scalars['num_updates'];
  delete scalars['train_num_updates'];
  // A dict printed as a loss's value (faceswap's `loss: {'a': 0.0078, 'b': 0.0299}`): its parts, no total; the first is the run's loss.
  if (!Object.keys(scalars).some(isLossKey)) {
    const open = Math.max(line.lastIndexOf("{'"), line.lastIndexOf('{"'));
    if (open > 0 && /\blosse?s?\s{0,2}[:=]\s{0,2}$/i.test(line.slice(Math.max(0, open - 24), open))) {
      for (const v of d.values()) {
        const num = numberOf(v);
        if (num !== undefined) {
          scalars.loss = num;
          break;
        }
      }
    }
  }
  // accelerate's examples: `epoch 0: {'accuracy': 0.75, 'f1': 0.83}`
  const ep = /^\s*epoch\s+(\d{1,6})\s*:/i.exec(line);
  if (ep && r.epoch === undefined) r.epoch = Number(ep[1]);
  if (Object.keys(scalars).length) r.scalars = scalars;
  if (r.step === undefined && r.epoch === undefined && !r.scalars) return null;
  return r;
}

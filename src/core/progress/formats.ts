// Training-log formats found in real output (test/fixtures/training-logs/real/progress) beyond
// tqdm, the Trainer's dicts and DeepSpeed: JSON-lines logs, epoch × iteration loggers (mmengine,
// mmcv, MetricLogger, fairseq, YOLO tables), Megatron's `iteration N/ M |` lines, nanoGPT-style
// `iter N: loss X`, step lines without a total, the Trainer's notebook bar printed as text.
// Each takes one already-capped line and returns null for anything else; every pattern is linear
// (eslint's regexp/no-super-linear-* rules cover this folder).
import type { LineReading } from './lines';

/** A printed number with Python's / C's / JSON's spellings of the non-finite ones. */
export function printedNumber(s: string): number {
  const t = s.trim().toLowerCase();
  if (t === 'nan' || t === '-nan' || t === '+nan') return NaN;
  if (t === 'inf' || t === '+inf' || t === 'infinity' || t === '+infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  return Number(t);
}

/** A training-loss key (not eval/val/test, not the fp16 loss scale): its non-finite value is kept, it is the sign of a diverged run. */
export function isLossKey(k: string): boolean {
  return /loss/i.test(k) && !/^(?:eval|val|test)/i.test(k) && !/scale|count/i.test(k);
}

const NUM = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$|^[-+]?(?:nan|inf(?:inity)?)$/i;

/** `key: 0.5, other=1e-3, loss: nan` pairs; the first of a repeated key wins (a line's total loss comes before its parts). */
export function keyValues(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  const re = /([A-Za-z_][A-Za-z0-9_./()-]{0,40})\s*[=:]\s*(-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|[-+]?(?:nan|inf(?:inity)?)(?![a-z]))/gi;
  let m: RegExpExecArray | null;
  let n = 0;
  while ((m = re.exec(text)) && n++ < 48) {
    if (m[1]! in out) continue;
    const v = printedNumber(m[2]!);
    if (Number.isFinite(v) || isLossKey(m[1]!)) out[m[1]!] = v;
  }
  return out;
}

/** A JSON object's flat `"key": value` pairs, read tolerantly: `NaN`/`Infinity` (Python's json.dumps writes them) and a cut line are fine. */
export function jsonPairs(text: string): Map<string, number | string> | null {
  const open = text.indexOf('{"');
  if (open < 0 || text.indexOf('}', open) < 0) return null;
  const out = new Map<string, number | string>();
  const re = /"([^"\\]{1,80})"\s*:\s*(?:"([^"\\]{0,200})"|(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|NaN|-?Infinity|nan|-?inf))/g;
  re.lastIndex = open;
  let m: RegExpExecArray | null;
  let n = 0;
  while ((m = re.exec(text)) && n++ < 96) {
    if (m[2] !== undefined) out.set(m[1]!, m[2]);
    else out.set(m[1]!, printedNumber(m[3]!));
  }
  return out.size ? out : null;
}

/** Seconds per iteration → steps per second. */
const perIteration = (seconds: number | undefined): number | undefined => (seconds !== undefined && seconds > 0 && Number.isFinite(seconds) ? 1 / seconds : undefined);

/** `0:39:15`, `1 day, 15:06:01`, `2 days, 17:52:05`. */
function etaSeconds(text: string): number | undefined {
  const m = /\beta: (?:(\d{1,5}) days?, )?(\d{1,7}):(\d{2}):(\d{2})/i.exec(text) ?? /\bETA: (?:(\d{1,5}) days?, )?(\d{1,7}):(\d{2}):(\d{2})/.exec(text);
  if (!m) return undefined;
  return Number(m[1] ?? 0) * 86400 + Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4]);
}

function withScalars(r: LineReading, rest: string, skip: string[] = []): LineReading {
  const s = keyValues(rest);
  for (const k of skip) delete s[k];
  if (Object.keys(s).length) r.scalars = s;
  return r;
}

/**
 * mmengine `Epoch(train)  [83][ 150/2693]` / `Iter(train) [  50/80000]`, mmcv 1.x `Epoch [1][50/5808]` /
 * `Iter [200/21600]`, and the DETR/MAE MetricLogger's `Epoch: [2]  [1480/1504]` (0-based epochs).
 */
export function epochIterLogger(line: string): LineReading | null {
  let m = /\bEpoch(?:\(train\))?\s*\[\s*(\d{1,6})\s*\]\s*\[\s*(\d{1,12})\s*\/\s*(\d{1,12})\s*\]/.exec(line);
  if (m) {
    const r: LineReading = { source: 'mmengine', epoch: Number(m[1]), step: Number(m[2]), total: Number(m[3]), perEpoch: true, epochBase: 1 };
    return timed(withScalars(r, line.slice(m.index + m[0].length), ['eta', 'time', 'data_time', 'memory']), line);
  }
  m = /\bIter(?:\(train\))?\s*\[\s*(\d{1,12})\s*\/\s*(\d{1,12})\s*\]/.exec(line);
  if (m) {
    const r: LineReading = { source: 'mmengine', step: Number(m[1]), total: Number(m[2]) };
    return timed(withScalars(r, line.slice(m.index + m[0].length), ['eta', 'time', 'data_time', 'memory']), line);
  }
  m = /\bEpoch: \[(\d{1,6})\]\s+\[\s*(\d{1,12})\/(\d{1,12})\]/.exec(line);
  if (m) {
    const r: LineReading = { source: 'mmengine', epoch: Number(m[1]), step: Number(m[2]), total: Number(m[3]), perEpoch: true, epochBase: 0 };
    return timed(withScalars(r, line.slice(m.index + m[0].length), ['time', 'data', 'max']), line);
  }
  return null;
}

function timed(r: LineReading, line: string): LineReading {
  const t = /\btime: (\d{1,6}\.\d{1,6})/.exec(line);
  const rate = perIteration(t ? Number(t[1]) : undefined);
  if (rate !== undefined) r.rate = rate;
  const eta = etaSeconds(line);
  if (eta !== undefined) r.remainingSeconds = eta;
  return r;
}

/** Megatron-LM / GPT-NeoX `iteration      125/  250000 | … | lm loss: 2.477393E+00 | loss scale: 1.0 |`. */
export function megatron(line: string): LineReading | null {
  const m = /\biteration\s+(\d{1,12})\s*\/\s*(\d{1,12})\s*\|/.exec(line);
  if (!m) return null;
  const r: LineReading = { source: 'megatron', step: Number(m[1]) };
  if (Number(m[2]) > 0) r.total = Number(m[2]);
  const scalars: Record<string, number> = {};
  let n = 0;
  for (const part of line.split('|')) {
    if (n++ > 48) break;
    const colon = part.lastIndexOf(':');
    if (colon < 0) continue;
    const name = part.slice(0, colon).trim();
    const value = part.slice(colon + 1).trim();
    if (!name || name.length > 60 || !NUM.test(value)) continue;
    const v = printedNumber(value);
    if (Number.isFinite(v) || isLossKey(name)) scalars[name] = v;
  }
  const ms = scalars['elapsed time per iteration (ms)'];
  const rate = perIteration(ms !== undefined ? ms / 1000 : undefined);
  if (rate !== undefined) r.rate = rate;
  if (Object.keys(scalars).length) r.scalars = scalars;
  return r;
}

/** fairseq's legacy progress `| epoch 011  3000 / 8223 loss=0.75 (1.35), wps=963, …` (not its `valid on` lines). */
export function fairseq(line: string): LineReading | null {
  const m = /^\| epoch (\d{1,6})\s+(\d{1,12}) \/ (\d{1,12}) /.exec(line);
  if (!m) return null;
  const r: LineReading = { source: 'generic', epoch: Number(m[1]), step: Number(m[2]), total: Number(m[3]), perEpoch: true, epochBase: 1 };
  return withScalars(r, line.slice(m[0].length));
}

/** char-rnn's `530/9500 (epoch 2.789), train_loss = 1.87207224, …`. */
export function charRnn(line: string): LineReading | null {
  const m = /^(\d{1,12})\/(\d{1,12}) \(epoch (\d{1,6}(?:\.\d{1,6})?)\), train_loss = (-?\d{1,12}(?:\.\d{1,12})?|nan|-?inf)/.exec(line);
  if (!m) return null;
  return { source: 'generic', step: Number(m[1]), total: Number(m[2]), epoch: Number(m[3]), scalars: { train_loss: printedNumber(m[4]!) } };
}

/** nanoGPT `iter 240: loss 1.6524, time 895.31ms`, mlx `Iter 20: Train loss 3.142`, darkflow `step 123 - loss 105.5`. */
export function iterLoss(line: string): LineReading | null {
  const m = /\b(?:[Ii]ter (\d{1,12}): (?:Train )?loss|step (\d{1,12}) - loss) (-?\d{1,12}(?:\.\d{1,16})?(?:e[-+]?\d+)?|nan|-?inf)/.exec(line);
  if (!m) return null;
  const r: LineReading = { source: 'generic', step: Number(m[1] ?? m[2]), scalars: { loss: printedNumber(m[3]!) } };
  const t = /, time (\d{1,9}(?:\.\d{1,6})?)ms/.exec(line.slice(m.index + m[0].length));
  const rate = perIteration(t ? Number(t[1]) / 1000 : undefined);
  if (rate !== undefined) r.rate = rate;
  return r;
}

/** The Trainer's notebook bar printed as text: `[ 22/290 02:50 < 38:04, 0.12 it/s, Epoch 0.36/5]`. */
export function notebookBar(line: string): LineReading | null {
  const m = /\[\s*(\d{1,12})\/(\d{1,12}) (\d[\d:]{0,12}) < (\d[\d:]{0,12}), (\d{1,9}(?:\.\d{1,9})?) it\/s(?:, Epoch (\d{1,6}(?:\.\d{1,6})?)\/(\d{1,6}))?/.exec(line);
  if (!m) return null;
  const r: LineReading = { source: 'hf', step: Number(m[1]), total: Number(m[2]) };
  const [a, b, c] = m[4]!.split(':').map(Number);
  const rem = c === undefined ? a! * 60 + b! : a! * 3600 + b! * 60 + c;
  if (Number.isFinite(rem)) r.remainingSeconds = rem;
  if (Number(m[5]) > 0) r.rate = Number(m[5]);
  if (m[6] !== undefined) {
    r.epoch = Number(m[6]);
    if (Number(m[7]) > 0) r.epochTotal = Number(m[7]);
  }
  return r;
}

/** kohya sd-scripts / musubi-tuner `epoch is incremented. current_epoch: 6, epoch: 7`; Ultralytics / MetricLogger `Start(ing) training for 3 epochs`. */
export function epochNotice(line: string): LineReading | null {
  let m = /\bepoch is incremented\. current_epoch: \d{1,6}, epoch: (\d{1,6})/.exec(line);
  if (m) return { source: 'generic', epoch: Number(m[1]) };
  m = /\bStart(?:ing)? training for (\d{1,6}) epochs/.exec(line);
  if (m && Number(m[1]) > 0) return { source: 'generic', headerEpochs: Number(m[1]) };
  // A line that says only which epoch it is: nnU-Net's `epoch:  3`, torch-ngp's `==> Finished Epoch 12.`, `Starting epoch 4`.
  m = /^[=>#*\s-]{0,8}(?:(?:start|starting|begin|beginning|finished|finish|end|ended|training|train|running)\s{1,4}){0,3}epoch(?:\s{0,4}[:=#])?\s{0,4}(\d{1,6})\s{0,4}[.!]?\s{0,4}$/i.exec(line);
  if (m) return { source: 'generic', epoch: Number(m[1]) };
  return null;
}

/** A step printed without a total beside a training loss: torchtitan `step: 14  loss:  3.24405`, `[Rank 1] Step 4 loss=-3.98`, `Epoch: 0, step: 9, loss: nan`. */
export function stepWithLoss(line: string): LineReading | null {
  if (/\b(?:eval|val|valid|validation|test)\b/i.test(line)) return null;
  const s = /\b(?:global[_ ])?step\s*(?:[:=]\s*)?(\d{1,12})\b/i.exec(line);
  if (!s) return null;
  const rest = line.slice(s.index + s[0].length);
  if (/^\s*\//.test(rest)) return null;
  const scalars = keyValues(rest);
  if (!Object.keys(scalars).some(isLossKey)) return null;
  const r: LineReading = { source: 'generic', step: Number(s[1]), scalars };
  const e = /\bepoch\s*(?:[:=]\s*)?(\d{1,6})\b/i.exec(line.slice(0, s.index));
  if (e && !/^\s*\//.test(line.slice(e.index + e[0].length))) r.epoch = Number(e[1]);
  return r;
}

const YOLO_END_COLUMNS = new Set(['instances', 'labels', 'targets', 'size', 'img_size']);

/** An Ultralytics / YOLOv5 table header: `Epoch  GPU_mem  box_loss  cls_loss  dfl_loss  Instances  Size` → its loss columns. */
export function yoloHeader(line: string): LineReading | null {
  const t = line.trim().split(/\s+/, 24);
  if (t.length < 4 || t[0] !== 'Epoch' || t[1]!.toLowerCase() !== 'gpu_mem') return null;
  const columns: string[] = [];
  for (const c of t.slice(2)) {
    if (YOLO_END_COLUMNS.has(c.toLowerCase())) break;
    columns.push(c);
  }
  return columns.length ? { source: 'yolo', columns } : null;
}

/**
 * An Ultralytics / YOLOv5 epoch row, the desc of that epoch's bar: `261/300  2.95G  0.3137  0.3809  0.7961  3  640`
 * (epoch/epochs, GPU memory, the losses, instances, image size). The bar counts the epoch's batches.
 */
export function yoloRow(desc: string): Pick<LineReading, 'epoch' | 'epochTotal' | 'losses'> | null {
  const t = desc.trim().split(/\s+/, 24);
  if (t.length < 5) return null;
  const ep = /^(\d{1,6})\/(\d{1,6})$/.exec(t[0]!);
  if (!ep || !/^\d{1,6}(?:\.\d{1,4})?[KMGT]?$/.test(t[1]!)) return null;
  if (!/^\d{1,9}$/.test(t[t.length - 1]!) || !/^\d{1,9}$/.test(t[t.length - 2]!)) return null;
  const losses: number[] = [];
  for (const c of t.slice(2, -2)) {
    if (!NUM.test(c)) return null;
    losses.push(printedNumber(c));
  }
  if (!losses.length) return null;
  return { epoch: Number(ep[1]), epochTotal: Number(ep[2]), losses };
}

/** The torchtune bar's desc `1|60|Loss: 1.010416030883789` (1-based epoch, global step, loss). */
export function torchtuneDesc(desc: string): Pick<LineReading, 'epoch' | 'scalars'> | null {
  const m = /(?:^|:)(\d{1,6})\|(\d{1,12})\|Loss: (-?\d{1,12}(?:\.\d{1,20})?(?:e[-+]?\d+)?|nan|-?inf)$/.exec(desc);
  if (!m) return null;
  return { epoch: Number(m[1]), scalars: { loss: printedNumber(m[3]!) } };
}

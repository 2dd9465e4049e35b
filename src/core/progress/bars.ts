// tqdm's bars (format_meter's default bar_format, with or without its glyphs) and the
// Lightning / YOLO / torchtune descs printed before them. Linear patterns only (lines.ts' note).
import { isLossKey, keyValues, torchtuneDesc, yoloRow } from './formats';
import { generalLine } from './general';
import type { LineReading } from './lines';

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

// Bars that are not the training loop: downloads, dataset maps, shard loading, evaluation.
const NOT_TRAINING = /download|fetch|loading|load |map|token|filter|shard|generat|convert|extract|upload|eval|valid|predict|test|infer|sanity|pack|preprocess|resolv|verif|sampl|saving|writ/i;
const TRAINING_BAR_UNITS = /^(?:it|step|steps|batch|batches|iter|iters|ba)$/;

/** One bar on a line: its reading (null when it is not the training loop's), where its desc starts and where it ends. */
export interface Bar {
  reading: LineReading | null;
  descStart: number;
  end: number;
}

// The bracket may be missing: a bar cut at the terminal width, a custom bar_format (`| 15/144`), or
// YOLOv5's `| 1849/1849 13:15` with the elapsed time and no rate.
const BAR_TAIL = /\|\s*([0-9][0-9.,]*[kMGTPEZY]?)\/([0-9][0-9.,]*[kMGTPEZY]?|\?)(?:\s*\[(\d{1,5}d, \d[\d:]{0,12}|[\d:]{1,14}|\?)(?:<(\d{1,5}d, \d[\d:]{0,12}|[\d:]{1,14}|\?))?(?:,\s*([^\]]*))?\]?| \d{1,7}:\d\d(?::\d\d)?(?![\d:]))?/;
// A bar printed without its glyphs (Colab, `ascii` off in a pipe): `Epoch 0:  93% 1586/1702 [12:50<00:56, …]`.
const BARE_TAIL = /^ +([0-9][0-9.,]*[kMGTPEZY]?)\/([0-9][0-9.,]*[kMGTPEZY]?|\?) ?\[(\d{1,5}d, \d[\d:]{0,12}|[\d:]{1,14}|\?)(?:<(\d{1,5}d, \d[\d:]{0,12}|[\d:]{1,14}|\?))?(?:,\s*([^\]]*))?\]?/;
const MAX_BARS_LOOKED_AT = 64;
/**
 * The last training bar on a line (tqdm's format_meter, default bar_format). Several redraws joined on
 * one line (a pasted or `nohup` log lost their \r) read as the last of them; a bar without glyphs too.
 */
export function lastBar(line: string): Bar | null {
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
  else if (desc && !Object.keys(scalars).some(isLossKey)) {
    // The numbers of a tqdm description: `Epoch 2, Step 5, Loss: 1.1681:  10%|…| 15/144` (the bar counts; the desc says the loss and epoch).
    const d = generalLine(desc);
    if (d?.scalars?.loss !== undefined) scalars.loss = d.scalars.loss;
    if (d?.epoch !== undefined) r.epoch = d.epoch;
  }
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

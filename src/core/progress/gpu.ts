// One line of `nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu
// --format=csv,noheader,nounits -lms N` and the window of samples the GPU monitor draws, with
// the idle time that billed. Pure: the stream adapter feeds lines and times in.

export const GPU_QUERY_FIELDS = 'index,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu';
export const gpuStreamCommand = (intervalMs: number) => `nvidia-smi --query-gpu=${GPU_QUERY_FIELDS} --format=csv,noheader,nounits -lms ${Math.max(50, Math.floor(intervalMs))}`;

export interface GpuSample {
  index: number;
  /** Percent; null where the driver reports [N/A] (MIG). */
  util: number | null;
  /** MiB. */
  memUsed: number | null;
  memTotal: number | null;
  /** Watts. */
  power: number | null;
  /** °C. */
  temp: number | null;
}

/** GPUs per box the monitor follows (indices 0..MAX_GPUS-1): the largest rented machines have 8 or 16. */
export const MAX_GPUS = 32;

/**
 * Physical ranges of what the stream reports; a value outside (or Infinity, NaN, 1e309) is
 * refused as null, so a forged line can never reach the chart as a number it cannot draw.
 * Memory up to 1 TiB (the largest card has 288 GB), power up to 5 kW (a superchip draws 2.7 kW).
 */
export const GPU_VALUE_RANGES = {
  util: { min: 0, max: 100 },
  memUsed: { min: 0, max: 1024 * 1024 },
  memTotal: { min: 0, max: 1024 * 1024 },
  power: { min: 0, max: 5000 },
  temp: { min: -50, max: 200 },
} as const;

const num = (s: string | undefined, range: { min: number; max: number }): number | null => {
  const t = (s ?? '').trim();
  if (t.length > 24 || !/^-?\d+(?:\.\d+)?$/.test(t)) return null;
  const v = Number(t);
  return Number.isFinite(v) && v >= range.min && v <= range.max ? v : null;
};

/** A sample, or null for anything that is not one of these lines (headers, errors, garbage). */
export function parseGpuLine(line: string): GpuSample | null {
  if (line.length > 400) return null;
  const f = line.split(',');
  if (f.length !== 6) return null;
  const index = num(f[0], { min: 0, max: MAX_GPUS - 1 });
  if (index === null || !Number.isInteger(index)) return null;
  const r = GPU_VALUE_RANGES;
  return { index, util: num(f[1], r.util), memUsed: num(f[2], r.memUsed), memTotal: num(f[3], r.memTotal), power: num(f[4], r.power), temp: num(f[5], r.temp) };
}

/**
 * Adds `s` to one GPU's time-ordered list, keeping at most one sample per second (a second
 * sample in the same second replaces the first; one from before the last is dropped) and only
 * the last `windowSeconds`: never more than windowSeconds + 1 entries, however fast a box prints.
 * Returns whether the list changed. Shared by the extension host's window and the webview.
 */
export function addCapped<T extends { t: number }>(list: T[], s: T, windowSeconds: number): boolean {
  if (!Number.isFinite(s.t)) return false;
  const last = list[list.length - 1];
  if (last && s.t < last.t) return false;
  if (last && Math.floor(s.t) === Math.floor(last.t)) list[list.length - 1] = s;
  else list.push(s);
  const cutoff = s.t - windowSeconds;
  let drop = 0;
  while (drop < list.length && list[drop]!.t < cutoff) drop++;
  const max = Math.floor(windowSeconds) + 1;
  drop = Math.max(drop, list.length - max);
  if (drop > 0) list.splice(0, drop);
  return true;
}

export interface TimedSample extends GpuSample {
  t: number;
}

/** The last `windowSeconds` of samples per GPU, and the idle seconds seen (every GPU under the threshold). */
export class GpuWindow {
  private readonly byGpu = new Map<number, TimedSample[]>();
  idleSeconds = 0;
  private lastTickAt: number | null = null;
  private tickIdle = true;
  private tickAt: number | null = null;

  constructor(
    readonly windowSeconds = 30 * 60,
    readonly idleUtilPct = 10,
    /** A gap longer than this (a dropped stream) is not counted as idle time. */
    readonly maxGapSeconds = 10,
  ) {}

  /** Whether the sample was kept (false: a GPU past MAX_GPUS, or a time before the last). */
  add(s: GpuSample, t: number): boolean {
    // One tick = the samples printed together (GPU 0 starts a new one).
    if (s.index === 0 || this.tickAt === null) this.closeTick(t);
    if (!(s.util !== null && s.util < this.idleUtilPct)) this.tickIdle = false;
    let list = this.byGpu.get(s.index);
    if (!list) {
      if (this.byGpu.size >= MAX_GPUS) return false;
      this.byGpu.set(s.index, (list = []));
    }
    return addCapped(list, { ...s, t }, this.windowSeconds);
  }

  private closeTick(t: number): void {
    if (this.tickAt !== null && this.lastTickAt !== null && this.tickIdle) {
      const gap = this.tickAt - this.lastTickAt;
      if (gap > 0 && gap <= this.maxGapSeconds) this.idleSeconds += gap;
    }
    if (this.tickAt !== null) this.lastTickAt = this.tickAt;
    this.tickAt = t;
    this.tickIdle = true;
  }

  gpus(): number[] {
    return [...this.byGpu.keys()].sort((a, b) => a - b);
  }

  samples(index: number, now?: number): TimedSample[] {
    const list = this.byGpu.get(index) ?? [];
    if (now === undefined) return list;
    const cutoff = now - this.windowSeconds;
    return list.filter((s) => s.t >= cutoff);
  }
}

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

const num = (s: string | undefined): number | null => {
  const t = (s ?? '').trim();
  if (!/^-?\d+(?:\.\d+)?$/.test(t)) return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : null;
};

/** A sample, or null for anything that is not one of these lines (headers, errors, garbage). */
export function parseGpuLine(line: string): GpuSample | null {
  if (line.length > 400) return null;
  const f = line.split(',');
  if (f.length !== 6) return null;
  const index = num(f[0]);
  if (index === null || !Number.isInteger(index) || index < 0 || index > 1024) return null;
  return { index, util: num(f[1]), memUsed: num(f[2]), memTotal: num(f[3]), power: num(f[4]), temp: num(f[5]) };
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

  add(s: GpuSample, t: number): void {
    // One tick = the samples printed together (GPU 0 starts a new one).
    if (s.index === 0 || this.tickAt === null) this.closeTick(t);
    if (!(s.util !== null && s.util < this.idleUtilPct)) this.tickIdle = false;
    let list = this.byGpu.get(s.index);
    if (!list) this.byGpu.set(s.index, (list = []));
    list.push({ ...s, t });
    const cutoff = t - this.windowSeconds;
    let drop = 0;
    while (drop < list.length && list[drop]!.t < cutoff) drop++;
    if (drop > 64 || (drop > 0 && list.length > 4096)) list.splice(0, drop);
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

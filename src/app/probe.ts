// Check GPU as both front ends run it: the box probe (nvidia-smi + torch + disks), the
// doctor's verdict, the GPUs in the form the instance list keeps, and whether they are the
// card the user pays for.
import type { Diagnosis } from '../core/doctor';
import type { Instance, ProbeGpu } from '../core/instances';
import { checkRentedCard, type RentedCardCheck } from '../core/rentedCard';
import type { RemoteConnection } from '../remote/connection';
import { probeBox, type BoxProbe } from '../remote/probe';
import { checkRemoteDir } from './sync';

const MIB = 1024 * 1024;
const MAX_GPUS = 64;

export interface InstanceProbe {
  box: BoxProbe;
  diagnosis: Diagnosis;
  gpus: ProbeGpu[];
  /** What the instance list records. */
  lastProbe: NonNullable<Instance['lastProbe']>;
  /** The box against the rented card; undefined in no-GPU mode (no GPU is expected there). */
  card: RentedCardCheck | undefined;
}

/** An absolute path of at most 500 characters without control characters or `..`. */
function boxPath(p: string): boolean {
  return p.length <= 500 && checkRemoteDir(p) === undefined;
}

export function verdictLevel(d: Diagnosis): 'ok' | 'warning' | 'error' {
  return d.verdict === 'ok' ? 'ok' : d.verdict === 'unknown' || d.verdict === 'no-torch' ? 'warning' : 'error';
}

export async function probeInstance(conn: RemoteConnection, inst: Pick<Instance, 'card' | 'gpuCount'> & { state: string | undefined }, now: number, signal?: AbortSignal): Promise<InstanceProbe> {
  const box = await probeBox(conn, signal ? { signal } : {});
  const gpus: ProbeGpu[] = box.smi.ok
    ? box.smi.report.gpus.slice(0, MAX_GPUS).map((g, i) => ({
        index: g.index ?? i,
        name: (g.name ?? '?').slice(0, 200),
        ...(g.memoryTotalMiB !== null ? { memoryTotalBytes: g.memoryTotalMiB * MIB } : {}),
        ...(g.memoryUsedMiB !== null ? { memoryUsedBytes: g.memoryUsedMiB * MIB } : {}),
        ...(g.utilizationGpuPct !== null ? { utilizationPct: Math.min(100, Math.max(0, g.utilizationGpuPct)) } : {}),
      }))
    : [];
  const d = box.diagnosis;
  const lastProbe: NonNullable<Instance['lastProbe']> = {
    at: now,
    gpus,
    ...(d.driverVersion ? { driverVersion: d.driverVersion.slice(0, 40) } : {}),
    ...(d.driverMaxCuda ? { driverMaxCuda: d.driverMaxCuda.slice(0, 20) } : {}),
    verdict: verdictLevel(d),
    // Where the sync prompt points and what `~` means there: box text, kept only as a plain absolute path.
    ...(boxPath(box.home) ? { home: box.home } : {}),
    ...(boxPath(box.dataDir.path) ? { dataDir: { path: box.dataDir.path, source: box.dataDir.source } } : {}),
  };
  // No-GPU mode has no GPU by design; an nvidia-smi that failed says nothing about the card.
  const card = inst.state === 'noGpu' || (!box.smi.ok && gpus.length === 0 && d.verdict !== 'no-gpu') ? undefined : checkRentedCard(inst.card, inst.gpuCount, gpus);
  return { box, diagnosis: d, gpus, lastProbe, card };
}

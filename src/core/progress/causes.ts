// Why a run ended, read from the last lines of its log and its exit code. Returns codes; the
// front ends put them into words (with the field report's remedies for CUDA out of memory:
// a smaller batch, gradient checkpointing, 4-bit QLoRA).

import { MAX_BOX_LINE } from '../boxLines';

export type EndCause =
  | { kind: 'cudaOom'; line: string }
  | { kind: 'noKernelImage'; line: string }
  | { kind: 'cudaInit'; line: string }
  | { kind: 'nccl'; line: string }
  | { kind: 'killed'; line: string | null }
  | { kind: 'diskFull'; line: string }
  | { kind: 'hostOom'; line: string };

const MAX_SCAN = 256 * 1024;

// Order matters: the first match in this list wins (OOM before the generic CUDA error it causes).
const RULES: { kind: Exclude<EndCause['kind'], 'killed'>; re: RegExp }[] = [
  { kind: 'cudaOom', re: /CUDA out of memory|torch\.(?:cuda\.)?OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED|cudaErrorMemoryAllocation|CUDA error: out of memory|HIP out of memory/ },
  { kind: 'noKernelImage', re: /no kernel image is available for execution on the device|is not compatible with the current PyTorch installation|sm_\d+ is not compatible/ },
  { kind: 'cudaInit', re: /CUDA driver version is insufficient|CUDA initialization: |cudaErrorInitializationError|Found no NVIDIA driver|NVIDIA driver on your system is too old|cudaGetDeviceCount\(\) returned|CUDA error: (?:unknown error|initialization error|no CUDA-capable device)|RuntimeError: No CUDA GPUs are available/ },
  { kind: 'nccl', re: /NCCL error|ncclSystemError|ncclInternalError|ncclUnhandledCudaError|ncclRemoteError|NCCL WARN|ProcessGroupNCCL.*(?:Watchdog caught|timeout|Timeout)|DistBackendError/ },
  { kind: 'diskFull', re: /No space left on device|ENOSPC|Disk quota exceeded|\[Errno 28\]|write error: No space/ },
  { kind: 'hostOom', re: /Out of memory: Killed process|oom-kill|MemoryError\b|Cannot allocate memory|DataLoader worker \(pid[^)]*\) is killed by signal: Killed/ },
];

/** Recognised cause of a run's end, or null. `exitCode` 137 (KILL) / -9 with no other sign = Killed. */
export function detectCause(logTail: string, exitCode: number | null, opts: { stopped?: boolean } = {}): EndCause | null {
  if (exitCode === 0) return null;
  const text = logTail.length > MAX_SCAN ? logTail.slice(-MAX_SCAN) : logTail;
  const lines = text.split(/\r?\n|\r/);
  for (const rule of RULES) {
    // The last matching line is the one nearest the end.
    for (let i = lines.length - 1; i >= 0; i--) {
      const l = lines[i]!;
      if (l.length > MAX_BOX_LINE) continue;
      if (rule.re.test(l)) return { kind: rule.kind, line: l.trim().slice(0, 300) } as EndCause;
    }
  }
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - 20); i--) {
    const l = lines[i]!.trim();
    if (/(?:^|[\]\s:])Killed$|line \d+: +\d+ Killed|Killed\s+\S.*python/.test(l)) return { kind: 'killed', line: l.slice(0, 300) };
  }
  if (!opts.stopped && (exitCode === 137 || exitCode === -9)) return { kind: 'killed', line: null };
  return null;
}

/** The last `n` non-empty lines, tqdm redraws collapsed to their final state. */
export function lastLines(text: string, n = 5, maxChars = 400): string[] {
  const out: string[] = [];
  const lines = text.slice(-MAX_SCAN).split('\n');
  for (let i = lines.length - 1; i >= 0 && out.length < n; i--) {
    const parts = lines[i]!.split('\r');
    const l = (parts.filter((p) => p.trim() !== '').pop() ?? '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').trimEnd();
    if (l.trim() !== '') out.unshift(l.length > maxChars ? l.slice(0, maxChars) + '…' : l);
  }
  return out;
}

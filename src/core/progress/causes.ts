// Why a run ended, read from the last lines of its log and its exit code. Returns codes and the
// line that says it; the words and remedies are in causeText.ts (English and Simplified Chinese,
// for both front ends). Tested on real tails: test/fixtures/training-logs/real/failures/.

import { MAX_BOX_LINE } from '../boxLines';

export type EndCause =
  | { kind: 'cudaOom'; line: string }
  | { kind: 'noKernelImage'; line: string }
  | { kind: 'cudaInit'; line: string }
  | { kind: 'cpuTorch'; line: string }
  | { kind: 'illegalAccess'; line: string }
  | { kind: 'nccl'; line: string }
  | { kind: 'killed'; line: string | null }
  | { kind: 'diskFull'; line: string }
  | { kind: 'hostOom'; line: string };

export type EndCauseKind = EndCause['kind'];
export const END_CAUSE_KINDS: readonly EndCauseKind[] = ['cudaOom', 'noKernelImage', 'cudaInit', 'cpuTorch', 'diskFull', 'hostOom', 'illegalAccess', 'nccl', 'killed'];

const MAX_SCAN = 256 * 1024;
/** The quoted line is at most this long: a longer line is quoted around the words that matched. */
export const MAX_CAUSE_LINE = 300;

// Order matters: the first kind with a match wins. The root cause comes before what it sets off
// on the other ranks (a rank killed for host memory or a full disk leaves the others in an NCCL
// timeout; an OOM surfaces as a generic CUDA error). Within a kind the patterns go from the line
// a person would quote (the message) to weaker signs, and the last line matching the strongest
// pattern present is quoted.
const RULES: { kind: Exclude<EndCauseKind, 'killed'>; res: RegExp[] }[] = [
  {
    kind: 'cudaOom',
    res: [
      /CUDA out of memory/,
      /torch\.(?:cuda\.)?OutOfMemoryError/,
      // PaddlePaddle: `ResourceExhaustedError:` then `Out of memory error on GPU 0. Cannot allocate 3.125000GB memory on GPU 0, …`.
      /Out of memory error on GPU \d/,
      /CUBLAS_STATUS_ALLOC_FAILED|cudaErrorMemoryAllocation|CUDA error: out of memory|HIP out of memory|ResourceExhaustedError|memory::allocation::BadAlloc/,
    ],
  },
  { kind: 'noKernelImage', res: [/no kernel image is available for execution on the device/, /is not compatible with the current PyTorch installation|sm_\d+ is not compatible/] },
  {
    kind: 'cudaInit',
    res: [
      /NVIDIA driver on your system is too old|CUDA driver version is insufficient|Found no NVIDIA driver/,
      /CUDA initialization: |cudaErrorInitializationError|cudaGetDeviceCount\(\) returned|CUDA error: (?:unknown error|initialization error|no CUDA-capable device)|No CUDA GPUs are available/,
    ],
  },
  // A CPU-only torch wheel on a GPU box: `AssertionError: Torch not compiled with CUDA enabled` at the first `.cuda()` / `.to('cuda')`.
  { kind: 'cpuTorch', res: [/Torch not compiled with CUDA enabled/] },
  { kind: 'diskFull', res: [/No space left on device|Disk quota exceeded|ENOSPC|\[Errno 28\]|os error 28|StorageFull/, /PytorchStreamWriter failed writing file|write error: No space/] },
  {
    kind: 'hostOom',
    res: [
      /Out of memory: Killed process|oom-kill|oom_kill_process/,
      /DataLoader worker \(pid[^)]{0,40}\) is killed by signal: Killed/,
      // Launchers reporting a child killed by SIGKILL: torchrun, DeepSpeed, accelerate / torch.distributed.launch.
      /Signal 9 \(SIGKILL\) received by PID/i,
      /exitcode\s*: -9\b|exits with return code = -9\b|died with <Signals\.SIGKILL: 9>|returned non-zero exit status -9\b/,
      /MemoryError\b|Cannot allocate memory/,
    ],
  },
  { kind: 'illegalAccess', res: [/an illegal memory access was encountered|cudaErrorIllegalAddress/] },
  {
    kind: 'nccl',
    res: [
      /Watchdog caught collective operation timeout/,
      /NCCL error in:|NCCL error: /,
      /ncclUnhandledCudaError|ncclSystemError|ncclInternalError|ncclRemoteError|ncclInvalidUsage|DistBackendError/,
      // Literals only: `ProcessGroupNCCL.*timeout` was quadratic on a long line that repeats the name.
      /NCCL error|NCCL WARN|detected by watchdog|Some NCCL operations have failed or timed out/,
    ],
  },
];

/** A stack frame, not a message: Python's `File "…", line N` and C++'s `frame #3: c10d::…`. */
const FRAME = /^(?:\[rank\d+\]: *)?(?:File "|frame #\d+:)/;
/**
 * The NCCL watchdog's own C++ frames (`c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout`, `ncclCommWatchdog`,
 * `Exception raised from checkTimeout at …ProcessGroupNCCL.cpp`): a tail cut to these frames, with its message
 * scrolled away, still ended in an NCCL timeout. Read only when no message line names a cause.
 */
const NCCL_FRAMES = /WorkNCCL::checkTimeout|ProcessGroupNCCL::ncclCommWatchdog|ProcessGroupNCCL::watchdogHandler|Exception raised from checkTimeout at/;

function quote(line: string, re: RegExp): string {
  const t = line.trim();
  if (t.length <= MAX_CAUSE_LINE) return t;
  const at = re.exec(t)?.index ?? 0;
  const start = Math.max(0, Math.min(at - 80, t.length - MAX_CAUSE_LINE));
  return t.slice(start, start + MAX_CAUSE_LINE);
}

/** Recognised cause of a run's end, or null. `exitCode` 137 (KILL) / -9 with no other sign = Killed. */
export function detectCause(logTail: string, exitCode: number | null, opts: { stopped?: boolean } = {}): EndCause | null {
  if (exitCode === 0) return null;
  const text = logTail.length > MAX_SCAN ? logTail.slice(-MAX_SCAN) : logTail;
  const all = text.split(/\r?\n|\r/);
  const lines = all.filter((l) => l.length <= MAX_BOX_LINE && !FRAME.test(l.trimStart()));
  for (const rule of RULES) {
    for (const re of rule.res) {
      // The last matching line is the one nearest the end.
      for (let i = lines.length - 1; i >= 0; i--) {
        const l = lines[i]!;
        if (re.test(l)) return { kind: rule.kind, line: quote(l, re) } as EndCause;
      }
    }
  }
  for (let i = all.length - 1, n = 0; i >= 0 && n < 400; i--, n++) {
    const l = all[i]!;
    if (l.length <= MAX_BOX_LINE && NCCL_FRAMES.test(l)) return { kind: 'nccl', line: quote(l, NCCL_FRAMES) };
  }
  // Bounded repeats: a line that repeats `Killed x` or `DataLoader worker (pid` must not go quadratic.
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - 20); i--) {
    const l = lines[i]!.trim();
    if (/(?:^|[\]\s:])Killed$|line \d+: +\d+ Killed|Killed[ \t]{1,40}(?:[^\s/]{0,40}\/){0,6}python|\bexit (?:code|status) (?:137|247)\b/.test(l)) return { kind: 'killed', line: l.slice(0, MAX_CAUSE_LINE) };
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

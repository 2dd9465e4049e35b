// One idle probe of a box: nvidia-smi plus the sizes of the files in the job folders, in one
// command, turned into the sample core/guards/idle judges.
import { parseNvidiaSmi } from '../../core/smi';
import type { IdleSample } from '../../core/guards/idle';
import { JOBS_DIR } from '../jobs';
import { boxPath, type BoxSession } from './session';

const LOGS_MARK = '@@gpu-rent-logs@@';
const END_MARK = '@@gpu-rent-end@@';

/** Folders (on the box) whose files count as job progress by default: the job launcher's folder. */
export const DEFAULT_JOB_DIRS = [`~/${JOBS_DIR}`];

export function idleProbeScript(watchDirs: readonly string[]): string {
  const dirs = watchDirs.map(boxPath).join(' ');
  return [
    'nvidia-smi 2>&1',
    `echo '${LOGS_MARK}'`,
    // Sizes of every file in the watched folders; a missing folder is simply no jobs.
    `for d in ${dirs || '""'}; do [ -d "$d" ] || continue; find "$d" -type f -exec sh -c 'for f do printf "%s\\t%s\\n" "$(wc -c < "$f" | tr -d " ")" "$f"; done' sh {} + || exit 7; done`,
    `echo '${END_MARK}'`,
  ].join('\n');
}

/** Parses the probe's output; logs are null when the listing did not finish. */
export function parseIdleProbe(stdout: string, at: number): IdleSample {
  const i = stdout.indexOf(`${LOGS_MARK}\n`);
  const smiText = i === -1 ? stdout : stdout.slice(0, i);
  let logSizes: Record<string, number> | null = null;
  if (i !== -1) {
    const rest = stdout.slice(i + LOGS_MARK.length + 1);
    const end = rest.indexOf(END_MARK);
    if (end !== -1) {
      logSizes = {};
      for (const line of rest.slice(0, end).split('\n')) {
        const tab = line.indexOf('\t');
        if (tab <= 0) continue;
        const size = Number(line.slice(0, tab));
        if (Number.isInteger(size) && size >= 0) logSizes[line.slice(tab + 1)] = size;
      }
    }
  }
  return { at, smi: parseNvidiaSmi(smiText), logSizes };
}

/** Probes the box once (login shell, so nvidia-smi is found where the user finds it). */
export async function probeIdle(session: BoxSession, opts: { watchDirs?: readonly string[]; now?: () => number; timeoutMs?: number } = {}): Promise<IdleSample> {
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const r = await session.exec(idleProbeScript(opts.watchDirs ?? DEFAULT_JOB_DIRS), { timeoutMs: opts.timeoutMs ?? 30000, login: true });
  return parseIdleProbe(r.stdout, now());
}

// What the end-of-run notification says: exit code, how long it ran, what the run cost (the
// instance's spend over the run's window), the last lines of its log and a recognised cause.
import { detectCause, lastLines, type EndCause } from '../../core/progress';
import type { Instance, JobRef } from '../../core/instances';
import { accruedFen } from '../../core/spend';
import type { Fen } from '../../core/money';
import type { RemoteConnection } from '../../remote/connection';
import { readTail } from './logTail';

export interface EndReport {
  jobId: string;
  exitCode: number | null;
  stopped: boolean;
  durationSeconds: number | null;
  costFen: Fen | null;
  lastLines: string[];
  cause: EndCause | null;
}

/** Bytes of the log's end looked at for the cause and the last lines. */
export const END_TAIL_BYTES = 64 * 1024;

export function endReportOf(inst: Pick<Instance, 'intervals'>, job: Pick<JobRef, 'id' | 'startedAt' | 'endedAt' | 'exitCode'>, logTail: string, opts: { stopped?: boolean; lines?: number } = {}): EndReport {
  const exitCode = job.exitCode ?? null;
  const end = job.endedAt ?? null;
  const duration = end !== null ? Math.max(0, end - job.startedAt) : null;
  return {
    jobId: job.id,
    exitCode,
    stopped: opts.stopped ?? false,
    durationSeconds: duration,
    costFen: end !== null ? accruedFen(inst.intervals, end, { from: job.startedAt, to: end }) : null,
    lastLines: lastLines(logTail, opts.lines ?? 5),
    cause: detectCause(logTail, exitCode, { stopped: opts.stopped }),
  };
}

/** Reads the end of the job's log and builds the report (an unreadable log gives no lines, no cause). */
export async function readEndReport(conn: RemoteConnection, inst: Pick<Instance, 'intervals'>, job: Pick<JobRef, 'id' | 'startedAt' | 'endedAt' | 'exitCode' | 'logPath'>, opts: { stopped?: boolean } = {}): Promise<EndReport> {
  let text = '';
  if (job.logPath) text = (await readTail(conn, job.logPath, -END_TAIL_BYTES, END_TAIL_BYTES).catch(() => ({ text: '' }))).text;
  return endReportOf(inst, job, text, opts);
}

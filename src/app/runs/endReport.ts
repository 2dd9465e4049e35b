// What the end of a run says, for the extension's notification and the CLI's `jobs` / `logs`:
// exit code, how long it ran, what the run cost (the instance's spend over the run's window, or
// the CLI's --rate over its duration), the last lines of its log, a recognised cause and what helps.
import { causeRemedies, costOfSeconds, detectCause, lastLines, type CauseLang, type EndCause, type EndCauseKind, type Remedy, type RemedyFacts, type RunPrice } from '../../core/progress';
import type { Instance, JobRef } from '../../core/instances';
import { accruedFen } from '../../core/spend';
import type { Fen } from '../../core/money';
import type { RemoteConnection } from '../../remote/connection';
import type { JobInfo } from '../../remote/jobs';
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

/** The CLI keeps no instance list: the job's own record (exit status, start and finish) and the price given on the command line. */
export function jobEndReportOf(job: Pick<JobInfo, 'name' | 'exitCode' | 'stopped' | 'startedAt' | 'finishedAt'>, logTail: string, price: RunPrice | null, opts: { lines?: number } = {}): EndReport {
  const duration = job.startedAt !== null && job.finishedAt !== null ? Math.max(0, job.finishedAt - job.startedAt) : null;
  return {
    jobId: job.name,
    exitCode: job.exitCode,
    stopped: job.stopped,
    durationSeconds: duration,
    costFen: duration !== null && price ? costOfSeconds(duration, { computeFenPerHour: price.computeFenPerHour, storageFenPerDay: price.storageFenPerDay }).fen : null,
    lastLines: lastLines(logTail, opts.lines ?? 5),
    cause: detectCause(logTail, job.exitCode, { stopped: job.stopped }),
  };
}

/** Reads the end of an exited job's log and builds its report (an unreadable log gives no lines, no cause). */
export async function readJobEndReport(conn: RemoteConnection, job: Pick<JobInfo, 'name' | 'exitCode' | 'stopped' | 'startedAt' | 'finishedAt' | 'logPath'>, price: RunPrice | null): Promise<EndReport> {
  let text = '';
  if (job.logPath) text = (await readTail(conn, job.logPath, -END_TAIL_BYTES, END_TAIL_BYTES).catch(() => ({ text: '' }))).text;
  return jobEndReportOf(job, text, price);
}

/** What `gpu-rent jobs --json` and `logs --json` carry for an exited job (stable names). */
export interface EndReportJson {
  exitCode: number | null;
  stopped: boolean;
  durationSeconds: number | null;
  costFen: Fen | null;
  cause: { kind: EndCauseKind; line: string | null } | null;
  remedies: Remedy[];
  lastLines: string[];
}

export function endReportJson(r: EndReport, lang: CauseLang = 'en', facts: RemedyFacts = {}): EndReportJson {
  return {
    exitCode: r.exitCode,
    stopped: r.stopped,
    durationSeconds: r.durationSeconds,
    costFen: r.costFen === null ? null : Math.round(r.costFen),
    cause: r.cause ? { kind: r.cause.kind, line: r.cause.line } : null,
    remedies: r.cause ? causeRemedies(r.cause, lang, facts) : [],
    lastLines: r.lastLines,
  };
}

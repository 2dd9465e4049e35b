// A job started by `gpu-rent run` (or any front end that watched a box job end) into the ledger:
// its progress as the log tail read it, the end report (exit, cause, duration, cost at the given
// price), the card nvidia-smi names on the box (else the one the user said), and where its
// checkpoints went. Never throws on the box's side: what cannot be read is null in the record.
import { findCard, findCardWithMemory } from '../../core/cards';
import type { RunFacts, RunRecord } from '../../core/ledger/record';
import { parseNvidiaSmi, SMI_QUERY_COMMAND } from '../../core/smi';
import type { Progress, RunPrice } from '../../core/progress';
import type { RemoteConnection } from '../../remote/connection';
import type { JobInfo } from '../../remote/jobs';
import { readJobEndReport } from '../runs/endReport';
import { recordRun } from './index';

/** The box's cards as nvidia-smi names them (catalog id where the catalog knows it) and their count; nulls without nvidia-smi. */
export async function boxCards(conn: RemoteConnection): Promise<{ card: string | null; gpus: number | null }> {
  const r = await conn.exec(SMI_QUERY_COMMAND, { timeoutMs: 15000, maxOutputBytes: 1024 * 1024 }).catch(() => undefined);
  const parsed = r && r.code === 0 ? parseNvidiaSmi(r.stdout) : undefined;
  if (!parsed?.ok || !parsed.report.gpus.length) return { card: null, gpus: null };
  const g = parsed.report.gpus[0]!;
  const card = g.name ? (findCardWithMemory(g.name, g.memoryTotalMiB ?? undefined)?.id ?? g.name.slice(0, 100)) : null;
  return { card, gpus: parsed.report.gpus.length };
}

export interface JobEndFacts {
  kind: RunRecord['kind'];
  job: JobInfo;
  progress: Progress | null;
  price: RunPrice | null;
  /** The card the user named (`--card`); wins over what nvidia-smi says. */
  card?: string | null;
  gpus?: number | null;
  instance?: string | null;
  platform?: string | null;
  checkpoints?: { box?: string | null; local?: string | null };
}

function endKind(job: JobInfo): RunRecord['end']['kind'] {
  if (job.state === 'lost') return 'lost';
  if (job.stopped) return 'stopped';
  if (job.state === 'exited') return job.exitCode === 0 ? 'finished' : 'failed';
  return 'unknown';
}

/** Records the ended job in the ledger under `dir`; returns the record. */
export async function recordJobEnd(dir: string, conn: RemoteConnection, f: JobEndFacts): Promise<RunRecord> {
  const report = await readJobEndReport(conn, f.job, f.price).catch(() => null);
  const box = f.card ? { card: null, gpus: null } : await boxCards(conn);
  const now = Math.floor(Date.now() / 1000);
  const startedAt = f.job.startedAt ?? now;
  const endedAt = Math.max(startedAt, f.job.finishedAt ?? now);
  const p = f.progress;
  const facts: RunFacts = {
    kind: f.kind,
    name: f.job.name,
    task: { command: f.job.command?.slice(0, 4096) ?? null },
    card: f.card ? (findCard(f.card)?.id ?? f.card.slice(0, 100)) : box.card,
    gpus: f.gpus ?? box.gpus ?? (f.card ? 1 : null),
    instance: f.instance?.slice(0, 200) ?? null,
    platform: f.platform ?? null,
    price: { fenPerHour: f.price ? f.price.computeFenPerHour + Math.round(f.price.storageFenPerDay / 24) : null, source: f.price ? 'user' : null },
    startedAt,
    endedAt,
    steps: p?.step ?? null,
    total: p?.total ?? null,
    stepsPerSecond: p?.rate ?? null,
    lossCurve: p?.lossCurve ?? [],
    finalLoss: p?.loss ?? null,
    end: { kind: endKind(f.job), exitCode: f.job.exitCode, cause: report?.cause?.kind ?? null },
    checkpoints: { box: f.checkpoints?.box ?? null, local: f.checkpoints?.local ?? null },
    costFen: report?.costFen ?? null,
  };
  return recordRun(dir, facts);
}

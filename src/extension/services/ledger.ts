// Start Training's runs into the ledger of runs (issue 42 item 2; app/ledger): when the poll sees a
// run end, the run as the extension knows it (its instance's card, GPUs and price, the progress
// read from its log, the end report) is appended to runs.jsonl in the extension's
// globalStorageUri folder (set once by activate). `gpu-rent runs` reads the same format.
import { findCard } from '../../core/cards';
import type { Progress } from '../../core/progress';
import type { Instance, JobRef } from '../../core/instances';
import type { EndReport } from '../../app/runs/endReport';
import { readRuns, recordRun } from '../../app/ledger';
import { configHome } from '../../app/platforms/accountFile';
import type { RunRecord } from '../../core/ledger/record';

let home: string | undefined;

/** The folder the extension keeps the ledger in (its globalStorageUri path). */
export function setLedgerHome(dir: string): void {
  home = dir;
}

export function ledgerHome(): string | undefined {
  return home;
}

/** The runs of both ledgers, the extension's and the CLI's (a launch from a terminal): one entry per run id, oldest first; a ledger that cannot be read adds none. */
export async function bothLedgersRuns(): Promise<RunRecord[]> {
  const homes = [...new Set([home, configHome(process.env)].filter((h): h is string => !!h))];
  const seen = new Set<string>();
  return (await Promise.all(homes.map((h) => readRuns(h).then((r) => r.runs, () => []))))
    .flat()
    .filter((r) => !seen.has(r.id) && seen.add(r.id))
    .sort((a, b) => a.startedAt - b.startedAt);
}

/** Records the ended run; resolves to its id, or undefined when no folder is set. Throws on a failed write. */
export async function recordStartTraining(inst: Instance, job: JobRef, report: EndReport, progress: Progress | undefined, now: number): Promise<string | undefined> {
  if (!home) return undefined;
  const startedAt = Math.floor(job.startedAt);
  const endedAt = Math.max(startedAt, Math.floor(job.endedAt ?? (report.durationSeconds !== null ? startedAt + report.durationSeconds : now)));
  const fenPerHour = inst.pricing.hourlyRate + Math.round((inst.pricing.storageGbDay * inst.pricing.dataDiskGb) / 24);
  const rec = await recordRun(home, {
    kind: 'start-training',
    name: job.id,
    task: { command: job.command.slice(0, 4096) },
    card: findCard(inst.card)?.id ?? (inst.card.slice(0, 100) || null),
    gpus: inst.gpuCount >= 1 ? inst.gpuCount : null,
    platform: inst.platform.slice(0, 100),
    instance: inst.name.slice(0, 200),
    price: { fenPerHour, source: inst.platformRef ? 'platform' : 'user' },
    startedAt,
    endedAt,
    steps: progress?.step ?? null,
    total: progress?.total ?? null,
    stepsPerSecond: progress?.rate ?? null,
    lossCurve: progress?.lossCurve ?? [],
    finalLoss: progress?.loss ?? null,
    end: { kind: report.stopped ? 'stopped' : report.exitCode === 0 ? 'finished' : report.exitCode === null ? 'unknown' : 'failed', exitCode: report.exitCode, cause: report.cause?.kind ?? null },
    checkpoints: { box: inst.sync?.remoteDir ?? null, local: inst.sync?.localDir ?? null },
    costFen: report.costFen,
  });
  return rec.id;
}

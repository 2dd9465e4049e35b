// Probing an instance and recording what it saw, for Check GPU and the background poll: the
// GPUs in the tree, and a warning (once per change) when the box is not the card you rent.
import * as vscode from 'vscode';
import { showWarning } from '../notify';
import { probeInstance, type InstanceProbe } from '../../app/probe';
import type { Instance } from '../../core/instances';
import { mergeJobStates } from '../../app/jobs';
import type { RentedCardCheck } from '../../core/rentedCard';
import { currentState } from '../../core/spend';
import type { RemoteConnection } from '../../remote/connection';
import type { JobInfo } from '../../remote/jobs';
import type { CommandContext } from './context';
import { readState, StateKeysFor, writeState } from '../stateKeys';

export function rentedCardText(inst: Instance, c: RentedCardCheck): string | undefined {
  switch (c.kind) {
    case 'other-card':
      return vscode.l10n.t('{0} is not the card you rent: you pay for {1}, the box has {2}. Check the listing and the console before you train.', inst.name, c.rented, c.seen.join(', '));
    case 'fewer-gpus':
      return vscode.l10n.t('{0} shows {1} GPU(s), but you pay for {2}.', inst.name, c.seen, c.rented);
    case 'no-gpu':
      return vscode.l10n.t('{0} shows no GPU, but it is billed as running with {1} GPU(s). If it is in no-GPU mode, switch its state here; otherwise ask the platform.', inst.name, c.rented);
    default:
      return undefined;
  }
}

/** Connects, probes and records; warns about a card mismatch once per distinct finding. */
export async function recordProbe(ctx: CommandContext, inst: Instance, conn: RemoteConnection, signal?: AbortSignal): Promise<InstanceProbe> {
  const r = await probeInstance(conn, { card: inst.card, gpuCount: inst.gpuCount, state: currentState(inst.intervals) }, ctx.now(), signal);
  await ctx.store.update(inst.id, { lastProbe: r.lastProbe });
  ctx.log.info(`[${inst.id}] probe: ${r.gpus.length} GPU(s), verdict ${r.diagnosis.verdict}${r.card && r.card.kind !== 'match' ? `, card check ${r.card.kind}` : ''}`);
  const text = r.card && rentedCardText(inst, r.card);
  const key = StateKeysFor.cardWarning(inst.id);
  const seen = text ? JSON.stringify(r.card) : '';
  if (readState(ctx.memento, key) !== seen) {
    await writeState(ctx.memento, key, seen || undefined);
    if (text) {
      ctx.notices.note('card', inst.id, r.card!.kind);
      void showWarning(text, { log: ctx.log });
    }
  }
  return r;
}

/** Reads the jobs on the box and records their states; tells the user once when one ended. */
export async function refreshJobs(ctx: CommandContext, inst: Instance, conn: RemoteConnection, jobs?: readonly JobInfo[]): Promise<void> {
  if (!inst.jobs?.length) return;
  const { listJobs } = await import('../../remote/jobs');
  const list = jobs ?? (await listJobs(conn));
  const cur = ctx.store.get(inst.id);
  if (!cur?.jobs) return;
  const r = mergeJobStates(cur.jobs, list, ctx.now());
  await updateProgress(ctx, cur, conn, list);
  if (JSON.stringify(r.refs) === JSON.stringify(cur.jobs)) return;
  await ctx.store.update(inst.id, { jobs: r.refs });
  const { handleRunEnd } = await import('./endOfRun');
  for (const j of r.ended) {
    const stopped = list.find((x) => x.name === j.id)?.stopped ?? false;
    await handleRunEnd(ctx, ctx.store.get(inst.id) ?? cur, conn, j, stopped).catch((e) => ctx.log.warn(`[${inst.id}] end of ${j.id}: ${e instanceof Error ? e.message : String(e)}`));
  }
}

/** Reads what each running job's log gained since the last poll (only the new bytes); the tree and status bar hear it from the runs model. */
async function updateProgress(ctx: CommandContext, inst: Instance, conn: RemoteConnection, list: readonly JobInfo[]): Promise<void> {
  const { runPriceOf } = await import('../../app/runs/progress');
  const price = runPriceOf(inst, ctx.settings().syncWatchIntervalSeconds);
  for (const j of list) {
    if (j.state !== 'running' || !j.logPath || !inst.jobs?.some((r) => r.id === j.name)) continue;
    try {
      await ctx.runs.update(conn, { instanceId: inst.id, jobId: j.name, logPath: j.logPath, alive: true, price, now: ctx.now() });
    } catch (e) {
      ctx.log.debug(`[${inst.id}] progress of ${j.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

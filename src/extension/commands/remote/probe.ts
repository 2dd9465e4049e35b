// Probing an instance and recording what it saw, for Check GPU and the background poll: the
// GPUs in the tree, and a warning (once per change) when the box is not the card you rent.
import * as vscode from 'vscode';
import { probeInstance, type InstanceProbe } from '../../../app/probe';
import type { Instance } from '../../../core/instances';
import { mergeJobStates } from '../../../app/jobs';
import type { RentedCardCheck } from '../../../core/rentedCard';
import { currentState } from '../../../core/spend';
import type { RemoteConnection } from '../../../remote/connection';
import type { JobInfo } from '../../../remote/jobs';
import { Commands } from '../../commandIds';
import type { CommandContext } from '../context';

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
  const key = `gpuRent.cardWarning.${inst.id}`;
  const seen = text ? JSON.stringify(r.card) : '';
  if (ctx.memento.get<string>(key) !== seen) {
    await ctx.memento.update(key, seen || undefined);
    if (text) {
      ctx.notices.note('card', inst.id, r.card!.kind);
      void vscode.window.showWarningMessage(text);
    }
  }
  return r;
}

/** Reads the jobs on the box and records their states; tells the user once when one ended. */
export async function refreshJobs(ctx: CommandContext, inst: Instance, conn: RemoteConnection, jobs?: readonly JobInfo[]): Promise<void> {
  if (!inst.jobs?.length) return;
  const { listJobs } = await import('../../../remote/jobs');
  const list = jobs ?? (await listJobs(conn));
  const cur = ctx.store.get(inst.id);
  if (!cur?.jobs) return;
  const r = mergeJobStates(cur.jobs, list, ctx.now());
  if (JSON.stringify(r.refs) === JSON.stringify(cur.jobs)) return;
  await ctx.store.update(inst.id, { jobs: r.refs });
  for (const j of r.ended) {
    ctx.notices.note('job', inst.id, `${j.id} exited ${j.exitCode ?? '?'}`);
    const ok = j.exitCode === 0;
    const msg = ok ? vscode.l10n.t('{0} on {1} finished.', j.id, inst.name) : vscode.l10n.t('{0} on {1} exited with code {2}.', j.id, inst.name, String(j.exitCode ?? '?'));
    const logs = vscode.l10n.t('Show Log');
    void (ok ? vscode.window.showInformationMessage : vscode.window.showWarningMessage)(msg, logs).then((p) => {
      if (p) void vscode.commands.executeCommand(Commands.showJobs, { id: inst.id, jobId: j.id });
    });
  }
}

// Check GPU: nvidia-smi, a torch probe and the doctor's verdict, the GPUs recorded for the tree,
// a warning when the box is not the card you rent, and the report with its fix.
import * as vscode from 'vscode';
import { showWarning, withNotificationProgress } from '../../notify';
import type { Diagnosis } from '../../../core/doctor';
import type { ProbeGpu } from '../../../core/instances';
import type { RentedCardCheck } from '../../../core/rentedCard';
import { CheckGpuArgs } from '../../args';
import type { CommandContext } from '../../services/context';
import { requireTrust } from '../../words/errors';
import { parseArgs, pickInstance, powered } from '../pick';
import { isScripted } from '../registry';
import { recordProbe } from '../../services/probe';
import { terminalFor } from './terminal';

export async function checkGpu(ctx: CommandContext, arg: unknown): Promise<{ verdict: Diagnosis['verdict']; gpus: ProbeGpu[]; driverVersion: string | null; card: RentedCardCheck | null } | undefined> {
  requireTrust();
  const a = isScripted(arg) ? parseArgs(CheckGpuArgs, arg) : undefined;
  const picked = await pickInstance(ctx, a ?? arg, powered);
  if (!picked) return undefined;
  const r = await withNotificationProgress({ title: vscode.l10n.t('Checking the GPU on {0}…', picked.name), cancellable: true }, async (_p, token) => {
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    const { inst, conn } = await ctx.sessions.open(picked.id, a?.acceptNewHostKey ? { acceptNewHostKey: true } : {});
    return { inst, conn, probe: await recordProbe(ctx, inst, conn, abort.signal) };
  });
  const d = r.probe.diagnosis;
  if (!a?.quiet) {
    const script = await ctx.doctor.show(r.inst, d);
    if (script) {
      const text = script.join('\n');
      const copy = vscode.l10n.t('Copy Fix');
      const run = vscode.l10n.t('Run in Terminal');
      void showWarning(vscode.l10n.t('{0}: the GPU check found a problem with a fix.', r.inst.name), copy, run).then(async (p) => {
        if (p === copy) await vscode.env.clipboard.writeText(text);
        // The whole script: the fresh env first, so torch does not go into the image's base.
        if (p === run) terminalFor(r.inst, r.conn).sendText(script.join(' && '), false);
      });
    }
  }
  return { verdict: d.verdict, gpus: r.probe.gpus, driverVersion: d.driverVersion, card: r.probe.card ?? null };
}

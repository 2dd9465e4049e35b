// Start Distributed Training: several selected instances run one job across nodes (torchrun,
// deepspeed or accelerate started on each with its rank, the first node's address and the
// port), after checking they have the same GPU count and reach the first node on the port.
import * as vscode from 'vscode';
import { showInfo, withNotificationProgress } from '../../notify';
import { z } from 'zod';
import type { Instance } from '../../../core/instances';
import { LAUNCHERS, type Launcher } from '../../../remote/jobs';
import type { CommandContext } from '../../services/context';
import { requireTrust, UserError } from '../../words/errors';
import { billingGpu, parseArgs } from '../pick';
import { isScripted } from '../registry';

const DistributedArgs = z.strictObject({
  ids: z.array(z.string().min(1).max(64)).min(2).max(64),
  command: z.string().min(1).max(4000),
  launcher: z.enum(['torchrun', 'deepspeed', 'accelerate']),
  port: z.number().int().min(1024).max(65535).optional(),
  masterAddr: z.string().regex(/^[A-Za-z0-9.:-]{1,253}$/).optional(),
  cwd: z.string().max(4096).optional(),
});
type Args = z.infer<typeof DistributedArgs>;

const MAX_JOBS_KEPT = 50;

export async function startDistributedTraining(ctx: CommandContext, arg: unknown, selected?: unknown): Promise<string | undefined> {
  requireTrust();
  const a: Args | undefined = isScripted(arg) && 'ids' in arg ? parseArgs(DistributedArgs, arg) : await ask(ctx, arg, selected);
  if (!a) return undefined;
  const insts = a.ids.map((id) => ctx.sessions.powered(id));
  const conns = await Promise.all(insts.map(async (i) => (await ctx.sessions.open(i.id)).conn));
  const { startMultiNode, splitCommand } = await import('../../../app/runs/multinode');
  const stamp = new Date(ctx.now() * 1000).toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  const run = await withNotificationProgress({ title: vscode.l10n.t('Checking the nodes and starting {0}…', a.launcher) }, () =>
    startMultiNode(
      insts.map((i, k) => ({ label: i.name, conn: conns[k]! })),
      { name: `dist-${stamp}`, command: splitCommand(a.command), launcher: a.launcher as Launcher, ...(a.port ? { port: a.port } : {}), ...(a.masterAddr ? { masterAddr: a.masterAddr } : {}), ...(a.cwd ? { cwd: a.cwd } : {}) },
    ),
  );
  for (const n of run.nodes) {
    const inst = insts[n.rank]!;
    const cur = ctx.store.get(inst.id) ?? inst;
    const jobs = [...(cur.jobs ?? []), { id: run.name, command: `[rank ${n.rank}/${run.nodes.length}] ${a.command}`.slice(0, 4000), startedAt: n.job.startedAt ?? ctx.now(), logPath: n.job.logPath.slice(0, 4096), state: 'running' as const }].slice(-MAX_JOBS_KEPT);
    await ctx.store.update(inst.id, { jobs });
  }
  ctx.log.info(`distributed ${run.name}: ${run.nodes.map((n) => `${n.label} rank ${n.rank}`).join(', ')}, ${run.masterAddr}:${run.port}, ${run.gpusPerNode} GPU(s) per node`);
  if (!isScripted(arg)) void showInfo(vscode.l10n.t('Started {0} on {1} nodes ({2} GPUs each), rendezvous {3}.', run.name, run.nodes.length, run.gpusPerNode, `${run.masterAddr}:${run.port}`));
  return run.name;
}

async function ask(ctx: CommandContext, arg: unknown, selected: unknown): Promise<Args | undefined> {
  const fromTree = (Array.isArray(selected) ? selected : [arg]).flatMap((n) => (n && typeof n === 'object' && (n as { kind?: unknown }).kind === 'instance' ? [String((n as { id: unknown }).id)] : []));
  let ids = fromTree.filter((id) => ctx.store.get(id));
  if (ids.length < 2) {
    const candidates = ctx.store.list().filter(billingGpu);
    if (candidates.length < 2) throw new UserError(vscode.l10n.t('Distributed training needs at least two running instances.'));
    const picks = await vscode.window.showQuickPick(
      candidates.map((i: Instance) => ({ label: i.name, description: `${i.card} ×${i.gpuCount}`, id: i.id, picked: ids.includes(i.id) })),
      { canPickMany: true, title: vscode.l10n.t('Nodes for distributed training (the first is rank 0)') },
    );
    if (!picks || picks.length < 2) return undefined;
    ids = picks.map((p) => p.id);
  }
  const command = await vscode.window.showInputBox({ title: vscode.l10n.t('Command on every node'), placeHolder: 'python train.py --deepspeed ds_config.json', ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('Enter a value.')) });
  if (!command) return undefined;
  const launcher = await vscode.window.showQuickPick([...LAUNCHERS], { title: vscode.l10n.t('Launcher') });
  if (!launcher) return undefined;
  const port = await vscode.window.showInputBox({ title: vscode.l10n.t('Rendezvous port on the first node'), value: '29500', ignoreFocusOut: true, validateInput: (v) => (/^\d+$/.test(v) && Number(v) >= 1024 && Number(v) <= 65535 ? undefined : vscode.l10n.t('Enter a port between 1024 and 65535.')) });
  if (!port) return undefined;
  const masterAddr = await vscode.window.showInputBox({ title: vscode.l10n.t('First node’s address as the others reach it'), prompt: vscode.l10n.t('Empty: its private address (same VPC)'), ignoreFocusOut: true });
  if (masterAddr === undefined) return undefined;
  return { ids, command, launcher: launcher as Launcher, port: Number(port), ...(masterAddr.trim() ? { masterAddr: masterAddr.trim() } : {}) };
}

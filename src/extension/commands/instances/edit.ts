// Edit Instance: name, prices (from now on; past time keeps its price), GPUs, disk size and
// the checkpoint folders it syncs. Scripted: `{ id, name?, hourlyRate?, …, syncRemoteDir?, syncLocalDir? }`.
import * as vscode from 'vscode';
import { BOUNDS } from '../../../core/bounds';
import { formatCny, yuanToFen } from '../../../core/money';
import type { Pricing } from '../../../core/spend';
import { checkRemoteDir } from '../../../app/sync';
import { EditInstanceArgs, INSTANCE_PRICE_BOUNDS } from '../../args';
import { fenToInput, parseCount, parseGb, parseYuan } from '../../input';
import { formatRate } from '../../view/present';
import type { CommandContext } from '../../services/context';
import { UserError } from '../../words/errors';
import { parseArgs, pickInstance } from '../pick';
import { isScripted } from '../registry';
import { folderProblemText, syncFoldersOf } from '../sync/folders';
import { problemText } from './shared';
import { spotAfterHourlyEdit } from '../../prefill';

export async function editInstance(ctx: CommandContext, arg: unknown): Promise<void> {
  if (isScripted(arg) && !(Object.keys(arg).length === 1 && 'id' in arg)) return applyEdit(ctx, parseArgs(EditInstanceArgs, arg));
  const inst = await pickInstance(ctx, arg);
  if (!inst) return;
  type Field = 'name' | 'hourlyRate' | 'spotRate' | 'noGpuModeRate' | 'storageGbDay' | 'dataDiskGb' | 'gpuCount' | 'syncRemoteDir' | 'syncLocalDir';
  const p = inst.pricing;
  const folders = syncFoldersOf(ctx, inst);
  const fields: { label: string; description: string; f: Field }[] = [
    { label: vscode.l10n.t('Name'), description: inst.name, f: 'name' },
    { label: vscode.l10n.t('Price per hour'), description: formatRate(p.hourlyRate, vscode.l10n), f: 'hourlyRate' },
    { label: vscode.l10n.t('Spot price per hour'), description: p.spotRate !== undefined ? formatRate(p.spotRate, vscode.l10n) : '—', f: 'spotRate' },
    { label: vscode.l10n.t('No-GPU mode price per hour'), description: formatRate(p.noGpuModeRate, vscode.l10n), f: 'noGpuModeRate' },
    { label: vscode.l10n.t('Storage price per GB per day'), description: formatCny(p.storageGbDay), f: 'storageGbDay' },
    { label: vscode.l10n.t('Billed data disk size (GB)'), description: String(p.dataDiskGb), f: 'dataDiskGb' },
    { label: vscode.l10n.t('Number of GPUs'), description: String(inst.gpuCount), f: 'gpuCount' },
    { label: vscode.l10n.t('Checkpoint folder on the instance'), description: folders.remoteDir, f: 'syncRemoteDir' },
    { label: vscode.l10n.t('Local folder for checkpoints'), description: folders.localDirText, f: 'syncLocalDir' },
  ];
  const pick = await vscode.window.showQuickPick(fields, { title: vscode.l10n.t('Edit {0}', inst.name), placeHolder: vscode.l10n.t('What do you want to change? New prices apply from now on; past time keeps its price.') });
  if (!pick) return;
  const current =
    pick.f === 'name' ? inst.name : pick.f === 'gpuCount' ? String(inst.gpuCount) : pick.f === 'dataDiskGb' ? String(p.dataDiskGb) : pick.f === 'syncRemoteDir' ? folders.remoteDir : pick.f === 'syncLocalDir' ? folders.localDirText : fenToInput((p[pick.f] as number | undefined) ?? 0);
  const value = await vscode.window.showInputBox({
    title: pick.label,
    value: current,
    ignoreFocusOut: true,
    validateInput: (v) => {
      if (pick.f === 'name') return v.trim() && v.length <= 120 ? undefined : vscode.l10n.t('Enter a name of at most 120 characters.');
      if (pick.f === 'syncRemoteDir') {
        const problem = checkRemoteDir(v.trim());
        return problem ? folderProblemText(problem) : undefined;
      }
      if (pick.f === 'syncLocalDir') return v.trim() ? undefined : vscode.l10n.t('Enter a value.');
      const r = pick.f === 'gpuCount' ? parseCount(v, BOUNDS.gpus.min, BOUNDS.gpus.max) : pick.f === 'dataDiskGb' ? parseGb(v) : parseYuan(v, INSTANCE_PRICE_BOUNDS[pick.f].max);
      return r.ok ? undefined : problemText(r.problem);
    },
  });
  if (value === undefined) return;
  const edit: EditInstanceArgs = { id: inst.id };
  if (pick.f === 'name') edit.name = value.trim();
  else if (pick.f === 'gpuCount') edit.gpuCount = Number(value.trim());
  else if (pick.f === 'dataDiskGb') edit.dataDiskGb = Number(value.trim().replace(/\s*(gb|g|gib)$/i, ''));
  else if (pick.f === 'syncRemoteDir') edit.syncRemoteDir = value.trim();
  else if (pick.f === 'syncLocalDir') edit.syncLocalDir = value.trim();
  else {
    const r = parseYuan(value);
    if (r.ok) edit[pick.f] = r.fen / 100;
  }
  await applyEdit(ctx, edit);
}

type EditInstanceArgs = ReturnType<typeof EditInstanceArgs.parse>;

async function applyEdit(ctx: CommandContext, a: EditInstanceArgs): Promise<void> {
  const inst = ctx.store.get(a.id);
  if (!inst) throw new UserError(vscode.l10n.t('No instance with id {0}.', a.id));
  const folders = syncFoldersOf(ctx, inst);
  const sync =
    a.syncRemoteDir !== undefined || a.syncLocalDir !== undefined
      ? { ...(inst.sync ?? {}), remoteDir: a.syncRemoteDir ?? folders.remoteDir, localDir: a.syncLocalDir !== undefined ? folders.resolveLocal(a.syncLocalDir) : folders.localDir ?? folders.resolveLocal(folders.localDirText) }
      : undefined;
  await ctx.store.update(a.id, {
    ...(a.name !== undefined ? { name: a.name } : {}),
    ...(a.platform !== undefined ? { platform: a.platform } : {}),
    ...(a.card !== undefined ? { card: a.card } : {}),
    ...(a.gpuCount !== undefined ? { gpuCount: a.gpuCount } : {}),
    ...(sync ? { sync } : {}),
  });
  const p = inst.pricing;
  const next: Pricing = {
    billingMode: a.billingMode ?? p.billingMode,
    hourlyRate: a.hourlyRate !== undefined ? yuanToFen(a.hourlyRate) : p.hourlyRate,
    noGpuModeRate: a.noGpuModeRate !== undefined ? yuanToFen(a.noGpuModeRate) : p.noGpuModeRate,
    storageGbDay: a.storageGbDay !== undefined ? yuanToFen(a.storageGbDay) : p.storageGbDay,
    dataDiskGb: a.dataDiskGb ?? p.dataDiskGb,
    // Unknown until the renter gives the disk size (issue 41 bug 5).
    ...(p.dataDiskUnknown && a.dataDiskGb === undefined ? { dataDiskUnknown: true as const } : {}),
  };
  // An edited on-demand price carries the spot price along (scaled by the old ratio) unless one is given (issue 41 bug 6).
  const spot = a.spotRate !== undefined ? yuanToFen(a.spotRate) : a.hourlyRate !== undefined && next.billingMode === 'hour' && p.billingMode === 'hour' ? spotAfterHourlyEdit(p, next.hourlyRate) : p.spotRate;
  if (spot !== undefined) next.spotRate = spot;
  if (JSON.stringify(next) !== JSON.stringify(p)) await ctx.store.setPricing(a.id, next);
}

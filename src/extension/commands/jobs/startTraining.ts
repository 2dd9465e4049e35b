// Start Training: detached on the box (tmux, else setsid), so it outlives the laptop's
// connection. A long run on a spot instance needs an explicit yes, with the expected rework
// and a sync cadence (core/guards/spot).
import * as vscode from 'vscode';
import { showInfo, showWarning } from '../../notify';
import type { Instance } from '../../../core/instances';
import { currentState } from '../../../core/spend';
import { StartTrainingArgs } from '../../args';
import { Commands } from '../../commandIds';
import { guardFacts, spotDecision } from '../../guardDecisions';
import { spotDetail, spotInputErrorText } from '../../words/guardText';
import type { CommandContext } from '../../services/context';
import { requireTrust, UserError } from '../../words/errors';
import { billingGpu, parseArgs, pickInstance } from '../pick';
import { isScripted } from '../registry';
import type { EndAction } from '../../../core/progress';
import { checkEndAction, endActionChoices, isRefused, type OfferedEndAction, type RefusalCode } from '../../../core/guards/powerOffer';
import { askSyncFolders, rememberSyncFolders } from '../sync/folders';
import type { RemoteConnection } from '../../../remote/connection';
import { defaultEndAction, rememberEndAction } from '../../services/endOfRun';

const MAX_JOBS_KEPT = 50;

type Args = ReturnType<typeof StartTrainingArgs.parse>;

export async function startTraining(ctx: CommandContext, arg: unknown): Promise<string | undefined> {
  requireTrust();
  const scripted = isScripted(arg) && 'command' in arg;
  let a: Args;
  if (scripted) a = parseArgs(StartTrainingArgs, arg);
  else {
    const inst = await pickInstance(ctx, arg, billingGpu);
    if (!inst) return undefined;
    const asked = await ask(inst);
    if (!asked) return undefined;
    a = asked;
  }
  const inst = ctx.sessions.get(a.id);
  const state = currentState(inst.intervals);
  ctx.sessions.powered(a.id);
  if (state !== 'running' && state !== 'spot') throw new UserError(vscode.l10n.t('{0} is in no-GPU mode or not running: training needs a GPU. Start it with a GPU in the console and switch its state here.', inst.name));
  if (state === 'spot' && !(await spotOk(ctx, inst, a.expectedHours, a.acceptSpotRisk, scripted))) return undefined;
  const { conn } = await ctx.sessions.open(inst.id, a.acceptNewHostKey ? { acceptNewHostKey: true } : {});
  // The end action is checked against what can happen before anything starts (issue 22.1).
  const then = await endActionFor(ctx, inst, conn, scripted ? (a.then ?? defaultEndAction()) : undefined);
  if (then === undefined) return undefined;
  const { startJob } = await import('../../../remote/jobs');
  const stamp = new Date(ctx.now() * 1000).toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  const job = await startJob(conn, { name: `train-${stamp}`, command: [a.command], ...(a.cwd ? { cwd: a.cwd } : {}), ...(a.env ? { env: a.env } : {}) });
  const cur = ctx.store.get(inst.id) ?? inst;
  const jobs = [...(cur.jobs ?? []), { id: job.name, command: a.command.slice(0, 4000), startedAt: job.startedAt ?? ctx.now(), logPath: job.logPath.slice(0, 4096), state: 'running' as const }].slice(-MAX_JOBS_KEPT);
  await ctx.store.update(inst.id, { jobs });
  ctx.log.info(`[${inst.id}] started job ${job.name}`);
  await armEndAction(ctx, ctx.store.get(inst.id) ?? inst, conn, job.name, then);
  if (!scripted) {
    const show = vscode.l10n.t('Follow Log');
    void showInfo(vscode.l10n.t('Started {0} on {1}. It keeps running if you disconnect.', job.name, inst.name), show).then((p) => {
      if (p) void vscode.commands.executeCommand(Commands.showJobs, { id: inst.id, jobId: job.name, follow: true });
    });
  }
  return job.name;
}

/** Remembers the run's end action; a power-off is also armed on the box for when this window is away. */
async function armEndAction(ctx: CommandContext, inst: Instance, conn: RemoteConnection, jobName: string, then: EndAction): Promise<void> {
  await rememberEndAction(ctx, inst.id, jobName, then);
  ctx.log.info(`[${inst.id}] ${jobName}: end action ${then}`);
  if (then !== 'sync-then-power-off') return;
  // Through an account the laptop powers it off; the box's own backup needs a login that can.
  const { probeBoxPower, boxPowerOffCommand } = await import('../../../app/runs/boxPower');
  const command = boxPowerOffCommand((await probeBoxPower(conn).catch(() => ({ power: 'unknown' as const }))).power);
  if (!command) {
    ctx.log.warn(`[${inst.id}] ${jobName}: no on-box backup power-off (this login cannot power the box off); the platform account powers it off after a verified sync`);
    return;
  }
  // A box that loses its data disk on a stop (秘塔智算) is never powered off without the verified sync.
  if (!guardFacts(ctx.catalog(), inst.platform).stopKeepsData) {
    ctx.log.warn(`[${inst.id}] ${jobName}: no on-box power-off (a stop clears this platform's data disk); only an awake window powers it off after a verified sync`);
    return;
  }
  const { armAfterJob } = await import('../../../app/runs/onBox');
  await armAfterJob(conn, jobName, { actionCommand: command }).then(
    () => ctx.log.info(`[${inst.id}] ${jobName}: on-box "after job ends" power-off armed (waits 15 min for this window's verified sync first)`),
    (e) => ctx.log.warn(`[${inst.id}] ${jobName}: could not arm the on-box power-off: ${e instanceof Error ? e.message : String(e)}`),
  );
}

const END_ACTION_LABELS = (): Record<EndAction, string> => ({
  nothing: vscode.l10n.t('Nothing (keep the instance running)'),
  sync: vscode.l10n.t('Sync checkpoints'),
  'sync-then-no-gpu': vscode.l10n.t('Sync checkpoints, then no-GPU mode'),
  'sync-then-power-off': vscode.l10n.t('Sync checkpoints, then power off'),
});

export function refusalText(reason: RefusalCode, inst: Instance): string {
  switch (reason) {
    case 'noGpuNeedsAccount':
      return vscode.l10n.t('No-GPU mode needs a linked platform account whose API can switch it (AutoDL console token); {0} has none.', inst.name);
    case 'platformCannotNoGpu':
      return vscode.l10n.t('The API of the account {0} is linked to cannot start in no-GPU mode (AutoDL’s developer API); switch it in the console.', inst.name);
    case 'accountReadOnly':
      return vscode.l10n.t('The platform account of {0} is read-only: allow power actions for it (gpuRent.platforms.powerActions).', inst.name);
    case 'boxCannotPowerOff':
      return vscode.l10n.t('{0} cannot be powered off from here: the login is not root, sudo -n is not allowed, and no platform account with power actions is linked.', inst.name);
    case 'boxPowerUnknown':
      return vscode.l10n.t('Could not find out whether the login on {0} may power it off.', inst.name);
  }
}

/**
 * The run's end action, from what can happen on this instance: the interactive pick lists only
 * those (the others named in the placeholder), a scripted or default one that cannot happen is
 * refused now, and a sync action without checkpoint folders asks for them now.
 */
async function endActionFor(ctx: CommandContext, inst: Instance, conn: RemoteConnection, preset: EndAction | undefined): Promise<EndAction | undefined> {
  if (preset === 'nothing') return preset;
  const { boxPowerOf, powerFactsOf } = await import('../../services/powerFacts');
  const facts = powerFactsOf(ctx, inst, await boxPowerOf(ctx, inst, conn));
  const choices = endActionChoices(facts);
  let pick: OfferedEndAction | undefined;
  if (preset !== undefined) {
    const c = checkEndAction(preset, facts);
    if (isRefused(c)) throw new UserError(vscode.l10n.t('End action "{0}" cannot happen on {1}: {2} Nothing was started.', END_ACTION_LABELS()[preset], inst.name, refusalText(c.reason, inst)));
    pick = c;
    if (pick.needs.includes('syncFolders')) throw new UserError(vscode.l10n.t('End action "{0}" needs the checkpoint folders of {1}: set them with Sync Checkpoints Now first. Nothing was started.', END_ACTION_LABELS()[preset], inst.name));
    return pick.action;
  }
  const def = defaultEndAction();
  const labels = END_ACTION_LABELS();
  const items = choices.offered.map((o) => ({ label: labels[o.action], action: o.action, offered: o, description: o.action === def ? vscode.l10n.t('default') : undefined }));
  items.sort((x, y) => (x.action === def ? -1 : y.action === def ? 1 : 0));
  const notOffered = choices.refused.map((r) => `${labels[r.action]}: ${refusalText(r.reason, inst)}`).join(' ');
  const chosen = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('When the run ends'), placeHolder: [vscode.l10n.t('The sync must succeed (verified) before any power action'), notOffered ? vscode.l10n.t('Not offered here: {0}', notOffered) : ''].filter(Boolean).join(' · '), ignoreFocusOut: true });
  if (!chosen) return undefined;
  if (chosen.offered.needs.includes('syncFolders')) {
    // Asked now, not discovered when the run ends.
    const f = await askSyncFolders(ctx, inst);
    if (!f) return undefined;
    await rememberSyncFolders(ctx, inst, f);
  }
  return chosen.action;
}

async function ask(inst: Instance): Promise<Args | undefined> {
  const command = await vscode.window.showInputBox({ title: vscode.l10n.t('Start training on {0}', inst.name), prompt: vscode.l10n.t('Command to run on the instance (detached; it keeps running if you disconnect)'), placeHolder: 'python train.py --config configs/lora.yaml', ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('Enter a value.')) });
  if (!command) return undefined;
  const cwd = await vscode.window.showInputBox({ title: vscode.l10n.t('Working folder on the instance'), value: inst.sync?.remoteDir ? inst.sync.remoteDir.replace(/\/[^/]*$/, '') || '/' : '', placeHolder: '/root/autodl-tmp/project', prompt: vscode.l10n.t('Empty: the home folder'), ignoreFocusOut: true });
  if (cwd === undefined) return undefined;
  const envText = await vscode.window.showInputBox({ title: vscode.l10n.t('Environment variables (optional)'), placeHolder: 'CUDA_VISIBLE_DEVICES=0 HF_ENDPOINT=…', ignoreFocusOut: true, validateInput: (v) => (v.trim() === '' || v.trim().split(/\s+/).every((p) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(p)) ? undefined : vscode.l10n.t('Use NAME=value pairs separated by spaces.')) });
  if (envText === undefined) return undefined;
  const env = Object.fromEntries(envText.trim() ? envText.trim().split(/\s+/).map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]) : []);
  let expectedHours: number | undefined;
  if (currentState(inst.intervals) === 'spot') {
    const h = await vscode.window.showInputBox({ title: vscode.l10n.t('About how many hours will it run?'), prompt: vscode.l10n.t('Spot instances can be reclaimed at any time; the estimate sizes the risk.'), value: '1', ignoreFocusOut: true, validateInput: (v) => (Number.isFinite(Number(v)) && Number(v) >= 0 ? undefined : vscode.l10n.t('Enter a number, for example 1.98.')) });
    if (h === undefined) return undefined;
    expectedHours = Number(h);
  }
  return { id: inst.id, command, ...(cwd ? { cwd } : {}), env, ...(expectedHours !== undefined ? { expectedHours } : {}), acceptSpotRisk: false };
}

/** Spot: core's spotCheck sizes the rework; a long job (or one of unknown length) needs an explicit yes. */
async function spotOk(ctx: CommandContext, inst: Instance, expectedHours: number | undefined, accepted: boolean, scripted: boolean): Promise<boolean> {
  const settings = ctx.settings();
  const d = spotDecision(
    { spotRate: inst.pricing.spotRate ?? inst.pricing.hourlyRate, expectedHours, syncIntervalSeconds: settings.syncWatchIntervalSeconds, warnHours: settings.spotWarnHours, accepted },
    guardFacts(ctx.catalog(), inst.platform),
  );
  if (d.kind === 'badInput') throw new UserError(spotInputErrorText(d.error, vscode.l10n));
  const detail = d.check ? spotDetail(d.check, vscode.l10n) : vscode.l10n.t('The run length is unknown.');
  if (d.kind === 'go') {
    if (d.check) {
      ctx.log.info(`[${inst.id}] spot job: expected rework ${d.check.expectedReworkFen} fen, sync every ${d.check.recommendedSyncIntervalSeconds} s recommended`);
      if (!scripted) void showInfo(`${inst.name}: ${detail}`);
    }
    return true;
  }
  const msg = vscode.l10n.t('{0} is a spot instance: it can be reclaimed at any time and a long run may be lost. The report’s advice: only short (≤1 h) or exploratory runs on spot.', inst.name);
  ctx.notices.note('spot', inst.id, `asked: ${expectedHours ?? '?'} h`);
  if (scripted) throw new UserError(`${msg} ${detail}`);
  const go = vscode.l10n.t('Start Anyway');
  return (await showWarning(msg, { modal: true, detail }, go)) === go;
}

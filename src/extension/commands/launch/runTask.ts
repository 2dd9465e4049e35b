// Run Task on a Rented GPU…: the extension's `gpu-rent launch`. The task file (the explorer's,
// a script's, else the workspace's gpu-rent.yaml), the task, how (run, smoke test first,
// continue the launch in progress, or only its status), then app/launch/run.ts's launchTask
// with what the extension already has: connections made as for every instance (known hosts,
// the trust prompt, keepalive and timeouts from the settings, a password asked when the login
// wants one), the platform accounts' connectors from SecretStorage with power actions as
// gpuRent.platforms.powerActions allows. Every step goes to the GPU Rent log and the latest to
// a cancellable progress notification; cancelling stops only this window's part (the run goes
// on on the box). The launch state is the CLI's (configHome), so `gpu-rent launch --status`
// and Launch Status see the same launch.
import * as vscode from 'vscode';
import { z } from 'zod';
import { isFinished, launchStatus, launchTask, LaunchError, type LaunchHost } from '../../../app/launch/run';
import { launchSweep, readSweepState, sweepExitCode, sweepFinished, sweepStatePath, type SweepMemberState, type SweepState } from '../../../app/launch/sweep';
import type { UnattendedHost } from '../../../app/launch/unattended';
import { passwordMeantFor } from '../../../app/launch/password';
import { divergedPolicy } from '../../monitors/diverged';
import type { AcquiredBox, LaunchAccount } from '../../../app/launch/boxes';
import { configHome } from '../../../app/platforms/accountFile';
import { formatCny } from '../../../core/money';
import type { LaunchState } from '../../../core/task/launch';
import type { Task } from '../../../core/task/types';
import type { ConnectOptions } from '../../../remote/connect-options';
import { askLoginPassword, confirmNewHostKey } from '../../hostKeyPrompts';
import { savedPasswordInstance } from '../../savedLogin';
import type { PlatformMonitor } from '../../monitors/platforms';
import { showError, showInfo, showWarning, withNotificationProgress } from '../../notify';
import { Commands } from '../../commandIds';
import type { CommandContext } from '../../services/context';
import { requireTrust, UserError } from '../../words/errors';
import { parseArgs } from '../pick';
import { isScripted } from '../registry';
import { LaunchToastText, outcomeWords, spentText } from './reportText';
import { pickTask, readWorkspaceTaskFile } from './taskFile';
import { outcomeLine } from '../../view/launchRows';

/** A script's launch: the choices the pickers would ask (tests, tasks.json). */
export const RunTaskArgs = z.strictObject({
  file: z.string().min(1).max(4096).optional(),
  task: z.string().min(1).max(64).optional(),
  mode: z.enum(['run', 'smoke', 'resume', 'status']).optional(),
  /** Create (instance: new) and release (end: release) without asking, as `--yes`. */
  yes: z.boolean().optional(),
  /** Pin a first-contact host key without asking (a fresh loopback sshd). */
  acceptNewHostKey: z.boolean().optional(),
  /** The SSH login's password (else asked when the login wants one), offered only to the login `passwordFor` names (default: the task's first SSH login). */
  password: z.string().max(1024).optional(),
  passwordFor: z.string().min(1).max(2000).optional(),
  /** Watch-loop period, ms (tests). */
  pollMs: z.number().int().min(100).max(60_000).optional(),
});
export type RunTaskArgs = z.infer<typeof RunTaskArgs>;

type Mode = 'run' | 'smoke' | 'resume' | 'status';

const ROW_REFRESH_MS = 3000;

async function pickMode(task: Task, inProgress: LaunchState | undefined, sweep?: SweepState): Promise<Mode | undefined> {
  const items: (vscode.QuickPickItem & { mode: Mode })[] = [
    ...(inProgress ? [{ label: vscode.l10n.t('Continue'), description: vscode.l10n.t('the launch in progress: {0}', inProgress.phase), mode: 'resume' as const }] : []),
    ...(sweep ? [{ label: vscode.l10n.t('Continue'), description: vscode.l10n.t('the sweep in progress: {0} of {1} runs ended', sweep.members.filter((m) => m.status !== 'queued' && m.status !== 'running').length, sweep.members.length), mode: 'resume' as const }] : []),
    { label: vscode.l10n.t('Run'), description: vscode.l10n.t('the whole task'), mode: 'run' },
    { label: vscode.l10n.t('Smoke test first'), description: vscode.l10n.t('a few steps or minutes, then sync and end (what the report advises first)'), mode: 'smoke' },
    { label: vscode.l10n.t('Show status'), description: vscode.l10n.t('where the launch is; nothing runs'), mode: 'status' },
  ];
  const pick = await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('How to launch {0}', task.name) });
  return pick?.mode;
}

/**
 * A launch box's connection as the extension makes them for its instances (known hosts, keepalive
 * and timeouts from the settings). The saved instance's password is used only when exactly one
 * saved instance has this very login (two may hold different passwords, one stale). `ask`: the
 * trust prompt and the password prompt when nothing is saved; without it (a background read)
 * a new host key is not trusted and no password is asked.
 */
export function launchConnectOptions(ctx: CommandContext, label: string, ask: boolean): ConnectOptions {
  const s = ctx.settings();
  return {
    useDefaultKeys: true,
    keepaliveIntervalMs: s.keepaliveSeconds * 1000 || 0,
    connectTimeoutMs: s.readyTimeoutSeconds * 1000,
    acceptNew: false,
    confirmNewKey: ask ? (q) => confirmNewHostKey(label, q) : async () => false,
    askPassword: async (q) => {
      const id = savedPasswordInstance(ctx.store.list(), q);
      return (id ? await ctx.store.getPassword(id) : undefined) ?? (ask ? askLoginPassword(label, q) : null);
    },
    log: (m) => ctx.log.debug(`[launch ${label}] ${m}`),
  };
}

/** Run Task's connections: the above, with a script's password and first-contact pin. */
function connectOptionsFor(ctx: CommandContext, a: RunTaskArgs, box: AcquiredBox, firstLogin: string | undefined): ConnectOptions {
  return {
    ...launchConnectOptions(ctx, box.label, true),
    // A script's password is for the SSH login it names (passwordFor), never for a platform box (which has its own) or another login.
    ...(a.password && passwordMeantFor(box, a.passwordFor ?? firstLogin) ? { password: a.password } : {}),
    acceptNew: a.acceptNewHostKey === true,
  };
}

export async function accountsFor(platforms: PlatformMonitor): Promise<LaunchAccount[]> {
  const out: LaunchAccount[] = [];
  for (const a of platforms.accounts.list()) {
    const connector = await platforms.connector(a).catch(() => undefined);
    if (connector) out.push({ id: a.id, connector, powerActions: platforms.powerAllowed(a.id) });
  }
  return out;
}

/** The one notification at the end: outcome, spent, the end action; a modal when the box still bills. */
function tellOutcome(ctx: CommandContext, s: LaunchState): void {
  const statusButton = vscode.l10n.t('Launch Status');
  const open = (p: Thenable<string | undefined>) => void p.then((t) => t === statusButton && vscode.commands.executeCommand(Commands.launchStatus, vscode.Uri.file(s.file)));
  const outcome = s.outcome ? outcomeLine(outcomeWords(s.outcome.kind, vscode.l10n), s.outcome.detail) : s.phase;
  const end = s.end ? (s.end.ok ? vscode.l10n.t('End ({0}): done.', s.end.action) : vscode.l10n.t('End ({0}): NOT done: {1}', s.end.action, s.end.detail)) : '';
  const text = vscode.l10n.t('{0}: {1}. Spent {2}. {3}', s.task, outcome, spentText(s, ctx.now(), vscode.l10n), end);
  if (s.end?.stillBilling) {
    const box = [...s.boxes, ...(s.box ? [s.box] : [])].pop();
    const price = box?.priceFenPerHour !== undefined && box.priceFenPerHour !== null ? `${formatCny(box.priceFenPerHour)}/h` : '? ¥/h';
    open(showError(vscode.l10n.t('{0} is STILL BILLING ({1}): the end action did not power it off. Power it off yourself now (Power Off in the Instances view, or the platform console).', box?.label ?? s.task, price), { modal: true, detail: text, log: ctx.log }, statusButton));
    return;
  }
  if (s.phase === 'done') open(showInfo(text, { log: ctx.log }, statusButton));
  else open(showWarning(text, { log: ctx.log }, statusButton));
}

/** A sweep's end: how many runs ended how; a warning when one did not finish. */
function tellSweep(ctx: CommandContext, s: SweepState, file: string): void {
  const count = (st: SweepMemberState['status']) => s.members.filter((m) => m.status === st).length;
  // A shared box the sweep could not end (its last run never started, the end action refused): named, with what it bills.
  const billing = (s.boxEnds ?? [])
    .filter((b) => !b.ok)
    .map((b) => vscode.l10n.t('{0} is STILL BILLING ({1}): the sweep stopped before its last run and could not power it off. Power it off yourself now (Power Off in the Instances view, or the platform console).', b.label, b.fenPerHour !== null ? `${formatCny(b.fenPerHour)}/h` : '? ¥/h'));
  const text = [vscode.l10n.t('Sweep {0}: {1} run(s) done, {2} failed, {3} skipped of {4}.', s.sweep, count('done'), count('failed'), count('skipped'), s.members.length), ...billing].join(' ');
  const status = vscode.l10n.t('Launch Status');
  const shown = sweepExitCode(s) === 0 ? showInfo(text, { log: ctx.log }, status) : showWarning(text, { log: ctx.log }, status);
  void shown.then((b) => b === status && vscode.commands.executeCommand(Commands.launchStatus, vscode.Uri.file(file)));
}

function launchErrorText(e: LaunchError, task: string): string {
  switch (e.code) {
    case 'inProgress':
      return vscode.l10n.t('A launch of {0} is in progress: choose Continue to go on with it, or Show status to see where it is. ({1})', task, e.message);
    case 'busy':
      return vscode.l10n.t('Another GPU Rent (a window or gpu-rent launch) is driving the launch of {0} now. ({1})', task, e.message);
    case 'nothingToResume':
      return vscode.l10n.t('No launch of {0} to continue: choose Run. ({1})', task, e.message);
    case 'taskChanged':
    case 'endRefused':
      return e.message;
  }
}

/** gpuRent.runTask; a script gets the launch state at the end (or the state shown, for status). */
export async function runTask(ctx: CommandContext, platforms: PlatformMonitor, arg: unknown, unattended?: UnattendedHost, ledgerDir?: string): Promise<LaunchState | SweepState | undefined> {
  const scripted = isScripted(arg);
  const a = scripted ? parseArgs(RunTaskArgs, arg) : ({} as RunTaskArgs);
  const { file, tasks } = await readWorkspaceTaskFile(arg, a.file);
  const task = await pickTask(tasks, a.task, file);
  if (!task) return undefined;
  const home = configHome(process.env);
  const earlier = await launchStatus(home, file, task.name);
  // A sweep (matrix:) keeps its own state: one in progress is continued like a launch.
  const sweepEarlier = task.sweep ? await readSweepState(sweepStatePath(home, file, task.name)).catch(() => undefined) : undefined;
  const inProgress = earlier && !isFinished(earlier) ? earlier : undefined;
  const mode = a.mode ?? (await pickMode(task, inProgress, sweepEarlier && !sweepFinished(sweepEarlier) ? sweepEarlier : undefined));
  if (!mode) return undefined;
  if (mode === 'status') {
    await vscode.commands.executeCommand(Commands.launchStatus, scripted ? { file } : vscode.Uri.file(file));
    return earlier;
  }
  requireTrust();
  const poll = a.pollMs ?? (Number(process.env.GPU_RENT_LAUNCH_POLL_MS) || undefined);
  const ac = new AbortController();
  ctx.log.info(`[launch ${task.name}] ${mode} from ${file}`);
  // The tree's row follows the state file (saved at every reading) while this window drives the launch.
  const rowKey = `${file}#${task.name}`;
  let following = true;
  // The toast follows the row: the row's words (step, spent) with the latest event that is not a progress line.
  let report: ((st: LaunchState, line?: string) => void) | undefined;
  const follow = setInterval(() => void launchStatus(home, file, task.name).then((st) => st && following && (ctx.launches.setLaunch(rowKey, st), report?.(st)), () => undefined), ROW_REFRESH_MS);
  const title = mode === 'smoke' ? vscode.l10n.t('Smoke test of {0}', task.name) : mode === 'resume' ? vscode.l10n.t('Continuing the launch of {0}', task.name) : vscode.l10n.t('Launching {0}', task.name);
  try {
    const s = await withNotificationProgress<LaunchState | SweepState>({ title, cancellable: true }, (progress, token) => {
      token.onCancellationRequested(() => ac.abort());
      const toast = new LaunchToastText(vscode.l10n);
      report = (st, line) => {
        const message = toast.next(st, ctx.now(), line);
        if (message !== undefined) progress.report({ message });
      };
      const host: LaunchHost = {
        configHome: home,
        connectOptions: (box) => connectOptionsFor(ctx, a, box, task.instances.find((i) => i.kind === 'ssh')?.login),
        accounts: () => accountsFor(platforms),
        onEvent: (line, st) => {
          ctx.log.info(`[launch ${task.name}] ${line}`);
          if (following) ctx.launches.setLaunch(rowKey, st);
          report?.(st, line);
        },
        confirmCreate: async (what) => {
          const create = vscode.l10n.t('Create');
          return (await showWarning(vscode.l10n.t('Create {0}? It bills from the moment it runs.', what), { modal: true }, create)) === create;
        },
        confirmRelease: async (label) => {
          const release = vscode.l10n.t('Release');
          return (await showWarning(vscode.l10n.t('Release {0}? Its disks and everything on them are deleted (the checkpoints are home, verified).', label), { modal: true }, release)) === release;
        },
        signal: ac.signal,
        l10n: vscode.l10n,
        ...(poll ? { pollMs: poll } : {}),
        // Close the lid: the stores and message channels (SecretStorage) the box's supervisor and the end's message use.
        ...(unattended ? { unattended } : {}),
        // The ledger (Compare Runs) lives with the extension's other state, as Start Training's does.
        ...(ledgerDir ? { ledgerDir } : {}),
      };
      // A diverged run is stopped as gpuRent.training.onDiverged says for every run.
      const o = { file, task, smoke: mode === 'smoke', resume: mode === 'resume', yes: a.yes === true, catalog: ctx.catalog(), diverged: divergedPolicy() };
      if (task.sweep) {
        // A sweep: one launch per combination (app/launch/sweep.ts); each run gets its own row (watchRows), the toast says which started or ended.
        return launchSweep(o, {
          ...host,
          onEvent: (line) => ctx.log.info(`[sweep ${task.name}] ${line}`),
          onMember: (m) => {
            const line = vscode.l10n.t('run {0} ({1}): {2}', m.name, Object.entries(m.params).map(([k, v]) => `${k}=${String(v)}`).join(', '), m.status);
            ctx.log.info(`[sweep ${task.name}] ${line}${m.detail ? ` — ${m.detail}` : ''}`);
            progress.report({ message: line });
          },
        });
      }
      return launchTask(o, host);
    });
    if ('members' in s) {
      tellSweep(ctx, s, file);
      return s;
    }
    ctx.log.info(`[launch ${task.name}] ${s.phase}${s.outcome ? ` (${s.outcome.kind}): ${s.outcome.detail}` : ''}`);
    tellOutcome(ctx, s);
    return s;
  } catch (e) {
    if (e instanceof LaunchError) throw new UserError(launchErrorText(e, task.name));
    if (ac.signal.aborted) {
      ctx.log.info(`[launch ${task.name}] cancelled here; the run goes on on the box`);
      void showInfo(vscode.l10n.t('Stopped following {0} in this window. Whatever runs on the box goes on; the launch state is kept. To go on: Run Task on a Rented GPU… → Continue (or gpu-rent launch {0} --resume).', task.name), { log: ctx.log });
      return launchStatus(home, file, task.name);
    }
    throw e;
  } finally {
    following = false;
    clearInterval(follow);
    ctx.launches.setLaunch(rowKey, undefined);
  }
}

// The on-box watchdog: keeps watching while the laptop sleeps. Install (confirmed armed),
// status, remove.
import * as vscode from 'vscode';
import { showInfo, showWarning, withNotificationProgress } from '../../notify';
import { currentState } from '../../../core/spend';
import { InstallWatchdogArgs, WatchdogArgs } from '../../args';
import { guardFacts } from '../../guardDecisions';
import { formatDuration } from '../../view/present';
import type { CommandContext } from '../../services/context';
import { requireTrust, UserError } from '../../words/errors';
import { openOptions, parseArgs, pickInstance, powered } from '../pick';
import { isScripted } from '../registry';

const SHUTDOWN = 'shutdown -h now 2>/dev/null || poweroff 2>/dev/null || halt';

export async function installWatchdog(ctx: CommandContext, arg: unknown): Promise<{ armed: boolean; pid: number | null } | undefined> {
  requireTrust();
  const settings = ctx.settings();
  let a: ReturnType<typeof InstallWatchdogArgs.parse>;
  if (isScripted(arg) && 'action' in arg) a = parseArgs(InstallWatchdogArgs, arg);
  else {
    const inst = await pickInstance(ctx, arg, powered);
    if (!inst) return undefined;
    const pick = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('Run the final sync, then power off from inside the box'), description: vscode.l10n.t('AutoDL counts this as a stop: the GPU stops billing, the disk keeps billing'), action: 'shutdown' as const },
        { label: vscode.l10n.t('Run the final sync only, and log it'), description: vscode.l10n.t('you switch or release it in the console'), action: 'none' as const },
      ],
      { title: vscode.l10n.t('Watchdog on {0}: when the GPU has been idle for {1}…', inst.name, formatDuration(settings.idleWindowMinutes * 60, vscode.l10n)), ignoreFocusOut: true },
    );
    if (!pick) return undefined;
    const hook = await vscode.window.showInputBox({
      title: vscode.l10n.t('Final checkpoint sync, run on the box first (optional)'),
      prompt: vscode.l10n.t('Your sleeping laptop cannot pull checkpoints: push them somewhere, e.g. rclone copy /root/autodl-tmp/checkpoints remote:bucket'),
      value: settings.watchdogHookCommand,
      ignoreFocusOut: true,
    });
    if (hook === undefined) return undefined;
    a = InstallWatchdogArgs.parse({ id: inst.id, action: pick.action, ...(hook.trim() ? { hookCommand: hook.trim() } : {}) });
  }
  if (a.action === 'command' && !a.actionCommand) throw new UserError(vscode.l10n.t('Invalid arguments: {0}', 'actionCommand: required when action is "command"'));
  if (a.action !== 'command' && a.actionCommand) throw new UserError(vscode.l10n.t('Invalid arguments: {0}', 'actionCommand: only with action "command"'));
  const inst = ctx.sessions.powered(a.id);
  const facts = guardFacts(ctx.catalog(), inst.platform);
  const spot = a.spot ?? (currentState(inst.intervals) === 'spot' && facts.spotReclaimNotice === 'aliyunMetadata');
  const windowSeconds = a.windowSeconds ?? settings.idleWindowMinutes * 60;
  if (windowSeconds === 0 && !spot) throw new UserError(vscode.l10n.t('Invalid arguments: {0}', 'windowSeconds: 0 turns the idle watch off; without spot the watchdog would do nothing'));
  const { DEFAULT_JOB_DIRS } = await import('../../../remote/guards/probe');
  const { installWatchdog: install } = await import('../../../remote/guards/watchdog');
  const { spotTerminationUrl, tencentSpotTerminationUrl } = await import('../../../remote/guards/watchdog-script');
  const hookCommand = a.hookCommand ?? (settings.watchdogHookCommand || null);
  const config = {
    pollSeconds: a.pollSeconds,
    utilizationThresholdPct: a.thresholdPct ?? settings.idleUtilizationThresholdPct,
    idleWindowSeconds: windowSeconds,
    watchDirs: [...DEFAULT_JOB_DIRS, inst.sync?.remoteDir ?? settings.syncRemoteDir],
    hookCommand,
    hookTimeoutSeconds: a.hookTimeoutSeconds,
    actionCommand: a.action === 'shutdown' ? SHUTDOWN : a.action === 'command' ? a.actionCommand! : null,
    actionIfHookFails: a.actionIfHookFails,
    spotUrl: spot ? spotTerminationUrl() : null,
    spotTencentUrl: spot ? tencentSpotTerminationUrl() : null,
  };
  const { conn } = await ctx.sessions.open(inst.id, openOptions(a));
  const status = await withNotificationProgress({ title: vscode.l10n.t('Installing the watchdog on {0}…', inst.name) }, () => install(conn, config));
  ctx.log.info(`[${inst.id}] watchdog armed (pid ${status.pid ?? '?'}), window ${windowSeconds} s, action ${a.action}, hook ${hookCommand ? 'set' : 'none'}, spot ${spot}`);
  const what = a.action === 'shutdown' ? vscode.l10n.t('powers the box off') : a.action === 'command' ? vscode.l10n.t('runs your command') : vscode.l10n.t('logs it');
  const msg = vscode.l10n.t('The watchdog on {0} is armed: after {1} of idle GPU it runs the final sync, then {2}.', inst.name, formatDuration(windowSeconds, vscode.l10n), what);
  void showInfo(hookCommand ? msg : `${msg} ${vscode.l10n.t('No final sync hook is set: nothing saves your checkpoints first.')}`);
  return { armed: status.armed, pid: status.pid };
}

/** The instance a command that needs only its id is about, connected; undefined when the user cancelled. */
export async function connectedInstance(ctx: CommandContext, arg: unknown) {
  requireTrust();
  const a = isScripted(arg) ? parseArgs(WatchdogArgs, arg) : undefined;
  const picked = await pickInstance(ctx, a ?? arg, powered);
  if (!picked) return undefined;
  return ctx.sessions.open(picked.id, openOptions(a));
}

export async function watchdogStatus(ctx: CommandContext, arg: unknown): Promise<import('../../../remote/guards/watchdog').WatchdogStatus | undefined> {
  const target = await connectedInstance(ctx, arg);
  if (!target) return undefined;
  const { inst, conn } = target;
  const { watchdogStatus: status } = await import('../../../remote/guards/watchdog');
  const s = await status(conn);
  const last = s.events[s.events.length - 1];
  const msg = !s.installed
    ? vscode.l10n.t('No watchdog on {0}.', inst.name)
    : s.armed
      ? vscode.l10n.t('The watchdog on {0} is armed (last heartbeat {1} ago).', inst.name, formatDuration(s.heartbeatAgeSeconds ?? 0, vscode.l10n))
      : s.state?.kind === 'fired'
        ? vscode.l10n.t('The watchdog on {0} acted and exited.', inst.name)
        : vscode.l10n.t('The watchdog on {0} is installed but not running.', inst.name);
  for (const e of s.events.slice(-10)) ctx.log.info(`[${inst.id}] watchdog event ${new Date(e.at * 1000).toISOString()} ${e.kind} ${JSON.stringify(e.detail)}`);
  (s.installed && !s.armed && s.state?.kind !== 'fired' ? showWarning : showInfo)(last ? `${msg} ${vscode.l10n.t('Last event: {0}.', last.kind)}` : msg);
  return s;
}

export async function removeWatchdog(ctx: CommandContext, arg: unknown): Promise<{ wasInstalled: boolean; wasRunning: boolean } | undefined> {
  const target = await connectedInstance(ctx, arg);
  if (!target) return undefined;
  const { inst, conn } = target;
  const { removeWatchdog: remove } = await import('../../../remote/guards/watchdog');
  const r = await remove(conn);
  void showInfo(r.wasInstalled ? vscode.l10n.t('Removed the watchdog from {0}.', inst.name) : vscode.l10n.t('No watchdog on {0}.', inst.name));
  return r;
}

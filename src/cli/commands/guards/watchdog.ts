// `gpu-rent watchdog install|status|remove TARGET`: the on-box watchdog that acts when the
// laptop is asleep. Installed only on request; install verifies it is armed.
import { forTerminalLines } from '../../../core/text';
import { DEFAULT_JOB_DIRS } from '../../../remote/guards/probe';
import { installWatchdog, removeWatchdog, watchdogStatus, type WatchdogStatus } from '../../../remote/guards/watchdog';
import { ALIYUN_METADATA_HOST, spotTerminationUrl, TENCENT_METADATA_HOST, tencentSpotTerminationUrl, type WatchdogConfig } from '../../../remote/guards/watchdog-script';
import { UsageError } from '../../args';
import { t } from '../../words';
import { defineCommand } from '../../define';
import type { CliLang } from '../../lang';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../../remote-common';
import { durationText } from './pricing';

const specs = {
  window: { type: 'number', valueName: 'SECONDS', min: 0, max: 7 * 86400, integer: true, description: 'act after the GPU has been quiet this long (default 1800; 0 = watch only for spot reclaim notices)', zh: 'GPU 空闲这么久后执行动作（默认 1800；0 = 只监视竞价回收通知）' },
  threshold: { type: 'number', valueName: 'PCT', min: 1, max: 100, integer: true, description: 'a GPU at or above this utilisation is working (default 10)', zh: '利用率达到或超过此值的 GPU 视为在工作（默认 10）' },
  poll: { type: 'number', valueName: 'SECONDS', min: 1, max: 3600, integer: true, description: 'seconds between checks on the box (default 60)', zh: '机器上两次检查之间的秒数（默认 60）' },
  hook: { type: 'string', valueName: 'CMD', description: 'final checkpoint sync to run first, e.g. "rclone copy /root/autodl-tmp/ckpt oss:bucket/ckpt"', zh: '先运行的最后一次检查点同步，例如 "rclone copy /root/autodl-tmp/ckpt oss:bucket/ckpt"' },
  'hook-timeout': { type: 'number', valueName: 'SECONDS', min: 1, max: 86400, integer: true, description: 'give the hook this long (default 1800)', zh: '给 hook 的时长（默认 1800）' },
  action: { type: 'string', choices: ['none', 'shutdown', 'command'], description: 'what to do when idle: none (hook only, logged), shutdown (power off from inside the box), command (--action-command)', zh: '空闲时做什么：none（只运行 hook，记入日志）、shutdown（在机器内关机）、command（--action-command）' },
  'action-command': { type: 'string', valueName: 'CMD', description: 'shell command for --action command', zh: '--action command 时运行的 shell 命令' },
  'action-if-hook-fails': { type: 'boolean', description: 'run the action even when the hook failed (default: skip it, keep the box)', zh: 'hook 失败也执行动作（默认：跳过动作，保留机器）' },
  spot: { type: 'boolean', description: `watch the spot termination notice (阿里云 metadata at ${ALIYUN_METADATA_HOST} with its token, 腾讯云 at ${TENCENT_METADATA_HOST}) and run the hook when a reclaim is announced`, zh: `监视竞价实例的回收通知（阿里云元数据服务 ${ALIYUN_METADATA_HOST}，带令牌；腾讯云 ${TENCENT_METADATA_HOST}），宣布回收时运行 hook` },
  'spot-metadata': { type: 'string', valueName: 'HOST[:PORT]', description: 'metadata service address for --spot (default 100.100.100.200)', zh: '--spot 的元数据服务地址（默认 100.100.100.200）' },
  'watch-dir': { type: 'string', valueName: 'DIR', repeat: true, description: `folder on the box whose writes count as progress (default ${DEFAULT_JOB_DIRS.join(', ')}; repeatable)`, zh: `机器上的文件夹，其中的写入算作进展（默认 ${DEFAULT_JOB_DIRS.join(', ')}；可重复）` },
  json: { type: 'boolean', description: 'print the status as JSON', zh: '以 JSON 输出状态' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent watchdog install|status|remove TARGET [--window SECONDS] [--hook CMD] [--action none|shutdown|command] [--spot]';
const SUMMARY = [
  'An on-box watchdog that keeps guarding while your laptop sleeps: when every GPU stays under the threshold with no compute process and no job output for the window, it runs your final checkpoint hook, then the action. With --spot it runs the hook when 阿里云 (read with its metadata token) or 腾讯云 announces a spot reclaim.',
  'What the box can do by itself: power off (AutoDL documents `shutdown` inside an instance as a stop: the GPU stops billing, the data disk keeps billing) or run your command. It cannot switch to a platform\'s no-GPU mode or release the instance: those need the console. The hook must push checkpoints somewhere (object storage, a network drive): your sleeping laptop cannot pull them.',
  TARGET_HELP,
].join('\n\n');

const SHUTDOWN = 'shutdown -h now 2>/dev/null || poweroff 2>/dev/null || halt';

function statusTextZh(s: WatchdogStatus): string {
  const lang: CliLang = 'zh-cn';
  if (!s.installed) return '看门狗：未安装\n';
  const d = (x: number) => durationText(x, lang);
  const lines = [`看门狗：${s.armed ? '已就绪' : s.running ? '在运行（心跳迟到）' : s.state?.kind === 'fired' ? '已执行并退出' : '没有运行'}${s.pid ? `（pid ${s.pid}）` : ''}`];
  if (s.heartbeatAgeSeconds !== null) lines.push(`上次心跳在 ${d(s.heartbeatAgeSeconds)} 前；每 ${s.pollSeconds ?? '?'} 秒检查一次`);
  if (s.idleWindowSeconds) lines.push(`安静 ${d(s.idleWindowSeconds)} 后执行`);
  else lines.push('闲置监视已关闭（只看抢占回收通知）');
  if (s.state && s.now !== null) {
    const ago = d(Math.max(0, s.now - s.state.at));
    lines.push({ quiet: `GPU 从 ${ago} 前起一直安静`, busy: `GPU 忙碌（上次看到在 ${ago} 前）`, unknown: `没有 GPU 读数（上次尝试在 ${ago} 前）；从不当作闲置`, fired: `${ago} 前已执行` }[s.state.kind]);
  }
  const recent = s.events.slice(-8);
  if (recent.length) {
    lines.push('最近的事件：');
    // The event kinds and details are the box script's own words (data), kept as written.
    for (const e of recent) lines.push(`  ${new Date(e.at * 1000).toISOString().replace('.000Z', 'Z')}  ${e.kind}${e.detail ? ` ${e.detail}` : ''}`);
  }
  return lines.join('\n') + '\n';
}

export function statusText(s: WatchdogStatus, lang: CliLang = 'en'): string {
  if (lang === 'zh-cn') return statusTextZh(s);
  if (!s.installed) return 'watchdog: not installed\n';
  const lines = [
    `watchdog: ${s.armed ? 'ARMED' : s.running ? 'running (heartbeat late)' : s.state?.kind === 'fired' ? 'fired and exited' : 'NOT running'}${s.pid ? ` (pid ${s.pid})` : ''}`,
  ];
  if (s.heartbeatAgeSeconds !== null) lines.push(`last heartbeat ${durationText(s.heartbeatAgeSeconds)} ago; checks every ${s.pollSeconds ?? '?'} s`);
  if (s.idleWindowSeconds) lines.push(`acts after ${durationText(s.idleWindowSeconds)} quiet`);
  else lines.push('idle watch off (spot notices only)');
  if (s.state && s.now !== null) {
    const ago = durationText(Math.max(0, s.now - s.state.at));
    lines.push(
      {
        quiet: `GPU quiet since ${ago} ago`,
        busy: `GPU busy (last seen ${ago} ago)`,
        unknown: `no GPU reading (last tried ${ago} ago); never treated as idle`,
        fired: `acted ${ago} ago`,
      }[s.state.kind],
    );
  }
  const recent = s.events.slice(-8);
  if (recent.length) {
    lines.push('recent events:');
    for (const e of recent) lines.push(`  ${new Date(e.at * 1000).toISOString().replace('.000Z', 'Z')}  ${e.kind}${e.detail ? ` ${e.detail}` : ''}`);
  }
  return lines.join('\n') + '\n';
}

const SUMMARY_ZH = [
  '机器上的看门狗，在你的笔记本休眠时继续守护：在观察时长内每块 GPU 都低于阈值、没有计算进程也没有任务输出时，先运行你的最终检查点钩子，再执行动作。加 --spot 时，阿里云（用元数据令牌读取）或腾讯云宣布回收抢占式实例就运行钩子。',
  '机器自己能做的：关机（AutoDL 文档说明在实例内 `shutdown` 等于关机：GPU 停止计费，数据盘继续计费）或运行你的命令。它不能切换到平台的无卡模式，也不能释放实例：那需要控制台。钩子必须把检查点推到别处（对象存储、网络盘）：休眠的笔记本拉不了。',
  TARGET_HELP_ZH,
].join('\n\n');

type WatchdogResult = { verb: 'remove'; wasInstalled: boolean; wasRunning: boolean } | { verb: 'install' | 'status'; s: WatchdogStatus };

export const command: CliCommand = defineCommand({
  name: 'watchdog',
  summary: 'Install, check or remove the on-box idle/spot watchdog (acts while the laptop sleeps).',
  summaryZh: '安装、检查或删除机器上的闲置/抢占看门狗（笔记本休眠时也会执行）。',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 2, names: 'install|status|remove TARGET' },
  run: async (flags, { io, lang, json, positionals }): Promise<WatchdogResult> => {
    const verb = positionals[0];
    if (verb !== 'install' && verb !== 'status' && verb !== 'remove') throw new UsageError(`expects install, status or remove first, got ${verb === undefined ? 'nothing' : `"${verb}"`}`, `第一个参数应为 install、status 或 remove，却是${verb === undefined ? '空的' : ` "${verb}"`}`);
    let config: WatchdogConfig | null = null;
    if (verb === 'install') {
      const action = flags.action;
      if (!action) throw new UsageError('--action is required for install: none, shutdown or command', 'install 必须给出 --action：none、shutdown 或 command');
      if (action === 'command' && !flags['action-command']) throw new UsageError('--action command needs --action-command CMD', '--action command 需要 --action-command CMD');
      if (action !== 'command' && flags['action-command']) throw new UsageError('--action-command goes with --action command', '--action-command 要和 --action command 一起用');
      if (flags['spot-metadata'] && !flags.spot) throw new UsageError('--spot-metadata goes with --spot', '--spot-metadata 要和 --spot 一起用');
      const window = flags.window ?? 1800;
      if (window === 0 && !flags.spot) throw new UsageError('--window 0 turns the idle watch off; add --spot, or the watchdog would do nothing', '--window 0 会关闭闲置监视；请加 --spot，否则看门狗什么也不做');
      config = {
        pollSeconds: flags.poll ?? 60,
        utilizationThresholdPct: flags.threshold ?? 10,
        idleWindowSeconds: window,
        watchDirs: flags['watch-dir'] ?? DEFAULT_JOB_DIRS,
        hookCommand: flags.hook ?? null,
        hookTimeoutSeconds: flags['hook-timeout'] ?? 1800,
        actionCommand: action === 'shutdown' ? SHUTDOWN : action === 'command' ? flags['action-command']! : null,
        actionIfHookFails: flags['action-if-hook-fails'] === true,
        spotUrl: flags.spot ? spotTerminationUrl(flags['spot-metadata'] ?? ALIYUN_METADATA_HOST) : null,
        spotTencentUrl: flags.spot ? tencentSpotTerminationUrl(flags['spot-metadata'] ?? TENCENT_METADATA_HOST) : null,
      };
    } else {
      for (const f of ['window', 'threshold', 'poll', 'hook', 'hook-timeout', 'action', 'action-command', 'action-if-hook-fails', 'spot', 'spot-metadata', 'watch-dir'] as const) {
        if (flags[f] !== undefined) throw new UsageError(`--${f} goes with install`, `--${f} 只用于 install`);
      }
    }
    return withRemote(positionals[1], flags, io, async (conn) => {
      if (verb === 'remove') {
        const r = await removeWatchdog(conn);
        return { verb, wasInstalled: r.wasInstalled, wasRunning: r.wasRunning };
      }
      const s = verb === 'install' ? await installWatchdog(conn, config!) : await watchdogStatus(conn);
      // The note follows the status in text only.
      if (!json && verb === 'install' && config && !config.hookCommand) io.stderr(forTerminalLines(t(lang, 'note: no --hook: nothing syncs your checkpoints before the action\n', '注意：没有 --hook：执行动作前没有任何东西同步你的检查点\n')));
      return { verb, s };
    });
  },
  // remove has no JSON form: its line is printed under --json too.
  // A status that exits 1 (installed, not armed) carries the error beside it.
  json: (r) => (r.verb === 'remove' ? undefined : notArmed(r) ? { ...r.s, error: { code: 'not-armed', message: `the watchdog is installed but not armed: ${r.s.running ? 'its heartbeat is late' : 'it is not running'}` } } : r.s),
  text: (r, lang) => {
    if (r.verb !== 'remove') return forTerminalLines(statusText(r.s, lang));
    if (lang === 'zh-cn') return forTerminalLines(!r.wasInstalled ? '看门狗：本来就没有安装\n' : `看门狗：已删除${r.wasRunning ? '（它原本在运行）' : ''}\n`);
    return forTerminalLines(!r.wasInstalled ? 'watchdog: was not installed\n' : `watchdog: removed${r.wasRunning ? ' (it was running)' : ''}\n`);
  },
  // A status that is installed but not armed (and has not fired) is 1, in both formats.
  exit: (r) => (notArmed(r) ? 1 : 0),
});

/** A status whose watchdog is installed but not armed (and has not fired). */
function notArmed(r: { verb: string; s?: { installed: boolean; armed: boolean; state?: { kind: string } | null | undefined } }): boolean {
  return r.verb === 'status' && r.s !== undefined && r.s.installed && !r.s.armed && r.s.state?.kind !== 'fired';
}

// Shared by run, jobs, logs and stop: `--nodes A,B[,…]` (one run across several boxes, each a
// TARGET; rank = position) and `run --then …` (wait for the job, the verified final sync, then
// the power action: a failed sync stops it and says so).
import { formatCny } from '../../core/money';
import { forTerminal } from '../../core/text';
import { END_ACTIONS, estimateFinish, type EndAction, type Progress, type RunPrice } from '../../core/progress';
import type { RemoteConnection } from '../../remote/connection';
import { listJobs, type JobInfo } from '../../remote/jobs';
import { SshPool } from '../../app/pool';
import type { RunNode } from '../../app/runs/multinode';
import type { Instance } from '../../core/instances';
import { UsageError, type FlagSpecs } from '../args';
import type { CliIO } from '../command';
import { asCliError, connectOptions, targetFromArg, type RemoteFlags } from '../remote-common';
import { knownHostsName } from '../../remote/target';
import { sleep } from '../../remote/util/sleep';
import { cliLang } from '../lang';
import { l10nIn, t } from '../words';
import { endLogLine, endStepLine, stillBillingText, type PowerRefusal } from './run-words';

export const NODES_FLAG = {
  nodes: { type: 'string', valueName: 'A,B[,…]', description: 'one run across these boxes (each a TARGET; the first is rank 0); instead of TARGET', zh: '一次运行跨这些机器（每个都是 TARGET；第一个为 rank 0）；代替 TARGET' },
} as const satisfies FlagSpecs;

export const THEN_FLAGS = {
  then: { type: 'string', valueName: 'ACTION', choices: END_ACTIONS, description: 'when the job ends: nothing (default), sync, sync-then-no-gpu, sync-then-power-off. gpu-rent waits for the job; the sync must succeed (verified) before any power action', zh: '任务结束时：nothing（默认）、sync、sync-then-no-gpu、sync-then-power-off。gpu-rent 等待任务结束；同步必须成功（经过校验）才会执行任何开关机操作' },
  'sync-remote': { type: 'string', valueName: 'DIR', description: 'with --then: checkpoint folder on the box (absolute)', zh: '配合 --then：机器上的检查点文件夹（绝对路径）' },
  'sync-local': { type: 'string', valueName: 'DIR', description: 'with --then: local folder to sync into', zh: '配合 --then：同步到的本地文件夹' },
  'power-off-command': { type: 'string', valueName: 'CMD', description: 'with --then sync-then-power-off: how the box powers itself off (default: shutdown -h now as root, sudo -n shutdown -h now where sudo allows it; a login that can do neither is refused before the job starts). Verified either way: the box must stop answering SSH within GPU_RENT_POWER_VERIFY_SECONDS (default 120)', zh: '配合 --then sync-then-power-off：机器如何自行关机（默认：root 用 shutdown -h now，sudo 允许时用 sudo -n shutdown -h now；两者都做不到的登录在任务开始前就被拒绝）。两种方式都会校验：机器必须在 GPU_RENT_POWER_VERIFY_SECONDS（默认 120）秒内不再响应 SSH' },
} as const satisfies FlagSpecs;

export function nodeList(text: string): string[] {
  const list = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (list.length < 2) throw new UsageError('--nodes expects two or more TARGETs separated by commas', '--nodes 需要两个或更多用逗号分隔的 TARGET');
  if (list.length > 64) throw new UsageError('--nodes takes at most 64 nodes', '--nodes 最多 64 个节点');
  return list;
}

/** Connects to every node through one pool owned by this command; always closes it. */
export async function withNodes<T>(text: string, flags: RemoteFlags, io: CliIO, fn: (nodes: RunNode[]) => Promise<T>): Promise<T> {
  const list = nodeList(text);
  const targets = list.map((t) => targetFromArg(t, io));
  const pool = new SshPool();
  try {
    const nodes = await Promise.all(targets.map(async (target, i) => ({ label: list[i]!, conn: await pool.get(`${i}:${target.user ?? ''}@${knownHostsName(target.host, target.port)}`, target, connectOptions(flags, io)) })));
    return await fn(nodes);
  } catch (e) {
    throw asCliError(e);
  } finally {
    pool.dispose();
  }
}

export interface ThenFlags {
  then?: string;
  'sync-remote'?: string;
  'sync-local'?: string;
  'power-off-command'?: string;
  lang?: string;
  /** The card the job runs on, for the ledger where nvidia-smi cannot tell. */
  card?: string;
}

export function checkThen(f: ThenFlags): EndAction {
  const then = (f.then ?? 'nothing') as EndAction;
  if (then !== 'nothing' && (!f['sync-remote'] || !f['sync-local'])) throw new UsageError(`--then ${then} needs --sync-remote DIR and --sync-local DIR (the final checkpoint sync runs first)`, `--then ${then} 需要 --sync-remote DIR 和 --sync-local DIR（先做最后一次检查点同步）`);
  if (f['sync-remote'] && !f['sync-remote'].startsWith('/')) throw new UsageError('--sync-remote must be an absolute path on the box', '--sync-remote 必须是机器上的绝对路径');
  // No-GPU mode is a platform API call (the box cannot switch itself); gpu-rent run has only the box.
  if (then === 'sync-then-no-gpu') throw new UsageError('--then sync-then-no-gpu cannot happen from gpu-rent run: only a platform account\'s API switches a box to no-GPU mode (AutoDL console token). Use --then sync, then gpu-rent power-off / the console', '--then sync-then-no-gpu 无法由 gpu-rent run 完成：只有平台账号的 API 能把机器切换到无卡模式（AutoDL 控制台令牌）。请用 --then sync，然后用 gpu-rent power-off 或控制台');
  if (f['power-off-command'] !== undefined && then !== 'sync-then-power-off') throw new UsageError('--power-off-command is for --then sync-then-power-off', '--power-off-command 只用于 --then sync-then-power-off');
  return then;
}

export const POWER_VERIFY_ENV = 'GPU_RENT_POWER_VERIFY_SECONDS';

/** Seconds the box may keep answering SSH after its power-off (GPU_RENT_POWER_VERIFY_SECONDS, 1-1800, default 120). */
export function powerVerifySeconds(env: NodeJS.ProcessEnv): number {
  const v = Number(env[POWER_VERIFY_ENV]);
  return Number.isInteger(v) && v >= 1 && v <= 1800 ? v : 120;
}

/**
 * Before the job starts: how the box will power itself off, or why it cannot (then the run is
 * refused: a power-off that cannot happen is not discovered at the end). The user's own
 * --power-off-command is taken as given; the end verifies it like any other.
 */
export async function powerOffPlan(conn: RemoteConnection, then: EndAction, f: ThenFlags): Promise<{ command: string | null; refusal?: PowerRefusal }> {
  if (then !== 'sync-then-power-off') return { command: null };
  if (f['power-off-command'] !== undefined) return { command: f['power-off-command'] };
  const { probeBoxPower, boxPowerOffCommand } = await import('../../app/runs/boxPower');
  const p = await probeBoxPower(conn);
  const command = boxPowerOffCommand(p.power);
  if (command) return { command };
  // A code with its facts: the words (powerRefusalText) follow the CLI's language.
  return { command: null, refusal: p.power === 'none' ? { code: 'not-root-no-sudo', user: p.user } : { code: 'power-unknown' } };
}

/** The ended job into the ledger ($GPU_RENT_HOME/runs.jsonl, issue 42): a failure to record is said and never stops the end action. */
async function recordEnd(conn: RemoteConnection, info: JobInfo, tail: { update: (c: RemoteConnection) => Promise<{ progress: Progress }>; progress: Progress } | undefined, f: ThenFlags, io: CliIO, price: RunPrice | null, lang: ReturnType<typeof cliLang>): Promise<void> {
  try {
    // The log's last lines, written after the last poll.
    const progress = tail ? ((await tail.update(conn).catch(() => undefined))?.progress ?? tail.progress) : null;
    const { recordJobEnd } = await import('../../app/ledger/jobEnd');
    const { configHome } = await import('../../app/platforms/accountFile');
    const rec = await recordJobEnd(configHome(io.env), conn, { kind: 'run', job: info, progress, price, card: f.card ?? null, instance: knownHostsName(conn.target.host, conn.target.port), checkpoints: { box: f['sync-remote'] ?? null, local: f['sync-local'] ?? null } });
    io.stderr(t(lang, '[{0}] recorded as run {1} (gpu-rent runs)\n', '[{0}] 已记为运行 {1}（gpu-rent runs）\n', info.name, rec.id));
  } catch (e) {
    io.stderr(t(lang, '[{0}] not recorded in the ledger: {1}\n', '[{0}] 未记入账本：{1}\n', info.name, forTerminal(e instanceof Error ? e.message : String(e))));
  }
}

/** Waits for the job to end (progress on stderr), then runs the end action; returns the exit status for the CLI. */
export async function waitThenAct(conn: RemoteConnection, job: { name: string }, then: EndAction, f: ThenFlags, io: CliIO, price: RunPrice | null, powerOff: string | null = null): Promise<number> {
  const { LogTail } = await import('../../app/runs/logTail');
  const { progressLine } = await import('../../app/runs/progress');
  const { armAfterJob, disarmAfterJob } = await import('../../app/runs/onBox');
  // If this command is killed or the laptop sleeps, the box still powers off after the grace time.
  if (then === 'sync-then-power-off' && powerOff) await armAfterJob(conn, job.name, { actionCommand: powerOff });
  let info: JobInfo | undefined;
  let tail: InstanceType<typeof LogTail> | undefined;
  let shown = '';
  for (;;) {
    info = (await listJobs(conn, { name: job.name }))[0];
    if (!info || (info.state !== 'running' && info.state !== 'starting')) break;
    tail ??= new LogTail(info.logPath);
    const u = await tail.update(conn).catch(() => undefined);
    if (u) {
      const line = progressLine(u.progress, estimateFinish(u.progress, price, { boxNow: u.chunk.boxNow ?? Date.now() / 1000, localNow: Date.now() / 1000, alive: true }), formatCny, undefined, l10nIn(cliLang(f.lang, io.env)));
      if (line && line !== shown) io.stderr(`[${job.name}] ${(shown = line)}\n`);
    }
    await sleep(2000);
  }
  const lang = cliLang(f.lang, io.env);
  const zh = lang === 'zh-cn';
  if (info) await recordEnd(conn, info, tail, f, io, price, lang);
  if (zh) io.stderr(`[${job.name}] 已结束：${info ? (info.state === 'exited' ? `退出码 ${info.exitCode}` : info.state) : '已不存在'}\n`);
  else io.stderr(`[${job.name}] ended: ${info ? (info.state === 'exited' ? `exit ${info.exitCode}` : info.state) : 'gone'}\n`);
  const { runEndAction, syncOutcomeOf } = await import('../../app/runs/endAction');
  const { powerOffFromBox } = await import('../../app/runs/boxPower');
  const { syncOnce } = await import('../../remote/sync');
  const { syncRemote } = await import('../../app/sync');
  const inst = { id: conn.target.host, intervals: [] } as unknown as Instance;
  const r = await runEndAction(then, inst, {
    sync: async () => syncOutcomeOf(await syncOnce(syncRemote(conn), { remoteDir: f['sync-remote']!, localDir: f['sync-local']!, durable: true })),
    power: undefined,
    ...(powerOff ? { powerOffFromBox: () => powerOffFromBox(conn, powerOff, { verifySeconds: powerVerifySeconds(io.env), pollMs: 1000, log: (l, said) => io.stderr(`[${job.name}] ${forTerminal(endLogLine(l, said, lang, inst.id))}\n`) }) } : {}),
    log: (l, said) => io.stderr(`${forTerminal(endLogLine(l, said, lang, inst.id))}\n`),
  });
  // The step's code and detail are the app layer's (also in the log); the verdict in the user's words.
  for (const s of r.steps) io.stdout(forTerminal(endStepLine(s, lang)) + '\n');
  if (r.stopped === 'syncFailed') {
    // No verified copy: the box's own power-off stands down too (a stop may clear a data disk).
    if (then === 'sync-then-power-off') await disarmAfterJob(conn, job.name).catch(() => undefined);
    io.stdout(t(lang, 'the final sync failed: the box was NOT powered off and keeps billing\n', '最后一次同步失败：机器没有关机，仍在计费\n'));
  }
  const billing = stillBillingText(r, price ? `${formatCny(price.computeFenPerHour + Math.round(price.storageFenPerDay / 24))}/h` : null, lang);
  if (billing) {
    const armed = then === 'sync-then-power-off' && r.stopped !== 'syncFailed' ? (zh ? `机器自己的关机仍然待命（~/.gpu-rent/after-job/${job.name}），会在任务结束 15 分钟后再试；也可以用 gpu-rent power-off 或在平台控制台关机。` : ` The box's own power-off stays armed (~/.gpu-rent/after-job/${job.name}) and tries again 15 min after the job's end; power it off with gpu-rent power-off or in the platform's console.`) : '';
    io.stderr(forTerminal(`gpu-rent run: ${billing}${zh ? '。' : '.'}${armed}`) + '\n');
  }
  return r.ok && (info?.exitCode ?? 0) === 0 ? 0 : 1;
}

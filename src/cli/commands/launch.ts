// `gpu-rent launch [TASK] [--file F] [--smoke] [--resume] [--status] [--yes] [--json]`: a task
// from gpu-rent.yaml run end to end (src/app/launch/run.ts): acquire, check, push, setup, run,
// verified syncs, the end action. Every step goes to stderr as it happens; the state is kept
// on disk, so a killed launch continues with --resume.
import { join } from 'node:path';
import { statSync } from 'node:fs';
import { formatCny } from '../../core/money';
import { launchExitCode, spentFen, stagingSavedFen, type LaunchState } from '../../core/task/launch';
import { ON_DIVERGED, divergedPolicyOf } from '../../app/runs/diverged';
import { passwordMeantFor } from '../../app/launch/password';
import { boxUnreadLine, boxViewLine, outcomeText, progressText } from '../../app/launch/words';
import type { Task } from '../../core/task/types';
import type { LaunchHost, LaunchOptions } from '../../app/launch/run';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { configHome } from '../../app/platforms/accountFile';
import { readChannelFile, SENT_JOURNAL_FILE } from '../../app/notify/channelFile';
import { readStoreFile } from '../../app/storage/stores';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand } from '../command';
import { jsonError } from '../json-error';
import { loadCatalog } from '../catalog-file';
import type { CliIO } from '../command';

function fail(io: CliIO, code: string, message: string, exit: number): number {
  io.stdout(jsonError(code, message));
  return exit;
}
import { connectOptions, promptLine, REMOTE_FLAGS } from '../remote-common';
import { cliLang, type CliLang } from '../lang';
import { onInterrupt } from '../interrupt';
import { fill, helpLang, l10nIn, t } from '../words';

const specs = {
  file: { type: 'string', short: 'f', valueName: 'FILE', description: 'the task file (default ./gpu-rent.yaml, else ./gpu-rent.yml)', zh: '任务文件（默认 ./gpu-rent.yaml，其次 ./gpu-rent.yml）' },
  smoke: { type: 'boolean', description: "the small test first: stop after the task's smoke steps or minutes (default 20 steps or 5 min), sync, end", zh: '先做小测试：跑到任务的 smoke 步数或分钟数就停（默认 20 步或 5 分钟），同步，结束' },
  resume: { type: 'boolean', description: 'continue the launch in progress (after Ctrl-C, a crash, the laptop sleeping)', zh: '继续进行中的启动（在 Ctrl-C、崩溃、笔记本休眠之后）' },
  status: { type: 'boolean', description: 'show where the launch is (step, box, progress, spent, last sync) and do nothing', zh: '只显示启动进行到哪里（步骤、机器、进度、花费、上次同步），不做任何事' },
  yes: { type: 'boolean', description: 'do not ask: instance: new creates, end: release releases (after the verified final sync)', zh: '不询问：instance: new 直接创建，end: release 直接释放（在最终同步校验之后）' },
  json: { type: 'boolean', description: 'print the launch state as JSON at the end (with --status: now)', zh: '结束时以 JSON 输出启动状态（配合 --status：立即输出）' },
  catalog: { type: 'string', valueName: 'FILE', description: 'JSON file of price overrides merged over the built-in catalog (the quote before renting)', zh: '覆盖内置价格目录的 JSON 文件（租用前报价用）' },
  'on-diverged': { type: 'string', valueName: 'WHAT', choices: ON_DIVERGED, description: "a run whose loss is NaN/Inf: off (said in every line and at the end; the default), stop (after --diverged-readings such readings in a row, then the task's end action), stopThenNoGpu, stopThenPowerOff (as gpuRent.training.onDiverged)", zh: 'loss 为 NaN/Inf 的训练：off（每行和结束时都会说明；默认）、stop（连续 --diverged-readings 次之后停止，然后执行任务的结束动作）、stopThenNoGpu、stopThenPowerOff（同 gpuRent.training.onDiverged）' },
  'diverged-readings': { type: 'number', valueName: 'N', integer: true, min: 1, max: 100000, description: 'with --on-diverged: non-finite loss readings in a row before the stop (default 20)', zh: '配合 --on-diverged：连续多少次非有限的 loss 读数后停止（默认 20）' },
  'password-for': { type: 'string', valueName: 'USER@HOST[:PORT]', description: "the SSH login GPU_RENT_PASSWORD is meant for: it is offered to that login only (never to another login a task file names, nor to a platform instance)", zh: 'GPU_RENT_PASSWORD 所属的 SSH 登录：只提供给这个登录（绝不提供给任务文件写的其他登录，也不提供给平台实例）' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent launch [FILE.yaml] [TASK] [--file gpu-rent.yaml] [--smoke] [--resume] [--status] [--yes] [--json]';
const SUMMARY = [
  'Runs a task from gpu-rent.yaml end to end: gets the box (an SSH login, an instance by name',
  '— powered on, waiting for a card — or a new one), checks the GPU (a red doctor verdict stops',
  'before hours are paid), pushes the workdir as git sees it (.gitignore respected, secret-scanned),',
  'runs setup and the run detached (they survive a dropped link), shows progress, ETA and ¥ to finish,',
  'syncs checkpoints (verified) every interval, and ends with the end action (no-gpu, power-off,',
  'release) only after the final sync is verified. A budget cap stops the run (sync first) when the',
  'projected cost passes it. A reclaimed spot box relaunches on the next instance from the last',
  'checkpoint (resume: with {checkpoint}). The state is kept in ~/.config/gpu-rent/launches/:',
  'a killed launch continues with --resume. TASK is a task name in the file (default: its first task).',
].join('\n');

const SUMMARY_ZH = [
  '从 gpu-rent.yaml 完整运行一个任务：拿到机器（SSH 登录、按名称找实例——开机、等卡——或新建一台），',
  '检查 GPU（doctor 结论为红色时，在付钱跑几个小时之前就停下），按 git 的视角上传工作目录（遵守 .gitignore，',
  '扫描密钥），在后台运行 setup 和训练（断线不影响），显示进度、预计完成时间和跑完的花费（¥），',
  '每隔一段时间同步检查点（逐个校验），只有在最终同步校验通过后才执行结束动作（no-gpu、power-off、',
  'release）。设了预算上限时，预计花费超过就停下训练（先同步）。被回收的抢占式机器会从最后的检查点',
  '在下一台实例上重新启动（resume: 配合 {checkpoint}）。状态保存在 ~/.config/gpu-rent/launches/：',
  '被中断的启动用 --resume 继续。TASK 是文件中的任务名（默认：第一个任务）。',
].join('\n');

/** Reads and validates the task file; a UsageError names the line and field of every problem. */
export async function readTaskFileOrExit(flagFile: string | undefined, cwd: string): Promise<{ file: string; tasks: Task[] }> {
  const { readTaskFile, taskFileErrorLines, taskFileUnreadableText } = await import('../../app/launch/taskFile');
  const r = await readTaskFile(cwd, flagFile);
  if (r.ok) return r;
  const zh = l10nIn('zh-cn');
  if (r.kind === 'notFound') {
    throw new UsageError(
      `no task file: ${r.looked.join(' or ')} not found (write one: gpu-rent launch --help, the README's "Launch a task")`,
      fill('没有任务文件：找不到 {0}（写一个：gpu-rent launch --help，README 的 “Launch a task” 一节）', r.looked.join(' 或 ')),
    );
  }
  if (r.kind === 'unreadable') {
    throw new UsageError(`cannot read the task file ${r.file}: ${taskFileUnreadableText(r)}`, fill('无法读取任务文件 {0}：{1}', r.file, taskFileUnreadableText(r, zh)));
  }
  const lines = (l10n?: typeof zh) => taskFileErrorLines(r.errors, l10n).map((l) => `  ${l}`).join('\n');
  throw new UsageError(`${r.file} has ${r.errors.length} problem(s):\n${lines()}`, fill('{0} 有 {1} 处问题：\n{2}', r.file, r.errors.length, lines(zh)));
}

/**
 * `launch [FILE] [TASK]`: a first word that is a path (ends in .yaml or .yml, holds a `/` or a
 * `.`, which no task name can, or names a file here) is the task file, as `--file` is.
 */
export function taskFileArgs(flagFile: string | undefined, positionals: readonly string[]): { file: string | undefined; task: string | undefined } {
  const [first, second] = positionals;
  const isFile = first !== undefined && (/\.ya?ml$/i.test(first) || /[\\/.]/.test(first) || isPlainFile(first));
  if (!isFile) {
    if (second !== undefined) throw new UsageError(`${JSON.stringify(first!.slice(0, 80))} is not a task file (.yaml/.yml); launch takes [FILE] [TASK]`, fill('{0} 不是任务文件（.yaml/.yml）；launch 的参数是 [FILE] [TASK]', JSON.stringify(first!.slice(0, 80))));
    return { file: flagFile, task: first };
  }
  if (flagFile !== undefined) throw new UsageError('give the task file once: as FILE or as --file', '任务文件只能给一次：FILE 或 --file');
  return { file: first, task: second };
}

function isPlainFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

export function pickTask(tasks: readonly Task[], name: string | undefined, file: string): Task {
  if (!name) return tasks[0]!;
  const t = tasks.find((x) => x.name === name);
  if (!t) {
    const names = tasks.map((x) => x.name).join(', ');
    throw new UsageError(`no task ${JSON.stringify(name.slice(0, 80))} in ${file} (it has ${names})`, fill('{0} 中没有任务 {1}（它有 {2}）', file, JSON.stringify(name.slice(0, 80)), names));
  }
  return t;
}

const clock = (s: number) => new Date(s * 1000).toISOString().slice(11, 19);

const PHASE_ZH: Record<string, string> = { acquire: '获取机器', check: '检查', push: '上传', setup: '准备环境', run: '运行', watch: '运行中', end: '结束', done: '完成', stopped: '已停止', failed: '失败' };

function statusTextZh(s: LaunchState, now: number): string {
  const spent = spentFen(s, now);
  const lines = [
    `${s.task}：${PHASE_ZH[s.phase] ?? s.phase}${s.outcome ? ` — ${outcomeText(s.outcome.kind, s.outcome.detail, l10nIn('zh-cn')).replace(/^([^：:]+): /, '$1：')}` : ''}${s.smoke ? '（小测试）' : ''}`,
    `  开始于 ${new Date(s.startedAt * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC，更新于 ${clock(s.updatedAt)}`,
    `  机器：${s.box ? `${s.box.label}，${s.box.priceFenPerHour === null ? '? ¥/小时' : `${formatCny(s.box.priceFenPerHour)}/小时`}${s.box.spot ? '，抢占式' : ''}` : '未持有'}`,
    `  已花费：${spent.unknown ? `?（有机器的价格未知；已知 ${formatCny(spent.fen)}）` : formatCny(spent.fen)} · 恢复次数 ${s.recoveries}`,
    ...(s.box?.stage ? [`  无卡准备：${(s.box.stage.seconds / 60).toFixed(1)} 分钟，${s.box.stage.fenPerHour === null ? '? ¥' : formatCny(s.box.stage.fenPerHour)}/小时；比按 GPU 价格省 ${stagingSavedFen(s.box) === null ? '?' : formatCny(stagingSavedFen(s.box)!)}`] : []),
    ...(s.progress ? [`  进度：${progressText(s.progress, l10nIn('zh-cn')) || '?'}`] : []),
    ...(s.lastSync ? [`  上次校验过的同步：${clock(s.lastSync.at)}，${s.lastSync.files} 个文件${s.lastSync.checkpoint ? `，最新 ${s.lastSync.checkpoint}` : ''}`] : []),
    ...(s.end ? [`  结束（${s.end.action}）：${s.end.ok ? '已完成' : '未完成'}${s.end.stillBilling ? ' — 仍在计费' : ''}：${s.end.detail}`] : []),
    ...s.boxes.map((b) => `  之前的机器：${b.label}（${b.leftBecause === 'reclaimed' ? '被回收' : b.leftBecause === 'failed' ? '失败' : '已离开'}${b.leftAt === undefined ? '，仍在计费' : ''}）`),
    '  最近：',
    ...s.events.slice(-8).map((e) => `    ${clock(e.at)} ${e.text}`),
  ];
  return lines.map((l) => forTerminal(l)).join('\n') + '\n';
}

function statusText(s: LaunchState, now: number, lang: CliLang = 'en'): string {
  if (lang === 'zh-cn') return statusTextZh(s, now);
  const spent = spentFen(s, now);
  const lines = [
    `${s.task}: ${s.phase}${s.outcome ? ` — ${outcomeText(s.outcome.kind, s.outcome.detail)}` : ''}${s.smoke ? ' (smoke test)' : ''}`,
    `  started ${new Date(s.startedAt * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC, updated ${clock(s.updatedAt)}`,
    `  box: ${s.box ? `${s.box.label}, ${s.box.priceFenPerHour === null ? '? ¥/h' : `${formatCny(s.box.priceFenPerHour)}/h`}${s.box.spot ? ', spot' : ''}` : 'none held'}`,
    `  spent: ${spent.unknown ? `? (a box's price is not known; ${formatCny(spent.fen)} known)` : formatCny(spent.fen)} · #recoveries ${s.recoveries}`,
    ...(s.box?.stage ? [`  staged without the GPU: ${(s.box.stage.seconds / 60).toFixed(1)} min at ${s.box.stage.fenPerHour === null ? '? ¥' : formatCny(s.box.stage.fenPerHour)}/h; saved ${stagingSavedFen(s.box) === null ? '?' : formatCny(stagingSavedFen(s.box)!)} against the GPU rate`] : []),
    ...(s.progress ? [`  progress: ${progressText(s.progress) || '?'}`] : []),
    ...(s.lastSync ? [`  last verified sync: ${clock(s.lastSync.at)}, ${s.lastSync.files} file(s)${s.lastSync.checkpoint ? `, newest ${s.lastSync.checkpoint}` : ''}`] : []),
    ...(s.end ? [`  end (${s.end.action}): ${s.end.ok ? 'done' : 'NOT done'}${s.end.stillBilling ? ' — STILL BILLING' : ''}: ${s.end.detail}`] : []),
    ...s.boxes.map((b) => `  earlier box: ${b.label} (${b.leftBecause ?? 'left'}${b.leftAt === undefined ? ', STILL BILLING' : ''})`),
    '  recent:',
    ...s.events.slice(-8).map((e) => `    ${clock(e.at)} ${e.text}`),
  ];
  return lines.map((l) => forTerminal(l)).join('\n') + '\n';
}

function stateJson(s: LaunchState, now: number) {
  const spent = spentFen(s, now);
  return { ...s, spentFen: spent.unknown ? null : spent.fen, spentKnownFen: spent.fen };
}

export const command: CliCommand = {
  name: 'launch',
  summary: 'run a task from gpu-rent.yaml end to end: box, check, push, setup, run, synced checkpoints, end action',
  summaryZh: '从 gpu-rent.yaml 完整运行一个任务：机器、检查、上传、环境准备、运行、同步检查点、结束动作',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 2, positionalNames: 'TASK' });
    const args = taskFileArgs(flags.file, positionals);
    const lang = cliLang(flags.lang, io.env);
    if (flags.status && (flags.resume || flags.smoke || flags.yes)) throw new UsageError('--status only reads the state: it takes no --resume, --smoke or --yes', '--status 只读取状态：不能与 --resume、--smoke 或 --yes 同用');
    const json = flags.json === true;
    let read: { file: string; tasks: Task[] };
    try {
      read = await readTaskFileOrExit(args.file, process.cwd());
    } catch (e) {
      if (json && e instanceof UsageError) return fail(io, 'bad-task-file', e.message, 2);
      throw e;
    }
    const task = pickTask(read.tasks, args.task, read.file);
    const words = l10nIn(lang);
    const home = configHome(io.env);
    const { launchStatus, launchTask, LaunchError } = await import('../../app/launch/run');
    const now = () => Date.now() / 1000;
    if (flags.status) {
      if (task.sweep) return (await import('./launchSweep')).sweepStatusCli(home, read.file, task, io, lang, json);
      const s = await launchStatus(home, read.file, task.name);
      if (!s) {
        if (json) return fail(io, 'no-launch', `no launch of ${task.name} yet`, 1);
        io.stdout(t(lang, '{0}: not launched yet (gpu-rent launch {0})\n', '{0}：还没有启动过（gpu-rent launch {0}）\n', task.name));
        return 1;
      }
      // Close the lid: a launch in progress whose box ended the run (or goes on) while this machine was away: what its supervisor says.
      const { readAway } = await import('../../app/launch/away');
      const { loadAccounts, connectorFor } = await import('./accounts');
      const away = await readAway(s, task, {
        configHome: home,
        connectOptions: (box) => {
          const o = connectOptions(flags, io);
          if (!passwordMeantFor(box, flags['password-for'])) delete o.password;
          return o;
        },
        accounts: async () => (await loadAccounts(io).catch(() => [])).map((a) => ({ id: a.account.id, connector: connectorFor(a, io), powerActions: false })),
        unattended: { stores: () => readStoreFile(home), channels: async () => [], lang },
      });
      if (json) io.stdout(jsonForTerminal({ ...stateJson(s, now()), ...(away.kind === 'read' ? { box: away.view } : away.kind === 'unread' ? { box: { unread: away.why } } : {}) }, 2) + '\n');
      else io.stdout(statusText(s, now(), lang) + (away.kind === 'none' ? '' : forTerminal(`  ${away.kind === 'read' ? boxViewLine(away.view, words) : boxUnreadLine(away.why, words)}`) + '\n'));
      return 0;
    }
    const { loadAccounts, connectorFor } = await import('./accounts');
    const ac = onInterrupt({ onFirst: () => io.stderr(`\ngpu-rent launch: ${t(lang, 'interrupted; the run on the box goes on. Continue with: gpu-rent launch {0} --resume', '已中断；机器上的训练继续运行。继续请用：gpu-rent launch {0} --resume', task.name)}\n`) });
    const poll = Number(io.env.GPU_RENT_LAUNCH_POLL_MS);
    const settle = Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS);
    const verify = Number(io.env.GPU_RENT_POWER_VERIFY_SECONDS);
    try {
      const [launchOpts, launchHost]: [LaunchOptions, LaunchHost] = [
        { file: read.file, task, smoke: flags.smoke === true, resume: flags.resume === true, yes: flags.yes === true, catalog: loadCatalog(flags.catalog), diverged: divergedPolicyOf(flags['on-diverged'] ?? 'off', flags['diverged-readings']) },
        {
          configHome: home,
          // GPU_RENT_PASSWORD goes only to the login --password-for names (app/launch/password.ts): never to whatever login a cloned task names.
          connectOptions: (box) => {
            const o = connectOptions(flags, io);
            if (!passwordMeantFor(box, flags['password-for'])) delete o.password;
            return o;
          },
          l10n: words,
          // An unreadable accounts file is said as `instances` says it (chmod 600 it, …) when the task needs a platform account; an SSH-only task goes on without.
          accounts: async () => (await loadAccounts(io).catch((e: unknown) => (task.instances.some((i) => i.kind !== 'ssh') ? Promise.reject(e) : []))).map((a) => ({ id: a.account.id, connector: connectorFor(a, io), powerActions: a.account.powerActions })),
          onEvent: (line, st) => io.stderr(forTerminal(`[${st.task} ${clock(now())}] ${line}`) + '\n'),
          confirmCreate: async (what) => {
            const a = await promptLine(t(lang, 'Create {0}? It bills from the moment it runs. (yes/no) ', '创建 {0} 吗？它一运行就开始计费。(yes/no) ', forTerminal(what)), false);
            return a !== null && /^y(es)?$/i.test(a.trim());
          },
          confirmRelease: async (label) => {
            const a = await promptLine(t(lang, 'Release {0}? Its disks and everything on them are deleted (the checkpoints are home, verified). (yes/no) ', '释放 {0} 吗？它的云盘及其上的一切都会被删除（检查点已拷回本地并校验）。(yes/no) ', forTerminal(label)), false);
            return a !== null && /^y(es)?$/i.test(a.trim());
          },
          signal: ac.signal,
          ...(poll > 0 ? { pollMs: poll } : {}),
          ...(settle > 0 ? { settleIntervalMs: settle } : {}),
          ...(Number.isInteger(verify) && verify >= 1 ? { powerVerifySeconds: verify } : {}),
          ...(io.env.GPU_RENT_SPOT_METADATA ? { spotMetadataHost: io.env.GPU_RENT_SPOT_METADATA } : {}),
          // Close the lid: the stores and channels the box's supervisor and the end's message use (0600 files beside accounts.json).
          unattended: { stores: () => readStoreFile(home), channels: () => readChannelFile(home), sentJournal: join(home, SENT_JOURNAL_FILE), lang },
          // Tests only: what the box runs to power itself off at an unattended end.
          ...(io.env.GPU_RENT_TEST_BOX_POWER_OFF ? { boxPowerOffCommand: io.env.GPU_RENT_TEST_BOX_POWER_OFF } : {}),
          ...(Number(io.env.GPU_RENT_TEST_LAPTOP_AWAY_SECONDS) >= 1 ? { laptopAwaySeconds: Number(io.env.GPU_RENT_TEST_LAPTOP_AWAY_SECONDS) } : {}),
          // Tests only: the setup step's mirror probe against local endpoints and a turbo file of the test's.
          ...(io.env.GPU_RENT_TEST_ENDPOINTS || io.env.GPU_RENT_TEST_TURBO_FILE
            ? { mirrorProbe: { endpoints: (await import('./probe')).testEndpoints(io.env), ...(io.env.GPU_RENT_TEST_TURBO_FILE ? { turboFile: io.env.GPU_RENT_TEST_TURBO_FILE } : {}), timeoutS: 2 } }
            : {}),
        },
      ];
      // A task with matrix: is a sweep, one launch per combination (app/launch/sweep.ts).
      if (task.sweep) return await (await import('./launchSweep')).runSweep(launchOpts, launchHost, io, lang, json);
      const s = await launchTask(launchOpts, launchHost);
      if (json) io.stdout(jsonForTerminal(stateJson(s, now()), 2) + '\n');
      else io.stdout(statusText(s, now(), lang));
      return launchExitCode(s);
    } catch (e) {
      if (e instanceof LaunchError) {
        // An end action that cannot happen is the task's mistake, like a task file error: exit 2, nothing started.
        const code = e.code === 'endRefused' ? 2 : 1;
        // Kebab case, as every command's JSON error codes (in-progress, busy, nothing-to-resume, task-changed, end-refused).
        if (json) return fail(io, e.code.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`), e.message, code);
        io.stderr(`gpu-rent launch: ${forTerminal(e.message)}\n`);
        return code;
      }
      if (ac.signal.aborted) return 130;
      throw e;
    } finally {
      ac.done();
    }
  },
};

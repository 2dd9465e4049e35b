// `gpu-rent run TARGET --name NAME [--cwd DIR] [--env K=V ...] [--launcher L --gpus N|auto] -- COMMAND...`
// starts training detached on the box (tmux, else setsid), so it survives the laptop's SSH dropping.
import { BOUNDS } from '../../core/bounds';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { jsonError } from '../json-error';
import { LAUNCHERS, startJob, type Launcher } from '../../remote/jobs';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../remote-common';
import { cliLang } from '../lang';
import { helpLang, t } from '../words';
import { RUN_PRICE_FLAGS, runPriceFromFlags } from './jobs';
import { checkThen, NODES_FLAG, powerOffPlan, THEN_FLAGS, waitThenAct, withNodes } from './run-nodes';
import { powerRefusalText } from './run-words';

const specs = {
  name: { type: 'string', valueName: 'NAME', description: 'job name (letters, digits, - and _; others become -)', zh: '任务名（字母、数字、- 和 _；其他字符变成 -）' },
  cwd: { type: 'string', valueName: 'DIR', description: "folder on the box to run in (default: the platform's data disk, e.g. /root/autodl-tmp, else ~)", zh: '在机器上运行的目录（默认：平台的数据盘，如 /root/autodl-tmp，否则 ~）' },
  env: { type: 'string', valueName: 'K=V', repeat: true, description: 'environment variable for the job (repeatable)', zh: '任务的环境变量（可重复）' },
  launcher: { type: 'string', valueName: 'L', choices: LAUNCHERS, description: 'wrap the command in torchrun, deepspeed or accelerate', zh: '用 torchrun、deepspeed 或 accelerate 包装命令' },
  gpus: { type: 'string', valueName: 'N|auto', description: 'GPUs for the launcher (default auto: the count nvidia-smi lists)', zh: '启动器使用的 GPU 数（默认 auto：nvidia-smi 列出的数量）' },
  json: { type: 'boolean', description: 'print the started job as JSON', zh: '以 JSON 输出启动的任务' },
  ...NODES_FLAG,
  port: { type: 'number', valueName: 'PORT', integer: true, min: 1024, max: 65535, description: 'with --nodes: rendezvous port on the first node (default 29500)', zh: '配合 --nodes：第一个节点上的汇合端口（默认 29500）' },
  'master-addr': { type: 'string', valueName: 'ADDR', description: "with --nodes: the first node's address as the others reach it (default: its private address)", zh: '配合 --nodes：其他节点访问第一个节点所用的地址（默认：它的内网地址）' },
  ...THEN_FLAGS,
  card: { type: 'string', valueName: 'CARD', description: "with --then: the card the job runs on, for the ledger of runs (default: what nvidia-smi on the box says)", zh: '与 --then 一起用：任务所用的显卡，记入运行账本（默认：机器上 nvidia-smi 给出的）' },
  ...RUN_PRICE_FLAGS,
  ...REMOTE_FLAGS,
} as const;

const USAGE =
  'gpu-rent run TARGET --name NAME [--cwd DIR] [--env K=V ...] [--launcher torchrun|deepspeed|accelerate --gpus N|auto] [--then ACTION --sync-remote DIR --sync-local DIR] -- COMMAND...\n' +
  '       gpu-rent run --nodes A,B[,…] --launcher torchrun|deepspeed|accelerate --name NAME [--port P] [--master-addr ADDR] -- python train.py …';
const SUMMARY =
  'Start a command detached on the box (tmux when present, else setsid): it keeps running when the connection drops. ' +
  'Output goes to a log file; pid, start time and exit code are kept in ~/.gpu-rent/jobs/NAME/ on the box. ' +
  'Each argument after -- is passed as is; a single argument is run as a shell command line. ' +
  'With --then, the ended run goes into the ledger of runs (gpu-rent runs). ' +
  TARGET_HELP;
const SUMMARY_ZH =
  '在机器上后台启动命令（有 tmux 就用 tmux，否则 setsid）：连接断开后它继续运行。' +
  '输出写入日志文件；pid、开始时间和退出码保存在机器上的 ~/.gpu-rent/jobs/NAME/。' +
  '-- 之后的每个参数原样传递；只有一个参数时按 shell 命令行运行。' +
  '给出 --then 时，结束的运行记入运行账本（gpu-rent runs）。' +
  TARGET_HELP_ZH;

export function parseEnvPairs(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    const k = eq === -1 ? '' : p.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new UsageError(`--env expects K=V with K a variable name, got "${p}"`);
    env[k] = p.slice(eq + 1);
  }
  return env;
}

export function parseGpus(raw: string | undefined): number | 'auto' | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'auto') return 'auto';
  // A box's cards, bounded as every other --gpus (core/bounds.ts: 8 is the largest single rented machine).
  const { min, max } = BOUNDS.gpus;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new UsageError(`--gpus expects a whole number ≥ ${min} and ≤ ${max}, or auto, got "${raw}"`, `--gpus 需要整数（≥ ${min}，≤ ${max}）或 auto，收到 "${raw}"`);
  return Number(raw);
}

const when = (s: number | null) => (s === null ? '-' : new Date(s * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));

export const command: CliCommand = {
  name: 'run',
  summary: 'Start training detached on the box (survives disconnects), with a log and exit code.',
  summaryZh: '在机器上后台启动训练（断线不影响），记录日志和退出码。',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals, rest } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'TARGET' });
    const lang = cliLang(flags.lang, io.env);
    if (!flags.name) throw new UsageError('--name is required (it names the job for jobs, logs and stop)', '必须给出 --name（jobs、logs 和 stop 用它指称任务）');
    if (rest.length === 0) throw new UsageError('no command: put it after --, e.g. gpu-rent run TARGET --name train -- python train.py', '没有命令：请放在 -- 之后，例如 gpu-rent run TARGET --name train -- python train.py');
    const gpus = parseGpus(flags.gpus);
    if (gpus !== undefined && !flags.launcher) throw new UsageError('--gpus needs --launcher torchrun|deepspeed|accelerate', '--gpus 需要配合 --launcher torchrun|deepspeed|accelerate');
    const env = parseEnvPairs(flags.env ?? []);
    const then = checkThen(flags);
    if (flags.card !== undefined && then === 'nothing') throw new UsageError('--card is for the ledger of runs, written when gpu-rent run waits for the end: give --then too', '--card 用于运行账本，只有 gpu-rent run 等待任务结束时才会写入：请同时给出 --then');
    if (flags.nodes !== undefined) {
      if (positionals.length) throw new UsageError('--nodes replaces TARGET: give the nodes as --nodes A,B', '--nodes 代替 TARGET：用 --nodes A,B 给出节点');
      if (!flags.launcher) throw new UsageError('--nodes needs --launcher torchrun|deepspeed|accelerate', '--nodes 需要配合 --launcher torchrun|deepspeed|accelerate');
      if (then !== 'nothing') throw new UsageError('--then is for one box; with --nodes, stop and sync each node', '--then 只用于单台机器；用 --nodes 时请逐个节点停止和同步');
      const { startMultiNode } = await import('../../app/runs/multinode');
      return withNodes(flags.nodes, flags, io, async (nodes) => {
        const r = await startMultiNode(nodes, { name: flags.name!, command: rest, launcher: flags.launcher as Launcher, ...(flags.port ? { port: flags.port } : {}), ...(flags['master-addr'] ? { masterAddr: flags['master-addr'] } : {}), ...(flags.cwd ? { cwd: flags.cwd } : {}), env, ...(typeof gpus === 'number' ? { gpus } : {}) });
        if (flags.json) io.stdout(jsonForTerminal({ name: r.name, masterAddr: r.masterAddr, port: r.port, gpusPerNode: r.gpusPerNode, nodes: r.nodes.map((n) => ({ node: n.label, rank: n.rank, state: n.job.state, pid: n.job.pid, logPath: n.job.logPath, commandLine: n.job.commandLine })) }, 2) + '\n');
        else {
          io.stdout(t(lang, 'started {0} on {1} nodes ({2} GPU(s) each), rendezvous {3}:{4}\n', '已在 {1} 个节点上启动 {0}（每个 {2} 块 GPU），汇合点 {3}:{4}\n', r.name, r.nodes.length, r.gpusPerNode, forTerminal(r.masterAddr), r.port));
          for (const n of r.nodes) io.stdout(`  rank ${n.rank} ${forTerminal(n.label)}: ${n.job.state}, pid ${n.job.pid ?? '?'} — ${forTerminal(n.job.commandLine)}\n`);
          io.stdout(`  ${t(lang, 'follow: ', '跟随：')} gpu-rent logs --nodes ${forTerminal(flags.nodes!)} ${r.name}\n`);
        }
        return 0;
      });
    }
    return withRemote(positionals[0], flags, io, async (conn) => {
      const plan = await powerOffPlan(conn, then, flags);
      if (plan.refusal) {
        if (flags.json) io.stdout(jsonError(plan.refusal.code, powerRefusalText(plan.refusal, 'en')));
        io.stderr(`gpu-rent run: ${powerRefusalText(plan.refusal, lang)}\n`);
        return 1;
      }
      const job = await startJob(conn, { name: flags.name!, command: rest, cwd: flags.cwd, env, launcher: flags.launcher as Launcher | undefined, gpus });
      if (flags.json) {
        io.stdout(jsonForTerminal({ name: job.name, state: job.state, pid: job.pid, runner: job.runner, logPath: job.logPath, cwd: job.cwd, startedAt: job.startedAt, commandLine: job.commandLine, gpus: job.gpus }, 2) + '\n');
      } else {
        if (lang === 'zh-cn')
          io.stdout(
            [
              `已启动 ${job.name}（${job.state}，pid ${job.pid ?? '?'}，通过 ${job.runner ?? '?'}），时间 ${when(job.startedAt)}`,
              `  命令：  ${forTerminal(job.commandLine)}`,
              `  目录：  ${forTerminal(job.cwd ?? '?')}`,
              `  日志：  ${forTerminal(job.logPath)}`,
              ...(job.runner === 'tmux' ? [`  在机器上：tmux attach -t ${job.name}`] : []),
              `  跟随：  gpu-rent logs TARGET ${job.name} --follow`,
              ...(then !== 'nothing' ? [`  然后：  ${then}（等待任务结束；Ctrl-C 让它继续运行${then === 'sync-then-power-off' ? '，机器在结束 15 分钟后自行关机' : ''}）`] : []),
              ...(plan.command ? [`  关机：  ${forTerminal(plan.command)}（会校验：机器必须不再应答 SSH）`] : []),
              '',
            ].join('\n'),
          );
        else io.stdout(
          [
            `started ${job.name} (${job.state}, pid ${job.pid ?? '?'}, via ${job.runner ?? '?'}) at ${when(job.startedAt)}`,
            `  command: ${forTerminal(job.commandLine)}`,
            `  folder:  ${forTerminal(job.cwd ?? '?')}`,
            `  log:     ${forTerminal(job.logPath)}`,
            ...(job.runner === 'tmux' ? [`  on the box: tmux attach -t ${job.name}`] : []),
            `  follow:  gpu-rent logs TARGET ${job.name} --follow`,
            ...(then !== 'nothing' ? [`  then:    ${then} (waiting for the job to end; Ctrl-C leaves it running${then === 'sync-then-power-off' ? ', and the box powers itself off 15 min after the end' : ''})`] : []),
            ...(plan.command ? [`  power-off: ${forTerminal(plan.command)} (verified: the box must stop answering SSH)`] : []),
            '',
          ].join('\n'),
        );
      }
      if (then !== 'nothing') return waitThenAct(conn, job, then, flags, io, runPriceFromFlags(flags), plan.command);
      return 0;
    });
  },
};

// `gpu-rent stop TARGET NAME [--grace SECONDS]`: TERM to the job's process group, KILL after the grace time.
import { stopJob } from '../../remote/jobs';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../remote-common';
import { cliLang } from '../lang';
import { helpLang, t } from '../words';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { stateText } from './jobs';
import { NODES_FLAG, withNodes } from './run-nodes';

const specs = {
  grace: { type: 'number', valueName: 'SECONDS', integer: true, min: 0, max: 3600, description: 'time to save a checkpoint after TERM before KILL (default 10)', zh: 'TERM 之后、KILL 之前留给保存检查点的时间（默认 10 秒）' },
  json: { type: 'boolean', description: 'print the final job record as JSON', zh: '以 JSON 输出任务的最终记录' },
  ...NODES_FLAG,
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent stop TARGET NAME [--grace SECONDS]';
const SUMMARY = `Stop a job started with gpu-rent run: SIGTERM to its whole process group (launcher workers too), SIGKILL after the grace time. ${TARGET_HELP}`;
const SUMMARY_ZH = `停止用 gpu-rent run 启动的任务：向其整个进程组（包括启动器的工作进程）发 SIGTERM，宽限时间后发 SIGKILL。${TARGET_HELP_ZH}`;

export const command: CliCommand = {
  name: 'stop',
  summary: 'Stop a training job on the box (TERM, then KILL after a grace time).',
  summaryZh: '停止机器上的训练任务（先 TERM，宽限时间后 KILL）。',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 2, positionalNames: 'TARGET NAME' });
    const lang = cliLang(flags.lang, io.env);
    if (flags.nodes !== undefined) {
      if (positionals.length !== 1) throw new UsageError('with --nodes, give only NAME: gpu-rent stop --nodes A,B NAME', '用 --nodes 时只给 NAME：gpu-rent stop --nodes A,B NAME');
      const { stopMultiNode } = await import('../../app/runs/multinode');
      return withNodes(flags.nodes, flags, io, async (nodes) => {
        const r = await stopMultiNode(nodes, positionals[0]!, { graceSeconds: flags.grace });
        if (flags.json) io.stdout(jsonForTerminal(r.map((x) => ({ node: x.label, rank: x.rank, job: x.job, ...(x.error ? { error: x.error } : {}) })), 2) + '\n');
        else for (const x of r) io.stdout(`rank ${x.rank} ${forTerminal(x.label)}: ${x.job ? stateText(x.job, lang) : forTerminal(x.error ?? t(lang, 'no such job', '没有这个任务'))}\n`);
        return r.some((x) => x.error || x.job?.state === 'running') ? 1 : 0;
      });
    }
    if (positionals.length < 2) throw new UsageError('expects TARGET NAME (gpu-rent jobs TARGET lists the names)', '需要 TARGET NAME（gpu-rent jobs TARGET 会列出任务名）');
    return withRemote(positionals[0], flags, io, async (conn) => {
      const before = positionals[1]!;
      const job = await stopJob(conn, before, { graceSeconds: flags.grace });
      if (flags.json) io.stdout(jsonForTerminal(job, 2) + '\n');
      else io.stdout(`${forTerminal(job.name)}: ${stateText(job, lang)}\n`);
      return job.state === 'running' ? 1 : 0;
    });
  },
};

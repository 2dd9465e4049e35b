// `gpu-rent stop TARGET NAME [--grace SECONDS]`: TERM to the job's process group, KILL after the grace time.
import { stopJob } from '../../remote/jobs';
import { UsageError } from '../args';
import { defineCommand } from '../define';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../remote-common';
import { t } from '../words';
import { forTerminal } from '../../core/text';
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

type Stopped = { nodes: Awaited<ReturnType<typeof import('../../app/runs/multinode').stopMultiNode>> } | { job: Awaited<ReturnType<typeof stopJob>> };

export const command: CliCommand = defineCommand({
  name: 'stop',
  summary: 'Stop a training job on the box (TERM, then KILL after a grace time).',
  summaryZh: '停止机器上的训练任务（先 TERM，宽限时间后 KILL）。',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 2, names: 'TARGET NAME' },
  run: async (flags, { io, positionals }): Promise<Stopped> => {
    if (flags.nodes !== undefined) {
      if (positionals.length !== 1) throw new UsageError('with --nodes, give only NAME: gpu-rent stop --nodes A,B NAME', '用 --nodes 时只给 NAME：gpu-rent stop --nodes A,B NAME');
      const { stopMultiNode } = await import('../../app/runs/multinode');
      return withNodes(flags.nodes, flags, io, async (nodes) => ({ nodes: await stopMultiNode(nodes, positionals[0]!, { graceSeconds: flags.grace }) }));
    }
    if (positionals.length < 2) throw new UsageError('expects TARGET NAME (gpu-rent jobs TARGET lists the names)', '需要 TARGET NAME（gpu-rent jobs TARGET 会列出任务名）');
    return withRemote(positionals[0], flags, io, async (conn) => ({ job: await stopJob(conn, positionals[1]!, { graceSeconds: flags.grace }) }));
  },
  json: (r) => ('nodes' in r ? r.nodes.map((x) => ({ node: x.label, rank: x.rank, job: x.job, ...(x.error ? { error: x.error } : {}) })) : r.job),
  text: (r, lang) => ('nodes' in r ? r.nodes.map((x) => `rank ${x.rank} ${forTerminal(x.label)}: ${x.job ? stateText(x.job, lang) : forTerminal(x.error ?? t(lang, 'no such job', '没有这个任务'))}\n`).join('') : `${forTerminal(r.job.name)}: ${stateText(r.job, lang)}\n`),
  // Still running after KILL (or a node not reached): 1 in both formats.
  exit: (r) => ('nodes' in r ? (r.nodes.some((x) => x.error || x.job?.state === 'running') ? 1 : 0) : r.job.state === 'running' ? 1 : 0),
});

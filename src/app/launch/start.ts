// The run step: the task's command as a detached job (it survives a dropped link), the resume
// command from the last verified checkpoint on a second start; a multi-node run starts on
// every node through the launcher. A job still running from before is watched, not restarted.
import { listJobs, startJob } from '../../remote/jobs';
import { splitCommand, startMultiNode } from '../runs/multinode';
import type { LaunchRun } from './context';
import { activation, resumeCommand } from './rules';
import { armUnattended } from './unattended';

export async function start(r: LaunchRun): Promise<void> {
  const live = r.live!;
  if (await r.budgetStops()) return r.phase('end');
  const existing = (await listJobs(live.conn, { name: r.task.name }))[0];
  if (existing && (existing.state === 'running' || existing.state === 'starting') && r.s.job) return r.phase('watch', r.l10n.t('run: {0} is still running on the box', r.task.name));
  const { command, from } = resumeCommand(r.task, r.s, r.live?.remoteCheckpoints);
  if (r.others.length) return startNodes(r, command, from);
  const job = await startJob(live.conn, { name: r.task.name, command: [[...activation(r.task), command].join('; ')], cwd: live.remoteWorkdir, env: r.task.env });
  const attempt = (r.s.job?.attempt ?? 0) + 1;
  r.tail = undefined;
  await r.save(r.l10n.t('run: started {0} (pid {1}, via {2})', job.name, job.pid ?? '?', job.runner ?? '?') + (from ? r.l10n.t(', resuming from {0}', from) : ''), { phase: 'watch', job: { name: job.name, startedAt: job.startedAt ?? r.now(), attempt, ...(from ? { resumedFrom: from } : {}) } });
  // Close the lid: from here on the box finishes the run if this laptop goes away (unattended.ts).
  return armUnattended(r);
}

/** The run on every node at once through the launcher (rank 0 first; the others stopped when one fails to start). */
async function startNodes(r: LaunchRun, command: string, from: string | undefined): Promise<void> {
  const res = await startMultiNode(r.runNodes(), {
    name: r.task.name,
    command: splitCommand(command),
    launcher: r.task.launcher!,
    cwd: r.task.remoteWorkdir,
    env: r.task.env,
    ...(r.task.masterAddr ? { masterAddr: r.task.masterAddr } : {}),
    ...(r.task.rendezvousPort ? { port: r.task.rendezvousPort } : {}),
  });
  const attempt = (r.s.job?.attempt ?? 0) + 1;
  r.tail = undefined;
  const first = res.nodes[0]!.job;
  return r.save(`run: started ${res.name} on ${res.nodes.length} nodes with ${r.task.launcher} (${res.gpusPerNode} GPU(s) each, rendezvous ${res.masterAddr}:${res.port})${from ? `, resuming from ${from}` : ''}`, { phase: 'watch', job: { name: res.name, startedAt: first.startedAt ?? r.now(), attempt, ...(from ? { resumedFrom: from } : {}) } });
}

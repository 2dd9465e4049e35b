// Jobs and Logs: the jobs on the box (their states recorded for the tree), and one job's log,
// read once or followed until it exits.
import * as vscode from 'vscode';
import { showInfo, withNotificationProgress } from '../../notify';
import { forLabel } from '../../../core/text';
import { JobsArgs } from '../../args';
import type { CommandContext } from '../../services/context';
import { requireTrust } from '../../words/errors';
import { parseArgs, pickInstance, powered } from '../pick';
import { isScripted } from '../registry';
import { refreshJobs } from '../../services/probe';

export async function showJobs(ctx: CommandContext, arg: unknown): Promise<{ jobs: { name: string; state: string; exitCode: number | null }[]; text?: string } | undefined> {
  requireTrust();
  let a: { id: string; jobId?: string | undefined; follow: boolean; acceptNewHostKey?: boolean | undefined };
  if (isScripted(arg)) a = parseArgs(JobsArgs, arg);
  else {
    // A job row in the tree carries its instance and job; an instance row only the instance.
    const node = arg as { kind?: string; instanceId?: string; key?: string } | undefined;
    const jobId = node?.kind === 'detail' && node.key?.startsWith('job:') ? node.key.slice(4) : undefined;
    const inst = await pickInstance(ctx, arg, powered);
    if (!inst) return undefined;
    a = { id: inst.id, follow: true, ...(jobId ? { jobId } : {}) };
  }
  const { inst, conn } = await ctx.sessions.open(a.id, a.acceptNewHostKey ? { acceptNewHostKey: true } : {});
  const { listJobs, readLog, followLog } = await import('../../../remote/jobs');
  const jobs = await listJobs(conn);
  await refreshJobs(ctx, inst, conn, jobs);
  const summary = jobs.map((j) => ({ name: j.name, state: j.state, exitCode: j.exitCode }));
  let jobId = a.jobId;
  if (!jobId) {
    if (jobs.length === 0) {
      void showInfo(vscode.l10n.t('No jobs on {0}.', inst.name));
      return { jobs: summary };
    }
    const pick =
      jobs.length === 1
        ? { name: jobs[0]!.name }
        : await vscode.window.showQuickPick(
            jobs.map((j) => ({ label: forLabel(j.name), description: j.state === 'exited' ? vscode.l10n.t('exited with {0}', String(j.exitCode ?? '?')) : forLabel(j.state), detail: forLabel(j.command ?? '', 300), name: j.name })),
            { placeHolder: vscode.l10n.t('Which job’s log?') },
          );
    if (!pick) return { jobs: summary };
    jobId = pick.name;
  }
  const out = ctx.jobOutput();
  out.show(true);
  out.appendLine(`──── ${inst.name} · ${jobId} ────`);
  if (!a.follow) {
    const r = await readLog(conn, jobId, { lines: 500 });
    out.append(r.text);
    return { jobs: summary, text: r.text };
  }
  const abort = new AbortController();
  const id = jobId;
  void withNotificationProgress({ title: vscode.l10n.t('Following the log of {0}', id), cancellable: true }, async (_p, token) => {
      token.onCancellationRequested(() => abort.abort());
      const end = await followLog(conn, id, { lines: 200, onData: (c) => out.append(c.toString('utf8')), signal: abort.signal });
      if (end.state === 'exited') {
        out.appendLine(`\n──── ${vscode.l10n.t('exited with {0}', String(end.exitCode ?? '?'))} ────`);
        await refreshJobs(ctx, ctx.store.get(inst.id) ?? inst, conn);
      }
    })
    .then(undefined, (e: unknown) => ctx.log.warn(`[${inst.id}] follow ${id}: ${e instanceof Error ? e.message : String(e)}`));
  return { jobs: summary };
}

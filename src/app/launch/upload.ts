// The push step: the workdir as git sees it (its .gitignore kept; the local checkpoints and
// data folders inside it left out), then each `data` folder with a `push`, and after a recovery
// the last verified checkpoint; every folder secret-scanned first (a finding sends nothing).
import { resolve } from 'node:path';
import { pushFolder } from '../push';
import { syncRemote } from '../sync';
import type { LaunchRun, Live } from './context';
import { onBox } from './rules';
import { pathLeavingProject, workdirExclusions, WorkdirIsGitDir } from './workdir';

export async function push(r: LaunchRun): Promise<void> {
  if (await r.budgetStops()) return r.phase('end');
  for (const live of r.all) if (!(await pushTo(r, live))) return;
  return r.phase('setup');
}

async function fail(r: LaunchRun, detail: string): Promise<false> {
  await r.finish('failed', detail);
  return false;
}

/** The workdir and data to one box (and, after a recovery, the checkpoints); false when it stopped the launch. */
async function pushTo(r: LaunchRun, live: Live): Promise<boolean> {
  const remote = syncRemote(live.conn);
  const task = r.task;
  const workdir = resolve(r.base, task.workdir);
  const localCkpt = task.checkpoints ? resolve(r.base, task.checkpoints.local) : undefined;
  // A committed link (`ck -> ~/.ssh`, `kube -> ~/.kube`) would send or receive outside the project.
  const leaving = await pathLeavingProject(r.base, [
    { said: `workdir: ${task.workdir}`, abs: workdir },
    ...(task.checkpoints && localCkpt ? [{ said: `checkpoints.local: ${task.checkpoints.local}`, abs: localCkpt }] : []),
    ...task.data.flatMap((d) => (d.push ? [{ said: `data push: ${d.push}`, abs: resolve(r.base, d.push) }] : [])),
  ]);
  if (leaving) return fail(r, `push: ${leaving.said} leads (through a link) to ${leaving.real}, outside the project folder ${r.base}; nothing was sent. Name a real folder inside the project`);
  let ex: Awaited<ReturnType<typeof workdirExclusions>>;
  try {
    ex = await workdirExclusions(workdir, [localCkpt, ...task.data.map((d) => (d.push ? resolve(r.base, d.push) : undefined))].filter((p): p is string => !!p && p.startsWith(workdir + '/')).map((p) => p.slice(workdir.length + 1)), r.base);
  } catch (e) {
    if (e instanceof WorkdirIsGitDir) return fail(r, `push: ${e.message}; nothing was sent`);
    throw e;
  }
  const signal = r.host.signal ? { signal: r.host.signal } : {};
  const w = await pushFolder(remote, { localDir: workdir, remoteDir: live.remoteWorkdir, exclude: ex.exclude, ...signal });
  if (w.kind === 'secrets-found') return fail(r, `push: the secret scan found ${w.findings.length} likely secret(s) in ${workdir} (${w.findings.slice(0, 5).map((f) => `${f.path}: ${f.kind}`).join(', ')}); nothing was sent. Remove them or add them to .gitignore`);
  if (w.kind === 'scan-incomplete') return fail(r, `push: the secret scan stopped at its limit (${w.scan.truncated}); nothing was sent`);
  await r.save(r.l10n.t('push: workdir → {0}: {1} sent, {2} already there, {3} left out by .gitignore', live.remoteWorkdir, w.report.files, w.report.unchanged ?? 0, ex.ignored));
  for (const d of task.data) {
    if (!d.push) continue;
    const local = resolve(r.base, d.push);
    const to = onBox(d.remote, live.home, live.remoteWorkdir);
    const dr = await pushFolder(remote, { localDir: local, remoteDir: to, ...signal });
    if (dr.kind !== 'pushed') return fail(r, `push: ${d.push}: ${dr.kind === 'secrets-found' ? `the secret scan found ${dr.findings.length} likely secret(s)` : 'the secret scan stopped at its limit'}; not sent`);
    await r.save(`push: ${d.push} → ${to}: ${dr.report.files} sent`);
  }
  // A recovery: the last verified checkpoint goes up before the resume.
  if (r.s.recoveries > 0 && localCkpt && live.remoteCheckpoints && r.s.lastSync?.checkpoint) {
    const cp = await pushFolder(remote, { localDir: localCkpt, remoteDir: live.remoteCheckpoints, ...signal });
    if (cp.kind !== 'pushed') return fail(r, `push: the checkpoints could not be sent back: ${cp.kind}`);
    await r.save(r.l10n.t('push: checkpoints → {0}: {1} sent (resuming from {2})', live.remoteCheckpoints, cp.report.files, r.s.lastSync.checkpoint));
  }
  return true;
}

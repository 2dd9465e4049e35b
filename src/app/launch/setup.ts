// The setup step, on every node at once: the task's environment capture rebuilt on the box
// (a detached job env-NAME, torch for this box's driver), then the data fetches and setup
// commands as one detached job (a dropped link does not stop them). Done once per box: a
// recovery on a new box sets up again.
import { resolve } from 'node:path';
import { listJobs, startJob, type JobInfo } from '../../remote/jobs';
import { shQuote } from '../../remote/shell';
import type { LaunchRun, Live } from './context';
import { afterSetup } from './stage';
import { activation, envName, onBox } from './rules';
import { mirrorsLine, planMirrors } from './mirrors';
import { turboLine, type MirrorPlan } from '../../core/task/mirrors';

export async function setup(r: LaunchRun): Promise<void> {
  const fetches = r.task.data.filter((d) => d.fetch || d.from).length;
  if (r.s.setupDone && r.s.box?.staged) return afterSetup(r);
  if (r.s.setupDone || (fetches + r.task.setup.length === 0 && !r.task.environment)) return r.phase('run', r.s.setupDone ? undefined : r.l10n.t('setup: nothing to set up'));
  if (await r.budgetStops()) return r.phase('end');
  // Every node at once (the same commands, each on its own box).
  const results = await Promise.all(r.all.map((live) => setupOne(r, live)));
  if (results.some((ok) => !ok)) return r.phase('end');
  await r.save(r.l10n.t('setup: done'), { setupDone: true });
  // A box staged without its GPU is restarted with it now (stage.ts); any other goes on to the run.
  return afterSetup(r);
}

/** The last lines of a job's log on the box ('' when it cannot be read). */
function logTail(live: Live, logPath: string): Promise<string> {
  return live.conn.exec(`tail -n 5 ${shQuote(logPath)} 2>/dev/null`, { login: false, timeoutMs: 15000, maxOutputBytes: 8192 }).then((x) => x.stdout, () => '');
}

/** Runs `lines` as a detached job named `name` in the remote workdir and waits for it to end; its exit code. */
async function detached(r: LaunchRun, live: Live, name: string, lines: string[], mirrors?: MirrorPlan & { turboFile?: string }): Promise<JobInfo> {
  const existing = (await listJobs(live.conn, { name }))[0];
  let job: JobInfo | undefined = existing && (existing.state === 'running' || existing.state === 'starting') ? existing : undefined;
  // The mirrors' variables and the turbo are this job's only (the task's own env wins over them).
  const turbo = mirrors?.turbo ? [turboLine(mirrors.turboFile)] : [];
  if (!job) job = await startJob(live.conn, { name, command: [['set -e', ...activation(r.task), ...turbo, ...lines].join('\n')], cwd: live.remoteWorkdir, env: { ...(mirrors?.env ?? {}), ...r.task.env } });
  for (;;) {
    const j = (await listJobs(live.conn, { name }))[0];
    if (!j || (j.state !== 'running' && j.state !== 'starting')) return j ?? { ...job, state: 'lost' };
    await r.sleep(Math.min(2000, r.host.pollMs ?? 5000));
  }
}

/** The capture rebuilt on this box (a detached job env-NAME; torch for this box's driver). */
async function rebuildEnvironment(r: LaunchRun, live: Live, mirrors: MirrorPlan & { turboFile?: string }): Promise<boolean> {
  const { readCapture, rebuild } = await import('../environment');
  const at = resolve(r.base, r.task.environment!);
  const dir = at.endsWith('.json') ? resolve(at, '..') : at;
  const name = envName(r.task.name);
  const running = (await listJobs(live.conn, { name: `env-${name}` }))[0];
  if (!running || (running.state !== 'running' && running.state !== 'starting')) {
    const cap = await readCapture(dir);
    const started = await rebuild(live.conn, cap, { envName: name, env: mirrors.env, ...(mirrors.turbo ? { before: turboLine(mirrors.turboFile) } : {}) });
    await r.save(`setup: rebuilding the environment from ${r.task.environment} as ${name} (${started.requirements.kept} requirement(s), for driver ${started.targetDriver.version ?? '?'})`);
  }
  for (;;) {
    const j = (await listJobs(live.conn, { name: `env-${name}` }))[0];
    if (j && (j.state === 'running' || j.state === 'starting')) {
      await r.sleep(Math.min(2000, r.host.pollMs ?? 5000));
      continue;
    }
    const log = j ? await logTail(live, j.logPath) : '';
    if (j?.state === 'exited' && j.exitCode === 0) {
      await r.save(`setup: environment ${name} ready`);
      return true;
    }
    // An env of that name from an earlier try on this box is kept and used.
    if (j?.state === 'exited' && j.exitCode === 3 && /exists already/.test(log)) {
      await r.save(`setup: environment ${name} is already on this box; using it`);
      return true;
    }
    r.stopReason = { kind: 'failed', detail: `the environment rebuild failed (exit ${j?.exitCode ?? j?.state ?? 'gone'}): ${log.replace(/\s+/g, ' ').slice(-400)}` };
    return false;
  }
}

/** The environment rebuild, data fetches and setup commands on one box; false (and the stop reason) when one failed. */
async function setupOne(r: LaunchRun, live: Live): Promise<boolean> {
  const on = r.others.length ? ` on ${live.box.label}` : '';
  // data.from: the box pulls from the store itself (presigned GETs in a 0600 grant, verified by SHA-256).
  let pulls: string[] = [];
  const from = r.task.data.filter((d) => d.from).map((d) => ({ from: d.from!, dest: onBox(d.remote, live.home, live.remoteWorkdir) }));
  if (from.length) {
    const { dataFromStoreLines } = await import('../storage/dataStep');
    try {
      // The front end's stores (VS Code: its secret storage) where it gives them, else the CLI's stores.json.
      const stores = (await r.host.unattended?.stores()) ?? (await (await import('../storage/stores')).readStoreFile(r.host.configHome));
      pulls = await dataFromStoreLines(live.conn, from, stores, `${live.home}/.gpu-rent/data/${r.task.name}`);
    } catch (e) {
      r.stopReason = { kind: 'failed', detail: `data${on}: ${e instanceof Error ? e.message : String(e)}` };
      return false;
    }
  }
  const lines = [...pulls, ...r.task.data.filter((d) => d.fetch).map((d) => `mkdir -p ${shQuote(onBox(d.remote, live.home, live.remoteWorkdir))} && (cd ${shQuote(onBox(d.remote, live.home, live.remoteWorkdir))} && ${d.fetch})`), ...r.task.setup];
  // Which mirrors the downloads use, from what this box reaches (the task may say otherwise).
  const mirrors = await planMirrors(live.conn, r.task, r.host.mirrorProbe);
  const said = mirrorsLine(mirrors, on, r.l10n);
  if (said) await r.save(said);
  if (r.task.environment && !(await rebuildEnvironment(r, live, mirrors))) return false;
  if (!lines.length) return true;
  await r.save(`setup${on}: ${lines.length} command(s) on the box (detached: a dropped link does not stop them)`);
  const j = await detached(r, live, `${r.task.name}-setup`, lines, mirrors);
  if (j.state !== 'exited' || j.exitCode !== 0) {
    const tail = (await logTail(live, j.logPath)).replace(/\s+/g, ' ').slice(-400);
    r.stopReason = { kind: 'failed', detail: `setup failed${on} (exit ${j.exitCode ?? j.state}): ${tail}` };
    return false;
  }
  return true;
}

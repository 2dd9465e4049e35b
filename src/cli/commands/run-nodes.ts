// Shared by run, jobs, logs and stop: `--nodes A,B[,…]` (one run across several boxes, each a
// TARGET; rank = position) and `run --then …` (wait for the job, the verified final sync, then
// the power action: a failed sync stops it and says so).
import { formatCny } from '../../core/money';
import { END_ACTIONS, estimateFinish, type EndAction, type RunPrice } from '../../core/progress';
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

export const NODES_FLAG = {
  nodes: { type: 'string', valueName: 'A,B[,…]', description: 'one run across these boxes (each a TARGET; the first is rank 0); instead of TARGET' },
} as const satisfies FlagSpecs;

export const THEN_FLAGS = {
  then: { type: 'string', valueName: 'ACTION', choices: END_ACTIONS, description: 'when the job ends: nothing (default), sync, sync-then-no-gpu, sync-then-power-off. gpu-rent waits for the job; the sync must succeed (verified) before any power action' },
  'sync-remote': { type: 'string', valueName: 'DIR', description: 'with --then: checkpoint folder on the box (absolute)' },
  'sync-local': { type: 'string', valueName: 'DIR', description: 'with --then: local folder to sync into' },
  'power-off-command': { type: 'string', valueName: 'CMD', description: 'with --then sync-then-power-off: how the box powers itself off (default: shutdown -h now)' },
} as const satisfies FlagSpecs;

export function nodeList(text: string): string[] {
  const list = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (list.length < 2) throw new UsageError('--nodes expects two or more TARGETs separated by commas');
  if (list.length > 64) throw new UsageError('--nodes takes at most 64 nodes');
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
}

export function checkThen(f: ThenFlags): EndAction {
  const then = (f.then ?? 'nothing') as EndAction;
  if (then !== 'nothing' && (!f['sync-remote'] || !f['sync-local'])) throw new UsageError(`--then ${then} needs --sync-remote DIR and --sync-local DIR (the final checkpoint sync runs first)`);
  if (f['sync-remote'] && !f['sync-remote'].startsWith('/')) throw new UsageError('--sync-remote must be an absolute path on the box');
  return then;
}

/** Waits for the job to end (progress on stderr), then runs the end action; returns the exit status for the CLI. */
export async function waitThenAct(conn: RemoteConnection, job: { name: string }, then: EndAction, f: ThenFlags, io: CliIO, price: RunPrice | null): Promise<number> {
  const { LogTail } = await import('../../app/runs/logTail');
  const { progressLine } = await import('../../app/runs/progress');
  const { armAfterJob, disarmAfterJob, BOX_POWER_OFF } = await import('../../app/runs/onBox');
  const powerOff = f['power-off-command'] ?? BOX_POWER_OFF;
  // If this command is killed or the laptop sleeps, the box still powers off after the grace time.
  if (then === 'sync-then-power-off') await armAfterJob(conn, job.name, { actionCommand: powerOff });
  let info: JobInfo | undefined;
  let tail: InstanceType<typeof LogTail> | undefined;
  let shown = '';
  for (;;) {
    info = (await listJobs(conn, { name: job.name }))[0];
    if (!info || (info.state !== 'running' && info.state !== 'starting')) break;
    tail ??= new LogTail(info.logPath);
    const u = await tail.update(conn).catch(() => undefined);
    if (u) {
      const line = progressLine(u.progress, estimateFinish(u.progress, price, { boxNow: u.chunk.boxNow ?? Date.now() / 1000, localNow: Date.now() / 1000, alive: true }), formatCny);
      if (line && line !== shown) io.stderr(`[${job.name}] ${(shown = line)}\n`);
    }
    await sleep(2000);
  }
  io.stderr(`[${job.name}] ended: ${info ? (info.state === 'exited' ? `exit ${info.exitCode}` : info.state) : 'gone'}\n`);
  if (then === 'sync-then-power-off') await disarmAfterJob(conn, job.name).catch(() => undefined);
  const { runEndAction, syncOutcomeOf } = await import('../../app/runs/endAction');
  const { syncOnce } = await import('../../remote/sync');
  const { syncRemote } = await import('../../app/sync');
  const inst = { id: conn.target.host, intervals: [] } as unknown as Instance;
  const r = await runEndAction(then, inst, {
    sync: async () => syncOutcomeOf(await syncOnce(syncRemote(conn), { remoteDir: f['sync-remote']!, localDir: f['sync-local']!, durable: true })),
    power: undefined,
    powerOffFromBox: async () => {
      await conn.exec(`(sleep 2; ${powerOff}) >/dev/null 2>&1 </dev/null &`, { timeoutMs: 15000, login: false });
    },
    log: (l) => io.stderr(`${l}\n`),
  });
  for (const s of r.steps) io.stdout(`${s.step}: ${s.ok ? 'ok' : 'FAILED'}${'via' in s ? ` (${s.via})` : ''} — ${s.detail}\n`);
  if (r.stopped === 'syncFailed') io.stdout('the final sync failed: the box was NOT powered off and keeps billing\n');
  if (r.stopped === 'noWayToPower') io.stdout('no-GPU mode needs the platform account (gpu-rent platforms); switch it in the console\n');
  return r.ok && (info?.exitCode ?? 0) === 0 ? 0 : 1;
}

// `gpu-rent jobs TARGET [--json]`: the jobs started on the box with `gpu-rent run`.
import { renderTable } from '../../core/format';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { formatCny, yuanToFen } from '../../core/money';
import type { RunPrice } from '../../core/progress';
import type { RemoteConnection } from '../../remote/connection';
import { listJobs, type JobInfo } from '../../remote/jobs';
import { jobProgress, progressJson, progressLine, type ProgressJson } from '../../app/runs/progress';
import { formatHelp, parseArgs, UsageError, type FlagSpecs } from '../args';
import { NODES_FLAG, withNodes } from './run-nodes';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, withRemote } from '../remote-common';

/** What the box costs, so progress can say what finishing costs (the CLI keeps no instance list). */
export const RUN_PRICE_FLAGS = {
  rate: { type: 'number', valueName: 'YUAN', min: 0, max: 100000, description: 'what the instance costs per hour, yuan (for the cost to finish)' },
  'disk-gb': { type: 'number', valueName: 'GB', min: 0, max: 1000000, description: 'billed data disk size, GB (storage is part of the cost to finish)' },
  'storage-rate': { type: 'number', valueName: 'YUAN', min: 0, max: 1000, description: 'data disk yuan per GB per day' },
  spot: { type: 'boolean', description: 'a spot instance: the expected rework after reclaims is part of the cost to finish' },
  'sync-every': { type: 'number', valueName: 'SECONDS', min: 1, max: 86400, integer: true, description: 'checkpoint sync interval on spot (default 1800)' },
} as const satisfies FlagSpecs;

export function runPriceFromFlags(f: { rate?: number; 'disk-gb'?: number; 'storage-rate'?: number; spot?: boolean; 'sync-every'?: number }): RunPrice | null {
  if (f.rate === undefined) return null;
  return {
    computeFenPerHour: yuanToFen(f.rate),
    storageFenPerDay: Math.round(yuanToFen(f['storage-rate'] ?? 0) * (f['disk-gb'] ?? 0)),
    ...(f.spot ? { spot: { syncIntervalSeconds: f['sync-every'] ?? 1800 } } : {}),
  };
}

/** Each job with its progress read from its log's tail (null where nothing is known). */
export async function jobsWithProgress(conn: RemoteConnection, jobs: readonly JobInfo[], price: RunPrice | null, now: number): Promise<{ job: JobInfo; progress: ProgressJson | null; line: string }[]> {
  const out = [];
  for (const job of jobs) {
    const r = await jobProgress(conn, job, price, { localNow: now }).catch(() => null);
    const known = r && (r.progress.step !== null || r.progress.loss !== null);
    out.push({ job, progress: known ? progressJson(r.progress, r.finish) : null, line: known ? progressLine(r.progress, r.finish, formatCny) : '' });
  }
  return out;
}

const specs = {
  json: { type: 'boolean', description: 'print the jobs as JSON (each with "progress": step, total, rate, etaSeconds, costToFinish in yuan, loss, stalled; null where unknown)' },
  ...RUN_PRICE_FLAGS,
  ...NODES_FLAG,
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent jobs TARGET [--json] [--rate YUAN [--disk-gb GB --storage-rate YUAN] [--spot]]';
const SUMMARY = `List the jobs started with gpu-rent run: state (running, exited with its code, or lost when the box restarted under it), start time and log file. ${TARGET_HELP}`;

export function stateText(j: JobInfo): string {
  if (j.state === 'exited') return j.stopped ? `stopped (exit ${j.exitCode})` : `exited ${j.exitCode}`;
  return j.state;
}

const when = (s: number | null) => (s === null ? '-' : new Date(s * 1000).toISOString().slice(0, 19).replace('T', ' '));

export const command: CliCommand = {
  name: 'jobs',
  summary: 'List the training jobs on the box: running, exited (code) or lost.',
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'TARGET' });
    if (flags.nodes !== undefined) {
      if (positionals.length) throw new UsageError('--nodes replaces TARGET');
      // Each node's jobs: a multi-node run has the same name on every node, one row per rank.
      return withNodes(flags.nodes, flags, io, async (nodes) => {
        const per = await Promise.all(nodes.map(async (n, rank) => ({ node: n.label, rank, jobs: await listJobs(n.conn) })));
        if (flags.json) io.stdout(jsonForTerminal(per, 2) + '\n');
        else io.stdout(renderTable([['NAME', 'RANK', 'NODE', 'STATE', 'STARTED (UTC)'], ...per.flatMap((p) => p.jobs.map((j) => [forTerminal(j.name), String(p.rank), forTerminal(p.node), stateText(j), when(j.startedAt)])).sort((a, b) => a[0]!.localeCompare(b[0]!) || Number(a[1]) - Number(b[1]))]));
        return 0;
      });
    }
    return withRemote(positionals[0], flags, io, async (conn) => {
      const jobs = await listJobs(conn);
      const rows = await jobsWithProgress(conn, jobs, runPriceFromFlags(flags), Math.floor(Date.now() / 1000));
      if (flags.json) {
        io.stdout(jsonForTerminal(rows.map((r) => ({ ...r.job, progress: r.progress })), 2) + '\n');
        return 0;
      }
      if (jobs.length === 0) {
        io.stdout('no jobs on this box (start one with gpu-rent run TARGET --name NAME -- COMMAND)\n');
        return 0;
      }
      const table = [['NAME', 'STATE', 'STARTED (UTC)', 'LOG', 'PROGRESS'], ...rows.map(({ job: j, line }) => [forTerminal(j.name), stateText(j), when(j.startedAt), forTerminal(j.logPath), forTerminal(line || '-')])];
      io.stdout(renderTable(table));
      return 0;
    });
  },
};

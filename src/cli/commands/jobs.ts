// `gpu-rent jobs TARGET [--json]`: the jobs started on the box with `gpu-rent run`.
import { renderTable } from '../../core/format';
import { listJobs, type JobInfo } from '../../remote/jobs';
import { formatHelp, parseArgs } from '../args';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, withRemote } from '../remote-common';

const specs = {
  json: { type: 'boolean', description: 'print the jobs as JSON' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent jobs TARGET [--json]';
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
    return withRemote(positionals[0], flags, io, async (conn) => {
      const jobs = await listJobs(conn);
      if (flags.json) {
        io.stdout(JSON.stringify(jobs, null, 2) + '\n');
        return 0;
      }
      if (jobs.length === 0) {
        io.stdout('no jobs on this box (start one with gpu-rent run TARGET --name NAME -- COMMAND)\n');
        return 0;
      }
      const rows = [['NAME', 'STATE', 'STARTED (UTC)', 'LOG'], ...jobs.map((j) => [j.name, stateText(j), when(j.startedAt), j.logPath])];
      io.stdout(renderTable(rows));
      return 0;
    });
  },
};

// `gpu-rent logs TARGET NAME [--follow] [--lines N]`: a job's log, or follow it until the job ends.
import { followLog, readLog } from '../../remote/jobs';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, withRemote } from '../remote-common';
import { stateText } from './jobs';

const specs = {
  follow: { type: 'boolean', description: 'keep printing new output until the job ends (Ctrl-C stops following, not the job)' },
  lines: { type: 'number', valueName: 'N', integer: true, min: 0, description: 'print the last N lines first (default 200; 0 = the whole log)' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent logs TARGET NAME [--follow] [--lines N]';
const SUMMARY = `Print a job's log (started with gpu-rent run). ${TARGET_HELP}`;

export const command: CliCommand = {
  name: 'logs',
  summary: "Print or follow a job's log.",
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 2, positionalNames: 'TARGET NAME' });
    if (positionals.length < 2) throw new UsageError('expects TARGET NAME (gpu-rent jobs TARGET lists the names)');
    const name = positionals[1]!;
    return withRemote(positionals[0], flags, io, async (conn) => {
      if (!flags.follow) {
        const { job, text } = await readLog(conn, name, { lines: flags.lines });
        io.stdout(text);
        if (job.state !== 'running') io.stderr(`[${job.name}: ${stateText(job)}]\n`);
        return 0;
      }
      const ac = new AbortController();
      const onSigint = () => ac.abort();
      process.once('SIGINT', onSigint);
      try {
        const job = await followLog(conn, name, { lines: flags.lines, onData: (c) => io.stdout(c.toString('utf8')), signal: ac.signal });
        io.stderr(`[${job.name}: ${stateText(job)}]\n`);
      } catch (e) {
        if (!ac.signal.aborted) throw e;
      } finally {
        process.off('SIGINT', onSigint);
      }
      return 0;
    });
  },
};

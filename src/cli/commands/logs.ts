// `gpu-rent logs TARGET NAME [--follow] [--lines N]`: a job's log, or follow it until the job ends.
import { formatCny } from '../../core/money';
import { estimateFinish } from '../../core/progress';
import { followLog, readLog } from '../../remote/jobs';
import { LogTail } from '../../app/runs/logTail';
import { jobProgress, progressJson, progressLine } from '../../app/runs/progress';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, withRemote } from '../remote-common';
import { RUN_PRICE_FLAGS, runPriceFromFlags, stateText } from './jobs';

const specs = {
  follow: { type: 'boolean', description: 'keep printing new output until the job ends (Ctrl-C stops following, not the job)' },
  lines: { type: 'number', valueName: 'N', integer: true, min: 0, description: 'print the last N lines first (default 200; 0 = the whole log)' },
  progress: { type: 'boolean', description: "print the run's progress read from the log (step, ETA, cost to finish, loss, stalled) instead of the log; with --follow, a progress line on stderr as it changes" },
  json: { type: 'boolean', description: 'with --progress: print it as JSON' },
  ...RUN_PRICE_FLAGS,
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent logs TARGET NAME [--follow] [--lines N] [--progress [--json] [--rate YUAN …]]';
const SUMMARY = `Print a job's log (started with gpu-rent run). ${TARGET_HELP}`;

export const command: CliCommand = {
  name: 'logs',
  summary: "Print or follow a job's log.",
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 2, positionalNames: 'TARGET NAME' });
    if (positionals.length < 2) throw new UsageError('expects TARGET NAME (gpu-rent jobs TARGET lists the names)');
    const name = positionals[1]!;
    const price = runPriceFromFlags(flags);
    return withRemote(positionals[0], flags, io, async (conn) => {
      if (flags.progress && !flags.follow) {
        const { listJobs, sanitizeJobName } = await import('../../remote/jobs');
        const job = (await listJobs(conn, { name })).find((j) => j.name === sanitizeJobName(name));
        if (!job) throw new UsageError(`no job named ${name} on this box (gpu-rent jobs TARGET lists them)`);
        const r = await jobProgress(conn, job, price, { localNow: Math.floor(Date.now() / 1000) });
        if (flags.json) io.stdout(JSON.stringify({ name: job.name, state: job.state, progress: r ? progressJson(r.progress, r.finish) : null }, null, 2) + '\n');
        else io.stdout(`${job.name}: ${stateText(job)}${r ? ` · ${progressLine(r.progress, r.finish, formatCny) || 'no progress in the log yet'}` : ' · no log'}\n`);
        return 0;
      }
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
        const tail = new LogTail('');
        let shown = '';
        let lastShownAt = 0;
        const onData = (c: Buffer) => {
          const text = c.toString('utf8');
          io.stdout(text);
          if (!flags.progress) return;
          const now = Date.now() / 1000;
          tail.feed(text, now);
          if (now - lastShownAt < 5) return;
          const line = progressLine(tail.progress, estimateFinish(tail.progress, price, { boxNow: now, alive: true }), formatCny);
          if (line && line !== shown) io.stderr(`[progress] ${(shown = line)}\n`);
          lastShownAt = now;
        };
        const job = await followLog(conn, name, { lines: flags.lines, onData, signal: ac.signal });
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

// `gpu-rent logs TARGET NAME [--follow] [--lines N] [--bytes N] [--raw]`: a job's log, or follow it until the job ends.
// The log is the box's bytes: shown with control characters made visible (\x1b…) unless --raw.
import { StringDecoder } from 'node:string_decoder';
import { formatBytes } from '../../core/format';
import { formatCny } from '../../core/money';
import { estimateFinish } from '../../core/progress';
import { forTerminal, forTerminalLines, jsonForTerminal } from '../../core/text';
import { followLog, LOG_TAIL_BYTES, LOG_TAIL_MAX_BYTES, readLog } from '../../remote/jobs';
import { LogTail } from '../../app/runs/logTail';
import { jobProgress, progressJson, progressLine } from '../../app/runs/progress';
import { formatHelp, parseArgs, UsageError } from '../args';
import { cliLang } from '../lang';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, withRemote } from '../remote-common';
import { divergedJson, divergedLine, endDetails, endLine, LANG_FLAG, remedyFactsFromFlags, RUN_PRICE_FLAGS, runPriceFromFlags, stateText } from './jobs';
import { endReportJson, jobEndReportOf, readJobEndReport, type EndReport } from '../../app/runs/endReport';
import type { CauseLang, RemedyFacts } from '../../core/progress';
import type { CliIO } from '../command';
import { NODES_FLAG, withNodes } from './run-nodes';

const specs = {
  follow: { type: 'boolean', description: 'keep printing new output until the job ends (Ctrl-C stops following, not the job)' },
  lines: { type: 'number', valueName: 'N', integer: true, min: 0, description: 'print the last N lines first (default 200; 0 = all of the bytes read)' },
  bytes: {
    type: 'number',
    valueName: 'N',
    integer: true,
    min: 1,
    max: LOG_TAIL_MAX_BYTES,
    description: `read at most the last N bytes of the log (default ${LOG_TAIL_BYTES}, at most ${LOG_TAIL_MAX_BYTES})`,
  },
  raw: { type: 'boolean', description: "print the log's bytes unchanged, terminal escapes included (default: control characters other than newline, tab and carriage return are shown as \\x1b…)" },
  progress: { type: 'boolean', description: "print the run's progress read from the log (step, ETA, cost to finish, loss, stalled) instead of the log; with --follow, a progress line on stderr as it changes" },
  json: { type: 'boolean', description: 'print the job as JSON instead of the log: state, "progress" (and "diverged") while it runs, "end" once it exited (exitCode, durationSeconds, costFen, cause {kind, line}, remedies [{code, text}])' },
  ...LANG_FLAG,
  ...RUN_PRICE_FLAGS,
  ...NODES_FLAG,
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent logs TARGET NAME [--follow] [--lines N] [--bytes N] [--raw] [--progress] [--json] [--lang en|zh-cn] [--rate YUAN …]';
const SUMMARY = `Print a job's log (started with gpu-rent run): its last lines, read from the end of the file on the box; once the job exited, its exit code, duration, cost (with --rate), the cause read from the log and what helps, on stderr. ${TARGET_HELP}`;

/** The end of an exited job on stderr, after its log: \`[name: exit 1 · ran 2 h · ¥7.80 · CUDA out of memory …]\` and the remedies. */
function printEnd(io: CliIO, name: string, r: EndReport, lang: CauseLang, facts: RemedyFacts): void {
  io.stderr(`[${forTerminal(name)}: ${forTerminal(endLine(r, lang))}]\n`);
  io.stderr(endDetails(name, endReportJson(r, lang, facts)));
}

/** A log chunk as printed: the program's own newlines, tabs and carriage returns kept, every other control made visible. */
export function logText(text: string, raw: boolean): string {
  return raw ? text : forTerminal(text, { keep: '\n\t\r' });
}

export const command: CliCommand = {
  name: 'logs',
  summary: "Print or follow a job's log.",
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 2, positionalNames: 'TARGET NAME' });
    if (flags.nodes !== undefined) {
      if (positionals.length !== 1) throw new UsageError('with --nodes, give only NAME: gpu-rent logs --nodes A,B NAME');
      const { multiNodeLogs } = await import('../../app/runs/multinode');
      return withNodes(flags.nodes, flags, io, async (nodes) => {
        const text = await multiNodeLogs(nodes, positionals[0]!, { lines: flags.lines });
        io.stdout(flags.raw === true ? text : forTerminalLines(text));
        return 0;
      });
    }
    if (positionals.length < 2) throw new UsageError('expects TARGET NAME (gpu-rent jobs TARGET lists the names)');
    const name = positionals[1]!;
    const price = runPriceFromFlags(flags);
    const raw = flags.raw === true;
    const lang: CauseLang = cliLang(flags.lang, io.env);
    const facts = remedyFactsFromFlags(flags);
    return withRemote(positionals[0], flags, io, async (conn) => {
      if ((flags.progress || flags.json) && !flags.follow) {
        const { listJobs, sanitizeJobName } = await import('../../remote/jobs');
        const job = (await listJobs(conn, { name })).find((j) => j.name === sanitizeJobName(name));
        if (!job) throw new UsageError(`no job named ${name} on this box (gpu-rent jobs TARGET lists them)`);
        if (job.state === 'exited') {
          const end = await readJobEndReport(conn, job, price);
          if (flags.json) io.stdout(jsonForTerminal({ name: job.name, state: job.state, progress: null, diverged: null, end: endReportJson(end, lang, facts) }, 2) + '\n');
          else io.stdout(forTerminal(`${job.name}: ${endLine(end, lang)}`) + '\n' + endDetails(job.name, endReportJson(end, lang, facts)));
          return 0;
        }
        const r = await jobProgress(conn, job, price, { localNow: Math.floor(Date.now() / 1000) });
        const diverged = job.state === 'running' ? (r?.progress.diverged ?? null) : null;
        if (flags.json) io.stdout(jsonForTerminal({ name: job.name, state: job.state, progress: r ? progressJson(r.progress, r.finish) : null, diverged: diverged ? divergedJson(diverged) : null, end: null }, 2) + '\n');
        else io.stdout(forTerminal(`${job.name}: ${stateText(job)}${diverged ? ` · ${divergedLine(diverged, price)}` : r ? ` · ${progressLine(r.progress, r.finish, formatCny) || 'no progress in the log yet'}` : ' · no log'}`) + '\n');
        return 0;
      }
      if (!flags.follow) {
        const { job, text, logBytes, shownFromByte } = await readLog(conn, name, { lines: flags.lines, maxBytes: flags.bytes });
        io.stdout(logText(text, raw));
        if (shownFromByte > 0 && logBytes !== null) io.stderr(`[read the last ${formatBytes(logBytes - shownFromByte)} of a ${formatBytes(logBytes)} log; --bytes N reads more]\n`);
        if (job.state === 'exited') printEnd(io, job.name, jobEndReportOf(job, text, price), lang, facts);
        else if (job.state !== 'running') io.stderr(`[${forTerminal(job.name)}: ${stateText(job)}]\n`);
        return 0;
      }
      const ac = new AbortController();
      const onSigint = () => ac.abort();
      process.once('SIGINT', onSigint);
      // Characters split across chunks stay whole; each control character is escaped on its own, so no sequence survives a split.
      const decoder = new StringDecoder('utf8');
      try {
        const tail = new LogTail('');
        let shown = '';
        let lastShownAt = 0;
        const onData = (c: Buffer) => {
          const text = decoder.write(c);
          io.stdout(logText(text, raw));
          if (!flags.progress) return;
          const now = Date.now() / 1000;
          tail.feed(text, now);
          if (now - lastShownAt < 5) return;
          const line = progressLine(tail.progress, estimateFinish(tail.progress, price, { boxNow: now, alive: true }), formatCny);
          if (line && line !== shown) io.stderr(`[progress] ${forTerminal((shown = line))}\n`);
          lastShownAt = now;
        };
        const job = await followLog(conn, name, { lines: flags.lines, onData, signal: ac.signal });
        io.stdout(logText(decoder.end(), raw));
        if (job.state === 'exited') printEnd(io, job.name, await readJobEndReport(conn, job, price), lang, facts);
        else io.stderr(`[${forTerminal(job.name)}: ${stateText(job)}]\n`);
      } catch (e) {
        if (!ac.signal.aborted) throw e;
      } finally {
        process.off('SIGINT', onSigint);
      }
      return 0;
    });
  },
};

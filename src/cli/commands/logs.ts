// `gpu-rent logs TARGET NAME [--follow] [--lines N] [--bytes N] [--raw]`: a job's log, or follow it until the job ends.
// The log is the box's bytes: shown with control characters made visible (\x1b…) unless --raw.
import { StringDecoder } from 'node:string_decoder';
import { formatBytes } from '../../core/format';
import { forTerminal } from '../../core/text';
import { followLog, LOG_TAIL_BYTES, LOG_TAIL_MAX_BYTES, readLog } from '../../remote/jobs';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, withRemote } from '../remote-common';
import { stateText } from './jobs';

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
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent logs TARGET NAME [--follow] [--lines N] [--bytes N] [--raw]';
const SUMMARY = `Print a job's log (started with gpu-rent run): its last lines, read from the end of the file on the box. ${TARGET_HELP}`;

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
    if (positionals.length < 2) throw new UsageError('expects TARGET NAME (gpu-rent jobs TARGET lists the names)');
    const name = positionals[1]!;
    const raw = flags.raw === true;
    return withRemote(positionals[0], flags, io, async (conn) => {
      if (!flags.follow) {
        const { job, text, logBytes, shownFromByte } = await readLog(conn, name, { lines: flags.lines, maxBytes: flags.bytes });
        io.stdout(logText(text, raw));
        if (shownFromByte > 0 && logBytes !== null) io.stderr(`[read the last ${formatBytes(logBytes - shownFromByte)} of a ${formatBytes(logBytes)} log; --bytes N reads more]\n`);
        if (job.state !== 'running') io.stderr(`[${forTerminal(job.name)}: ${stateText(job)}]\n`);
        return 0;
      }
      const ac = new AbortController();
      const onSigint = () => ac.abort();
      process.once('SIGINT', onSigint);
      // Characters split across chunks stay whole; each control character is escaped on its own, so no sequence survives a split.
      const decoder = new StringDecoder('utf8');
      try {
        const job = await followLog(conn, name, { lines: flags.lines, onData: (c) => io.stdout(logText(decoder.write(c), raw)), signal: ac.signal });
        io.stdout(logText(decoder.end(), raw));
        io.stderr(`[${forTerminal(job.name)}: ${stateText(job)}]\n`);
      } catch (e) {
        if (!ac.signal.aborted) throw e;
      } finally {
        process.off('SIGINT', onSigint);
      }
      return 0;
    });
  },
};

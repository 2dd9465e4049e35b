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
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../remote-common';
import { helpLang, l10nIn, t } from '../words';
import { divergedJson, divergedLine, endDetails, endLine, LANG_FLAG, remedyFactsFromFlags, RUN_PRICE_FLAGS, runPriceFromFlags, stateText } from './jobs';
import { endReportJson, jobEndReportOf, readJobEndReport, type EndReport } from '../../app/runs/endReport';
import type { CauseLang, RemedyFacts } from '../../core/progress';
import type { CliIO } from '../command';
import { NODES_FLAG, withNodes } from './run-nodes';

const specs = {
  follow: { type: 'boolean', description: 'keep printing new output until the job ends (Ctrl-C stops following, not the job)', zh: '持续打印新输出直到任务结束（Ctrl-C 只停止跟随，不停止任务）' },
  lines: { type: 'number', valueName: 'N', integer: true, min: 0, description: 'print the last N lines first (default 200; 0 = all of the bytes read)', zh: '先打印最后 N 行（默认 200；0 = 读到的全部字节）' },
  bytes: {
    type: 'number',
    valueName: 'N',
    integer: true,
    min: 1,
    max: LOG_TAIL_MAX_BYTES,
    description: `read at most the last N bytes of the log (default ${LOG_TAIL_BYTES}, at most ${LOG_TAIL_MAX_BYTES})`,
    zh: `最多读日志的最后 N 个字节（默认 ${LOG_TAIL_BYTES}，最多 ${LOG_TAIL_MAX_BYTES}）`,
  },
  raw: { type: 'boolean', description: "print the log's bytes unchanged, terminal escapes included (default: control characters other than newline, tab and carriage return are shown as \\x1b…)", zh: '原样打印日志字节，包括终端转义序列（默认：换行、制表符、回车以外的控制字符显示为 \\x1b…）' },
  progress: { type: 'boolean', description: "print the run's progress read from the log (step, ETA, cost to finish, loss, stalled) instead of the log; with --follow, a progress line on stderr as it changes", zh: '打印从日志读出的训练进度（步数、预计完成时间、跑完的花费、loss、是否停滞）而不是日志；配合 --follow 时进度变化就在 stderr 打印一行' },
  json: { type: 'boolean', description: 'print the job as JSON instead of the log: state, "progress" (and "diverged") while it runs, "end" once it exited (exitCode, durationSeconds, costFen, cause {kind, line}, remedies [{code, text}])', zh: '以 JSON 输出任务而不是日志：state，运行时的 "progress"（及 "diverged"），退出后的 "end"（exitCode、durationSeconds、costFen、cause {kind, line}、remedies [{code, text}]）' },
  ...LANG_FLAG,
  ...RUN_PRICE_FLAGS,
  ...NODES_FLAG,
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent logs TARGET NAME [--follow] [--lines N] [--bytes N] [--raw] [--progress] [--json] [--lang en|zh-cn] [--rate YUAN …]';
const SUMMARY = `Print a job's log (started with gpu-rent run): its last lines, read from the end of the file on the box; once the job exited, its exit code, duration, cost (with --rate), the cause read from the log and what helps, on stderr. ${TARGET_HELP}`;

const SUMMARY_ZH = `打印任务（用 gpu-rent run 启动）的日志：从机器上文件的末尾读出的最后几行；任务退出后，在 stderr 打印退出码、时长、花费（需 --rate）、从日志读出的原因和补救办法。${TARGET_HELP_ZH}`;

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
  summaryZh: '打印或跟随任务的日志。',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 2, positionalNames: 'TARGET NAME' });
    if (flags.nodes !== undefined) {
      if (positionals.length !== 1) throw new UsageError('with --nodes, give only NAME: gpu-rent logs --nodes A,B NAME', '用 --nodes 时只给 NAME：gpu-rent logs --nodes A,B NAME');
      const { multiNodeLogs } = await import('../../app/runs/multinode');
      return withNodes(flags.nodes, flags, io, async (nodes) => {
        const text = await multiNodeLogs(nodes, positionals[0]!, { lines: flags.lines });
        io.stdout(flags.raw === true ? text : forTerminalLines(text));
        return 0;
      });
    }
    if (positionals.length < 2) throw new UsageError('expects TARGET NAME (gpu-rent jobs TARGET lists the names)', '需要 TARGET NAME（gpu-rent jobs TARGET 会列出任务名）');
    const name = positionals[1]!;
    const price = runPriceFromFlags(flags);
    const raw = flags.raw === true;
    const lang: CauseLang = cliLang(flags.lang, io.env);
    const facts = remedyFactsFromFlags(flags);
    return withRemote(positionals[0], flags, io, async (conn) => {
      if ((flags.progress || flags.json) && !flags.follow) {
        const { listJobs, sanitizeJobName } = await import('../../remote/jobs');
        const job = (await listJobs(conn, { name })).find((j) => j.name === sanitizeJobName(name));
        if (!job) throw new UsageError(`no job named ${name} on this box (gpu-rent jobs TARGET lists them)`, `这台机器上没有名为 ${name} 的任务（gpu-rent jobs TARGET 会列出）`);
        if (job.state === 'exited') {
          const end = await readJobEndReport(conn, job, price);
          if (flags.json) io.stdout(jsonForTerminal({ name: job.name, state: job.state, progress: null, diverged: null, end: endReportJson(end, lang, facts) }, 2) + '\n');
          else io.stdout(forTerminal(`${job.name}: ${endLine(end, lang)}`) + '\n' + endDetails(job.name, endReportJson(end, lang, facts)));
          return 0;
        }
        const r = await jobProgress(conn, job, price, { localNow: Math.floor(Date.now() / 1000) });
        const diverged = job.state === 'running' ? (r?.progress.diverged ?? null) : null;
        if (flags.json) io.stdout(jsonForTerminal({ name: job.name, state: job.state, progress: r ? progressJson(r.progress, r.finish) : null, diverged: diverged ? divergedJson(diverged) : null, end: null }, 2) + '\n');
        else io.stdout(forTerminal(`${job.name}: ${stateText(job, lang)}${diverged ? ` · ${divergedLine(diverged, price, undefined, lang)}` : r ? ` · ${progressLine(r.progress, r.finish, formatCny, undefined, l10nIn(lang)) || t(lang, 'no progress in the log yet', '日志里还没有进度')}` : t(lang, ' · no log', ' · 没有日志')}`) + '\n');
        return 0;
      }
      if (!flags.follow) {
        const { job, text, logBytes, shownFromByte } = await readLog(conn, name, { lines: flags.lines, maxBytes: flags.bytes });
        io.stdout(logText(text, raw));
        if (shownFromByte > 0 && logBytes !== null) io.stderr(t(lang, '[read the last {0} of a {1} log; --bytes N reads more]\n', '[读了 {1} 日志的最后 {0}；--bytes N 可读更多]\n', formatBytes(logBytes - shownFromByte), formatBytes(logBytes)));
        if (job.state === 'exited') printEnd(io, job.name, jobEndReportOf(job, text, price), lang, facts);
        else if (job.state !== 'running') io.stderr(`[${forTerminal(job.name)}: ${stateText(job, lang)}]\n`);
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
          const line = progressLine(tail.progress, estimateFinish(tail.progress, price, { boxNow: now, alive: true }), formatCny, undefined, l10nIn(lang));
          if (line && line !== shown) io.stderr(`${t(lang, '[progress]', '[进度]')} ${forTerminal((shown = line))}\n`);
          lastShownAt = now;
        };
        const job = await followLog(conn, name, { lines: flags.lines, onData, signal: ac.signal });
        io.stdout(logText(decoder.end(), raw));
        if (job.state === 'exited') printEnd(io, job.name, await readJobEndReport(conn, job, price), lang, facts);
        else io.stderr(`[${forTerminal(job.name)}: ${stateText(job, lang)}]\n`);
      } catch (e) {
        if (!ac.signal.aborted) throw e;
      } finally {
        process.off('SIGINT', onSigint);
      }
      return 0;
    });
  },
};

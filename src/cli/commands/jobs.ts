// `gpu-rent jobs TARGET [--json]`: the jobs started on the box with `gpu-rent run`.
import { renderTable } from '../../core/format';
import { forTerminal } from '../../core/text';
import { formatCny, yuanToFen } from '../../core/money';
import { causeSummary, type CauseLang, type Diverged, type RemedyFacts, type RunPrice } from '../../core/progress';
import type { RemoteConnection } from '../../remote/connection';
import { listJobs, type JobInfo } from '../../remote/jobs';
import { clockText, durationWords, jobProgress, progressJson, progressLine, type ProgressJson } from '../../app/runs/progress';
import { endReportJson, readJobEndReport, type EndReport, type EndReportJson } from '../../app/runs/endReport';
import { bounded, UsageError, type FlagSpecs } from '../args';
import { defineCommand } from '../define';
import { BOUNDS } from '../../core/bounds';
import { NODES_FLAG, withNodes } from './run-nodes';
import { LANG_FLAG_SPEC } from '../lang';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../remote-common';
import { heads, l10nIn, t } from '../words';

/** What the box costs, so progress can say what finishing costs (the CLI keeps no instance list). */
export const RUN_PRICE_FLAGS = {
  rate: { type: 'number', valueName: 'YUAN', ...bounded(BOUNDS.instanceYuanPerHour), description: 'what the instance costs per hour, yuan (for the cost to finish)', zh: '实例每小时的价格，元（用于估算跑完的花费）' },
  'disk-gb': { type: 'number', valueName: 'GB', ...bounded(BOUNDS.gb), description: 'billed data disk size, GB (storage is part of the cost to finish)', zh: '计费数据盘大小，GB（存储费计入跑完的花费）' },
  'storage-rate': { type: 'number', valueName: 'YUAN', ...bounded(BOUNDS.yuanPerGbDay), description: 'data disk yuan per GB per day', zh: '数据盘每 GB 每天的价格，元' },
  spot: { type: 'boolean', description: 'a spot instance: the expected rework after reclaims is part of the cost to finish', zh: '抢占式实例：被回收后预计的返工计入跑完的花费' },
  'sync-every': { type: 'number', valueName: 'SECONDS', min: 1, max: 86400, integer: true, description: 'checkpoint sync interval on spot (default 1800)', zh: '抢占式实例上检查点同步的间隔（默认 1800 秒）' },
} as const satisfies FlagSpecs;

/** The storage rate priced by the disk-full remedy ("?" without --storage-rate). */
export function remedyFactsFromFlags(f: { 'storage-rate'?: number }): RemedyFacts {
  return { storageFenPerGbDay: f['storage-rate'] !== undefined ? f['storage-rate'] * 100 : null };
}

export function runPriceFromFlags(f: { rate?: number; 'disk-gb'?: number; 'storage-rate'?: number; spot?: boolean; 'sync-every'?: number }): RunPrice | null {
  if (f.rate === undefined) return null;
  return {
    computeFenPerHour: yuanToFen(f.rate),
    storageFenPerDay: Math.round(yuanToFen(f['storage-rate'] ?? 0) * (f['disk-gb'] ?? 0)),
    ...(f.spot ? { spot: { syncIntervalSeconds: f['sync-every'] ?? 1800 } } : {}),
  };
}

export interface JobRow {
  job: JobInfo;
  progress: ProgressJson | null;
  line: string;
  /** A running job whose training loss is NaN/Inf. */
  diverged: Diverged | null;
  /** An exited job's end: exit code, duration, cost, cause. */
  end: EndReport | null;
}

/** Each job with its progress read from its log's tail (null where nothing is known), and for an exited one its end report. */
export async function jobsWithProgress(conn: RemoteConnection, jobs: readonly JobInfo[], price: RunPrice | null, now: number): Promise<JobRow[]> {
  const out: JobRow[] = [];
  for (const job of jobs) {
    if (job.state === 'exited') {
      const end = await readJobEndReport(conn, job, price).catch(() => null);
      out.push({ job, progress: null, line: '', diverged: null, end });
      continue;
    }
    const r = await jobProgress(conn, job, price, { localNow: now }).catch(() => null);
    const known = r && (r.progress.step !== null || r.progress.loss !== null || r.progress.diverged !== null);
    const diverged = job.state === 'running' ? (r?.progress.diverged ?? null) : null;
    out.push({ job, progress: known ? progressJson(r.progress, r.finish) : null, line: known ? progressLine(r.progress, r.finish, formatCny) : '', diverged, end: null });
  }
  return out;
}

const nonFinite = (v: Diverged['value']) => (v === 'nan' ? 'NaN' : v === 'inf' ? 'Inf' : '-Inf');

/** "loss NaN for 12 readings since 21:40 (step 3400) — the run has diverged, still billing ¥2.10/h". */
export function divergedLine(d: Diverged, price: RunPrice | null, offsetMinutes?: number, lang: CauseLang = 'en'): string {
  const burn = price ? ` ${formatCny(Math.round(price.computeFenPerHour + price.storageFenPerDay / 24))}/h` : '';
  if (lang === 'zh-cn') return `自 ${clockText(d.since, offsetMinutes)}${d.step !== null ? `（第 ${d.step} 步）` : ''}起连续 ${d.readings} 次读数 loss 为 ${nonFinite(d.value)}——训练已发散，仍在计费${burn}`;
  return `loss ${nonFinite(d.value)} for ${d.readings} reading${d.readings === 1 ? '' : 's'} since ${clockText(d.since, offsetMinutes)}${d.step !== null ? ` (step ${d.step})` : ''} — the run has diverged, still billing${burn}`;
}

/** The JSON of a diverged run: the value, how many readings in a row, since when (epoch seconds), the step, the last finite loss. */
export function divergedJson(d: Diverged): Diverged {
  return { value: d.value, readings: d.readings, since: d.since, step: d.step, lastFiniteLoss: d.lastFiniteLoss };
}

/** "exit 1 · ran 2 h 10 min · ¥7.80 · CUDA out of memory: …" for the table; the remedies are printed under it. */
export function endLine(r: EndReport, lang: CauseLang): string {
  const parts = [r.stopped ? t(lang, 'stopped, exit {0}', '已停止，退出码 {0}', r.exitCode ?? '?') : t(lang, 'exit {0}', '退出码 {0}', r.exitCode ?? '?')];
  if (r.durationSeconds !== null) parts.push(t(lang, 'ran {0}', '运行了 {0}', durationWords(r.durationSeconds, l10nIn(lang))));
  if (r.costFen !== null) parts.push(formatCny(r.costFen));
  if (r.cause) parts.push(causeSummary(r.cause, lang));
  return parts.join(' · ');
}

/** The remedies block printed under the table for each exited job with a cause: its quoted line, then what helps. */
export function endDetails(name: string, r: EndReportJson): string {
  if (!r.cause) return '';
  const lines = [`${name}: ${r.cause.kind}${r.cause.line !== null ? ` — ${r.cause.line}` : ''}`, ...r.remedies.map((x) => `  - ${x.text}`)];
  return lines.map((l) => forTerminal(l)).join('\n') + '\n';
}

export const LANG_FLAG = { lang: { ...LANG_FLAG_SPEC, description: 'language of the text output and of the cause and remedies of an exited job (en, zh-cn; default from LC_ALL / LC_MESSAGES / LANG)', zh: '文字输出以及已退出任务的原因和补救办法的语言（en、zh-cn；默认取 LC_ALL / LC_MESSAGES / LANG）' } } as const satisfies FlagSpecs;

const specs = {
  json: {
    type: 'boolean',
    description:
      'print the jobs as JSON (each with "progress": step, total, rate, etaSeconds, costToFinish in yuan, loss, stalled; "diverged" for a running job whose loss is NaN/Inf; for an exited job "end": exitCode, durationSeconds, costFen, cause {kind, line}, remedies [{code, text}]; null where unknown)',
    zh: '以 JSON 输出任务（每个带 "progress"：step、total、rate、etaSeconds、costToFinish（元）、loss、stalled；运行中且 loss 为 NaN/Inf 的任务带 "diverged"；已退出的任务带 "end"：exitCode、durationSeconds、costFen、cause {kind, line}、remedies [{code, text}]；未知为 null）',
  },
  ...LANG_FLAG,
  ...RUN_PRICE_FLAGS,
  ...NODES_FLAG,
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent jobs TARGET [--json] [--lang en|zh-cn] [--rate YUAN [--disk-gb GB --storage-rate YUAN] [--spot]]';
const SUMMARY = `List the jobs started with gpu-rent run: state (running, exited with its code, or lost when the box restarted under it), start time and log file; a running job's progress (and a diverged loss), an exited job's duration, cost (with --rate), the cause read from its log and what helps. ${TARGET_HELP}`;

const SUMMARY_ZH = `列出用 gpu-rent run 启动的任务：状态（运行中、已退出及退出码，或机器在其运行时重启而丢失）、开始时间和日志文件；运行中任务的进度（以及发散的 loss），已退出任务的时长、花费（需 --rate）、从日志读出的原因和补救办法。${TARGET_HELP_ZH}`;

export function stateText(j: JobInfo, lang: CauseLang = 'en'): string {
  if (j.state === 'exited') return j.stopped ? t(lang, 'stopped (exit {0})', '已停止（退出码 {0}）', String(j.exitCode)) : t(lang, 'exited {0}', '已退出 {0}', String(j.exitCode));
  return lang === 'zh-cn' ? ({ running: '运行中', lost: '已丢失' } as Record<string, string>)[j.state] ?? j.state : j.state;
}

const when = (s: number | null) => (s === null ? '-' : new Date(s * 1000).toISOString().slice(0, 19).replace('T', ' '));

type Listed =
  | { per: { node: string; rank: number; jobs: JobInfo[] }[] }
  | { rows: Awaited<ReturnType<typeof jobsWithProgress>>; price: ReturnType<typeof runPriceFromFlags>; facts: ReturnType<typeof remedyFactsFromFlags>; lang: CauseLang };

export const command: CliCommand = defineCommand({
  name: 'jobs',
  summary: 'List the training jobs on the box: running, exited (code) or lost.',
  summaryZh: '列出机器上的训练任务：运行中、已退出（退出码）或已丢失。',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 1, names: 'TARGET' },
  run: async (flags, { io, lang, positionals }): Promise<Listed> => {
    if (flags.nodes !== undefined) {
      if (positionals.length) throw new UsageError('--nodes replaces TARGET', '--nodes 代替 TARGET，不能同时给出');
      // Each node's jobs: a multi-node run has the same name on every node, one row per rank.
      return withNodes(flags.nodes, flags, io, async (nodes) => ({ per: await Promise.all(nodes.map(async (n, rank) => ({ node: n.label, rank, jobs: await listJobs(n.conn) }))) }));
    }
    return withRemote(positionals[0], flags, io, async (conn) => {
      const jobs = await listJobs(conn);
      const price = runPriceFromFlags(flags);
      const facts = remedyFactsFromFlags(flags);
      return { rows: await jobsWithProgress(conn, jobs, price, Math.floor(Date.now() / 1000)), price, facts, lang };
    });
  },
  json: (r) => ('per' in r ? r.per : r.rows.map((x) => ({ ...x.job, progress: x.progress, diverged: x.diverged ? divergedJson(x.diverged) : null, end: x.end ? endReportJson(x.end, r.lang, r.facts) : null }))),
  text: (r, lang: CauseLang) => {
    if ('per' in r) return renderTable([heads(lang, [['NAME', '名称'], ['RANK', 'RANK'], ['NODE', '节点'], ['STATE', '状态'], ['STARTED (UTC)', '开始时间 (UTC)']]), ...r.per.flatMap((p) => p.jobs.map((j) => [forTerminal(j.name), String(p.rank), forTerminal(p.node), stateText(j, lang), when(j.startedAt)])).sort((a, b) => a[0]!.localeCompare(b[0]!) || Number(a[1]) - Number(b[1]))]);
    const { rows, price, facts } = r;
    if (rows.length === 0) return t(lang, 'no jobs on this box (start one with gpu-rent run TARGET --name NAME -- COMMAND)\n', '这台机器上没有任务（用 gpu-rent run TARGET --name NAME -- COMMAND 启动一个）\n');
    const head = heads(lang, [['NAME', '名称'], ['STATE', '状态'], ['STARTED (UTC)', '开始时间 (UTC)'], ['LOG', '日志'], ['PROGRESS / END', '进度 / 结束']]);
    const table = [head, ...rows.map(({ job: j, line, diverged, end }) => [forTerminal(j.name), stateText(j, lang), when(j.startedAt), forTerminal(j.logPath), forTerminal((end ? endLine(end, lang) : diverged ? divergedLine(diverged, price, undefined, lang) : line) || '-')])];
    const details = rows.map((x) => (x.end ? endDetails(x.job.name, endReportJson(x.end, lang, facts)) : '')).filter(Boolean);
    return renderTable(table) + (details.length ? '\n' + details.join('') : '');
  },
});

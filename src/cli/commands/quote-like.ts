// `gpu-rent quote --like RUN` (issue 42 item 4): the job a finished run did, from the ledger,
// priced on every card and platform. The card and GPU count it ran on use its measured speed
// (marked measured, with the run and its date); every other card is scaled by the catalog's
// relative speed (core/perf.ts, FP16 TFLOPS), marked estimated.
import { configHome } from '../../app/platforms/accountFile';
import { cardById } from '../../core/cards';
import type { Catalog } from '../../core/catalog';
import type { QuoteRow } from '../../core/cost';
import { formatHours } from '../../core/format';
import { likeJob, type LikeJob } from '../../core/ledger/compare';
import type { RunRecord } from '../../core/ledger/record';
import { forTerminal } from '../../core/text';
import { UsageError } from '../args';
import type { CliIO } from '../command';
import type { CliLang } from '../lang';
import { t } from '../words';
import type { Built, QuoteFlags } from './quote-flags';
import { LedgerError, loadRun } from './runs';

/** The flags --like replaces: the job's size and card come from the run. */
const REPLACED = ['card', 'gpu-hours', 'steps', 'sec-per-step', 'gpus'] as const;

export interface Like {
  run: RunRecord;
  job: LikeJob;
}

/** Reads the run and turns `built` (the other flags' job) into the run's job. */
export async function likeBuilt(io: CliIO, flags: QuoteFlags, built: Built, catalog: Catalog): Promise<Like> {
  for (const f of REPLACED) if (flags[f] !== undefined) throw new UsageError(`--like takes the job's size, card and GPUs from the run: leave out --${f}`, `--like 从运行记录中取任务的大小、显卡和卡数：请去掉 --${f}`);
  const run = await loadRun(configHome(io.env), flags.like!);
  const job = likeJob(run, catalog.cards);
  if ('problem' in job) {
    const why: Record<typeof job.problem, [string, string]> = {
      'no-card': ['the run does not say which card it ran on', '该运行没有记录所用的显卡'],
      'unknown-card': [`its card "${run.card}" is not in the catalog`, `它的显卡 "${run.card}" 不在价格表中`],
      'no-speed': ['the run has no measured speed (no steps read from its log)', '该运行没有实测速度（日志中没有读到步数）'],
      'no-steps': ['the run has no step count', '该运行没有步数'],
    };
    throw new LedgerError(`run-${job.problem}`, `cannot price run ${run.id} again: ${why[job.problem][0]}`, `无法按运行 ${run.id} 报价：${why[job.problem][1]}`);
  }
  const input = { ...built.input, ...job.input, cards: undefined };
  delete input.cards;
  built.input = input;
  built.refCard = job.card;
  built.explicitCard = null;
  built.measured = 'steps';
  return { run, job };
}

/** measured: the row is the run's own card and GPU count (its hours are the run's); else estimated. */
export function basisOf(row: QuoteRow, like: Like): 'measured' | 'estimated' {
  return row.card === like.job.card.id && row.gpus === like.job.gpus && !row.hoursEstimated ? 'measured' : 'estimated';
}

const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);

export function likeJson(like: Like, rows: readonly QuoteRow[], doc: Record<string, unknown>): Record<string, unknown> {
  const measured = { run: like.run.id, name: like.run.name, date: day(like.run.startedAt) };
  const out = doc.rows as Record<string, unknown>[];
  rows.forEach((r, i) => {
    out[i]!.basis = basisOf(r, like) === 'measured' ? { kind: 'measured', ...measured } : { kind: 'estimated', from: like.job.card.id, by: 'fp16-tflops' };
  });
  return {
    like: { ...measured, card: like.job.card.id, gpus: like.job.gpus, steps: like.job.steps, stepsPerSecond: like.job.stepsPerSecond, hours: Math.round(like.job.wallHours * 1e4) / 1e4 },
    ...doc,
  };
}

export function likeText(like: Like, rows: readonly QuoteRow[], lang: CliLang): string {
  const r = like.run;
  const card = cardById(like.job.card.id)?.name ?? like.job.card.id;
  const n = rows.filter((x) => basisOf(x, like) === 'measured').length;
  return (
    t(lang, 'From run {0} ({1}, {2}): {3} steps at {4} steps/s on {5}× {6} = {7}.\n', '来自运行 {0}（{1}，{2}）：{5}× {6} 上 {3} 步，每秒 {4} 步 = {7}。\n', r.id, forTerminal(r.name), day(r.startedAt), like.job.steps, Number(like.job.stepsPerSecond.toPrecision(4)), like.job.gpus, card, formatHours(like.job.wallHours)) +
    t(lang, '{0} row(s) on {1}× {2}: measured (this run). Other cards: estimated from the catalog\'s relative speed (hours marked ~).\n\n', '{1}× {2} 上的 {0} 行：实测（本次运行）。其他显卡：按价格表的相对速度估算（时长标 ~）。\n\n', n, like.job.gpus, card)
  );
}

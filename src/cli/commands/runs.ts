// `gpu-rent runs [--json]` and `gpu-rent runs compare A B … [--json]`: the ledger of finished runs
// (app/ledger: $GPU_RENT_HOME/runs.jsonl) as a table, and runs side by side: loss against step,
// hours and yuan, with cost, speed, duration and final loss (core/ledger/compare.ts).
import { configHome } from '../../app/platforms/accountFile';
import { readRuns } from '../../app/ledger';
import { compareRuns, findRun, summary, type RunSummary } from '../../core/ledger/compare';
import type { RunRecord } from '../../core/ledger/record';
import { formatHours, renderTable } from '../../core/format';
import { fenToYuan, formatCny } from '../../core/money';
import { forTerminal } from '../../core/text';
import { UsageError, type FlagSpecs } from '../args';
import type { CliCommand, CliIO } from '../command';
import { LANG_FLAG_SPEC, type CliLang } from '../lang';
import { defineCommand } from '../define';
import { heads, t } from '../words';

/** A ledger failure with a stable code for --json (`run-not-found`, `run-ambiguous`, …) and its Chinese words. */
export class LedgerError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly zh: string,
  ) {
    super(message);
  }
}

const specs = {
  json: { type: 'boolean', description: 'print JSON: runs: {runs: [{id, name, card, gpus, platform, startedAt, seconds, steps, total, stepsPerSecond, finalLoss, bestLoss, cost, end, kind, params, staging?}], skipped}; compare: {runs: [… with curve: [{step, loss, hours, yuan}]], best: {cost, speed, duration, finalLoss}}', zh: '以 JSON 输出：runs：{runs: [{id, name, card, gpus, platform, startedAt, seconds, steps, total, stepsPerSecond, finalLoss, bestLoss, cost, end, kind, params, staging?}], skipped}；compare：{runs: [… 另有 curve: [{step, loss, hours, yuan}]], best: {cost, speed, duration, finalLoss}}' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const USAGE = 'gpu-rent runs [--json]\n       gpu-rent runs compare RUN RUN [RUN …] [--json]';
const SUMMARY = [
  'Every run gpu-rent watched to its end (gpu-rent run --then, a launch), kept in $GPU_RENT_HOME/runs.jsonl:',
  'card and GPUs, steps, speed, final loss, duration and cost. compare puts runs side by side: loss',
  'against step, hours and yuan, and which was cheapest, fastest, shortest and lowest. RUN is a run id,',
  'a unique prefix of one, or a unique name. Price the same job elsewhere: gpu-rent quote --like RUN.',
].join('\n');
const SUMMARY_ZH = [
  'gpu-rent 看着跑完的每一次运行（gpu-rent run --then、launch），保存在 $GPU_RENT_HOME/runs.jsonl：',
  '显卡和卡数、步数、速度、最终 loss、时长和花费。compare 把几次运行并排比较：loss 随步数、小时和',
  '元的变化，以及哪次最便宜、最快、最短、loss 最低。RUN 是运行 id、它的唯一前缀或唯一的名字。',
  '把同一个任务放到别处报价：gpu-rent quote --like RUN。',
].join('\n');

/** The run `ref` names in the ledger under `home`; a LedgerError when none or several match. */
export async function loadRun(home: string, ref: string): Promise<RunRecord> {
  const { runs } = await readRuns(home);
  const found = findRun(runs, ref);
  if ('run' in found) return found.run;
  if (found.error === 'ambiguous') throw new LedgerError('run-ambiguous', `"${ref}" names several runs: ${found.candidates.join(', ')}; give the whole id`, `"${ref}" 对应多次运行：${found.candidates.join('、')}；请给出完整 id`);
  throw new LedgerError('run-not-found', `no run "${ref}" in the ledger (${runs.length} run(s); see gpu-rent runs)`, `账本中没有运行 "${ref}"（共 ${runs.length} 次；见 gpu-rent runs）`);
}

function summaryJson(s: RunSummary): Record<string, unknown> {
  return { ...s, startedAt: new Date(s.startedAt * 1000).toISOString(), cost: s.costFen === null ? null : fenToYuan(s.costFen), fenPerKStep: undefined };
}

const num = (v: number | null, d = 3) => (v === null ? '?' : String(Number(v.toPrecision(d + 1))));
const date = (s: number) => new Date(s * 1000).toISOString().slice(0, 16).replace('T', ' ');

function table(rows: readonly RunSummary[], lang: CliLang): string {
  const head = heads(lang, [['RUN', '运行'], ['NAME', '名称'], ['CARD', '显卡'], ['STARTED (UTC)', '开始（UTC）'], ['DURATION', '时长'], ['STEPS', '步数'], ['STEPS/S', '步/秒'], ['FINAL LOSS', '最终 LOSS'], ['COST', '花费'], ['ENDED', '结束方式']]);
  const body = rows.map((r) => [
    r.id,
    forTerminal(r.name),
    r.card ? `${r.gpus ?? 1}× ${forTerminal(r.card)}` : '?',
    date(r.startedAt),
    formatHours(r.seconds / 3600),
    r.steps === null ? '?' : r.total !== null ? `${r.steps}/${r.total}` : String(r.steps),
    num(r.stepsPerSecond),
    num(r.finalLoss, 4),
    r.costFen === null ? '?' : formatCny(r.costFen),
    r.end,
  ]);
  return renderTable([head, ...body], ['l', 'l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'l']);
}

type RunsResult = { kind: 'list'; rows: RunSummary[]; skipped: Awaited<ReturnType<typeof readRuns>>['skipped']; truncated: boolean } | { kind: 'compare'; c: ReturnType<typeof compareRuns> };

async function list(io: CliIO, json: boolean, lang: CliLang): Promise<RunsResult> {
  const { runs, skipped, truncated } = await readRuns(configHome(io.env));
  // By start, then name: runs started in the same second (a sweep, two terminals) list the same way every time, whichever ended first.
  const rows = [...runs].sort((a, b) => a.startedAt - b.startedAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(summary);
  if (!json && skipped.length) io.stderr(t(lang, 'gpu-rent runs: {0} line(s) of the ledger are not valid records and were skipped (first: line {1}, {2})\n', 'gpu-rent runs：账本中有 {0} 行不是有效记录，已跳过（第一处：第 {1} 行，{2}）\n', skipped.length, skipped[0]!.line, skipped[0]!.problem));
  return { kind: 'list', rows, skipped, truncated };
}

async function compare(io: CliIO, refs: readonly string[]): Promise<RunsResult> {
  if (refs.length < 2) throw new UsageError('runs compare needs two or more runs: gpu-rent runs compare RUN RUN [RUN …]', 'runs compare 需要两次或更多运行：gpu-rent runs compare RUN RUN [RUN …]');
  if (refs.length > 20) throw new UsageError('runs compare takes at most 20 runs', 'runs compare 最多比较 20 次运行');
  const home = configHome(io.env);
  const runs: RunRecord[] = [];
  for (const ref of refs) runs.push(await loadRun(home, ref));
  return { kind: 'compare', c: compareRuns(runs) };
}

function compareText(c: ReturnType<typeof compareRuns>, lang: CliLang): string {
  let out = table(c.runs, lang);
  const name = (id: string | null) => (id === null ? '?' : id);
  out += '\n' + t(lang, 'cheapest: {0}  fastest: {1}  shortest: {2}  lowest final loss: {3}\n', '最便宜：{0}  最快：{1}  最短：{2}  最终 loss 最低：{3}\n', name(c.best.cost), name(c.best.speed), name(c.best.duration), name(c.best.finalLoss));
  for (const r of c.runs) {
    out += '\n' + t(lang, '{0}: loss by step, hours and yuan\n', '{0}：loss 随步数、小时、元的变化\n', r.id);
    const pts = r.curve.length > 12 ? r.curve.filter((_, i) => i % Math.ceil(r.curve.length / 12) === 0 || i === r.curve.length - 1) : r.curve;
    const head = heads(lang, [['STEP', '步'], ['LOSS', 'LOSS'], ['HOURS', '小时'], ['YUAN', '元']]);
    out += renderTable([head, ...pts.map((p) => [String(p.step), num(p.loss, 4), p.hours === null ? '?' : p.hours.toFixed(3), p.yuan === null ? '?' : p.yuan.toFixed(2)])], ['r', 'r', 'r', 'r']);
  }
  return out;
}

export const command: CliCommand = defineCommand({
  name: 'runs',
  summary: 'the ledger of finished runs: list them, compare them (loss vs step, hours, yuan; cost, speed)',
  summaryZh: '已结束运行的账本：列出、比较（loss 随步数、小时、元；花费、速度）',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  run: async (_flags, { io, lang, json, positionals }) => {
    const [sub, ...refs] = positionals;
    if (sub === undefined) return list(io, json, lang);
    if (sub === 'compare') return compare(io, refs);
    throw new UsageError(`unknown runs subcommand "${sub}" (expects compare, or nothing to list the runs)`, `未知的 runs 子命令 "${sub}"（应为 compare，或不带子命令以列出运行）`);
  },
  json: (r) => (r.kind === 'list' ? { runs: r.rows.map(summaryJson), skipped: r.skipped, truncated: r.truncated } : { runs: r.c.runs.map((x) => ({ ...summaryJson(x), curve: x.curve })), best: r.c.best }),
  text: (r, lang) => {
    if (r.kind === 'compare') return compareText(r.c, lang);
    if (!r.rows.length) return t(lang, 'no runs yet: a run is recorded when gpu-rent watches it end (gpu-rent run --then …, gpu-rent launch)\n', '还没有运行记录：gpu-rent 看着一次运行结束时才会记录（gpu-rent run --then …、gpu-rent launch）\n');
    return table(r.rows, lang);
  },
});

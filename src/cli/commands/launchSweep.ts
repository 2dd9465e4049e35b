// `gpu-rent launch` of a task with `matrix:`: the sweep (app/launch/sweep.ts) driven with the
// launch's own options and host, and `launch --status` as a table of its runs.
import { formatCny } from '../../core/money';
import { renderTable } from '../../core/format';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { valueText } from '../../core/task/sweep';
import type { Task } from '../../core/task/types';
import type { LaunchHost, LaunchOptions } from '../../app/launch/run';
import { launchSweep, sweepExitCode, sweepStatus, type SweepMemberState, type SweepState } from '../../app/launch/sweep';
import type { CliIO } from '../command';
import { jsonError } from '../json-error';
import type { CliLang } from '../lang';
import { t } from '../words';

const STATUS_ZH: Record<SweepMemberState['status'], string> = { queued: '排队', running: '运行中', done: '完成', failed: '失败', skipped: '跳过' };
const PHASE_ZH: Record<string, string> = { acquire: '获取机器', check: '检查', push: '上传', setup: '准备环境', run: '运行', watch: '运行中', end: '结束', done: '完成', stopped: '已停止', failed: '失败' };

const paramsText = (p: SweepMemberState['params']) => Object.entries(p).map(([k, v]) => `${k}=${valueText(v)}`).join(' ');

export async function sweepTable(home: string, file: string, task: Task, lang: CliLang, now = Date.now() / 1000): Promise<string | undefined> {
  const st = await sweepStatus(home, file, task.name, now);
  if (!st) return undefined;
  const zh = lang === 'zh-cn';
  const head = zh ? ['#', '运行', '参数', '状态', '阶段', '机器', '进度', 'LOSS', '花费'] : ['#', 'RUN', 'PARAMETERS', 'STATUS', 'PHASE', 'BOX', 'STEP', 'LOSS', 'SPENT'];
  const body = st.rows.map(({ member: m, state: s, spentFen }) => [
    String(m.index),
    m.name,
    forTerminal(paramsText(m.params)),
    zh ? STATUS_ZH[m.status] : m.status,
    s ? `${zh ? (PHASE_ZH[s.phase] ?? s.phase) : s.phase}${s.outcome ? ` (${s.outcome.kind})` : ''}` : '-',
    s?.box ? forTerminal(s.box.label).slice(0, 40) + (m.devices !== null ? ` gpu ${m.devices}` : '') : '-',
    s?.progress?.step != null ? `${s.progress.step}${s.progress.total != null ? `/${s.progress.total}` : ''}` : '-',
    s?.progress?.loss != null ? s.progress.loss.toFixed(4) : '-',
    spentFen === null ? '?' : formatCny(spentFen),
  ]);
  const sw = st.sweep;
  const counts = (k: SweepMemberState['status']) => sw.members.filter((m) => m.status === k).length;
  const total = st.spentUnknown ? `${formatCny(st.spentFen)}+?` : formatCny(st.spentFen);
  const lines = [
    t(lang, 'sweep {0}: {1} runs ({2} done, {3} failed, {4} running, {5} queued, {6} skipped), at most {7} at once{8}', '扫参 {0}：{1} 次运行（完成 {2}，失败 {3}，运行中 {4}，排队 {5}，跳过 {6}），最多同时 {7} 个{8}', sw.sweep, sw.members.length, counts('done'), counts('failed'), counts('running'), counts('queued'), counts('skipped'), sw.maxParallel, sw.failFast ? ' · fail_fast' : ''),
    t(lang, '  spent {0}{1}', '  已花费 {0}{1}', total, sw.budgetFen !== null ? t(lang, ' of the budget {0}', '，预算 {0}', formatCny(sw.budgetFen)) : ''),
    ...(sw.stopped ? [t(lang, '  no further run starts: {0}', '  不再启动新的运行：{0}', forTerminal(sw.stopped))] : []),
    // A shared box whose last run (the end action's) never started: the sweep's own end of it, or that it still bills.
    ...(sw.boxEnds ?? []).map((b) => {
      const rate = b.fenPerHour === null ? '? ¥' : formatCny(b.fenPerHour);
      return b.ok
        ? t(lang, '  {0}: its last run never started; the sweep did its end ({1})', '  {0}：它的最后一次运行没有启动；扫参已执行结束动作（{1}）', forTerminal(b.label), b.end)
        : t(lang, '  STILL BILLING: {0} still bills: {1}/h — power it off or release it (gpu-rent power-off or the console). {2}', '  仍在计费：{0} 仍按 {1}/小时 计费——请关机或释放（gpu-rent power-off 或控制台）。{2}', forTerminal(b.label), rate, forTerminal(b.detail).slice(0, 300));
    }),
    '',
    renderTable([head, ...body], ['r', 'l', 'l', 'l', 'l', 'l', 'r', 'r', 'r']).trimEnd(),
    ...st.rows.filter((r) => r.member.status === 'failed' && r.member.detail).map((r) => `  ${r.member.name}: ${forTerminal(r.member.detail!).slice(0, 300)}`),
  ];
  return lines.join('\n') + '\n';
}

function sweepJson(s: SweepState, rows: Awaited<ReturnType<typeof sweepStatus>>) {
  return { ...s, spentFen: rows && !rows.spentUnknown ? rows.spentFen : null, runs: rows?.rows.map((r) => ({ ...r.member, phase: r.state?.phase ?? null, outcome: r.state?.outcome ?? null, box: r.state?.box?.label ?? null, progress: r.state?.progress ?? null, spentFen: r.spentFen })) };
}

export async function sweepStatusCli(home: string, file: string, task: Task, io: CliIO, lang: CliLang, json: boolean): Promise<number> {
  const st = await sweepStatus(home, file, task.name);
  if (!st) {
    if (json) {
      io.stdout(jsonError('no-launch', `no sweep of ${task.name} yet`));
      return 1;
    }
    io.stdout(t(lang, '{0}: not launched yet (gpu-rent launch {0})\n', '{0}：还没有启动过（gpu-rent launch {0}）\n', task.name));
    return 1;
  }
  if (json) io.stdout(jsonForTerminal(sweepJson(st.sweep, st), 2) + '\n');
  else io.stdout((await sweepTable(home, file, task, lang)) ?? '');
  return 0;
}

export async function runSweep(o: LaunchOptions, host: LaunchHost, io: CliIO, lang: CliLang, json: boolean): Promise<number> {
  const s = await launchSweep(o, {
    ...host,
    onMember: (m) => {
      const what = m.status === 'running' ? t(lang, 'started', '已启动') : zhOr(lang, m.status);
      io.stderr(forTerminal(`[${m.name}] ${t(lang, 'sweep run {0} ({1}): {2}', '扫参运行 {0}（{1}）：{2}', m.index, paramsText(m.params), what)}${m.detail && m.status !== 'running' ? ` — ${m.detail}` : ''}`) + '\n');
    },
  });
  if (json) io.stdout(jsonForTerminal(sweepJson(s, await sweepStatus(host.configHome, o.file, o.task.name)), 2) + '\n');
  else io.stdout((await sweepTable(host.configHome, o.file, o.task, lang)) ?? '');
  return sweepExitCode(s);
}

const zhOr = (lang: CliLang, s: SweepMemberState['status']) => (lang === 'zh-cn' ? STATUS_ZH[s] : s);

// The Chinese for a schedule run's detail. app/schedule.ts writes each detail in plain English
// (it is also kept in schedules.json's history and printed as is by --json); the CLI's Chinese
// output reads the known shapes back from the result's outcome, failure and words. A detail of
// another shape (a platform's own message) is kept as it came.
import type { RunResult } from '../../app/schedule';
import { failureKindZh } from '../words';

const EXACT: Record<string, string> = {
  'already running': '已在运行',
  'already in no-GPU mode': '已是无卡模式',
  'already shut down': '已关机',
  'it is shut down: not started just to be in no-GPU mode': '已关机：不会只为进入无卡模式而开机',
  'it is released': '已释放',
  'the instance is gone from the account (released?)': '该实例已不在账号里（已释放？）',
  'started with its GPU': '已带 GPU 开机',
  'switched to no-GPU mode': '已切换到无卡模式',
  'shut down': '已关机',
  'shut down (economical mode asked)': '已关机（请求了节省模式）',
};

const ACTION_ZH: Record<string, string> = { 'power-on': '开机', 'no-gpu': '无卡开机', 'power-off': '关机' };

// Anchored, each group a class that cannot run into the literal after it (linear).
const MISSED = /^its time passed (\d{1,6}) (?:h (\d{1,2}) )?min ago while nothing ran, outside the (\d{1,6}) min window: not run late$/;
const SUPERSEDED = /^a later rule of the same instance \(([^()\s]{1,80})\) was due too: only that one ran$/;
const NO_ACCOUNT = /^no account (\S{1,200}) here \(gpu-rent accounts list; VS Code's runner acts for its own accounts\)$/;
const READ_ONLY = /^account (\S{1,200}) is read-only: power actions are not allowed$/;
const NO_ACTION = /^the platform offers no (\S{1,20}) through its API$/;
const CHANGING = /^it is changing state \(([^()]{0,200})\): tried again while in its window$/;
const REPORTS = /reports "([^"]{0,200})" after (\d{1,6}) s/;

/** powerLock's busyText ("WHO (pid N) since DATE Beijing") in Chinese, read by plain string cuts. */
function busyZh(who: string): string {
  let what = who;
  let since = '';
  const s = what.lastIndexOf(' since ');
  if (s >= 0 && what.endsWith(' Beijing')) {
    since = `，自北京时间 ${what.slice(s + ' since '.length, -' Beijing'.length)} 起`;
    what = what.slice(0, s);
  }
  let pid = '';
  const p = what.lastIndexOf(' (pid ');
  if (p >= 0 && what.endsWith(')')) {
    pid = `（pid ${what.slice(p + ' (pid '.length, -1)}）`;
    what = what.slice(0, p);
  }
  return `正在由 ${what}${pid}开机${since}：未发送任何请求`;
}

/** `r.detail` in Chinese where its shape is known, else as it came. */
export function scheduleDetailZh(r: Pick<RunResult, 'detail' | 'outcome' | 'failure'>): string {
  const d = r.detail;
  const exact = Object.prototype.hasOwnProperty.call(EXACT, d) ? EXACT[d] : undefined;
  if (exact) return exact;
  let m = MISSED.exec(d);
  if (m) return `计划时间已过去 ${m[2] !== undefined ? `${m[1]} 小时 ${m[2]} 分钟` : `${m[1]} 分钟`}，期间没有任何程序在运行，超出了 ${m[3]} 分钟的窗口：不会迟执行`;
  if ((m = SUPERSEDED.exec(d))) return `同一实例的一条更晚的规则（${m[1]}）也已到期：只执行了那一条`;
  if ((m = NO_ACCOUNT.exec(d))) return `这里没有账号 ${m[1]}（gpu-rent accounts list；VS Code 的执行器只为它自己的账号执行）`;
  if ((m = READ_ONLY.exec(d))) return `账号 ${m[1]} 是只读的：不允许电源操作`;
  if ((m = NO_ACTION.exec(d))) return `平台的 API 不提供${ACTION_ZH[m[1]!] ?? m[1]}`;
  if ((m = CHANGING.exec(d))) return `它正在改变状态（${m[1]}）：仍在窗口内时会再试`;
  if (d.endsWith(': nothing sent') && d.startsWith('already being started by ')) return busyZh(d.slice('already being started by '.length, -': nothing sent'.length));
  if (r.outcome === 'unsettled' && (m = REPORTS.exec(d))) {
    const tail = d.startsWith('power-off sent') ? '：可能仍在计费，请在控制台查看' : d.startsWith('shut down sent to switch') ? '：没有以无卡模式开机' : '';
    const what = d.startsWith('power-off sent') ? '关机请求' : d.startsWith('shut down sent to switch') ? '为切换到无卡模式发送的关机请求' : d.startsWith('no-GPU start sent') ? '无卡开机请求' : '开机请求';
    return `已发送${what}，但 ${m[2]} 秒后它的状态是 "${m[1]}"${tail}`;
  }
  // A platform's refusal: the extension's words for its kind, the platform's own words kept beside them.
  const kind = r.failure ? failureKindZh(r.failure.kind) : undefined;
  if (kind) return `${kind}（${d}）`;
  return d;
}

const PARSE: readonly [RegExp, (m: RegExpExecArray) => string][] = [
  [/^"([^"]{0,80})" is not a day or a range of days$/, (m) => `"${m[1]}" 不是某一天，也不是几天的范围`],
  [/^"([^"]{0,80})" is not a day \(mon … sun, weekdays, weekends, daily\)$/, (m) => `"${m[1]}" 不是某一天（mon … sun、weekdays、weekends、daily）`],
  [/^expects days and a time, e.g\. "mon-fri 17:00" or "daily 01:00"$/, () => '需要日期和时间，例如 "mon-fri 17:00" 或 "daily 01:00"'],
  [/^"([^"]{0,80})" is not a time: use 24-hour HH:MM, Beijing time \(e\.g\. 17:00\)$/, (m) => `"${m[1]}" 不是时间：请用 24 小时制 HH:MM，北京时间（例如 17:00）`],
  [/^"([^"]{0,80})" is not a time of day \(00:00 … 23:59\)$/, (m) => `"${m[1]}" 不是一天中的时间（00:00 … 23:59）`],
];

/** core/schedule's --at parse error in Chinese (its five sentences), else as it came. */
export function scheduleParseZh(message: string): string {
  for (const [re, zh] of PARSE) {
    const m = re.exec(message);
    if (m) return zh(m);
  }
  return message;
}

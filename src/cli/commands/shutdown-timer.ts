// `gpu-rent shutdown-timer INSTANCE --in 3h | --at "2026-12-07 01:00" | --cancel`: the platform's own
// timed shutdown, which runs while this machine sleeps. Only AutoDL's console token has the request
// (core/platforms/timedShutdown.ts says which form and why); it is sent once and read back from the
// list row, and a read-back that names another minute is said loudly (exit 1).
import { armTimedShutdown, canArmTimer, type ArmResult } from '../../app/platforms/timedShutdown';
import { PLATFORM_NAMES } from '../../app/platforms/errors';
import { parseDuration } from '../../core/task/fields';
import { MAX_TIMER_DAYS, parseBeijingMinute } from '../../core/platforms/timedShutdown';
import { beijingDateTime } from '../../core/spend';
import { forTerminal } from '../../core/text';
import { UsageError, type FlagSpecs } from '../args';
import type { CliCommand, CliIO } from '../command';
import { defineCommand } from '../define';
import { CliFailure } from '../failure';
import { LANG_FLAG_SPEC, type CliLang } from '../lang';
import { t } from '../words';
import { failureLine } from './accounts';
import { findPlatformInstance } from './power';
import type { Connector } from '../../core/platforms/types';

const specs = {
  in: { type: 'string', valueName: 'DURATION', description: 'shut down after this long: 90m, 3h, 1h30m', zh: '多久之后关机：90m、3h、1h30m' },
  at: { type: 'string', valueName: 'TIME', description: 'shut down at this Beijing time: "2026-12-07 01:00"', zh: '在这个北京时间关机："2026-12-07 01:00"' },
  cancel: { type: 'boolean', description: 'cancel the timed shutdown', zh: '取消定时关机' },
  account: { type: 'string', valueName: 'ID', description: 'the account the instance belongs to (when several could)', zh: '实例所属的账号（可能属于多个账号时）' },
  yes: { type: 'boolean', description: 'send it (without it, only the instance and the time are shown)', zh: '发送（不加时只显示实例和时间）' },
  json: { type: 'boolean', description: 'print JSON', zh: '以 JSON 输出' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const USAGE = 'gpu-rent shutdown-timer INSTANCE (--in DURATION | --at "YYYY-MM-DD HH:MM" | --cancel) [--account ID] [--yes] [--json]';
const SUMMARY = [
  "The platform's own timed shutdown: it shuts the instance down at that time whether or not this machine is awake.",
  "AutoDL console-token accounts only (the console's timed/shutdown request; AutoDL Pro's developer API and the clouds have none",
  `that only stops). Sent once, then read back from the platform's instance list. At most ${MAX_TIMER_DAYS} days ahead. Times are Beijing time.`,
].join('\n');
const SUMMARY_ZH = [
  '平台自己的定时关机：到时平台会关机，无论本机是否醒着。',
  '仅限 AutoDL 控制台令牌账号（控制台的 timed/shutdown 请求；AutoDL Pro 开发者 API 和各云平台没有只关机的定时器）。',
  `只发送一次，然后从平台的实例列表读回确认。最多提前 ${MAX_TIMER_DAYS} 天。时间为北京时间。`,
].join('\n');

/** When `--in` / `--at` name (epoch seconds), or a usage error's words. */
export function timerWhen(flags: { in?: string; at?: string }, now: number): number {
  if (flags.in !== undefined) {
    const s = parseDuration(flags.in);
    if (s === undefined || s <= 0) throw new UsageError(`--in: "${forTerminal(flags.in)}" is not a duration (90m, 3h, 1h30m)`, `--in："${forTerminal(flags.in)}" 不是时长（90m、3h、1h30m）`);
    return now + s;
  }
  const at = parseBeijingMinute(flags.at ?? '');
  if (at === undefined) throw new UsageError(`--at: "${forTerminal(flags.at ?? '')}" is not a Beijing time "YYYY-MM-DD HH:MM"`, `--at："${forTerminal(flags.at ?? '')}" 不是北京时间 "YYYY-MM-DD HH:MM"`);
  return at;
}

/** The line for a refused or sent timer, and whether it went as asked. */
export function armLine(r: ArmResult, name: string, at: number | null, lang: CliLang, kindName: string): { ok: boolean; en: string; text: string } {
  const when = at === null ? '' : beijingDateTime(at);
  const say = (en: string, zh: string, ...v: (string | number)[]) => ({ en: t('en', en, zh, ...v), text: t(lang, en, zh, ...v) });
  if (r.kind === 'refused') {
    if (r.problem === 'notSupported') return { ok: false, ...say("{0} has no timed-shutdown request in its API (only AutoDL's console token does): set it in the platform's console", '{0} 的 API 没有定时关机请求（只有 AutoDL 控制台令牌有）：请在平台控制台设置', kindName) };
    if (r.problem === 'past') return { ok: false, ...say('{0} Beijing is not at least a minute from now: nothing sent', '北京时间 {0} 距现在不到一分钟：没有发送', when) };
    return { ok: false, ...say('{0} Beijing is more than {1} days ahead: nothing sent', '北京时间 {0} 超过 {1} 天之后：没有发送', when, MAX_TIMER_DAYS) };
  }
  if (at === null) {
    if (r.verdict === 'confirmed') return { ok: true, ...say('timed shutdown of {0} cancelled (read back: none armed)', '已取消 {0} 的定时关机（读回：没有定时器）', name) };
    return { ok: false, ...say('cancel sent for {0}, but the platform still shows a timed shutdown at {1} Beijing: check it in the console', '已为 {0} 发送取消，但平台仍显示北京时间 {1} 的定时关机：请在控制台查看', name, r.seenAt !== undefined ? beijingDateTime(r.seenAt) : '?') };
  }
  if (r.verdict === 'confirmed') return { ok: true, ...say('timed shutdown of {0} armed for {1} Beijing (read back from the platform): it shuts down then, even while this machine sleeps', '已为 {0} 设定北京时间 {1} 的定时关机（已从平台读回）：到时即使本机休眠也会关机', name, when) };
  if (r.verdict === 'notShown') return { ok: false, ...say('timed shutdown of {0} sent for {1} Beijing, but the platform does not show it: it may NOT be armed, check it in the console', '已为 {0} 发送北京时间 {1} 的定时关机，但平台没有显示：可能没有设上，请在控制台查看', name, when) };
  return { ok: false, ...say('timed shutdown of {0} sent for {1} Beijing, but the platform shows {2} Beijing: fix it in the console', '已为 {0} 发送北京时间 {1} 的定时关机，但平台显示为北京时间 {2}：请在控制台改正', name, when, r.seenAt !== undefined ? beijingDateTime(r.seenAt) : '?') };
}

/** Arm it on a connector and say so on stderr (shared with clone --shutdown-in); true when read back as asked. */
export async function armAndSay(io: CliIO, c: Connector, ref: string, name: string, at: number | null, now: number, lang: CliLang, kindName: string): Promise<{ ok: boolean; en: string; result?: ArmResult }> {
  let r: ArmResult;
  try {
    r = await armTimedShutdown(c, ref, at, now);
  } catch (e) {
    io.stderr(`  ${t(lang, 'timed shutdown refused: {0}', '定时关机被拒绝：{0}', failureLine(e, lang))}\n`);
    return { ok: false, en: `timed shutdown refused: ${failureLine(e)}` };
  }
  const l = armLine(r, name, at, lang, kindName);
  io.stderr(forTerminal(`  ${l.text}`) + '\n');
  return { ok: l.ok, en: l.en, result: r };
}

function nowS(io: CliIO): number {
  const n = Number(io.env.GPU_RENT_TEST_NOW);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : Math.floor(Date.now() / 1000);
}

type TimerResult = { preview: true; doc: Record<string, unknown> } | { preview: false; doc: Record<string, unknown>; line: string };

export const command: CliCommand = defineCommand({
  name: 'shutdown-timer',
  summary: "the platform's own timed shutdown (AutoDL console token): arm, move or cancel it",
  summaryZh: '平台自己的定时关机（AutoDL 控制台令牌）：设定、修改或取消',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 1, names: 'INSTANCE' },
  run: async (flags, { io, lang, json, positionals }): Promise<TimerResult> => {
    const target = positionals[0];
    if (!target) throw new UsageError('expects INSTANCE (gpu-rent instances lists them)', '需要 INSTANCE（gpu-rent instances 会列出）');
    if ([flags.in !== undefined, flags.at !== undefined, flags.cancel === true].filter(Boolean).length !== 1) throw new UsageError('give one of --in, --at or --cancel', '请给出 --in、--at 或 --cancel 之一');
    const now = nowS(io);
    const at = flags.cancel ? null : timerWhen(flags, now);
    const fail = (code: string, en: string, text: string) => new CliFailure(code, en, { say: forTerminal(text) });
    const found = await findPlatformInstance(io, target, flags.account, json ? 'en' : lang);
    if ('miss' in found) throw fail(found.code, found.en, found.text);
    const { a, c, inst } = found;
    const kindName = PLATFORM_NAMES[a.account.kind];
    if (!canArmTimer(c)) {
      const l = armLine({ kind: 'refused', problem: 'notSupported' }, inst.name, at, lang, kindName);
      throw fail('not-supported', l.en, l.text);
    }
    if (!a.account.powerActions) throw fail('read-only', `account ${a.account.id} is read-only (${a.source === 'env' ? 'set GPU_RENT_ALLOW_POWER=1' : 'add it again with --allow-power'})`, t(lang, 'account {0} is read-only ({1})', '账号 {0} 是只读的（{1}）', a.account.id, a.source === 'env' ? 'GPU_RENT_ALLOW_POWER=1' : '--allow-power'));
    if (!flags.yes) {
      const what = at === null ? t(lang, 'cancel the timed shutdown of {0} ({1}/{2})', '取消 {0}（{1}/{2}）的定时关机', inst.name, a.account.id, inst.ref) : t(lang, 'arm a timed shutdown of {0} ({1}/{2}) at {3} Beijing', '为 {0}（{1}/{2}）设定北京时间 {3} 的定时关机', inst.name, a.account.id, inst.ref, beijingDateTime(at));
      const armed = inst.platformTimer?.action === 'shutdown' ? t(lang, '; armed now: {0} Beijing', '；当前定时：北京时间 {0}', beijingDateTime(inst.platformTimer.at)) : '';
      io.stderr(forTerminal(`gpu-rent shutdown-timer: ${what}${armed}. ${t(lang, 'Nothing sent; add --yes to send it', '没有发送任何请求；加 --yes 才会发送')}`) + '\n');
      return { preview: true, doc: { preview: true, account: a.account.id, ref: inst.ref, atBeijing: at === null ? null : beijingDateTime(at), armedBeijing: inst.platformTimer?.action === 'shutdown' ? beijingDateTime(inst.platformTimer.at) : null } };
    }
    const r = await armAndSay(io, c, inst.ref, inst.name, at, now, lang, kindName);
    const seen = r.result?.kind === 'sent' && r.result.seenAt !== undefined ? beijingDateTime(r.result.seenAt) : null;
    // armAndSay said why on stderr.
    if (!r.ok) throw new CliFailure(r.result?.kind === 'sent' ? 'read-back-differs' : 'refused', r.en, { extra: { readBack: seen }, say: null });
    return {
      preview: false,
      doc: { account: a.account.id, ref: inst.ref, atBeijing: at === null ? null : beijingDateTime(at), readBack: seen, outcome: at === null ? 'cancelled' : 'armed' },
      line: `${forTerminal(inst.ref)}: ${at === null ? t(lang, 'timed shutdown cancelled', '定时关机已取消') : t(lang, 'timed shutdown {0} Beijing', '定时关机 北京时间 {0}', beijingDateTime(at))}\n`,
    };
  },
  json: (r) => r.doc,
  // The preview says it on stderr; stdout has its JSON only.
  text: (r) => (r.preview ? '' : r.line),
  // A preview sends nothing: exit 2, as create and clone preview.
  exit: (r) => (r.preview ? 2 : 0),
});

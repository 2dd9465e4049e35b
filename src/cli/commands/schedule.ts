// `gpu-rent schedule add|list|remove|run`: power schedules per instance on the Beijing clock,
// kept in $GPU_RENT_HOME/schedules.json (app/schedule.ts) and carried out by `schedule run`
// from cron or a systemd timer. Nothing runs while no `schedule run` does (a sleeping laptop):
// the next run does what is still inside its window and reports the rest as missed.
import { configHome } from '../../app/platforms/accountFile';
import { PLATFORM_NAMES } from '../../app/platforms/errors';
import { mapLimited } from '../../remote/util/limit';
import { addRule, readSchedules, removeRule, runDue, type RunResult, type ScheduleAccount } from '../../app/schedule';
import { renderTable } from '../../core/format';
import { formatCny } from '../../core/money';
import { descriptorOf } from '../../core/platforms/descriptors';
import { can, type PlatformInstance } from '../../core/platforms/types';
import { actionCapability, DEFAULT_GRACE_S, MAX_GRACE_S, nextDue, noPlatformTimer, parseScheduleAt, ScheduleParseError, scheduleAtText, SCHEDULE_ACTIONS, type NoPlatformTimer, type ScheduleAction, type ScheduleRule } from '../../core/schedule';
import { beijingDateTime } from '../../core/spend';
import { forTerminal, jsonForTerminal, listSome } from '../../core/text';
import { formatHelp, parseArgs, UsageError, type FlagSpecs } from '../args';
import { helpLang, platformFailureZh, shared, t } from '../words';
import { cliLang, LANG_FLAG_SPEC, type CliLang } from '../lang';
import type { CliCommand, CliIO } from '../command';
import { jsonError, errorCode } from '../json-error';
import { connectorFor, failureLine, howToAdd, loadAccounts, type CliAccount } from './accounts';
import { scheduleDetailZh, scheduleParseZh } from './schedule-words';
import { allFailedCode, miss, printJsonFailure, type Miss } from './platform-fail';
import { runKeepAlive, type KeepAliveResult } from '../../app/platforms/keepAlive';
import { channelsNamed, readChannelFile, SENT_JOURNAL_FILE, type StoredChannel } from '../../app/notify/channelFile';
import { notifyEvent } from '../../app/notify/send';
import type { NotifyEvent } from '../../core/notify/events';
import { PowerOnLocks } from '../../app/platforms/powerLock';
import { join } from 'node:path';

const specs = {
  at: { type: 'string', valueName: 'WHEN', description: 'add: days and a Beijing time, e.g. "mon-fri 17:00", "daily 01:00", "sat,sun 09:30"', zh: 'add：日期和北京时间，例如 "mon-fri 17:00"、"daily 01:00"、"sat,sun 09:30"' },
  do: { type: 'string', valueName: 'ACTION', choices: SCHEDULE_ACTIONS, description: 'add: power-on (with its GPU), no-gpu (a running instance is shut down and started in no-GPU mode, where the platform offers it) or power-off', zh: 'add：power-on（带 GPU 开机）、no-gpu（运行中的实例先关机，再以无卡模式开机，平台支持时）或 power-off' },
  account: { type: 'string', valueName: 'ID', description: 'add: the account the instance belongs to (when several could)', zh: 'add：实例所属的账号（可能属于多个账号时）' },
  'on-platform': { type: 'boolean', description: 'add: have the platform keep the time itself where it can (it runs while this machine sleeps); says what the platform offers, reads back a timer armed in its console, and otherwise keeps the rule for gpu-rent\'s runner', zh: 'add：平台能自己计时就交给平台（本机睡眠时也会执行）；说明平台提供什么，读回在控制台设好的定时器，否则规则仍由 gpu-rent 的运行器执行' },
  grace: { type: 'number', valueName: 'MINUTES', integer: true, min: 1, max: MAX_GRACE_S / 60, description: `run: a rule whose time passed while nothing ran still runs within this many minutes of it (default ${DEFAULT_GRACE_S / 60}); later it is reported as missed`, zh: `run：错过时间时没有运行的规则，在这么多分钟内仍会执行（默认 ${DEFAULT_GRACE_S / 60}）；超过则报告为错过` },
  json: { type: 'boolean', description: 'list, run: print JSON (run exiting 1: error {code: "not-done", message} beside its results); add, remove: print {"error": {code, message}} when they fail', zh: 'list、run：以 JSON 输出（run 退出码为 1 时，结果旁边多一个 error {code: "not-done", message}）；add、remove：失败时输出 {"error": {code, message}}' },
  notify: { type: 'string', valueName: 'NAME,…', description: 'run: message channels (gpu-rent notify list) told of each keep-alive done or failed', zh: 'run：每次防释放完成或失败时通知的消息渠道（gpu-rent notify list 可查看）' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const USAGE = 'gpu-rent schedule add INSTANCE --at "mon-fri 17:00" --do power-on|no-gpu|power-off [--account ID] [--on-platform] | list [--json] | remove ID | run [--grace MINUTES] [--notify NAME,…] [--json]';
const SUMMARY = [
  'Power schedules per instance, on the Beijing clock (UTC+8) whatever this machine\'s time zone.',
  'They run when `gpu-rent schedule run` runs (cron: */5 * * * * gpu-rent schedule run, or a systemd timer)',
  'and, while VS Code runs, in the extension for its own accounts of the same id; both at once do each',
  'time once. While this machine sleeps nothing runs; the next run does a rule whose time',
  `passed less than ${DEFAULT_GRACE_S / 60} minutes ago (--grace) and reports older ones as missed, never running them late.`,
  'Kept in $GPU_RENT_HOME/schedules.json (mode 0600). Accounts need power actions allowed.',
  'run also keeps shut-down instances from release for accounts with keep-alive on (gpu-rent accounts keep-alive ID on).',
].join('\n');

const WORDS: Record<ScheduleAction, string> = { 'power-on': 'power on (GPU)', 'no-gpu': 'switch to no-GPU', 'power-off': 'power off' };
// The extension's words where it has the same English (power on (GPU), power off).
const words = (lang: CliLang, a: ScheduleAction): string => (lang !== 'zh-cn' ? WORDS[a] : a === 'no-gpu' ? shared('switch to no-GPU mode', '切换到无卡模式') : shared(WORDS[a], a === 'power-on' ? '开机（带 GPU）' : '关机'));

const NO_TIMER: Record<NoPlatformTimer, string> = {
  noTimedStart: 'no platform starts an instance on a timer',
  proNoTimerApi: 'AutoDL Pro\'s developer API has no timed-shutdown request (set one in the AutoDL console: it shows here once armed)',
  oneOffTimer: 'the AutoDL console\'s timed shutdown is one shut-down at one time, not a weekly rule (gpu-rent shutdown-timer INSTANCE --at "YYYY-MM-DD HH:MM" arms one; it shows here once armed)',
  releaseOnly: '阿里云\'s only timer is the auto-release time (ModifyInstanceAutoReleaseTime), which RELEASES the instance, disks and all: not used for a shut-down',
  terminateOnly: '腾讯云\'s only timer (ImportInstancesActionTimer) is TerminateInstances, which DESTROYS the instance: not used for a shut-down',
  noTimer: 'the platform offers no timer through its API',
};

const NO_TIMER_ZH: Record<NoPlatformTimer, string> = {
  noTimedStart: '没有平台支持定时开机',
  proNoTimerApi: 'AutoDL Pro 的开发者 API 没有定时关机请求（请在 AutoDL 控制台设置：设好后会显示在这里）',
  oneOffTimer: 'AutoDL 控制台的定时关机只是某一时刻的一次关机，不是每周的规则（用 gpu-rent shutdown-timer INSTANCE --at "YYYY-MM-DD HH:MM" 设定一次；设好后会显示在这里）',
  releaseOnly: '阿里云唯一的定时器是自动释放时间（ModifyInstanceAutoReleaseTime），它会释放实例及全部磁盘：不用于关机',
  terminateOnly: '腾讯云唯一的定时器（ImportInstancesActionTimer）是 TerminateInstances，它会销毁实例：不用于关机',
  noTimer: '平台的 API 不提供定时器',
};

const OUTCOME_ZH: Record<string, string> = { done: '完成', unsettled: '未稳定', skipped: '跳过', refused: '被拒绝', failed: '失败', missed: '错过', superseded: '被取代', busy: '忙' };
const outcomeWord = (lang: CliLang, o: string): string => (lang === 'zh-cn' ? (OUTCOME_ZH[o] ?? o) : o);

const timerText = (x: { action: 'shutdown' | 'release'; at: number }, lang: CliLang = 'en') =>
  lang === 'zh-cn' ? `${x.action === 'shutdown' ? '定时关机' : '自动释放（会删除实例及全部磁盘）'} 北京时间 ${beijingDateTime(x.at)}` : `${x.action === 'shutdown' ? 'timed shutdown' : 'AUTO-RELEASE (deletes it, disks and all)'} ${bj(x.at)}`;

/** A test-only clock (epoch seconds); undocumented. */
function nowS(io: CliIO): number {
  const t = Number(io.env.GPU_RENT_TEST_NOW);
  return Number.isFinite(t) && t > 0 ? Math.floor(t) : Math.floor(Date.now() / 1000);
}

const bj = (x: number, lang: CliLang = 'en') => (lang === 'zh-cn' ? `北京时间 ${beijingDateTime(x)}` : `${beijingDateTime(x)} Beijing`);

async function findInstance(io: CliIO, target: string, accountId: string | undefined, lang: CliLang): Promise<{ a: CliAccount; inst: PlatformInstance } | Miss> {
  const accounts = (await loadAccounts(io)).filter((a) => !accountId || a.account.id === accountId);
  if (!accounts.length) return accountId ? miss(lang, 'no-account', 'no account {0} (gpu-rent accounts list)', '没有账号 {0}（gpu-rent accounts list 可查看）', forTerminal(accountId)) : { miss: true, code: 'no-account', en: howToAdd('en').trimEnd(), text: howToAdd(lang).trimEnd() };
  const errors: { text: string; en: string; code: string }[] = [];
  const hits: { a: CliAccount; inst: PlatformInstance }[] = [];
  await Promise.all(
    accounts.map(async (a) => {
      try {
        for (const inst of await connectorFor(a, io).list()) if (inst.ref === target || inst.name === target) hits.push({ a, inst });
      } catch (e) {
        errors.push({ text: `${a.account.id}: ${failureLine(e, lang)}`, en: `${a.account.id}: ${failureLine(e)}`, code: errorCode(e) });
      }
    }),
  );
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) return miss(lang, 'ambiguous', '{0} matches {1} instances ({2}): use the id and --account', '{0} 匹配到 {1} 个实例（{2}）：请用实例 ID 并加 --account', forTerminal(target), hits.length, listSome(hits.map((h) => `${h.a.account.id}/${forTerminal(h.inst.ref)}`), (n) => `… +${n}`));
  if (errors.length) return { miss: true, code: allFailedCode(errors.map((e) => e.code)), en: errors.map((e) => e.en).join('; '), text: errors.map((e) => e.text).join('; ') };
  return miss(lang, 'not-found', 'no instance {0} on {1}', '{1} 上没有实例 {0}', forTerminal(target), accounts.map((a) => a.account.id).join(', '));
}

async function add(io: CliIO, target: string | undefined, flags: { at?: string; do?: string; account?: string; 'on-platform'?: boolean; json?: boolean }, lang: CliLang): Promise<number> {
  const zh = lang === 'zh-cn';
  if (!target) throw new UsageError('add expects INSTANCE (gpu-rent instances lists them)', 'add 需要 INSTANCE（gpu-rent instances 会列出）');
  if (!flags.at) throw new UsageError('add needs --at, e.g. --at "mon-fri 17:00" (Beijing time)', 'add 需要 --at，例如 --at "mon-fri 17:00"（北京时间）');
  if (!flags.do) throw new UsageError(`add needs --do: ${SCHEDULE_ACTIONS.join(', ')}`, `add 需要 --do：${SCHEDULE_ACTIONS.join('、')}`);
  const action = flags.do as ScheduleAction;
  let when;
  try {
    when = parseScheduleAt(flags.at);
  } catch (e) {
    if (e instanceof ScheduleParseError) throw new UsageError(`--at: ${e.message}`, `--at：${scheduleParseZh(e.message)}`);
    throw e;
  }
  const found = await findInstance(io, target, flags.account, lang);
  if ('miss' in found) {
    printJsonFailure(io, flags.json, found.code, found.en);
    io.stderr(`gpu-rent schedule: ${found.text}\n`);
    return 1;
  }
  const { a, inst } = found;
  if (!actionCapability(a.account.kind, action)) {
    printJsonFailure(io, flags.json, 'not-supported', `${PLATFORM_NAMES[a.account.kind]} offers no ${action === 'no-gpu' ? 'no-GPU start' : action} through its API${action === 'no-gpu' ? ' (only the AutoDL console token, autodl-web, can)' : ''}: not added`);
    if (zh) io.stderr(`gpu-rent schedule: ${PLATFORM_NAMES[a.account.kind]} 的 API 不提供${action === 'no-gpu' ? '无卡开机（只有 AutoDL 控制台令牌 autodl-web 可以）' : words(lang, action)}：未添加\n`);
    else io.stderr(`gpu-rent schedule: ${PLATFORM_NAMES[a.account.kind]} offers no ${action === 'no-gpu' ? 'no-GPU start' : action} through its API${action === 'no-gpu' ? ' (only the AutoDL console token, autodl-web, can)' : ''}: not added\n`);
    return 1;
  }
  if (!a.account.powerActions) {
    printJsonFailure(io, flags.json, 'read-only', `account ${a.account.id} is read-only (${a.source === 'env' ? 'set GPU_RENT_ALLOW_POWER=1 for the runs' : 'add it again with --allow-power'}): not added`);
    if (zh) io.stderr(`gpu-rent schedule: 账号 ${a.account.id} 是只读的（${a.source === 'env' ? '运行时请设置 GPU_RENT_ALLOW_POWER=1' : '请加 --allow-power 重新添加'}）：未添加\n`);
    else io.stderr(`gpu-rent schedule: account ${a.account.id} is read-only (${a.source === 'env' ? 'set GPU_RENT_ALLOW_POWER=1 for the runs' : 'add it again with --allow-power'}): not added\n`);
    return 1;
  }
  const now = nowS(io);
  const rule = await addRule(configHome(io.env), { account: a.account.id, ref: inst.ref, name: inst.name, action, ...when }, now);
  if (zh) io.stdout(`已添加 ${rule.id}：${scheduleAtText(rule)}（北京时间）：${words(lang, action)} ${forTerminal(inst.name)}（${a.account.id}/${forTerminal(inst.ref)}）；下一次 ${bj(nextDue(rule, now), lang)}\n`);
  else io.stdout(`added ${rule.id}: ${scheduleAtText(rule)} (Beijing): ${WORDS[action]} ${forTerminal(inst.name)} (${a.account.id}/${forTerminal(inst.ref)}); next ${bj(nextDue(rule, now))}\n`);
  if (flags['on-platform']) {
    // What the platform itself keeps (read back from the list just read), then why this rule is not armed there.
    const armed = inst.platformTimer && inst.platformTimer.at > now ? inst.platformTimer : undefined;
    if (armed) io.stderr(forTerminal(zh ? `平台上：${inst.name} 已设定${timerText(armed, lang)}（在其控制台设置；本机休眠时也会执行）` : `on the platform: ${timerText(armed)} is armed for ${inst.name} (set in its console; it runs while this machine sleeps)`) + '\n');
    if (zh) {
      io.stderr(`未在平台上设定：${NO_TIMER_ZH[noPlatformTimer(a.account.kind, action)]}。\n`);
      io.stderr(`这条规则由 gpu-rent 的执行器负责：VS Code 运行时（为它的账号 ${a.account.id}，需允许电源操作）以及 cron 中的 gpu-rent schedule run。本机休眠时什么也不执行：醒来后，时间已过但不到 ${DEFAULT_GRACE_S / 60} 分钟的会执行，更早的报告为错过，从不迟执行\n`);
    } else {
      io.stderr(`not armed on the platform: ${NO_TIMER[noPlatformTimer(a.account.kind, action)]}.\n`);
      io.stderr(`the rule is kept by gpu-rent's runner: VS Code while it runs (for its account ${a.account.id}, power actions on) and gpu-rent schedule run from cron. While this machine sleeps nothing runs: on waking, a time passed less than ${DEFAULT_GRACE_S / 60} minutes ago is done, older ones are reported missed, never run late\n`);
    }
    return 0;
  }
  io.stderr(t(lang, 'it runs when gpu-rent schedule run does (cron: */5 * * * * gpu-rent schedule run) and in VS Code while it runs\n', '它在 gpu-rent schedule run 运行时执行（cron：*/5 * * * * gpu-rent schedule run），VS Code 运行时也会执行\n'));
  const stopTimer = descriptorOf(a.account.kind).stopTimer;
  if (action !== 'power-on' && stopTimer) {
    io.stderr(t(lang, "for the stop side the platform's own timer is safer where offered ({0}): it runs while this machine sleeps\n", '关机这一侧，平台自己的定时器更可靠（{0}）：本机休眠时也会执行\n', stopTimer));
  }
  return 0;
}

interface ListRow {
  rule: ScheduleRule;
  next: number;
  price?: number;
  state?: string;
  timer?: { action: 'shutdown' | 'release'; at: number };
  last?: { outcome: string; at: number; detail: string };
}

async function list(io: CliIO, json: boolean, lang: CliLang): Promise<number> {
  const f = await readSchedules(configHome(io.env));
  const now = nowS(io);
  const accounts = await loadAccounts(io);
  const conns = new Map(accounts.map((a) => [a.account.id, { a, c: connectorFor(a, io) }]));
  // Each instance read once, 4 at a time; what cannot be read shows as '?'.
  const keys = [...new Set(f.rules.map((r) => `${r.account}\n${r.ref}`))];
  const read = new Map<string, { state?: string; price?: number; timer?: { action: 'shutdown' | 'release'; at: number } }>();
  // A timer armed on the platform is on the list rows (AutoDL Pro's status read has none): each account listed once.
  const timers = new Map<string, { action: 'shutdown' | 'release'; at: number }>();
  await mapLimited([...new Set(f.rules.map((r) => r.account))], 4, async (account) => {
    const x = conns.get(account);
    for (const i of x ? await x.c.list().catch(() => []) : []) if (i.platformTimer && i.platformTimer.at > now) timers.set(`${account}\n${i.ref}`, i.platformTimer);
  });
  await mapLimited(keys, 4, async (k) => {
    const [account, ref] = k.split('\n') as [string, string];
    const x = conns.get(account);
    if (!x) return;
    const inst = await x.c.get(ref).catch(() => undefined);
    let price = inst?.priceFenPerHour;
    if (price === undefined && can(x.a.account.kind, 'price')) price = await x.c.price(ref).then((p) => p?.fenPerHour, () => undefined);
    read.set(k, { ...(inst ? { state: inst.state } : {}), ...(price !== undefined ? { price } : {}), ...(timers.has(k) ? { timer: timers.get(k)! } : {}) });
  });
  const rows: ListRow[] = f.rules.map((rule) => {
    const h = [...f.history].reverse().find((x) => x.rule === rule.id);
    return { rule, next: nextDue(rule, now), ...read.get(`${rule.account}\n${rule.ref}`), ...(h ? { last: { outcome: h.outcome, at: h.at, detail: h.detail } } : {}) };
  });
  rows.sort((p, q) => p.next - q.next);
  if (json) {
    io.stdout(
      jsonForTerminal(
        rows.map((r) => ({ id: r.rule.id, account: r.rule.account, ref: r.rule.ref, name: r.rule.name, at: scheduleAtText(r.rule), days: r.rule.days, minuteOfDay: r.rule.minute, action: r.rule.action, next: r.next, nextBeijing: beijingDateTime(r.next), state: r.state ?? null, priceFenPerHour: r.price ?? null, platformTimer: r.timer ? { ...r.timer, atBeijing: beijingDateTime(r.timer.at) } : null, last: r.last ?? null })),
        2,
      ) + '\n',
    );
    return 0;
  }
  if (!rows.length) {
    io.stdout(t(lang, 'no schedules (gpu-rent schedule add INSTANCE --at "mon-fri 17:00" --do power-on)\n', '还没有计划（gpu-rent schedule add INSTANCE --at "mon-fri 17:00" --do power-on）\n'));
    return 0;
  }
  const billing = (r: ListRow) =>
    r.price === undefined ? '?' : r.rule.action === 'power-on' ? t(lang, 'starts {0}/h', '开始计费 {0}/小时', formatCny(r.price)) : r.rule.action === 'power-off' ? t(lang, 'stops {0}/h', '停止计费 {0}/小时', formatCny(r.price)) : t(lang, 'no-GPU rate (GPU {0}/h)', '无卡价格（GPU {0}/小时）', formatCny(r.price));
  const zh = lang === 'zh-cn';
  const head = zh ? ['ID', '实例', '时间（北京）', '操作', '下一次（北京）', '计费', '平台定时器', '上一次'] : ['ID', 'INSTANCE', 'WHEN (BEIJING)', 'DO', 'NEXT (BEIJING)', 'BILLING', 'PLATFORM TIMER', 'LAST'];
  io.stdout(
    renderTable([
      head,
      ...rows.map((r) => [
        r.rule.id,
        forTerminal(`${r.rule.name} (${r.rule.account}/${r.rule.ref})`),
        scheduleAtText(r.rule),
        words(lang, r.rule.action),
        beijingDateTime(r.next),
        billing(r),
        r.timer ? `${r.timer.action === 'shutdown' ? t(lang, 'shutdown', '定时关机') : t(lang, 'RELEASE', '自动释放')} ${beijingDateTime(r.timer.at)}` : '',
        r.last ? `${outcomeWord(lang, r.last.outcome)} ${beijingDateTime(r.last.at)}` : '',
      ]),
    ]),
  );
  return 0;
}

function resultLine(r: RunResult, lang: CliLang = 'en'): string {
  if (lang === 'zh-cn') {
    const more = r.missedBefore ? `（之前还有 ${r.missedBefore} 次也错过了）` : '';
    return forTerminal(`${r.rule.id} ${words(lang, r.rule.action)} ${r.rule.name}（${r.rule.account}/${r.rule.ref}）计划时间 北京时间 ${beijingDateTime(r.at)}：${outcomeWord(lang, r.outcome)}：${scheduleDetailZh(r)}${r.retry ? '；仍在窗口内时，下一次运行会再试' : ''}${more}`);
  }
  const extra = r.missedBefore ? ` (${r.missedBefore} earlier time${r.missedBefore === 1 ? '' : 's'} missed too)` : '';
  return forTerminal(`${r.rule.id} ${WORDS[r.rule.action]} ${r.rule.name} (${r.rule.account}/${r.rule.ref}) due ${beijingDateTime(r.at)}: ${r.outcome}: ${r.detail}${r.retry ? '; tried again by the next run while in its window' : ''}${extra}`);
}

async function run(io: CliIO, flags: { grace?: number; json?: boolean; notify?: string }, lang: CliLang): Promise<number> {
  const now = nowS(io);
  // The channels are checked first: a name that is not there is said now, not when something is kept alive.
  const names = (flags.notify ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  let sends: StoredChannel[] = [];
  if (names.length) {
    const named = channelsNamed(names, await readChannelFile(configHome(io.env)));
    if (named.missing.length) throw new UsageError(`--notify: no channel ${named.missing.map((x) => forTerminal(x.slice(0, 40))).join(', ')} (gpu-rent notify list)`, `--notify：没有渠道 ${named.missing.map((x) => forTerminal(x.slice(0, 40))).join(', ')}（gpu-rent notify list 可查看）`);
    sends = named.sends;
  }
  const loaded = await loadAccounts(io);
  const accounts: ScheduleAccount[] = loaded.map((a) => ({ id: a.account.id, kind: a.account.kind, powerActions: a.account.powerActions, connector: connectorFor(a, io) }));
  const interval = Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) > 0 ? Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) : 3000;
  const r = await runDue({ home: configHome(io.env), now, accounts, graceS: (flags.grace ?? DEFAULT_GRACE_S / 60) * 60, intervalMs: interval, settleMs: 120_000, onResult: (x) => !flags.json && io.stdout(resultLine(x, lang) + '\n') });
  if ('busy' in r) {
    const msg = `another gpu-rent schedule run${r.busy.pid ? ` (pid ${r.busy.pid})` : ''} is in progress: nothing done`;
    if (flags.json) io.stdout(jsonError('busy', msg));
    else io.stderr(`gpu-rent schedule: ${lang === 'zh-cn' ? `另一个 gpu-rent schedule run${r.busy.pid ? `（pid ${r.busy.pid}）` : ''}正在运行：什么也没做` : msg}\n`);
    return 1;
  }
  // Keep from Release for the accounts that opted in (accounts keep-alive ID on), under the same power-on locks.
  const kept = await runKeepAlive({
    now,
    accounts: loaded.filter((a) => a.account.keepAlive).map((a) => ({ id: a.account.id, kind: a.account.kind, powerActions: a.account.powerActions, keepAlive: true, connector: accounts.find((x) => x.id === a.account.id)!.connector })),
    locks: new PowerOnLocks({ dir: join(configHome(io.env), 'locks') }),
    intervalMs: interval,
    settleMs: 120_000,
    onResult: (x) => {
      if (!flags.json && keepAliveTold(x)) io.stdout(keepAliveLine(x, lang) + '\n');
    },
  });
  if (sends.length) await tellKeepAlive(io, kept, sends, lang);
  // Exit 1 when something due did not happen as asked, so cron mails it; under --json `error` beside the report.
  const keptBad = kept.filter((x) => x.outcome === 'refused' || x.outcome === 'failed' || x.outcome === 'unsettled').length;
  const bad = keptBad + r.results.filter((x) => x.outcome === 'refused' || x.outcome === 'failed' || x.outcome === 'unsettled' || x.outcome === 'missed').length;
  if (flags.json) {
    io.stdout(jsonForTerminal({ now, nowBeijing: beijingDateTime(now), keepAlive: kept.map((x) => ({ account: x.account, ref: x.ref, name: x.name, outcome: x.outcome, detail: x.detail, day: x.day ?? null, days: x.days ?? null, releaseBeijing: x.releaseAt !== undefined ? beijingDateTime(x.releaseAt) : null, dueBeijing: x.dueAt !== undefined ? beijingDateTime(x.dueAt) : null, newReleaseBeijing: x.newReleaseAt !== undefined ? beijingDateTime(x.newReleaseAt) : null, ranSeconds: x.ranS ?? null, costFen: x.costFen ?? null, stillBilling: x.stillBilling === true })), results: r.results.map((x) => ({ id: x.rule.id, account: x.rule.account, ref: x.rule.ref, action: x.rule.action, at: x.at, atBeijing: beijingDateTime(x.at), outcome: x.outcome, detail: x.detail, state: x.state ?? null, failure: x.failure ?? null, retry: x.retry === true, missedBefore: x.missedBefore ?? 0 })) , ...(bad ? { error: { code: 'not-done', message: `${bad} scheduled action(s) due did not happen as asked (refused, failed, unsettled or missed): see results and keepAlive` } } : {}) }, 2) + '\n');
  } else if (!r.results.length && !kept.some(keepAliveTold)) io.stderr(t(lang, 'nothing due ({0} Beijing)\n', '没有到期的计划（北京时间 {0}）\n', beijingDateTime(now)));
  return bad ? 1 : 0;
}

/** Keep-alive results said in the text output: what was done or could not be (not the instances with nothing to do). */
const keepAliveTold = (x: KeepAliveResult): boolean => x.outcome !== 'notDue' && x.outcome !== 'notStopped' && x.outcome !== 'noClock';

const KEEP_OUTCOME_ZH: Record<KeepAliveResult['outcome'], string> = { done: '已完成', notDue: '未到期', notStopped: '未关机', noClock: '无释放时间', busy: '忙', refused: '被拒绝', failed: '失败', unsettled: '未确认' };

/** Each keep-alive done or failed, once per channel (the journal keys it by instance and release day: a failure met every 5 minutes is told once). */
async function tellKeepAlive(io: CliIO, kept: readonly KeepAliveResult[], sends: readonly StoredChannel[], lang: CliLang): Promise<void> {
  const home = configHome(io.env);
  for (const x of kept) {
    if (!x.ref || (x.outcome !== 'done' && x.outcome !== 'failed' && x.outcome !== 'unsettled' && x.outcome !== 'refused')) continue;
    const ev: NotifyEvent = { kind: 'keptAlive', task: x.name || x.ref, instance: `${x.account}/${x.ref}`, ok: x.outcome === 'done', stillBilling: x.stillBilling === true, day: x.day ?? null, days: x.days ?? null, newReleaseAt: x.newReleaseAt ?? null, costFen: x.costFen ?? null, ...(x.outcome !== 'done' ? { reason: x.detail } : {}) };
    const results = await notifyEvent(`keep-alive-${x.account}-${x.ref}-${x.releaseAt ?? 0}-${x.outcome}`, ev, sends, { journal: join(home, SENT_JOURNAL_FILE), by: 'laptop', lang: lang === 'zh-cn' ? 'zh-cn' : 'en' });
    for (const r of results) if (r.status === 'failed') io.stderr(`gpu-rent schedule: ${forTerminal(t(lang, 'the message to {0} was not sent: {1}', '发给 {0} 的消息没有发出：{1}', r.channel, r.message))}\n`);
  }
}

/** A keep-alive result's detail in Chinese, from its code (the platform's own words kept as they came). */
function keepAliveDetailZh(x: KeepAliveResult): string {
  const own = x.failure ? platformFailureZh(x.failure) : '';
  switch (x.code) {
    case 'done':
      return `已以无卡模式开机、确认运行，并在 ${x.ranS ?? '?'} 秒后再次关机`;
    case 'doneNotSeenUp':
      return `已以无卡模式开机（关机前未看到运行状态），并在 ${x.ranS ?? '?'} 秒后再次关机`;
    case 'doneNoNewDay':
      return `已以无卡模式开机、确认运行，并在 ${x.ranS ?? '?'} 秒后再次关机；平台没有给出新的释放日`;
    case 'doneSameDay':
      return `已以无卡模式开机、确认运行，并在 ${x.ranS ?? '?'} 秒后再次关机；平台给出的仍是原释放日`;
    case 'notDue':
      return x.day !== undefined && x.days !== undefined ? `已关机第 ${x.day}/${x.days} 天：从第 ${Math.max(1, x.days - 2)} 天起才会处理` : '未到期';
    case 'notStopped':
      return `${x.raw ?? '?'}：未关机，不在释放倒计时中`;
    case 'startedMeanwhile':
      return `${x.raw ?? '?'}：期间已被开机，没有发送任何请求`;
    case 'restartedMeanwhile':
      return '期间释放倒计时已重新开始：没有发送任何请求';
    case 'noClock':
      return '已关机，但平台没有给出关机或释放时间，无从计算';
    case 'busy':
      return `${x.raw ?? ''}：没有发送任何请求；下一次运行会再试`;
    case 'platformNoClock':
      return '该平台不会按时间释放已关机的实例：无需防释放';
    case 'noNoGpuStart':
      return 'API 没有无卡模式开机（AutoDL Pro）：请使用手动“防止释放”';
    case 'readOnly':
      return `账号 ${x.account} 是只读的：不允许电源操作，无法开机`;
    case 'listFailed':
      return `无法读取其实例：${own || x.detail}`;
    case 'readFailed':
      return `无法再次读取其状态：${own || x.detail}`;
    case 'startRefused':
      return `无卡模式开机被拒绝：${own || x.detail}；它保持关机`;
    case 'stopRefused':
      return `已以无卡模式开机，但关机被拒绝：${own || x.detail}。它仍在计费：请在控制台关机`;
    case 'notSeenStopped':
      return `已发送关机，但平台报告 "${x.raw ?? '?'}"：可能仍在计费，请在控制台查看`;
  }
}

function keepAliveLine(x: KeepAliveResult, lang: CliLang): string {
  const who = x.ref ? `${x.name} (${x.account}/${x.ref})` : x.account;
  const clock = x.day !== undefined && x.days !== undefined ? (lang === 'zh-cn' ? `关机第 ${x.day}/${x.days} 天，释放日 北京时间 ${beijingDateTime(x.releaseAt!)}` : `shut down day ${x.day} of ${x.days}, release day ${beijingDateTime(x.releaseAt!)} Beijing`) : '';
  const cost = x.costFen !== undefined ? (lang === 'zh-cn' ? `，无卡模式 ${x.ranS} 秒约 ${formatCny(x.costFen)}` : `, ${x.ranS} s of no-GPU mode, about ${formatCny(x.costFen)}`) : '';
  const next = x.newReleaseAt !== undefined ? (lang === 'zh-cn' ? `；新的释放日 北京时间 ${beijingDateTime(x.newReleaseAt)}` : `; new release day ${beijingDateTime(x.newReleaseAt)} Beijing`) : '';
  if (lang === 'zh-cn') return forTerminal(`防释放 ${who}${clock ? `（${clock}）` : ''}：${KEEP_OUTCOME_ZH[x.outcome]}：${keepAliveDetailZh(x)}${cost}${next}`);
  return forTerminal(`keep-alive ${who}${clock ? ` (${clock})` : ''}: ${x.outcome}: ${x.detail}${cost}${next}`);
}

const SUMMARY_ZH = [
  '按北京时间（UTC+8）为每个实例设的开关机计划，与本机时区无关。',
  '它们在 `gpu-rent schedule run` 运行时执行（cron：*/5 * * * * gpu-rent schedule run，或 systemd 定时器），',
  'VS Code 运行时也会由扩展为同 ID 的账号执行；两边同时运行时每个时间点只执行一次。本机休眠时什么也不执行；',
  `下一次运行会执行时间已过但不到 ${DEFAULT_GRACE_S / 60} 分钟的规则（--grace），更早的报告为错过，从不迟执行。`,
  '保存在 $GPU_RENT_HOME/schedules.json（权限 0600）。账号需要允许电源操作。',
  'run 还会为开启了防释放的账号（gpu-rent accounts keep-alive ID on）防止已关机的实例被释放。',
].join('\n');

export const command: CliCommand = {
  name: 'schedule',
  summary: 'power schedules on the Beijing clock (start ahead of the evening peak, no-GPU or off at night), run by cron',
  summaryZh: '按北京时间的开关机计划（晚高峰前开机，夜间无卡模式或关机），由 cron 执行',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 2, positionalNames: 'add INSTANCE | list | remove ID | run' });
    const [sub, arg] = positionals;
    const lang = cliLang(flags.lang, io.env);
    if (sub !== 'add' && (flags.at !== undefined || flags.do !== undefined || flags.account !== undefined || flags['on-platform'] !== undefined)) throw new UsageError('--at, --do, --account and --on-platform are for schedule add', '--at、--do、--account 和 --on-platform 只用于 schedule add');
    if (sub !== 'run' && flags.grace !== undefined) throw new UsageError('--grace is for schedule run', '--grace 只用于 schedule run');
    if (sub !== 'run' && flags.notify !== undefined) throw new UsageError('--notify is for schedule run', '--notify 只用于 schedule run');
    if (sub === 'add') return add(io, arg, flags, lang);
    if (arg !== undefined && sub !== 'remove') throw new UsageError(`unexpected argument "${forTerminal(arg)}"`, `多余的参数 "${forTerminal(arg)}"`);
    if (sub === 'list' || sub === undefined) return list(io, flags.json === true, lang);
    if (sub === 'remove') {
      if (!arg) throw new UsageError('remove needs a schedule ID (gpu-rent schedule list shows them)', 'remove 需要计划 ID（gpu-rent schedule list 会列出）');
      const gone = await removeRule(configHome(io.env), arg);
      if (!gone) {
        printJsonFailure(io, flags.json, 'not-found', `no schedule ${arg} (gpu-rent schedule list)`);
        io.stderr(`gpu-rent schedule: ${t(lang, 'no schedule {0} (gpu-rent schedule list)', '没有计划 {0}（gpu-rent schedule list 可查看）', forTerminal(arg))}\n`);
        return 1;
      }
      if (lang === 'zh-cn') io.stdout(`已删除 ${gone.id}（${scheduleAtText(gone)}：${words(lang, gone.action)} ${forTerminal(gone.name)}）\n`);
      else io.stdout(`removed ${gone.id} (${scheduleAtText(gone)}: ${WORDS[gone.action]} ${forTerminal(gone.name)})\n`);
      return 0;
    }
    if (sub === 'run') return run(io, flags, lang);
    throw new UsageError(`expects add, list, remove or run, got "${forTerminal(sub)}"`, `需要 add、list、remove 或 run，却是 "${forTerminal(sub)}"`);
  },
};

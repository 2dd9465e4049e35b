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
import { forTerminal, jsonForTerminal } from '../../core/text';
import { formatHelp, parseArgs, UsageError, type FlagSpecs } from '../args';
import { helpLang } from '../words';
import { LANG_FLAG_SPEC } from '../lang';
import type { CliCommand, CliIO } from '../command';
import { jsonError } from '../json-error';
import { connectorFor, failureLine, HOW_TO_ADD, loadAccounts, type CliAccount } from './accounts';

const specs = {
  at: { type: 'string', valueName: 'WHEN', description: 'add: days and a Beijing time, e.g. "mon-fri 17:00", "daily 01:00", "sat,sun 09:30"' },
  do: { type: 'string', valueName: 'ACTION', choices: SCHEDULE_ACTIONS, description: 'add: power-on (with its GPU), no-gpu (a running instance is shut down and started in no-GPU mode, where the platform offers it) or power-off' },
  account: { type: 'string', valueName: 'ID', description: 'add: the account the instance belongs to (when several could)' },
  'on-platform': { type: 'boolean', description: 'add: have the platform keep the time itself where it can (it runs while this machine sleeps); says what the platform offers, reads back a timer armed in its console, and otherwise keeps the rule for gpu-rent\'s runner' },
  grace: { type: 'number', valueName: 'MINUTES', integer: true, min: 1, max: MAX_GRACE_S / 60, description: `run: a rule whose time passed while nothing ran still runs within this many minutes of it (default ${DEFAULT_GRACE_S / 60}); later it is reported as missed` },
  json: { type: 'boolean', description: 'list, run: print JSON' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const USAGE = 'gpu-rent schedule add INSTANCE --at "mon-fri 17:00" --do power-on|no-gpu|power-off [--account ID] [--on-platform] | list [--json] | remove ID | run [--grace MINUTES] [--json]';
const SUMMARY = [
  'Power schedules per instance, on the Beijing clock (UTC+8) whatever this machine\'s time zone.',
  'They run when `gpu-rent schedule run` runs (cron: */5 * * * * gpu-rent schedule run, or a systemd timer)',
  'and, while VS Code runs, in the extension for its own accounts of the same id; both at once do each',
  'time once. While this machine sleeps nothing runs; the next run does a rule whose time',
  `passed less than ${DEFAULT_GRACE_S / 60} minutes ago (--grace) and reports older ones as missed, never running them late.`,
  'Kept in $GPU_RENT_HOME/schedules.json (mode 0600). Accounts need power actions allowed.',
].join('\n');

const WORDS: Record<ScheduleAction, string> = { 'power-on': 'power on (GPU)', 'no-gpu': 'switch to no-GPU', 'power-off': 'power off' };

const NO_TIMER: Record<NoPlatformTimer, string> = {
  noTimedStart: 'no platform starts an instance on a timer',
  proNoTimerApi: 'AutoDL Pro\'s developer API has no timed-shutdown request (set one in the AutoDL console: it shows here once armed)',
  consoleShapeUnverified: 'the AutoDL console\'s timed shutdown (/api/v1/instance/timed/shutdown) is described by public clients with two different time formats, so gpu-rent does not send it blind (set it in the console: it shows here once armed)',
  releaseOnly: '阿里云\'s only timer is the auto-release time (ModifyInstanceAutoReleaseTime), which RELEASES the instance, disks and all: not used for a shut-down',
  terminateOnly: '腾讯云\'s only timer (ImportInstancesActionTimer) is TerminateInstances, which DESTROYS the instance: not used for a shut-down',
  noTimer: 'the platform offers no timer through its API',
};

const timerText = (t: { action: 'shutdown' | 'release'; at: number }) => `${t.action === 'shutdown' ? 'timed shutdown' : 'AUTO-RELEASE (deletes it, disks and all)'} ${bj(t.at)}`;

/** A test-only clock (epoch seconds); undocumented. */
function nowS(io: CliIO): number {
  const t = Number(io.env.GPU_RENT_TEST_NOW);
  return Number.isFinite(t) && t > 0 ? Math.floor(t) : Math.floor(Date.now() / 1000);
}

const bj = (t: number) => `${beijingDateTime(t)} Beijing`;

async function findInstance(io: CliIO, target: string, accountId: string | undefined): Promise<{ a: CliAccount; inst: PlatformInstance } | string> {
  const accounts = (await loadAccounts(io)).filter((a) => !accountId || a.account.id === accountId);
  if (!accounts.length) return accountId ? `no account ${accountId} (gpu-rent accounts list)` : HOW_TO_ADD.trimEnd();
  const errors: string[] = [];
  const hits: { a: CliAccount; inst: PlatformInstance }[] = [];
  await Promise.all(
    accounts.map(async (a) => {
      try {
        for (const inst of await connectorFor(a, io).list()) if (inst.ref === target || inst.name === target) hits.push({ a, inst });
      } catch (e) {
        errors.push(`${a.account.id}: ${failureLine(e)}`);
      }
    }),
  );
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) return `${forTerminal(target)} matches ${hits.length} instances (${hits.map((h) => `${h.a.account.id}/${forTerminal(h.inst.ref)}`).join(', ')}): use the id and --account`;
  return errors.length ? errors.join('; ') : `no instance ${forTerminal(target)} on ${accounts.map((a) => a.account.id).join(', ')}`;
}

async function add(io: CliIO, target: string | undefined, flags: { at?: string; do?: string; account?: string; 'on-platform'?: boolean }): Promise<number> {
  if (!target) throw new UsageError('add expects INSTANCE (gpu-rent instances lists them)');
  if (!flags.at) throw new UsageError('add needs --at, e.g. --at "mon-fri 17:00" (Beijing time)');
  if (!flags.do) throw new UsageError(`add needs --do: ${SCHEDULE_ACTIONS.join(', ')}`);
  const action = flags.do as ScheduleAction;
  let when;
  try {
    when = parseScheduleAt(flags.at);
  } catch (e) {
    if (e instanceof ScheduleParseError) throw new UsageError(`--at: ${e.message}`);
    throw e;
  }
  const found = await findInstance(io, target, flags.account);
  if (typeof found === 'string') {
    io.stderr(`gpu-rent schedule: ${found}\n`);
    return 1;
  }
  const { a, inst } = found;
  if (!actionCapability(a.account.kind, action)) {
    io.stderr(`gpu-rent schedule: ${PLATFORM_NAMES[a.account.kind]} offers no ${action === 'no-gpu' ? 'no-GPU start' : action} through its API${action === 'no-gpu' ? ' (only the AutoDL console token, autodl-web, can)' : ''}: not added\n`);
    return 1;
  }
  if (!a.account.powerActions) {
    io.stderr(`gpu-rent schedule: account ${a.account.id} is read-only (${a.source === 'env' ? 'set GPU_RENT_ALLOW_POWER=1 for the runs' : 'add it again with --allow-power'}): not added\n`);
    return 1;
  }
  const now = nowS(io);
  const rule = await addRule(configHome(io.env), { account: a.account.id, ref: inst.ref, name: inst.name, action, ...when }, now);
  io.stdout(`added ${rule.id}: ${scheduleAtText(rule)} (Beijing): ${WORDS[action]} ${forTerminal(inst.name)} (${a.account.id}/${forTerminal(inst.ref)}); next ${bj(nextDue(rule, now))}\n`);
  if (flags['on-platform']) {
    // What the platform itself keeps (read back from the list just read), then why this rule is not armed there.
    const armed = inst.platformTimer && inst.platformTimer.at > now ? inst.platformTimer : undefined;
    if (armed) io.stderr(forTerminal(`on the platform: ${timerText(armed)} is armed for ${inst.name} (set in its console; it runs while this machine sleeps)`) + '\n');
    io.stderr(`not armed on the platform: ${NO_TIMER[noPlatformTimer(a.account.kind, action)]}.\n`);
    io.stderr(`the rule is kept by gpu-rent's runner: VS Code while it runs (for its account ${a.account.id}, power actions on) and gpu-rent schedule run from cron. While this machine sleeps nothing runs: on waking, a time passed less than ${DEFAULT_GRACE_S / 60} minutes ago is done, older ones are reported missed, never run late\n`);
    return 0;
  }
  io.stderr(`it runs when gpu-rent schedule run does (cron: */5 * * * * gpu-rent schedule run) and in VS Code while it runs\n`);
  const stopTimer = descriptorOf(a.account.kind).stopTimer;
  if (action !== 'power-on' && stopTimer) {
    io.stderr(`for the stop side the platform's own timer is safer where offered (${stopTimer}): it runs while this machine sleeps\n`);
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

async function list(io: CliIO, json: boolean): Promise<number> {
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
    io.stdout('no schedules (gpu-rent schedule add INSTANCE --at "mon-fri 17:00" --do power-on)\n');
    return 0;
  }
  const billing = (r: ListRow) => (r.price === undefined ? '?' : r.rule.action === 'power-on' ? `starts ${formatCny(r.price)}/h` : r.rule.action === 'power-off' ? `stops ${formatCny(r.price)}/h` : `no-GPU rate (GPU ${formatCny(r.price)}/h)`);
  io.stdout(
    renderTable([
      ['ID', 'INSTANCE', 'WHEN (BEIJING)', 'DO', 'NEXT (BEIJING)', 'BILLING', 'PLATFORM TIMER', 'LAST'],
      ...rows.map((r) => [r.rule.id, forTerminal(`${r.rule.name} (${r.rule.account}/${r.rule.ref})`), scheduleAtText(r.rule), WORDS[r.rule.action], beijingDateTime(r.next), billing(r), r.timer ? `${r.timer.action === 'shutdown' ? 'shutdown' : 'RELEASE'} ${beijingDateTime(r.timer.at)}` : '', r.last ? `${r.last.outcome} ${beijingDateTime(r.last.at)}` : '']),
    ]),
  );
  return 0;
}

function resultLine(r: RunResult): string {
  const extra = r.missedBefore ? ` (${r.missedBefore} earlier time${r.missedBefore === 1 ? '' : 's'} missed too)` : '';
  return forTerminal(`${r.rule.id} ${WORDS[r.rule.action]} ${r.rule.name} (${r.rule.account}/${r.rule.ref}) due ${beijingDateTime(r.at)}: ${r.outcome}: ${r.detail}${r.retry ? '; tried again by the next run while in its window' : ''}${extra}`);
}

async function run(io: CliIO, flags: { grace?: number; json?: boolean }): Promise<number> {
  const now = nowS(io);
  const accounts: ScheduleAccount[] = (await loadAccounts(io)).map((a) => ({ id: a.account.id, kind: a.account.kind, powerActions: a.account.powerActions, connector: connectorFor(a, io) }));
  const interval = Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) > 0 ? Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) : 3000;
  const r = await runDue({ home: configHome(io.env), now, accounts, graceS: (flags.grace ?? DEFAULT_GRACE_S / 60) * 60, intervalMs: interval, settleMs: 120_000, onResult: (x) => !flags.json && io.stdout(resultLine(x) + '\n') });
  if ('busy' in r) {
    const msg = `another gpu-rent schedule run${r.busy.pid ? ` (pid ${r.busy.pid})` : ''} is in progress: nothing done`;
    if (flags.json) io.stdout(jsonError('busy', msg));
    else io.stderr(`gpu-rent schedule: ${msg}\n`);
    return 1;
  }
  if (flags.json) {
    io.stdout(jsonForTerminal({ now, nowBeijing: beijingDateTime(now), results: r.results.map((x) => ({ id: x.rule.id, account: x.rule.account, ref: x.rule.ref, action: x.rule.action, at: x.at, atBeijing: beijingDateTime(x.at), outcome: x.outcome, detail: x.detail, state: x.state ?? null, failure: x.failure ?? null, retry: x.retry === true, missedBefore: x.missedBefore ?? 0 })) }, 2) + '\n');
  } else if (!r.results.length) io.stderr(`nothing due (${beijingDateTime(now)} Beijing)\n`);
  // Exit 1 when something due did not happen as asked, so cron mails it.
  return r.results.some((x) => x.outcome === 'refused' || x.outcome === 'failed' || x.outcome === 'unsettled' || x.outcome === 'missed') ? 1 : 0;
}

const SUMMARY_ZH = [
  '按北京时间（UTC+8）为每个实例设的开关机计划，与本机时区无关。',
  '它们在 `gpu-rent schedule run` 运行时执行（cron：*/5 * * * * gpu-rent schedule run，或 systemd 定时器），',
  'VS Code 运行时也会由扩展为同 ID 的账号执行；两边同时运行时每个时间点只执行一次。本机休眠时什么也不执行；',
  `下一次运行会执行时间已过但不到 ${DEFAULT_GRACE_S / 60} 分钟的规则（--grace），更早的报告为错过，从不迟执行。`,
  '保存在 $GPU_RENT_HOME/schedules.json（权限 0600）。账号需要允许电源操作。',
].join('\n');

export const command: CliCommand = {
  name: 'schedule',
  summary: 'power schedules on the Beijing clock (start ahead of the evening peak, no-GPU or off at night), run by cron',
  summaryZh: '按北京时间的开关机计划（晚高峰前开机，夜间无卡模式或关机），由 cron 执行',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 2, positionalNames: 'add INSTANCE | list | remove ID | run' });
    const [sub, arg] = positionals;
    if (sub !== 'add' && (flags.at !== undefined || flags.do !== undefined || flags.account !== undefined || flags['on-platform'] !== undefined)) throw new UsageError('--at, --do, --account and --on-platform are for schedule add');
    if (sub !== 'run' && flags.grace !== undefined) throw new UsageError('--grace is for schedule run');
    if (sub === 'add') return add(io, arg, flags);
    if (arg !== undefined && sub !== 'remove') throw new UsageError(`unexpected argument "${arg}"`);
    if (sub === 'list' || sub === undefined) return list(io, flags.json === true);
    if (sub === 'remove') {
      if (!arg) throw new UsageError('remove needs a schedule ID (gpu-rent schedule list shows them)');
      const gone = await removeRule(configHome(io.env), arg);
      if (!gone) {
        io.stderr(`gpu-rent schedule: no schedule ${forTerminal(arg)} (gpu-rent schedule list)\n`);
        return 1;
      }
      io.stdout(`removed ${gone.id} (${scheduleAtText(gone)}: ${WORDS[gone.action]} ${forTerminal(gone.name)})\n`);
      return 0;
    }
    if (sub === 'run') return run(io, flags);
    throw new UsageError(`expects add, list, remove or run, got "${forTerminal(sub)}"`);
  },
};

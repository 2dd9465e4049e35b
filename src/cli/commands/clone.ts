// `gpu-rent clone INSTANCE`: AutoDL's way out when the instance's host has no free card
// (该主机空闲GPU不足): a copy of it, data disk included, on another host with free cards. Without
// --yes it lists the hosts it could go to and what each costs, and sends nothing. With --yes the
// clone is sent once to the cheapest (or --machine); a lost answer is looked for by the clone's
// name, then the new instance is waited for until it leaves cloning and its login is shown.
import { planClone, chooseCandidate, cloneInstance, canClone, costOf, type ClonePlan, type CloneOutcome } from '../../app/platforms/clone';
import { PLATFORM_NAMES } from '../../app/platforms/errors';
import { gib, isCloneRefusal, type CloneCandidate, type CloneRefusal } from '../../core/platforms/autodlClone';
import { descriptorOf } from '../../core/platforms/descriptors';
import { formatCny } from '../../core/money';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { formatHelp, parseArgs, UsageError, type FlagSpecs } from '../args';
import type { CliCommand } from '../command';
import { jsonError } from '../json-error';
import { cliLang, LANG_FLAG_SPEC, type CliLang } from '../lang';
import { helpLang, t } from '../words';
import { failureLine } from './accounts';
import { pinHostKey } from './create';
import { findPlatformInstance } from './power';
import { armAndSay, timerWhen } from './shutdown-timer';

const specs = {
  account: { type: 'string', valueName: 'ID', description: 'the account the instance belongs to (when several could)', zh: '实例所属的账号（可能属于多个账号时）' },
  machine: { type: 'string', valueName: 'ID', description: 'the host to clone onto (a machine id from the list; default the first: same region, cheapest)', zh: '克隆到哪台主机（列表中的主机 ID；默认第一台：同地区、最便宜）' },
  name: { type: 'string', valueName: 'N', description: 'the clone\'s name (default the instance\'s name with -clone). A clone is looked for by it: run the same command again to retry safely', zh: '克隆实例的名称（默认实例名加 -clone）。克隆按名称查找：再运行同一条命令即可安全重试' },
  yes: { type: 'boolean', description: 'clone it (without it, only the hosts and their cost are shown)', zh: '执行克隆（不加时只显示可选主机及费用）' },
  wait: { type: 'number', valueName: 'SECONDS', integer: true, min: 0, max: 7200, description: 'how long to wait for the clone to leave cloning (default 900: the data disk is copied first; 0: do not wait)', zh: '等待克隆完成的秒数（默认 900：先要复制数据盘；0：不等待）' },
  'shutdown-in': { type: 'string', valueName: 'DURATION', description: "arm the platform's timed shutdown of the clone once it runs, this long after (90m, 3h): it runs while this machine sleeps (gpu-rent shutdown-timer)", zh: '克隆实例运行后，设定平台的定时关机，在这段时间之后（90m、3h）：本机休眠时也会执行（gpu-rent shutdown-timer）' },
  'no-pin': { type: 'boolean', description: 'do not connect once to pin the clone\'s host key', zh: '不连接一次去记住克隆实例的主机密钥' },
  json: { type: 'boolean', description: 'print JSON', zh: '以 JSON 输出' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const USAGE = 'gpu-rent clone INSTANCE [--account ID] [--machine ID] [--name N] [--wait SECONDS] [--shutdown-in DURATION] [--yes] [--json]';

/** One sentence per refusal, with what to do. */
export function cloneRefusalLine(r: CloneRefusal, lang: CliLang): string {
  switch (r.code) {
    case 'notSupported':
      return t(lang, "this account cannot clone: only an AutoDL console token account can (AutoDL's developer API has no clone)", '这个账号不能克隆：只有 AutoDL 控制台令牌账号可以（AutoDL 开发者 API 没有克隆）');
    case 'noCard':
      return t(lang, 'the platform names no card for {0}: clone it in the console', '平台没有给出 {0} 的显卡型号：请在控制台克隆', forTerminal(r.detail.ref));
    case 'cloning':
      return t(lang, '{0} is being cloned now ({1}): wait until that clone ends', '{0} 正在克隆中（{1}）：请等这次克隆结束', forTerminal(r.detail.ref), forTerminal(r.detail.rawState));
    case 'noCandidate': {
      const d = r.detail;
      const why = Object.entries(d.skipped)
        .map(([k, n]) => `${n} ${SKIP_WORDS[k as keyof typeof SKIP_WORDS]?.[lang === 'zh-cn' ? 1 : 0] ?? k}`)
        .join(', ');
      return t(
        lang,
        'no host in {0} has {1} free {2} with room for a {3} GiB data disk now ({4} hosts read{5}): wait and try again (gpu-rent power-on --wait-for-gpu), start it in no-GPU mode to reach its data, or try later',
        '{0} 现在没有主机有 {1} 块空闲 {2} 且放得下 {3} GiB 数据盘（读了 {4} 台主机{5}）：请稍后再试（gpu-rent power-on --wait-for-gpu），或以无卡模式开机访问数据',
        forTerminal(d.region || '?'),
        d.gpus,
        forTerminal(d.card),
        gib(d.dataDiskBytes),
        d.seen,
        why ? `: ${why}` : '',
      );
    }
    case 'unknownMachine':
      return t(lang, 'host {0} is not among the candidates (run without --machine to list them)', '主机 {0} 不在候选列表中（不加 --machine 运行可列出）', forTerminal(r.detail.machineId));
  }
}

const SKIP_WORDS = {
  badRow: ['unreadable', '无法读取'],
  otherCard: ['another card', '其他显卡'],
  sameHost: ['its own host', '它所在的主机'],
  fewFreeCards: ['too few free cards', '空闲卡不足'],
  noDiskRoom: ['no room for the data disk', '数据盘空间不足'],
  hostFull: ['no instance slot', '没有实例空位'],
  notPayg: ['not pay-as-you-go', '不支持按量计费'],
} as const;

function candidateLine(c: CloneCandidate, i: number, lang: CliLang): string {
  const price = c.priceFenPerHour !== undefined ? t(lang, '{0}/h', '{0}/小时', formatCny(c.priceFenPerHour)) : t(lang, '?/h (the host shows no price)', '?/小时（主机未显示价格）');
  const disk = c.maxDataDiskBytes !== undefined ? t(lang, ', data disk up to {0} GiB', '，数据盘最多 {0} GiB', gib(c.maxDataDiskBytes)) : '';
  const cuda = c.highestCuda ? t(lang, ', CUDA ≤ {0}', '，CUDA ≤ {0}', c.highestCuda) : '';
  return forTerminal(`  ${i + 1}. ${c.alias} (${c.machineId}) ${c.regionName}: ${t(lang, '{0} free', '空闲 {0} 块', c.idle)}, ${price}${disk}${cuda}${c.sameRegion ? t(lang, ' [same region]', ' [同地区]') : ''}`);
}

/** The cost of cloning onto `c`: its price, the copy's time, the source that stays. */
export function costLines(plan: ClonePlan, c: CloneCandidate, lang: CliLang): string[] {
  const cost = costOf(plan, c);
  const src = forTerminal(plan.source.name);
  return [
    t(lang, 'clone {0} onto {1} ({2}): {3}', '把 {0} 克隆到 {1}（{2}）：{3}', src, forTerminal(c.alias), forTerminal(c.machineId), cost.priceFenPerHour !== undefined ? t(lang, '{0}/h while it runs (pay-as-you-go)', '运行时 {0}/小时（按量计费）', formatCny(cost.priceFenPerHour)) : t(lang, 'price per hour not shown by the host', '主机未显示每小时价格')),
    cost.dataDiskBytes > 0
      ? t(lang, '  its data disk ({0} GiB expansion) is copied first: that takes time (minutes for a large disk) before the clone runs; the expansion bills on the clone too', '  先复制它的数据盘（扩容 {0} GiB）：这需要时间（大盘要几分钟以上），之后克隆才运行；克隆上的扩容也计费', gib(cost.dataDiskBytes))
      : t(lang, '  its data disk is copied first: that takes time before the clone runs', '  先复制它的数据盘：之后克隆才运行'),
    t(lang, '  {0} stays, shut down, billing its paid data disk (if any) until you release it in the console', '  {0} 会保留（关机状态），其付费数据盘（如有）继续计费，直到你在控制台释放它', src),
  ];
}

const candidateJson = (plan: ClonePlan, c: CloneCandidate) => ({ machineId: c.machineId, alias: c.alias, region: c.regionSign, regionName: c.regionName, idle: c.idle, priceFenPerHour: c.priceFenPerHour ?? null, maxDataDiskBytes: c.maxDataDiskBytes ?? null, highestCuda: c.highestCuda ?? null, sameRegion: c.sameRegion, cost: costOf(plan, c) });

export const command: CliCommand = {
  name: 'clone',
  summary: 'AutoDL console: copy an instance (data disk included) onto a host with free cards when its own has none; shows the hosts and cost first, clones only with --yes',
  summaryZh: 'AutoDL 控制台：主机空闲 GPU 不足时，把实例（含数据盘）克隆到有空闲卡的主机；先显示主机和费用，加 --yes 才克隆',
  help: (ctx) =>
    formatHelp(
      USAGE,
      [
        "When power-on is refused because the instance's host has no free GPU (该主机空闲GPU不足), AutoDL can clone the instance onto",
        'another host with the same card free, copying its data disk. Without --yes: the hosts it could go to (same region first,',
        'cheapest first), each with its price per hour, and what a clone costs; nothing is sent. With --yes: the clone is sent once',
        'to the first host (or --machine), then waited for until it runs. The old instance stays, shut down, billing its paid data',
        'disk until you release it in the console. A clone whose answer is lost is looked for by its name; run the same command again.',
        'Exit codes: 0 cloned (or found by name), 1 refused or failed, 2 preview only (no --yes) or bad usage, 3 outcome unknown, 4 still cloning when --wait ran out.',
      ].join('\n'),
      specs,
      helpLang(ctx),
      [
        '开机因实例所在主机空闲 GPU 不足（该主机空闲GPU不足）被拒绝时，AutoDL 可以把实例克隆到另一台有同型号空闲卡的主机，并复制数据盘。',
        '不加 --yes：列出可去的主机（同地区优先、最便宜优先）、每小时价格和克隆的费用；什么也不发送。',
        '加 --yes：向第一台主机（或 --machine）发送一次克隆，然后等它运行。旧实例会保留（关机），其付费数据盘继续计费，直到你在控制台释放它。',
        '回答丢失的克隆按名称查找；再运行同一条命令即可。',
        '退出码：0 已克隆（或按名称找到），1 被拒绝或失败，2 只是预览（没有 --yes）或用法错误，3 结果未知，4 --wait 用完时仍在克隆。',
      ].join('\n'),
    ),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'INSTANCE' });
    const lang = cliLang(flags.lang, io.env);
    const target = positionals[0];
    if (!target) throw new UsageError('expects INSTANCE (gpu-rent instances lists them)', '需要 INSTANCE（gpu-rent instances 会列出）');
    const json = flags.json === true;
    // Checked before anything is sent: a bad duration never leaves a clone without its timer.
    const shutdownIn = flags['shutdown-in'] !== undefined ? timerWhen({ in: flags['shutdown-in'] }, 0) : undefined;
    const fail = (code: string, en: string, zh: string, exit = 1) => {
      if (json) io.stdout(jsonError(code, en));
      io.stderr(`gpu-rent clone: ${lang === 'zh-cn' ? zh : en}\n`);
      return exit;
    };
    // Under --json the message is English on both streams (the JSON contract).
    const found = await findPlatformInstance(io, target, flags.account, json ? 'en' : lang, { fits: (a) => Boolean(descriptorOf(a.account.kind).clone), whenNoneFit: (l) => cloneRefusalLine({ code: 'notSupported' }, l) });
    if ('miss' in found) return fail(found.code, found.en, found.text);
    const { a, c, inst } = found;
    if (!canClone(c)) return fail('not-supported', cloneRefusalLine({ code: 'notSupported' }, 'en'), cloneRefusalLine({ code: 'notSupported' }, 'zh-cn'));
    if (flags.yes && !a.account.powerActions) return fail('read-only', `account ${a.account.id} is read-only (${a.source === 'env' ? 'set GPU_RENT_ALLOW_POWER=1' : 'add it again with --allow-power'})`, `账号 ${a.account.id} 是只读的（${a.source === 'env' ? '请设置 GPU_RENT_ALLOW_POWER=1' : '请加 --allow-power 重新添加'}）`);
    let plan: ClonePlan | CloneRefusal;
    try {
      plan = await planClone(c, inst.ref);
    } catch (e) {
      return fail('failed', failureLine(e), failureLine(e, lang));
    }
    if (isCloneRefusal(plan)) {
      if (json) io.stdout(jsonError(plan.code === 'noCandidate' ? 'no-candidate' : plan.code, cloneRefusalLine(plan, 'en'), { refused: true, ...('detail' in plan ? { detail: plan.detail } : {}) }));
      io.stderr(`gpu-rent clone: ${t(lang, 'nothing sent: {0}', '没有发送任何请求：{0}', cloneRefusalLine(plan, lang))}\n`);
      return 1;
    }
    const chosen = chooseCandidate(plan, flags.machine);
    if (isCloneRefusal(chosen)) return fail('unknown-machine', cloneRefusalLine(chosen, 'en'), cloneRefusalLine(chosen, 'zh-cn'));
    io.stderr(forTerminal(t(lang, '{0} ({1}/{2}, {3} ×{4}) on {5}: hosts with a free card', '{0}（{1}/{2}，{3} ×{4}）在 {5}：有空闲卡的主机', inst.name, a.account.id, inst.ref, plan.source.card, plan.source.gpus, PLATFORM_NAMES[a.account.kind])) + '\n');
    plan.candidates.forEach((x, i) => io.stderr(candidateLine(x, i, lang) + '\n'));
    for (const l of costLines(plan, chosen, lang)) io.stderr(forTerminal(l) + '\n');
    if (!flags.yes) {
      if (json) io.stdout(jsonForTerminal({ preview: true, account: a.account.id, ref: inst.ref, card: plan.source.card, gpus: plan.source.gpus, dataDiskBytes: plan.source.dataDiskBytes, chosen: chosen.machineId, candidates: plan.candidates.map((x) => candidateJson(plan, x)) }, 2) + '\n');
      io.stderr(`gpu-rent clone: ${t(lang, 'nothing sent; add --yes to clone it onto {0}', '没有发送任何请求；加 --yes 才会克隆到 {0}', forTerminal(chosen.alias))}\n`);
      return 2;
    }
    const waitS = flags.wait ?? 900;
    const interval = Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) > 0 ? Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) : 5000;
    let o: CloneOutcome;
    try {
      o = await cloneInstance(c, plan, chosen, { ...(flags.name ? { name: flags.name } : {}), settleMs: waitS * 1000, intervalMs: interval, onProgress: (s) => io.stderr(forTerminal(`  ${s || '?'}`) + '\n') });
    } catch (e) {
      return fail('failed', `not cloned: ${failureLine(e)}`, `没有克隆：${failureLine(e, lang)}`);
    }
    const base = { account: a.account.id, source: inst.ref, machineId: chosen.machineId, priceFenPerHour: chosen.priceFenPerHour ?? null };
    if (o.status === 'unknown') {
      const en = `the clone was sent but its answer was lost (${o.reason}); no instance named "${o.name}" is listed yet. It may still appear: check gpu-rent instances; running this same command again looks for it by name before cloning anything`;
      const zh = `克隆请求已发送，但回答丢失了（${o.reason}）；还没有列出名为 "${o.name}" 的实例。它可能仍会出现：请查看 gpu-rent instances；再运行同一条命令会先按名称查找，再决定是否克隆`;
      if (json) io.stdout(jsonForTerminal({ ...base, name: o.name, outcome: 'unknown', error: { code: 'outcome-unknown', message: en } }, 2) + '\n');
      io.stderr(forTerminal(`gpu-rent clone: ${lang === 'zh-cn' ? zh : en}`) + '\n');
      return 3;
    }
    if (o.status === 'failed') {
      const en = `the platform made ${o.ref} and then reported ${o.rawState}: the clone failed; ${inst.name} is unchanged. Release ${o.ref} in the console and try another host (--machine)`;
      const zh = `平台创建了 ${o.ref}，随后报告 ${o.rawState}：克隆失败；${inst.name} 没有变化。请在控制台释放 ${o.ref}，再换一台主机试（--machine）`;
      if (json) io.stdout(jsonError('clone-failed', en, { ...base, ref: o.ref, state: o.rawState }));
      io.stderr(forTerminal(`gpu-rent clone: ${lang === 'zh-cn' ? zh : en}`) + '\n');
      return 1;
    }
    if (o.recovered) io.stderr(forTerminal(`  ${t(lang, 'found by name: {0}', '按名称找到了：{0}', o.ref)}`) + '\n');
    let hostKey: string | undefined;
    if (o.login) {
      io.stderr(forTerminal(`  ssh -p ${o.login.port} ${o.login.user}@${o.login.host}${o.login.password ? t(lang, ' (password: in the platform console; gpu-rent keeps it for you in the extension)', '（密码：见平台控制台；gpu-rent 会在扩展中替你保存）') : ''}`) + '\n');
      if (!flags['no-pin']) hostKey = await pinHostKey(o.login, io, lang);
    } else if (waitS > 0 && !o.settled) io.stderr(forTerminal(`  ${t(lang, '{0} is still {1} after {2} s (a large data disk takes longer); gpu-rent instances shows it once it runs', '{0} 在 {2} 秒后仍是 {1}（数据盘大时更久）；运行后 gpu-rent instances 会显示它', o.ref, o.rawState || '?', waitS)}`) + '\n');
    io.stderr(forTerminal(`  ${t(lang, '{0} stays, shut down, billing its paid data disk (if any) until you release it in the console', '{0} 会保留（关机状态），其付费数据盘（如有）继续计费，直到你在控制台释放它', inst.name)}`) + '\n');
    // Waited for and still copying: not "cloned". Exit 4 says the wait ran out (0: --wait 0 asked not to wait).
    const pending = !o.settled;
    // The timed shutdown at create: armed once the clone runs (the platform refuses one on an instance still cloning).
    let timer: { ok: boolean; en: string } | undefined;
    if (shutdownIn !== undefined) {
      const now = Math.floor(Date.now() / 1000);
      if (pending) timer = { ok: false, en: 'the clone is not running yet: no timed shutdown armed (gpu-rent shutdown-timer once it runs)' };
      else timer = await armAndSay(io, c, o.ref, o.name, now + shutdownIn, now, lang, PLATFORM_NAMES[a.account.kind]);
      if (pending) io.stderr(`  ${t(lang, timer.en, '克隆实例尚未运行：没有设定定时关机（运行后用 gpu-rent shutdown-timer）')}
`);
    }
    const code = pending && waitS > 0 ? 4 : timer && !timer.ok ? 1 : 0;
    if (json) io.stdout(jsonForTerminal({ ...base, ref: o.ref, name: o.name, outcome: pending ? 'cloning' : 'cloned', recovered: o.recovered, settled: o.settled, state: o.rawState, ...(timer ? { shutdownTimer: { ok: timer.ok, message: timer.en } } : {}), login: o.login ? { host: o.login.host, port: o.login.port, user: o.login.user, password: o.login.password !== undefined } : null, ...(hostKey ? { hostKey } : {}) }, 2) + '\n');
    else if (pending) io.stdout(`${forTerminal(o.ref)}: ${t(lang, 'clone started, not finished ({0})', '克隆已开始，尚未完成（{0}）', forTerminal(o.rawState || '?'))}\n`);
    else io.stdout(`${forTerminal(o.ref)}: ${o.recovered ? t(lang, 'cloned (found by name)', '已克隆（按名称找到）') : t(lang, 'cloned', '已克隆')}, ${forTerminal(o.rawState)}\n`);
    return code;
  },
};

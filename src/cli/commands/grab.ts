// `gpu-rent grab --card C [--gpus N] [--regions R,…] [--max-price YUAN] --then start|clone|create …`:
// watch stock across the accounts and regions allowed until a card within the limits is free,
// then act once (app/grab.ts), and say so here and on the `--notify` channels. The target's lock
// (an instance's power-on lock; for a create its name) is held throughout: a second grab or a
// power-on of it sends nothing. Ctrl-C stops at once (exit 130).
import { join } from 'node:path';
import { configHome } from '../../app/platforms/accountFile';
import { grab, canGrabWith, type GrabAccount, type GrabThen } from '../../app/grab';
import { actText, outcomeText, roundText } from '../../app/grabWords';
import { channelsNamed, readChannelFile, SENT_JOURNAL_FILE, type StoredChannel } from '../../app/notify/channelFile';
import { notifyEvent } from '../../app/notify/send';
import { PowerOnLocks } from '../../app/platforms/powerLock';
import { realClock } from '../../app/platforms/waitForGpu';
import { isCloneRefusal } from '../../core/platforms/autodlClone';
import { GRAB_ACTIONS, GRAB_DEFAULT_WAIT_S, GRAB_MAX_REGIONS, GRAB_MAX_WAIT_S, grabCreateName, preflightCreate, watchesRegions, type GrabAction } from '../../core/platforms/grab';
import { AUTODL_DATA_CENTERS } from '../../core/platforms/stock';
import { CREATE_NAME } from '../../core/platforms/create';
import { REGION_ID } from '../../core/platforms/regions';
import { formatCny, yuanToFen } from '../../core/money';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { formatHelp, parseArgs, UsageError, type FlagSpecs } from '../args';
import type { CliCommand } from '../command';
import { jsonError } from '../json-error';
import { cliLang, LANG_FLAG_SPEC } from '../lang';
import { helpLang, l10nIn, t } from '../words';
import { connectorFor, loadAccounts, failureLine, platformMatches } from './accounts';
import { cloneRefusalLine } from './clone';
import { pinHostKey, refusalLine } from './create';
import { findPlatformInstance } from './power';
import { refusalAdviceLine } from './power-wait';

const specs = {
  card: { type: 'string', valueName: 'C', description: 'the card: 4090 matches "RTX 4090", a Pro spec (4090D) or an instance type (GN7, gn7i)', zh: '显卡：4090 匹配 "RTX 4090"、Pro 规格（4090D）或实例规格（GN7、gn7i）' },
  gpus: { type: 'number', valueName: 'N', integer: true, min: 1, max: 8, description: 'GPUs per instance (default 1)', zh: '每个实例的 GPU 数（默认 1）' },
  regions: { type: 'string', valueName: 'R,…', description: 'only these regions, data centers or zones (AutoDL Pro westDC2; 阿里云 cn-hangzhou; 腾讯云 ap-guangzhou or ap-guangzhou-3); default every one the accounts read', zh: '只看这些地区、数据中心或可用区（AutoDL Pro westDC2；阿里云 cn-hangzhou；腾讯云 ap-guangzhou 或 ap-guangzhou-3）；默认账号能读到的全部' },
  'max-price': { type: 'number', valueName: 'YUAN', min: 0.01, max: 10000, description: 'the most per hour, in yuan; a card whose price the platform does not say is never taken under it', zh: '每小时最多的价格（元）；平台不给价格的显卡在设了上限时一律不取' },
  then: { type: 'string', valueName: 'start|clone|create', description: 'what to do once a card fits: start INSTANCE, clone INSTANCE onto a host with a free card (AutoDL console), or create one', zh: '有合适的卡后做什么：开机 INSTANCE、把 INSTANCE 克隆到有空闲卡的主机（AutoDL 控制台），或创建实例' },
  platform: { type: 'string', valueName: 'P,…', description: 'create: only accounts of these platforms (autodl, aliyun, tencent, or a kind such as autodl-pro)', zh: '创建：只用这些平台的账号（autodl、aliyun、tencent，或 autodl-pro 这样的类型）' },
  account: { type: 'string', valueName: 'ID,…', description: 'only these accounts (gpu-rent accounts list); default every account that can do it', zh: '只用这些账号（gpu-rent accounts list 可查看）；默认所有能执行的账号' },
  image: { type: 'string', valueName: 'ID', description: 'create: the image (AutoDL Pro base-image-… or image-…; 阿里云/腾讯云 an image id)', zh: '创建：镜像（AutoDL Pro base-image-… 或 image-…；阿里云/腾讯云 镜像 ID）' },
  'disk-gb': { type: 'number', valueName: 'N', integer: true, min: 0, max: 32768, description: 'create: disk as gpu-rent create takes it', zh: '创建：磁盘，同 gpu-rent create' },
  'cuda-min': { type: 'string', valueName: 'X.Y', description: 'create: the lowest CUDA the host must offer', zh: '创建：主机至少要支持的 CUDA' },
  torch: { type: 'string', valueName: 'VERSION', description: 'create: take the CUDA bound from your PyTorch (2.1.0+cu121, cu121)', zh: '创建：按你的 PyTorch 取 CUDA 下限（2.1.0+cu121、cu121）' },
  name: { type: 'string', valueName: 'N', description: 'create: the instance name (default grab-CARD-xN: a second grab for the same card finds this one); clone: the clone\'s name', zh: '创建：实例名称（默认 grab-显卡-xN：同一显卡的第二个抢卡会找到这个）；克隆：克隆实例的名称' },
  wait: { type: 'number', valueName: 'SECONDS', integer: true, min: 1, max: GRAB_MAX_WAIT_S, description: `how long to watch (default ${GRAB_DEFAULT_WAIT_S}, at most ${GRAB_MAX_WAIT_S})`, zh: `最多盯多久（默认 ${GRAB_DEFAULT_WAIT_S} 秒，最多 ${GRAB_MAX_WAIT_S} 秒）` },
  notify: { type: 'string', valueName: 'NAME,…', description: 'message channels (gpu-rent notify list) told when a card is grabbed', zh: '抢到卡时通知的消息渠道（gpu-rent notify list 可查看）' },
  'no-pin': { type: 'boolean', description: 'create/clone: do not connect once to pin the new instance\'s host key', zh: '创建/克隆：不连接一次去记住新实例的主机密钥' },
  yes: { type: 'boolean', description: 'watch and act (without it, only the limits are shown)', zh: '开始盯卡并执行（不加时只显示限制条件）' },
  json: { type: 'boolean', description: 'print the outcome as JSON', zh: '以 JSON 输出结果' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const USAGE = 'gpu-rent grab --card C [--gpus N] [--regions R,…] [--max-price YUAN] [--platform P,…] [--account ID,…] --then start INSTANCE | --then clone INSTANCE [--name N] | --then create --image ID [--disk-gb N] [--cuda-min X.Y | --torch V] [--name N] [--wait SECONDS] [--notify NAME,…] [--no-pin] --yes [--json]';

const list = (s: string | undefined): string[] => (s ? [...new Set(s.split(',').map((x) => x.trim()).filter(Boolean))] : []);

export const command: CliCommand = {
  name: 'grab',
  summary: 'watch stock until a card within your limits is free, then start, clone or create once and tell you',
  summaryZh: '盯库存，直到有符合限制的空闲显卡，然后开机、克隆或创建一次并通知你',
  help: (ctx) =>
    formatHelp(
      USAGE,
      [
        'Watches the stock of every account allowed (one read a minute per account at most, slower while sold out, slower still after a',
        'rate-limit reply) until a card fits the limits you set now: the card, GPUs, regions and --max-price (a price the platform does not',
        'say is never taken as within it). Then it acts once: --then start powers INSTANCE on with its GPU; --then clone copies it onto a',
        'host with a free card (AutoDL console); --then create creates one (AutoDL Pro, 阿里云, 腾讯云) with --image and --disk-gb, named',
        'grab-CARD-xN unless --name. A card taken before the action, or a quote above the limit, goes back to watching. The target is',
        'locked for the whole watch: a second grab or power-on of it sends nothing. Ctrl-C stops at once.',
        'Exit codes: 0 grabbed, 1 refused or no card within --wait, 2 usage or no --yes, 3 a create/clone whose answer was lost, 130 Ctrl-C.',
      ].join('\n'),
      specs,
      helpLang(ctx),
      [
        '盯所有允许账号的库存（每个账号每分钟最多读一次，售罄时放慢，被限流后更慢），直到有显卡符合你现在设定的限制：显卡、GPU 数、',
        '地区和 --max-price（平台不给价格的一律不算在限制内）。然后只执行一次：--then start 以 GPU 模式开机 INSTANCE；--then clone 把它',
        '克隆到有空闲卡的主机（AutoDL 控制台）；--then create 用 --image 和 --disk-gb 创建实例（AutoDL Pro、阿里云、腾讯云），默认名为',
        'grab-显卡-xN。执行前卡被抢走或报价高于上限，就回去继续盯。整个过程锁定目标：第二个抢卡或开机不会发送任何请求。Ctrl-C 立即停止。',
        '退出码：0 抢到，1 被拒绝或 --wait 内没有卡，2 用法错误或没有 --yes，3 创建/克隆的回答丢失，130 Ctrl-C。',
      ].join('\n'),
    ),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'INSTANCE' });
    const lang = cliLang(flags.lang, io.env);
    const l = l10nIn(flags.json ? 'en' : lang);
    const card = flags.card?.trim();
    if (!card || card.length > 60) throw new UsageError('--card: a card name such as 4090, 4090D or GN7', '--card：显卡名称，如 4090、4090D 或 GN7');
    const action = flags.then as GrabAction | undefined;
    if (!action || !GRAB_ACTIONS.includes(action)) throw new UsageError('--then: start INSTANCE, clone INSTANCE or create', '--then：start INSTANCE、clone INSTANCE 或 create');
    const target = positionals[0];
    if (action !== 'create' && !target) throw new UsageError(`--then ${action} expects INSTANCE (gpu-rent instances lists them)`, `--then ${action} 需要 INSTANCE（gpu-rent instances 会列出）`);
    if (action === 'create' && target) throw new UsageError('--then create takes no INSTANCE', '--then create 不接受 INSTANCE');
    if (action !== 'create' && flags.platform !== undefined) throw new UsageError('--platform is for --then create (start and clone use the instance\'s account)', '--platform 只用于 --then create（开机和克隆使用实例所属账号）');
    if (action !== 'create' && (flags.image !== undefined || flags['disk-gb'] !== undefined || flags['cuda-min'] !== undefined || flags.torch !== undefined)) throw new UsageError('--image, --disk-gb, --cuda-min and --torch are for --then create', '--image、--disk-gb、--cuda-min 和 --torch 只用于 --then create');
    const regions = list(flags.regions);
    if (regions.length > GRAB_MAX_REGIONS || regions.some((r) => !REGION_ID.test(r.toLowerCase()) && !/^[a-zA-Z0-9]{2,40}$/.test(r))) throw new UsageError(`--regions: at most ${GRAB_MAX_REGIONS} region, data-center or zone ids, comma-separated`, `--regions：最多 ${GRAB_MAX_REGIONS} 个地区、数据中心或可用区 ID，用逗号分隔`);
    const gpus = flags.gpus ?? 1;
    const name = flags.name ?? (action === 'create' ? grabCreateName(card, gpus) : undefined);
    if (name !== undefined && !CREATE_NAME.test(name)) throw new UsageError('--name: letters, digits, . _ - (at most 60)', '--name：字母、数字、. _ -（最多 60 个）');
    const maxPriceFen = flags['max-price'] !== undefined ? yuanToFen(flags['max-price']) : undefined;
    const waitS = flags.wait ?? GRAB_DEFAULT_WAIT_S;
    const home = configHome(io.env);
    // The channels are checked before anything is watched: a name that is not there is said now, not after hours.
    let sends: StoredChannel[] = [];
    const names = list(flags.notify);
    if (names.length) {
      const named = channelsNamed(names, await readChannelFile(home));
      if (named.missing.length) throw new UsageError(`--notify: no channel ${named.missing.map((x) => forTerminal(x.slice(0, 40))).join(', ')} (gpu-rent notify list)`, `--notify：没有渠道 ${named.missing.map((x) => forTerminal(x.slice(0, 40))).join(', ')}（gpu-rent notify list 可查看）`);
      sends = named.sends;
    }
    const fail = (code: string, en: string, zh: string, exit = 1) => {
      if (flags.json) io.stdout(jsonError(code, en));
      io.stderr(`gpu-rent grab: ${forTerminal(lang === 'zh-cn' && !flags.json ? zh : en)}\n`);
      return exit;
    };
    const wanted = list(flags.account);
    let then: GrabThen;
    let label: string;
    if (action === 'create') {
      const platforms = list(flags.platform);
      const accounts = (await loadAccounts(io)).filter((a) => (!wanted.length || wanted.includes(a.account.id)) && (!platforms.length || platforms.some((p) => platformMatches(a.account.kind, p))));
      const usable: GrabAccount[] = [];
      const unasked: string[] = [];
      const refusedHere: { account: string; line: string }[] = [];
      for (const a of accounts) {
        const c = connectorFor(a, io);
        if (!canGrabWith(c, 'create') || !a.account.powerActions) continue;
        if (!watchesRegions(a.account.kind, regions)) {
          unasked.push(a.account.id);
          continue;
        }
        // The limits this platform would refuse (GPUs, image, disk) are said now, not once a card is free.
        const bad = preflightCreate(a.account.kind, { gpus, name: name!, ...(flags.image !== undefined ? { image: flags.image } : {}), ...(flags['disk-gb'] !== undefined ? { diskGb: flags['disk-gb'] } : {}) });
        if (bad) {
          refusedHere.push({ account: a.account.id, line: refusalLine(bad) });
          continue;
        }
        usable.push({ account: a.account, connector: c });
      }
      for (const x of refusedHere) io.stderr(`gpu-rent grab: ${forTerminal(t(lang, 'not watched: {0}: {1}', '不盯：{0}：{1}', x.account, x.line))}\n`);
      if (!usable.length && refusedHere.length) return fail('refused', `${refusedHere[0]!.account}: ${refusedHere[0]!.line}; nothing watched`, `${refusedHere[0]!.account}：${refusedHere[0]!.line}；没有盯任何账号`);
      // An account none of whose places is named is left out, and said: a misspelt data center would otherwise watch nothing for hours.
      if (unasked.length) io.stderr(`gpu-rent grab: ${forTerminal(t(lang, 'not watched: {0} (none of --regions is one of its data centers or regions; AutoDL data centers: {1})', '不盯：{0}（--regions 中没有它的数据中心或地区；AutoDL 数据中心：{1}）', unasked.join(', '), Object.keys(AUTODL_DATA_CENTERS).join(', ')))}\n`);
      if (!usable.length) return fail('no-account', 'no account that creates instances and reads stock with power actions allowed (AutoDL Pro, 阿里云, 腾讯云; gpu-rent accounts add --allow-power, or GPU_RENT_ALLOW_POWER=1)', '没有能创建实例、能读库存且允许电源操作的账号（AutoDL Pro、阿里云、腾讯云；gpu-rent accounts add --allow-power，或 GPU_RENT_ALLOW_POWER=1）');
      then = { action, accounts: usable, name: name!, ...(flags.image !== undefined ? { image: flags.image } : {}), ...(flags['disk-gb'] !== undefined ? { diskGb: flags['disk-gb'] } : {}), ...(flags['cuda-min'] !== undefined ? { cudaMin: flags['cuda-min'] } : {}), ...(flags.torch !== undefined ? { torch: flags.torch } : {}) };
      label = name!;
    } else {
      if (wanted.length > 1) throw new UsageError(`--then ${action}: one --account (the instance's)`, `--then ${action}：只能一个 --account（实例所属账号）`);
      const found = await findPlatformInstance(io, target!, wanted[0], flags.json ? 'en' : lang);
      if ('miss' in found) return fail(found.code, found.en, found.text);
      const { a, c, inst } = found;
      if (!a.account.powerActions) return fail('read-only', `account ${a.account.id} is read-only (${a.source === 'env' ? 'set GPU_RENT_ALLOW_POWER=1' : 'add it again with --allow-power'})`, `账号 ${a.account.id} 是只读的（${a.source === 'env' ? '请设置 GPU_RENT_ALLOW_POWER=1' : '请加 --allow-power 重新添加'}）`);
      if (action === 'clone' && !canGrabWith(c, 'clone')) return fail('not-supported', cloneRefusalLine({ code: 'notSupported' }, 'en'), cloneRefusalLine({ code: 'notSupported' }, 'zh-cn'));
      if (inst.state !== 'stopped') return fail('invalid-state', `${inst.name} is ${inst.rawState || inst.state}, not shut down: nothing to grab for`, `${inst.name} 的状态是 ${inst.rawState || inst.state}，不是关机：无需抢卡`);
      then = action === 'start' ? { action, account: { account: a.account, connector: c }, instance: inst } : { action, account: { account: a.account, connector: c }, instance: inst, ...(flags.name ? { cloneName: flags.name } : {}) };
      label = inst.name;
    }
    const limits = { card, gpus, regions, ...(maxPriceFen !== undefined ? { maxPriceFen } : {}) };
    const limitLine = t(lang, 'grab {0} ×{1} for {2} (--then {3}); regions: {4}; price: {5}; watching up to {6} s on {7}', '抢 {0} ×{1} 给 {2}（--then {3}）；地区：{4}；价格：{5}；最多盯 {6} 秒，账号 {7}', card, gpus, label, action, regions.length ? regions.join(', ') : t(lang, 'any', '不限'), maxPriceFen !== undefined ? t(lang, 'at most {0}/h', '每小时最多 {0}', formatCny(maxPriceFen)) : t(lang, 'any', '不限'), waitS, (then.action === 'create' ? then.accounts : [then.account]).map((x) => x.account.id).join(', '));
    io.stderr(forTerminal(limitLine) + '\n');
    if (!flags.yes) {
      io.stderr(`gpu-rent grab: ${t(lang, 'nothing watched or sent; add --yes to start', '没有盯卡也没有发送任何请求；加 --yes 开始')}\n`);
      return 2;
    }
    const abort = new AbortController();
    const onInt = () => abort.abort();
    process.on('SIGINT', onInt);
    try {
      const envMin = Number(io.env.GPU_RENT_WAIT_MIN_INTERVAL_MS);
      const settleMs = Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) > 0 ? Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) : 3000;
      const outcome = await grab({
        limits,
        then,
        locks: new PowerOnLocks({ dir: join(home, 'locks') }),
        lockWhat: `grab --then ${action}`,
        maxWaitMs: waitS * 1000,
        clock: realClock,
        signal: abort.signal,
        ...(envMin > 0 ? { minIntervalMs: envMin } : {}),
        settleMs: action === 'clone' ? 900_000 : 300_000,
        settleIntervalMs: settleMs,
        onRound: (r) => io.stderr(`  ${forTerminal(roundText(r, l))}\n`),
        onAct: (a) => io.stderr(`  ${forTerminal(actText(a, label, l))}\n`),
        onProgress: (line) => io.stderr(`    ${forTerminal(line.slice(0, 120))}\n`),
      });
      const doc = (extra: Record<string, unknown>) => (flags.json ? io.stdout(jsonForTerminal({ action, card, gpus, regions, maxPriceFen: maxPriceFen ?? null, ...extra }, 2) + '\n') : undefined);
      switch (outcome.kind) {
        case 'busy':
          return fail('busy', outcomeText(outcome, label, l10nIn('en')), outcomeText(outcome, label, l));
        case 'cancelled':
          io.stderr(`\ngpu-rent grab: ${forTerminal(outcomeText(outcome, label, l))}\n`);
          doc({ outcome: 'cancelled', rounds: outcome.rounds, waitedSeconds: Math.round(outcome.waitedMs / 1000), inFlight: outcome.inFlight });
          return 130;
        case 'gaveUp':
          io.stderr(`gpu-rent grab: ${forTerminal(outcomeText(outcome, label, l))}\n`);
          doc({ outcome: 'gaveUp', rounds: outcome.rounds, waitedSeconds: Math.round(outcome.waitedMs / 1000), last: outcome.why ?? null });
          return 1;
        case 'refused': {
          const en = outcome.create ? refusalLine(outcome.create) : outcome.clone && isCloneRefusal(outcome.clone) ? cloneRefusalLine(outcome.clone, 'en') : outcome.failure ? refusalAdviceLine(outcome.failure, 'en') : 'refused';
          const zh = outcome.clone && isCloneRefusal(outcome.clone) ? cloneRefusalLine(outcome.clone, 'zh-cn') : outcome.failure ? refusalAdviceLine(outcome.failure, 'zh-cn') : en;
          if (flags.json) io.stdout(jsonError('refused', `${outcome.account ?? ''}: ${en}`, { rounds: outcome.rounds, failure: outcome.failure ? { kind: outcome.failure.kind, code: outcome.failure.code } : null, create: outcome.create?.code ?? null, clone: outcome.clone?.code ?? null }));
          io.stderr(`gpu-rent grab: ${forTerminal(`${outcome.account ? `${outcome.account}: ` : ''}${lang === 'zh-cn' && !flags.json ? zh : en}`)}; ${t(flags.json ? 'en' : lang, 'the watch ends, nothing was done', '停止盯卡，什么也没做')}\n`);
          return 1;
        }
        case 'unknown':
          if (flags.json) io.stdout(jsonError('outcome-unknown', outcomeText(outcome, label, l10nIn('en')), { name: outcome.name }));
          io.stderr(`gpu-rent grab: ${forTerminal(outcomeText(outcome, label, l))}\n`);
          return 3;
        case 'done':
          break;
      }
      const o = outcome;
      io.stderr(`${forTerminal(outcomeText(o, label, l))}\n`);
      // Ctrl-C while its state was followed: it was done, only the following stopped.
      const stoppedFollowing = abort.signal.aborted;
      if (stoppedFollowing) io.stderr(`gpu-rent grab: ${t(lang, 'stopped following its state; gpu-rent instances shows it', '不再跟踪其状态；gpu-rent instances 会显示它')}\n`);
      if (o.login) io.stderr(forTerminal(`  ssh -p ${o.login.port} ${o.login.user}@${o.login.host}${o.login.password ? t(lang, ' (the password is shown in the platform console)', '（密码见平台控制台）') : ''}`) + '\n');
      // A new instance made by this command: its host key trusted on first contact, as gpu-rent create does.
      const hostKey = o.login && o.action !== 'start' && !o.recovered && !flags['no-pin'] && !stoppedFollowing ? await pinHostKey(o.login, io, lang) : undefined;
      let notified: unknown[] = [];
      if (sends.length) {
        const results = await notifyEvent(`grab-${o.account}-${o.ref}-${Math.floor(Date.now() / 1000)}`, { kind: 'grabbed', task: o.name, action: o.action, card: o.card, region: o.region ?? null, hourlyFen: o.priceFen ?? null, waitedSeconds: Math.round(o.waitedMs / 1000), instance: o.ref }, sends, { journal: join(home, SENT_JOURNAL_FILE), by: 'laptop', lang: lang === 'zh-cn' ? 'zh-cn' : 'en' });
        for (const r of results) if (r.status === 'failed') io.stderr(`gpu-rent grab: ${forTerminal(t(lang, 'the message to {0} was not sent: {1}', '发给 {0} 的消息没有发出：{1}', r.channel, r.message))}\n`);
        notified = results.map((r) => ({ channel: r.channel, status: r.status }));
      }
      doc({ outcome: 'grabbed', account: o.account, ref: o.ref, name: o.name, grabbedCard: o.card, region: o.region ?? null, priceFenPerHour: o.priceFen ?? null, rounds: o.rounds, waitedSeconds: Math.round(o.waitedMs / 1000), recovered: o.recovered, settled: o.settled, state: o.state ?? null, login: o.login ? { host: o.login.host, port: o.login.port, user: o.login.user } : null, ...(hostKey ? { hostKey } : {}), notified });
      if (!flags.json) io.stdout(`${forTerminal(o.ref)}: ${o.action === 'start' ? t(lang, 'started', '已开机') : o.action === 'clone' ? t(lang, 'cloned', '已克隆') : o.recovered ? t(lang, 'exists', '已存在') : t(lang, 'created', '已创建')}${o.priceFen !== undefined ? `, ${formatCny(o.priceFen)}/h` : ''}\n`);
      return stoppedFollowing ? 130 : 0;
    } catch (e) {
      return fail('failed', failureLine(e), failureLine(e, lang));
    } finally {
      process.removeListener('SIGINT', onInt);
    }
  },
};

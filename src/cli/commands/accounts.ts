// `gpu-rent accounts add|list|remove`: platform accounts for the CLI. Secrets come from the
// environment (GPU_RENT_AUTODL_TOKEN, …) and are kept in $GPU_RENT_HOME/accounts.json (0600,
// default ~/.config/gpu-rent/); accounts defined by the environment alone are used as they are.
import { AccountSchema, envAccounts, endpointsFromEnv, makeConnector, parseSecret, SECRET_ENV, type Account, type Secret } from '../../app/platforms/accounts';
import { configHome, readAccountFile, writeAccountFile } from '../../app/platforms/accountFile';
import { PlatformError, PLATFORM_NAMES } from '../../app/platforms/errors';
import { renderTable } from '../../core/format';
import { forTerminal } from '../../core/text';
import { DESCRIPTORS, descriptorOf } from '../../core/platforms/descriptors';
import { CATALOG_PLATFORM, PLATFORM_KINDS, type Connector, type PlatformKind } from '../../core/platforms/types';
import { parseRegionText, regionText } from '../../core/platforms/regions';
import { UsageError, type FlagSpecs } from '../args';
import type { CliCommand, CliIO } from '../command';
import { LANG_FLAG_SPEC, type CliLang } from '../lang';
import { defineCommand } from '../define';
import { CliFailure } from '../failure';
import { heads, platformFailureZh, t } from '../words';
import { errorCode } from '../json-error';
import { KEEP_ALIVE_DAYS_BEFORE, KEEP_ALIVE_MINUTES, keepAliveCostFen, keepAliveSupport, noGpuRateFen } from '../../core/platforms/keepAlive';
import { formatCny } from '../../core/money';

export const PLATFORM_TIMEOUT_MS = 15_000;

export interface CliAccount {
  account: Account;
  secret: Secret;
  source: 'file' | 'env';
}

/** The file's accounts, then the environment's (env accounts may power only with GPU_RENT_ALLOW_POWER=1). */
export async function loadAccounts(io: CliIO): Promise<CliAccount[]> {
  const file = (await readAccountFile(configHome(io.env))).map((a) => ({ ...a, source: 'file' as const }));
  const allowPower = io.env.GPU_RENT_ALLOW_POWER === '1';
  const keepAlive = allowPower && io.env.GPU_RENT_KEEP_ALIVE === '1';
  const env = envAccounts(io.env).map((a) => ({ account: { ...a.account, powerActions: allowPower, ...(keepAlive && keepAliveSupport(a.account.kind) === 'ok' ? { keepAlive: true } : {}) }, secret: a.secret, source: 'env' as const }));
  return [...file, ...env.filter((e) => !file.some((f) => f.account.id === e.account.id))];
}

export function connectorFor(a: Pick<CliAccount, 'account' | 'secret'>, io: CliIO): Connector {
  return makeConnector(a.account, a.secret, endpointsFromEnv(io.env), { timeoutMs: PLATFORM_TIMEOUT_MS, now: () => Math.floor(Date.now() / 1000) });
}

/** `--platform` accepts a connector kind or a catalog platform id (autodl, aliyun, tencent). */
export function platformMatches(kind: PlatformKind, p: string | undefined): boolean {
  return !p || p === kind || CATALOG_PLATFORM[kind] === p;
}

/** One line naming the platform and the cause (in `lang`); the platform's own words rendered as box text. */
export function failureLine(e: unknown, lang: CliLang = 'en'): string {
  if (lang === 'zh-cn' && e instanceof PlatformError) return forTerminal(platformFailureZh(e.failure));
  return forTerminal(e instanceof PlatformError ? e.message : e instanceof Error ? e.message : String(e));
}

// The first example is the registry's first kind (AutoDL Pro); its address variable is shown
// only where the platform has no built-in one (descriptors.ts).
const FIRST = DESCRIPTORS[0]!;
const FIRST_ENDPOINT_EXAMPLE = FIRST.endpoint.default === undefined ? `${FIRST.endpoint.env}=<base URL> ` : '';

export const HOW_TO_ADD = [
  'No platform account is configured. Add one with, for example:',
  `  ${FIRST.secrets.map((f) => `${f.env}=…`).join(' ')} ${FIRST_ENDPOINT_EXAMPLE}gpu-rent accounts add ${FIRST.kind}`,
  '  ALIBABA_CLOUD_ACCESS_KEY_ID=… ALIBABA_CLOUD_ACCESS_KEY_SECRET=… gpu-rent accounts add aliyun-ecs            (every region; --region cn-hangzhou,cn-beijing for some)',
  '  TENCENTCLOUD_SECRET_ID=… TENCENTCLOUD_SECRET_KEY=… gpu-rent accounts add tencent-cvm --region ap-guangzhou',
  'or just set those variables: accounts defined by the environment are used as they are.',
  '',
].join('\n');

/** HOW_TO_ADD in `lang`. */
export function howToAdd(lang: CliLang): string {
  if (lang !== 'zh-cn') return HOW_TO_ADD;
  const lines = HOW_TO_ADD.split('\n');
  lines[0] = '还没有配置平台账号。可以这样添加，例如：';
  lines[2] = lines[2]!.replace('(every region; --region cn-hangzhou,cn-beijing for some)', '（所有地区；只读部分地区用 --region cn-hangzhou,cn-beijing）');
  lines[4] = '或者只设置这些环境变量：由环境变量定义的账号会直接使用。';
  return lines.join('\n');
}

const specs = {
  id: { type: 'string', valueName: 'ID', description: 'account id (add; default: the platform kind)', zh: '账号 id（add；默认：平台类型）' },
  label: { type: 'string', valueName: 'TEXT', description: 'a name for the account (add)', zh: '账号的名称（add）' },
  region: { type: 'string', valueName: 'REGIONS', description: '阿里云 / 腾讯云 regions to read (add): all (the default: every region the platform lists), one (cn-hangzhou) or several (cn-hangzhou,cn-beijing)', zh: '要读取的阿里云 / 腾讯云地区（add）：all（默认：平台列出的所有地区）、一个（cn-hangzhou）或几个（cn-hangzhou,cn-beijing）' },
  'allow-power': { type: 'boolean', description: 'allow power-on, power-off and release for this account (add; read-only without it)', zh: '允许此账号开机、关机和释放实例（add；不加时只读）' },
  'keep-alive': { type: 'boolean', description: 'keep its shut-down instances from being released (add, with --allow-power; AutoDL console token): see keep-alive', zh: '防止其已关机的实例被释放（add，需同时加 --allow-power；AutoDL 控制台令牌）：见 keep-alive' },
  experimental: { type: 'boolean', description: 'accept an experimental connector (add autodl-web: the console token)', zh: '接受实验性连接器（add autodl-web：控制台令牌）' },
  json: { type: 'boolean', description: 'print JSON (list; add and remove print {"error": {code, message}} when they fail)', zh: '以 JSON 输出（list；add 和 remove 失败时输出 {"error": {code, message}}）' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const USAGE = 'gpu-rent accounts add PLATFORM [--id ID] [--region R] [--allow-power [--keep-alive]] | list [--json] | remove ID | keep-alive ID on|off';
const SUMMARY = [
  `Platform accounts. PLATFORM is one of ${PLATFORM_KINDS.join(', ')}.`,
  'add reads the secret from the environment:',
  ...PLATFORM_KINDS.map((k) => `  ${k}: ${Object.values(SECRET_ENV[k]).join(', ')}`),
  'checks it with one read-only call, and keeps it in $GPU_RENT_HOME/accounts.json (mode 0600;',
  'default ~/.config/gpu-rent/). Accounts are read-only unless added with --allow-power.',
  keepAliveHelp('en'),
  `Endpoints: ${DESCRIPTORS.map((d) => d.endpoint.env).join(', ')}.`,
].join('\n');

const SUMMARY_ZH = [
  `平台账号。PLATFORM 是 ${PLATFORM_KINDS.join('、')} 之一。`,
  'add 从环境变量读取密钥：',
  ...PLATFORM_KINDS.map((k) => `  ${k}：${Object.values(SECRET_ENV[k]).join(', ')}`),
  '用一次只读调用检查它，然后保存在 $GPU_RENT_HOME/accounts.json（权限 0600；',
  '默认 ~/.config/gpu-rent/）。不加 --allow-power 添加的账号是只读的。',
  keepAliveHelp('zh-cn'),
  `接口地址：${DESCRIPTORS.map((d) => d.endpoint.env).join(', ')}。`,
].join('\n');

/** What a subcommand printed: its text, and under --json its document (none: the text; `line`: on one line). */
interface Said {
  text: string;
  doc?: unknown;
  line?: true;
}

export const command: CliCommand = defineCommand({
  name: 'accounts',
  summary: 'platform accounts (AutoDL, 阿里云, 腾讯云): add, list, remove',
  summaryZh: '平台账号（AutoDL、阿里云、腾讯云）：添加、列出、删除',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 3, names: 'add PLATFORM | list | remove ID | keep-alive ID on|off' },
  run: async (flags, { io, lang, positionals }): Promise<Said> => {
    const [sub, arg, third] = positionals;
    if (third !== undefined && sub !== 'keep-alive') throw new UsageError(`unexpected argument "${forTerminal(third)}"`, `多余的参数 "${forTerminal(third)}"`);
    const home = configHome(io.env);
    if (sub === 'keep-alive') return setKeepAlive(io, home, arg, third, lang);
    if (sub === 'list' || sub === undefined) {
      const all = await loadAccounts(io);
      const doc = all.map((a) => ({ ...a.account, source: a.source }));
      if (!all.length) return { doc, text: howToAdd(lang) };
      const head = heads(lang, [['ID', 'ID'], ['PLATFORM', '平台'], ['LABEL', '名称'], ['REGION', '地区'], ['POWER', '电源操作'], ['FROM', '来源'], ['KEEP ALIVE', '防释放']]);
      const from = (s: string) => (lang === 'zh-cn' ? (s === 'env' ? '环境变量' : '文件') : s);
      return { doc, text: renderTable([head, ...all.map((a) => [a.account.id, a.account.kind, a.account.label, descriptorOf(a.account.kind).regions ? regionText(a.account.region) : '', a.account.powerActions ? t(lang, 'allowed', '允许') : t(lang, 'read-only', '只读'), from(a.source), a.account.keepAlive ? t(lang, 'on', '开') : ''])]) };
    }
    if (sub === 'remove') {
      if (!arg) throw new UsageError('remove needs an account ID (gpu-rent accounts list shows them)', 'remove 需要账号 ID（gpu-rent accounts list 会列出）');
      const file = await readAccountFile(home);
      if (!file.some((a) => a.account.id === arg)) {
        const fromEnv = envAccounts(io.env).some((e) => e.account.id === arg);
        throw new CliFailure('not-found', `no account ${arg} in ${home}/accounts.json${fromEnv ? ' (it comes from environment variables: unset them)' : ''}`, {
          say: `${t(lang, 'no account {0} in {1}/accounts.json', '{1}/accounts.json 中没有账号 {0}', arg, home)}${fromEnv ? t(lang, ' (it comes from environment variables: unset them)', '（它来自环境变量：请取消设置）') : ''}`,
        });
      }
      await writeAccountFile(home, file.filter((a) => a.account.id !== arg));
      return { text: t(lang, 'removed {0} and its secret\n', '已删除 {0} 及其密钥\n', arg) };
    }
    if (sub !== 'add') throw new UsageError(`expects add, list, remove or keep-alive, got "${forTerminal(sub)}"`, `需要 add、list、remove 或 keep-alive，收到 "${forTerminal(sub)}"`);
    const kind = PLATFORM_KINDS.find((k) => k === arg);
    if (!kind) throw new UsageError(`add expects a PLATFORM: ${PLATFORM_KINDS.join(', ')}`, `add 需要 PLATFORM：${PLATFORM_KINDS.join(', ')}`);
    const experimental = descriptorOf(kind).experimental;
    if (experimental && !flags.experimental) throw new UsageError(`${kind} ${experimental.cliReason}; add --experimental to accept that`);
    const fields = SECRET_ENV[kind];
    const missing = Object.values(fields).filter((v) => !io.env[v]);
    if (missing.length) throw new UsageError(`set ${missing.join(' and ')} first (the secret is read from the environment, never from the command line)`, `请先设置 ${missing.join(' 和 ')}（密钥从环境变量读取，从不通过命令行传入）`);
    const s = parseSecret(kind, Object.fromEntries(Object.entries(fields).map(([f, v]) => [f, io.env[v]])));
    if (!s.ok) throw new UsageError(`the secret in ${Object.values(fields).join('/')} is not valid: ${s.message}`);
    const region = flags.region !== undefined ? parseRegionText(flags.region) : undefined;
    if (region && !region.ok) throw new UsageError(`--region: ${region.message}`);
    if (flags['keep-alive'] && !flags['allow-power']) throw new UsageError('--keep-alive needs --allow-power (it starts and shuts down instances)', '--keep-alive 需要 --allow-power（它会开机和关机）');
    if (flags['keep-alive'] && keepAliveSupport(kind) !== 'ok') throw new UsageError(`--keep-alive: ${keepAliveRefusal(kind, lang)}`);
    const parsed = AccountSchema.safeParse({ id: flags.id ?? kind, kind, label: flags.label ?? PLATFORM_NAMES[kind], ...(region?.ok ? { region: region.region } : {}), powerActions: flags['allow-power'] === true, ...(flags['keep-alive'] ? { keepAlive: true } : {}) });
    if (!parsed.success) throw new UsageError(`${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`);
    const account = parsed.data;
    // One read-only call before saving: a wrong key is refused now, not at the first poll.
    let count: number;
    try {
      count = (await connectorFor({ account, secret: s.secret }, io).list()).length;
    } catch (e) {
      throw new CliFailure(errorCode(e), `not saved: ${failureLine(e)}`, { say: t(lang, 'not saved: {0}', '未保存：{0}', failureLine(e, lang)) });
    }
    const file = await readAccountFile(home);
    await writeAccountFile(home, [...file.filter((a) => a.account.id !== account.id), { account, secret: s.secret }]);
    return { text: t(lang, 'added {0} ({1}, {2} instances, {3})\n', '已添加 {0}（{1}，{2} 个实例，{3}）\n', account.id, PLATFORM_NAMES[kind], count, account.powerActions ? t(lang, 'power actions allowed', '允许电源操作') : t(lang, 'read-only', '只读')) + (account.keepAlive ? keepAliveOnText(account.id, kind, lang) : '') };
  },
  json: (r) => r.doc,
  jsonOneLine: (r) => r.line === true,
  text: (r) => r.text,
});



function keepAliveHelp(lang: CliLang): string {
  return lang === 'zh-cn'
    ? `keep-alive ID on 让 \`gpu-rent schedule run\`（cron）在平台的释放日前 ${KEEP_ALIVE_DAYS_BEFORE} 天内，把该账号已关机的实例以无卡模式开机、检查后再关机（AutoDL 关机 15 天后释放实例及数据）。`
    : `keep-alive ID on: \`gpu-rent schedule run\` (cron) starts the account's shut-down instances in no-GPU mode, checks them and shuts them down again within ${KEEP_ALIVE_DAYS_BEFORE} days of the platform's release day (AutoDL releases an instance, data and all, 15 days after it was shut down).`;
}

function keepAliveRefusal(kind: PlatformKind, lang: CliLang): string {
  const s = keepAliveSupport(kind);
  if (s === 'noClock') return t(lang, '{0} does not release shut-down instances on a clock: nothing to keep alive', '{0} 不会按时间释放已关机的实例：无需防释放', PLATFORM_NAMES[kind]);
  return t(lang, "{0}'s API has no no-GPU start: an automatic keep-alive would start the GPU at its hourly price on a host that may have no free card. Use an AutoDL console-token account (autodl-web) or VS Code's Keep from Release", '{0} 的 API 没有无卡模式开机：自动防释放会按 GPU 单价开机，且主机可能没有空闲 GPU。请使用 AutoDL 控制台令牌账号（autodl-web）或 VS Code 的“防止释放”', PLATFORM_NAMES[kind]);
}

/** What keep-alive on does and costs: minutes of the no-GPU rate, each time an instance nears its release day. */
function keepAliveOnText(id: string, kind: PlatformKind, lang: CliLang): string {
  const rate = noGpuRateFen(kind);
  const cost = rate !== undefined ? formatCny(keepAliveCostFen(rate)) : '?';
  const rateText = rate !== undefined ? formatCny(rate) : '?';
  return t(
    lang,
    'keep-alive on for {0}: `gpu-rent schedule run` (cron: */5 * * * * gpu-rent schedule run) starts each shut-down instance in no-GPU mode ({1}/h) within {2} days of its release day, checks it runs and shuts it down again: about {3} minutes, about {4} each time (any minimum charge of the platform applies). VS Code does it too for accounts listed in gpuRent.platforms.keepAlive.\n',
    '已为 {0} 开启防释放：`gpu-rent schedule run`（cron：*/5 * * * * gpu-rent schedule run）会在释放日前 {2} 天内，把每个已关机的实例以无卡模式（{1}/小时）开机、确认运行后再关机：约 {3} 分钟，每次约 {4}（平台若有最低计费则按其计）。VS Code 也会为 gpuRent.platforms.keepAlive 中列出的账号这样做。\n',
    id,
    rateText,
    KEEP_ALIVE_DAYS_BEFORE,
    KEEP_ALIVE_MINUTES,
    cost,
  );
}

async function setKeepAlive(io: CliIO, home: string, id: string | undefined, onOff: string | undefined, lang: CliLang): Promise<Said> {
  if (!id || (onOff !== 'on' && onOff !== 'off')) throw new UsageError('keep-alive needs an account ID and on or off (gpu-rent accounts keep-alive autodl-web on)', 'keep-alive 需要账号 ID 和 on 或 off（gpu-rent accounts keep-alive autodl-web on）');
  const file = await readAccountFile(home);
  const entry = file.find((a) => a.account.id === id);
  if (!entry) {
    const fromEnv = envAccounts(io.env).some((e) => e.account.id === id);
    throw new CliFailure('not-found', `no account ${id} in ${home}/accounts.json${fromEnv ? ' (an environment account: set GPU_RENT_KEEP_ALIVE=1 beside GPU_RENT_ALLOW_POWER=1)' : ''}`, {
      say: `${t(lang, 'no account {0} in {1}/accounts.json', '{1}/accounts.json 中没有账号 {0}', forTerminal(id), home)}${fromEnv ? t(lang, ' (an environment account: set GPU_RENT_KEEP_ALIVE=1 beside GPU_RENT_ALLOW_POWER=1)', '（它来自环境变量：请在 GPU_RENT_ALLOW_POWER=1 之外再设置 GPU_RENT_KEEP_ALIVE=1）') : ''}`,
    });
  }
  const on = onOff === 'on';
  if (on && keepAliveSupport(entry.account.kind) !== 'ok') {
    throw new CliFailure('not-supported', keepAliveRefusal(entry.account.kind, 'en'), { say: keepAliveRefusal(entry.account.kind, lang) });
  }
  if (on && !entry.account.powerActions) {
    throw new CliFailure('read-only', `account ${id} is read-only: add it again with --allow-power first`, { say: t(lang, 'account {0} is read-only: add it again with --allow-power first', '账号 {0} 是只读的：请先加 --allow-power 重新添加', id) });
  }
  const { keepAlive: _k, ...rest } = entry.account;
  const account = on ? { ...rest, keepAlive: true } : rest;
  await writeAccountFile(home, file.map((a) => (a.account.id === id ? { account, secret: a.secret } : a)));
  return { doc: { id, keepAlive: on }, line: true, text: on ? keepAliveOnText(id, entry.account.kind, lang) : t(lang, 'keep-alive off for {0}\n', '已为 {0} 关闭防释放\n', id) };
}

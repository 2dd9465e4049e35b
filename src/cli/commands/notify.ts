// `gpu-rent notify add|list|remove|test`: message channels for the CLI (企业微信, 钉钉, 飞书,
// Server酱, PushPlus, email, a generic webhook). The key, token or webhook address comes from
// GPU_RENT_NOTIFY_SECRET or a hidden prompt, the signing secret from GPU_RENT_NOTIFY_SIGN_SECRET
// or a prompt: never from a flag. Kept in $GPU_RENT_HOME/notify.json (0600); never printed.
import { join } from 'node:path';
import { CHANNEL_KINDS, ChannelSchema, KEY_WORDS, parseChannelKey, SIGNED_KINDS, type ChannelKind, type ChannelSecret, type NotifyChannel } from '../../core/notify/channels';
import { renderTable } from '../../core/format';
import { forTerminal } from '../../core/text';
import { configHome } from '../../app/platforms/accountFile';
import { readChannelFile, SENT_JOURNAL_FILE, writeChannelFile } from '../../app/notify/channelFile';
import { UsageError, type FlagSpecs, type ParsedFlags } from '../args';
import type { CliCommand, CliIO } from '../command';
import { defineCommand } from '../define';
import { CliFailure } from '../failure';
import { LANG_FLAG_SPEC, type CliLang } from '../lang';
import { heads, t } from '../words';

export const SECRET_ENV = 'GPU_RENT_NOTIFY_SECRET';
export const SIGN_SECRET_ENV = 'GPU_RENT_NOTIFY_SIGN_SECRET';

const specs = {
  kind: { type: 'string', valueName: 'KIND', choices: CHANNEL_KINDS, description: `the channel (add): ${CHANNEL_KINDS.join(', ')}`, zh: `渠道类型（add）：${CHANNEL_KINDS.join('、')}` },
  url: { type: 'string', valueName: 'URL', description: "replaces the channel's documented address (add; https, or http on loopback): 飞书's open.larksuite.com, a private gateway", zh: '替换渠道文档中的地址（add；https，或本机回环上的 http）：飞书国际版 open.larksuite.com、私有网关' },
  secret: { type: 'boolean', description: `钉钉 加签 / 飞书 签名校验 (add): the signing secret is read from ${SIGN_SECRET_ENV} or asked`, zh: `钉钉加签 / 飞书签名校验（add）：签名密钥从 ${SIGN_SECRET_ENV} 读取或提示输入` },
  'smtp-host': { type: 'string', valueName: 'HOST', description: 'email (add): the SMTP server', zh: 'email（add）：SMTP 服务器' },
  'smtp-port': { type: 'number', valueName: 'PORT', integer: true, min: 1, max: 65535, description: 'email (add): its port (default 465: TLS; any other uses STARTTLS)', zh: 'email（add）：端口（默认 465：TLS；其他端口用 STARTTLS）' },
  from: { type: 'string', valueName: 'ADDRESS', description: 'email (add): the sender', zh: 'email（add）：发件人' },
  to: { type: 'string', valueName: 'ADDRESS', repeat: true, description: 'email (add): a recipient (repeatable)', zh: 'email（add）：收件人（可重复）' },
  user: { type: 'string', valueName: 'NAME', description: `email (add): the SMTP login; its password from ${SECRET_ENV} or asked`, zh: `email（add）：SMTP 登录名；密码从 ${SECRET_ENV} 读取或提示输入` },
  'message-lang': { type: 'string', valueName: 'LANG', choices: ['en', 'zh-cn'], description: "the messages' language (add; default: the sender's)", zh: '消息的语言（add；默认跟随发送方）' },
  json: { type: 'boolean', description: 'print JSON (list, test; add and remove print {"error": {code, message}} when they fail)', zh: '以 JSON 输出（list、test；add 和 remove 失败时输出 {"error": {code, message}}）' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const USAGE = 'gpu-rent notify add NAME --kind KIND [--url URL] [--secret] [--smtp-host H --from A --to B --user U] | list [--json] | remove NAME | test NAME [--json]';
const SUMMARY = [
  'Message channels: where a launch tells you that a run finished, failed, diverged, hit its budget, lost its spot',
  'instance, or that a box is STILL BILLING. A task names them with `notify: [NAME…]`.',
  `add reads the channel's key from ${SECRET_ENV} (else asks): 企业微信/钉钉/飞书 the robot's webhook address,`,
  `Server酱 the SendKey, PushPlus the token, webhook the URL, email the SMTP password. With --secret the signing`,
  `secret (钉钉 加签, 飞书 签名校验) comes from ${SIGN_SECRET_ENV} (else asked). Kept in $GPU_RENT_HOME/notify.json`,
  '(mode 0600); never printed. test sends one message and checks the channel took it.',
  "A webhook key on the rented box can only post to its group; an SMTP password opens a mailbox, so email is sent",
  'only from this computer.',
].join('\n');
const SUMMARY_ZH = [
  '消息渠道：启动的任务在训练完成、失败、发散、达到预算、竞价实例被回收，或机器仍在计费时通知你。',
  '任务文件用 `notify: [NAME…]` 指定渠道。',
  `add 从 ${SECRET_ENV} 读取渠道密钥（否则提示输入）：企业微信/钉钉/飞书是机器人的 Webhook 地址，`,
  `Server酱 是 SendKey，PushPlus 是 token，webhook 是 URL，email 是 SMTP 密码。加 --secret 时签名密钥`,
  `（钉钉加签、飞书签名校验）从 ${SIGN_SECRET_ENV} 读取（否则提示输入）。保存在 $GPU_RENT_HOME/notify.json`,
  '（权限 0600），从不打印。test 发送一条消息并确认渠道已接收。',
  '放到租用机器上的 Webhook 密钥只能向它的群发消息；SMTP 密码能打开整个邮箱，所以邮件只从本机发送。',
].join('\n');

async function ask(io: CliIO, question: string): Promise<string | null> {
  if (!process.stdin.isTTY) return null;
  const { promptLine } = await import('../remote-common');
  return promptLine(question, true);
}

function fail(lang: CliLang, code: string, en: string, zh: string, ...values: (string | number)[]): CliFailure {
  return new CliFailure(code, t('en', en, zh, ...values), { say: forTerminal(t(lang, en, zh, ...values)) });
}

/** What a subcommand printed: its text, and under --json its document (none: the text). */
interface Said {
  text: string;
  doc?: unknown;
}

async function secretFor(io: CliIO, lang: CliLang, kind: ChannelKind, name: string): Promise<{ key?: string; base?: string; password?: string }> {
  const words = KEY_WORDS[kind];
  const pasted = io.env[SECRET_ENV] ?? (await ask(io, t(lang, '{0} for {1} (not shown): ', '{1} 的{0}（输入不显示）：', lang === 'zh-cn' ? words.zh : words.en, name)));
  if (pasted === null || pasted === undefined || pasted.trim() === '') {
    throw new UsageError(`set ${SECRET_ENV} to ${words.en} (or run in a terminal to be asked): it is never taken from a flag`, `请把 ${SECRET_ENV} 设为${words.zh}（或在终端中运行以提示输入）：它从不通过选项传入`);
  }
  const r = parseChannelKey(kind, pasted);
  if (!r.ok) throw new UsageError(`${SECRET_ENV} is not ${words.en}: ${r.reason}`, `${SECRET_ENV} 不是${words.zh}：${r.reason}`);
  return kind === 'email' ? { password: r.key } : { key: r.key, ...(r.base ? { base: r.base } : {}) };
}

async function add(io: CliIO, lang: CliLang, name: string | undefined, flags: ParsedFlags<typeof specs>): Promise<Said> {
  if (!name) throw new UsageError('add needs a NAME (letters, digits, - and _)', 'add 需要一个名称（字母、数字、- 和 _）');
  const kind = flags.kind as ChannelKind | undefined;
  if (!kind) throw new UsageError(`add needs --kind: ${CHANNEL_KINDS.join(', ')}`, `add 需要 --kind：${CHANNEL_KINDS.join('、')}`);
  if (flags.secret && !SIGNED_KINDS.includes(kind)) throw new UsageError('--secret is for dingtalk and feishu (their signed robots)', '--secret 只用于 dingtalk 和 feishu（签名的机器人）');
  const emailFlags = ['smtp-host', 'smtp-port', 'from', 'to', 'user'] as const;
  if (kind !== 'email' && emailFlags.some((f) => flags[f] !== undefined)) throw new UsageError(`--${emailFlags.find((f) => flags[f] !== undefined)} is for --kind email`, `--${emailFlags.find((f) => flags[f] !== undefined)} 只用于 --kind email`);
  if ((kind === 'email' || kind === 'webhook') && flags.url) throw new UsageError(`--url is not for ${kind}`, `--url 不用于 ${kind}`);
  let secret: ChannelSecret = {};
  let base = flags.url?.replace(/\/+$/, '');
  if (kind === 'email') {
    if (!flags['smtp-host'] || !flags.from || !flags.to?.length) throw new UsageError('email needs --smtp-host, --from and --to', 'email 需要 --smtp-host、--from 和 --to');
    if (flags.user) secret = { password: (await secretFor(io, lang, kind, name)).password! };
  } else {
    const s = await secretFor(io, lang, kind, name);
    secret = { key: s.key! };
    base ??= s.base;
  }
  if (flags.secret) {
    const sign = io.env[SIGN_SECRET_ENV] ?? (await ask(io, t(lang, 'signing secret for {0} (not shown): ', '{0} 的签名密钥（输入不显示）：', name)));
    if (!sign || sign.trim() === '' || /[\s\x00-\x1f]/.test(sign.trim())) throw new UsageError(`set ${SIGN_SECRET_ENV} to the robot's signing secret (or run in a terminal to be asked)`, `请把 ${SIGN_SECRET_ENV} 设为机器人的签名密钥（或在终端中运行以提示输入）`);
    secret.sign = sign.trim();
  }
  const port = flags['smtp-port'] ?? 465;
  const candidate = {
    name,
    kind,
    ...(base ? { base } : {}),
    ...(flags.secret ? { signed: true } : {}),
    ...(kind === 'email' ? { smtp: { host: flags['smtp-host']!, port, secure: port === 465, from: flags.from!, to: flags.to!, ...(flags.user ? { user: flags.user } : {}) } } : {}),
    ...(flags['message-lang'] ? { lang: flags['message-lang'] } : {}),
  };
  const parsed = ChannelSchema.safeParse(candidate);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new UsageError(`${i.path.join('.') || 'channel'}: ${i.message}`);
  }
  const home = configHome(io.env);
  const file = await readChannelFile(home);
  await writeChannelFile(home, [...file.filter((c) => c.channel.name !== name), { channel: parsed.data, secret }]);
  return { text: t(lang, 'added {0} ({1}); try it with: gpu-rent notify test {0}\n', '已添加 {0}（{1}）；可以这样试发：gpu-rent notify test {0}\n', name, kind) };
}

function describe(c: NotifyChannel): string {
  if (c.kind === 'email') return `${c.smtp!.host}:${c.smtp!.port} → ${c.smtp!.to.join(', ')}`;
  return c.base ?? '';
}

export const command: CliCommand = defineCommand({
  name: 'notify',
  summary: 'message channels (企业微信, 钉钉, 飞书, Server酱, PushPlus, email, webhook): add, list, remove, test',
  summaryZh: '消息渠道（企业微信、钉钉、飞书、Server酱、PushPlus、邮件、webhook）：添加、列出、删除、试发',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 2, names: 'add NAME | list | remove NAME | test NAME' },
  run: async (flags, { io, lang, positionals }): Promise<Said> => {
    const [sub, name] = positionals;
    const home = configHome(io.env);
    if (sub === 'add') return add(io, lang, name, flags);
    if (sub === 'list' || sub === undefined) {
      const all = await readChannelFile(home);
      const doc = all.map((c) => ({ ...c.channel, secretStored: Object.keys(c.secret).sort() }));
      if (!all.length) {
        return { doc, text: t(lang, 'No message channel yet. Add one, for example:\n  {0}=\'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…\' gpu-rent notify add phone --kind wecom\n', '还没有消息渠道。可以这样添加，例如：\n  {0}=\'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…\' gpu-rent notify add phone --kind wecom\n', SECRET_ENV) };
      }
      const head = heads(lang, [['NAME', '名称'], ['KIND', '类型'], ['SIGNED', '签名'], ['ADDRESS', '地址']]);
      return { doc, text: renderTable([head, ...all.map((c) => [c.channel.name, c.channel.kind, c.channel.signed ? t(lang, 'yes', '是') : '', describe(c.channel)])]) };
    }
    if (sub === 'remove') {
      if (!name) throw new UsageError('remove needs a NAME (gpu-rent notify list shows them)', 'remove 需要名称（gpu-rent notify list 会列出）');
      const file = await readChannelFile(home);
      if (!file.some((c) => c.channel.name === name)) throw fail(lang, 'not-found', 'no channel {0} in {1}', '{1} 中没有渠道 {0}', name, join(home, 'notify.json'));
      await writeChannelFile(home, file.filter((c) => c.channel.name !== name));
      return { text: t(lang, 'removed {0} and its secret\n', '已删除 {0} 及其密钥\n', name) };
    }
    if (sub === 'test') {
      if (!name) throw new UsageError('test needs a NAME (gpu-rent notify list shows them)', 'test 需要名称（gpu-rent notify list 会列出）');
      const found = (await readChannelFile(home)).find((c) => c.channel.name === name);
      if (!found) throw fail(lang, 'not-found', 'no channel {0} in {1}', '{1} 中没有渠道 {0}', name, join(home, 'notify.json'));
      const { notifyEvent } = await import('../../app/notify/send');
      const [r] = await notifyEvent(`test:${Date.now()}`, { kind: 'test', task: 'gpu-rent', channel: name }, [found], { journal: join(home, SENT_JOURNAL_FILE), lang });
      if (r!.status === 'failed') throw fail(lang, r!.code, '{0} did not take the message: {1}', '{0} 未接收消息：{1}', name, r!.message);
      return {
        doc: { channel: name, sent: true, ...(r!.status === 'sent' && r!.id ? { id: r!.id } : {}) },
        text: t(lang, 'sent a test message to {0} ({1}): the channel took it\n', '已向 {0}（{1}）发送测试消息：渠道已接收\n', name, found.channel.kind),
      };
    }
    throw new UsageError(`expects add, list, remove or test, got "${sub}"`, `需要 add、list、remove 或 test，收到 "${sub}"`);
  },
  json: (r) => r.doc,
  text: (r) => r.text,
});

// Message channels: what identifies one (kept in settings or the CLI's file, never secret) and
// its secret (a webhook key, token, SendKey, signing secret or SMTP password: SecretStorage or
// the 0600 file only). The documented addresses and limits of each kind are here, with their
// sources in test/fixtures/notify/SOURCES.md.
import { z } from 'zod';

export const CHANNEL_KINDS = ['wecom', 'dingtalk', 'feishu', 'serverchan', 'pushplus', 'email', 'webhook'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** Each kind's documented origin (the `--url` flag replaces it: 飞书's Lark twin, a private gateway, a test stub). */
export const DEFAULT_BASE: Readonly<Record<Exclude<ChannelKind, 'email' | 'webhook'>, string>> = {
  wecom: 'https://qyapi.weixin.qq.com',
  dingtalk: 'https://oapi.dingtalk.com',
  feishu: 'https://open.feishu.cn',
  serverchan: 'https://sctapi.ftqq.com',
  pushplus: 'https://www.pushplus.plus',
};

/** What each kind's one secret is, in the words its client uses (for prompts and help). */
export const KEY_WORDS: Readonly<Record<ChannelKind, { en: string; zh: string }>> = {
  wecom: { en: 'the webhook address (or its key=…)', zh: 'Webhook 地址（或其中的 key=…）' },
  dingtalk: { en: 'the webhook address (or its access_token=…)', zh: 'Webhook 地址（或其中的 access_token=…）' },
  feishu: { en: 'the webhook address (or its hook id)', zh: 'Webhook 地址（或其中的 hook ID）' },
  serverchan: { en: 'the SendKey', zh: 'SendKey' },
  pushplus: { en: 'the token', zh: '用户 token' },
  email: { en: 'the SMTP password (or app password)', zh: 'SMTP 密码（或授权码）' },
  webhook: { en: 'the webhook URL', zh: 'Webhook URL' },
};

/** Documented send limits: 企业微信 and 钉钉 take at most 20 messages a minute per robot. */
export const RATE_RULES: Readonly<Partial<Record<ChannelKind, { max: number; windowSeconds: number }>>> = {
  wecom: { max: 20, windowSeconds: 60 },
  dingtalk: { max: 20, windowSeconds: 60 },
};

/** 企业微信: text content at most 2048 bytes of UTF-8. */
export const WECOM_TEXT_MAX_BYTES = 2048;
/** 飞书: a request body at most 20 KB; the text is kept well under it. */
export const FEISHU_TEXT_MAX_BYTES = 16 * 1024;
/** Server酱: a title at most 32 characters; desp at most 32 KB. */
export const SERVERCHAN_TITLE_MAX = 32;
export const SERVERCHAN_DESP_MAX_BYTES = 30 * 1024;
/** What any other channel gets at most (our messages are a few lines). */
export const OTHER_TEXT_MAX_BYTES = 8 * 1024;

/** Kinds whose secret may go to the box (a key that can only post to one group or one inbox). */
export function boxMaySend(kind: ChannelKind): boolean {
  // An SMTP password opens a whole mailbox: it stays on the laptop.
  return kind !== 'email';
}

/** Kinds that sign each request with a second secret (钉钉 加签, 飞书 签名校验). */
export const SIGNED_KINDS: readonly ChannelKind[] = ['dingtalk', 'feishu'];

const NAME_RE = /^[A-Za-z0-9._-]{1,40}$/;
export const CHANNEL_NAME_RE = NAME_RE;
const HOST_RE = /^[A-Za-z0-9.-]{1,253}$|^\[[0-9a-fA-F:]{2,45}\]$/;
const EMAIL_RE = /^[^\s@<>(),;:"[\]\\]{1,64}@[A-Za-z0-9.-]{1,253}$/;

/** An https origin, or http on loopback (a test stub, a local relay). */
export function baseProblem(base: string): string | undefined {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    return 'not a URL';
  }
  if (u.username || u.password) return 'a URL with a user name or password';
  if (u.protocol === 'https:') return undefined;
  if (u.protocol === 'http:' && isLoopback(u.hostname)) return undefined;
  return 'not https (plain http only on 127.0.0.1 / localhost)';
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

const base = z.string().max(400).refine((b) => baseProblem(b) === undefined, { message: 'must be an https URL (http only on loopback)' });

export const SmtpSchema = z.strictObject({
  host: z.string().regex(HOST_RE),
  port: z.int().min(1).max(65535),
  /** TLS from the first byte (465); otherwise STARTTLS, required unless the host is loopback. */
  secure: z.boolean(),
  from: z.string().regex(EMAIL_RE),
  to: z.array(z.string().regex(EMAIL_RE)).min(1).max(20),
  user: z.string().min(1).max(200).optional(),
});
export type SmtpSettings = z.infer<typeof SmtpSchema>;

export const ChannelSchema = z
  .strictObject({
    name: z.string().regex(NAME_RE),
    kind: z.enum(CHANNEL_KINDS),
    /** The documented origin replaced (wecom, dingtalk, feishu, serverchan, pushplus). */
    base: base.optional(),
    /** 钉钉 / 飞书: the robot checks a signature made with the signing secret. */
    signed: z.boolean().optional(),
    smtp: SmtpSchema.optional(),
    /** The language of the messages (default: the sender's). */
    lang: z.enum(['en', 'zh-cn']).optional(),
  })
  .superRefine((c, ctx) => {
    if ((c.kind === 'email') !== (c.smtp !== undefined)) ctx.addIssue({ code: 'custom', path: ['smtp'], message: c.kind === 'email' ? 'email needs its SMTP settings' : 'only email has SMTP settings' });
    if (c.signed && !SIGNED_KINDS.includes(c.kind)) ctx.addIssue({ code: 'custom', path: ['signed'], message: 'only dingtalk and feishu sign their requests' });
    if (c.base !== undefined && (c.kind === 'email' || c.kind === 'webhook')) ctx.addIssue({ code: 'custom', path: ['base'], message: `${c.kind} has no documented address to replace` });
  });
export type NotifyChannel = z.infer<typeof ChannelSchema>;

/** A channel's secrets: `key` is the kind's one key (KEY_WORDS), `sign` the signing secret, `password` SMTP's. */
export const ChannelSecretSchema = z.strictObject({
  key: z.string().min(1).max(2048).optional(),
  sign: z.string().min(1).max(512).optional(),
  password: z.string().min(1).max(512).optional(),
});
export type ChannelSecret = z.infer<typeof ChannelSecretSchema>;

const CONTROL = /[\x00-\x20\x7f]/;

/**
 * What the user pasted as a channel's key, checked and reduced to the key itself: a 企业微信
 * webhook address gives its `key`, a 钉钉 one its `access_token`, a 飞书 one its hook id (and
 * the address's origin, when it is not the documented one, as `base`). A webhook channel's key
 * is its whole URL (https, or http on loopback). Returns a reason when it is none of those.
 */
export function parseChannelKey(kind: ChannelKind, pasted: string): { ok: true; key: string; base?: string } | { ok: false; reason: string } {
  const s = pasted.trim();
  if (s === '') return { ok: false, reason: 'empty' };
  if (kind === 'email') return s.length <= 512 ? { ok: true, key: s } : { ok: false, reason: 'longer than 512 characters' };
  if (CONTROL.test(s)) return { ok: false, reason: 'holds spaces or control characters' };
  if (kind === 'webhook') {
    const p = baseProblem(s);
    return p ? { ok: false, reason: p } : { ok: true, key: s };
  }
  if (!/^[a-z]+:\/\//i.test(s)) {
    if (!/^[A-Za-z0-9._~-]{4,512}$/.test(s)) return { ok: false, reason: 'not a key: letters, digits and . _ ~ - only' };
    return { ok: true, key: s };
  }
  const p = baseProblem(s);
  if (p) return { ok: false, reason: p };
  const u = new URL(s);
  const origin = u.origin;
  const keep = origin === (DEFAULT_BASE as Record<string, string>)[kind] ? {} : { base: origin };
  let key: string | null = null;
  if (kind === 'wecom') key = u.searchParams.get('key');
  else if (kind === 'dingtalk') key = u.searchParams.get('access_token');
  else if (kind === 'feishu') key = /\/open-apis\/bot\/v2\/hook\/([A-Za-z0-9_-]{4,200})\/?$/.exec(u.pathname)?.[1] ?? null;
  else if (kind === 'serverchan') key = /\/([A-Za-z0-9_-]{4,200})\.send$/.exec(u.pathname)?.[1] ?? null;
  else if (kind === 'pushplus') key = u.searchParams.get('token') ?? /\/send\/([A-Za-z0-9]{4,200})$/.exec(u.pathname)?.[1] ?? null;
  if (!key || !/^[A-Za-z0-9._~-]{4,512}$/.test(key)) return { ok: false, reason: `no ${kind} key in that address` };
  return { ok: true, key, ...keep };
}

/** The secret fields a channel needs to send; the missing ones by name. */
export function missingSecrets(c: NotifyChannel, s: ChannelSecret): ('key' | 'sign' | 'password')[] {
  const out: ('key' | 'sign' | 'password')[] = [];
  if (c.kind !== 'email' && !s.key) out.push('key');
  if (c.signed && !s.sign) out.push('sign');
  if (c.kind === 'email' && c.smtp?.user && !s.password) out.push('password');
  return out;
}

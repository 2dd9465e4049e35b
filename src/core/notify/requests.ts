// Each channel's request, exactly as its documentation writes it (sources beside the fixtures in
// test/fixtures/notify/SOURCES.md), and the check of its reply. Pure: the HMAC comes in as a
// function (node:crypto in app/, hashlib on the box), the clock as a number.
import { DEFAULT_BASE, FEISHU_TEXT_MAX_BYTES, OTHER_TEXT_MAX_BYTES, SERVERCHAN_DESP_MAX_BYTES, SERVERCHAN_TITLE_MAX, WECOM_TEXT_MAX_BYTES, type ChannelKind, type ChannelSecret, type NotifyChannel } from './channels';
import type { NotifyLang, NotifyMessage } from './events';
import { inertMarkdownLine, truncateUtf8 } from './inert';

/** base64(HMAC-SHA256(key, message)), both UTF-8. */
export type HmacBase64 = (key: string, message: string) => string;

export interface HttpSend {
  url: string;
  headers: Record<string, string>;
  /** JSON text. */
  body: string;
}

/** What a cut text ends with, so the reader knows there was more. */
export const CUT_MARK: Record<NotifyLang, string> = { en: '\n…(cut)', 'zh-cn': '\n…（已截断）' };

/** The message as plain text: title, then one line each. */
export function plainText(m: NotifyMessage): string {
  return [m.title, ...m.lines].join('\n');
}

/**
 * 钉钉's signature: `timestamp` in milliseconds, `sign` = base64(HmacSHA256(key = secret,
 * message = timestamp + "\n" + secret)), URL-encoded into the query after the access_token.
 */
export function dingtalkSign(timestampMs: number, secret: string, hmac: HmacBase64): { timestamp: string; sign: string } {
  const timestamp = String(Math.floor(timestampMs));
  return { timestamp, sign: hmac(secret, `${timestamp}\n${secret}`) };
}

/**
 * 飞书's signature: `timestamp` in seconds, `sign` = base64(HmacSHA256(key = timestamp + "\n" +
 * secret, message = "")), both in the JSON body: key and message the other way round from 钉钉.
 */
export function feishuSign(timestampSeconds: number, secret: string, hmac: HmacBase64): { timestamp: string; sign: string } {
  const timestamp = String(Math.floor(timestampSeconds));
  return { timestamp, sign: hmac(`${timestamp}\n${secret}`, '') };
}

/** Server酱: an `sctp<uid>t…` key (SC3) goes to its own host; any other to sctapi. */
export function serverchanUrl(key: string, base: string | undefined): string {
  if (base) return `${base}/${encodeURIComponent(key)}.send`;
  const sc3 = /^sctp(\d{1,12})t/.exec(key);
  return sc3 ? `https://${sc3[1]}.push.ft07.com/send/${encodeURIComponent(key)}.send` : `${DEFAULT_BASE.serverchan}/${encodeURIComponent(key)}.send`;
}

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' };

export interface BuildOptions {
  lang: NotifyLang;
  nowMs: number;
  hmac: HmacBase64;
  /** Extra fields of a generic webhook's JSON (the event's kind, id, task, figures). */
  webhookFields?: Record<string, unknown>;
  /** Bytes kept free in a capped text for slot values the box fills in (box.ts). */
  reserveBytes?: number;
}

/** The HTTP request for one message on one (non-email) channel. */
export function buildRequest(ch: NotifyChannel, secret: ChannelSecret, msg: NotifyMessage, o: BuildOptions): HttpSend {
  const key = secret.key ?? '';
  const base = (k: Exclude<ChannelKind, 'email' | 'webhook'>) => ch.base ?? DEFAULT_BASE[k];
  const mark = CUT_MARK[o.lang];
  const reserve = o.reserveBytes ?? 0;
  const text = (max: number) => truncateUtf8(plainText(msg), max - reserve, mark).text;
  switch (ch.kind) {
    case 'wecom':
      return { url: `${base('wecom')}/cgi-bin/webhook/send?key=${encodeURIComponent(key)}`, headers: JSON_HEADERS, body: JSON.stringify({ msgtype: 'text', text: { content: text(WECOM_TEXT_MAX_BYTES) } }) };
    case 'dingtalk': {
      let url = `${base('dingtalk')}/robot/send?access_token=${encodeURIComponent(key)}`;
      if (ch.signed && secret.sign) {
        const s = dingtalkSign(o.nowMs, secret.sign, o.hmac);
        url += `&timestamp=${s.timestamp}&sign=${encodeURIComponent(s.sign)}`;
      }
      return { url, headers: JSON_HEADERS, body: JSON.stringify({ msgtype: 'text', text: { content: text(OTHER_TEXT_MAX_BYTES) } }) };
    }
    case 'feishu': {
      const signed = ch.signed && secret.sign ? feishuSign(o.nowMs / 1000, secret.sign, o.hmac) : undefined;
      return { url: `${base('feishu')}/open-apis/bot/v2/hook/${encodeURIComponent(key)}`, headers: JSON_HEADERS, body: JSON.stringify({ ...(signed ?? {}), msg_type: 'text', content: { text: text(FEISHU_TEXT_MAX_BYTES) } }) };
    }
    case 'serverchan': {
      // desp is Markdown: every line escaped, one paragraph each.
      const desp = truncateUtf8(msg.lines.map((l) => inertMarkdownLine(l, 600)).join('\n\n'), SERVERCHAN_DESP_MAX_BYTES - reserve, mark).text;
      const title = Array.from(msg.title).length > SERVERCHAN_TITLE_MAX ? `${Array.from(msg.title).slice(0, SERVERCHAN_TITLE_MAX - 1).join('')}…` : msg.title;
      return { url: serverchanUrl(key, ch.base), headers: JSON_HEADERS, body: JSON.stringify({ title, desp }) };
    }
    case 'pushplus':
      // template txt: shown as plain text (the default, html, would render markup).
      return { url: `${base('pushplus')}/send`, headers: JSON_HEADERS, body: JSON.stringify({ token: key, title: msg.title, content: truncateUtf8(msg.lines.join('\n'), OTHER_TEXT_MAX_BYTES - reserve, mark).text, template: 'txt' }) };
    case 'webhook':
      return { url: key, headers: JSON_HEADERS, body: JSON.stringify({ source: 'gpu-rent', ...(o.webhookFields ?? {}), title: msg.title, lines: msg.lines, text: text(OTHER_TEXT_MAX_BYTES), urgent: msg.urgent, lang: o.lang }) };
    case 'email':
      throw new Error('email is sent over SMTP, not HTTP');
  }
}

export interface EmailSend {
  from: string;
  to: string[];
  subject: string;
  /** Plain text only: no HTML part, so nothing renders. */
  text: string;
}

export function buildEmail(ch: NotifyChannel, msg: NotifyMessage, lang: NotifyLang): EmailSend {
  if (!ch.smtp) throw new Error('email needs its SMTP settings');
  return { from: ch.smtp.from, to: ch.smtp.to, subject: msg.title.replace(/[\r\n]+/g, ' '), text: truncateUtf8(msg.lines.join('\n'), OTHER_TEXT_MAX_BYTES, CUT_MARK[lang]).text + '\n' };
}

export type ReplyVerdict = { ok: true; id?: string } | { ok: false; code: string; message: string };

// Documented codes worth a hint (sources in test/fixtures/notify/SOURCES.md).
const HINTS: Partial<Record<ChannelKind, Record<string, string>>> = {
  wecom: { '45009': 'over 20 messages a minute: the robot refused it' },
  feishu: { '19021': 'the signature does not match (a wrong signing secret, or the clock is more than an hour off)', '19022': 'this IP is not on the robot\'s allow list', '19024': 'the robot\'s keyword is not in the message' },
  pushplus: { '903': 'the token is not valid', '900': 'the account is restricted (too many requests)', '905': 'the account has no real-name verification', '888': 'not enough points' },
};

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^-?\d{1,12}$/.test(v) ? Number(v) : undefined;
}
/** A channel's own words, bounded and without control characters (a reply is shown on terminals and in toasts). */
function str(v: unknown, max = 200): string {
  return typeof v === 'string' ? v.slice(0, max).replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, ' ') : '';
}

/** Whether the channel took the message: its documented success code, else why not. */
export function replyVerdict(kind: ChannelKind, status: number, json: unknown): ReplyVerdict {
  const o = (typeof json === 'object' && json !== null && !Array.isArray(json) ? json : {}) as Record<string, unknown>;
  const fail = (code: number | undefined, said: string): ReplyVerdict => {
    const hint = code !== undefined ? HINTS[kind]?.[String(code)] : undefined;
    return { ok: false, code: code !== undefined ? `${kind}-${code}` : 'bad-reply', message: [hint, said && `the channel said: ${said}`].filter(Boolean).join('; ') || 'the reply says it failed' };
  };
  if (kind === 'webhook') return status >= 200 && status < 300 ? { ok: true } : { ok: false, code: `http-${status}`, message: `the webhook answered HTTP ${status}` };
  if (status < 200 || status >= 300) {
    const code = num(o.errcode) ?? num(o.code) ?? num(o.StatusCode);
    return code !== undefined && code !== 0 ? fail(code, str(o.errmsg) || str(o.msg) || str(o.message) || str(o.StatusMessage)) : { ok: false, code: `http-${status}`, message: `the channel answered HTTP ${status}` };
  }
  switch (kind) {
    case 'wecom':
    case 'dingtalk': {
      const c = num(o.errcode);
      return c === 0 ? { ok: true } : fail(c, str(o.errmsg));
    }
    case 'feishu': {
      const c = num(o.code) ?? num(o.StatusCode);
      return c === 0 ? { ok: true } : fail(c, str(o.msg) || str(o.StatusMessage));
    }
    case 'serverchan': {
      const c = num(o.code);
      const data = (o.data ?? {}) as Record<string, unknown>;
      return c === 0 ? { ok: true, ...(typeof data.pushid === 'string' || typeof data.pushid === 'number' ? { id: String(data.pushid).slice(0, 80) } : {}) } : fail(c, str(o.message) || str(o.info));
    }
    case 'pushplus': {
      // 200 means accepted (a message id), not delivered: PushPlus sends asynchronously.
      const c = num(o.code);
      return c === 200 ? { ok: true, ...(typeof o.data === 'string' ? { id: o.data.slice(0, 80) } : {}) } : fail(c, str(o.msg));
    }
    case 'email':
      return { ok: true };
  }
}

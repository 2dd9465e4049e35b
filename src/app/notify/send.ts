// Sending a message from the laptop (or any Node host): each channel's documented request
// (core/notify/requests.ts) through the platforms' bounded HTTP exchange (a capped reply, no
// redirect off the channel's origin, a timeout), the channel's reply checked, email over SMTP by
// nodemailer, plain text only. An event goes to each channel once: the sent journal is read
// before and written after (core/notify/journal.ts), and the 20-a-minute robots wait their turn.
import { operationSignal } from '../../remote/util/deadline';
import { createHmac } from 'node:crypto';
import { RATE_RULES, isLoopback, missingSecrets, type ChannelSecret, type NotifyChannel } from '../../core/notify/channels';
import { eventMessage, type NotifyEvent, type NotifyLang, type NotifyMessage } from '../../core/notify/events';
import { rateWait, wasSent, type SentBy } from '../../core/notify/journal';
import { buildEmail, buildRequest, replyVerdict, type HmacBase64 } from '../../core/notify/requests';
import { exchange, isReplyError, replyJson } from '../platforms/http';
import { appendSent, readSent } from './journal';

export const SEND_TIMEOUT_MS = 15_000;
/** No channel's reply comes near this. */
export const MAX_NOTIFY_REPLY_BYTES = 64 * 1024;
/** The longest a send waits for a rate window (企业微信/钉钉: one minute). */
export const MAX_RATE_WAIT_SECONDS = 65;

export const hmacBase64: HmacBase64 = (key, message) => createHmac('sha256', Buffer.from(key, 'utf8')).update(Buffer.from(message, 'utf8')).digest('base64');

export type NotifyErrorCode = 'missing-secret' | 'refused' | 'unreachable' | 'timeout' | 'bad-reply' | 'rate-limited' | 'smtp';

/** A send that did not go; its message never holds the URL (it carries the key) or a secret. */
export class NotifyError extends Error {
  constructor(
    readonly code: NotifyErrorCode | string,
    message: string,
    readonly channel: string,
  ) {
    super(message);
    this.name = 'NotifyError';
  }
}

export interface SendOptions {
  lang: NotifyLang;
  timeoutMs?: number;
  nowMs?: () => number;
  /** The event's fields a generic webhook gets besides the text. */
  webhookFields?: Record<string, unknown>;
  signal?: AbortSignal;
}

/** Sends one message to one channel; resolves with the channel's message id where it gives one. */
export async function sendMessage(ch: NotifyChannel, secret: ChannelSecret, msg: NotifyMessage, o: SendOptions): Promise<{ id?: string }> {
  const missing = missingSecrets(ch, secret);
  if (missing.length) throw new NotifyError('missing-secret', `${ch.name} has no ${missing.join(' or ')} stored: add the channel again`, ch.name);
  const timeoutMs = o.timeoutMs ?? SEND_TIMEOUT_MS;
  if (ch.kind === 'email') return sendEmail(ch, secret, msg, o.lang, timeoutMs);
  const req = buildRequest(ch, secret, msg, { lang: o.lang, nowMs: (o.nowMs ?? Date.now)(), hmac: hmacBase64, webhookFields: o.webhookFields });
  // A timer-held deadline: Node 20's AbortSignal.any can lose an AbortSignal.timeout to the GC (remote/util/deadline.ts).
  const signal = operationSignal(timeoutMs, o.signal)!;
  let reply;
  try {
    reply = await exchange(new URL(req.url), { method: 'POST', headers: { ...req.headers, 'User-Agent': 'gpu-rent' }, body: req.body, signal, maxBytes: MAX_NOTIFY_REPLY_BYTES });
  } catch (e) {
    if (isReplyError(e)) throw new NotifyError('bad-reply', `${ch.name}: ${e.message}`, ch.name);
    const timedOut = signal.aborted || (e as { name?: string }).name === 'TimeoutError';
    const code = (e as { code?: unknown }).code;
    throw new NotifyError(timedOut ? 'timeout' : 'unreachable', timedOut ? `${ch.name} did not answer within ${Math.round(timeoutMs / 1000)} s` : `${ch.name} could not be reached${typeof code === 'string' ? ` (${code})` : ''}`, ch.name);
  }
  const parsed = reply.body.length ? replyJson(reply.body) : { ok: true as const, value: {} };
  const v = replyVerdict(ch.kind, reply.status, parsed.ok ? parsed.value : {});
  if (!v.ok) throw new NotifyError(v.code, `${ch.name} (${ch.kind}) refused the message: ${v.message}`, ch.name);
  return v.id ? { id: v.id } : {};
}

async function sendEmail(ch: NotifyChannel, secret: ChannelSecret, msg: NotifyMessage, lang: NotifyLang, timeoutMs: number): Promise<{ id?: string }> {
  const smtp = ch.smtp!;
  const mail = buildEmail(ch, msg, lang);
  const nodemailer = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    // STARTTLS is required off loopback: a password never crosses the network in clear.
    requireTLS: !smtp.secure && !isLoopback(smtp.host),
    ignoreTLS: !smtp.secure && isLoopback(smtp.host),
    ...(smtp.user ? { auth: { user: smtp.user, pass: secret.password ?? '' } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  try {
    const info = await transport.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text });
    const rejected = (info.rejected ?? []).length;
    if (rejected) throw new NotifyError('smtp', `${ch.name}: the SMTP server refused ${rejected} of ${mail.to.length} recipients`, ch.name);
    return typeof info.messageId === 'string' ? { id: info.messageId.slice(0, 200) } : {};
  } catch (e) {
    if (e instanceof NotifyError) throw e;
    const err = e as { code?: string; responseCode?: number; message?: string };
    throw new NotifyError('smtp', `${ch.name}: the SMTP server did not take the message (${err.code ?? 'error'}${err.responseCode ? ` ${err.responseCode}` : ''})`, ch.name);
  } finally {
    transport.close();
  }
}

export interface EventSend {
  channel: NotifyChannel;
  secret: ChannelSecret;
}

export type EventResult = { channel: string; status: 'sent'; id?: string } | { channel: string; status: 'skipped'; by: SentBy; at: number } | { channel: string; status: 'failed'; code: string; message: string };

export interface NotifyOptions {
  /** The sent journal (a local file): an (event, channel) already there is skipped; a send is recorded. */
  journal?: string;
  /** Who writes the journal line. */
  by?: SentBy;
  lang: NotifyLang;
  timeoutMs?: number;
  nowMs?: () => number;
  /** How a rate wait is spent (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Sends one event to each channel once. A channel the journal shows as sent is skipped; a robot
 * at its 20-a-minute limit is waited for (at most a minute) or the send fails as rate-limited.
 * Failures are returned per channel, never thrown: one dead channel does not silence the others.
 */
export async function notifyEvent(eventId: string, ev: NotifyEvent, sends: readonly EventSend[], o: NotifyOptions): Promise<EventResult[]> {
  const now = o.nowMs ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const results: EventResult[] = [];
  for (const { channel, secret } of sends) {
    const lang = channel.lang ?? o.lang;
    const entries = o.journal ? await readSent(o.journal) : [];
    const done = wasSent(entries, eventId, channel.name);
    if (done) {
      results.push({ channel: channel.name, status: 'skipped', by: done.by, at: done.at });
      continue;
    }
    const wait = rateWait(entries, channel.name, now() / 1000, RATE_RULES[channel.kind]);
    if (wait > MAX_RATE_WAIT_SECONDS) {
      results.push({ channel: channel.name, status: 'failed', code: 'rate-limited', message: `${channel.name} is at its limit of ${RATE_RULES[channel.kind]?.max} messages a minute` });
      continue;
    }
    if (wait > 0) await sleep(wait * 1000);
    try {
      const r = await sendMessage(channel, secret, eventMessage(ev, lang), { lang, timeoutMs: o.timeoutMs, nowMs: now, webhookFields: { event: ev.kind, id: eventId, task: ev.task } });
      if (o.journal) await appendSent(o.journal, { id: eventId, channel: channel.name, at: Math.floor(now() / 1000), by: o.by ?? 'laptop' });
      results.push({ channel: channel.name, status: 'sent', ...(r.id ? { id: r.id } : {}) });
    } catch (e) {
      results.push({ channel: channel.name, status: 'failed', code: e instanceof NotifyError ? e.code : 'failed', message: e instanceof Error ? e.message : String(e) });
    }
  }
  return results;
}

// Every platform reply is read through here, the AutoDL connector's own requests and the
// 阿里云/腾讯云 SDKs' (see sdks.ts and tencent.ts): at most MAX_REPLY_BYTES (a Content-Length
// over it is refused before a byte is read; past it the request is aborted), gzip/deflate
// decoded with both the encoded and the decoded bytes capped, redirects followed only within
// the endpoint's own origin (a redirect elsewhere is an error, nothing is sent there), and the
// JSON depth-checked before JSON.parse.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline, Transform, type Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { parseBoundedJson, type BoundedJson } from '../../core/platforms/json';

/** No documented reply comes near this (a page of 100 instances is ~200 KB). */
export const MAX_REPLY_BYTES = 8 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export type ReplyProblem = 'ReplyTooLarge' | 'RedirectRefused' | 'ReplyTooDeep' | 'ReplyEncoding' | 'ReplyCut';

/**
 * A reply refused for its size, shape or destination. Recognised by its name, not by
 * instanceof: the CLI's SDK bundle (dist/platform-sdks.js) carries a copy of this module.
 */
export class ReplyError extends Error {
  override readonly name = 'PlatformReplyError';
  constructor(
    readonly code: ReplyProblem,
    message: string,
  ) {
    super(message);
  }
}

export function isReplyError(e: unknown): e is { name: 'PlatformReplyError'; code: ReplyProblem; message: string } {
  return !!e && typeof e === 'object' && (e as { name?: unknown }).name === 'PlatformReplyError' && typeof (e as { code?: unknown }).code === 'string';
}

const mib = (n: number) => `${Math.round(n / (1024 * 1024))} MiB`;
export const tooLarge = (max: number): ReplyError => new ReplyError('ReplyTooLarge', `the reply is over ${mib(max)}: refused, the request was aborted`);
export const tooDeep = (): ReplyError => new ReplyError('ReplyTooDeep', 'the reply nests deeper than any platform reply: refused');

/** Reads a stream into one Buffer of at most `max` bytes; past it the stream is destroyed and the promise rejects. */
export function readCapped(stream: Readable, max = MAX_REPLY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (e?: Error) => {
      if (done) return;
      done = true;
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (e) {
        stream.destroy();
        reject(e);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onData = (c: Buffer | string) => {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      size += b.length;
      if (size > max) finish(tooLarge(max));
      else chunks.push(b);
    };
    const onEnd = () => finish();
    const onError = (e: Error) => finish(e);
    const onClose = () => finish(new ReplyError('ReplyCut', 'the reply was cut off before its end'));
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}

/** A pass-through that fails once more than `max` bytes went through it. */
function byteCap(max: number): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (size > max) cb(tooLarge(max));
      else cb(null, chunk);
    },
  });
}

/** Decodes a body the server compressed, with the encoded bytes capped too (endless empty gzip blocks decode to nothing). */
export function decoded(res: Readable, encoding: string | undefined, max = MAX_REPLY_BYTES): Readable {
  const enc = (encoding ?? '').trim().toLowerCase();
  if (enc === '' || enc === 'identity') return res;
  const z = enc === 'gzip' || enc === 'x-gzip' ? createGunzip() : enc === 'deflate' ? createInflate() : undefined;
  if (!z) throw new ReplyError('ReplyEncoding', `the reply is encoded as ${enc.slice(0, 40)}, which is not read`);
  return pipeline(res, byteCap(max), z, () => undefined);
}

/** The body as JSON: depth-checked, then parsed. */
export function replyJson(body: Buffer | string): BoundedJson {
  return parseBoundedJson(typeof body === 'string' ? body : body.toString('utf8'));
}

export interface Exchange {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  maxBytes?: number;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One HTTP exchange over node:http(s). A redirect is followed only to the same origin (GETs
 * always, POSTs only for 307/308, which keep the method and body), at most a few times; a
 * redirect to another origin is an error naming it, and nothing is sent there.
 */
export async function exchange(url: URL, init: Exchange): Promise<Reply> {
  let u = url;
  for (let hop = 0; ; hop++) {
    const r = await once(u, init);
    if (r.location === undefined) return r;
    let next: URL;
    try {
      next = new URL(r.location, u);
    } catch {
      throw new ReplyError('RedirectRefused', `${u.origin} answered HTTP ${r.status} with an unreadable Location: not followed`);
    }
    if (next.origin !== url.origin) throw new ReplyError('RedirectRefused', `${url.origin} redirected (HTTP ${r.status}) to another origin, ${next.origin.slice(0, 200)}: not followed, nothing was sent there`);
    if (init.method === 'POST' && r.status !== 307 && r.status !== 308) throw new ReplyError('RedirectRefused', `${url.origin} answered a POST with HTTP ${r.status}: not followed`);
    if (hop >= MAX_REDIRECTS) throw new ReplyError('RedirectRefused', `${url.origin} redirected more than ${MAX_REDIRECTS} times: not followed`);
    u = next;
  }
}

function once(u: URL, init: Exchange): Promise<Reply & { location?: string }> {
  const max = init.maxBytes ?? MAX_REPLY_BYTES;
  const { signal } = init;
  const failed = (e: unknown) => (signal.aborted && !isReplyError(e) ? (signal.reason ?? e) : e);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...init.headers, 'Accept-Encoding': 'gzip, deflate' };
    if (init.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(init.body));
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, { method: init.method, headers, signal }, (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && typeof location === 'string') {
        res.destroy();
        resolve({ status, headers: res.headers, body: Buffer.alloc(0), location });
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > max) {
        res.destroy();
        reject(tooLarge(max));
        return;
      }
      let body: Readable;
      try {
        body = decoded(res, res.headers['content-encoding'], max);
      } catch (e) {
        res.destroy();
        reject(e as Error);
        return;
      }
      readCapped(body, max).then(
        (b) => resolve({ status, headers: res.headers, body: b }),
        (e: unknown) => {
          res.destroy();
          reject(failed(e));
        },
      );
    });
    req.on('error', (e) => reject(failed(e)));
    req.end(init.body);
  });
}

// A local HTTP server that answers like each message channel and checks what its documentation
// asks of a request (test/fixtures/notify/SOURCES.md): the path and key, the JSON body's fields,
// 企业微信's 2048-byte text and 20-a-minute limit, 钉钉's signature in the query and 飞书's in
// the body, each recomputed here from the secret the way the channel's doc does it. A request
// that breaks a rule gets the channel's documented error; every request is recorded.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import replies from '../fixtures/notify/replies.json';

export interface StubRequest {
  channel: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, unknown>;
  raw: string;
  problems: string[];
}

export interface NotifyStub {
  base: string;
  requests: StubRequest[];
  /** What the next requests get instead (a status and body), e.g. a redirect or an error. */
  override?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** The stub's clock in ms (企业微信's minute window, the signatures' hour); a test may move it. */
  now: () => number;
  close(): Promise<void>;
}

export interface StubKeys {
  wecomKey?: string;
  dingtalkToken?: string;
  dingtalkSecret?: string;
  feishuHook?: string;
  feishuSecret?: string;
  serverchanKey?: string;
  pushplusToken?: string;
}

const b64hmac = (key: string, msg: string) => createHmac('sha256', Buffer.from(key, 'utf8')).update(Buffer.from(msg, 'utf8')).digest('base64');

export async function startNotifyStub(keys: StubKeys): Promise<NotifyStub> {
  const requests: StubRequest[] = [];
  const wecomTimes: number[] = [];
  const stub: NotifyStub = { base: '', requests, now: () => Date.now(), close: () => new Promise((r) => server.close(() => r())) };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (stub.override?.(req, res)) return;
      const raw = Buffer.concat(chunks).toString('utf8');
      const u = new URL(req.url ?? '/', 'http://stub');
      const query = Object.fromEntries(u.searchParams.entries());
      let body: Record<string, unknown> = {};
      const problems: string[] = [];
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        problems.push('body is not JSON');
      }
      if (req.method !== 'POST') problems.push(`method ${req.method}`);
      if (!/^application\/json/.test(String(req.headers['content-type']))) problems.push('content-type is not JSON');
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      const record = (channel: string) => requests.push({ channel, path: u.pathname, query, body, raw, problems });
      const text = (body.text ?? {}) as { content?: unknown };
      if (u.pathname === '/cgi-bin/webhook/send') {
        record('wecom');
        if (query.key !== keys.wecomKey) problems.push('wrong key');
        if (body.msgtype !== 'text' || typeof text.content !== 'string') problems.push('not a text message');
        else if (Buffer.byteLength(text.content) > 2048) problems.push('text over 2048 bytes');
        const now = stub.now();
        while (wecomTimes.length && wecomTimes[0]! <= now - 60_000) wecomTimes.shift();
        if (wecomTimes.length >= 20) return send(200, replies.wecom.rate);
        wecomTimes.push(now);
        return send(200, problems.length ? { errcode: 40000 + problems.length, errmsg: problems.join('; ') } : replies.wecom.ok);
      }
      if (u.pathname === '/robot/send') {
        record('dingtalk');
        if (query.access_token !== keys.dingtalkToken) problems.push('wrong access_token');
        if (body.msgtype !== 'text' || typeof text.content !== 'string') problems.push('not a text message');
        if (keys.dingtalkSecret) {
          const ts = query.timestamp ?? '';
          // The query's sign arrives URL-decoded by URLSearchParams: compare with the raw base64.
          const want = b64hmac(keys.dingtalkSecret, `${ts}\n${keys.dingtalkSecret}`);
          if (!/^\d{13}$/.test(ts) || Math.abs(stub.now() - Number(ts)) > 3600_000) problems.push('timestamp not within an hour (ms)');
          if (query.sign !== want) problems.push('sign not match');
          if (!/[?&]sign=[A-Za-z0-9%]+(&|$)/.test(req.url ?? '') || /[?&]sign=[^&]*[+/=]/.test(req.url ?? '')) problems.push('sign not URL-encoded');
        }
        return send(200, problems.length ? { errcode: 310000, errmsg: problems.join('; ') } : replies.dingtalk.ok);
      }
      const feishu = /^\/open-apis\/bot\/v2\/hook\/([^/]+)$/.exec(u.pathname);
      if (feishu) {
        record('feishu');
        if (feishu[1] !== keys.feishuHook) problems.push('wrong hook');
        const content = (body.content ?? {}) as { text?: unknown };
        if (body.msg_type !== 'text' || typeof content.text !== 'string') problems.push('not a text message');
        if (keys.feishuSecret) {
          const ts = String(body.timestamp ?? '');
          const want = b64hmac(`${ts}\n${keys.feishuSecret}`, '');
          if (!/^\d{10}$/.test(ts) || Math.abs(stub.now() / 1000 - Number(ts)) > 3600 || body.sign !== want) {
            problems.push('sign');
            return send(200, replies.feishu.badSign);
          }
        }
        return send(200, problems.length ? { code: 9499, msg: problems.join('; ') } : replies.feishu.ok);
      }
      const sc = /^\/([A-Za-z0-9_-]+)\.send$/.exec(u.pathname);
      if (sc) {
        record('serverchan');
        if (sc[1] !== keys.serverchanKey) problems.push('wrong SendKey');
        if (typeof body.title !== 'string' || Array.from(body.title).length > 32) problems.push('title missing or over 32 characters');
        if (typeof body.desp !== 'string') problems.push('no desp');
        return send(200, problems.length ? { code: 40001, message: problems.join('; ') } : replies.serverchan.ok);
      }
      if (u.pathname === '/send') {
        record('pushplus');
        if (body.token !== keys.pushplusToken) return send(200, replies.pushplus.badToken);
        if (typeof body.content !== 'string' || body.template !== 'txt') problems.push('content or template');
        return send(200, problems.length ? { code: 999, msg: problems.join('; ') } : replies.pushplus.ok);
      }
      if (u.pathname.startsWith('/hook')) {
        record('webhook');
        res.writeHead(problems.length ? 400 : 204);
        return res.end();
      }
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  stub.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}

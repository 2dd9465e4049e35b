// A local instance-metadata server for spot reclaim notices, as the clouds document them:
// 阿里云 (100.100.100.200): `PUT /latest/api/token` with `X-aliyun-ecs-metadata-token-ttl-seconds`
// (1-21600) gives a token; reads send it as `X-aliyun-ecs-metadata-token`; an instance set to
// require it answers a read without one 403 (alibabacloud.com/help/en/ecs/user-guide/view-instance-metadata).
// `instance/spot/termination-time` is 404 until a reclaim, then an ISO UTC time. 腾讯云
// (metadata.tencentyun.com): `/latest/meta-data/spot/termination-time`, 404 until a reclaim,
// then "2018-08-18 12:05:33" in UTC+8 (intl.cloud.tencent.com/document/product/213/32487).
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class MetadataServer {
  /** 阿里云: reads without a token are refused (403), as with HttpTokens=required. */
  requireToken = true;
  /** 阿里云: no token endpoint (an older or normal-mode-only service: 404 on the PUT). */
  noTokenEndpoint = false;
  /** The announced times (undefined: 404). */
  aliyun: string | undefined;
  tencent: string | undefined;
  readonly hits: { method: string; path: string; token: boolean }[] = [];
  private readonly tokens = new Set<string>();
  private server: Server | undefined;
  host = '';

  static async start(): Promise<MetadataServer> {
    const m = new MetadataServer();
    m.server = createServer((req, res) => {
      const path = req.url ?? '/';
      const token = req.headers['x-aliyun-ecs-metadata-token'];
      m.hits.push({ method: req.method ?? '', path, token: typeof token === 'string' });
      const send = (status: number, body: string) => {
        res.statusCode = status;
        res.end(body);
      };
      if (path === '/latest/api/token') {
        const ttl = Number(req.headers['x-aliyun-ecs-metadata-token-ttl-seconds']);
        if (m.noTokenEndpoint || req.method !== 'PUT') return send(404, 'Not Found');
        if (!(ttl >= 1 && ttl <= 21600)) return send(400, 'Bad Request');
        const t = randomBytes(16).toString('base64url');
        m.tokens.add(t);
        return send(200, t);
      }
      if (path === '/latest/meta-data/instance/spot/termination-time') {
        if (m.requireToken && !(typeof token === 'string' && m.tokens.has(token))) return send(403, 'Forbidden');
        return m.aliyun !== undefined ? send(200, m.aliyun) : send(404, 'Not Found');
      }
      if (path === '/latest/meta-data/spot/termination-time') return m.tencent !== undefined ? send(200, m.tencent) : send(404, 'Not Found');
      send(404, 'Not Found');
    });
    await new Promise<void>((r) => m.server!.listen(0, '127.0.0.1', r));
    m.host = `127.0.0.1:${(m.server.address() as AddressInfo).port}`;
    return m;
  }

  close(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

// A local stand-in for the four platform APIs, on 127.0.0.1, built from the response shapes in
// test/fixtures/platforms/ (see SOURCES.md there: shapes, not captured traffic). It keeps
// instances whose state moves over time (starting → running, stopping → stopped), checks each
// request's credentials (AutoDL's bare Authorization token, 阿里云's ACS3 Credential=<AccessKeyId>,
// 腾讯云's TC3 Credential=<SecretId>/…), pages lists, and injects one-shot faults (AuthorizeFailed,
// 429, 5xx, 余额不足, 库存不足). Every request is recorded so tests can see what was sent.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export type FakePlatform = 'autodl-pro' | 'autodl-web' | 'aliyun' | 'tencent';

export interface FakeInstance {
  platform: FakePlatform;
  id: string;
  name: string;
  /** The platform's own state word. */
  state: string;
  startMode?: 'gpu' | 'non_gpu';
  stoppedMode?: string;
  sshPort: number;
  password: string;
  /** Where the state goes, and when (epoch ms). */
  pending?: { state: string; at: number; startMode?: 'gpu' | 'non_gpu' };
  /** The GPU name the platform reports (AutoDL snapshot_gpu_alias_name, 阿里云 GPUSpec, 腾讯云 GPUInfo.GPUType); the fixture's when unset. */
  gpuName?: string;
  /** AutoDL: the row's gpu_spec_uuid (the documented example's when unset). */
  specId?: string;
  /** AutoDL: payg_price in ¥/1000 per hour (the documented example's when unset). */
  priceLi?: number;
  /** AutoDL: the platform's stop time (ISO), sent as stopped_at while shut down; set by power_off. */
  stoppedAt?: string;
  /** AutoDL console: release_at as the console sends it ("2026-04-08 10:00:00"). */
  releaseAt?: string;
  /** AutoDL (Pro and console rows): a timed shutdown armed in the console (ISO), sent as the row's timed_shutdown_at {Time, Valid}; the console's timed/shutdown request sets it. */
  timedShutdownAt?: string;
  /** 阿里云: AutoReleaseTime as DescribeInstances sends it (UTC, "2026-12-05T17:00Z"). */
  autoReleaseTime?: string;
  /** Keeps its port and password over a power cycle (a test whose box is the one loopback sshd). */
  keepLogin?: boolean;
  /** AutoDL: the host has no free GPU, a GPU start is refused (该主机空闲GPU不足). */
  noFreeGpu?: boolean;
  /** AutoDL Pro: the snapshot answers with no data. */
  noSnapshot?: boolean;
  /** 阿里云/腾讯云: economical mode is not applied to this instance (it stops in keep-charging mode whatever is asked). */
  noStopCharging?: boolean;
  /** 阿里云/腾讯云: the region it lives in (the fixture row's when unset: cn-hangzhou, ap-guangzhou); listed only there. */
  region?: string;
  /** 阿里云/腾讯云: InstanceChargeType (PostPaid/PrePaid, POSTPAID_BY_HOUR/PREPAID/SPOTPAID); the fixture row's when unset. */
  chargeType?: string;
  /** 阿里云: SpotStrategy (NoSpot, SpotAsPriceGo, SpotWithPriceLimit); the fixture row's when unset. */
  spotStrategy?: string;
  /** 阿里云/腾讯云: the ClientToken it was created with (the same token gets the same instance). */
  clientToken?: string;
  /** AutoDL Pro: the user in the snapshot's ssh_command (root when unset; a loopback sshd's test user for a created instance). */
  sshUser?: string;
  /** AutoDL console (clone): the host, region sign, GPUs and data-disk expansion (bytes) its row and detail send, when set. */
  machineId?: string;
  regionSign?: string;
  gpus?: number;
  dataDiskBytes?: number;
}

/**
 * A hostile platform: `endless` streams a reply that never ends, `huge` declares and streams
 * 1.5 GB, `hugeChunked` streams 1.5 GB without a length, `deep` answers 4 MB of nested
 * brackets, `redirect` answers 307 to `redirectTo` (another origin).
 */
export type HostileMode = 'endless' | 'huge' | 'hugeChunked' | 'deep' | 'redirect';

export interface Hostile {
  platform: FakePlatform;
  mode: HostileMode;
  redirectTo?: string;
}

export interface RecordedRequest {
  platform: FakePlatform | 'unknown';
  method: string;
  path: string;
  query: Record<string, string>;
  body: string;
  action: string;
  authorization: string;
  /** 阿里云: the RegionId parameter; 腾讯云: the X-TC-Region header. */
  region: string;
  /** When it arrived (epoch ms): how far apart a client's calls are. */
  at: number;
}

export interface Fault {
  platform: FakePlatform;
  /** Path (AutoDL) or action name (阿里云, 腾讯云); undefined matches any. */
  on?: string;
  status?: number;
  /** A named error body from the fixtures (e.g. 'authorizeFailed', 'noStock'). */
  error: string;
  /** The platform's own message in that body instead of the fixture's (AutoDL msg, 阿里云 Message, 腾讯云 Error.Message). */
  message?: string;
  /** How many requests it answers (default 1). */
  times?: number;
}

export interface Credentials {
  autodlPro: string;
  autodlWeb: string;
  aliyunKeyId: string;
  tencentSecretId: string;
}

// Imported, not read at run time, so the in-host suite (bundled by esbuild) carries them too.
import aliBodies from '../fixtures/platforms/aliyun-bodies.json';
import aliRow from '../fixtures/platforms/aliyun-instance.json';
import autodlEnvelopes from '../fixtures/platforms/autodl-envelopes.json';
import proDoc from '../fixtures/platforms/autodl-pro-doc-examples.json';
import webRow from '../fixtures/platforms/autodl-web-list-row.json';
import webSnap from '../fixtures/platforms/autodl-web-snapshot.json';
import tcBodies from '../fixtures/platforms/tencent-bodies.json';
import tcRow from '../fixtures/platforms/tencent-instance.json';
import createBodies from '../fixtures/platforms/create-bodies.json';
import stockBodies from '../fixtures/platforms/stock-bodies.json';
import cloneShapes from '../fixtures/platforms/autodl-web-clone.json';
import elasticAppendix from '../fixtures/platforms/autodl-elastic-appendix.json';

/** AutoDL state words of a shut-down instance (SOURCES.md, "AutoDL state words"): it can be started or released, and sends its stop time. */
const AUTODL_SHUT_DOWN = new Set(['shutdown', 'power_off', 'shutdown_by_starting_error', 'shutdown_by_running_error']);

const BUNDLED: Record<string, Record<string, unknown>> = { proDoc, webRow, webSnap, autodl: autodlEnvelopes, aliRow, ali: aliBodies, tcRow, tc: tcBodies, create: createBodies };

export class PlatformServer {
  readonly requests: RecordedRequest[] = [];
  readonly instances = new Map<string, FakeInstance>();
  readonly faults: Fault[] = [];
  /** How long a transition takes. */
  transitionMs = 300;
  /** Accepts every power-off and never changes the state (a platform whose stop silently does nothing). */
  powerOffIgnored = false;
  /** AutoDL GETs: a JSON body is refused with RequestParameterIsWrong, as live clients report (false: read it). */
  refuseGetBody = true;
  /** AutoDL GETs: refuse the query form instead (to see the body fallback). */
  refuseQuery = false;
  /** Set to answer every request to that platform as it says. */
  hostile: Hostile | undefined;
  /** A list page carries this many rows more than asked (AutoDL, 阿里云, 腾讯云). */
  pageOverfill = 0;
  /** Every answer waits this long (to see how many requests a client keeps open at once). */
  replyDelayMs = 0;
  /** Requests being answered now, and the most at once since the last reset. */
  inFlight = 0;
  maxInFlight = 0;
  /** Body bytes written by the hostile modes (what reached the socket before the client gave up). */
  hostileBytesSent = 0;
  /** Creates (AutoDL Pro pro/create, 阿里云/腾讯云 RunInstances): the new instance's SSH port and password, the images the clouds know, and paths/actions whose next reply is dropped after the instance is made (a lost answer). */
  createLogin: { sshPort: number; password: string; user?: string } = { sshPort: 40022, password: 'pw-created' };
  images = { tencent: ['img-pi0ii46r'], aliyun: ['ubuntu_22_04_x64_20G_alibase_20240130.vhd'] };
  readonly loseReply = new Set<string>();
  /** The clouds' network and logins (create-bodies.json shapes): 阿里云 vSwitches (id → VPC, zone), security groups, key pairs; 腾讯云 key pairs (name → id). */
  readonly cloudNet = { aliyunVSwitches: new Map<string, { vpcId: string; zone: string }>([['vsw-test', { vpcId: 'vpc-test', zone: 'cn-hangzhou-i' }]]), aliyunGroups: new Map<string, { name: string; vpcId: string; rules: string[] }>(), aliyunKeys: new Map<string, string>(), tencentKeys: new Map<string, { id: string; key: string }>(), tencentGroups: new Map<string, { name: string; ingress: string[]; egress: string[] }>([['sg-ssh', { name: 'mine', ingress: ['TCP 22 0.0.0.0/0 ACCEPT'], egress: [] }], ['sg-1', { name: 'mine-1', ingress: [], egress: [] }]]) };
  /** AutoDL console hosts for `user/machine/list` (each the fixture's docstring row with these values); a clone takes its cards. */
  machines: Record<string, unknown>[] = [];
  /** AutoDL wallets: a `blocked_asset` beside `assets` (the field one public script's test data shows, meaning unknown), when set. */
  walletBlockedLi: number | undefined;
  /** AutoDL console: `instance/detail` sends no data_disk_expand_size (a clone then reads the list row's expand_data_disk_size). */
  detailWithoutDisk = false;
  /** AutoDL console: a clone's new instance ends clone_failed. */
  cloneFails = false;
  private createSeq = 0;
  balances = { autodlPro: 123450, autodlWeb: 88000, aliyun: '1,234.56', tencent: 98765 };
  creds: Credentials = { autodlPro: 'pro-token-0123456789', autodlWeb: 'eyJweb.console.jwt', aliyunKeyId: 'LTAI-test-key-id', tencentSecretId: 'AKID-test-secret-id' };
  private readonly shapes: Record<string, Record<string, unknown>>;
  /** Free cards (stock-bodies.json): AutoDL gpu_stock `data` per data-center code (the fixture's for a code not set; an empty success for what is no code), 阿里云/腾讯云 rows per region (the fixture's, moved into the region asked, when not set). */
  readonly stock: { autodl: Record<string, unknown>; aliyun: Record<string, unknown[]>; tencent: Record<string, unknown[]>; /** What a data-center code not in `autodl` answers (the fixture's data when unset). */ autodlOther?: unknown } = { autodl: {}, aliyun: {}, tencent: {} };
  private readonly stockShapes = structuredClone(stockBodies) as Record<string, Record<string, unknown>>;
  private server: Server | undefined;
  url = '';

  /** `fixturesDir`: read the shapes from there instead of the copies bundled in. */
  constructor(private readonly fixturesDir?: string) {
    const dir = fixturesDir;
    if (!dir) {
      this.shapes = structuredClone(BUNDLED);
      return;
    }
    const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>;
    this.shapes = {
      proDoc: read('autodl-pro-doc-examples.json'),
      webRow: read('autodl-web-list-row.json'),
      webSnap: read('autodl-web-snapshot.json'),
      autodl: read('autodl-envelopes.json'),
      aliRow: read('aliyun-instance.json'),
      ali: read('aliyun-bodies.json'),
      tcRow: read('tencent-instance.json'),
      tc: read('tencent-bodies.json'),
      create: read('create-bodies.json'),
    };
  }

  static async start(fixturesDir?: string): Promise<PlatformServer> {
    const s = new PlatformServer(fixturesDir);
    await s.listen();
    return s;
  }

  async listen(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get host(): string {
    return this.url.replace(/^http:\/\//, '');
  }

  /** Every connector pointed at this server. */
  get endpoints(): { autodlApi: string; autodlWebApi: string; aliyun: string; tencent: string } {
    return { autodlApi: this.url, autodlWebApi: this.url, aliyun: this.url, tencent: this.url };
  }

  close(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  /** Adds an instance; its row is the fixture's, with these values. */
  add(i: Omit<FakeInstance, 'sshPort' | 'password'> & Partial<Pick<FakeInstance, 'sshPort' | 'password'>>): FakeInstance {
    const inst: FakeInstance = { sshPort: 40022, password: 'pw-initial', ...i };
    this.instances.set(inst.id, inst);
    return inst;
  }

  fault(f: Fault): void {
    this.faults.push({ times: 1, ...f });
  }

  /** Requests to one platform (optionally one path/action). */
  sent(platform: FakePlatform, on?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.platform === platform && (on === undefined || r.path === on || r.action === on));
  }

  private tick(now = Date.now()): void {
    for (const i of this.instances.values()) {
      if (i.pending && i.pending.at <= now) {
        i.state = i.pending.state;
        if (i.pending.startMode) i.startMode = i.pending.startMode;
        i.pending = undefined;
        if (i.state === '__gone') this.instances.delete(i.id);
      }
    }
  }

  private move(i: FakeInstance, via: string, to: string, startMode?: 'gpu' | 'non_gpu'): void {
    // Hostile mode: the power-off is accepted (a success answer) and the instance keeps running.
    if (this.powerOffIgnored && /^(shutting_down|stopping)$/i.test(via)) return;
    i.state = via;
    i.pending = { state: to, at: Date.now() + this.transitionMs, ...(startMode ? { startMode } : {}) };
  }

  private takeFault(platform: FakePlatform, on: string): Fault | undefined {
    const f = this.faults.find((x) => x.platform === platform && (x.on === undefined || x.on === on) && (x.times ?? 1) > 0);
    if (f) f.times = (f.times ?? 1) - 1;
    return f;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    const query = Object.fromEntries(u.searchParams);
    const auth = String(req.headers.authorization ?? '');
    const acs = req.headers['x-acs-action'];
    const tc = req.headers['x-tc-action'];
    const platform: FakePlatform | 'unknown' = typeof tc === 'string' ? 'tencent' : typeof acs === 'string' ? 'aliyun' : u.pathname.startsWith('/api/v1/dev/') ? 'autodl-pro' : u.pathname.startsWith('/api/v1/') ? 'autodl-web' : 'unknown';
    const action = typeof tc === 'string' ? tc : typeof acs === 'string' ? acs : '';
    const tcRegion = req.headers['x-tc-region'];
    const region = typeof tc === 'string' ? (typeof tcRegion === 'string' ? tcRegion : '') : typeof acs === 'string' ? (query.RegionId ?? formOf(body).RegionId ?? '') : '';
    this.requests.push({ platform, method: req.method ?? '', path: u.pathname, query, body, action, authorization: auth, region, at: Date.now() });
    this.tick();
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('close', () => this.inFlight--);
    if (this.replyDelayMs > 0) await new Promise((r) => setTimeout(r, this.replyDelayMs));
    const send = (status: number, json: unknown) => {
      // A lost answer: the work is done, the connection drops before a byte of the reply.
      const key = typeof tc === 'string' || typeof acs === 'string' ? action : u.pathname;
      if (status === 200 && this.loseReply.delete(key)) return void res.destroy();
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(json));
    };
    if (this.hostile && this.hostile.platform === platform) return this.attack(this.hostile, platform, res);
    try {
      if (platform === 'autodl-pro' || platform === 'autodl-web') return this.autodl(platform, req.method ?? 'GET', u.pathname, query, body, auth, send);
      if (platform === 'aliyun') return this.aliyun(action, { ...query, ...formOf(body) }, auth, send);
      if (platform === 'tencent') return this.tencent(action, body ? (JSON.parse(body) as Record<string, unknown>) : {}, auth, send, region);
      send(404, { message: 'no such endpoint' });
    } catch (e) {
      send(500, { message: String(e) });
    }
  }

  // ---- hostile replies ----

  private attack(h: Hostile, platform: FakePlatform, res: ServerResponse): void {
    const json = { 'Content-Type': 'application/json; charset=utf-8' };
    // What a success reply starts with on that platform, so the client reads on.
    const open = platform === 'tencent' ? '{"Response":{"InstanceSet":[' : platform === 'aliyun' ? '{"RequestId":"x","Instances":{"Instance":[' : '{"code":"Success","msg":"","data":{"list":[';
    if (h.mode === 'redirect') {
      res.writeHead(307, { Location: `${h.redirectTo ?? 'http://127.0.0.1:9'}/api/v1/dev/instance/pro/list`, ...json });
      res.end('{}');
      return;
    }
    if (h.mode === 'deep') {
      const n = 2 * 1024 * 1024;
      const body = `${platform === 'tencent' ? '{"Response":' : '{"code":"Success","msg":"","data":'}${'['.repeat(n)}${']'.repeat(n)}}`;
      res.writeHead(200, { ...json, 'Content-Length': String(Buffer.byteLength(body)) });
      this.hostileBytesSent += body.length;
      res.end(body);
      return;
    }
    const total = h.mode === 'endless' ? Infinity : 1.5 * 1024 * 1024 * 1024;
    res.writeHead(200, h.mode === 'huge' ? { ...json, 'Content-Length': String(total) } : json);
    const row = Buffer.from('{"uuid":"flood","InstanceId":"i-flood","name":"flood","status":"running"},'.repeat(1000));
    let sent = 0;
    let closed = false;
    res.on('close', () => (closed = true));
    const pump = () => {
      while (!closed && sent < total) {
        const chunk = sent === 0 ? Buffer.concat([Buffer.from(open), row]) : row;
        const piece = total - sent < chunk.length ? chunk.subarray(0, total - sent) : chunk;
        sent += piece.length;
        this.hostileBytesSent += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      if (!closed) res.end();
    };
    pump();
  }

  // ---- AutoDL (both APIs) ----

  private autodl(p: 'autodl-pro' | 'autodl-web', method: string, path: string, query: Record<string, string>, body: string, auth: string, send: (s: number, j: unknown) => void): void {
    const env = this.shapes.autodl as Record<string, Record<string, unknown>>;
    // A refusal the sources name but whose wording no test needs (a fault of another name, a state that does not allow it): the code only.
    const generic = { code: 'InternalError', msg: '' };
    const ok = (data: unknown) => send(200, { ...env.success, data });
    const fail = (name: string, status = 200) => send(status, env[name] ?? generic);
    const refuse = (code: string) => send(200, { code, msg: '' });
    const token = p === 'autodl-pro' ? this.creds.autodlPro : this.creds.autodlWeb;
    if (auth !== token) return fail('authorizeFailed', p === 'autodl-pro' ? 401 : 200);
    const f = this.takeFault(p, path);
    if (f) return f.message !== undefined ? send(f.status ?? 200, { ...(env[f.error] ?? generic), msg: f.message }) : fail(f.error, f.status ?? 200);
    let params: Record<string, unknown> = {};
    if (method === 'GET' && body) {
      // Live clients: a GET's JSON body (the form the Pro page documents) is refused.
      if (this.refuseGetBody) return fail('requestParameterIsWrong');
      params = JSON.parse(body) as Record<string, unknown>;
    } else if (method === 'GET') {
      if (this.refuseQuery && Object.keys(query).length) return fail('requestParameterIsWrong');
      params = query;
    } else params = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    const pre = p === 'autodl-pro' ? '/api/v1/dev/instance/pro' : '/api/v1/instance';
    const mine = [...this.instances.values()].filter((i) => i.platform === p);
    const find = () => {
      const id = String(params.instance_uuid ?? '');
      return mine.find((i) => i.id === id);
    };
    if ((p === 'autodl-pro' && path === `${pre}/list` && method === 'POST') || (p === 'autodl-web' && path === pre && method === 'POST')) {
      const size = Math.max(1, Math.min(100, Number(params.page_size ?? 10)));
      const page = Math.max(1, Number(params.page_index ?? 1));
      const rows = mine.slice((page - 1) * size, page * size + this.pageOverfill).map((i) => (p === 'autodl-pro' ? this.proListRow(i) : this.webListRow(i)));
      return ok({ list: rows, page_index: page, page_size: size, offset: (page - 1) * size, max_page: Math.max(1, Math.ceil(mine.length / size)), result_total: mine.length, page });
    }
    if (p === 'autodl-pro' && path === `${pre}/status` && method === 'GET') {
      const i = find();
      return i ? ok(i.state) : fail('recordNotFound');
    }
    if (path === `${pre}/snapshot` && method === 'GET') {
      const i = find();
      return i ? ok(p === 'autodl-pro' ? this.proSnapshot(i) : this.webSnapshot(i)) : fail('recordNotFound');
    }
    if (path === `${pre}/power_on` && method === 'POST') {
      const i = find();
      if (!i) return fail('recordNotFound');
      const bal = p === 'autodl-pro' ? this.balances.autodlPro : this.balances.autodlWeb;
      if (bal <= 0) return fail('insufficientBalance');
      if (!AUTODL_SHUT_DOWN.has(i.state)) return refuse('BadRequest');
      // The console: a GPU start on a host whose GPUs are all taken (a no-GPU start still works).
      if (i.noFreeGpu && params.payload !== 'non_gpu') return fail('noFreeGpuOnHost');
      // A power cycle gives a new port and password (unless a test's one loopback sshd must stay its box).
      if (!i.keepLogin) {
        i.sshPort += 1;
        i.password = `pw-${i.sshPort}`;
      }
      this.move(i, 'starting', 'running', params.payload === 'non_gpu' ? 'non_gpu' : 'gpu');
      return p === 'autodl-pro' ? send(200, env.powerOnAccepted) : ok(null);
    }
    if (path === `${pre}/power_off` && method === 'POST') {
      const i = find();
      if (!i) return fail('recordNotFound');
      if (AUTODL_SHUT_DOWN.has(i.state)) return refuse('BadRequest');
      i.stoppedAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      this.move(i, 'shutting_down', 'shutdown');
      return ok(null);
    }
    if (p === 'autodl-pro' && path === `${pre}/release` && method === 'POST') {
      const i = find();
      if (!i) return fail('recordNotFound');
      // The page: shut it down before releasing it, otherwise it may not be released (live clients: it is not).
      if (!AUTODL_SHUT_DOWN.has(i.state)) return refuse('BadRequest');
      this.move(i, 'releasing', 'released');
      return ok(null);
    }
    if (p === 'autodl-pro' && path === `${pre}/create` && method === 'POST') {
      // The page marks cuda_v_from required (是, an integer such as 113): a create without it is refused,
      // with the code live clients get for a wrong parameter (RequestParameterIsWrong).
      if (typeof params.cuda_v_from !== 'number' || !Number.isInteger(params.cuda_v_from)) return fail('requestParameterIsWrong');
      // The page's body; its answer's data is the new id. A balance at or below zero is refused as the connectors' sources show.
      if (this.balances.autodlPro <= 0) return fail('insufficientBalance');
      const id = `pro-${(0x7641990995 + ++this.createSeq).toString(16).padStart(12, '0')}`;
      const inst = this.add({ platform: 'autodl-pro', id, name: String(params.instance_name ?? id), state: 'creating', specId: String(params.gpu_spec_uuid ?? ''), sshPort: this.createLogin.sshPort, password: this.createLogin.password, ...(this.createLogin.user ? { sshUser: this.createLogin.user } : {}) });
      inst.pending = { state: 'running', at: Date.now() + this.transitionMs };
      const doc = this.shapes.proDoc as { create: { response: Record<string, unknown> } };
      return send(200, { ...doc.create.response, data: id });
    }
    if ((p === 'autodl-pro' && path === '/api/v1/dev/wallet/balance' && method === 'POST') || (p === 'autodl-web' && path === '/api/v1/wallet' && method === 'GET')) {
      return ok({ ...((env.wallet as { data: Record<string, unknown> }).data), assets: p === 'autodl-pro' ? this.balances.autodlPro : this.balances.autodlWeb, ...(this.walletBlockedLi !== undefined ? { blocked_asset: this.walletBlockedLi } : {}) });
    }
    if (p === 'autodl-web' && path === '/api/v1/user/machine/list' && method === 'POST') return ok(this.machineList(params));
    // The console's timed shutdown (autodl-web-timed-shutdown.json): epoch milliseconds, null cancels; any
    // other form is refused here (what the live console does with one is not known), so a client sending
    // the Python clients' "YYYY-MM-DD HH:MM" string fails its test.
    if (p === 'autodl-web' && path === '/api/v1/instance/timed/shutdown' && method === 'POST') {
      const i = find();
      if (!i) return fail('recordNotFound');
      const at = params.shutdown_at;
      if (at === null) i.timedShutdownAt = undefined;
      else if (typeof at === 'number' && Number.isSafeInteger(at) && at > 0) i.timedShutdownAt = new Date(at).toISOString().replace(/\.\d+Z$/, 'Z');
      else return fail('requestParameterIsWrong');
      return ok(null);
    }
    if (p === 'autodl-web' && path === '/api/v1/instance/detail' && method === 'GET') {
      const i = find();
      return i ? ok(this.webDetail(i)) : fail('recordNotFound');
    }
    if (p === 'autodl-web' && path === '/api/v1/order/instance/clone/payg' && method === 'POST') return this.clone(params, find(), ok, fail, refuse);
    if (p === 'autodl-pro' && path === '/api/v1/dev/machine/region/gpu_stock' && method === 'POST') {
      // The elastic pool's data-center codes only (the page's appendix); any other region_sign (a Pro
      // instance's `neimeng-C`, a typo) gets what a public client saw live: an empty success.
      const sign = String(params.region_sign ?? '');
      if (!elasticAppendix.data_centers.some((d) => d.region_sign === sign)) return send(200, elasticAppendix.gpu_stock_unknown_region);
      return ok(Object.hasOwn(this.stock.autodl, sign) ? this.stock.autodl[sign] : (this.stock.autodlOther ?? this.stockShapes.autodlGpuStock!.data));
    }
    send(404, { code: 'NotFound', msg: path, data: null });
  }

  private static timeField(iso: string | undefined): { Time: string; Valid: boolean } {
    return iso ? { Time: iso, Valid: true } : { Time: '0001-01-01T00:00:00Z', Valid: false };
  }

  /** A documented pro/list row: state, spec, the platform's stop time. No GPU name, price or login. */
  private proListRow(i: FakeInstance): Record<string, unknown> {
    const doc = this.shapes.proDoc as { list: { response: { data: { list: Record<string, unknown>[] } } } };
    return {
      ...doc.list.response.data.list[0],
      uuid: i.id,
      name: i.name,
      status: i.state,
      ...(i.specId !== undefined ? { gpu_spec_uuid: i.specId } : {}),
      stopped_at: PlatformServer.timeField(AUTODL_SHUT_DOWN.has(i.state) ? i.stoppedAt : undefined),
      timed_shutdown_at: PlatformServer.timeField(i.timedShutdownAt),
    };
  }

  /** The documented pro/snapshot data: card, price, login. No state. */
  private proSnapshot(i: FakeInstance): Record<string, unknown> {
    const doc = this.shapes.proDoc as { snapshot: { response: { data: Record<string, unknown> } } };
    if (i.noSnapshot) return {};
    return {
      ...doc.snapshot.response.data,
      ...(i.gpuName !== undefined ? { snapshot_gpu_alias_name: i.gpuName } : {}),
      ...(i.priceLi !== undefined ? { payg_price: i.priceLi } : {}),
      ssh_command: `ssh -p ${i.sshPort} ${i.sshUser ?? 'root'}@127.0.0.1`,
      proxy_host: '127.0.0.1',
      ssh_port: i.sshPort,
      root_password: i.password,
    };
  }

  /** A console list row (public clients' test data): state, start mode, card, stop and release times, login. */
  private webListRow(i: FakeInstance): Record<string, unknown> {
    const base = this.shapes.webRow!;
    const stopped = AUTODL_SHUT_DOWN.has(i.state);
    const { stopped_at: _s, release_at: _r, ...rest } = base;
    return {
      ...rest,
      uuid: i.id,
      instance_name: i.name,
      status: i.state,
      start_mode: i.startMode ?? 'gpu',
      ...(i.gpuName !== undefined ? { snapshot_gpu_alias_name: i.gpuName } : {}),
      stopped_at: PlatformServer.timeField(stopped ? i.stoppedAt : undefined),
      ...(stopped && i.releaseAt ? { release_at: i.releaseAt } : {}),
      // As the captured console row sends it (autodl-web-list-row-capture.json).
      timed_shutdown_at: PlatformServer.timeField(i.timedShutdownAt),
      // The login fields of the captured console row (autodl-web-list-row-capture.json), loopback values.
      ssh_command: `ssh -p ${i.sshPort} ${i.sshUser ?? 'root'}@127.0.0.1`,
      proxy_host: '127.0.0.1',
      ssh_port: i.sshPort,
      root_password: i.password,
      // The data-disk expansion as the captured row names it (not data_disk_expand_size, the detail's name).
      ...(i.dataDiskBytes !== undefined ? { expand_data_disk_size: i.dataDiskBytes } : {}),
      // Clone: gpuhunter's list docstring fields, where the test set them.
      ...(i.machineId !== undefined ? { machine_id: i.machineId, image: cloneShapes.instanceListRow.image, private_image_uuid: '', reproduction_uuid: '', reproduction_id: 0 } : {}),
      ...(i.regionSign !== undefined ? { region_sign: i.regionSign } : {}),
      ...(i.gpus !== undefined ? { req_gpu_amount: i.gpus } : {}),
    };
  }

  /** A page of console hosts of the cards asked, with that many free, in the regions asked (autodl-web-clone.json's row). */
  private machineList(params: Record<string, unknown>): Record<string, unknown> {
    const cards = Array.isArray(params.gpu_type_name) ? params.gpu_type_name : [];
    const regions = Array.isArray(params.region_sign_list) ? params.region_sign_list : [];
    const idle = Number(params.gpu_idle_num ?? 0);
    const all = this.machines
      .map((m) => ({ ...cloneShapes.machineListRow, ...m }))
      .filter((m) => (!cards.length || cards.includes(m.gpu_name)) && (!regions.length || regions.includes(m.region_sign)) && Number((m as { gpu_idle_num?: number }).gpu_idle_num ?? 0) >= idle);
    const size = Math.max(1, Math.min(100, Number(params.page_size ?? 10)));
    const page = Math.max(1, Number(params.page_index ?? 1));
    return { list: all.slice((page - 1) * size, page * size + this.pageOverfill), page_index: page, page_size: size, max_page: Math.max(1, Math.ceil(all.length / size)), result_total: all.length };
  }

  /** `instance/detail` as one client reads it: status, data_disk_expand_size, proxy_host, ssh_port, machine. */
  private webDetail(i: FakeInstance): Record<string, unknown> {
    return { status: i.state, ...(this.detailWithoutDisk ? {} : { data_disk_expand_size: i.dataDiskBytes ?? 0 }), proxy_host: '127.0.0.1', ssh_port: i.sshPort, machine: { machine_id: i.machineId ?? '', machine_alias: '' } };
  }

  /** `order/instance/clone/payg`: the source shut down is locked (shutdown_cloning) while its disk is copied; the new instance clones, then runs (or clone_failed). */
  private clone(params: Record<string, unknown>, src: FakeInstance | undefined, ok: (d: unknown) => void, fail: (n: string) => void, refuse: (c: string) => void): void {
    if (!src) return fail('recordNotFound');
    if (this.balances.autodlWeb <= 0) return fail('insufficientBalance');
    if (src.state !== 'shutdown') return refuse('BadRequest');
    const info = (params.instance_info ?? {}) as Record<string, unknown>;
    const m = this.machines.find((x) => x.machine_id === info.machine_id) as { gpu_idle_num?: number; machine_id?: string; region_sign?: string } | undefined;
    const want = Number(info.req_gpu_amount ?? 1);
    // The host's free cards were taken meanwhile (the console's word for it, as one client's notes name it).
    if (!m || (m.gpu_idle_num ?? 0) < want) return refuse('MachineGpuNumUpdateFailed');
    m.gpu_idle_num = (m.gpu_idle_num ?? 0) - want;
    const id = `${String(m.machine_id).slice(0, 10)}-${(0x1a2b3c4d + ++this.createSeq).toString(16)}`;
    const inst = this.add({ platform: 'autodl-web', id, name: String(info.instance_name ?? id), state: 'cloning', machineId: String(m.machine_id), regionSign: String(m.region_sign ?? ''), gpus: want, dataDiskBytes: Number(info.expand_data_disk ?? 0), gpuName: src.gpuName ?? 'RTX 4090', sshPort: this.createLogin.sshPort, password: this.createLogin.password });
    inst.pending = { state: this.cloneFails ? 'clone_failed' : 'running', at: Date.now() + this.transitionMs };
    this.move(src, 'shutdown_cloning', 'shutdown');
    return ok(id);
  }

  /** The console snapshot (gpuhunter's docstring): price and card. */
  private webSnapshot(i: FakeInstance): Record<string, unknown> {
    return { ...this.shapes.webSnap, ...(i.priceLi !== undefined ? { payg_price: i.priceLi } : {}), ...(i.gpuName !== undefined ? { snapshot_gpu_alias_name: i.gpuName } : {}) };
  }

  // ---- 阿里云 ----

  private aliyun(action: string, params: Record<string, string>, auth: string, send: (s: number, j: unknown) => void): void {
    const b = this.shapes.ali as Record<string, Record<string, unknown>>;
    const id = /Credential=([^,\s]+)/.exec(auth)?.[1];
    if (!auth.startsWith('ACS3-HMAC-SHA256 ') || id !== this.creds.aliyunKeyId) return send(404, b.invalidAccessKey);
    const f = this.takeFault('aliyun', action);
    if (f) return send(f.status ?? 400, { ...(b[f.error] ?? b.throttling), ...(f.message !== undefined ? { Message: f.message } : {}) });
    const mine = [...this.instances.values()].filter((i) => i.platform === 'aliyun');
    const one = () => mine.find((i) => i.id === params.InstanceId);
    const homeOf = (i: FakeInstance) => i.region ?? String(this.shapes.aliRow!.RegionId);
    switch (action) {
      case 'DescribeRegions':
        return send(200, b.describeRegions);
      case 'DescribeSpotPriceHistory': {
        // The documented shape; its row names the type and zone asked for.
        const h = b.describeSpotPriceHistory as { SpotPrices: { SpotPriceType: Record<string, unknown>[] } };
        return send(200, { ...h, SpotPrices: { SpotPriceType: h.SpotPrices.SpotPriceType.map((r) => ({ ...r, ...(params.InstanceType ? { InstanceType: params.InstanceType } : {}), ...(params.ZoneId ? { ZoneId: params.ZoneId } : {}) })) } });
      }
      case 'DescribeInstances': {
        // Instances live in one region: a list in another does not show them.
        let list = params.RegionId ? mine.filter((i) => homeOf(i) === params.RegionId) : mine;
        if (params.InstanceIds) {
          const ids = JSON.parse(params.InstanceIds) as string[];
          list = list.filter((i) => ids.includes(i.id));
        }
        const size = Math.max(1, Math.min(100, Number(params.PageSize ?? 10)));
        const page = Math.max(1, Number(params.PageNumber ?? 1));
        const rows = list.slice((page - 1) * size, page * size + this.pageOverfill).map((i) => ({ ...this.shapes.aliRow, ...(i.gpuName !== undefined ? { GPUSpec: i.gpuName } : {}), ...(i.region !== undefined ? { RegionId: i.region, ZoneId: `${i.region}-a` } : {}), ...(i.chargeType !== undefined ? { InstanceChargeType: i.chargeType } : {}), ...(i.spotStrategy !== undefined ? { SpotStrategy: i.spotStrategy } : {}), ...(i.autoReleaseTime !== undefined ? { AutoReleaseTime: i.autoReleaseTime } : {}), InstanceId: i.id, InstanceName: i.name, Status: i.state, StoppedMode: i.state === 'Stopped' ? (i.stoppedMode ?? 'KeepCharging') : 'Not-applicable' }));
        return send(200, { ...b.describeInstances, TotalCount: list.length, PageNumber: page, PageSize: size, Instances: { Instance: rows } });
      }
      case 'StartInstance': {
        const i = one();
        if (!i || i.state !== 'Stopped') return send(403, b.incorrectStatus);
        this.move(i, 'Starting', 'Running');
        return send(200, b.action);
      }
      case 'StopInstance': {
        const i = one();
        if (!i || i.state !== 'Running') return send(403, b.incorrectStatus);
        i.stoppedMode = i.noStopCharging ? 'KeepCharging' : (params.StoppedMode ?? 'KeepCharging');
        this.move(i, 'Stopping', 'Stopped');
        return send(200, b.action);
      }
      case 'DeleteInstance': {
        const i = one();
        if (!i || i.state !== 'Stopped') return send(403, b.incorrectStatus);
        this.move(i, 'Stopped', '__gone');
        return send(200, b.action);
      }
      case 'DescribePrice':
        return send(200, b.describePrice);
      case 'DescribeAvailableResource': {
        const shape = this.stockShapes.aliyunDescribeAvailableResource as { AvailableZones: { AvailableZone: Record<string, unknown>[] } };
        const r = params.RegionId ?? '';
        const zones = Object.hasOwn(this.stock.aliyun, r) ? this.stock.aliyun[r]! : shape.AvailableZones.AvailableZone.map((z) => ({ ...z, RegionId: r, ZoneId: `${r}-i` }));
        return send(200, { ...shape, AvailableZones: { AvailableZone: zones } });
      }
      case 'DescribeImages': {
        const c = this.shapes.create as { aliyunDescribeImages: { Images: { Image: Record<string, unknown>[] } } };
        const known = this.images.aliyun.filter((x) => !params.ImageId || x === params.ImageId);
        return send(200, { ...c.aliyunDescribeImages, TotalCount: known.length, Images: { Image: known.map((x) => ({ ...c.aliyunDescribeImages.Images.Image[0], ImageId: x, ImageName: x })) } });
      }
      case 'RunInstances': {
        // ClientToken: the same token answers with the instance it made before.
        const again = mine.find((i) => i.clientToken !== undefined && i.clientToken === params.ClientToken);
        const i = again ?? this.add({ platform: 'aliyun', id: `i-created${++this.createSeq}`, name: params.InstanceName ?? '', state: 'Pending', ...(params.RegionId ? { region: params.RegionId } : {}), chargeType: 'PostPaid', spotStrategy: params.SpotStrategy ?? 'NoSpot', sshPort: this.createLogin.sshPort, password: this.createLogin.password, ...(params.ClientToken ? { clientToken: params.ClientToken } : {}) });
        if (!again) i.pending = { state: 'Running', at: Date.now() + this.transitionMs };
        const c = this.shapes.create as { aliyunRunInstances: Record<string, unknown> };
        return send(200, { ...c.aliyunRunInstances, InstanceIdSets: { InstanceIdSet: [i.id] } });
      }
      case 'DescribeVSwitches': {
        const c = this.shapes.create as Record<string, Record<string, unknown>>;
        const row = (c.aliyunDescribeVSwitches!.VSwitches as { VSwitch: Record<string, unknown>[] }).VSwitch[0];
        const rows = [...this.cloudNet.aliyunVSwitches].filter(([id]) => !params.VSwitchId || id === params.VSwitchId).map(([id, v]) => ({ ...row, VSwitchId: id, VpcId: v.vpcId, ZoneId: v.zone }));
        return send(200, { ...c.aliyunDescribeVSwitches, TotalCount: rows.length, VSwitches: { VSwitch: rows } });
      }
      case 'DescribeSecurityGroups': {
        const c = this.shapes.create as Record<string, Record<string, unknown>>;
        const row = (c.aliyunDescribeSecurityGroups!.SecurityGroups as { SecurityGroup: Record<string, unknown>[] }).SecurityGroup[0];
        const ids = params.SecurityGroupIds ? (JSON.parse(params.SecurityGroupIds) as string[]) : undefined;
        const rows = [...this.cloudNet.aliyunGroups].filter(([id, g]) => (!ids || ids.includes(id)) && (!params.VpcId || g.vpcId === params.VpcId) && (!params.SecurityGroupName || g.name === params.SecurityGroupName)).map(([id, g]) => ({ ...row, SecurityGroupId: id, SecurityGroupName: g.name, VpcId: g.vpcId, RuleCount: g.rules.length }));
        return send(200, { ...c.aliyunDescribeSecurityGroups, TotalCount: rows.length, SecurityGroups: { SecurityGroup: rows } });
      }
      case 'CreateSecurityGroup': {
        const c = this.shapes.create as Record<string, Record<string, unknown>>;
        const id = `sg-made${this.cloudNet.aliyunGroups.size + 1}`;
        this.cloudNet.aliyunGroups.set(id, { name: params.SecurityGroupName ?? '', vpcId: params.VpcId ?? '', rules: [] });
        return send(200, { ...c.aliyunCreateSecurityGroup, SecurityGroupId: id });
      }
      case 'AuthorizeSecurityGroup': {
        const g = this.cloudNet.aliyunGroups.get(params.SecurityGroupId ?? '');
        if (!g) return send(404, { RequestId: 'x', Code: 'InvalidSecurityGroupId.NotFound', Message: 'The specified security group does not exist.' });
        g.rules.push(`${params.IpProtocol} ${params.PortRange} ${params.SourceCidrIp} ${params.Policy ?? 'accept'}`);
        return send(200, (this.shapes.create as Record<string, unknown>).aliyunAuthorizeSecurityGroup);
      }
      case 'DescribeKeyPairs': {
        const c = this.shapes.create as Record<string, Record<string, unknown>>;
        const row = (c.aliyunDescribeKeyPairs!.KeyPairs as { KeyPair: Record<string, unknown>[] }).KeyPair[0];
        const rows = [...this.cloudNet.aliyunKeys.keys()].filter((n) => !params.KeyPairName || n === params.KeyPairName).map((n) => ({ ...row, KeyPairName: n }));
        return send(200, { ...c.aliyunDescribeKeyPairs, TotalCount: rows.length, KeyPairs: { KeyPair: rows } });
      }
      case 'ImportKeyPair': {
        const c = this.shapes.create as Record<string, Record<string, unknown>>;
        this.cloudNet.aliyunKeys.set(params.KeyPairName ?? '', params.PublicKeyBody ?? '');
        return send(200, { ...c.aliyunImportKeyPair, KeyPairName: params.KeyPairName });
      }
      case 'QueryAccountBalance':
        return send(200, { ...b.queryAccountBalance, Data: { ...(b.queryAccountBalance!.Data as object), AvailableAmount: this.balances.aliyun } });
    }
    send(404, { RequestId: 'x', Code: 'InvalidAction.NotFound', Message: action });
  }

  // ---- 腾讯云 ----

  /** 腾讯云 inquiries answer with ItemPrice's tiered steps (tencent-bodies.json inquiryPriceSteps). */
  tieredPrices = false;

  /** An inquiry with InternetAccessible by traffic carries its per-GB BandwidthPrice (ItemPrice, ChargeUnit GB). */
  private inquiry(body: Record<string, unknown>, params: Record<string, unknown>, b: Record<string, Record<string, unknown>>): Record<string, unknown> {
    const net = params.InternetAccessible as { InternetChargeType?: unknown } | undefined;
    if (net?.InternetChargeType !== 'TRAFFIC_POSTPAID_BY_HOUR') return body;
    return { ...body, Price: { ...(body.Price as object), BandwidthPrice: b.bandwidthPriceTraffic } };
  }

  private tencent(action: string, params: Record<string, unknown>, auth: string, send: (s: number, j: unknown) => void, region: string): void {
    const b = this.shapes.tc as Record<string, Record<string, unknown>>;
    const reply = (r: unknown) => send(200, { Response: r });
    const id = /^TC3-HMAC-SHA256 Credential=([^/]+)\//.exec(auth)?.[1];
    if (id !== this.creds.tencentSecretId) return reply(b.authFailure);
    const f = this.takeFault('tencent', action);
    if (f) {
      if (f.status && f.status !== 200) return send(f.status, { message: 'upstream error' });
      const body = (b[f.error] ?? (this.shapes.create as Record<string, Record<string, unknown>>)[f.error] ?? b.rateLimited) as { Error?: Record<string, unknown> };
      return reply(f.message !== undefined ? { ...body, Error: { ...body.Error, Message: f.message } } : body);
    }
    const home = String((this.shapes.tcRow!.Placement as { Zone?: unknown }).Zone).replace(/-\d+$/, '');
    // Instances live in one region: a call signed for another region does not see them.
    const mine = [...this.instances.values()].filter((i) => i.platform === 'tencent' && (i.region ?? home) === region);
    const ids = Array.isArray(params.InstanceIds) ? (params.InstanceIds as string[]) : undefined;
    const targets = ids ? mine.filter((i) => ids.includes(i.id)) : [];
    switch (action) {
      case 'DescribeInstances': {
        const list = ids ? targets : mine;
        const off = Math.max(0, Number(params.Offset ?? 0));
        const lim = Math.max(1, Math.min(100, Number(params.Limit ?? 20)));
        const rows = list.slice(off, off + lim + this.pageOverfill).map((i) => ({ ...this.shapes.tcRow, ...(i.gpuName !== undefined ? { GPUInfo: { ...(this.shapes.tcRow!.GPUInfo as object), GPUType: [i.gpuName] } } : {}), ...(i.region !== undefined ? { Placement: { ...(this.shapes.tcRow!.Placement as object), Zone: `${i.region}-3` } } : {}), ...(i.chargeType !== undefined ? { InstanceChargeType: i.chargeType } : {}), InstanceId: i.id, InstanceName: i.name, InstanceState: i.state, StopChargingMode: i.state === 'STOPPED' ? (i.stoppedMode ?? 'KEEP_CHARGING') : 'NOT_APPLICABLE' }));
        return reply({ ...b.describeInstances, TotalCount: list.length, InstanceSet: rows });
      }
      case 'StartInstances':
        for (const i of targets) this.move(i, 'STARTING', 'RUNNING');
        return reply(b.action);
      case 'StopInstances':
        for (const i of targets) {
          i.stoppedMode = !i.noStopCharging && typeof params.StoppedMode === 'string' ? params.StoppedMode : 'KEEP_CHARGING';
          this.move(i, 'STOPPING', 'STOPPED');
        }
        return reply(b.action);
      case 'TerminateInstances':
        for (const i of targets) this.move(i, 'TERMINATING', '__gone');
        return reply(b.action);
      case 'InquiryPriceRunInstances':
        // The SPOTPAID inquiry answers with the spot shape, anything else with the on-demand one.
        return reply(this.inquiry(params.InstanceChargeType === 'SPOTPAID' ? b.inquiryPriceSpot! : this.tieredPrices ? b.inquiryPriceSteps! : b.inquiryPrice!, params, b));
      case 'DescribeRegions':
        return reply(b.describeRegions);
      case 'DescribeZoneInstanceConfigInfos': {
        const shape = this.stockShapes.tencentDescribeZoneInstanceConfigInfos as { InstanceTypeQuotaSet: Record<string, unknown>[] };
        const rows = Object.hasOwn(this.stock.tencent, region) ? this.stock.tencent[region]! : shape.InstanceTypeQuotaSet.map((q) => ({ ...q, Zone: `${region}-3` }));
        return reply({ ...shape, InstanceTypeQuotaSet: rows });
      }
      case 'DescribeImages': {
        const c = this.shapes.create as { tencentDescribeImages: { ImageSet: Record<string, unknown>[] } };
        const known = this.images.tencent.filter((x) => !ids || ids.includes(x));
        return reply({ ...c.tencentDescribeImages, TotalCount: known.length, ImageSet: known.map((x) => ({ ...c.tencentDescribeImages.ImageSet[0], ImageId: x })) });
      }
      case 'RunInstances': {
        const c = this.shapes.create as { tencentRunInstances: Record<string, unknown> };
        const token = typeof params.ClientToken === 'string' ? params.ClientToken : undefined;
        const again = token ? mine.find((i) => i.clientToken === token) : undefined;
        const i = again ?? this.add({ platform: 'tencent', id: `ins-created${++this.createSeq}`, name: String(params.InstanceName ?? ''), state: 'PENDING', region, chargeType: String(params.InstanceChargeType ?? 'POSTPAID_BY_HOUR'), sshPort: this.createLogin.sshPort, password: this.createLogin.password, ...(token ? { clientToken: token } : {}) });
        if (!again) i.pending = { state: 'RUNNING', at: Date.now() + this.transitionMs };
        return reply({ ...c.tencentRunInstances, InstanceIdSet: [i.id] });
      }
      case 'DescribeSecurityGroups': {
        // VPC 2017-03-12 (the same server answers every 腾讯云 service).
        const c = this.shapes.create as Record<string, Record<string, unknown>>;
        const row = (c.tencentDescribeSecurityGroups!.SecurityGroupSet as Record<string, unknown>[])[0];
        const want = Array.isArray(params.SecurityGroupIds) ? (params.SecurityGroupIds as string[]) : undefined;
        const name = (params.Filters as { Name: string; Values: string[] }[] | undefined)?.find((f) => f.Name === 'security-group-name')?.Values[0];
        const rows = [...this.cloudNet.tencentGroups].filter(([id, g]) => (!want || want.includes(id)) && (!name || g.name === name)).map(([id, g]) => ({ ...row, SecurityGroupId: id, SecurityGroupName: g.name, IsDefault: false }));
        return reply({ ...c.tencentDescribeSecurityGroups, TotalCount: rows.length, SecurityGroupSet: rows });
      }
      case 'CreateSecurityGroupWithPolicies': {
        const c = this.shapes.create as Record<string, Record<string, unknown>>;
        const id = `sg-tcmade${[...this.cloudNet.tencentGroups.keys()].filter((k) => k.startsWith('sg-tcmade')).length + 1}`;
        const set = params.SecurityGroupPolicySet as { Ingress?: Record<string, unknown>[]; Egress?: Record<string, unknown>[] } | undefined;
        this.cloudNet.tencentGroups.set(id, { name: String(params.GroupName), ingress: (set?.Ingress ?? []).map((p) => `${String(p.Protocol)} ${String(p.Port)} ${String(p.CidrBlock)} ${String(p.Action)}`), egress: (set?.Egress ?? []).map((p) => `${String(p.Protocol)} ${String(p.Port)} ${String(p.CidrBlock)} ${String(p.Action)}`) });
        return reply({ ...c.tencentCreateSecurityGroupWithPolicies, SecurityGroup: { ...(c.tencentCreateSecurityGroupWithPolicies!.SecurityGroup as object), SecurityGroupId: id, SecurityGroupName: params.GroupName, SecurityGroupDesc: params.GroupDescription } });
      }
      case 'DescribeKeyPairs': {
        const c = this.shapes.create as Record<string, Record<string, unknown>>;
        const row = (c.tencentDescribeKeyPairs!.KeyPairSet as Record<string, unknown>[])[0];
        const name = (params.Filters as { Name: string; Values: string[] }[] | undefined)?.find((f) => f.Name === 'key-name')?.Values[0];
        const rows = [...this.cloudNet.tencentKeys].filter(([n]) => !name || n === name).map(([n, k]) => ({ ...row, KeyId: k.id, KeyName: n, PublicKey: k.key }));
        return reply({ ...c.tencentDescribeKeyPairs, TotalCount: rows.length, KeyPairSet: rows });
      }
      case 'ImportKeyPair': {
        const c = this.shapes.create as Record<string, Record<string, unknown>>;
        const id = `skey-made${this.cloudNet.tencentKeys.size + 1}`;
        this.cloudNet.tencentKeys.set(String(params.KeyName), { id, key: String(params.PublicKey) });
        return reply({ ...c.tencentImportKeyPair, KeyId: id });
      }
      case 'DescribeAccountBalance':
        return reply({ ...b.describeAccountBalance, Balance: this.balances.tencent, RealBalance: this.balances.tencent });
    }
    reply({ Error: { Code: 'InvalidAction', Message: action }, RequestId: 'x' });
  }
}

function formOf(body: string): Record<string, string> {
  if (!body || body.startsWith('{')) return {};
  return Object.fromEntries(new URLSearchParams(body));
}

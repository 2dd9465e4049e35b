// AutoDL: the official Pro developer API and, opt-in, the web console's endpoints with the
// console's login token. Both send the token as `Authorization` without "Bearer". Reads may be
// retried (GET-with-body → query string on RequestParameterIsWrong); power actions never are.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { autodlBalance, autodlInstance, autodlLogin, autodlPage, envelopeOf, isSuccess } from '../../core/platforms/autodl';
import { classifyFailure } from '../../core/platforms/errors';
import { CONNECTOR_CAPABILITIES, type Balance, type Connector, type PlatformInstance, type PlatformKind, type PowerOffMode, type PowerOnMode, type SshLogin } from '../../core/platforms/types';
import { PlatformError, transportError } from './errors';

export interface AutodlOptions {
  /** Base URL, e.g. from GPU_RENT_AUTODL_API or the setting. */
  baseUrl: string;
  token: string;
  timeoutMs: number;
  now: () => number;
}

const MAX_BODY = 4 * 1024 * 1024;
const PAGE_SIZE = 100;
const MAX_PAGES = 50;

type Method = 'GET' | 'POST';

abstract class AutodlBase implements Connector {
  abstract readonly kind: PlatformKind;
  get capabilities() {
    return CONNECTOR_CAPABILITIES[this.kind];
  }
  constructor(protected readonly o: AutodlOptions) {
    if (!o.baseUrl) throw new PlatformError({ platform: this.kindForCtor(), kind: 'other', code: 'NoEndpoint', message: 'no API base URL configured (GPU_RENT_AUTODL_API / GPU_RENT_AUTODL_WEB_API or the gpuRent.platforms setting)' });
  }
  protected abstract kindForCtor(): PlatformKind;

  protected url(path: string, query?: Record<string, string>): URL {
    const u = new URL(path.replace(/^\//, ''), this.o.baseUrl.endsWith('/') ? this.o.baseUrl : this.o.baseUrl + '/');
    for (const [k, v] of Object.entries(query ?? {})) u.searchParams.set(k, v);
    return u;
  }

  private signal(signal?: AbortSignal): AbortSignal {
    const t = AbortSignal.timeout(this.o.timeoutMs);
    return signal ? AbortSignal.any([signal, t]) : t;
  }

  /** One HTTP exchange → the envelope's data, or a PlatformError naming AutoDL's code. */
  protected async call(method: Method, path: string, body: Record<string, unknown> | undefined, opts: { query?: Record<string, string>; bodyOnGet?: boolean; signal?: AbortSignal } = {}): Promise<unknown> {
    let status: number;
    let text: string;
    try {
      const signal = this.signal(opts.signal);
      const headers: Record<string, string> = { Authorization: this.o.token, Accept: 'application/json' };
      if (method === 'GET' && opts.bodyOnGet && body) ({ status, text } = await getWithBody(this.url(path), headers, JSON.stringify(body), signal));
      else {
        const init: RequestInit = { method, headers: body && method === 'POST' ? { ...headers, 'Content-Type': 'application/json' } : headers, signal };
        if (body && method === 'POST') init.body = JSON.stringify(body);
        const res = await fetch(this.url(path, opts.query), init);
        status = res.status;
        text = (await res.text()).slice(0, MAX_BODY);
      }
    } catch (e) {
      throw transportError(this.kind, e);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const env = envelopeOf(json);
    if (status >= 200 && status < 300 && env && isSuccess(env)) return env.data;
    throw new PlatformError(classifyFailure(this.kind, env?.code, env?.msg ?? text.slice(0, 200), status >= 200 && status < 300 ? undefined : status));
  }

  /** A read documented as GET with a JSON body; public clients retry it as a query string. */
  protected async getQuirk(path: string, params: Record<string, string>, signal?: AbortSignal): Promise<unknown> {
    try {
      return await this.call('GET', path, params, { bodyOnGet: true, signal });
    } catch (e) {
      if (e instanceof PlatformError && e.failure.code === 'RequestParameterIsWrong') return this.call('GET', path, undefined, { query: params, signal });
      throw e;
    }
  }

  protected async listPaged(path: string, signal?: AbortSignal): Promise<PlatformInstance[]> {
    const out: PlatformInstance[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const data = await this.call('POST', path, { page_index: page, page_size: PAGE_SIZE }, { signal });
      const p = autodlPage(data, this.o.now());
      out.push(...p.instances);
      if (page >= p.maxPage || p.instances.length === 0) break;
    }
    return out;
  }

  protected notSupported(what: string): never {
    throw new PlatformError({ platform: this.kind, kind: 'notSupported', code: 'NotSupported', message: what });
  }

  abstract list(signal?: AbortSignal): Promise<PlatformInstance[]>;
  abstract get(ref: string, signal?: AbortSignal): Promise<PlatformInstance>;
  abstract powerOn(ref: string, mode: PowerOnMode, signal?: AbortSignal): Promise<void>;
  abstract powerOff(ref: string, mode: PowerOffMode, signal?: AbortSignal): Promise<void>;
  abstract release(ref: string, signal?: AbortSignal): Promise<void>;
  abstract balance(signal?: AbortSignal): Promise<Balance>;
  protected abstract snapshot(ref: string, signal?: AbortSignal): Promise<unknown>;

  async price(ref: string, signal?: AbortSignal): Promise<{ fenPerHour: number; readAt: number } | undefined> {
    const p = autodlInstance({ ...(await this.snapshotObj(ref, signal)), uuid: ref }, this.o.now());
    return p?.priceFenPerHour !== undefined ? { fenPerHour: p.priceFenPerHour, readAt: p.priceReadAt ?? this.o.now() } : undefined;
  }

  async sshLogin(ref: string, signal?: AbortSignal): Promise<SshLogin | undefined> {
    return autodlLogin(await this.snapshotObj(ref, signal));
  }

  protected async snapshotObj(ref: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const d = await this.snapshot(ref, signal);
    return d && typeof d === 'object' && !Array.isArray(d) ? (d as Record<string, unknown>) : {};
  }

  protected badResponse(what: string): never {
    throw new PlatformError({ platform: this.kind, kind: 'badResponse', code: 'BadResponse', message: what });
  }
}

export class AutodlProConnector extends AutodlBase {
  readonly kind = 'autodl-pro' as const;
  protected kindForCtor(): PlatformKind {
    return 'autodl-pro';
  }
  list(signal?: AbortSignal) {
    return this.listPaged('/api/v1/dev/instance/pro/list', signal);
  }
  protected snapshot(ref: string, signal?: AbortSignal) {
    return this.getQuirk('/api/v1/dev/instance/pro/snapshot', { instance_uuid: ref }, signal);
  }
  async get(ref: string, signal?: AbortSignal): Promise<PlatformInstance> {
    const snap = await this.snapshotObj(ref, signal);
    const status = snap.status ?? (await this.getQuirk('/api/v1/dev/instance/pro/status', { instance_uuid: ref }, signal));
    const p = autodlInstance({ ...snap, uuid: ref, status }, this.o.now());
    return p ?? this.badResponse('snapshot without an instance');
  }
  async powerOn(ref: string, mode: PowerOnMode, signal?: AbortSignal) {
    if (mode !== 'gpu') this.notSupported('the developer API starts Pro instances with their GPUs only');
    await this.call('POST', '/api/v1/dev/instance/pro/power_on', { instance_uuid: ref, payload: 'gpu' }, { signal });
  }
  async powerOff(ref: string, mode: PowerOffMode, signal?: AbortSignal) {
    if (mode !== 'keep') this.notSupported('AutoDL has no stop-charging mode: a shut-down instance bills its disk only');
    await this.call('POST', '/api/v1/dev/instance/pro/power_off', { instance_uuid: ref }, { signal });
  }
  async release(ref: string, signal?: AbortSignal) {
    await this.call('POST', '/api/v1/dev/instance/pro/release', { instance_uuid: ref }, { signal });
  }
  async balance(signal?: AbortSignal): Promise<Balance> {
    const fen = autodlBalance(await this.call('POST', '/api/v1/dev/wallet/balance', {}, { signal }));
    return fen !== undefined ? { fen, readAt: this.o.now() } : this.badResponse('balance without assets');
  }
}

export class AutodlWebConnector extends AutodlBase {
  readonly kind = 'autodl-web' as const;
  protected kindForCtor(): PlatformKind {
    return 'autodl-web';
  }
  list(signal?: AbortSignal) {
    return this.listPaged('/api/v1/instance', signal);
  }
  protected snapshot(ref: string, signal?: AbortSignal) {
    return this.call('GET', '/api/v1/instance/snapshot', undefined, { query: { instance_uuid: ref }, signal });
  }
  async get(ref: string, signal?: AbortSignal): Promise<PlatformInstance> {
    const p = autodlInstance({ ...(await this.snapshotObj(ref, signal)), uuid: ref }, this.o.now());
    return p ?? this.badResponse('snapshot without an instance');
  }
  async powerOn(ref: string, mode: PowerOnMode, signal?: AbortSignal) {
    await this.call('POST', '/api/v1/instance/power_on', { instance_uuid: ref, payload: mode === 'noGpu' ? 'non_gpu' : 'gpu' }, { signal });
  }
  async powerOff(ref: string, mode: PowerOffMode, signal?: AbortSignal) {
    if (mode !== 'keep') this.notSupported('AutoDL has no stop-charging mode: a shut-down instance bills its disk only');
    await this.call('POST', '/api/v1/instance/power_off', { instance_uuid: ref }, { signal });
  }
  async release(): Promise<void> {
    this.notSupported('release ordinary AutoDL instances in the console');
  }
  async balance(signal?: AbortSignal): Promise<Balance> {
    const fen = autodlBalance(await this.call('GET', '/api/v1/wallet', undefined, { signal }));
    return fen !== undefined ? { fen, readAt: this.o.now() } : this.badResponse('wallet without assets');
  }
}

/** fetch() refuses a GET with a body; the documented API wants one, so this one goes through node:http(s). */
function getWithBody(url: URL, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method: 'GET', headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }, signal }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_BODY) chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', (e) => reject(signal.aborted ? (signal.reason ?? e) : e));
    req.end(body);
  });
}

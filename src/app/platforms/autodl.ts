// AutoDL: the official Pro developer API and, opt-in, the web console's endpoints with the
// console's login token. Both send the token as `Authorization` without "Bearer". Reads may be
// retried (GET-with-body → query string on RequestParameterIsWrong); power actions never are.
import { autodlBalance, autodlInstance, autodlLogin, autodlPage, envelopeOf, isSuccess } from '../../core/platforms/autodl';
import { classifyFailure } from '../../core/platforms/errors';
import { CONNECTOR_CAPABILITIES, MAX_INSTANCES_PER_ACCOUNT, type Balance, type Connector, type PlatformInstance, type PlatformKind, type PowerOffMode, type PowerOnMode, type SshLogin } from '../../core/platforms/types';
import { PlatformError, transportError } from './errors';
import { exchange, replyJson, tooDeep, type Reply } from './http';

export interface AutodlOptions {
  /** Base URL, e.g. from GPU_RENT_AUTODL_API or the setting. */
  baseUrl: string;
  token: string;
  timeoutMs: number;
  now: () => number;
}

const PAGE_SIZE = 100;

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

  /** One HTTP exchange (bounded: http.ts) → the envelope's data, or a PlatformError naming AutoDL's code. */
  protected async call(method: Method, path: string, body: Record<string, unknown> | undefined, opts: { query?: Record<string, string>; bodyOnGet?: boolean; signal?: AbortSignal } = {}): Promise<unknown> {
    let reply: Reply;
    try {
      const headers: Record<string, string> = { Authorization: this.o.token, Accept: 'application/json' };
      // The documented API wants a GET with a JSON body (fetch() refused one; node:http sends it).
      const withBody = body !== undefined && (method === 'POST' || opts.bodyOnGet === true);
      reply = await exchange(this.url(path, opts.query), { method, headers: withBody ? { ...headers, 'Content-Type': 'application/json' } : headers, ...(withBody ? { body: JSON.stringify(body) } : {}), signal: this.signal(opts.signal) });
    } catch (e) {
      throw transportError(this.kind, e);
    }
    const { status } = reply;
    const text = reply.body.toString('utf8');
    const parsed = replyJson(text);
    if (!parsed.ok && parsed.reason === 'tooDeep') throw transportError(this.kind, tooDeep());
    const env = envelopeOf(parsed.ok ? parsed.value : undefined);
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
    for (let page = 1; out.length < MAX_INSTANCES_PER_ACCOUNT; page++) {
      const data = await this.call('POST', path, { page_index: page, page_size: PAGE_SIZE }, { signal });
      const p = autodlPage(data, this.o.now(), PAGE_SIZE);
      out.push(...p.instances);
      if (page >= p.maxPage || p.instances.length === 0) break;
    }
    return out.slice(0, MAX_INSTANCES_PER_ACCOUNT);
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

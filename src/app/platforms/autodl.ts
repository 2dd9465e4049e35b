// AutoDL: the official Pro developer API and, opt-in, the web console's endpoints with the
// console's login token. Both send the token as `Authorization` without "Bearer". A GET sends its
// parameters as a query string (the page documents a JSON body, which live clients report is
// refused with RequestParameterIsWrong; the body form is the fallback, so a read is one request).
// Pro: the list row says state, spec and stop time; the snapshot says card, price and login, and
// is read once per instance and again only when its state changes. Console: the list says state
// and login. Power actions are never retried.
import { timedShutdownBody } from '../../core/platforms/timedShutdown';
import { operationSignal } from '../../remote/util/deadline';
import { autodlBalance, autodlInstance, autodlLogin, autodlPage, envelopeOf, isSuccess, withAutodlSnapshot } from '../../core/platforms/autodl';
import { classifyFailure } from '../../core/platforms/errors';
import { CONNECTOR_CAPABILITIES, MAX_INSTANCES_PER_ACCOUNT, type Balance, type Connector, type PlatformInstance, type PlatformKind, type PowerOffMode, type PowerOnMode, type SshLogin } from '../../core/platforms/types';
import { PlatformError, transportError } from './errors';
import { exchange, replyJson, tooDeep, type Reply } from './http';
import { autodlConsoleStock, type StockRow } from '../../core/platforms/stock';
import { readAutodlStock, type StockQuery } from './stock';
import { ListedRows } from './listedRows';
import { forEachLimited } from '../../remote/util/limit';
import { AUTODL_PRO_CREATE } from './autodlCreate';

/** Snapshots by instance, with the state word they were read in: a new state reads a new one (a restart moves port and password). */
export type SnapshotCache = Map<string, { rawState: string; data: Record<string, unknown> }>;

export interface AutodlOptions {
  /** Base URL, e.g. from GPU_RENT_AUTODL_API or the setting. */
  baseUrl: string;
  token: string;
  timeoutMs: number;
  now: () => number;
  /** Kept by the caller across polls (the extension's monitor, per account); a fresh one otherwise. */
  snapshots?: SnapshotCache;
}

const PAGE_SIZE = 100;
/** Snapshots read at once while a list is completed. */
const SNAPSHOT_CONCURRENCY = 4;
/** The cache never holds more than the account's instances can be. */
const MAX_CACHED = 5000;

type Method = 'GET' | 'POST';

abstract class AutodlBase implements Connector {
  abstract readonly kind: PlatformKind;
  get capabilities() {
    return CONNECTOR_CAPABILITIES[this.kind];
  }
  constructor(protected readonly o: AutodlOptions) {
    this.snapshots = o.snapshots ?? new Map();
    if (!o.baseUrl) throw new PlatformError({ platform: this.kindForCtor(), kind: 'other', code: 'NoEndpoint', message: 'no API base URL configured (GPU_RENT_AUTODL_API / GPU_RENT_AUTODL_WEB_API or the gpuRent.platforms setting)' });
  }
  protected abstract kindForCtor(): PlatformKind;

  protected url(path: string, query?: Record<string, string>): URL {
    const u = new URL(path.replace(/^\//, ''), this.o.baseUrl.endsWith('/') ? this.o.baseUrl : this.o.baseUrl + '/');
    for (const [k, v] of Object.entries(query ?? {})) u.searchParams.set(k, v);
    return u;
  }

  private signal(signal?: AbortSignal): AbortSignal {
    // A timer-held deadline: Node 20's AbortSignal.any can lose an AbortSignal.timeout to the GC (remote/util/deadline.ts).
    return operationSignal(this.o.timeoutMs, signal)!;
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

  /** A read documented as GET with a JSON body: the query string first (what the gateway reads), the body form only if that is refused as RequestParameterIsWrong. */
  protected async getQuirk(path: string, params: Record<string, string>, signal?: AbortSignal): Promise<unknown> {
    try {
      return await this.call('GET', path, undefined, { query: params, signal });
    } catch (e) {
      if (e instanceof PlatformError && e.failure.code === 'RequestParameterIsWrong') return this.call('GET', path, params, { bodyOnGet: true, signal });
      throw e;
    }
  }

  protected readonly snapshots: SnapshotCache;

  protected async listPaged(path: string, signal?: AbortSignal, rows?: ListedRows): Promise<PlatformInstance[]> {
    const out: PlatformInstance[] = [];
    rows?.clear();
    for (let page = 1; out.length < MAX_INSTANCES_PER_ACCOUNT; page++) {
      const data = await this.call('POST', path, { page_index: page, page_size: PAGE_SIZE }, { signal });
      const list = (data as { list?: unknown } | null)?.list;
      rows?.put(Array.isArray(list) ? list.slice(0, PAGE_SIZE) : undefined);
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
    const p = withAutodlSnapshot({ ref, name: ref, state: 'unknown', rawState: '' }, await this.snapshotOnce(ref, signal), this.o.now());
    return p.priceFenPerHour !== undefined ? { fenPerHour: p.priceFenPerHour, readAt: p.priceReadAt ?? this.o.now() } : undefined;
  }

  async sshLogin(ref: string, signal?: AbortSignal): Promise<SshLogin | undefined> {
    return autodlLogin(await this.snapshotOnce(ref, signal));
  }

  /** Snapshots this connector read from the platform (a connector serves one refresh or one action): each answers one more read instead of a second request. */
  private readonly readHere = new Set<string>();

  /** The snapshot this connector just read for the list or a state read (once), else a fresh one. */
  private async snapshotOnce(ref: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const cached = this.snapshots.get(ref);
    if (cached && this.readHere.delete(ref)) return cached.data;
    return this.snapshotObj(ref, signal);
  }

  /** A fresh snapshot (and the cache updated with it, keeping the state it was read in). */
  protected async snapshotObj(ref: string, signal?: AbortSignal, rawState?: string): Promise<Record<string, unknown>> {
    const d = await this.snapshot(ref, signal);
    const data = d && typeof d === 'object' && !Array.isArray(d) ? (d as Record<string, unknown>) : {};
    const state = rawState ?? this.snapshots.get(ref)?.rawState;
    if (state !== undefined) {
      this.remember(ref, state, data);
      if (rawState !== undefined && this.readHere.size < MAX_CACHED) this.readHere.add(ref);
    }
    return data;
  }

  private remember(ref: string, rawState: string, data: Record<string, unknown>): void {
    this.snapshots.delete(ref);
    if (this.snapshots.size >= MAX_CACHED) this.snapshots.delete(this.snapshots.keys().next().value!);
    this.snapshots.set(ref, { rawState, data });
  }

  /** The snapshot for an instance in `rawState`: the cached one while the state has not changed. */
  protected async cachedSnapshot(ref: string, rawState: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const c = this.snapshots.get(ref);
    if (c && c.rawState === rawState) return c.data;
    return this.snapshotObj(ref, signal, rawState);
  }

  /**
   * Each listed instance with its snapshot's card, price and login. A snapshot that cannot be read
   * leaves the row's facts (the card from the spec id, no price, no login) rather than hiding the
   * instance; a refused token still fails the whole read.
   */
  protected async withSnapshots(list: PlatformInstance[], signal?: AbortSignal): Promise<PlatformInstance[]> {
    const out = list.slice();
    await forEachLimited(list, SNAPSHOT_CONCURRENCY, async (p, i) => {
      if (p.state === 'released') return;
      try {
        out[i] = withAutodlSnapshot(p, await this.cachedSnapshot(p.ref, p.rawState, signal), this.o.now());
      } catch (e) {
        if (e instanceof PlatformError && (e.failure.kind === 'tokenExpired' || e.failure.kind === 'auth')) throw e;
      }
    });
    return out;
  }

  /** AutoDL's page: shut the instance down before releasing it, otherwise it may not be released. Nothing is sent for one that is not stopped. */
  protected refuseUnlessStopped(p: PlatformInstance): void {
    if (p.state === 'stopped') return;
    throw new PlatformError({ platform: this.kind, kind: 'invalidState', code: 'NotShutDown', message: `the instance is ${p.rawState || p.state}: shut it down first (power-off), wait until it is stopped, then release it` });
  }

  protected badResponse(what: string): never {
    throw new PlatformError({ platform: this.kind, kind: 'badResponse', code: 'BadResponse', message: what });
  }
}

export class AutodlProConnector extends AutodlBase {
  readonly kind = 'autodl-pro' as const;
  /** `gpu-rent create` / Create Platform Instance: its request, send and reply (autodlCreate.ts). */
  readonly createHooks = AUTODL_PRO_CREATE;
  protected kindForCtor(): PlatformKind {
    return 'autodl-pro';
  }
  async list(signal?: AbortSignal) {
    return this.withSnapshots(await this.listPaged('/api/v1/dev/instance/pro/list', signal), signal);
  }
  protected snapshot(ref: string, signal?: AbortSignal) {
    return this.getQuirk('/api/v1/dev/instance/pro/snapshot', { instance_uuid: ref }, signal);
  }
  /** The state from `pro/status` (one request); card, price and login from the snapshot, read again only when the state changed. */
  async get(ref: string, signal?: AbortSignal): Promise<PlatformInstance> {
    const status = await this.getQuirk('/api/v1/dev/instance/pro/status', { instance_uuid: ref }, signal);
    const p = autodlInstance({ uuid: ref, status }, this.o.now());
    if (!p) return this.badResponse('status without an instance');
    if (p.state === 'released') return p;
    return withAutodlSnapshot(p, await this.cachedSnapshot(ref, p.rawState, signal).catch(() => ({})), this.o.now());
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
    const status = await this.getQuirk('/api/v1/dev/instance/pro/status', { instance_uuid: ref }, signal);
    this.refuseUnlessStopped(autodlInstance({ uuid: ref, status }, this.o.now()) ?? { ref, name: ref, state: 'unknown', rawState: String(status) });
    await this.call('POST', '/api/v1/dev/instance/pro/release', { instance_uuid: ref }, { signal });
  }
  /** Free cards per data center (`gpu_stock`, the elastic pool): the data centers asked, or every one the page lists; no instance needed (app/platforms/stock.ts). */
  stock(q: StockQuery = {}): Promise<StockRow[]> {
    return readAutodlStock(this.kind, q.regions, (body) => this.call('POST', '/api/v1/dev/machine/region/gpu_stock', body, { signal: q.signal }), this.o.now);
  }
  async balance(signal?: AbortSignal): Promise<Balance> {
    const fen = autodlBalance(await this.call('POST', '/api/v1/dev/wallet/balance', {}, { signal }));
    return fen !== undefined ? { fen, readAt: this.o.now() } : this.badResponse('balance without assets');
  }
  /** `pro/create` (autodlCreate.ts builds the body): the reply's `data` is the new instance's id. Sent once, never retried here. */
  async proCreate(body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    return this.call('POST', '/api/v1/dev/instance/pro/create', body, { signal });
  }
}

export class AutodlWebConnector extends AutodlBase {
  readonly kind = 'autodl-web' as const;
  protected kindForCtor(): PlatformKind {
    return 'autodl-web';
  }
  /** The last list's rows: a new instance's login is in its row, no second list needed. */
  private readonly listed = new ListedRows('uuid');
  list(signal?: AbortSignal) {
    return this.listPaged('/api/v1/instance', signal, this.listed);
  }
  protected snapshot(ref: string, signal?: AbortSignal) {
    return this.call('GET', '/api/v1/instance/snapshot', undefined, { query: { instance_uuid: ref }, signal });
  }
  /** State from the list (as the console itself and public clients read it; the snapshot carries none). */
  async get(ref: string, signal?: AbortSignal): Promise<PlatformInstance> {
    const p = (await this.list(signal)).find((x) => x.ref === ref);
    if (!p) throw new PlatformError({ platform: this.kind, kind: 'notFound', code: 'RecordNotFoundError', message: ref });
    return p;
  }
  /** The login from the list row (ssh_command, root_password); the snapshot where the row has none. */
  override async sshLogin(ref: string, signal?: AbortSignal): Promise<SshLogin | undefined> {
    const row = this.listed.take(ref) ?? (await this.rawRows(signal)).find((r) => r.uuid === ref);
    return (row && autodlLogin(row)) ?? super.sshLogin(ref, signal);
  }
  private async rawRows(signal?: AbortSignal): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (let page = 1; out.length < MAX_INSTANCES_PER_ACCOUNT; page++) {
      const data = (await this.call('POST', '/api/v1/instance', { page_index: page, page_size: PAGE_SIZE }, { signal })) as { list?: unknown; max_page?: unknown } | null;
      const rows = Array.isArray(data?.list) ? data.list.slice(0, PAGE_SIZE).filter((r): r is Record<string, unknown> => !!r && typeof r === 'object') : [];
      out.push(...rows);
      const max = typeof data?.max_page === 'number' ? data.max_page : 1;
      if (page >= max || rows.length === 0) break;
    }
    return out;
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
  /** Free cards on the hosts of the account's instances: each console row's `gpu_idle_num` of `gpu_all_num`. */
  async stock(q: StockQuery = {}): Promise<StockRow[]> {
    const rows = autodlConsoleStock(await this.rawRows(q.signal), this.o.now());
    return q.regions?.length ? rows.filter((r) => q.regions!.includes(r.region)) : rows;
  }
  async balance(signal?: AbortSignal): Promise<Balance> {
    const fen = autodlBalance(await this.call('GET', '/api/v1/wallet', undefined, { signal }));
    return fen !== undefined ? { fen, readAt: this.o.now() } : this.badResponse('wallet without assets');
  }
  /** Clone (app/platforms/clone.ts builds the bodies): the instance's own console row, unparsed. */
  async listedRow(ref: string, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
    return (await this.rawRows(signal)).find((r) => r.uuid === ref);
  }
  /** `GET /api/v1/instance/detail?instance_uuid=`: state, data-disk expansion, host. */
  async instanceDetail(ref: string, signal?: AbortSignal): Promise<unknown> {
    return this.call('GET', '/api/v1/instance/detail', undefined, { query: { instance_uuid: ref }, signal });
  }
  /** `POST /api/v1/user/machine/list`: one page of hosts. */
  async machineList(body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    return this.call('POST', '/api/v1/user/machine/list', body, { signal });
  }
  /** `POST /api/v1/instance/timed/shutdown` (core/platforms/timedShutdown.ts): arms the console's timed shutdown at `at` (epoch seconds), or cancels it (null). Sent once. */
  async timedShutdown(ref: string, at: number | null, signal?: AbortSignal): Promise<void> {
    await this.call('POST', '/api/v1/instance/timed/shutdown', timedShutdownBody(ref, at), { signal });
  }
  /** `POST /api/v1/order/instance/clone/payg`: `data` is the new instance's uuid. Sent once, never retried here. */
  async cloneOrder(body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    return this.call('POST', '/api/v1/order/instance/clone/payg', body, { signal });
  }
}

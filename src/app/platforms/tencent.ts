// 腾讯云 CVM through the official SDK (tencentcloud-sdk-nodejs-cvm), the balance through
// billing's DescribeAccountBalance with the common SDK's CommonClient (there is no separate
// billing package on the registry). Requests are TC3-HMAC-SHA256 signed with the SecretId/Key;
// the SDK does not retry, so a power action is sent once.
import type { Readable } from 'node:stream';
import { classifyFailure } from '../../core/platforms/errors';
import { tencentBalance, tencentBilling, tencentInstance, tencentPage, tencentPrice, tencentRegions } from '../../core/platforms/tencent';
import { stepAt, tencentPriceSteps } from '../../core/platforms/cloudCreate';
import type { RegionChoice } from '../../core/platforms/regions';
import { CONNECTOR_CAPABILITIES, type Balance, type Connector, type PlatformInstance, type PowerOffMode, type PowerOnMode } from '../../core/platforms/types';
import { PlatformError, transportError } from './errors';
import { isReplyError, readCapped, replyJson, ReplyError, tooDeep } from './http';
import { loadSdks } from './loadSdks';
import { allPages, RegionIndex, RegionList } from './regions';
import { ListedRows } from './listedRows';
import type { StockRow } from '../../core/platforms/stock';
import { readTencentStock, type StockQuery } from './stock';
import { TENCENT_CREATE } from './tencentCreate';

export interface TencentOptions {
  secretId: string;
  secretKey: string;
  /** The home region: DescribeRegions is asked there. */
  region: string;
  /** The regions to read: 'all' (DescribeRegions) or a list; the home region alone when absent. */
  regions?: RegionChoice;
  /** host[:port] or URL (GPU_RENT_TENCENT_ENDPOINT / setting) for CVM and billing; the SDK's own when empty. */
  endpoint?: string;
  timeoutMs: number;
  now: () => number;
}

const PAGE = 100;

type Client = { request(action: string, req: unknown, options?: { signal?: AbortSignal }): Promise<Record<string, unknown>>; endpoint: string };
type FetchReply = { status: number; statusText: string; headers: { get(name: string): string | null }; body: NodeJS.ReadableStream };

/** What one call's guards saw: a redirect refused before anything was sent there. */
interface CallGuard {
  refused?: ReplyError;
  /** How many redirects were refused on this client: a call that saw the count move was refused. */
  count: number;
}

export class TencentConnector implements Connector {
  readonly kind = 'tencent-cvm' as const;
  readonly capabilities = CONNECTOR_CAPABILITIES['tencent-cvm'];
  /** `gpu-rent create` / Create Platform Instance: its preview, request, send and reply (tencentCreate.ts). */
  readonly createHooks = TENCENT_CREATE;
  private readonly regionList: RegionList;
  /** The region each instance was listed in (power actions and prices go there). */
  private readonly where = new RegionIndex('tencent-cvm', () => this.regions(), false);
  /** The last list's rows: a price read after it needs no second DescribeInstances. */
  private readonly listed = new ListedRows('InstanceId');
  /** One SDK client per service and region, built at its first call. */
  private readonly clients = new Map<string, { client: Client; guard: CallGuard }>();

  constructor(private readonly o: TencentOptions) {
    this.regionList = new RegionList(o.regions, o.region, () => this.call('cvm', 'DescribeRegions', {}).then(tencentRegions));
  }

  /**
   * The SDK's client for one call, with its HTTP bounded: node-fetch follows redirects and
   * reads the whole body, and the SDK passes neither a size nor a redirect mode. It does pass
   * `httpProfile.agent`, which node-fetch asks for every request it sends, the redirected ones
   * too: the origin is checked there and anything else refused before a byte goes out. And the
   * client's `parseResponse` (given the unread reply) is replaced by one that reads the body
   * through http.ts's cap and depth check.
   */
  private client(which: 'cvm' | 'billing' | 'vpc', region = this.o.region): { client: Client; guard: CallGuard } {
    const key = `${which}:${region}`;
    let made = this.clients.get(key);
    if (!made) {
      const guard: CallGuard = { count: 0 };
      made = { client: this.makeClient(which, guard, region), guard };
      this.clients.set(key, made);
    }
    return made;
  }

  private makeClient(which: 'cvm' | 'billing' | 'vpc', guard: CallGuard, region: string): Client {
    const { cvm, CommonClient } = loadSdks();
    const ep = this.o.endpoint ? endpointParts(this.o.endpoint) : undefined;
    const credential = { secretId: this.o.secretId, secretKey: this.o.secretKey };
    const base = { reqTimeout: Math.max(1, Math.ceil(this.o.timeoutMs / 1000)), ...(ep ? { endpoint: ep.host, protocol: ep.protocol } : {}) };
    let c: Client;
    if (which === 'cvm') c = new cvm.v20170312.Client({ credential, region, profile: { httpProfile: base } }) as unknown as Client;
    else {
      // Billing and VPC live beside CVM: the same host with the service's name in front (VPC 2017-03-12 is regional, billing is not).
      const cvmHost = ep ? ep.host : (new cvm.v20170312.Client({ credential, region: this.o.region, profile: { httpProfile: base } }) as unknown as Client).endpoint;
      const host = ep ? ep.host : cvmHost.replace(/^cvm\./, `${which}.`);
      c = new CommonClient(host, which === 'vpc' ? '2017-03-12' : '2018-07-09', { credential, region: which === 'vpc' ? region : '', profile: { httpProfile: { ...base, endpoint: host } } }) as unknown as Client;
    }
    const origin = new URL(`${ep?.protocol ?? 'https://'}${c.endpoint}`).origin;
    // node-fetch 2 hands the agent a legacy url.parse() result (protocol, host; no origin).
    (c as unknown as { profile: { httpProfile: { agent?: unknown } } }).profile.httpProfile.agent = (url: { protocol?: string | null; host?: string | null }) => {
      const to = `${url.protocol ?? ''}//${url.host ?? ''}`.toLowerCase();
      if (to !== origin) {
        guard.refused = new ReplyError('RedirectRefused', `${origin} redirected to another origin, ${to.slice(0, 200)}: not followed, nothing was sent there`);
        guard.count++;
        throw guard.refused;
      }
      return undefined;
    };
    (c as unknown as { parseResponse: (res: FetchReply) => Promise<Record<string, unknown>> }).parseResponse = (res) => parseReply(res);
    return c;
  }

  private async call(which: 'cvm' | 'billing' | 'vpc', action: string, req: unknown, region = this.o.region): Promise<Record<string, unknown>> {
    const { client, guard } = this.client(which, region);
    const refusedBefore = guard.count;
    // Covers the body as well as the headers (node-fetch's own timeout stops at the headers once the body is read here).
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), this.o.timeoutMs);
    try {
      return (await client.request(action, req, { signal: abort.signal })) ?? {};
    } catch (e) {
      const timedOut = abort.signal.aborted;
      // A refused body is not left streaming in.
      abort.abort();
      if (guard.count !== refusedBefore && guard.refused) throw transportError(this.kind, guard.refused);
      if (isReplyError(e)) throw transportError(this.kind, e);
      const err = e as { code?: unknown; message?: string; name?: string; httpCode?: unknown };
      if (typeof err?.httpCode === 'number') throw new PlatformError(classifyFailure(this.kind, undefined, err.message, err.httpCode));
      if (err && typeof err.code === 'string' && err.code && !/^E[A-Z]+$/.test(err.code)) throw new PlatformError(classifyFailure(this.kind, err.code, err.message));
      throw transportError(this.kind, timedOut ? abort.signal.reason : e);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One CVM call in a region, bounded like every other (create.ts: RunInstances, its price inquiry, DescribeImages). */
  cvmCall(action: string, req: unknown, region: string): Promise<Record<string, unknown>> {
    return this.call('cvm', action, req, region);
  }

  /** One VPC call in a region (cloudCreate.ts: the security group a create makes), bounded like every other. */
  vpcCall(action: string, req: unknown, region: string): Promise<Record<string, unknown>> {
    return this.call('vpc', action, req, region);
  }

  /** The regions read: the user's list, or DescribeRegions in the home region (once per connector). */
  regions(): Promise<string[]> {
    return this.regionList.get();
  }

  /** Every region's instances, at most REGION_PARALLEL regions at once; each row's region is the one it was listed in. */
  async list(): Promise<PlatformInstance[]> {
    this.listed.clear();
    return this.where.listAll((r) => this.listRegion(r));
  }

  private listRegion(region: string): Promise<PlatformInstance[]> {
    return allPages(async (n) => {
      const r = await this.call('cvm', 'DescribeInstances', { Offset: n * PAGE, Limit: PAGE }, region);
      this.listed.put(r.InstanceSet);
      return tencentPage(r, PAGE);
    }, 0);
  }


  private regionFor(ref: string): Promise<{ region: string; row?: Record<string, unknown> }> {
    return this.where.find(ref, (r, x) => this.rowIn(r, x));
  }

  private async rowIn(region: string, ref: string): Promise<Record<string, unknown> | undefined> {
    const r = await this.call('cvm', 'DescribeInstances', { InstanceIds: [ref] }, region);
    const row = Array.isArray(r.InstanceSet) ? r.InstanceSet.find((x) => (x as { InstanceId?: unknown }).InstanceId === ref) : undefined;
    return row ? (row as Record<string, unknown>) : undefined;
  }

  private async raw(ref: string): Promise<{ region: string; row: Record<string, unknown> }> {
    const at = await this.regionFor(ref);
    const row = at.row ?? (await this.rowIn(at.region, ref));
    if (!row) throw new PlatformError({ platform: this.kind, kind: 'notFound', code: 'InvalidInstanceId.NotFound', message: ref });
    return { region: at.region, row };
  }

  async get(ref: string): Promise<PlatformInstance> {
    const { region, row } = await this.raw(ref);
    const p = tencentInstance(row);
    if (!p) throw new PlatformError({ platform: this.kind, kind: 'badResponse', code: 'BadResponse', message: 'instance without an id' });
    return { ...p, region };
  }

  async powerOn(ref: string, mode: PowerOnMode): Promise<void> {
    if (mode !== 'gpu') throw new PlatformError({ platform: this.kind, kind: 'notSupported', code: 'NotSupported', message: 'CVM has no no-GPU start' });
    const { region } = await this.regionFor(ref);
    await this.call('cvm', 'StartInstances', { InstanceIds: [ref] }, region);
  }

  async powerOff(ref: string, mode: PowerOffMode): Promise<void> {
    const { region } = await this.regionFor(ref);
    await this.call('cvm', 'StopInstances', { InstanceIds: [ref], StopType: 'SOFT_FIRST', StoppedMode: mode === 'stopCharging' ? 'STOP_CHARGING' : 'KEEP_CHARGING' }, region);
  }

  async release(ref: string): Promise<void> {
    const { region } = await this.regionFor(ref);
    await this.call('cvm', 'TerminateInstances', { InstanceIds: [ref] }, region);
  }

  /**
   * The price this instance bills at, by its billing mode: POSTPAID_BY_HOUR, the hourly
   * inquiry; SPOTPAID, the SPOTPAID inquiry (InstanceMarketOptions spot; MaxPrice is the SDK's
   * required ceiling of the inquiry, nothing is bought); PREPAID (包年包月), none: compute was
   * paid ahead. Undefined (shown "?") where the platform gives no figure or does not say how it bills.
   * Where the inquiry sends tiered steps, the one in force after the hours since CreatedTime.
   */
  async price(ref: string): Promise<{ fenPerHour: number; readAt: number } | undefined> {
    const listed = this.listed.take(ref);
    const { region, row } = listed ? { region: (await this.regionFor(ref)).region, row: listed } : await this.raw(ref);
    const zone = (row.Placement as { Zone?: unknown } | undefined)?.Zone;
    if (typeof row.InstanceType !== 'string' || typeof zone !== 'string') return undefined;
    const billing = tencentBilling(row.InstanceChargeType);
    if (billing !== 'postpaid' && billing !== 'spot') return undefined;
    const market = billing === 'spot' ? { InstanceChargeType: 'SPOTPAID', InstanceMarketOptions: { MarketType: 'spot', SpotOptions: { MaxPrice: '1000', SpotInstanceType: 'one-time' } } } : { InstanceChargeType: 'POSTPAID_BY_HOUR' };
    const r = await this.call('cvm', 'InquiryPriceRunInstances', { Placement: { Zone: zone }, ImageId: row.ImageId, InstanceType: row.InstanceType, ...market }, region);
    // Pay-as-you-go bills in steps by the hours used (ItemPrice: (0, 96) h, (96, 360) h, beyond): the step this instance is in now, by its CreatedTime.
    const steps = tencentPriceSteps((r.Price as { InstancePrice?: unknown } | undefined)?.InstancePrice);
    const created = typeof row.CreatedTime === 'string' ? Date.parse(row.CreatedTime) : NaN;
    const fen = steps && Number.isFinite(created) ? stepAt(steps, Math.max(0, this.o.now() - created / 1000) / 3600) : tencentPrice(r);
    return fen !== undefined ? { fenPerHour: fen, readAt: this.o.now() } : undefined;
  }

  async balance(): Promise<Balance> {
    const fen = tencentBalance(await this.call('billing', 'DescribeAccountBalance', {}));
    if (fen === undefined) throw new PlatformError({ platform: this.kind, kind: 'badResponse', code: 'BadResponse', message: 'balance without Balance' });
    return { fen, readAt: this.o.now() };
  }

  sshLogin(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  /** GPU instance types per region and zone, SELL or SOLD_OUT with the hourly price (DescribeZoneInstanceConfigInfos, pay-as-you-go): app/platforms/stock.ts. */
  async stock(q: StockQuery = {}): Promise<StockRow[]> {
    return readTencentStock(q.regions?.length ? q.regions : await this.regions(), (region) => this.call('cvm', 'DescribeZoneInstanceConfigInfos', { Filters: [{ Name: 'instance-charge-type', Values: ['POSTPAID_BY_HOUR'] }] }, region), this.o.now);
  }
}

function endpointParts(ep: string): { host: string; protocol: string } {
  const m = /^(https?):\/\/([^/]+)\/?$/.exec(ep.trim());
  return m ? { host: m[2]!, protocol: `${m[1]}://` } : { host: ep.trim(), protocol: 'https://' };
}

/** The SDK's parseResponse, over a bounded read: a non-200 status, the API's own error, or the Response. */
async function parseReply(res: FetchReply): Promise<Record<string, unknown>> {
  const body = res.body as unknown as Readable;
  if (res.status !== 200) {
    body.destroy();
    throw Object.assign(new Error(res.statusText || `HTTP ${res.status}`), { httpCode: res.status });
  }
  const parsed = replyJson(await readCapped(body));
  if (!parsed.ok) throw parsed.reason === 'tooDeep' ? tooDeep() : Object.assign(new Error('the reply is not JSON'), { code: 'BadResponse' });
  const r = (parsed.value as { Response?: unknown } | null)?.Response;
  if (!r || typeof r !== 'object' || Array.isArray(r)) throw Object.assign(new Error('the reply has no Response'), { code: 'BadResponse' });
  const resp = r as { Error?: { Code?: unknown; Message?: unknown } };
  if (resp.Error) throw Object.assign(new Error(typeof resp.Error.Message === 'string' ? resp.Error.Message : 'error'), { code: typeof resp.Error.Code === 'string' ? resp.Error.Code : 'UnknownError' });
  return r as Record<string, unknown>;
}

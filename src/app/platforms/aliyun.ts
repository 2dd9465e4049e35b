// 阿里云 ECS through the official SDK (@alicloud/ecs20140526, config from
// @alicloud/openapi-client), the balance through BSS (@alicloud/bssopenapi20171214). The SDKs
// sign every request with the AccessKey (ACS3-HMAC-SHA256); no retries are configured, so a
// power action is sent once. Loaded only when an 阿里云 account is used.
import { aliyunBalance, aliyunBilling, aliyunInstance, aliyunPage, aliyunPrice, aliyunRegions, aliyunSpotPrice } from '../../core/platforms/aliyun';
import type { RegionChoice } from '../../core/platforms/regions';
import { classifyFailure } from '../../core/platforms/errors';
import { CONNECTOR_CAPABILITIES, type Balance, type Connector, type PlatformInstance, type PowerOffMode, type PowerOnMode } from '../../core/platforms/types';
import { PlatformError, transportError } from './errors';
import { isReplyError } from './http';
import { loadSdks, type PlatformSdks } from './loadSdks';
import { allPages, RegionIndex, RegionList } from './regions';
import { ListedRows } from './listedRows';
import type { StockRow } from '../../core/platforms/stock';
import { readAliyunStock, type StockQuery } from './stock';
import { ALIYUN_CREATE } from './aliyunCreate';

export interface AliyunOptions {
  accessKeyId: string;
  accessKeySecret: string;
  /** The home region: DescribeRegions and BSS are asked there. */
  regionId: string;
  /** The regions to read: 'all' (DescribeRegions) or a list; the home region alone when absent. */
  regions?: RegionChoice;
  /** host[:port] or a URL (GPU_RENT_ALIYUN_ENDPOINT / setting); the SDK's own when empty. */
  endpoint?: string;
  timeoutMs: number;
  now: () => number;
}

const PAGE = 100;

type Sdk = Pick<PlatformSdks, 'ecs' | 'bss' | 'Config'>;

export class AliyunConnector implements Connector {
  readonly kind = 'aliyun-ecs' as const;
  readonly capabilities = CONNECTOR_CAPABILITIES['aliyun-ecs'];
  /** `gpu-rent create` / Create Platform Instance: its preview, request, send and reply (aliyunCreate.ts). */
  readonly createHooks = ALIYUN_CREATE;
  private sdk: Promise<Sdk> | undefined;
  private readonly regionList: RegionList;
  /** The region each instance was listed in (power actions and prices go there). */
  private readonly where = new RegionIndex('aliyun-ecs', () => this.regions(), true);
  /** The last list's rows: a price read after it needs no second DescribeInstances. */
  private readonly listed = new ListedRows('InstanceId');

  constructor(private readonly o: AliyunOptions) {
    this.regionList = new RegionList(o.regions, o.regionId, () => this.ecs((c, m) => c.describeRegions(new m.DescribeRegionsRequest({}))).then(aliyunRegions));
  }

  private load(): Promise<Sdk> {
    return (this.sdk ??= Promise.resolve().then(loadSdks));
  }

  private config(sdk: Sdk, region = this.o.regionId) {
    const ep = this.o.endpoint ? endpointParts(this.o.endpoint) : undefined;
    return new sdk.Config({
      accessKeyId: this.o.accessKeyId,
      accessKeySecret: this.o.accessKeySecret,
      regionId: region,
      ...(ep ? { endpoint: ep.host, protocol: ep.protocol } : {}),
      readTimeout: this.o.timeoutMs,
      connectTimeout: this.o.timeoutMs,
    });
  }

  private async ecs(fn: (c: InstanceType<Sdk['ecs']['default']>, m: Sdk['ecs']) => Promise<{ body?: { toMap(): Record<string, unknown> } }>, region = this.o.regionId): Promise<Record<string, unknown>> {
    const sdk = await this.load();
    try {
      const r = await fn(new sdk.ecs.default(this.config(sdk, region)), sdk.ecs);
      return r.body?.toMap() ?? {};
    } catch (e) {
      throw this.error(e);
    }
  }

  private error(e: unknown): PlatformError {
    if (isReplyError(e)) return transportError(this.kind, e);
    const err = e as { code?: unknown; statusCode?: unknown; data?: { Message?: unknown; Code?: unknown }; message?: string };
    if (err && (typeof err.statusCode === 'number' || (typeof err.code === 'string' && !/^E[A-Z]+$/.test(err.code)))) {
      return new PlatformError(classifyFailure(this.kind, err.data?.Code ?? err.code, err.data?.Message ?? err.message, typeof err.statusCode === 'number' ? err.statusCode : undefined));
    }
    return transportError(this.kind, e);
  }

  /** One ECS call in a region through the SDK, bounded like every other (create.ts: RunInstances, DescribePrice, DescribeImages). */
  ecsCall(fn: (c: InstanceType<Sdk['ecs']['default']>, m: Sdk['ecs']) => Promise<{ body?: { toMap(): Record<string, unknown> } }>, region: string): Promise<Record<string, unknown>> {
    return this.ecs(fn, region);
  }

  /** The regions read: the user's list, or DescribeRegions in the home region (once per connector). */
  regions(): Promise<string[]> {
    return this.regionList.get();
  }

  /** Every region's instances, at most REGION_PARALLEL regions at once, each row with the region it lives in. */
  async list(): Promise<PlatformInstance[]> {
    this.listed.clear();
    return this.where.listAll((r) => this.listRegion(r));
  }

  private listRegion(region: string): Promise<PlatformInstance[]> {
    return allPages(async (n) => {
      const body = await this.ecs((c, m) => c.describeInstances(new m.DescribeInstancesRequest({ regionId: region, pageNumber: n, pageSize: PAGE })), region);
      this.listed.put((body.Instances as { Instance?: unknown } | undefined)?.Instance);
      return aliyunPage(body, PAGE);
    }, 1);
  }


  private regionFor(ref: string): Promise<{ region: string; row?: Record<string, unknown> }> {
    return this.where.find(ref, (r, x) => this.rowIn(r, x));
  }

  private async rowIn(region: string, ref: string): Promise<Record<string, unknown> | undefined> {
    const body = await this.ecs((c, m) => c.describeInstances(new m.DescribeInstancesRequest({ regionId: region, instanceIds: JSON.stringify([ref]) })), region);
    const list = (body.Instances as { Instance?: unknown[] } | undefined)?.Instance;
    const row = Array.isArray(list) ? list.find((r) => (r as { InstanceId?: unknown }).InstanceId === ref) : undefined;
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
    const p = aliyunInstance(row);
    if (!p) throw new PlatformError({ platform: this.kind, kind: 'badResponse', code: 'BadResponse', message: 'instance without an id' });
    return { ...p, region: p.region ?? region };
  }

  async powerOn(ref: string, mode: PowerOnMode): Promise<void> {
    if (mode !== 'gpu') throw new PlatformError({ platform: this.kind, kind: 'notSupported', code: 'NotSupported', message: 'ECS has no no-GPU start' });
    const { region } = await this.regionFor(ref);
    await this.ecs((c, m) => c.startInstance(new m.StartInstanceRequest({ instanceId: ref })), region);
  }

  async powerOff(ref: string, mode: PowerOffMode): Promise<void> {
    const { region } = await this.regionFor(ref);
    await this.ecs((c, m) => c.stopInstance(new m.StopInstanceRequest({ instanceId: ref, stoppedMode: mode === 'stopCharging' ? 'StopCharging' : 'KeepCharging' })), region);
  }

  async release(ref: string): Promise<void> {
    // DeleteInstance with Force=false needs a stopped instance: nothing is sent for one that is not.
    const now = await this.get(ref);
    if (now.state !== 'stopped') throw new PlatformError({ platform: this.kind, kind: 'invalidState', code: 'NotStopped', message: `the instance is ${now.rawState || now.state}: shut it down first (power-off), wait until it is stopped, then release it` });
    const { region } = await this.regionFor(ref);
    await this.ecs((c, m) => c.deleteInstance(new m.DeleteInstanceRequest({ instanceId: ref, force: false })), region);
  }

  /**
   * The price this instance bills at, by its billing mode: pay-as-you-go, DescribePrice's
   * hourly quote in its region and zone; spot, the latest SpotPrice of DescribeSpotPriceHistory
   * for its type and zone (never the on-demand quote); prepaid (包年包月), none: compute was
   * paid ahead. Undefined (shown "?") where the platform gives no figure or does not say how it bills.
   */
  async price(ref: string): Promise<{ fenPerHour: number; readAt: number } | undefined> {
    const listed = this.listed.take(ref);
    const { region, row } = listed ? { region: (await this.regionFor(ref)).region, row: listed } : await this.raw(ref);
    const type = typeof row.InstanceType === 'string' ? row.InstanceType : undefined;
    if (!type) return undefined;
    const zone = typeof row.ZoneId === 'string' ? row.ZoneId : undefined;
    const billing = aliyunBilling(row.InstanceChargeType, row.SpotStrategy);
    let fen: number | undefined;
    if (billing === 'spot') {
      const network = row.InstanceNetworkType === 'classic' ? 'classic' : 'vpc';
      const os = row.OSType === 'windows' ? 'windows' : row.OSType === 'linux' ? 'linux' : undefined;
      const body = await this.ecs((c, m) => c.describeSpotPriceHistory(new m.DescribeSpotPriceHistoryRequest({ regionId: region, instanceType: type, networkType: network, ...(zone ? { zoneId: zone } : {}), ...(os ? { OSType: os } : {}), ...(row.IoOptimized === false ? { ioOptimized: 'none' } : {}) })), region);
      fen = aliyunSpotPrice(body);
    } else if (billing === 'postpaid') {
      const body = await this.ecs((c, m) => c.describePrice(new m.DescribePriceRequest({ regionId: region, resourceType: 'instance', instanceType: type, priceUnit: 'Hour', ...(zone ? { zoneId: zone } : {}) })), region);
      fen = aliyunPrice(body);
    }
    return fen !== undefined ? { fenPerHour: fen, readAt: this.o.now() } : undefined;
  }

  async balance(): Promise<Balance> {
    const sdk = await this.load();
    let body: Record<string, unknown>;
    try {
      const r = await new sdk.bss.default(this.config(sdk)).queryAccountBalance();
      body = r.body?.toMap() ?? {};
    } catch (e) {
      throw this.error(e);
    }
    if (body.Success === false) throw new PlatformError(classifyFailure(this.kind, body.Code, body.Message));
    const fen = aliyunBalance(body);
    if (fen === undefined) throw new PlatformError({ platform: this.kind, kind: 'badResponse', code: 'BadResponse', message: 'balance without AvailableAmount' });
    return { fen, readAt: this.o.now() };
  }

  sshLogin(): Promise<undefined> {
    // ECS returns no password; the login the user entered (a key, usually) stays.
    return Promise.resolve(undefined);
  }

  /** GPU instance types per region and zone, Available or SoldOut (DescribeAvailableResource, pay-as-you-go): app/platforms/stock.ts. */
  async stock(q: StockQuery = {}): Promise<StockRow[]> {
    return readAliyunStock(q.regions?.length ? q.regions : await this.regions(), (region) => this.ecs((c, m) => c.describeAvailableResource(new m.DescribeAvailableResourceRequest({ regionId: region, destinationResource: 'InstanceType', instanceChargeType: 'PostPaid', resourceType: 'instance' })), region), this.o.now);
  }
}

/** "127.0.0.1:8080", "http://127.0.0.1:8080" or "ecs.example:443" → host and protocol for the SDK. */
export function endpointParts(ep: string): { host: string; protocol: 'http' | 'https' } {
  const m = /^(https?):\/\/([^/]+)\/?$/.exec(ep.trim());
  return m ? { host: m[2]!, protocol: m[1] as 'http' | 'https' } : { host: ep.trim(), protocol: 'https' };
}

// 阿里云 ECS through the official SDK (@alicloud/ecs20140526, config from
// @alicloud/openapi-client), the balance through BSS (@alicloud/bssopenapi20171214). The SDKs
// sign every request with the AccessKey (ACS3-HMAC-SHA256); no retries are configured, so a
// power action is sent once. Loaded only when an 阿里云 account is used.
import { aliyunBalance, aliyunInstance, aliyunPage, aliyunPrice } from '../../core/platforms/aliyun';
import { classifyFailure } from '../../core/platforms/errors';
import { CONNECTOR_CAPABILITIES, MAX_INSTANCES_PER_ACCOUNT, type Balance, type Connector, type PlatformInstance, type PowerOffMode, type PowerOnMode } from '../../core/platforms/types';
import { PlatformError, transportError } from './errors';
import { isReplyError } from './http';
import { loadSdks, type PlatformSdks } from './loadSdks';

export interface AliyunOptions {
  accessKeyId: string;
  accessKeySecret: string;
  regionId: string;
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
  private sdk: Promise<Sdk> | undefined;

  constructor(private readonly o: AliyunOptions) {}

  private load(): Promise<Sdk> {
    return (this.sdk ??= Promise.resolve().then(loadSdks));
  }

  private config(sdk: Sdk) {
    const ep = this.o.endpoint ? endpointParts(this.o.endpoint) : undefined;
    return new sdk.Config({
      accessKeyId: this.o.accessKeyId,
      accessKeySecret: this.o.accessKeySecret,
      regionId: this.o.regionId,
      ...(ep ? { endpoint: ep.host, protocol: ep.protocol } : {}),
      readTimeout: this.o.timeoutMs,
      connectTimeout: this.o.timeoutMs,
    });
  }

  private async ecs(fn: (c: InstanceType<Sdk['ecs']['default']>, m: Sdk['ecs']) => Promise<{ body?: { toMap(): Record<string, unknown> } }>): Promise<Record<string, unknown>> {
    const sdk = await this.load();
    try {
      const r = await fn(new sdk.ecs.default(this.config(sdk)), sdk.ecs);
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

  async list(): Promise<PlatformInstance[]> {
    const out: PlatformInstance[] = [];
    for (let page = 1; out.length < MAX_INSTANCES_PER_ACCOUNT; page++) {
      const body = await this.ecs((c, m) => c.describeInstances(new m.DescribeInstancesRequest({ regionId: this.o.regionId, pageNumber: page, pageSize: PAGE })));
      const p = aliyunPage(body, PAGE);
      out.push(...p.instances);
      if (out.length >= p.total || p.instances.length === 0) break;
    }
    return out.slice(0, MAX_INSTANCES_PER_ACCOUNT);
  }

  private async raw(ref: string): Promise<Record<string, unknown>> {
    const body = await this.ecs((c, m) => c.describeInstances(new m.DescribeInstancesRequest({ regionId: this.o.regionId, instanceIds: JSON.stringify([ref]) })));
    const list = (body.Instances as { Instance?: unknown[] } | undefined)?.Instance;
    const row = Array.isArray(list) ? list.find((r) => (r as { InstanceId?: unknown }).InstanceId === ref) : undefined;
    if (!row) throw new PlatformError({ platform: this.kind, kind: 'notFound', code: 'InvalidInstanceId.NotFound', message: ref });
    return row as Record<string, unknown>;
  }

  async get(ref: string): Promise<PlatformInstance> {
    const p = aliyunInstance(await this.raw(ref));
    if (!p) throw new PlatformError({ platform: this.kind, kind: 'badResponse', code: 'BadResponse', message: 'instance without an id' });
    return p;
  }

  async powerOn(ref: string, mode: PowerOnMode): Promise<void> {
    if (mode !== 'gpu') throw new PlatformError({ platform: this.kind, kind: 'notSupported', code: 'NotSupported', message: 'ECS has no no-GPU start' });
    await this.ecs((c, m) => c.startInstance(new m.StartInstanceRequest({ instanceId: ref })));
  }

  async powerOff(ref: string, mode: PowerOffMode): Promise<void> {
    await this.ecs((c, m) => c.stopInstance(new m.StopInstanceRequest({ instanceId: ref, stoppedMode: mode === 'stopCharging' ? 'StopCharging' : 'KeepCharging' })));
  }

  async release(ref: string): Promise<void> {
    // DeleteInstance with Force=false needs a stopped instance: nothing is sent for one that is not.
    const now = await this.get(ref);
    if (now.state !== 'stopped') throw new PlatformError({ platform: this.kind, kind: 'invalidState', code: 'NotStopped', message: `the instance is ${now.rawState || now.state}: shut it down first (power-off), wait until it is stopped, then release it` });
    await this.ecs((c, m) => c.deleteInstance(new m.DeleteInstanceRequest({ instanceId: ref, force: false })));
  }

  async price(ref: string): Promise<{ fenPerHour: number; readAt: number } | undefined> {
    const row = await this.raw(ref);
    const type = typeof row.InstanceType === 'string' ? row.InstanceType : undefined;
    if (!type) return undefined;
    const zone = typeof row.ZoneId === 'string' ? row.ZoneId : undefined;
    const body = await this.ecs((c, m) => c.describePrice(new m.DescribePriceRequest({ regionId: this.o.regionId, resourceType: 'instance', instanceType: type, priceUnit: 'Hour', ...(zone ? { zoneId: zone } : {}) })));
    const fen = aliyunPrice(body);
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
}

/** "127.0.0.1:8080", "http://127.0.0.1:8080" or "ecs.example:443" → host and protocol for the SDK. */
export function endpointParts(ep: string): { host: string; protocol: 'http' | 'https' } {
  const m = /^(https?):\/\/([^/]+)\/?$/.exec(ep.trim());
  return m ? { host: m[2]!, protocol: m[1] as 'http' | 'https' } : { host: ep.trim(), protocol: 'https' };
}

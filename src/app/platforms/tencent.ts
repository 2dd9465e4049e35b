// 腾讯云 CVM through the official SDK (tencentcloud-sdk-nodejs-cvm), the balance through
// billing's DescribeAccountBalance with the common SDK's CommonClient (there is no separate
// billing package on the registry). Requests are TC3-HMAC-SHA256 signed with the SecretId/Key;
// the SDK does not retry, so a power action is sent once.
import { classifyFailure } from '../../core/platforms/errors';
import { tencentBalance, tencentInstance, tencentPage, tencentPrice } from '../../core/platforms/tencent';
import { CONNECTOR_CAPABILITIES, type Balance, type Connector, type PlatformInstance, type PowerOffMode, type PowerOnMode } from '../../core/platforms/types';
import { PlatformError, transportError } from './errors';
import { loadSdks } from './loadSdks';

export interface TencentOptions {
  secretId: string;
  secretKey: string;
  region: string;
  /** host[:port] or URL (GPU_RENT_TENCENT_ENDPOINT / setting) for CVM and billing; the SDK's own when empty. */
  endpoint?: string;
  timeoutMs: number;
  now: () => number;
}

const PAGE = 100;
const MAX_PAGES = 50;

type Client = { request(action: string, req: unknown): Promise<Record<string, unknown>>; endpoint?: string };

export class TencentConnector implements Connector {
  readonly kind = 'tencent-cvm' as const;
  readonly capabilities = CONNECTOR_CAPABILITIES['tencent-cvm'];
  private clients: Promise<{ cvm: Client; billing: Client }> | undefined;

  constructor(private readonly o: TencentOptions) {}

  private load(): Promise<{ cvm: Client; billing: Client }> {
    return (this.clients ??= (async () => {
      const { cvm, CommonClient } = loadSdks();
      const ep = this.o.endpoint ? endpointParts(this.o.endpoint) : undefined;
      const httpProfile = { reqTimeout: Math.max(1, Math.ceil(this.o.timeoutMs / 1000)), ...(ep ? { endpoint: ep.host, protocol: ep.protocol } : {}) };
      const credential = { secretId: this.o.secretId, secretKey: this.o.secretKey };
      const c = new cvm.v20170312.Client({ credential, region: this.o.region, profile: { httpProfile } }) as unknown as Client & { endpoint: string };
      // Billing lives beside CVM: the same host with the service's name in front.
      const billingHost = ep ? ep.host : c.endpoint.replace(/^cvm\./, 'billing.');
      const billing = new CommonClient(billingHost, '2018-07-09', { credential, region: '', profile: { httpProfile: { ...httpProfile, endpoint: billingHost } } }) as unknown as Client;
      return { cvm: c, billing };
    })());
  }

  private async call(which: 'cvm' | 'billing', action: string, req: unknown): Promise<Record<string, unknown>> {
    const clients = await this.load();
    try {
      return (await clients[which].request(action, req)) ?? {};
    } catch (e) {
      const err = e as { code?: unknown; message?: string; name?: string };
      if (err && typeof err.code === 'string' && err.code && !/^E[A-Z]+$/.test(err.code)) throw new PlatformError(classifyFailure(this.kind, err.code, err.message));
      throw transportError(this.kind, e);
    }
  }

  async list(): Promise<PlatformInstance[]> {
    const out: PlatformInstance[] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      const p = tencentPage(await this.call('cvm', 'DescribeInstances', { Offset: page * PAGE, Limit: PAGE }));
      out.push(...p.instances);
      if (out.length >= p.total || p.instances.length === 0) break;
    }
    return out;
  }

  private async raw(ref: string): Promise<Record<string, unknown>> {
    const r = await this.call('cvm', 'DescribeInstances', { InstanceIds: [ref] });
    const row = Array.isArray(r.InstanceSet) ? r.InstanceSet.find((x) => (x as { InstanceId?: unknown }).InstanceId === ref) : undefined;
    if (!row) throw new PlatformError({ platform: this.kind, kind: 'notFound', code: 'InvalidInstanceId.NotFound', message: ref });
    return row as Record<string, unknown>;
  }

  async get(ref: string): Promise<PlatformInstance> {
    const p = tencentInstance(await this.raw(ref));
    if (!p) throw new PlatformError({ platform: this.kind, kind: 'badResponse', code: 'BadResponse', message: 'instance without an id' });
    return p;
  }

  async powerOn(ref: string, mode: PowerOnMode): Promise<void> {
    if (mode !== 'gpu') throw new PlatformError({ platform: this.kind, kind: 'notSupported', code: 'NotSupported', message: 'CVM has no no-GPU start' });
    await this.call('cvm', 'StartInstances', { InstanceIds: [ref] });
  }

  async powerOff(ref: string, mode: PowerOffMode): Promise<void> {
    await this.call('cvm', 'StopInstances', { InstanceIds: [ref], StopType: 'SOFT_FIRST', StoppedMode: mode === 'stopCharging' ? 'STOP_CHARGING' : 'KEEP_CHARGING' });
  }

  async release(ref: string): Promise<void> {
    await this.call('cvm', 'TerminateInstances', { InstanceIds: [ref] });
  }

  async price(ref: string): Promise<{ fenPerHour: number; readAt: number } | undefined> {
    const row = await this.raw(ref);
    const zone = (row.Placement as { Zone?: unknown } | undefined)?.Zone;
    if (typeof row.InstanceType !== 'string' || typeof zone !== 'string') return undefined;
    const r = await this.call('cvm', 'InquiryPriceRunInstances', { Placement: { Zone: zone }, ImageId: row.ImageId, InstanceType: row.InstanceType, InstanceChargeType: 'POSTPAID_BY_HOUR' });
    const fen = tencentPrice(r);
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
}

function endpointParts(ep: string): { host: string; protocol: string } {
  const m = /^(https?):\/\/([^/]+)\/?$/.exec(ep.trim());
  return m ? { host: m[2]!, protocol: `${m[1]}://` } : { host: ep.trim(), protocol: 'https://' };
}

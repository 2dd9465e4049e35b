// The platform registry: each kind's descriptor (core/platforms/descriptors.ts, data) and its
// adapter factory (the connector made from an account, its secret and its endpoint). A new
// connector is one descriptor there and one line here; accounts.ts, the settings, the CLI and
// the extension read both through this module.
import { PLATFORM_DESCRIPTORS, type PlatformDescriptor, type PlatformKind } from '../../core/platforms/descriptors';
import { regionChoice, type StoredRegion } from '../../core/platforms/regions';
import type { Connector } from '../../core/platforms/types';
import { AliyunConnector } from './aliyun';
import { AutodlProConnector, AutodlWebConnector, type SnapshotCache } from './autodl';
import { TencentConnector } from './tencent';

export interface ConnectorOptions {
  timeoutMs: number;
  now: () => number;
  /** AutoDL: snapshots kept across polls by the caller (read again only when an instance's state changes). */
  snapshots?: SnapshotCache;
}

export interface AdapterInput {
  region: StoredRegion;
  /** The secret, already checked against the descriptor's fields. */
  secret: Readonly<Record<string, string>>;
  /** The endpoint override, else the descriptor's default; undefined: the SDK's own. */
  endpoint: string | undefined;
  options: ConnectorOptions;
}

export interface PlatformEntry {
  descriptor: PlatformDescriptor;
  connect(input: AdapterInput): Connector;
}

/** Where an account's region-wide calls (DescribeRegions, the balance) go: its first chosen region, else the platform's default. */
export function homeRegion(region: StoredRegion, fallback: string): string {
  const c = regionChoice(region);
  return c === 'all' ? fallback : c[0]!;
}

const defaultRegion = (kind: PlatformKind): string => PLATFORM_DESCRIPTORS[kind].regions?.default ?? '';

const ADAPTERS: { readonly [K in PlatformKind]: (i: AdapterInput) => Connector } = {
  'autodl-pro': ({ secret, endpoint, options }) => new AutodlProConnector({ baseUrl: endpoint ?? '', token: secret.token!, ...options }),
  'autodl-web': ({ secret, endpoint, options }) => new AutodlWebConnector({ baseUrl: endpoint ?? '', token: secret.token!, ...options }),
  'aliyun-ecs': ({ region, secret, endpoint, options }) =>
    new AliyunConnector({ accessKeyId: secret.accessKeyId!, accessKeySecret: secret.accessKeySecret!, regionId: homeRegion(region, defaultRegion('aliyun-ecs')), regions: regionChoice(region), ...(endpoint ? { endpoint } : {}), ...options }),
  'tencent-cvm': ({ region, secret, endpoint, options }) =>
    new TencentConnector({ secretId: secret.secretId!, secretKey: secret.secretKey!, region: homeRegion(region, defaultRegion('tencent-cvm')), regions: regionChoice(region), ...(endpoint ? { endpoint } : {}), ...options }),
};

export const PLATFORM_REGISTRY: { readonly [K in PlatformKind]: PlatformEntry } = Object.fromEntries(
  (Object.keys(ADAPTERS) as PlatformKind[]).map((k) => [k, { descriptor: PLATFORM_DESCRIPTORS[k], connect: ADAPTERS[k] }]),
) as { readonly [K in PlatformKind]: PlatformEntry };

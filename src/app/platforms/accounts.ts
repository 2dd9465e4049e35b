// Platform accounts: what identifies one (never its secret), the secret's fields per platform,
// the endpoints (overridable for tests and proxies), and the connector made from them. The
// CLI reads secrets from environment variables or a 0600 file under ~/.config/gpu-rent/; the
// extension keeps them in SecretStorage. Both make connectors here.
import { z } from 'zod';
import { PLATFORM_KINDS, type Connector, type PlatformKind } from '../../core/platforms/types';
import { MAX_REGIONS, parseRegionText, REGION_ID, regionChoice, type StoredRegion } from '../../core/platforms/regions';
import { AutodlProConnector, type SnapshotCache, AutodlWebConnector } from './autodl';
import { AliyunConnector } from './aliyun';
import { TencentConnector } from './tencent';

export const AccountSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  kind: z.enum(PLATFORM_KINDS),
  label: z.string().min(1).max(120),
  /**
   * Clouds: one region id (the first form, still read), "all" (every region DescribeRegions
   * names; also what an absent region means) or the list the user chose.
   */
  region: z.union([z.string().regex(REGION_ID), z.array(z.string().regex(REGION_ID)).min(1).max(MAX_REGIONS)]).optional(),
  /** Power actions (on, off, release) are allowed for this account; read-only when false. */
  powerActions: z.boolean().default(false),
});
export type Account = z.infer<typeof AccountSchema>;

const line = (max: number) => z.string().min(1).max(max).regex(/^[^\s]+$/, 'one word without spaces');
export const SecretSchemas = {
  'autodl-pro': z.strictObject({ token: line(4096) }),
  'autodl-web': z.strictObject({ token: line(8192) }),
  'aliyun-ecs': z.strictObject({ accessKeyId: line(128), accessKeySecret: line(256) }),
  'tencent-cvm': z.strictObject({ secretId: line(128), secretKey: line(256) }),
} as const;
export type Secret = Record<string, string>;

/** The secret's fields and the environment variables the CLI reads them from. */
export const SECRET_ENV: Record<PlatformKind, Record<string, string>> = {
  'autodl-pro': { token: 'GPU_RENT_AUTODL_TOKEN' },
  'autodl-web': { token: 'GPU_RENT_AUTODL_WEB_TOKEN' },
  'aliyun-ecs': { accessKeyId: 'ALIBABA_CLOUD_ACCESS_KEY_ID', accessKeySecret: 'ALIBABA_CLOUD_ACCESS_KEY_SECRET' },
  'tencent-cvm': { secretId: 'TENCENTCLOUD_SECRET_ID', secretKey: 'TENCENTCLOUD_SECRET_KEY' },
};

export const DEFAULT_REGION: Partial<Record<PlatformKind, string>> = { 'aliyun-ecs': 'cn-hangzhou', 'tencent-cvm': 'ap-guangzhou' };

export function parseSecret(kind: PlatformKind, raw: unknown): { ok: true; secret: Secret } | { ok: false; message: string } {
  const r = SecretSchemas[kind].safeParse(raw);
  if (r.success) return { ok: true, secret: r.data as Secret };
  const i = r.error.issues[0];
  return { ok: false, message: i ? `${i.path.join('.')}: ${i.message}` : 'invalid secret' };
}

export interface Endpoints {
  autodlApi?: string;
  autodlWebApi?: string;
  aliyun?: string;
  tencent?: string;
}

/** GPU_RENT_AUTODL_API, GPU_RENT_AUTODL_WEB_API, GPU_RENT_ALIYUN_ENDPOINT, GPU_RENT_TENCENT_ENDPOINT. */
export function endpointsFromEnv(env: Record<string, string | undefined>): Endpoints {
  const v = (k: string) => (env[k] && env[k]!.length <= 2000 ? env[k] : undefined);
  return { autodlApi: v('GPU_RENT_AUTODL_API'), autodlWebApi: v('GPU_RENT_AUTODL_WEB_API'), aliyun: v('GPU_RENT_ALIYUN_ENDPOINT'), tencent: v('GPU_RENT_TENCENT_ENDPOINT') };
}

/** Settings win over the environment, field by field. */
export function mergeEndpoints(settings: Endpoints, env: Endpoints): Endpoints {
  return { autodlApi: settings.autodlApi || env.autodlApi, autodlWebApi: settings.autodlWebApi || env.autodlWebApi, aliyun: settings.aliyun || env.aliyun, tencent: settings.tencent || env.tencent };
}

export interface ConnectorOptions {
  timeoutMs: number;
  now: () => number;
  /** AutoDL: snapshots kept across polls by the caller (read again only when an instance's state changes). */
  snapshots?: SnapshotCache;
}

/** AutoDL's own addresses: the developer API (Pro instances), and the web console's API (its paths start with /api/v1). */
export const AUTODL_API = 'https://api.autodl.com';
export const AUTODL_WEB_API = 'https://www.autodl.com';

export function makeConnector(account: Pick<Account, 'kind' | 'region'>, secret: Secret, endpoints: Endpoints, o: ConnectorOptions): Connector {
  switch (account.kind) {
    case 'autodl-pro':
      return new AutodlProConnector({ baseUrl: endpoints.autodlApi || AUTODL_API, token: secret.token!, ...o });
    case 'autodl-web':
      return new AutodlWebConnector({ baseUrl: endpoints.autodlWebApi || AUTODL_WEB_API, token: secret.token!, ...o });
    case 'aliyun-ecs':
      return new AliyunConnector({ accessKeyId: secret.accessKeyId!, accessKeySecret: secret.accessKeySecret!, regionId: homeRegion(account.region, DEFAULT_REGION['aliyun-ecs']!), regions: regionChoice(account.region), ...(endpoints.aliyun ? { endpoint: endpoints.aliyun } : {}), ...o });
    case 'tencent-cvm':
      return new TencentConnector({ secretId: secret.secretId!, secretKey: secret.secretKey!, region: homeRegion(account.region, DEFAULT_REGION['tencent-cvm']!), regions: regionChoice(account.region), ...(endpoints.tencent ? { endpoint: endpoints.tencent } : {}), ...o });
  }
}

/** Where an account's region-wide calls (DescribeRegions, the balance) go: its first chosen region, else the platform's default. */
export function homeRegion(region: StoredRegion, fallback: string): string {
  const c = regionChoice(region);
  return c === 'all' ? fallback : c[0]!;
}

/** Accounts the environment defines (one per platform whose variables are all set). */
export function envAccounts(env: Record<string, string | undefined>): { account: Account; secret: Secret }[] {
  const out: { account: Account; secret: Secret }[] = [];
  for (const kind of PLATFORM_KINDS) {
    const fields = SECRET_ENV[kind];
    const raw = Object.fromEntries(Object.entries(fields).map(([f, v]) => [f, env[v]]));
    if (Object.values(raw).some((x) => !x)) continue;
    const s = parseSecret(kind, raw);
    if (!s.ok) continue;
    const region = kind === 'aliyun-ecs' ? env.ALIBABA_CLOUD_REGION_ID : kind === 'tencent-cvm' ? env.TENCENTCLOUD_REGION : undefined;
    const parsed = region ? parseRegionText(region) : undefined;
    out.push({ account: { id: `env-${kind}`, kind, label: `${kind} (environment)`, powerActions: true, ...(parsed?.ok ? { region: parsed.region } : {}) }, secret: s.secret });
  }
  return out;
}

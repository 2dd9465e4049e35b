// Platform accounts: what identifies one (never its secret), the secret's fields per platform,
// the endpoints (overridable for tests and proxies), and the connector made from them, all read
// from each kind's descriptor and adapter (registry.ts). The CLI reads secrets from environment
// variables or a 0600 file under ~/.config/gpu-rent/; the extension keeps them in SecretStorage.
// Both make connectors here.
import { z } from 'zod';
import { DESCRIPTORS, PLATFORM_DESCRIPTORS, type EndpointKey } from '../../core/platforms/descriptors';
import { PLATFORM_KINDS, type Connector, type PlatformKind } from '../../core/platforms/types';
import { MAX_REGIONS, parseRegionText, REGION_ID } from '../../core/platforms/regions';
import { PLATFORM_REGISTRY, type ConnectorOptions } from './registry';

export { homeRegion, type ConnectorOptions } from './registry';

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
  /** Keep from Release on its own (app/platforms/keepAlive.ts): opt-in, needs power actions. */
  keepAlive: z.boolean().optional(),
});
export type Account = z.infer<typeof AccountSchema>;

const line = (max: number) => z.string().min(1).max(max).regex(/^[^\s]+$/, 'one word without spaces');
const secretSchema = (kind: PlatformKind) => z.strictObject(Object.fromEntries(PLATFORM_DESCRIPTORS[kind].secrets.map((f) => [f.field, line(f.maxLength)])));
export const SecretSchemas = Object.fromEntries(PLATFORM_KINDS.map((k) => [k, secretSchema(k)])) as Record<PlatformKind, ReturnType<typeof secretSchema>>;
export type Secret = Record<string, string>;

/** The secret's fields and the environment variables the CLI reads them from. */
export const SECRET_ENV: Record<PlatformKind, Record<string, string>> = Object.fromEntries(DESCRIPTORS.map((d) => [d.kind, Object.fromEntries(d.secrets.map((f) => [f.field, f.env]))])) as Record<PlatformKind, Record<string, string>>;

export const DEFAULT_REGION: Partial<Record<PlatformKind, string>> = Object.fromEntries(DESCRIPTORS.flatMap((d) => (d.regions ? [[d.kind, d.regions.default]] : [])));

export function parseSecret(kind: PlatformKind, raw: unknown): { ok: true; secret: Secret } | { ok: false; message: string } {
  const r = SecretSchemas[kind].safeParse(raw);
  if (r.success) return { ok: true, secret: r.data as Secret };
  const i = r.error.issues[0];
  return { ok: false, message: i ? `${i.path.join('.')}: ${i.message}` : 'invalid secret' };
}

export type Endpoints = Partial<Record<EndpointKey, string>>;

/** Each descriptor's endpoint variable: GPU_RENT_AUTODL_API, GPU_RENT_AUTODL_WEB_API, GPU_RENT_ALIYUN_ENDPOINT, GPU_RENT_TENCENT_ENDPOINT. */
export function endpointsFromEnv(env: Record<string, string | undefined>): Endpoints {
  const v = (k: string) => (env[k] && env[k]!.length <= 2000 ? env[k] : undefined);
  return Object.fromEntries(DESCRIPTORS.map((d) => [d.endpoint.key, v(d.endpoint.env)]));
}

/** Settings win over the environment, field by field. */
export function mergeEndpoints(settings: Endpoints, env: Endpoints): Endpoints {
  return Object.fromEntries(DESCRIPTORS.map((d) => [d.endpoint.key, settings[d.endpoint.key] || env[d.endpoint.key]]));
}

export function makeConnector(account: Pick<Account, 'kind' | 'region'>, secret: Secret, endpoints: Endpoints, o: ConnectorOptions): Connector {
  const { descriptor, connect } = PLATFORM_REGISTRY[account.kind];
  return connect({ region: account.region, secret, endpoint: endpoints[descriptor.endpoint.key] || descriptor.endpoint.default, options: o });
}

/** Accounts the environment defines (one per platform whose variables are all set). */
export function envAccounts(env: Record<string, string | undefined>): { account: Account; secret: Secret }[] {
  const out: { account: Account; secret: Secret }[] = [];
  for (const kind of PLATFORM_KINDS) {
    const d = PLATFORM_DESCRIPTORS[kind];
    const raw = Object.fromEntries(d.secrets.map((f) => [f.field, env[f.env]]));
    if (Object.values(raw).some((x) => !x)) continue;
    const s = parseSecret(kind, raw);
    if (!s.ok) continue;
    const region = d.regions ? env[d.regions.env] : undefined;
    const parsed = region ? parseRegionText(region) : undefined;
    out.push({ account: { id: `env-${kind}`, kind, label: `${kind} (environment)`, powerActions: true, ...(parsed?.ok ? { region: parsed.region } : {}) }, secret: s.secret });
  }
  return out;
}

// What a 阿里云 / 腾讯云 create sets beside the instance itself, in pure terms: the public
// bandwidth (pay by traffic, 10 Mbit/s unless asked), the login (the user's SSH public key,
// imported once as a key pair named after its fingerprint), what a spot reclaim does to each
// disk, 腾讯云's tiered hourly prices, and the zones that still sell a type where the chosen one
// is sold out. Sources: @alicloud/ecs20140526 RunInstancesRequest (InternetChargeType,
// InternetMaxBandwidthOut "0 to 100, default 0", KeyPairName, SpotInterruptionBehavior "Terminate |
// Stop, default Terminate", DataDisk.DeleteWithInstance); tencentcloud-sdk-nodejs-cvm
// cvm_models.d.ts (InternetAccessible "默认值：0Mbps", LoginSettings.KeyIds, ImportKeyPairRequest
// "OpenSSH RSA 格式", KeyName "数字，字母和下划线组成，长度不超过25个字符", ItemPrice's steps).
import type { Fen } from '../money';
import { PLATFORM_DESCRIPTORS } from './descriptors';
import type { StockRow } from './stock';
import type { PlatformKind } from './types';
import { yuanTextToFen } from './money';

/**
 * The bandwidth a cloud create asks for unless told: 10 Mbit/s, billed by traffic (per GB sent
 * out). An SSH session and checkpoint pulls need a public address; by traffic an idle box costs
 * nothing for it, where a fixed bandwidth bills every hour. Both clouds default to 0 (no public
 * address, a box nobody can reach).
 */
export const DEFAULT_BANDWIDTH_MBPS = 10;
/** RunInstancesRequest InternetMaxBandwidthOut: 0 to 100 (阿里云); 腾讯云's limit depends on the type. */
export const MAX_BANDWIDTH_MBPS = 100;

export type SpotInterruption = 'stop' | 'terminate';

export interface DiskFate {
  disk: 'system' | 'data';
  fate: 'kept' | 'released';
}

/** What a spot reclaim does, and what bills after it. */
export interface ReclaimFate {
  behavior: SpotInterruption;
  disks: DiskFate[];
  /** 'stoppedStorage': the stopped instance's disks bill (compute does not); 'detachedDisk': the kept data disk bills on its own; 'nothing'. */
  afterwards: 'stoppedStorage' | 'detachedDisk' | 'nothing';
}

/**
 * A spot reclaim, by cloud and choice. 阿里云 Stop: the instance stops in economical mode, its
 * disks stay (they bill, compute does not); Terminate: it is released with its system disk, the
 * data disk stays (gpu-rent creates it with DeleteWithInstance false) and bills on its own.
 * 腾讯云 spot reclaims release the instance (the data disk is created with DeleteWithInstance
 * false, so it stays and bills).
 */
export function spotReclaimFate(kind: PlatformKind, behavior: SpotInterruption, hasDataDisk: boolean): ReclaimFate {
  if (behavior === 'stop' && PLATFORM_DESCRIPTORS[kind].create?.spotReclaims?.includes('stop')) return { behavior, disks: [{ disk: 'system', fate: 'kept' }, ...(hasDataDisk ? [{ disk: 'data' as const, fate: 'kept' as const }] : [])], afterwards: 'stoppedStorage' };
  return { behavior: 'terminate', disks: [{ disk: 'system', fate: 'released' }, ...(hasDataDisk ? [{ disk: 'data' as const, fate: 'kept' as const }] : [])], afterwards: hasDataDisk ? 'detachedDisk' : 'nothing' };
}

/** An OpenSSH public key line: its type and base64 body (the comment is dropped). */
export interface PublicKey {
  type: string;
  body: string;
}

const KEY_TYPES = /^(ssh-rsa|ssh-ed25519|ecdsa-sha2-nistp(?:256|384|521))$/;

/** One OpenSSH public key line ("ssh-ed25519 AAAA… comment"), or undefined. */
export function parsePublicKey(text: string): PublicKey | undefined {
  const line = text.split(/\r?\n/).map((l) => l.trim()).find((l) => l && !l.startsWith('#'));
  if (!line || line.length > 16_384) return undefined;
  const [type, body] = line.split(/\s+/);
  if (!type || !body || !KEY_TYPES.test(type) || !/^[A-Za-z0-9+/]{40,}={0,2}$/.test(body)) return undefined;
  return { type, body };
}

/** Whether the cloud imports RSA keys only (the descriptor's `keyTypes`: 腾讯云 ImportKeyPair takes "OpenSSH RSA" only). */
export const rsaKeysOnly = (kind: PlatformKind): boolean => PLATFORM_DESCRIPTORS[kind].create?.keyTypes === 'rsaOnly';

/** Key types each cloud imports. */
export function keyTypeAccepted(kind: PlatformKind, type: string): boolean {
  return rsaKeysOnly(kind) ? type === 'ssh-rsa' : KEY_TYPES.test(type);
}

/** The key pair name for a key: gpu_rent_ and 12 hex of its hash (腾讯云 KeyName: letters, digits, _ , at most 25). */
export function keyPairName(hashHex: string): string {
  return `gpu_rent_${hashHex.replace(/[^0-9a-f]/g, '').slice(0, 12)}`;
}

/** The security group a create makes where the user names none: SSH (TCP 22) in, nothing else. */
export const SSH_ONLY_GROUP = { name: 'gpu-rent-ssh-only', port: 22, cidr: '0.0.0.0/0' } as const;

/** 腾讯云 ItemPrice's hourly steps, fen: (0, 96) h, (96, 360) h, beyond 360 h (the later ones only where sent). */
export interface PriceSteps {
  first: Fen;
  second?: Fen;
  third?: Fen;
}

export const STEP_HOURS = [96, 360] as const;

/** ItemPrice → its steps, the discounted price where sent (UnitPriceDiscount…), else the list price (UnitPrice…). */
export function tencentPriceSteps(item: unknown): PriceSteps | undefined {
  const p = item && typeof item === 'object' && !Array.isArray(item) ? (item as Record<string, unknown>) : {};
  const fen = (a: unknown, b: unknown) => {
    const f = yuanTextToFen(a ?? b);
    return f !== undefined && f >= 0 ? f : undefined;
  };
  const first = fen(p.UnitPriceDiscount, p.UnitPrice);
  if (first === undefined) return undefined;
  const second = fen(p.UnitPriceDiscountSecondStep, p.UnitPriceSecondStep);
  const third = fen(p.UnitPriceDiscountThirdStep, p.UnitPriceThirdStep);
  return { first, ...(second !== undefined ? { second } : {}), ...(third !== undefined ? { third } : {}) };
}

/** The hourly price in force after `hours` of use. */
export function stepAt(s: PriceSteps, hours: number): Fen {
  if (hours >= STEP_HOURS[1] && s.third !== undefined) return s.third;
  if (hours >= STEP_HOURS[0] && s.second !== undefined) return s.second;
  return s.first;
}

/** What the hours from `fromH` to `toH` of use cost, each part at its own step (fen, rounded once). */
export function steppedCost(s: PriceSteps, fromH: number, toH: number): Fen {
  const a = Math.max(0, fromH);
  const b = Math.max(a, toH);
  const part = (lo: number, hi: number, rate: Fen) => Math.max(0, Math.min(b, hi) - Math.max(a, lo)) * rate;
  const total = part(0, STEP_HOURS[0], s.first) + part(STEP_HOURS[0], STEP_HOURS[1], s.second ?? s.first) + part(STEP_HOURS[1], Infinity, s.third ?? s.second ?? s.first);
  return Math.round(total);
}

/** Other zones that sell the type now (the stock read), cheapest first; the zone asked is left out. */
export function zonesWithStock(rows: readonly StockRow[], instanceType: string, askedZone: string | undefined): { zone: string; region: string; priceFenPerHour?: Fen }[] {
  const seen = new Set<string>();
  return rows
    .filter((r) => r.status === 'free' && (r.instanceType ?? r.card) === instanceType && r.zone && r.zone !== askedZone)
    .filter((r) => (seen.has(r.zone!) ? false : (seen.add(r.zone!), true)))
    .map((r) => ({ zone: r.zone!, region: r.region, ...(r.priceFenPerHour !== undefined ? { priceFenPerHour: r.priceFenPerHour } : {}) }))
    .sort((x, y) => (x.priceFenPerHour ?? Infinity) - (y.priceFenPerHour ?? Infinity) || x.zone.localeCompare(y.zone))
    .slice(0, 10);
}

/** 腾讯云's spot termination time, "2018-08-18 12:05:33" in UTC+8 (the metadata page): epoch seconds. */
export function tencentNoticeTime(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  return Math.floor(Date.UTC(y, mo - 1, d, h, mi, s) / 1000) - 8 * 3600;
}

/** 阿里云's termination time, ISO 8601 UTC ("2015-01-05T18:02:00Z"), or with an offset: epoch seconds. */
export function isoNoticeTime(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/.test(t)) return undefined;
  const ms = Date.parse(t.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

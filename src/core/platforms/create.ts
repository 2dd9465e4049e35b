// Creating an instance, in pure terms: which connectors can, what a create asks for (card,
// count, region, image, disk, CUDA lower bound, name, spot ceiling), the CUDA bound taken from a
// PyTorch version or wheel tag, AutoDL Pro's spec ids and CUDA code, a platform's refusal read
// as one of the refusals the front ends word, and the name check that keeps a create whose
// answer was lost from being sent twice. No I/O here.
import { CUDA_TOOLKIT_DRIVERS } from '../compat/cuda-driver';
import { findRelease } from '../compat/torch-wheels';
import { compareVersions, cudaFromTag, parseTorchVersion } from '../compat/version';
import type { Fen } from '../money';
import { AUTODL_SPEC_CARDS } from './autodl';
import { PLATFORM_DESCRIPTORS } from './descriptors';
import { AUTODL_DATA_CENTERS, isAutodlDataCenter } from './stock';
import { PLATFORM_KINDS, type PlatformFailure, type PlatformInstance, type PlatformKind } from './types';

/**
 * Connectors with a create whose request and reply shapes have a source: AutoDL Pro
 * `pro/create` (the API page), 腾讯云 and 阿里云 RunInstances (the SDKs' models). The console
 * token's create/clone (`/api/v1/order/instance/create|clone/payg`) needs a host id from the
 * console's machine list and is not offered.
 */
export const CREATE_KINDS: readonly PlatformKind[] = PLATFORM_KINDS.filter((k) => PLATFORM_DESCRIPTORS[k].create !== undefined);
export const canCreate = (kind: PlatformKind): boolean => CREATE_KINDS.includes(kind);

/** The Pro API page: `req_gpu_amount` 1-4, `expand_system_disk_by_gb` 0-500. */
export const AUTODL_MAX_GPUS = 4;
export const AUTODL_MAX_EXPAND_GB = 500;
export const MAX_DISK_GB = 32_768;
/** Names are ASCII so they can double as the clouds' idempotency token (ClientToken: ASCII, at most 64). */
export const CREATE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$/;

export interface CreateSpec {
  /** AutoDL Pro: a spec id or its card ("4090-48G", "5090", "h800"); clouds: the instance type. */
  card: string;
  gpus: number;
  /** AutoDL Pro: a data center (`data_center_list`); 阿里云: a region or zone; 腾讯云: a zone (ap-guangzhou-3). */
  region?: string;
  image?: string;
  diskGb?: number;
  /** "12.1": the lowest CUDA the host's driver must offer. */
  cudaMin?: string;
  name: string;
  spot?: { maxPriceFen: Fen };
  /** Hours from now after which the platform releases it itself (阿里云 AutoReleaseTime, 腾讯云 ActionTimer). */
  autoReleaseHours?: number;
  /** 阿里云/腾讯云: public bandwidth out, Mbit/s, billed by traffic (cloudCreate.ts DEFAULT_BANDWIDTH_MBPS when absent). */
  bandwidthMbps?: number;
  /** 阿里云 spot: what a reclaim does (Stop keeps the disks; Terminate releases the instance, the data disk stays). */
  spotInterruption?: 'stop' | 'terminate';
}

export type CreateRefusalCode =
  | 'unknownCard'
  | 'unknownRegion'
  | 'imageNotFound'
  | 'imageRequired'
  | 'cudaUnmet'
  | 'balanceTooLow'
  | 'realName'
  | 'quotaExceeded'
  | 'noStock'
  | 'tooManyGpus'
  | 'diskTooLarge'
  | 'spotNotOffered'
  | 'autoReleaseNotOffered'
  | 'badName'
  | 'badCuda'
  | 'networkMissing'
  | 'badPublicKey'
  | 'badBandwidth'
  | 'spotStopNotOffered'
  | 'notSupported';

export interface CreateRefusal {
  code: CreateRefusalCode;
  /** Facts for the words: the card asked, the cards known, the CUDA asked, the balance and price … */
  detail: Record<string, string | number>;
}

const refuse = (code: CreateRefusalCode, detail: Record<string, string | number> = {}): CreateRefusal => ({ code, detail });

/** The newest CUDA any driver in the compat table offers: a bound above it no host meets. */
export const NEWEST_CUDA = CUDA_TOOLKIT_DRIVERS.reduce((a, r) => (compareVersions(r.cuda, a) > 0 ? r.cuda : a), '0.0');

/**
 * The CUDA lower bound: `--cuda-min` as given ("12.1"), else what a PyTorch build needs: a
 * wheel tag ("cu121"), a local version ("2.1.0+cu121"), or a plain release ("2.4.0": the CUDA
 * its PyPI wheel is built with). "+cpu" needs none. A bound above every driver is refused.
 */
export function cudaBound(o: { cudaMin?: string; torch?: string }): { cuda?: string; from?: 'flag' | 'torch' } | CreateRefusal {
  let cuda: string | undefined;
  let from: 'flag' | 'torch' | undefined;
  if (o.cudaMin !== undefined) {
    const m = /^(\d{1,2})\.(\d)$/.exec(o.cudaMin.trim());
    if (!m) return refuse('badCuda', { given: o.cudaMin.slice(0, 40) });
    cuda = `${Number(m[1])}.${m[2]}`;
    from = 'flag';
  } else if (o.torch !== undefined) {
    const t = o.torch.trim().slice(0, 60);
    const tag = cudaFromTag(t);
    const v = tag ? undefined : parseTorchVersion(t);
    if (tag) cuda = tag;
    else if (v?.local) {
      if (v.local === 'cpu') return {};
      cuda = cudaFromTag(v.local) ?? undefined;
      if (!cuda) return refuse('badCuda', { given: t });
    } else if (v) {
      const rel = findRelease(v.release);
      if (!rel?.pypiCuda) return refuse('badCuda', { given: t });
      cuda = rel.pypiCuda;
    } else return refuse('badCuda', { given: t });
    from = 'torch';
  }
  if (cuda === undefined) return {};
  if (compareVersions(cuda, NEWEST_CUDA) > 0) return refuse('cudaUnmet', { cuda, newest: NEWEST_CUDA });
  return { cuda, from: from! };
}

export const isRefusal = (x: unknown): x is CreateRefusal => !!x && typeof x === 'object' && typeof (x as CreateRefusal).code === 'string' && 'detail' in x;

/** AutoDL's `cuda_v_from`: 113 for CUDA 11.3, 121 for 12.1. */
export function autodlCudaCode(cuda: string): number {
  const [maj, min] = cuda.split('.').map(Number) as [number, number];
  return maj * 10 + (min ?? 0);
}

const norm = (s: string) => s.toLowerCase().replace(/nvidia|geforce|rtx|\s+/g, '');

/** A Pro spec id from what the user typed: the id itself, or the appendix's card name, or its number ("4090", "pro6000", "4080s"). */
export function autodlSpecFor(card: string): string | CreateRefusal {
  const c = card.trim().slice(0, 60);
  if (Object.hasOwn(AUTODL_SPEC_CARDS, c)) return c;
  const n = norm(c);
  for (const [spec, name] of Object.entries(AUTODL_SPEC_CARDS)) {
    const full = norm(name);
    const short = full.replace(/\(s\)/, '').replace(/-\d+g$/, '');
    if (n === full || n === short || n === norm(spec) || (full.includes('(s)') && n === short + 's')) return spec;
  }
  return refuse('unknownCard', { card: c, known: Object.entries(AUTODL_SPEC_CARDS).map(([s, name]) => `${name} (${s})`).join(', ') });
}

/** What the checks before a create decide, from what the platform said: a name already taken is the instance (never a second one). */
export function existingByName(list: readonly PlatformInstance[], name: string): PlatformInstance | undefined {
  return list.find((p) => p.name === name && p.state !== 'released' && p.state !== 'releasing');
}

/** The input checks every platform shares (before anything is sent). */
export function checkSpec(kind: PlatformKind, s: CreateSpec): CreateRefusal | undefined {
  if (!canCreate(kind)) return refuse('notSupported', { kind });
  if (!CREATE_NAME.test(s.name)) return refuse('badName', { name: s.name.slice(0, 80) });
  const t = PLATFORM_DESCRIPTORS[kind].create!;
  if (t.spec === 'cardList') {
    if (!Number.isInteger(s.gpus) || s.gpus < 1 || s.gpus > AUTODL_MAX_GPUS) return refuse('tooManyGpus', { gpus: s.gpus, max: AUTODL_MAX_GPUS });
    if (s.diskGb !== undefined && s.diskGb > AUTODL_MAX_EXPAND_GB) return refuse('diskTooLarge', { diskGb: s.diskGb, max: AUTODL_MAX_EXPAND_GB });
    if (s.spot) return refuse('spotNotOffered', { kind });
    if (s.autoReleaseHours !== undefined) return refuse('autoReleaseNotOffered', { kind });
    if (!s.image) return refuse('imageRequired', { kind });
    if (!/^(?:base-image|image)-[A-Za-z0-9]{1,40}$/.test(s.image)) return refuse('imageNotFound', { image: s.image.slice(0, 80) });
    // data_center_list takes the elastic-deployment page's data-center codes; an instance's region (neimeng-C) is another namespace.
    if (s.region !== undefined && !isAutodlDataCenter(s.region)) return refuse('unknownRegion', { region: s.region.slice(0, 60), known: Object.keys(AUTODL_DATA_CENTERS).join(', '), note: 'a data-center code; an instance region such as neimeng-C is another namespace' });
  } else {
    if (s.gpus !== 1) return refuse('tooManyGpus', { gpus: s.gpus, max: 1, note: 'the instance type fixes the GPU count' });
    if (!s.image) return refuse('imageRequired', { kind });
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(s.image)) return refuse('imageNotFound', { image: s.image.slice(0, 80) });
    if (s.diskGb !== undefined && s.diskGb > MAX_DISK_GB) return refuse('diskTooLarge', { diskGb: s.diskGb, max: MAX_DISK_GB });
    if (s.bandwidthMbps !== undefined && !(Number.isInteger(s.bandwidthMbps) && s.bandwidthMbps >= 1 && s.bandwidthMbps <= 100)) return refuse('badBandwidth', { mbps: s.bandwidthMbps, max: 100 });
    if (s.spotInterruption !== undefined && !s.spot) return refuse('spotStopNotOffered', { kind, note: 'a reclaim behaviour is for --spot' });
    if (s.spotInterruption !== undefined && !(t.spotReclaims ?? []).includes(s.spotInterruption)) return refuse('spotStopNotOffered', { kind });
    // A zone typed (required): calls go to its region.
    if (t.where === 'zone' && !(s.region && (!t.zonePattern || t.zonePattern.test(s.region)))) return refuse('unknownRegion', { region: s.region ?? '', ...(t.whereExample ? { note: `a zone such as ${t.whereExample}` } : {}) });
    if (s.region !== undefined && !/^[a-z]{2}-[a-z0-9-]{1,40}$/.test(s.region)) return refuse('unknownRegion', { region: s.region.slice(0, 60) });
  }
  return undefined;
}

/** A balance that does not cover an hour at the price: refused before anything is created. */
export function balanceRefusal(balanceFen: Fen | undefined, priceFenPerHour: Fen | undefined): CreateRefusal | undefined {
  if (balanceFen === undefined) return undefined;
  if (priceFenPerHour !== undefined ? balanceFen < priceFenPerHour : balanceFen <= 0) return refuse('balanceTooLow', { balanceFen, ...(priceFenPerHour !== undefined ? { priceFenPerHour } : {}) });
  return undefined;
}

const QUOTA = /QuotaExceed|LimitExceeded|QuotaExceeded|Quota\.|InstanceQuota|配额/i;
const BAD_TYPE = /InvalidInstanceType|InstanceType\.|InstanceTypeNotFound|InvalidParameterValue\.InstanceType|规格不存在/i;
const BAD_IMAGE = /InvalidImageId|ImageId\.|ImageNotFound|InvalidImage|镜像不存在/i;
const BAD_ZONE = /InvalidZoneId|InvalidRegionId|InvalidZone|Zone\.NotFound|InvalidParameterValue\.Zone/i;

/** A platform's refusal of a create, as one of ours (undefined: not a refusal we word; the platform's own words are shown). */
export function createRefusalOf(f: PlatformFailure, s: Pick<CreateSpec, 'card' | 'region' | 'image' | 'cudaMin'>): CreateRefusal | undefined {
  const text = `${f.code} ${f.message}`;
  const own = { platformCode: f.code, platformMessage: f.message };
  if (f.kind === 'realName') return refuse('realName', own);
  if (f.kind === 'insufficientBalance') return refuse('balanceTooLow', own);
  if (f.kind === 'quota' || QUOTA.test(text)) return refuse('quotaExceeded', own);
  if (BAD_TYPE.test(text)) return refuse('unknownCard', { card: s.card, ...own });
  if (BAD_IMAGE.test(text)) return refuse('imageNotFound', { image: s.image ?? '', ...own });
  if (BAD_ZONE.test(text)) return refuse('unknownRegion', { region: s.region ?? '', ...own });
  if (f.kind === 'noStock') return s.cudaMin ? refuse('cudaUnmet', { cuda: s.cudaMin, card: s.card, ...own }) : refuse('noStock', { card: s.card, ...own });
  return undefined;
}

/** A default name: gpu-rent-YYYYMMDD-HHMM-xxxx (Beijing time), unique enough to find again by name. */
export function defaultCreateName(nowS: number, random4hex: string): string {
  const d = new Date((nowS + 8 * 3600) * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `gpu-rent-${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}-${random4hex.replace(/[^0-9a-f]/g, '').slice(0, 4)}`;
}

/** 阿里云 AutoReleaseTime / 腾讯云 ActionTime: ISO 8601 UTC, seconds dropped to the minute's start ("2026-12-01T10:00:00Z"). */
export function autoReleaseAt(nowS: number, hours: number): string {
  const t = Math.ceil((nowS + hours * 3600) / 60) * 60;
  return new Date(t * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The idempotency token the clouds keep for a create: the same name asks for the same instance. */
export const clientToken = (name: string): string => `gpu-rent-${name}`.slice(0, 64);

// What the guards need to know about a platform. The catalog is the source of these facts: each
// platform's `guardFacts` (core/catalog/schema.ts, the field report's figures in data.ts) and its
// other fields; a platform the catalog does not (yet) describe still gets safe advice.
import { builtinCatalogJson } from '../catalog/data';
import type { GuardFactsJson } from '../catalog/schema';

/** A platform's rule for what happens to a stopped instance's data. */
export type ReleaseRule =
  /** Released, data and all, after this many consecutive days shut down (AutoDL: 15). */
  | { kind: 'releaseAfterStoppedDays'; days: number; warnFromDay: number }
  /** Stopping keeps a free snapshot for this many hours only (矩池云: 24). */
  | { kind: 'freeSnapshotHours'; hours: number };

export interface EveningQueue {
  /** Beijing hours, [fromHour, toHour). */
  fromHour: number;
  toHour: number;
  /** Typical wait to get a card in that window, seconds [min, max]. */
  waitSeconds: [number, number];
}

export interface GuardPlatformFacts {
  platform: string;
  /** AutoDL-style no-GPU mode: the box keeps running (and reachable) without a card at a low rate. */
  noGpuMode: boolean;
  /** Stopping ends the compute charge. False on the big clouds' pay-as-you-go instances. */
  stopEndsComputeBilling: boolean;
  /** The data disk survives a stop. False on 秘塔智算, where a shutdown clears it. */
  stopKeepsData: boolean;
  releaseRules: ReleaseRule[];
  eveningQueue: EveningQueue | null;
  /** How the platform tells a spot instance it is about to be reclaimed, if it does. */
  spotReclaimNotice: 'aliyunMetadata' | null;
  /** Seconds between the reclaim notice and the reclaim (阿里云: about 5 minutes). */
  spotNoticeSeconds: number | null;
}

/** The built-in catalog's guard facts by platform id (prices are not here: they live in the catalog and the instance). */
const REPORT_FACTS: Record<string, Omit<GuardPlatformFacts, 'platform'>> = Object.fromEntries(builtinCatalogJson.platforms.flatMap((p) => (p.guardFacts ? [[p.id, p.guardFacts]] : [])));

/** Platform names as users and other modules write them (each catalog platform's id and aliases) → the ids above. */
const ALIASES: Record<string, string> = Object.fromEntries(builtinCatalogJson.platforms.flatMap((p) => (p.guardFacts || p.aliases ? [[p.id, p.id], ...(p.aliases ?? []).map((a) => [a, p.id])] : [])));

// The catalog schema's guard facts are these facts (a change to one fails the type check of the other).
const _sameShape: [GuardFactsJson, Omit<GuardPlatformFacts, 'platform'>] = [{} as Omit<GuardPlatformFacts, 'platform'>, {} as GuardFactsJson];
void _sameShape;

export function normalizePlatformId(platform: string): string {
  const key = platform.trim().toLowerCase().replace(/[\s_-]+/g, '');
  return ALIASES[key] ?? ALIASES[platform.trim()] ?? key;
}

/**
 * The guard facts for a platform. `overrides` (from the catalog) win over the report's
 * defaults; an unknown platform gets the cautious default: no no-GPU mode, stopping ends
 * compute billing, no rules known.
 */
export function factsFor(platform: string, overrides: Partial<Omit<GuardPlatformFacts, 'platform'>> = {}): GuardPlatformFacts {
  const id = normalizePlatformId(platform);
  const base = REPORT_FACTS[id] ?? { noGpuMode: false, stopEndsComputeBilling: true, stopKeepsData: true, releaseRules: [], eveningQueue: null, spotReclaimNotice: null, spotNoticeSeconds: null };
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return { platform: id, ...base, ...defined };
}

/** The slice of a catalog platform (core/catalog `Platform`) the guards read. */
export interface CatalogPlatformFacts {
  id: string;
  noGpuMode: { support: string };
  stoppedBills: string;
  queue: { level: string; peakHours?: string; waitMinutes?: { min: number; max: number } };
  releaseAfterStoppedDays: { value: { min: number; max: number } | null } | null;
  /** The catalog's own guard facts; absent: the built-in catalog's for this id, else the cautious default. */
  guardFacts?: GuardFactsJson | undefined;
}

function parsePeakHours(text: string | undefined): { fromHour: number; toHour: number } | null {
  const m = /^\s*(\d{1,2}):00\s*[-–~]\s*(\d{1,2}):00\s*$/.exec(text ?? '');
  if (!m) return null;
  const fromHour = Number(m[1]);
  const toHour = Number(m[2]);
  return fromHour < 24 && toHour <= 24 && fromHour !== toHour ? { fromHour, toHour: toHour % 24 } : null;
}

/** Guard facts from a catalog platform; the report's defaults fill what the catalog leaves open. */
export function factsFromCatalog(p: CatalogPlatformFacts): GuardPlatformFacts {
  const base = p.guardFacts ? { platform: normalizePlatformId(p.id), ...p.guardFacts } : factsFor(p.id);
  const overrides: Partial<Omit<GuardPlatformFacts, 'platform'>> = {};
  if (p.noGpuMode.support === 'yes') overrides.noGpuMode = true;
  else if (p.noGpuMode.support === 'no' || p.noGpuMode.support === 'notApplicable') overrides.noGpuMode = false;
  if (p.stoppedBills === 'everything') overrides.stopEndsComputeBilling = false;
  else if (p.stoppedBills === 'storageOnly' || p.stoppedBills === 'dataLost') overrides.stopEndsComputeBilling = true;
  if (p.stoppedBills === 'dataLost') overrides.stopKeepsData = false;
  else if (p.stoppedBills === 'storageOnly' || p.stoppedBills === 'everything') overrides.stopKeepsData = true;
  const days = p.releaseAfterStoppedDays?.value?.min;
  if (typeof days === 'number' && Number.isFinite(days) && days >= 1) {
    const others = base.releaseRules.filter((r) => r.kind !== 'releaseAfterStoppedDays');
    overrides.releaseRules = [...others, { kind: 'releaseAfterStoppedDays', days, warnFromDay: Math.max(1, days - 3) }];
  }
  if (p.queue.level === 'none') overrides.eveningQueue = null;
  else {
    const hours = parsePeakHours(p.queue.peakHours) ?? (base.eveningQueue ? { fromHour: base.eveningQueue.fromHour, toHour: base.eveningQueue.toHour } : null);
    const wait = p.queue.waitMinutes;
    if (hours && (p.queue.peakHours || base.eveningQueue)) {
      const waitSeconds: [number, number] = wait && Number.isFinite(wait.min) && Number.isFinite(wait.max) ? [wait.min * 60, wait.max * 60] : (base.eveningQueue?.waitSeconds ?? [0, 0]);
      overrides.eveningQueue = { ...hours, waitSeconds };
    }
  }
  return { ...base, ...overrides, platform: base.platform };
}

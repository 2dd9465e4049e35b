// Keep a stopped instance's disk alive: AutoDL releases an instance, data and all, a fixed number
// of days after it was shut down (15), counted by the platform's own clock (`stopped_at`, or the
// console's `release_at`). A start and a shut-down restart that clock. Pure: when it is due, what
// it costs.
import { builtinCatalogJson } from '../catalog/data';
import { descriptorOf } from './descriptors';
import { can, type PlatformInstance, type PlatformKind } from './types';

const DAY = 86400;

/** About how long one keep-alive runs: the start, the platform settling, the shut-down. */
export const KEEP_ALIVE_MINUTES = 5;

/** Started once fewer than this many days are left before the release day: from day 13 of 15. */
export const KEEP_ALIVE_DAYS_BEFORE = 3;

export type KeepAliveVerdict =
  /** Inside the last days before the release day (or past it while the instance is still listed): start and stop it now. */
  | { kind: 'due'; day: number; days: number; releaseAt: number }
  /** On the clock but not yet: `dueAt` is when it becomes due. */
  | { kind: 'notYet'; day: number; days: number; releaseAt: number; dueAt: number }
  /** Not shut down (running, no-GPU, changing state): not on the release clock. */
  | { kind: 'notStopped' }
  /** Shut down, but the platform gave no stop or release time: nothing to count from. */
  | { kind: 'noClock' };

/**
 * Whether a keep-alive is due for this instance now, by the platform's clock alone (never the
 * moment gpu-rent first saw it stopped). `day` counts from 1 on the day it was shut down.
 */
export function keepAliveVerdict(i: Pick<PlatformInstance, 'state' | 'stoppedAt' | 'releaseAt'>, now: number, daysBefore = KEEP_ALIVE_DAYS_BEFORE): KeepAliveVerdict {
  if (i.state !== 'stopped') return { kind: 'notStopped' };
  const releaseAt = i.releaseAt !== undefined && Number.isFinite(i.releaseAt) ? i.releaseAt : undefined;
  if (releaseAt === undefined) return { kind: 'noClock' };
  const stoppedAt = i.stoppedAt !== undefined && Number.isFinite(i.stoppedAt) && i.stoppedAt < releaseAt ? i.stoppedAt : undefined;
  const days = stoppedAt !== undefined ? Math.max(1, Math.round((releaseAt - stoppedAt) / DAY)) : 15;
  const from = stoppedAt ?? releaseAt - days * DAY;
  const day = Math.max(1, Math.floor((now - from) / DAY) + 1);
  const dueAt = releaseAt - daysBefore * DAY;
  if (now >= dueAt) return { kind: 'due', day, days, releaseAt };
  return { kind: 'notYet', day, days, releaseAt, dueAt };
}

/**
 * Whether an account of this kind can be kept alive automatically: the platform releases stopped
 * instances on a clock and its API starts one without its GPU (AutoDL's console token). AutoDL
 * Pro's developer API starts only with the GPU, at its hourly price and only where the host has
 * a free card: there the manual Keep from Release stays, the automatic one is refused.
 */
export function keepAliveSupport(kind: PlatformKind): 'ok' | 'noClock' | 'noNoGpuStart' {
  if (!descriptorOf(kind).releasesStoppedOnClock) return 'noClock';
  if (!can(kind, 'powerOn:noGpu')) return 'noNoGpuStart';
  return 'ok';
}

/** The no-GPU rate the catalog holds for the platform (AutoDL ¥0.1/h, the field report's), fen/h; undefined where it gives none. */
export function noGpuRateFen(kind: PlatformKind): number | undefined {
  const p = builtinCatalogJson.platforms.find((x) => x.id === descriptorOf(kind).catalogPlatform);
  const y = p?.noGpuMode?.yuanPerHour;
  return typeof y === 'number' && Number.isFinite(y) && y > 0 ? Math.round(y * 100) : undefined;
}

/** What one keep-alive costs at `fenPerHour` for `seconds` (KEEP_ALIVE_MINUTES by default), rounded up to a whole fen. */
export function keepAliveCostFen(fenPerHour: number, seconds = KEEP_ALIVE_MINUTES * 60): number {
  if (!(fenPerHour > 0) || !(seconds > 0)) return 0;
  return Math.max(1, Math.ceil((fenPerHour * seconds) / 3600));
}

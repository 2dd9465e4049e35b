// Evening peak hours (19:00–23:00 Beijing time, whatever the machine's time zone) on platforms
// with evening queues, and the report's advice: start the card during the day, keep the box
// overnight in no-GPU mode rather than queueing again tomorrow evening.
import type { Fen } from '../money';
import { storageRateFor, computeRateFor, type Pricing } from '../spend';
import type { EveningQueue, GuardPlatformFacts } from './facts';

const BEIJING_OFFSET = 8 * 3600;
const DAY = 86400;

/** Hour and minute on the Beijing clock (UTC+8, no daylight saving) at epoch seconds t. */
export function beijingClock(t: number): { hour: number; minute: number } {
  const secs = (((Math.floor(t) + BEIJING_OFFSET) % DAY) + DAY) % DAY;
  return { hour: Math.floor(secs / 3600), minute: Math.floor((secs % 3600) / 60) };
}

/** Epoch seconds of the next time the Beijing clock shows `hour`:00 strictly after t. */
export function nextBeijingHour(t: number, hour: number): number {
  const dayStart = Math.floor((t + BEIJING_OFFSET) / DAY) * DAY - BEIJING_OFFSET;
  let at = dayStart + hour * 3600;
  while (at <= t) at += DAY;
  return at;
}

/** Calendar fields of t on the Beijing clock, for display at the edge. */
export function beijingDate(t: number): { year: number; month: number; day: number; hour: number; minute: number } {
  const d = new Date((Math.floor(t) + BEIJING_OFFSET) * 1000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes() };
}

export function inEveningQueue(t: number, q: EveningQueue): boolean {
  const { hour } = beijingClock(t);
  return q.fromHour <= q.toHour ? hour >= q.fromHour && hour < q.toHour : hour >= q.fromHour || hour < q.toHour;
}

export interface OvernightComparison {
  /** Epoch seconds until which the comparison runs (the next resume hour, Beijing). */
  until: number;
  seconds: number;
  /** Keeping the box in no-GPU mode; null when the platform has no such mode. */
  noGpuModeFen: Fen | null;
  /** Stopping it (disk kept; the compute charge stays on big-cloud pay-as-you-go). */
  stopFen: Fen;
  /** Releasing it costs nothing overnight, but the data disk is gone and tomorrow starts with a new box. */
  releaseFen: Fen;
  /** The cheaper of the options that keep the data; null when only no-GPU mode would and the platform has none. */
  cheapestKeeping: 'noGpuMode' | 'stop' | null;
}

export function overnightComparison(pricing: Pricing, facts: GuardPlatformFacts, now: number, resumeHour = 9): OvernightComparison {
  const until = nextBeijingHour(now, resumeHour);
  const seconds = until - now;
  const cost = (fenPerHour: number) => Math.round((fenPerHour * seconds) / 3600);
  const storagePerHour = storageRateFor(pricing, 'stopped') / 24;
  const noGpuModeFen = facts.noGpuMode && pricing.noGpuModeRate > 0 ? cost(computeRateFor(pricing, 'noGpu') + storagePerHour) : null;
  const stopCompute = facts.stopEndsComputeBilling ? computeRateFor(pricing, 'stopped') : computeRateFor(pricing, 'running');
  const stopFen = cost(stopCompute + storagePerHour);
  return { until, seconds, noGpuModeFen, stopFen, releaseFen: 0, cheapestKeeping: noGpuModeFen !== null && (noGpuModeFen <= stopFen || !facts.stopKeepsData) ? 'noGpuMode' : facts.stopKeepsData ? 'stop' : null };
}

export type PeakAdviceCode =
  /** Start the card during the day, run batches, keep the disk overnight (the report's habit). */
  | 'startInDaytime'
  /** At the end of the day, put the box in no-GPU mode instead of releasing it. */
  | 'keepOvernightInNoGpuMode'
  /** Keep it stopped rather than released: tomorrow's box would start without the data disk. */
  | 'keepOvernightStopped'
  /** A stop clears the disk on this platform (秘塔智算): sync checkpoints home before it. */
  | 'syncBeforeStopping';

export type PeakCheck =
  | { kind: 'noEveningQueue'; platform: string }
  | { kind: 'offPeak'; platform: string; nextPeakStart: number; queue: EveningQueue }
  | {
      kind: 'peak';
      platform: string;
      queue: EveningQueue;
      /** Epoch seconds when today's peak ends. */
      peakEnds: number;
      /** Typical wait for a card now, seconds [min, max]. */
      waitSeconds: [number, number];
      advice: PeakAdviceCode[];
      overnight: OvernightComparison | null;
    };

/** What to tell a user who starts or adds an instance at `now`. */
export function peakCheck(facts: GuardPlatformFacts, now: number, pricing?: Pricing): PeakCheck {
  const queue = facts.eveningQueue;
  if (!queue) return { kind: 'noEveningQueue', platform: facts.platform };
  if (!inEveningQueue(now, queue)) return { kind: 'offPeak', platform: facts.platform, nextPeakStart: nextBeijingHour(now, queue.fromHour), queue };
  const overnight = pricing ? overnightComparison(pricing, facts, now) : null;
  const advice: PeakAdviceCode[] = ['startInDaytime'];
  if (facts.noGpuMode) advice.push('keepOvernightInNoGpuMode');
  else if (facts.stopKeepsData) advice.push('keepOvernightStopped');
  // Where a stop wipes the disk, the only safe overnight plan is to sync first.
  else advice.push('syncBeforeStopping');
  return { kind: 'peak', platform: facts.platform, queue, peakEnds: nextBeijingHour(now, queue.toHour), waitSeconds: queue.waitSeconds, advice, overnight };
}

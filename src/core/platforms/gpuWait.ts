// Waiting for a card: which refusals of a power-on are worth trying again, how long to wait
// before the next try (bounded exponential backoff, never more than one call every 15 s), and
// what a refusal that ends the wait asks the user to do. Pure: numbers and codes.
import type { FailureKind } from './types';

/** The platforms' rate limits: never more than one power-on call every 15 s. */
export const MIN_CALL_INTERVAL_MS = 15_000;
/** The longest pause between two tries. */
export const MAX_CALL_INTERVAL_MS = 300_000;
/** After a rate-limit reply the next try waits at least this long. */
export const RATE_LIMITED_FLOOR_MS = 60_000;
/** Default and longest wait for a card. */
export const DEFAULT_WAIT_S = 3600;
export const MAX_WAIT_S = 86_400;

/** noCard: no free card now (try again); transient: the platform or the network failed (try again); rateLimited: slow down; stop: the wait ends now. */
export type WaitVerdict = 'noCard' | 'transient' | 'rateLimited' | 'stop';

export function waitVerdict(kind: FailureKind): WaitVerdict {
  switch (kind) {
    case 'noStock':
    case 'noGpuOnHost':
      return 'noCard';
    case 'rateLimited':
      return 'rateLimited';
    case 'server':
    case 'network':
    case 'timeout':
      return 'transient';
    default:
      return 'stop';
  }
}

export interface BackoffOptions {
  /** Floor of every pause (the rate limit); tests may lower it, never below 1 ms. */
  minMs?: number;
  maxMs?: number;
  /** 0..1 from the caller (Math.random in use, fixed in tests): up to +10 % so that many waiters do not call in step. */
  jitter?: number;
}

/**
 * The pause before try `n + 1` after `n` failed tries (n ≥ 1): min·2^(n−1), capped at max; after
 * a rate-limit reply at least twice the previous pause and at least a minute (capped too). Never
 * below the floor.
 */
export function nextDelayMs(n: number, verdict: Exclude<WaitVerdict, 'stop'>, previousMs: number, o: BackoffOptions = {}): number {
  const min = Math.max(1, o.minMs ?? MIN_CALL_INTERVAL_MS);
  const max = Math.max(min, o.maxMs ?? MAX_CALL_INTERVAL_MS);
  const steps = Math.min(Math.max(0, Math.floor(n) - 1), 30);
  let d = Math.min(max, min * 2 ** steps);
  if (verdict === 'rateLimited') d = Math.min(max, Math.max(d, previousMs * 2, Math.min(max, RATE_LIMITED_FLOOR_MS * (min / MIN_CALL_INTERVAL_MS))));
  const j = Math.min(1, Math.max(0, o.jitter ?? 0));
  return Math.max(min, Math.round(d * (1 + 0.1 * j)));
}

/** What the user should do about a refusal that ended the wait. */
export type RefusalAdvice = 'topUp' | 'realName' | 'renewToken' | 'checkKeys' | 'raiseQuota' | 'notFound' | 'checkState' | 'notSupported' | 'badResponse' | 'other';

export function refusalAdvice(kind: FailureKind): RefusalAdvice {
  switch (kind) {
    case 'insufficientBalance':
      return 'topUp';
    case 'realName':
      return 'realName';
    case 'tokenExpired':
      return 'renewToken';
    case 'auth':
      return 'checkKeys';
    case 'quota':
      return 'raiseQuota';
    case 'notFound':
      return 'notFound';
    case 'invalidState':
      return 'checkState';
    case 'notSupported':
      return 'notSupported';
    case 'badResponse':
      return 'badResponse';
    default:
      return 'other';
  }
}

/** "1 h 02 min", "3 min 05 s", "45 s": the time waited, as the CLI and the progress show it. */
export function waitedText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`;
  if (m > 0) return `${m} min ${String(sec).padStart(2, '0')} s`;
  return `${sec} s`;
}

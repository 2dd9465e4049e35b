// The one backoff of the remote layer (reconnects, watch retries).

/** Full-jitter exponential backoff: attempt 0 waits about base, doubling up to max, times 0.5–1. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(0, attempt), 30));
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}

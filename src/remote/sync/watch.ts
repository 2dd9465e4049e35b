// The watch loop: syncOnce again and again until stopped, across dropped connections.
import { backoffDelay } from '../util/backoff';
import { sleep } from '../util/sleep';
import { syncOnce } from './engine';
import type { SyncError } from './errors';
import type { SyncOptions, SyncProgress, SyncRemote, SyncReport } from './types';

export interface WatchOptions extends SyncOptions {
  /** Seconds between passes. */
  intervalSeconds: number;
  /** Reconnect backoff bounds (ms); jittered. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Errors that must not be retried (wrong password, changed host key): watch rethrows them. */
  isFatal?: (err: unknown) => boolean;
}

export type WatchEvent = { kind: 'round'; report: SyncReport } | { kind: 'error'; error: SyncError | Error; retryInMs: number };

/**
 * Repeats syncOnce until the signal aborts. Each pass asks `connect` for a connection (a pool
 * hands back the warm one, or reconnects after a drop); losing the connection waits with
 * jittered backoff and tries again. Local disk errors and a missing remote folder are also
 * retried: a box restarting or a disk being cleared are both things that pass.
 */
export async function watchSync(connect: () => Promise<SyncRemote>, opts: WatchOptions, onEvent: (e: WatchEvent) => void, onProgress?: (p: SyncProgress) => void): Promise<void> {
  const min = opts.minBackoffMs ?? 1000;
  const max = opts.maxBackoffMs ?? 30_000;
  let failures = 0;
  while (!opts.signal?.aborted) {
    try {
      const remote = await connect();
      const report = await syncOnce(remote, { ...opts, waitForSettle: false }, onProgress);
      failures = 0;
      onEvent({ kind: 'round', report });
      if (report.interrupted) return;
      await sleep(opts.intervalSeconds * 1000, opts.signal);
    } catch (err) {
      if (opts.signal?.aborted) return;
      if (opts.isFatal?.(err)) throw err;
      failures++;
      const retryInMs = backoffDelay(failures - 1, min, max);
      onEvent({ kind: 'error', error: err instanceof Error ? err : new Error(String(err)), retryInMs });
      await sleep(retryInMs, opts.signal);
    }
  }
}

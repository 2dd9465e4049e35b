// Push as both front ends offer it: the local tree is listed once (the root resolved, links
// inside it not followed), the secret scan checks exactly that list (a folder headed for a
// rented box with an unencrypted disk must not carry tokens or keys unnoticed), and the push
// uploads exactly that list (src/remote/sync/push.ts: .part on the box, verified by the box's
// SHA-256, renamed into place, resumable, never over a newer file without force). A scan that
// stopped at its cap stops the push too, unless the caller says so.
import { realpath } from 'node:fs/promises';
import { scanTree, type SecretFinding, type SecretScanResult } from './secretScan';
import { listLocalTree, pushOnce, type LocalFile, type PushOptions, type PushProgress, type PushReport, type PushSkipReason } from '../remote/sync/push';
import type { SyncRemote } from '../remote/sync';

export type { PushOptions, PushProgress, PushReport, PushSkipReason } from '../remote/sync/push';

export interface PushRequest extends Omit<PushOptions, 'tree'> {
  /** Push even when the scan finds likely secrets. */
  allowSecrets?: boolean;
  /** Push even when the scan stopped at its cap and did not read every file. */
  allowUnscanned?: boolean;
  /** Files to leave out (paths below localDir as findings name them): Upload Without These Files. */
  exclude?: readonly string[];
  /** The scan's caps (defaults: 200 000 files, 512 MiB of content). */
  scanLimits?: { maxFiles?: number; maxBytes?: number };
  /** The scan's progress (files looked at). */
  onScanProgress?: (filesSeen: number) => void;
}

export type PushResult =
  | { kind: 'pushed'; report: PushReport; scan: SecretScanResult }
  /** Stopped before any byte left: the scan found these. */
  | { kind: 'secrets-found'; findings: SecretFinding[]; scan: SecretScanResult }
  /** Stopped before any byte left: the scan stopped at its cap (`scan.truncated`), `scan.unscanned` files unread. */
  | { kind: 'scan-incomplete'; scan: SecretScanResult & { truncated: NonNullable<SecretScanResult['truncated']> } };

/** The local side of a push, ready before any byte leaves: the list and the scan of exactly that list. */
export interface PreparedPush {
  files: LocalFile[];
  skipped: Array<{ name: string; reason: PushSkipReason }>;
  scan: SecretScanResult;
}

/**
 * Lists `localDir` and scans that list. Needs no connection, so a front end may start it
 * while the connection is being made (on a 40 ms link the login is about six round trips).
 */
export async function preparePush(req: Pick<PushRequest, 'localDir' | 'exclude' | 'scanLimits' | 'signal' | 'onScanProgress'>): Promise<PreparedPush> {
  const listed = await listLocalTree(req.localDir);
  const exclude = new Set(req.exclude ?? []);
  const files = listed.files.filter((f) => !exclude.has(f.rel));
  const skipped: Array<{ name: string; reason: PushSkipReason }> = [...listed.skipped, ...listed.files.filter((f) => exclude.has(f.rel)).map((f) => ({ name: f.rel, reason: 'excluded' as const }))];
  const realRoot = await realpath(req.localDir).catch(() => undefined);
  const scan = await scanTree(files, {
    ...(realRoot ? { realRoot } : {}),
    ...req.scanLimits,
    ...(req.signal ? { signal: req.signal } : {}),
    ...(req.onScanProgress ? { onProgress: (p: { filesSeen: number }) => req.onScanProgress!(p.filesSeen) } : {}),
  });
  return { files, skipped, scan };
}

/**
 * Stops on findings or a cut-off scan unless allowed, then pushes the scanned list. `prepared`
 * is `preparePush(req)`'s result when the caller started it early; by default it runs here.
 */
export async function pushFolder(remote: SyncRemote, req: PushRequest, onProgress?: (p: PushProgress) => void, prepared: PreparedPush | Promise<PreparedPush> = preparePush(req)): Promise<PushResult> {
  const { files, skipped, scan } = await prepared;
  if (scan.findings.length && !req.allowSecrets) return { kind: 'secrets-found', findings: scan.findings, scan };
  if (scan.truncated && !req.allowUnscanned) return { kind: 'scan-incomplete', scan: { ...scan, truncated: scan.truncated } };
  const { allowSecrets: _s, allowUnscanned: _u, exclude: _e, scanLimits: _l, onScanProgress: _p, ...opts } = req;
  const report = await pushOnce(remote, { ...opts, tree: { files, skipped } }, onProgress);
  return { kind: 'pushed', report, scan };
}

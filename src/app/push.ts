// Push as both front ends offer it: the secret scan first (a folder headed for a rented box
// with an unencrypted disk must not carry tokens or keys unnoticed), then the push itself
// (src/remote/sync/push.ts: .part on the box, verified by the box's SHA-256, renamed into
// place, resumable, never over a newer file without force).
import { scanSecrets, type SecretFinding, type SecretScanResult } from './secretScan';
import { pushOnce, type PushOptions, type PushProgress, type PushReport } from '../remote/sync/push';
import type { SyncRemote } from '../remote/sync';

export type { PushOptions, PushProgress, PushReport, PushSkipReason } from '../remote/sync/push';

export interface PushRequest extends PushOptions {
  /** Push even when the scan finds likely secrets. */
  allowSecrets?: boolean;
}

export type PushResult =
  | { kind: 'pushed'; report: PushReport; scan: SecretScanResult }
  /** Stopped before any byte left: the scan found these. */
  | { kind: 'secrets-found'; findings: SecretFinding[]; scan: SecretScanResult };

/** Scans `localDir`, stops on findings unless allowed, then pushes. */
export async function pushFolder(remote: SyncRemote, req: PushRequest, onProgress?: (p: PushProgress) => void): Promise<PushResult> {
  const scan = await scanSecrets(req.localDir, { ...(req.signal ? { signal: req.signal } : {}) });
  if (scan.findings.length && !req.allowSecrets) return { kind: 'secrets-found', findings: scan.findings, scan };
  const report = await pushOnce(remote, req, onProgress);
  return { kind: 'pushed', report, scan };
}

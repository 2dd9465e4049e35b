// Before a release: which checkpoint files on the box have no identical copy in the local
// folder (sync keeps the box's size and mtime on what it pulled). Listing reuses the sync
// engine's SFTP walker, so hostile names and links out of the tree are skipped the same way.
import { lstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { checkpointsAtRisk, type AtRiskFile } from '../../core/guards/release';
import { remotePathForSftp } from '../sync/engine';
import { listRemote, type Skip } from '../sync/list';

export interface ReleaseGuardReport {
  remoteRoot: string;
  remoteFiles: number;
  atRisk: AtRiskFile[];
  bytesAtRisk: number;
  /** Names the walker refused (hostile or links out of the tree): not compared. */
  skipped: Skip[];
  /** Sub-folders that could not be listed: their files are unknown, so the report is incomplete. */
  unlisted: string[];
}

function localStat(path: string): { size: number; mtime: number } | null {
  try {
    if (lstatSync(path).isSymbolicLink()) return null;
    const st = statSync(path);
    return st.isFile() ? { size: st.size, mtime: Math.floor(st.mtimeMs / 1000) } : null;
  } catch {
    return null;
  }
}

export async function releaseGuard(session: { sftp(): Promise<SFTPWrapper> }, remoteDir: string, localDir: string): Promise<ReleaseGuardReport> {
  const sftp = await session.sftp();
  const listing = await listRemote(sftp, remotePathForSftp(remoteDir), { platform: process.platform });
  const local = new Map<string, { size: number; mtime: number }>();
  for (const f of listing.files) {
    const st = localStat(join(localDir, ...f.rel.split('/')));
    if (st) local.set(f.rel, st);
  }
  const r = checkpointsAtRisk(listing.files, local);
  return { remoteRoot: listing.root, remoteFiles: listing.files.length, atRisk: r.files, bytesAtRisk: r.bytes, skipped: listing.skipped, unlisted: listing.unlisted };
}

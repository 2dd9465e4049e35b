// Before a release: which checkpoint files on the box have no identical copy in the local
// folder (sync keeps the box's size and mtime on what it pulled). Listing reuses the sync
// engine's SFTP walker, so hostile names and links out of the tree are skipped the same way.
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { checkpointsAtRisk, type AtRiskFile } from '../../core/guards/release';
import { remotePathForSftp } from '../sync/engine';
import { listRemote, type Skip } from '../sync/list';
import { STATE_FILE } from '../sync/names';
import { isSafeRelative } from '../sync/planner';

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

/**
 * Box versions sync saved beside a local file the user had changed ("notes (box copy …).md"):
 * from the state file, by relative path. Unreadable or odd: none.
 */
function savedBeside(localDir: string): Map<string, string> {
  const out = new Map<string, string>();
  try {
    const raw = JSON.parse(readFileSync(join(localDir, STATE_FILE), 'utf8')) as { savedBeside?: Record<string, { savedAs?: unknown }> };
    for (const [rel, e] of Object.entries(raw.savedBeside ?? {})) if (typeof e?.savedAs === 'string' && isSafeRelative(e.savedAs)) out.set(rel, e.savedAs);
  } catch {
    /* no state file */
  }
  return out;
}

export async function releaseGuard(session: { sftp(): Promise<SFTPWrapper> }, remoteDir: string, localDir: string): Promise<ReleaseGuardReport> {
  const sftp = await session.sftp();
  const listing = await listRemote(sftp, remotePathForSftp(remoteDir), { platform: process.platform });
  const local = new Map<string, { size: number; mtime: number }>();
  const beside = savedBeside(localDir);
  for (const f of listing.files) {
    let st = localStat(join(localDir, ...f.rel.split('/')));
    // The user's own copy is there; the box's version may be saved beside it (same size and mtime).
    const copy = beside.get(f.rel);
    if (copy && (!st || st.size !== f.size || st.mtime !== f.mtime)) st = localStat(join(localDir, ...copy.split('/'))) ?? st;
    if (st) local.set(f.rel, st);
  }
  const r = checkpointsAtRisk(listing.files, local);
  return { remoteRoot: listing.root, remoteFiles: listing.files.length, atRisk: r.files, bytesAtRisk: r.bytes, skipped: listing.skipped, unlisted: listing.unlisted };
}

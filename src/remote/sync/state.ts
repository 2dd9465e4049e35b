// The small record kept beside the synced files (`.gpu-rent-sync.json`): what each local
// file was when it was verified against the box, so a re-sync with nothing new reads no
// file bytes and hashes nothing, and so `--delete` only ever removes files this tool wrote.
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { STATE_FILE } from './names';

export interface SyncedFile {
  /** Remote size in bytes and mtime in whole seconds (SFTP v3 precision) when verified. */
  size: number;
  mtime: number;
  /** Lowercase hex SHA-256 of the content, or null where the box had no sha256sum. */
  sha256: string | null;
}

export interface SyncState {
  version: 1;
  /** Which remote folder these files came from (user@host:port:/abs/path). */
  source: string;
  files: Record<string, SyncedFile>;
}

export function emptyState(source: string): SyncState {
  return { version: 1, source, files: {} };
}

function isSyncedFile(v: unknown): v is SyncedFile {
  if (typeof v !== 'object' || v === null) return false;
  const f = v as Record<string, unknown>;
  return (
    Number.isSafeInteger(f.size) &&
    (f.size as number) >= 0 &&
    Number.isSafeInteger(f.mtime) &&
    (f.sha256 === null || (typeof f.sha256 === 'string' && /^[0-9a-f]{64}$/.test(f.sha256)))
  );
}

/**
 * Reads the state file. A missing, unreadable or malformed file, or one recorded for another
 * source, gives an empty state: the state only saves work, it is never trusted for safety
 * (files are then compared by size and hash instead).
 */
export async function readState(localRoot: string, source: string): Promise<SyncState> {
  let text: string;
  try {
    text = await fsp.readFile(join(localRoot, STATE_FILE), 'utf8');
  } catch {
    return emptyState(source);
  }
  try {
    const raw = JSON.parse(text) as unknown;
    if (typeof raw !== 'object' || raw === null) return emptyState(source);
    const r = raw as Record<string, unknown>;
    if (r.version !== 1 || r.source !== source || typeof r.files !== 'object' || r.files === null) return emptyState(source);
    const files: Record<string, SyncedFile> = {};
    for (const [name, entry] of Object.entries(r.files as Record<string, unknown>)) {
      if (isSyncedFile(entry)) files[name] = { size: entry.size, mtime: entry.mtime, sha256: entry.sha256 };
    }
    return { version: 1, source, files };
  } catch {
    return emptyState(source);
  }
}

/** Writes the state atomically (temp file, then rename) so a crash never leaves half a file. */
export async function writeState(localRoot: string, state: SyncState): Promise<void> {
  const path = join(localRoot, STATE_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  const sorted: Record<string, SyncedFile> = {};
  for (const k of Object.keys(state.files).sort()) sorted[k] = state.files[k]!;
  await fsp.writeFile(tmp, JSON.stringify({ version: 1, source: state.source, files: sorted }, null, 1) + '\n');
  await fsp.rename(tmp, path);
}

// The small record kept beside the synced files (`.gpu-rent-sync.json`): what each local
// file was when it was verified against the box, so a re-sync with nothing new reads no
// file bytes and hashes nothing, so `--delete` only ever removes files this tool wrote, and so
// a pull never replaces a local file the user changed (it differs from what sync wrote).
import { isSafeRelative } from './planner';
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

/** A box version of a file that was not put over the user's local copy but saved beside it. */
export interface SavedBeside {
  /** The box version's size and mtime, so the same version is saved once, not every pass. */
  size: number;
  mtime: number;
  /** Where it went, relative to the synced folder. */
  savedAs: string;
}

export interface SyncState {
  version: 1;
  /** Which remote folder these files came from (user@host:port:/abs/path). */
  source: string;
  files: Record<string, SyncedFile>;
  /** Files kept locally (changed here) whose box version was saved beside them. */
  savedBeside?: Record<string, SavedBeside>;
  /**
   * What sync wrote here for an earlier source (the same box on a new port, the launch's sync
   * and the extension's of one folder): not the box's version now, so never a reason to skip a
   * file, only proof that a local file unchanged since is sync's own and may be replaced.
   */
  written?: Record<string, SyncedFile>;
}

export function emptyState(source: string): SyncState {
  return { version: 1, source, files: {}, savedBeside: {} };
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

function isSavedBeside(v: unknown): v is SavedBeside {
  if (typeof v !== 'object' || v === null) return false;
  const f = v as Record<string, unknown>;
  return Number.isSafeInteger(f.size) && (f.size as number) >= 0 && Number.isSafeInteger(f.mtime) && typeof f.savedAs === 'string' && isSafeRelative(f.savedAs);
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
    if (r.version !== 1 || typeof r.files !== 'object' || r.files === null) return emptyState(source);
    const files: Record<string, SyncedFile> = {};
    for (const [name, entry] of Object.entries(r.files as Record<string, unknown>)) {
      if (isSyncedFile(entry)) files[name] = { size: entry.size, mtime: entry.mtime, sha256: entry.sha256 };
    }
    const written: Record<string, SyncedFile> = {};
    if (typeof r.written === 'object' && r.written !== null) {
      for (const [name, entry] of Object.entries(r.written as Record<string, unknown>)) {
        if (isSyncedFile(entry) && isSafeRelative(name)) written[name] = { size: entry.size, mtime: entry.mtime, sha256: entry.sha256 };
      }
    }
    // Another source: its records say nothing about this box's files, but they still say which
    // local files sync wrote.
    if (r.source !== source) return { ...emptyState(source), written: { ...written, ...files } };
    const savedBeside: Record<string, SavedBeside> = {};
    if (typeof r.savedBeside === 'object' && r.savedBeside !== null) {
      for (const [name, entry] of Object.entries(r.savedBeside as Record<string, unknown>)) {
        if (isSavedBeside(entry)) savedBeside[name] = { size: entry.size, mtime: entry.mtime, savedAs: entry.savedAs };
      }
    }
    return { version: 1, source, files, savedBeside, ...(Object.keys(written).length ? { written } : {}) };
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
  const beside: Record<string, SavedBeside> = {};
  const saved = state.savedBeside ?? {};
  for (const k of Object.keys(saved).sort()) beside[k] = saved[k]!;
  const written: Record<string, SyncedFile> = {};
  for (const k of Object.keys(state.written ?? {}).sort()) if (!(k in state.files)) written[k] = state.written![k]!;
  // Older versions read `files` only and write it back without `savedBeside`: harmless.
  const body = { version: 1, source: state.source, files: sorted, ...(Object.keys(beside).length ? { savedBeside: beside } : {}), ...(Object.keys(written).length ? { written } : {}) };
  try {
    await fsp.writeFile(tmp, JSON.stringify(body, null, 1) + '\n');
    await fsp.rename(tmp, path);
  } catch (err) {
    // A full disk (or any failure) leaves no half-written temp file behind.
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

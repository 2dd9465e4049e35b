// Releasing an instance: what it would lose (its checkpoint folder against the local copy),
// and an "about to release" hook that other features subscribe to (the wipe of memory-only
// uploads), awaited before the release is recorded.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Instance } from '../core/instances';
import type { RemoteConnection } from '../remote/connection';
import { releaseGuard } from '../remote/guards/release-guard';
import { RemoteFolderError } from '../remote/sync/list';
import { AsyncHook } from './events';

/** What releasing (or removing) a running instance would lose. */
export interface ReleaseRisk {
  remoteDir: string;
  files: { rel: string; size: number; reason: 'missing' | 'differs' }[];
  bytes: number;
  /** Sub-folders that could not be listed: the comparison is incomplete. */
  unlisted: number;
}

/** Files the sync engine leaves while it works: never checkpoints. */
export function isSyncScratch(rel: string): boolean {
  return rel.endsWith('.part') || rel.endsWith('.gpu-rent-sync.json');
}

/** Compares the box's checkpoint folder with the local copy (an empty one when there is none). */
export async function releaseRisk(conn: RemoteConnection, remoteDir: string, localDir: string | undefined): Promise<ReleaseRisk> {
  const empty = localDir ? undefined : await mkdtemp(join(tmpdir(), 'gpu-rent-nolocal-'));
  try {
    const r = await releaseGuard(conn, remoteDir, localDir ?? empty!);
    const files = r.atRisk.filter((f) => !isSyncScratch(f.rel)).map((f) => ({ rel: f.rel, size: f.size, reason: f.reason }));
    return { remoteDir, files, bytes: files.reduce((a, f) => a + f.size, 0), unlisted: r.unlisted.length };
  } catch (e) {
    if (e instanceof RemoteFolderError && e.code === 'remote-missing') return { remoteDir, files: [], bytes: 0, unlisted: 0 };
    throw e;
  } finally {
    if (empty) await rm(empty, { recursive: true, force: true });
  }
}

export interface WillRelease {
  inst: Instance;
  /** Pin a first-contact host key without asking (scripted releases in tests). */
  acceptNewHostKey: boolean;
  /** Removing it from the list (not a release on the platform). */
  removing: boolean;
}

/** The release lifecycle other features hook into. */
export class ReleaseEvents {
  private readonly hook = new AsyncHook<WillRelease>();
  /** Awaited before an instance is released or forgotten; a failing listener is logged, not fatal. */
  readonly onWillRelease = this.hook.event;

  constructor(private readonly log: (message: string) => void) {}

  willRelease(e: WillRelease): Promise<void> {
    return this.hook.fire(e, (err) => this.log(`[${e.inst.id}] before release: ${err instanceof Error ? err.message : String(err)}`));
  }

  dispose(): void {
    this.hook.dispose();
  }
}

// The checkpoints home from rank 0: a verified, durable sync of the remote checkpoints folder,
// and the newest complete checkpoint (core/checkpoints.ts: a name the task's pattern or the
// common layouts match, every file of it home, its writer done, never a log): the one a resume
// starts from.
import { lstat, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { checkpointArgument, MAX_CHECKPOINT_DEPTH, newestFirst, findCheckpoints, type Checkpoint, type CheckpointFile } from '../../core/checkpoints';
import { syncOnce } from '../../remote/sync';
import { syncOutcomeOf } from '../runs/endAction';
import { syncRemote } from '../sync';
import type { LaunchRun } from './context';

/** Files looked at in one walk of the local checkpoint folder at most. */
const MAX_WALK_FILES = 50_000;

/** The files under `dir` (no links, not the sync's own `.gpu-rent*` files), '/'-separated, mtime in seconds; bounded in depth and count. */
export async function checkpointFilesIn(dir: string): Promise<CheckpointFile[]> {
  const out: CheckpointFile[] = [];
  const walk = async (abs: string, rel: string, depth: number): Promise<void> => {
    const entries = await readdir(abs, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (out.length >= MAX_WALK_FILES) return;
      if (e.name.startsWith('.gpu-rent') || e.name === '.git') continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (depth < MAX_CHECKPOINT_DEPTH) await walk(join(abs, e.name), r, depth + 1);
      } else if (e.isFile()) {
        const st = await lstat(join(abs, e.name)).catch(() => undefined);
        if (st?.isFile()) out.push({ rel: r, mtime: Math.floor(st.mtimeMs / 1000), size: st.size });
      }
    }
  };
  await walk(dir, '', 0);
  return out;
}

export interface NewestCheckpoint {
  /** The newest complete checkpoint a resume may start from (its name is safe to put in a command). */
  newest?: Checkpoint;
  /** A newer complete one whose name holds characters a shell reads: not used, named in the sync line. */
  refused?: Checkpoint;
}

/** The newest complete checkpoint in the local folder `localDir` (`unsettled`: top-level names not all home yet). */
export async function newestCheckpoint(localDir: string, o: { patterns?: readonly string[]; unsettled?: ReadonlySet<string>; now?: number } = {}): Promise<NewestCheckpoint> {
  const files = await checkpointFilesIn(localDir);
  const complete = newestFirst(findCheckpoints(files, { ...(o.patterns ? { patterns: o.patterns } : {}), ...(o.unsettled ? { unsettled: o.unsettled } : {}), ...(o.now !== undefined ? { now: o.now } : {}) }).filter((c) => !c.incomplete));
  const refused = complete[0] && !checkpointArgument(complete[0].name).ok ? complete[0] : undefined;
  const newest = complete.find((c) => checkpointArgument(c.name).ok);
  return { ...(newest ? { newest } : {}), ...(refused ? { refused } : {}) };
}

/** One pass (`final`: the end's, which waits for files still being written to settle). */
export async function syncCheckpoints(r: LaunchRun, final: boolean): Promise<{ ok: boolean; files: number; bytes: number; detail: string }> {
  const live = r.live!;
  const c = r.task.checkpoints!;
  const localDir = resolve(r.base, c.local);
  const res = await syncOnce(syncRemote(live.conn), { remoteDir: live.remoteCheckpoints!, localDir, within: r.base, durable: true, ...(final ? {} : { waitForSettle: false }), ...(r.host.signal ? { signal: r.host.signal } : {}) });
  const out = syncOutcomeOf(res);
  r.lastSyncAt = r.now();
  // A checkpoint counts once every file of it came home verified: one with a file the sync
  // skipped (still being written by the box's clock, unreadable) waits for the next pass. The
  // settle is the sync's, judged on the box's clock, so the local clock is not asked again here.
  const unsettled = new Set(res.skipped.map((k) => k.name));
  const found = res.interrupted ? {} : await newestCheckpoint(localDir, { ...(c.patterns ? { patterns: c.patterns } : {}), unsettled });
  const checkpoint = found.newest?.name;
  const keep = checkpoint ?? r.s.lastSync?.checkpoint;
  const refused = found.refused ? ` (${JSON.stringify(found.refused.name).slice(0, 300)} is not used for a resume: its name holds characters a shell reads)` : '';
  await r.save(`sync: ${out.detail}${checkpoint ? ` (newest complete: ${checkpoint})` : ''}${refused}`, res.interrupted ? {} : { lastSync: { at: r.now(), files: res.files, bytes: res.bytes, ...(keep ? { checkpoint: keep } : {}) } });
  return out;
}

// The checkpoints home from rank 0: a verified, durable sync of the remote checkpoints folder,
// and the newest checkpoint every file of which came home (the one a resume starts from).
import { resolve } from 'node:path';
import { syncOnce } from '../../remote/sync';
import { syncOutcomeOf } from '../runs/endAction';
import { syncRemote } from '../sync';
import type { LaunchRun } from './context';
import { newestCheckpoint } from './workdir';

/** One pass (`final`: the end's, which waits for files still being written to settle). */
export async function syncCheckpoints(r: LaunchRun, final: boolean): Promise<{ ok: boolean; files: number; bytes: number; detail: string }> {
  const live = r.live!;
  const c = r.task.checkpoints!;
  const localDir = resolve(r.base, c.local);
  const res = await syncOnce(syncRemote(live.conn), { remoteDir: live.remoteCheckpoints!, localDir, durable: true, ...(final ? {} : { waitForSettle: false }), ...(r.host.signal ? { signal: r.host.signal } : {}) });
  const out = syncOutcomeOf(res);
  r.lastSyncAt = r.now();
  // A checkpoint counts once every file of it came home verified: entries with a file still
  // being written (skipped until it settles) wait for the next pass.
  const unsettled = new Set(res.skipped.map((k) => k.name.split('/')[0]!));
  const checkpoint = res.interrupted ? undefined : await newestCheckpoint(localDir, unsettled);
  const keep = checkpoint ?? r.s.lastSync?.checkpoint;
  await r.save(`sync: ${out.detail}${checkpoint ? ` (newest complete: ${checkpoint})` : ''}`, res.interrupted ? {} : { lastSync: { at: r.now(), files: res.files, bytes: res.bytes, ...(keep ? { checkpoint: keep } : {}) } });
  return out;
}

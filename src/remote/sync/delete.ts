// Carrying out the planner's --delete decisions: each file is checked once more right before
// it goes (a file the user changed meanwhile is kept), and folders emptied by the removals go
// too, deepest first, never the synced folder itself.
import { promises as fsp } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { PART_SUFFIX } from './names';
import type { DeletionPlan } from './planner';
import { localPathOf } from './pull-file';
import { statLocal } from './local-state';
import type { SyncState } from './state';
import type { SyncProgress, SyncReport } from './types';

export async function applyDeletion(
  where: { localRoot: string; remoteDir: string; state: SyncState; onProgress: (p: SyncProgress) => void },
  d: DeletionPlan,
  report: SyncReport,
): Promise<void> {
  const { localRoot, state } = where;
  // A tampered state file's records outside the folder are forgotten, never touched.
  for (const rel of d.unsafe) delete state.files[rel];
  if (d.refusedEmpty) {
    // An empty folder on the box is far more often a reset instance than a wish to wipe the
    // local copies, which may be the only ones left.
    report.skipped.push({ name: where.remoteDir, reason: 'remote-empty-no-delete' });
    return;
  }
  const keepModified = (rel: string) => {
    // Changed locally since it was synced: it is the user's now, not ours to remove.
    report.skipped.push({ name: rel, reason: 'local-modified' });
    delete state.files[rel];
  };
  for (const rel of d.localModified) keepModified(rel);
  const dirs = new Set<string>();
  for (const rel of d.files) {
    const path = localPathOf(localRoot, rel);
    const rec = state.files[rel];
    const l = statLocal(localRoot, rel);
    if (rec && l && (!l.isFile || l.size !== rec.size || l.mtime !== rec.mtime)) {
      keepModified(rel);
      continue;
    }
    if (l) await fsp.rm(path, { force: true });
    await fsp.rm(path + PART_SUFFIX, { force: true });
    delete state.files[rel];
    report.deleted.push(rel);
    where.onProgress({ kind: 'deleted', name: rel });
    dirs.add(dirname(path));
  }
  for (const part of d.parts) {
    const path = localPathOf(localRoot, part);
    await fsp.rm(path, { force: true });
    dirs.add(dirname(path));
  }
  const root = resolve(localRoot);
  const ordered = [...dirs].sort((a, b) => b.length - a.length);
  for (let dir of ordered) {
    while (resolve(dir) !== root && resolve(dir).startsWith(root + sep)) {
      try {
        await fsp.rmdir(dir);
      } catch {
        break;
      }
      dir = dirname(dir);
    }
  }
  report.deleted.sort();
}

// Pulling one settled remote file: its local folder made and checked, then the small-file
// pipeline (pull-small.ts: one burst into memory) or the big-file one (pull-big.ts: resume,
// gzip or pipelined reads). What both share (state, outcomes, the same-size check, publish)
// is in pull-common.ts.
import { dirname } from 'node:path';
import type { RemoteFile } from './list';
import { PART_SUFFIX } from './names';
import { SMALL_FILE } from './small-read';
import { ensureLocalDir, localPathOf, type Ctx, type Outcome } from './pull-common';
import { pullBig } from './pull-big';
import { pullSmall } from './pull-small';

export { localPathOf, lstatOrUndefined, type Ctx, type Outcome } from './pull-common';
export { landStreamed } from './pull-small';

/** Pulls one settled remote file; never leaves anything but a `.part` unless verified. */
export async function pullFile(ctx: Ctx, f: RemoteFile, attempt = 1): Promise<Outcome> {
  const local = localPathOf(ctx.localRoot, f.rel);
  const part = local + PART_SUFFIX;
  if (!(await ensureLocalDir(ctx, f, dirname(local)))) return { kind: 'skipped', reason: 'local-conflict' };
  if (f.size <= SMALL_FILE) return pullSmall(ctx, f, local, part, attempt);
  return pullBig(ctx, f, local, part, attempt);
}

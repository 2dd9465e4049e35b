// A task's `data: [{from: NAME/PREFIX, remote: DIR}]` for the launch's setup job: the laptop
// lists the prefix and signs one presigned GET per object (the store's key stays here), puts the
// pull grant (0600) and the puller on the box, and gives back the lines the setup job runs. The
// box then fetches at datacenter speed, each file verified by its SHA-256, skipping what it has;
// the grant file is removed once the pull succeeded. An AutoDL 文件存储 source is a copy on the box.
import { shQuote } from '../../core/storage/grant';
import { AUTODL_FS_ROOT, parseStoreRef } from '../../core/storage/names';
import type { SyncRemote } from '../../remote/sync/types';
import type { SavedStore } from './stores';
import { installPuller } from './box';
import { createPullGrant } from './grant';
import { s3Client } from './s3';

/** How long the box has to start each pull: the setup job runs right after (hours covers a big download). */
export const PULL_GRANT_SECONDS = 6 * 3600;

export interface DataFromStore {
  from: string;
  /** Where on the box, absolute (resolved by the launch). */
  dest: string;
}

export class DataStepError extends Error {}

/** The setup lines that bring each `from` entry onto the box (after installing its grant); throws DataStepError with what is missing. */
export async function dataFromStoreLines(remote: Pick<SyncRemote, 'exec' | 'sftp'>, items: readonly DataFromStore[], stores: readonly SavedStore[], privateDir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const [i, it] of items.entries()) {
    const ref = parseStoreRef(it.from);
    if (!ref.ok) throw new DataStepError(`data.from ${it.from}: ${ref.message}`);
    const saved = stores.find((s) => s.store.name === ref.value.name);
    if (!saved) throw new DataStepError(`data.from ${it.from}: no store named ${ref.value.name} on this machine (gpu-rent storage add ${ref.value.name} …)`);
    if (saved.store.kind === 'autodl-fs') {
      const src = `${AUTODL_FS_ROOT}/${ref.value.prefix}`;
      lines.push(`mkdir -p -- ${shQuote(it.dest)} && cp -a -- ${shQuote(`${src}.`)} ${shQuote(`${it.dest}/`)}`);
      continue;
    }
    if (!saved.key) throw new DataStepError(`data.from ${it.from}: store ${saved.store.name} has no key on this machine`);
    const client = await s3Client(saved.store, saved.key);
    try {
      const objects = await createPullGrant(client, saved.store, ref.value.prefix, PULL_GRANT_SECONDS);
      if (!objects.length) throw new DataStepError(`data.from ${it.from}: nothing under ${ref.value.prefix || '/'} in ${saved.store.name} (stage it first: gpu-rent storage push ${it.from} PATH)`);
      const puller = await installPuller(remote as SyncRemote, `${privateDir}/${i}`, objects);
      lines.push(`${puller.command(it.dest)} && rm -f -- ${shQuote(puller.grantPath)}`);
    } finally {
      client.destroy();
    }
  }
  return lines;
}

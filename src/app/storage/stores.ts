// The CLI's stores: $GPU_RENT_HOME/stores.json (default ~/.config/gpu-rent/), mode 0600 and
// refused when others can read it, written atomically: the same rules as accounts.json. Each
// S3 store keeps its key beside it; the key is never printed, logged or sent to a box.
import { readPrivateJson, writePrivateJson } from '../privateFile';
import { join } from 'node:path';
import { z } from 'zod';
import { checkS3Store, checkStoreName, type Store } from '../../core/storage/names';

export interface StoreKey {
  keyId: string;
  secret: string;
}

export interface SavedStore {
  store: Store;
  /** S3 stores only. */
  key?: StoreKey;
}

const KeySchema = z.strictObject({ keyId: z.string().min(1).max(256).regex(/^[\x21-\x7e]+$/), secret: z.string().min(1).max(1024).regex(/^[\x21-\x7e]+$/) });

const StoreSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('s3'), name: z.string(), endpoint: z.string(), bucket: z.string(), region: z.string(), pathStyle: z.boolean() }),
  z.strictObject({ kind: z.literal('autodl-fs'), name: z.string() }),
]);

const FileSchema = z.strictObject({
  version: z.literal(1),
  stores: z.array(z.strictObject({ store: StoreSchema, key: KeySchema.optional() })).max(100),
});

export class StoreFileError extends Error {
  readonly code = 'store-file';
}

/** A key read from the user: printable ASCII, no spaces (what S3, OSS and COS keys are). */
export function checkKey(keyId: string, secret: string): { ok: true; key: StoreKey } | { ok: false; message: string } {
  const r = KeySchema.safeParse({ keyId, secret });
  return r.success ? { ok: true, key: r.data } : { ok: false, message: 'the key id and secret must be 1-256 / 1-1024 printable characters without spaces' };
}

export async function readStoreFile(home: string): Promise<SavedStore[]> {
  const path = join(home, 'stores.json');
  const data = await readPrivateJson(path, FileSchema, (m) => new StoreFileError(m));
  if (!data) return [];
  const r = { data };
  return r.data.stores.map((s) => {
    // Each record is checked again as `storage add` checks it: a hand-edited file gets the same rules.
    if (s.store.kind === 's3') {
      const c = checkS3Store(s.store);
      if (!c.ok) throw new StoreFileError(`${path}: store ${s.store.name}: ${c.message}`);
      if (!s.key) throw new StoreFileError(`${path}: store ${s.store.name} has no key`);
      return { store: c.value, key: s.key };
    }
    const n = checkStoreName(s.store.name);
    if (!n.ok) throw new StoreFileError(`${path}: ${n.message}`);
    return { store: { kind: 'autodl-fs', name: n.value } };
  });
}

export async function writeStoreFile(home: string, stores: readonly SavedStore[]): Promise<void> {
  await writePrivateJson(home, 'stores.json', { version: 1, stores });
}

/** The store record without its key: what may be listed, logged or shown. */
export function publicStore(s: SavedStore): Store & { hasKey: boolean } {
  return { ...s.store, hasKey: s.key !== undefined };
}

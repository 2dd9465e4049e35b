// The extension's stores: each store's record (globalState) and its key (SecretStorage only, one
// entry per store), as platform accounts and message channels are kept. The CLI keeps the same
// records in its 0600 stores.json. No vscode import: tests pass in-memory stores.
import { z } from 'zod';
import { checkS3Store, checkStoreName, type Store } from '../core/storage/names';
import type { SavedStore, StoreKey } from '../app/storage/stores';
import { Emitter, type Event } from '../app/events';
import type { MementoLike, SecretsLike } from './store';
import { StateKeys } from './stateKeys';

export const STORES_KEY = StateKeys.stores.key;
export const storeSecretKey = (name: string): string => `gpuRent.store.${name}`;

const RecordSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('s3'), name: z.string(), endpoint: z.string(), bucket: z.string(), region: z.string(), pathStyle: z.boolean() }),
  z.strictObject({ kind: z.literal('autodl-fs'), name: z.string() }),
]);
const KeySchema = z.strictObject({ keyId: z.string().min(1).max(256), secret: z.string().min(1).max(1024) });

/** A record as `storage add` checks it (a record edited by hand gets the same rules), else undefined. */
function checked(raw: unknown): Store | undefined {
  const r = RecordSchema.safeParse(raw);
  if (!r.success) return undefined;
  if (r.data.kind === 'autodl-fs') return checkStoreName(r.data.name).ok ? r.data : undefined;
  const c = checkS3Store(r.data);
  return c.ok ? c.value : undefined;
}

export class StoreList {
  private stores: Store[];
  private readonly changed = new Emitter<void>();
  /** After an add or a remove (the tree's Storage node listens). */
  readonly onDidChange: Event<void> = this.changed.event;

  constructor(
    private readonly memento: MementoLike,
    private readonly secrets: SecretsLike,
  ) {
    const raw = memento.get(STORES_KEY);
    this.stores = (Array.isArray(raw) ? raw.slice(0, 100) : []).map(checked).filter((s): s is Store => s !== undefined);
  }

  list(): readonly Store[] {
    return this.stores;
  }

  get(name: string): Store | undefined {
    return this.stores.find((s) => s.name === name);
  }

  async add(store: Store, key?: StoreKey): Promise<void> {
    const s = checked(store);
    if (!s) throw new Error('not a valid store');
    if (s.kind === 's3') {
      if (!key) throw new Error('an S3 store needs a key');
      await this.secrets.store(storeSecretKey(s.name), JSON.stringify(KeySchema.parse(key)));
    } else await this.secrets.delete(storeSecretKey(s.name));
    this.stores = [...this.stores.filter((x) => x.name !== s.name), s];
    await this.memento.update(STORES_KEY, this.stores);
    this.changed.fire();
  }

  async remove(name: string): Promise<boolean> {
    if (!this.get(name)) return false;
    await this.secrets.delete(storeSecretKey(name));
    this.stores = this.stores.filter((s) => s.name !== name);
    await this.memento.update(STORES_KEY, this.stores);
    this.changed.fire();
    return true;
  }

  async key(name: string): Promise<StoreKey | undefined> {
    const raw = await this.secrets.get(storeSecretKey(name));
    if (!raw) return undefined;
    try {
      const r = KeySchema.safeParse(JSON.parse(raw));
      return r.success ? r.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** Every store with its key (an S3 store whose key is gone is left out): the launch's UnattendedHost.stores(). */
  async stored(): Promise<SavedStore[]> {
    const out: SavedStore[] = [];
    for (const s of this.stores) {
      if (s.kind === 'autodl-fs') out.push({ store: s });
      else {
        const key = await this.key(s.name);
        if (key) out.push({ store: s, key });
      }
    }
    return out;
  }
}

// In-memory stand-ins for VS Code's globalState and SecretStorage, with the shapes the extension's
// stores take (MementoLike, SecretsLike): what the unit tests of the instance store, the platform
// accounts and the platform monitor run on. globalState stores JSON, so every value makes a JSON
// round trip, as it does there.
import type { MementoLike, SecretsLike } from '../../src/extension/store';

export class MemoryMemento implements MementoLike {
  readonly data = new Map<string, unknown>();
  /** How many updates were asked for (failed ones included). */
  writes = 0;
  /** Fail this many next updates, as a full disk does (SQLITE_FULL). */
  failNext = 0;
  constructor(private readonly opts: { delayMs?: number } = {}) {}
  get<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.writes++;
    if (this.opts.delayMs !== undefined) await new Promise((r) => setTimeout(r, this.opts.delayMs));
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('SQLITE_FULL: database or disk is full');
    }
    this.data.set(key, value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
  }
}

export class MemorySecrets implements SecretsLike {
  readonly data = new Map<string, string>();
  async get(k: string): Promise<string | undefined> {
    return this.data.get(k);
  }
  async store(k: string, v: string): Promise<void> {
    this.data.set(k, v);
  }
  async delete(k: string): Promise<void> {
    this.data.delete(k);
  }
}

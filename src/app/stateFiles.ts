// The extension's state (instances, platform accounts, spend history, the status bar's and the
// commands' small records) as files on the machine the extension runs on: one JSON file per key
// under the extension's globalStorageUri, each replaced atomically (a temporary file synced and
// renamed). VS Code's globalState lives where the workbench keeps it: under code-server that is
// the browser's IndexedDB, so a fresh browser showed "no instances yet" while the boxes still
// billed. Files live with the extension host (desktop, Remote-SSH, code-server alike). Secrets
// stay in SecretStorage; none is ever written here.
//
// The one-time move from globalState copies every key the files do not hold yet, then writes a
// marker: run again (a crash between the copy and the marker, a second window), it copies only
// what is still missing and never overwrites what the files hold. globalState is left as it was,
// so nothing is lost and an older version of the extension still finds its state there.
import { mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './atomicWrite';

/** The marker of a finished move: its presence means globalState is never read again. */
export const MOVED_MARKER = 'moved-from-globalState.json';
const SUFFIX = '.json';
/** A key's file holds at most this much (the instance list of thousands is a few MB). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** What the move read from (VS Code's Memento: keys() and get()). */
export interface KeyedMemento {
  keys(): readonly string[];
  get<T>(key: string): T | undefined;
}

const fileOf = (key: string) => `${encodeURIComponent(key).replace(/\./g, '%2E').replace(/^%2E/, '%2E')}${SUFFIX}`;
const keyOf = (file: string) => decodeURIComponent(file.slice(0, -SUFFIX.length));

/**
 * A Memento backed by files in `dir`, read once (synchronously, at activation: a few small files)
 * and written through: `update` changes the value at once and resolves once its file is replaced.
 * Writes of one key are serialized; a failed write rejects its caller and leaves the old file.
 */
export class FileMemento {
  private readonly values = new Map<string, unknown>();
  private readonly writes = new Map<string, Promise<void>>();
  private moving: Promise<void> = Promise.resolve();
  /** Files that could not be read as JSON: renamed aside (`<file>.unreadable-<time>`), not lost. */
  readonly unreadable: string[] = [];

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(dir)) {
      if (!name.endsWith(SUFFIX) || name.startsWith('.') || name === MOVED_MARKER) continue;
      const path = join(dir, name);
      try {
        const text = readFileSync(path, 'utf8');
        if (text.length > MAX_FILE_BYTES) throw new Error('too large');
        this.values.set(keyOf(name), JSON.parse(text) as unknown);
      } catch {
        const aside = `${path}.unreadable-${Date.now()}`;
        try {
          renameSync(path, aside);
          this.unreadable.push(aside);
        } catch {
          this.unreadable.push(path);
        }
      }
    }
  }

  keys(): readonly string[] {
    return [...this.values.keys()];
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  get<T>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    return this.values.has(key) ? (this.values.get(key) as T) : defaultValue;
  }

  /** Sets `key` (undefined removes it) and replaces its file. */
  update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, value);
    // The text is taken now: a later update of the same object must not change this write.
    const text = value === undefined ? undefined : JSON.stringify(value);
    const path = join(this.dir, fileOf(key));
    const before = this.writes.get(key) ?? Promise.resolve();
    const write = before.then(() => (text === undefined ? unlink(path).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? undefined : Promise.reject(e))) : writeFileAtomic(path, text, { mode: 0o600 })));
    this.writes.set(
      key,
      write.then(
        () => undefined,
        () => undefined,
      ),
    );
    return write;
  }

  /** Waits for every pending write (tests, deactivate). */
  async flush(): Promise<void> {
    await Promise.all(this.writes.values());
    // The move's marker is written after its records: a flush right after a move waits for it too.
    await this.moving;
  }

  /** Whether the one-time move from globalState has finished here. */
  moved(): boolean {
    try {
      readFileSync(join(this.dir, MOVED_MARKER));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The one-time move: every key of `from` these files do not hold is copied (at once in memory,
   * so stores built right after read it; on disk when the returned promise resolves), then the
   * marker is written. Idempotent: after the marker nothing is read from `from` again; before it
   * (an interrupted move) only still-missing keys are copied, never over what the files hold.
   */
  moveFrom(from: KeyedMemento): { copied: string[]; done: Promise<void> } {
    if (this.moved()) return { copied: [], done: Promise.resolve() };
    const copied: string[] = [];
    const writes: Promise<void>[] = [];
    for (const key of from.keys()) {
      if (this.values.has(key)) continue;
      const v = from.get<unknown>(key);
      if (v === undefined) continue;
      copied.push(key);
      writes.push(this.update(key, v));
    }
    const done = Promise.all(writes).then(() => writeFileAtomic(join(this.dir, MOVED_MARKER), JSON.stringify({ at: new Date().toISOString(), keys: copied }), { mode: 0o600 }));
    this.moving = done.catch(() => undefined);
    return { copied, done };
  }
}

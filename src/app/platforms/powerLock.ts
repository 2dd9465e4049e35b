// Never two power-ons in flight for one instance: a lock per instance (account id and the
// platform's ref) that every power-on path takes (Power On, Keep from Release, the end-of-run
// no-GPU start, Start When a Card Is Free, `gpu-rent power-on`). In one process a map; across
// processes a lock file beside the accounts (O_EXCL, the holder's pid, what and since inside; a
// file whose pid is gone is taken over), taken by the CLI and, through a file-backed
// PowerOnLocks, by the extension too.
import { mkdirSync, openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { Connector, PowerOnMode } from '../../core/platforms/types';
import { beijingDateTime } from '../../core/spend';
import { PlatformError } from './errors';

export interface PowerLockHolder {
  /** What holds it ("power-on", "wait-for-gpu", "keep-alive", …), for the message to the second caller. */
  what: string;
  /** Epoch milliseconds. */
  since: number;
  /** The process holding it, when it is another one (read from the lock file). */
  pid?: number;
}

/** "already being started by power-on --wait-for-gpu (pid 4242) since 2026-12-02 12:20 Beijing": the words every front end gives a second caller. */
export function busyText(h: { what: string; pid?: number; since?: number }): string {
  const since = h.since !== undefined && Number.isFinite(h.since) && h.since > 0 ? ` since ${beijingDateTime(Math.floor(h.since / 1000))} Beijing` : '';
  return `already being started by ${h.what.slice(0, 60)}${h.pid ? ` (pid ${h.pid})` : ''}${since}`;
}

export interface FileBacking {
  /** The lock folder ($GPU_RENT_HOME/locks), the one `gpu-rent` uses. */
  dir: string;
  /** Who this process is, written in the file for the other front end ("VS Code"). */
  owner?: string;
}

export type Release = () => void;

/**
 * One instance's lock, by the platform's id of it alone: the extension's account entry and the
 * CLI's may name one real account differently (the panel's entry named after its kind, an
 * environment token's `env-` and the kind, two entries for one key), and the platforms' instance ids do not repeat
 * (AutoDL `pro-…` / uuids, 阿里云 `i-…`, 腾讯云 `ins-…`). The account id is taken for the callers'
 * sake and left out on purpose.
 */
export function powerLockKey(_accountId: string, ref: string): string {
  return `instance/${ref}`;
}

export class PowerOnLocks {
  private readonly held = new Map<string, PowerLockHolder>();

  /**
   * With `file`, each lock is also the lock file `gpu-rent` takes, so the extension and a CLI
   * in a terminal refuse each other's power-ons of one instance (both name the same folder).
   */
  constructor(readonly file?: FileBacking) {}

  /** The release function, or undefined (with `holder`) when a power-on for this instance is in flight. */
  tryAcquire(key: string, what: string, now = Date.now()): { release: Release } | { busy: PowerLockHolder } {
    const h = this.held.get(key);
    if (h) return { busy: h };
    let fileRelease: Release | undefined;
    if (this.file) {
      const f = acquireFileLock(this.file.dir, key, this.file.owner ? `${this.file.owner}: ${what}` : what, process.pid, now);
      if ('busy' in f) return { busy: { what: f.busy.what, since: f.busy.since ?? 0, ...(f.busy.pid ? { pid: f.busy.pid } : {}) } };
      fileRelease = f.release;
    }
    const mine: PowerLockHolder = { what, since: now };
    this.held.set(key, mine);
    let done = false;
    return {
      release: () => {
        if (done) return;
        done = true;
        if (this.held.get(key) === mine) this.held.delete(key);
        fileRelease?.();
      },
    };
  }

  holder(key: string): PowerLockHolder | undefined {
    return this.held.get(key);
  }

  /** Runs `fn` holding the lock; a second caller gets `busy` at once (never queued behind the first). */
  async run<T>(key: string, what: string, fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; busy: PowerLockHolder }> {
    const l = this.tryAcquire(key, what);
    if ('busy' in l) return { ok: false, busy: l.busy };
    try {
      return { ok: true, value: await fn() };
    } finally {
      l.release();
    }
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The lock file of `key` under `dir`. */
function lockFileOf(dir: string, key: string): string {
  return join(dir, `power-${createHash('sha256').update(key).digest('hex').slice(0, 32)}.lock`);
}

/** Who holds the file lock of `key` now (a live process), read without taking it; undefined when nobody does. */
export function fileLockHolder(dir: string, key: string): { pid: number } | undefined {
  try {
    const holder = JSON.parse(readFileSync(lockFileOf(dir, key), 'utf8').slice(0, 200)) as { pid?: unknown };
    const pid = typeof holder.pid === 'number' && Number.isInteger(holder.pid) && holder.pid > 0 ? holder.pid : 0;
    return pid && alive(pid) ? { pid } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A lock file `<dir>/power-<sha256(key)>.lock` holding the pid: taken with O_EXCL, so two
 * processes cannot both hold it; one left by a process that is gone is taken over.
 */
export function acquireFileLock(dir: string, key: string, what: string, pid = process.pid, now = Date.now()): { release: Release } | { busy: { pid: number; what: string; since?: number } } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = lockFileOf(dir, key);
  for (let tries = 0; tries < 3; tries++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid, what: what.slice(0, 60), since: Math.floor(now) }));
      closeSync(fd);
      let done = false;
      return {
        release: () => {
          if (done) return;
          done = true;
          try {
            const now = JSON.parse(readFileSync(file, 'utf8').slice(0, 200)) as { pid?: unknown };
            if (now.pid === pid) unlinkSync(file);
          } catch {
            /* gone already */
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder: { pid?: unknown; what?: unknown; since?: unknown } = {};
      try {
        holder = JSON.parse(readFileSync(file, 'utf8').slice(0, 200)) as typeof holder;
      } catch {
        /* half-written or unreadable: treated as stale below */
      }
      const hp = typeof holder.pid === 'number' && Number.isInteger(holder.pid) && holder.pid > 0 ? holder.pid : 0;
      const since = typeof holder.since === 'number' && Number.isSafeInteger(holder.since) && holder.since > 0 ? { since: holder.since } : {};
      if (hp && alive(hp)) return { busy: { pid: hp, what: typeof holder.what === 'string' ? holder.what.slice(0, 60) : 'power-on', ...since } };
      try {
        unlinkSync(file);
      } catch {
        /* another process took it over first */
      }
    }
  }
  return { busy: { pid: 0, what: 'power-on' } };
}

const RAW = Symbol('unlocked connector');

/**
 * The connector with its `powerOn` taking the instance's lock for the call: every power-on path
 * that uses it (Power On, Keep from Release, the end-of-run no-GPU start, Create's start) is
 * refused at once while another power-on of the same instance is in flight, a wait for a card
 * included. The wait itself calls the unlocked connector (`unlockedConnector`) under the lock it holds.
 */
export function withPowerOnLock<C extends Connector>(c: C, accountId: string, locks: PowerOnLocks): C {
  return new Proxy(c, {
    get(target, prop) {
      if (prop === RAW) return target;
      if (prop === 'powerOn') {
        return async (ref: string, mode: PowerOnMode, signal?: AbortSignal) => {
          const l = locks.tryAcquire(powerLockKey(accountId, ref), 'power-on');
          if ('busy' in l) throw new PlatformError({ platform: target.kind, kind: 'invalidState', code: 'PowerOnInFlight', message: `this instance is ${busyText(l.busy)}: nothing sent` });
          try {
            return await target.powerOn(ref, mode, signal);
          } finally {
            l.release();
          }
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

export function unlockedConnector<C extends Connector>(c: C): C {
  return ((c as unknown as Record<symbol, C | undefined>)[RAW] ?? c) as C;
}

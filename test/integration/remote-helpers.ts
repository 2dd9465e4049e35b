// Shared setup for the remote integration suites: a known_hosts file per test and a
// RemoteConnection to the test sshd (directly or through the fault proxy).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RemoteConnection, type ConnectOptions } from '../../src/remote/connection';
import { RemoteError } from '../../src/remote/errors';
import { parseTarget } from '../../src/remote/target';
import type { Client } from 'ssh2';
import type { SyncRemote } from '../../src/remote/sync';
import type { TestSshd } from '../support/sshd';

export function tempDir(prefix = 'gpu-rent-it-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A connection with password auth (no local keys, no agent), fast retries for tests. */
export function connectionTo(sshd: TestSshd, knownHostsPath: string, opts: ConnectOptions & { port?: number } = {}): RemoteConnection {
  const { port, ...rest } = opts;
  return new RemoteConnection(parseTarget(`ssh -p ${port ?? sshd.port} ${sshd.user}@${sshd.host}`), {
    knownHostsPath,
    acceptNew: true,
    password: sshd.password,
    useDefaultKeys: false,
    agent: false,
    firstConnectRetryMs: 0,
    reconnectWindowMs: 5000,
    backoffBaseMs: 50,
    backoffMaxMs: 400,
    ...rest,
  });
}

/** Awaits a rejection and returns the RemoteError (fails the test on anything else). */
export async function remoteFailure(p: Promise<unknown>): Promise<RemoteError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RemoteError) return e;
    throw new Error(`expected a RemoteError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  throw new Error('expected a failure, but it succeeded');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * How many of the test user's `sleep` processes are alive. Zombies do not count: in a container
 * whose PID 1 reaps slowly, a killed process can linger as a zombie for seconds.
 */
export const LIVE_SLEEPS = `ps -u "$(id -u)" -o stat=,comm= | awk '$1 !~ /^Z/ && $2 == "sleep"' | wc -l`;

/**
 * The engine's `stream` (tar streams of many small files) over a plain ssh2 client: each
 * command passes through `rewrite` first (to break it on purpose); `onCall` counts them.
 */
export function plainStream(client: Client, rewrite: (command: string) => string, onCall: () => void = () => undefined): NonNullable<SyncRemote['stream']> {
  return (command, o) =>
    new Promise<{ code: number | null }>((res, rej) => {
      onCall();
      client.exec(rewrite(command), (err, ch) => {
        if (err) return rej(err);
        o.signal?.addEventListener('abort', () => ch.close());
        ch.on('data', o.onStdout);
        ch.stderr.on('data', (d: Buffer) => o.onStderr?.(d));
        ch.on('close', (code: number | null) => res({ code }));
        // A promise (push's first stream holds its bytes until the box says the folder is new):
        // written when it settles, undefined only ends stdin.
        void Promise.resolve(o.stdin).then((s) => (s === undefined ? ch.end() : ch.end(s)));
      });
    });
}

/**
 * Waits until an on-box watchdog loop (the watchdog or an after-job trigger) has gone round
 * `rounds` more times: each round rewrites its heartbeat file, so its modification time moves.
 * A negative check after this ("it did not fire") has seen the loop decide, instead of trusting
 * a fixed sleep on a loaded machine. `dir` is relative to the box user's home.
 */
export async function loopRounds(sshd: TestSshd, dir: string, rounds = 2, ms = 30000): Promise<void> {
  const mtime = () => sshd.runAsUser(`stat -c %.9Y "$HOME/${dir}/heartbeat" 2>/dev/null || echo none`).trim();
  const end = Date.now() + ms;
  let last = mtime();
  let seen = 0;
  while (seen < rounds) {
    if (Date.now() > end) throw new Error(`the loop in ~/${dir} went round ${seen} of ${rounds} times in ${ms} ms`);
    await sleep(100);
    const now = mtime();
    if (now !== last && now !== 'none') seen++;
    last = now;
  }
}

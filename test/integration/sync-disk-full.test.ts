// A local disk that fills during a sync, on a real tmpfs against a real sshd (issue 22.4): the
// error says exactly what this pass published (count and names) instead of "nothing was
// published" when some were, and the full disk keeps no state `.tmp` and no empty `.part`.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'ssh2';
import { startSshd, type TestSshd } from '../support/sshd';
import { syncOnce, SyncError, type SyncRemote } from '../../src/remote/sync';

function connect(sshd: TestSshd): Promise<{ remote: SyncRemote; close(): void }> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    const remote: SyncRemote = {
      sftp: () => new Promise((res, rej) => client.sftp((err, s) => (err ? rej(err) : res(s)))),
      exec: (command) =>
        new Promise((res, rej) => {
          client.exec(command, (err, stream) => {
            if (err) return rej(err);
            let stdout = '';
            let stderr = '';
            stream.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
            stream.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
            stream.on('close', (code: number | null) => res({ code, stdout, stderr }));
          });
        }),
    };
    client.on('ready', () => resolve({ remote, close: () => client.end() }));
    client.on('error', reject);
    client.connect({ host: sshd.host, port: sshd.port, username: sshd.user, privateKey: readFileSync(sshd.privateKeyPath), readyTimeout: 10000 });
  });
}

describe('sync: the local disk fills (a real tmpfs)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let conn: { remote: SyncRemote; close(): void };
  let mnt: string | undefined;
  let remoteDir: string;
  let uid = 0;
  let gid = 0;

  before(async function () {
    const dir = mkdtempSync(join(tmpdir(), 'sync-full-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=12m', 'tmpfs', dir], { stdio: 'pipe' });
      mnt = dir;
    } catch {
      rmSync(dir, { recursive: true, force: true });
      // Only where mounting is impossible (no root, no CAP_SYS_ADMIN).
      this.skip();
    }
    sshd = await startSshd();
    uid = statSync(sshd.home).uid;
    gid = statSync(sshd.home).gid;
    conn = await connect(sshd);
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    if (mnt) {
      execFileSync('umount', [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  });
  beforeEach(() => {
    remoteDir = join(sshd.home, `ckpt-${randomBytes(3).toString('hex')}`);
    mkdirSync(remoteDir);
    chownSync(remoteDir, uid, gid);
  });
  afterEach(() => {
    rmSync(remoteDir, { recursive: true, force: true });
    if (mnt) for (const f of readdirSync(mnt)) rmSync(join(mnt, f), { recursive: true, force: true });
  });

  const OLD = Math.floor(Date.now() / 1000) - 3600;
  function put(rel: string, content: Buffer): void {
    const path = join(remoteDir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    chownSync(path, uid, gid);
    utimesSync(path, OLD, OLD);
  }
  const files = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).sort() : []);
  const published = (dir: string) => files(dir).filter((n) => !n.endsWith('.part') && !n.startsWith('.gpu-rent-sync'));
  const diskFullError = async (p: Promise<unknown>): Promise<SyncError> => {
    const e = await p.then(
      () => assert.fail('the sync should have failed'),
      (err: unknown) => err,
    );
    assert.ok(e instanceof SyncError && e.code === 'local-disk-full', String(e));
    return e;
  };

  it('two of three 5 MiB checkpoints fit: the message names the two published, not "nothing was published"', async () => {
    for (const n of ['a.pt', 'b.pt', 'c.pt']) put(n, randomBytes(5 * 1024 * 1024));
    const target = join(mnt!, 'ckpt');
    const e = await diskFullError(syncOnce(conn.remote, { remoteDir, localDir: target, settleSeconds: 0, source: 'test', concurrency: 1 }));
    const onDisk = published(target);
    assert.equal(onDisk.length, 2, files(target).join(', '));
    for (const n of onDisk) assert.ok(readFileSync(join(target, n)).equals(readFileSync(join(remoteDir, n))), `${n} is whole`);
    assert.deepEqual(e.detail.published, onDisk, 'exactly what is published');
    assert.match(e.message, new RegExp(`published and verified before it: 2 files \\(${onDisk.map((n) => n.replace('.', '\\.')).join(', ')}\\)`));
    assert.doesNotMatch(e.message, /nothing was published/);
    assert.deepEqual(files(target).filter((n) => n.endsWith('.tmp')), []);
    assert.deepEqual(files(target).filter((n) => n.endsWith('.part') && statSync(join(target, n)).size === 0), []);
  });

  it('a disk already full: "nothing was published", and no empty .part or state .tmp is left behind', async () => {
    for (let i = 0; i < 6; i++) put(`small-${i}.json`, randomBytes(20 * 1024));
    const target = join(mnt!, 'ckpt');
    mkdirSync(target);
    // Fill the tmpfs to the last byte.
    const fd = openSync(join(mnt!, 'filler'), 'w');
    const chunk = Buffer.alloc(64 * 1024, 1);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (err) {
      assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
    }
    try {
      for (;;) writeSync(fd, Buffer.alloc(1));
    } catch {
      /* full to the byte */
    }
    closeSync(fd);
    const e = await diskFullError(syncOnce(conn.remote, { remoteDir, localDir: target, settleSeconds: 0, source: 'test' }));
    assert.match(e.message, /nothing was published/);
    assert.deepEqual(e.detail.published, []);
    assert.deepEqual(files(target).filter((n) => n.endsWith('.tmp') || (n.endsWith('.part') && statSync(join(target, n)).size === 0)), [], files(target).join(', '));
    assert.deepEqual(published(target), []);
  });
});

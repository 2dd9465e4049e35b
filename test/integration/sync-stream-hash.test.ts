// The local SHA-256 is computed on the stream: a pull hashes the bytes as they arrive and
// publishes without reading the written file back; a push reads each local file once (the
// same read feeds the hash and the upload). Counted on the real fs calls, against a real sshd.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type SFTPWrapper } from 'ssh2';
import { startSshd, type TestSshd } from '../support/sshd';
import { syncOnce, type SyncRemote } from '../../src/remote/sync';
import { pushOnce } from '../../src/remote/sync/push';

function connect(sshd: TestSshd): Promise<{ remote: SyncRemote; close: () => void; execs: string[] }> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    const execs: string[] = [];
    let sftpP: Promise<SFTPWrapper> | undefined;
    const remote: SyncRemote = {
      sftp: () => (sftpP ??= new Promise((res, rej) => client.sftp((err, s) => (err ? rej(err) : res(s))))),
      exec: (command) =>
        new Promise((res, rej) => {
          execs.push(command);
          client.exec(command, (err, stream) => {
            if (err) return rej(err);
            let stdout = '';
            stream.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
            stream.stderr.on('data', () => undefined);
            stream.on('close', (code: number | null) => res({ code, stdout, stderr: '' }));
          });
        }),
    };
    client.on('ready', () => resolve({ remote, close: () => client.end(), execs }));
    client.on('error', reject);
    client.connect({ host: sshd.host, port: sshd.port, username: sshd.user, privateKey: readFileSync(sshd.privateKeyPath) });
  });
}

/** Records every read-side fs call whose path is under `dir`, while `fn` runs. */
async function countReads(dir: string, fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  // The module object itself (a namespace import is a read-only copy): what the code under test calls.
  const fs = createRequire(__filename)('node:fs') as typeof import('node:fs');
  const fsAny = fs as unknown as Record<string, (...a: unknown[]) => unknown>;
  const fspAny = fs.promises as unknown as Record<string, (...a: unknown[]) => unknown>;
  const under = (p: unknown) => typeof p === 'string' && p.startsWith(dir);
  const patches: Array<[Record<string, (...a: unknown[]) => unknown>, string]> = [
    [fsAny, 'createReadStream'],
    [fsAny, 'readFileSync'],
    [fsAny, 'readSync'],
    [fspAny, 'readFile'],
    [fspAny, 'open'],
  ];
  const originals = patches.map(([o, k]) => o[k]!);
  patches.forEach(([o, k], i) => {
    o[k] = function (this: unknown, ...a: unknown[]) {
      const flags = a[1];
      const isRead = k !== 'open' || flags === undefined || flags === 'r' || flags === 'r+';
      if (under(a[0]) && isRead && !String(a[0]).endsWith('.gpu-rent-sync.json')) seen.push(`${k} ${String(a[0]).slice(dir.length)}`);
      return originals[i]!.apply(this, a);
    };
  });
  try {
    await fn();
  } finally {
    patches.forEach(([o, k], i) => (o[k] = originals[i]!));
  }
  return seen;
}

describe('sync and push hash on the stream (counted reads)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let conn: Awaited<ReturnType<typeof connect>>;
  let work: string;
  let boxDir: string;
  const OLD = Math.floor(Date.now() / 1000) - 3600;

  before(async () => {
    sshd = await startSshd();
    conn = await connect(sshd);
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
  });
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'stream-hash-'));
    boxDir = join(sshd.home, `sh-${randomBytes(3).toString('hex')}`);
    mkdirSync(boxDir);
    chownSync(boxDir, statSync(sshd.home).uid, statSync(sshd.home).gid);
  });
  afterEach(() => {
    rmSync(work, { recursive: true, force: true });
    rmSync(boxDir, { recursive: true, force: true });
  });

  it('a pull publishes verified files without reading them back, and the box hashes during the transfer', async () => {
    const big = randomBytes(9 * 1024 * 1024 + 3);
    const small = randomBytes(40 * 1024);
    for (const [name, data] of [['big.pt', big], ['small.json', small]] as const) {
      writeFileSync(join(boxDir, name), data);
      utimesSync(join(boxDir, name), OLD, OLD);
    }
    const local = join(work, 'ckpt');
    let report: Awaited<ReturnType<typeof syncOnce>> | undefined;
    let hashAskedBeforeLastByte = false;
    let lastBytesAt = 0;
    const execCountAtBytes: number[] = [];
    const reads = await countReads(local, async () => {
      report = await syncOnce(conn.remote, { remoteDir: boxDir, localDir: local, settleSeconds: 0 }, (p) => {
        if (p.kind === 'bytes' && p.name === 'big.pt') {
          lastBytesAt = performance.now();
          execCountAtBytes.push(conn.execs.filter((c) => c.includes(join(boxDir, 'big.pt'))).length);
        }
      });
    });
    assert.equal(report!.files, 2);
    assert.ok(readFileSync(join(local, 'big.pt')).equals(big));
    assert.ok(readFileSync(join(local, 'small.json')).equals(small));
    assert.deepEqual(reads, [], 'no local file was read during the pull');
    // The box's hash of big.pt was asked for before its first bytes arrived (it runs alongside).
    hashAskedBeforeLastByte = execCountAtBytes.length > 0 && execCountAtBytes[0]! >= 1;
    assert.ok(hashAskedBeforeLastByte, 'the box hash started with the transfer');
    assert.ok(lastBytesAt > 0);
    // The counter does see reads: a same-size local copy with other bytes is hashed (read
    // once: one digest says it is neither the box's bytes nor what sync wrote), and nothing
    // else is read. Changed here, it is kept; the box's version goes beside it.
    const other = randomBytes(small.length);
    writeFileSync(join(local, 'small.json'), other);
    utimesSync(join(local, 'small.json'), OLD + 5, OLD + 5);
    const again = await countReads(local, () => syncOnce(conn.remote, { remoteDir: boxDir, localDir: local, settleSeconds: 0 }));
    assert.deepEqual(again, ['readFileSync /small.json']);
    assert.ok(readFileSync(join(local, 'small.json')).equals(other));
    assert.ok(readFileSync(join(local, `small (box copy ${new Date(OLD * 1000).toISOString().slice(0, 10)}).json`)).equals(small));
  });

  it('a push reads each local file once (hash and upload from the same read)', async () => {
    const src = join(work, 'data');
    mkdirSync(src);
    writeFileSync(join(src, 'weights.bin'), randomBytes(7 * 1024 * 1024));
    writeFileSync(join(src, 'a.txt'), 'hello');
    const reads = await countReads(src, () => pushOnce(conn.remote, { localDir: src, remoteDir: join(boxDir, 'up') }));
    assert.deepEqual(reads.sort(), ['createReadStream /a.txt', 'createReadStream /weights.bin']);
    assert.ok(readFileSync(join(boxDir, 'up', 'weights.bin')).equals(readFileSync(join(src, 'weights.bin'))));
  });
});

// Checkpoint sync against a real OpenSSH server on loopback (and a fault proxy in front of
// it): atomic publication, resume, hostile names, --delete, --keep-last, disk full, watch.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { appendFileSync, chownSync, closeSync, existsSync, openSync, writeSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, type SFTPWrapper } from 'ssh2';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { startShapingProxy } from '../support/shaping-proxy';
import { startSshd, type TestSshd } from '../support/sshd';
import { syncOnce, watchSync, SyncError, type SyncProgress, type SyncRemote, type SyncReport } from '../../src/remote/sync';
import { plainStream } from './remote-helpers';
import { EXEC_LIST_MAGIC as LIST_MAGIC } from '../../src/remote/sync/list-exec';

interface Conn {
  remote: SyncRemote;
  client: Client;
  /** SFTP requests sent, by type (counted on the real session). */
  /** exec: commands other than the listing command (list: those). */
  counts: { open: number; read: number; readdir: number; exec: number; list: number; stream: number };
  close(): void;
}

/** A plain ssh2 connection to the test sshd (directly or through the fault proxy). */
function connect(sshd: TestSshd, port = sshd.port, opts: { stream?: (command: string) => string } = {}): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    const counts = { open: 0, read: 0, readdir: 0, exec: 0, list: 0, stream: 0 };
    let sftpP: Promise<SFTPWrapper> | undefined;
    const remote: SyncRemote = {
      sftp: () =>
        (sftpP ??= new Promise((res, rej) =>
          client.sftp((err, s) => {
            if (err) return rej(err);
            // Count requests without changing them.
            for (const m of ['open', 'read', 'readdir', 'opendir'] as const) {
              const orig = (s[m] as (...a: unknown[]) => unknown).bind(s);
              (s as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => {
                // A listing is one opendir (or a readdir(path), which pages through readdir(handle) itself).
                if (m === 'opendir') counts.readdir++;
                else if (m !== 'readdir' || typeof a[0] === 'string') counts[m]++;
                return orig(...a);
              };
            }
            res(s);
          }),
        )),
      exec: (command, o) =>
        new Promise((res, rej) => {
          if (command.includes(LIST_MAGIC)) counts.list++;
          else counts.exec++;
          client.exec(command, (err, stream) => {
            if (err) return rej(err);
            // stdin as the extension's remote hands it over: a promise's line when it settles.
            if (o?.stdin) void o.stdin.then((s) => (s === undefined ? stream.end() : stream.end(s)));
            else stream.end();
            // Decoded once whole, as the connection does: a name's UTF-8 may span two chunks.
            const out: Buffer[] = [];
            const errOut: Buffer[] = [];
            stream.on('data', (d: Buffer) => out.push(d));
            stream.stderr.on('data', (d: Buffer) => errOut.push(d));
            stream.on('close', (code: number | null) => res({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(errOut).toString('utf8') }));
          });
        }),
      // With `opts.stream`: the engine's tar streams, the command passed through it (to break it).
      ...(opts.stream ? { stream: plainStream(client, opts.stream, () => counts.stream++) } : {}),
    };
    client.on('ready', () => resolve({ remote, client, counts, close: () => client.end() }));
    client.on('error', reject);
    client.connect({ host: sshd.host, port, username: sshd.user, privateKey: readFileSync(sshd.privateKeyPath), readyTimeout: 10000 });
  });
}

describe('sync against a real sshd', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let conn: Conn;
  let remoteDir: string;
  let localDir: string;
  let work: string;
  let uid = 0;
  let gid = 0;

  before(async () => {
    sshd = await startSshd();
    uid = statSync(sshd.home).uid;
    gid = statSync(sshd.home).gid;
    conn = await connect(sshd);
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
  });
  beforeEach(() => {
    remoteDir = join(sshd.home, `ckpt-${randomBytes(3).toString('hex')}`);
    mkdirSync(remoteDir);
    chownSync(remoteDir, uid, gid);
    work = mkdtempSync(join(tmpdir(), 'sync-local-'));
    localDir = join(work, 'local');
  });
  afterEach(() => {
    rmSync(work, { recursive: true, force: true });
    rmSync(remoteDir, { recursive: true, force: true });
  });

  const OLD = Math.floor(Date.now() / 1000) - 3600;
  /** Writes a file on the box (as the test user), an hour old unless told. */
  function put(rel: string, content: Buffer | string, mtime = OLD): string {
    const path = join(remoteDir, rel);
    mkdirSync(dirname(path), { recursive: true });
    chownSync(dirname(path), uid, gid);
    writeFileSync(path, content);
    chownSync(path, uid, gid);
    utimesSync(path, mtime, mtime);
    return path;
  }
  const local = (rel: string) => join(localDir, rel);
  const opts = (extra: Partial<Parameters<typeof syncOnce>[1]> = {}) => ({ remoteDir, localDir, settleSeconds: 0, source: 'test', ...extra });
  const sameBytes = (rel: string, remoteRel = rel) => assert.ok(readFileSync(local(rel)).equals(readFileSync(join(remoteDir, remoteRel))), `${rel} differs`);
  /** Every file under the local folder, relative, sorted. */
  function localFiles(dir = localDir, rel = ''): string[] {
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? localFiles(join(dir, e.name), `${rel}${e.name}/`) : [`${rel}${e.name}`]))
      .sort();
  }

  it('pulls a tree: nested folders, empty and one-byte files, verified, mtimes kept, no .part left', async () => {
    const big = randomBytes(3 * 1024 * 1024 + 17);
    put('checkpoint-100/model.safetensors', big);
    put('checkpoint-100/trainer_state.json', '{"step":100}');
    put('empty.bin', '');
    put('one.bin', 'x');
    put('训练/第1轮.pt', randomBytes(1000));
    const progress: SyncProgress[] = [];
    const r = await syncOnce(conn.remote, opts(), (p) => progress.push(p));
    assert.deepEqual(r.pulled, ['checkpoint-100/model.safetensors', 'checkpoint-100/trainer_state.json', 'empty.bin', 'one.bin', '训练/第1轮.pt']);
    assert.equal(r.files, 5);
    assert.equal(r.bytes, big.length + 12 + 0 + 1 + 1000);
    assert.deepEqual(r.skipped, []);
    for (const rel of r.pulled) sameBytes(rel);
    assert.equal(Math.floor(statSync(local('checkpoint-100/model.safetensors')).mtimeMs / 1000), OLD);
    assert.deepEqual(localFiles(), ['.gpu-rent-sync.json', ...r.pulled].sort());
    assert.ok(progress.some((p) => p.kind === 'bytes' && p.name === 'checkpoint-100/model.safetensors' && p.done === big.length));
  });

  it('finds a folder given as ~/NAME or relative to the login folder', async () => {
    put('x.pt', 'x');
    const name = remoteDir.slice(sshd.home.length + 1);
    const viaTilde = await syncOnce(conn.remote, opts({ remoteDir: `~/${name}` }));
    assert.deepEqual(viaTilde.pulled, ['x.pt']);
    const viaRelative = await syncOnce(conn.remote, opts({ remoteDir: name }));
    assert.equal(viaRelative.unchanged, 1);
  });

  it("the listing command, which brings the box's clock, goes before the SFTP start; no other command asks the clock", async () => {
    for (let i = 0; i < 5; i++) put(`f${i}.bin`, randomBytes(100 + i));
    const events: string[] = [];
    // This connection's SFTP session is open already, where a pass on a fresh link waits four
    // round trips for it: the command then gets only the engine's 50 ms least grace, which a
    // loaded CI machine's exec can miss. The SFTP start is made to take 400 ms, as on a slow
    // link, so the test looks at the order and the clock, not at the machine's load.
    const slowStart = () => new Promise<void>((r) => setTimeout(r, 400)).then(() => conn.remote.sftp());
    const spy: SyncRemote = { sftp: () => (events.push('sftp'), slowStart()), exec: (c, o) => (events.push(c.includes(LIST_MAGIC) ? 'list' : c), conn.remote.exec(c, o)) };
    const before = conn.counts.readdir;
    const first = await syncOnce(spy, opts({ settleSeconds: 5 }));
    assert.equal(first.files, 5);
    assert.deepEqual(events.slice(0, 2), ['list', 'sftp']);
    assert.equal(events.filter((e) => e === 'date +%s').length, 0, 'the clock came with the listing');
    assert.equal(conn.counts.readdir, before, 'no SFTP directory read');
    events.length = 0;
    const again = await syncOnce(spy, opts({ settleSeconds: 5 }));
    assert.equal(again.unchanged, 5);
    assert.deepEqual(events, ['list', 'sftp'], 'nothing changed: the listing and nothing else');
  });

  it('where the listing command fails, SFTP lists and the clock is asked as before', async () => {
    for (let i = 0; i < 5; i++) put(`d${i % 2}/f${i}.bin`, randomBytes(100 + i));
    const events: string[] = [];
    // A box whose find has no -printf (BusyBox): the command exits non-zero.
    const spy: SyncRemote = {
      sftp: () => (events.push('sftp'), conn.remote.sftp()),
      exec: (c, o) => (events.push(c.includes(LIST_MAGIC) ? 'list' : c), conn.remote.exec(c.includes(LIST_MAGIC) ? c.replace('-printf', '-bogus') : c, o)),
    };
    const before = conn.counts.readdir;
    const first = await syncOnce(spy, opts({ settleSeconds: 5 }));
    assert.equal(first.files, 5);
    assert.equal(conn.counts.readdir - before, 3, 'SFTP listed the folder and its two sub-folders');
    assert.equal(events.filter((e) => e === 'date +%s').length, 1, 'the clock asked once');
    for (const rel of first.pulled) sameBytes(rel);
  });

  it('a no-change re-sync opens no file, reads 0 bytes and runs only the listing command', async () => {
    for (let i = 0; i < 50; i++) put(`d${i % 5}/f${i}.bin`, randomBytes(100 + i));
    const first = await syncOnce(conn.remote, opts());
    assert.equal(first.files, 50);
    const before = { ...conn.counts };
    const r = await syncOnce(conn.remote, opts());
    assert.equal(r.files, 0);
    assert.equal(r.bytes, 0);
    assert.equal(r.unchanged, 50);
    assert.equal(conn.counts.open, before.open, 'no file opened');
    assert.equal(conn.counts.read, before.read, 'no read request');
    assert.equal(conn.counts.exec, before.exec, 'no other remote command');
    assert.equal(conn.counts.list - before.list, 1, 'one listing command');
    assert.equal(conn.counts.readdir, before.readdir, 'no SFTP directory read');
  });

  it('re-pulls a changed file, and only verifies a file whose mtime alone changed', async () => {
    put('a.pt', 'version-1');
    put('b.pt', 'same-content');
    await syncOnce(conn.remote, opts());
    put('a.pt', 'version-2', OLD + 10); // same size, new content
    put('b.pt', 'same-content', OLD + 10); // touched only
    const r = await syncOnce(conn.remote, opts());
    assert.deepEqual(r.pulled, ['a.pt']);
    assert.equal(r.bytes, 9);
    assert.equal(r.verified, 1);
    sameBytes('a.pt');
    assert.equal(Math.floor(statSync(local('b.pt')).mtimeMs / 1000), OLD + 10);
  });

  it('adopts files already copied by other means (same bytes) without transferring them', async () => {
    const content = randomBytes(200000);
    put('ckpt.pt', content);
    mkdirSync(localDir, { recursive: true });
    writeFileSync(local('ckpt.pt'), content); // e.g. an earlier scp, other mtime
    const r = await syncOnce(conn.remote, opts());
    assert.equal(r.bytes, 0);
    assert.equal(r.verified, 1);
  });

  describe('resume', () => {
    const size = 1024 * 1024 + 3;
    for (const partSize of [0, 1, size - 1, size]) {
      it(`resumes a .part of ${partSize} bytes and reads only the rest`, async () => {
        const content = randomBytes(size);
        put('model.pt', content);
        mkdirSync(localDir, { recursive: true });
        writeFileSync(local('model.pt.part'), content.subarray(0, partSize));
        const r = await syncOnce(conn.remote, opts());
        assert.deepEqual(r.pulled, ['model.pt']);
        assert.equal(r.bytes, size - partSize);
        assert.ok(readFileSync(local('model.pt')).equals(content));
        assert.ok(!existsSync(local('model.pt.part')));
      });
    }

    it('does not trust a corrupted .part: one flipped byte means starting over', async () => {
      const content = randomBytes(size);
      put('model.pt', content);
      mkdirSync(localDir, { recursive: true });
      const bad = Buffer.from(content.subarray(0, 700000));
      bad[123456] = bad[123456]! ^ 0xff;
      writeFileSync(local('model.pt.part'), bad);
      const events: SyncProgress[] = [];
      const r = await syncOnce(conn.remote, opts(), (p) => events.push(p));
      assert.equal(r.bytes, size, 'the whole file was read again');
      assert.ok(readFileSync(local('model.pt')).equals(content));
      assert.ok(events.some((e) => e.kind === 'part-discarded' && e.why === 'prefix-mismatch'));
    });

    it('does not trust a .part of the full size with wrong bytes, nor one longer than the file', async () => {
      const content = randomBytes(5000);
      put('a.pt', content);
      put('b.pt', content);
      mkdirSync(localDir, { recursive: true });
      writeFileSync(local('a.pt.part'), randomBytes(5000));
      writeFileSync(local('b.pt.part'), Buffer.concat([content, Buffer.from('tail')]));
      const r = await syncOnce(conn.remote, opts());
      assert.deepEqual(r.pulled, ['a.pt', 'b.pt']);
      sameBytes('a.pt');
      sameBytes('b.pt');
    });
  });

  describe('faults', () => {
    let proxy: FaultProxy;
    before(async () => {
      proxy = await startFaultProxy(sshd.port);
    });
    after(async () => {
      await proxy?.close();
    });

    for (let round = 0; round < 3; round++) {
      it(`a reset at a random offset leaves only a clean .part, which the next run resumes (round ${round + 1})`, async () => {
        const size = 8 * 1024 * 1024;
        const content = randomBytes(size);
        put('big.ckpt', content);
        proxy.mode = 'pass';
        const c = await connect(sshd, proxy.port);
        const cutAt = randomInt(1, size);
        let err: unknown;
        try {
          await syncOnce(c.remote, opts(), (p) => {
            if (p.kind === 'file-start') proxy.cutAfterBytes(cutAt);
          });
        } catch (e) {
          err = e;
        } finally {
          proxy.cutAfterBytes(null);
          c.close();
        }
        assert.ok(err instanceof SyncError, `expected a SyncError, got ${String(err)} (cut at ${cutAt})`);
        assert.equal(err.code, 'connection-lost');
        assert.ok(!existsSync(local('big.ckpt')), 'nothing published at the final path');
        const part = existsSync(local('big.ckpt.part')) ? readFileSync(local('big.ckpt.part')) : Buffer.alloc(0);
        assert.ok(part.length < size, `.part is ${part.length} bytes`);
        assert.ok(part.equals(content.subarray(0, part.length)), '.part is a true prefix');

        const c2 = await connect(sshd, proxy.port);
        try {
          const r = await syncOnce(c2.remote, opts());
          assert.deepEqual(r.pulled, ['big.ckpt']);
          assert.equal(r.bytes, size - part.length, 'resumed from the .part');
          assert.ok(readFileSync(local('big.ckpt')).equals(content));
        } finally {
          c2.close();
        }
      });
    }

    it('watch keeps going across a dropped connection and stops cleanly when aborted', async () => {
      put('one.pt', 'first');
      proxy.mode = 'pass';
      const ac = new AbortController();
      const rounds: SyncReport[] = [];
      const errors: string[] = [];
      const conns: Conn[] = [];
      let current: Conn | undefined;
      const done = watchSync(
        async () => {
          if (!current) {
            current = await connect(sshd, proxy.port);
            conns.push(current);
            current.client.on('close', () => (current = undefined));
          }
          return current.remote;
        },
        { ...opts(), intervalSeconds: 0.2, signal: ac.signal, minBackoffMs: 50, maxBackoffMs: 200 },
        (e) => {
          if (e.kind === 'round') {
            rounds.push(e.report);
            if (rounds.length === 1) {
              proxy.resetAll();
              put('two.pt', 'second');
            }
            if (e.report.pulled.includes('two.pt')) ac.abort();
          } else errors.push(e.error.message);
        },
      );
      const timer = setTimeout(() => ac.abort(), 20000);
      await done;
      clearTimeout(timer);
      for (const c of conns) c.close();
      assert.ok(conns.length >= 2, `reconnected (${conns.length} connections, errors: ${errors.join('; ')})`);
      sameBytes('one.pt');
      sameBytes('two.pt');
    });
  });

  it('does not publish a file that grows during the download, and pulls it once it has settled', async () => {
    const path = put('growing.ckpt', randomBytes(4 * 1024 * 1024));
    let appended = false;
    const r = await syncOnce(conn.remote, opts({ inFlight: 4 }), (p) => {
      if (p.kind === 'bytes' && !appended) {
        appended = true;
        appendFileSync(path, randomBytes(4096)); // the trainer is still writing
      }
    });
    assert.ok(appended);
    assert.deepEqual(r.skipped, [{ name: 'growing.ckpt', reason: 'changed-during-download' }]);
    assert.equal(r.files, 0);
    assert.ok(!existsSync(local('growing.ckpt')));
    utimesSync(path, OLD + 5, OLD + 5);
    const r2 = await syncOnce(conn.remote, opts());
    assert.deepEqual(r2.pulled, ['growing.ckpt']);
    sameBytes('growing.ckpt');
  });

  describe('big files: their identity on the box instead of a second read there', () => {
    /** The remote with every command it runs written down. */
    const spied = (cmds: string[]): SyncRemote => ({ sftp: () => conn.remote.sftp(), exec: (c, o) => (cmds.push(c), conn.remote.exec(c, o)) });
    const isStat = (c: string) => c.includes('stat -c');
    const isHash = (c: string) => c.includes('dgst');
    const aged = () => new Promise((r) => setTimeout(r, 2100)); // ctime older than IDENTITY_MIN_AGE_S

    it('pulls an aged big file with a stat before and after and no hash on the box; --box-hash hashes it there too', async () => {
      put('model.safetensors', randomBytes(6 * 1024 * 1024 + 3));
      await aged();
      const cmds: string[] = [];
      const r = await syncOnce(spied(cmds), opts());
      assert.deepEqual(r.pulled, ['model.safetensors']);
      assert.equal(r.byIdentity, 1);
      sameBytes('model.safetensors');
      assert.equal(cmds.filter(isStat).length, 2);
      // The look after the last byte was made ready ahead (the file is all tail: 6 MiB) and answered.
      assert.equal(cmds.filter((c) => isStat(c) && c.includes('read -r _')).length, 1);
      assert.equal(cmds.filter(isHash).length, 0, 'the box did not read the file a second time');
      rmSync(localDir, { recursive: true, force: true });
      const cmds2: string[] = [];
      const r2 = await syncOnce(spied(cmds2), opts({ boxHash: true }));
      assert.equal(r2.byIdentity, 0);
      assert.equal(cmds2.filter(isHash).length, 1);
      assert.equal(cmds2.filter(isStat).length, 0);
      sameBytes('model.safetensors');
    });

    it('hashes on the box a big file changed in the last seconds (its change time cannot yet tell a later write)', async () => {
      put('fresh.safetensors', randomBytes(5 * 1024 * 1024));
      const cmds: string[] = [];
      const r = await syncOnce(spied(cmds), opts());
      assert.deepEqual(r.pulled, ['fresh.safetensors']);
      assert.equal(r.byIdentity, 0);
      assert.equal(cmds.filter(isHash).length, 1);
      sameBytes('fresh.safetensors');
    });

    it('refuses a big file rewritten in place during the pull with its size and mtime put back', async () => {
      const path = put('ckpt.pt', randomBytes(24 * 1024 * 1024));
      await aged();
      let tampered = false;
      const r = await syncOnce(conn.remote, opts({ inFlight: 2 }), (p) => {
        if (p.kind === 'bytes' && !tampered) {
          tampered = true;
          const fd = openSync(path, 'r+');
          writeSync(fd, Buffer.from('EVIL'), 0, 4, 20 * 1024 * 1024);
          closeSync(fd);
          utimesSync(path, OLD, OLD); // what the listing and SFTP's fstat (whole seconds) see again
        }
      });
      assert.ok(tampered);
      assert.deepEqual(r.skipped, [{ name: 'ckpt.pt', reason: 'changed-during-download' }]);
      assert.equal(r.files, 0);
      assert.ok(!existsSync(local('ckpt.pt')));
    });
  });

  describe('many new small files in tar streams', () => {
    let streamed: Conn;
    const viaStream = async (rewrite: (command: string) => string = (c) => c) => (streamed = await connect(sshd, sshd.port, { stream: rewrite }));
    afterEach(() => streamed?.close());
    const manySmall = (n: number) => {
      for (let i = 0; i < n; i++) put(`step-${i % 4}/shard-${String(i).padStart(3, '0')}.bin`, randomBytes(1 + ((i * 97) % 3000)));
    };

    for (const [how, streamGzip, gzipped] of [
      ['as it is: loopback answers like a LAN', undefined, false],
      ['gzipped when asked (as for a box further away)', true, true],
      ['as it is when asked', false, false],
    ] as const) {
      it(`pulls 60 small files in one stream ${how}, verified against the box`, async () => {
        manySmall(60);
        const commands: string[] = [];
        await viaStream((c) => (commands.push(c), c));
        const r = await syncOnce(streamed.remote, opts({ streamGzip }));
        assert.equal(r.files, 60);
        assert.deepEqual(r.skipped, []);
        assert.equal(commands.length, 1);
        assert.equal(commands[0]!.includes('gzip'), gzipped, commands[0]);
        assert.deepEqual([streamed.counts.open, streamed.counts.exec], [0, 0], 'nothing file by file');
        for (const rel of r.pulled) sameBytes(rel);
      });
    }

    it('a box 10 ms away (a same-city tunnel) gets its stream gzipped without being asked', async () => {
      manySmall(60);
      const shaper = await startShapingProxy(sshd.port, { rttMs: 10, bitsPerSecond: 100e6 });
      try {
        const commands: string[] = [];
        streamed = await connect(sshd, shaper.port, { stream: (c) => (commands.push(c), c) });
        const r = await syncOnce(streamed.remote, opts());
        assert.equal(r.files, 60);
        assert.equal(commands.length, 1);
        assert.ok(commands[0]!.includes('| gzip -1'), commands[0]);
        for (const rel of r.pulled) sameBytes(rel);
      } finally {
        streamed.close();
        await shaper.close();
      }
    });

    it('pulls 60 small files in one stream (no SFTP open for any), verified against the box, mtimes kept, a big file beside them', async () => {
      manySmall(60);
      put('model.pt', randomBytes(5 * 1024 * 1024));
      await viaStream();
      const r = await syncOnce(streamed.remote, opts());
      assert.equal(r.files, 61);
      assert.deepEqual(r.skipped, []);
      assert.equal(streamed.counts.stream, 1);
      assert.equal(streamed.counts.open, 1, 'only the big file was opened over SFTP');
      for (const rel of r.pulled) sameBytes(rel);
      assert.equal(Math.floor(statSync(local('step-1/shard-001.bin')).mtimeMs / 1000), OLD);
      assert.deepEqual(localFiles().filter((f) => f.endsWith('.part')), []);
    });

    it("the stream's own command hashes its files (no hash batch, no SFTP open), and a hash that is not the bytes' is never taken", async () => {
      manySmall(50);
      await viaStream();
      const r = await syncOnce(streamed.remote, opts());
      assert.equal(r.files, 50);
      assert.deepEqual([streamed.counts.stream, streamed.counts.exec, streamed.counts.open], [1, 0, 0], 'one command: the stream and its hashes');
      for (const rel of r.pulled) sameBytes(rel);
      streamed.close();
      // The box answers with another 256-bit hash (BLAKE2), well-formed and for the right paths:
      // every file fails its check, is removed, and comes again over SFTP against a fresh hash.
      rmSync(localDir, { recursive: true, force: true });
      await viaStream((c) => c.replace('openssl dgst -sha256 -r', 'b2sum -l 256'));
      const lied = await syncOnce(streamed.remote, opts());
      assert.equal(lied.files, 50);
      assert.deepEqual(lied.skipped, []);
      assert.equal(streamed.counts.open, 50, 'each file again over SFTP');
      assert.ok(streamed.counts.exec >= 1, 'hashed again by the batches');
      for (const rel of lied.pulled) sameBytes(rel);
      assert.deepEqual(localFiles().filter((f) => f.endsWith('.part')), []);
    });

    it('a link swapped in or a file gone after the listing is not taken from the stream; the file-by-file pull says why', async () => {
      manySmall(40);
      await viaStream();
      const r = await syncOnce(streamed.remote, opts(), (p) => {
        if (p.kind !== 'listed') return;
        // A link to a secret outside the folder, with the listed size and mtime.
        const swapped = join(remoteDir, 'step-0/shard-004.bin');
        const secret = join(remoteDir, '..', `secret-${randomBytes(3).toString('hex')}`);
        writeFileSync(secret, Buffer.alloc(statSync(swapped).size, 'S'));
        utimesSync(secret, OLD, OLD);
        rmSync(swapped);
        symlinkSync(secret, swapped);
        rmSync(join(remoteDir, 'step-1/shard-005.bin'));
      });
      assert.deepEqual(r.skipped, [
        { name: 'step-0/shard-004.bin', reason: 'remote-swapped' },
        { name: 'step-1/shard-005.bin', reason: 'unreadable' },
      ]);
      assert.equal(r.files, 38);
      assert.ok(!existsSync(local('step-0/shard-004.bin')));
      assert.ok(!readdirSync(join(localDir, 'step-0')).some((n) => readFileSync(join(localDir, 'step-0', n)).includes('SSSS')));
    });

    it('a box without tar or gzip, or one sending garbage or a member it was not asked for, loses nothing: the files come file by file', async () => {
      manySmall(30);
      const evil = join(work, 'evil.tar');
      execFileSync('sh', ['-c', `cd ${work} && mkdir -p x && echo pwned > x/escape.txt && tar -c -f ${evil} x/escape.txt && gzip -1 -k ${evil}`]);
      // Both ways a stream can come: gzipped (a box further away) and as it is (a near one).
      for (const [streamGzip, gz] of [
        [true, ' | gzip -1'],
        [false, ''],
      ] as const)
        for (const rewrite of [() => 'exit 127', () => 'head -c 100000 /dev/urandom', () => `cat ${evil}${streamGzip ? '.gz' : ''}`, () => `yes | head -c 50000000${gz}`]) {
          rmSync(localDir, { recursive: true, force: true });
          await viaStream(rewrite);
          const r = await syncOnce(streamed.remote, opts({ streamGzip }));
          streamed.close();
          assert.equal(r.files, 30, rewrite());
          assert.deepEqual(r.skipped, []);
          for (const rel of r.pulled) sameBytes(rel);
          assert.deepEqual(localFiles().filter((f) => !f.startsWith('step-')), ['.gpu-rent-sync.json']);
        }
    });
  });

  it('skips files modified within the settle time, or waits for them once when asked', async () => {
    put('old.pt', 'old');
    const now = Math.floor(Date.now() / 1000);
    put('fresh.pt', 'fresh', now);
    const r = await syncOnce(conn.remote, opts({ settleSeconds: 30, waitForSettle: false }));
    assert.deepEqual(r.pulled, ['old.pt']);
    assert.deepEqual(r.skipped, [{ name: 'fresh.pt', reason: 'still-being-written' }]);
    const t0 = Date.now();
    const r2 = await syncOnce(conn.remote, opts({ settleSeconds: 2 }));
    assert.deepEqual(r2.pulled, ['fresh.pt']);
    assert.ok(Date.now() - t0 >= 1000, 'it waited for the file to settle');
  });

  it('refuses hostile names and links, reports each with a reason, and writes nothing outside the folder', async () => {
    put('good.bin', 'good');
    put('sub/inner.bin', 'inner');
    put('back\\slash.bin', 'x');
    put('new\nline.bin', 'x');
    put('CON', 'x');
    put('aux.txt', 'x');
    put('esc\x1b[31m.bin', 'x');
    put('fake.part', 'x');
    symlinkSync('../../..', join(remoteDir, 'evil'));
    symlinkSync('/etc/passwd', join(remoteDir, 'passwd'));
    symlinkSync('/nonexistent/target', join(remoteDir, 'dangling'));
    symlinkSync('good.bin', join(remoteDir, 'inside-link'));
    symlinkSync('sub', join(remoteDir, 'dirlink'));
    execFileSync('mkfifo', [join(remoteDir, 'fifo')]);
    mkdirSync(localDir);
    const parentBefore = readdirSync(work).sort();
    const r = await syncOnce(conn.remote, opts());
    assert.deepEqual(r.pulled, ['good.bin', 'inside-link', 'sub/inner.bin']);
    assert.deepEqual(r.skipped, [
      { name: 'CON', reason: 'device-name' },
      { name: 'aux.txt', reason: 'device-name' },
      { name: 'back\\slash.bin', reason: 'backslash' },
      { name: 'dangling', reason: 'symlink-dangling' },
      { name: 'dirlink', reason: 'symlink-to-directory' },
      { name: 'esc\x1b[31m.bin', reason: 'control-char' },
      { name: 'evil', reason: 'symlink-outside' },
      { name: 'fake.part', reason: 'reserved-name' },
      { name: 'fifo', reason: 'special-file' },
      { name: 'new\nline.bin', reason: 'control-char' },
      { name: 'passwd', reason: 'symlink-outside' },
    ]);
    assert.equal(readFileSync(local('inside-link'), 'utf8'), 'good');
    assert.ok(lstatSync(local('inside-link')).isFile(), 'a link inside the tree arrives as a plain file');
    assert.deepEqual(localFiles(), ['.gpu-rent-sync.json', 'good.bin', 'inside-link', 'sub/inner.bin']);
    assert.deepEqual(readdirSync(work).sort(), parentBefore);
  });

  describe('--delete', () => {
    it('never deletes without it; with it removes only files it synced that left the box', async () => {
      put('a.pt', 'a');
      put('b.pt', 'b');
      put('dir/c.pt', 'c');
      await syncOnce(conn.remote, opts());
      writeFileSync(local('mine.txt'), 'the user wrote this'); // never synced: never ours
      rmSync(join(remoteDir, 'a.pt'));
      rmSync(join(remoteDir, 'dir'), { recursive: true });
      const keep = await syncOnce(conn.remote, opts());
      assert.deepEqual(keep.deleted, []);
      assert.ok(existsSync(local('a.pt')) && existsSync(local('dir/c.pt')));
      const del = await syncOnce(conn.remote, opts({ delete: true }));
      assert.deepEqual(del.deleted, ['a.pt', 'dir/c.pt']);
      assert.deepEqual(localFiles(), ['.gpu-rent-sync.json', 'b.pt', 'mine.txt']);
    });

    it('keeps a synced file the user changed locally, and stale .part files go', async () => {
      put('a.pt', 'a');
      put('b.pt', 'b');
      await syncOnce(conn.remote, opts());
      writeFileSync(local('a.pt'), 'edited locally');
      writeFileSync(local('gone.pt.part'), 'half');
      rmSync(join(remoteDir, 'a.pt'));
      const r = await syncOnce(conn.remote, opts({ delete: true }));
      assert.deepEqual(r.deleted, []);
      assert.deepEqual(r.skipped, [{ name: 'a.pt', reason: 'local-modified' }]);
      assert.deepEqual(localFiles(), ['.gpu-rent-sync.json', 'a.pt', 'b.pt']);
    });

    it('refuses to empty the local copy when the folder on the box is empty (a reset instance)', async () => {
      put('a.pt', 'a');
      await syncOnce(conn.remote, opts());
      rmSync(join(remoteDir, 'a.pt'));
      const r = await syncOnce(conn.remote, opts({ delete: true }));
      assert.deepEqual(r.deleted, []);
      assert.deepEqual(r.skipped, [{ name: remoteDir, reason: 'remote-empty-no-delete' }]);
      assert.ok(existsSync(local('a.pt')));
    });

    it('says so when the remote folder is missing, and deletes nothing', async () => {
      put('a.pt', 'a');
      await syncOnce(conn.remote, opts());
      rmSync(remoteDir, { recursive: true });
      await assert.rejects(syncOnce(conn.remote, opts({ delete: true })), (e: unknown) => e instanceof SyncError && e.code === 'remote-missing' && e.message.includes(remoteDir));
      assert.ok(existsSync(local('a.pt')));
    });
  });

  it('--keep-last N pulls the newest N complete entries; with --delete the older ones go', async () => {
    put('checkpoint-100/model.pt', 'c100', OLD);
    put('checkpoint-200/model.pt', 'c200', OLD + 100);
    put('checkpoint-300/model.pt', 'c300', OLD + 200);
    put('checkpoint-300/optimizer.pt', 'o300', OLD + 201);
    const r = await syncOnce(conn.remote, opts({ keepLast: 2 }));
    assert.deepEqual(r.pulled, ['checkpoint-200/model.pt', 'checkpoint-300/model.pt', 'checkpoint-300/optimizer.pt']);
    const now = Math.floor(Date.now() / 1000);
    put('checkpoint-400/model.pt', 'c400', OLD + 300);
    put('checkpoint-500/model.pt', 'c500-being-written', now); // in progress: not counted yet
    const r2 = await syncOnce(conn.remote, opts({ keepLast: 2, delete: true, settleSeconds: 60, waitForSettle: false }));
    assert.deepEqual(r2.pulled, ['checkpoint-400/model.pt']);
    assert.deepEqual(r2.deleted, ['checkpoint-200/model.pt']);
    assert.deepEqual(r2.skipped, [{ name: 'checkpoint-500/model.pt', reason: 'still-being-written' }]);
    assert.deepEqual(localFiles(), ['.gpu-rent-sync.json', 'checkpoint-300/model.pt', 'checkpoint-300/optimizer.pt', 'checkpoint-400/model.pt']);
  });

  describe('local disk full (a real 1 MiB tmpfs)', () => {
    let mnt: string | undefined;
    before(function () {
      const dir = mkdtempSync(join(tmpdir(), 'sync-tmpfs-'));
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'pipe' });
        mnt = dir;
      } catch (e) {
        rmSync(dir, { recursive: true, force: true });
        // Only where mounting is impossible (no root, no CAP_SYS_ADMIN in this container).
        this.skip();
        void e;
      }
    });
    after(() => {
      if (!mnt) return;
      execFileSync('umount', [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    });
    afterEach(() => {
      if (mnt) for (const f of readdirSync(mnt)) rmSync(join(mnt, f), { recursive: true, force: true });
    });

    it('a file larger than the free space: a clear error, nothing published', async () => {
      put('huge.pt', randomBytes(2 * 1024 * 1024));
      const target = join(mnt!, 'ckpt');
      await assert.rejects(
        syncOnce(conn.remote, opts({ localDir: target })),
        (e: unknown) => e instanceof SyncError && e.code === 'local-disk-full' && /local disk full while saving huge\.pt/.test(e.message),
      );
      assert.ok(!existsSync(join(target, 'huge.pt')));
    });

    it('running out of space mid-write (two pulls at once): an error, and every published file is whole', async () => {
      put('a.pt', randomBytes(700 * 1024));
      put('b.pt', randomBytes(700 * 1024));
      const target = join(mnt!, 'ckpt');
      await assert.rejects(syncOnce(conn.remote, opts({ localDir: target, concurrency: 2 })), (e: unknown) => e instanceof SyncError && e.code === 'local-disk-full');
      for (const name of readdirSync(target)) {
        if (name.endsWith('.part') || name.startsWith('.gpu-rent-sync')) continue;
        assert.ok(readFileSync(join(target, name)).equals(readFileSync(join(remoteDir, name))), `${name} is whole`);
      }
    });
  });
});

// Push against a real OpenSSH server on loopback (and the fault proxy for cuts): incremental,
// .part then rename, verified by the box's SHA-256, resumable, newer files on the box kept
// unless forced, hostile local names refused; the CLI stops on the secret scan, which checks
// exactly the files push sends (a --local given as a link included) and stops the push when it
// was cut off at its limit.
import { strict as assert } from 'node:assert';
import { createHash, randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, type SFTPWrapper } from 'ssh2';
import { CLI, runCli } from '../support/cli';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { startSshd, type TestSshd } from '../support/sshd';
import { pushOnce, type PushOptions } from '../../src/remote/sync/push';
import { pushFolder } from '../../src/app/push';
import type { SyncRemote } from '../../src/remote/sync';
import { plainStream } from './remote-helpers';

interface Conn {
  remote: SyncRemote;
  close(): void;
}

/** `streams`: the engine's tar streams too, each command passed through it (to break it), counted. */
function connect(sshd: TestSshd, port = sshd.port, streams?: { rewrite: (command: string) => string; count: number }): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let sftpP: Promise<SFTPWrapper> | undefined;
    const remote: SyncRemote = {
      sftp: () => (sftpP ??= new Promise((res, rej) => client.sftp((err, s) => (err ? rej(err) : res(s))))),
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
      ...(streams ? { stream: plainStream(client, streams.rewrite, () => streams.count++) } : {}),
    };
    client.on('ready', () => resolve({ remote, close: () => client.end() }));
    client.on('error', reject);
    client.connect({ host: sshd.host, port, username: sshd.user, privateKey: readFileSync(sshd.privateKeyPath), readyTimeout: 10000 });
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('push against a real sshd', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let conn: Conn;
  let proxy: FaultProxy;
  let work: string;
  let localDir: string;
  let remoteDir: string;
  const OLD = Math.floor(Date.now() / 1000) - 3600;

  before(async () => {
    sshd = await startSshd();
    conn = await connect(sshd);
    proxy = await startFaultProxy(sshd.port);
  });
  after(async () => {
    conn?.close();
    await proxy?.close();
    await sshd?.stop();
  });
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'push-'));
    localDir = join(work, 'data');
    mkdirSync(localDir);
    // Inside the box user's home, created by the push itself (it does mkdir -p).
    remoteDir = join(sshd.home, `push-${randomBytes(3).toString('hex')}`, 'nested');
    proxy.mode = 'pass';
  });
  afterEach(() => {
    rmSync(work, { recursive: true, force: true });
    rmSync(dirname(remoteDir), { recursive: true, force: true });
  });

  function put(rel: string, content: Buffer | string, mtime = OLD): void {
    const p = join(localDir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    utimesSync(p, mtime, mtime);
  }
  function putRemote(rel: string, content: Buffer | string, mtime: number): void {
    const p = join(remoteDir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    utimesSync(p, mtime, mtime);
    chownSync(p, statSync(sshd.home).uid, statSync(sshd.home).gid);
    for (let d = dirname(p); d.startsWith(sshd.home + '/'); d = dirname(d)) chownSync(d, statSync(sshd.home).uid, statSync(sshd.home).gid);
  }
  const opts = (o: Partial<PushOptions> = {}): PushOptions => ({ localDir, remoteDir, ...o });
  const remoteFiles = (dir = remoteDir, rel = ''): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? remoteFiles(join(dir, e.name), `${rel}${e.name}/`) : [`${rel}${e.name}`])).sort();

  describe('many new small files', () => {
    const many = (n: number) => {
      for (let i = 0; i < n; i++) put(`shards/${i % 3}/s-${i}.bin`, randomBytes(1 + ((i * 131) % 5000)));
      put('long/' + 'n'.repeat(120) + '/名字 with spaces.json', '{"x":1}');
    };

    it('go up in one tar stream, each checked on the box before it is renamed into place, with the local mtimes', async () => {
      many(300);
      const streams = { rewrite: (c: string) => c, count: 0 };
      const c = await connect(sshd, sshd.port, streams);
      try {
        const r = await pushOnce(c.remote, opts());
        assert.equal(r.files, 301);
        assert.deepEqual(r.skipped, []);
        assert.equal(streams.count, 1, 'one stream up, unpacked and hashed there');
        const names = remoteFiles();
        assert.equal(names.length, 301);
        assert.ok(!names.some((n) => n.endsWith('.part')));
        for (const n of names) assert.equal(sha(readFileSync(join(remoteDir, n))), sha(readFileSync(join(localDir, n))), n);
        assert.equal(Math.floor(statSync(join(remoteDir, 'shards/1/s-1.bin')).mtimeMs / 1000), OLD);
      } finally {
        c.close();
      }
    });

    it('a box that cannot unpack, or unpacks other bytes, loses nothing: SFTP sends them, or the check refuses them', async () => {
      many(40);
      // The second box unpacks other bytes than were sent (each .part changed before it is
      // hashed): the check against our hash refuses them and SFTP sends them again.
      const corrupt = (cmd: string) => cmd.replace('2>/dev/null || exit 4;', '2>/dev/null || exit 4; find . -name "*.part" | while read f; do echo corrupt >> "$f"; done;');
      for (const rewrite of [() => 'exit 127', corrupt]) {
        rmSync(dirname(remoteDir), { recursive: true, force: true });
        const streams = { rewrite, count: 0 };
        const c = await connect(sshd, sshd.port, streams);
        try {
          const r = await pushOnce(c.remote, opts());
          assert.equal(r.files, 41);
          assert.equal(streams.count, 1, 'no rename command for files that did not verify');
          for (const n of remoteFiles()) assert.equal(sha(readFileSync(join(remoteDir, n))), sha(readFileSync(join(localDir, n))), n);
        } finally {
          c.close();
        }
      }
    });

    it('a file that appears on the box during the push, newer, is not overwritten by the burst of renames', async () => {
      many(40);
      const c = await connect(sshd, sshd.port, { rewrite: (x) => x, count: 0 });
      try {
        const r = await pushOnce(c.remote, opts(), (p) => {
          if (p.kind === 'listed') putRemote('shards/1/s-1.bin', 'written on the box meanwhile', OLD + 600);
        });
        assert.deepEqual(r.skipped, [{ name: 'shards/1/s-1.bin', reason: 'remote-newer' }]);
        assert.equal(r.files, 40);
        assert.equal(readFileSync(join(remoteDir, 'shards/1/s-1.bin'), 'utf8'), 'written on the box meanwhile');
        assert.ok(!remoteFiles().some((n) => n.endsWith('.part')));
      } finally {
        c.close();
      }
    });

    /** `c`'s streams with the bytes each sent on stdin recorded, and its SFTP directory reads counted. */
    const watched = (c: Conn) => {
      const seen = { stdin: [] as number[], readdirs: 0 };
      const inner = c.remote.stream!;
      c.remote.stream = (command, o) => {
        const src = o.stdin;
        if (typeof src === 'object' && src !== null && !Buffer.isBuffer(src) && Symbol.asyncIterator in src) {
          // A compressed file's segments on one channel: its bytes counted as they go.
          const k = seen.stdin.push(0) - 1;
          const counted = (async function* () {
            for await (const b of src) {
              seen.stdin[k]! += b.length;
              yield b;
            }
          })();
          return inner(command, { ...o, stdin: counted });
        }
        return inner(command, { ...o, stdin: Promise.resolve(src as Buffer | Promise<Buffer | undefined>).then((b) => (seen.stdin.push(b?.length ?? 0), b)) });
      };
      const sftp = c.remote.sftp.bind(c.remote);
      c.remote.sftp = async () => {
        const s = await sftp();
        if (!(s as unknown as { counted?: boolean }).counted) {
          const readdir = s.readdir.bind(s);
          (s as unknown as { counted: boolean }).counted = true;
          s.readdir = ((...a: Parameters<typeof s.readdir>) => (seen.readdirs++, readdir(...a))) as typeof s.readdir;
        }
        return s;
      };
      return seen;
    };

    it('a push again into a folder already there: the first stream lists it, sends no file, and only what changed goes up', async () => {
      many(300);
      const hostile = ['line\nbreak.txt', "it's $(touch PWNED) %s.txt", 'sub dir/δ.bin'];
      const c = await connect(sshd, sshd.port, { rewrite: (x) => x, count: 0 });
      try {
        assert.equal((await pushOnce(c.remote, opts())).files, 301);
        for (const h of hostile) putRemote(h, 'made on the box', OLD);
        const seen = watched(c);
        put('shards/1/s-1.bin', 'changed here', OLD + 60);
        put('shards/2/s-2.bin', 'changed too', OLD + 60);
        for (let i = 0; i < 30; i++) put(`new/n-${i}.txt`, `new ${i}`);
        const r = await pushOnce(c.remote, opts());
        assert.equal(seen.stdin[0], 0, 'the first stream held its bytes back: the folder was there');
        assert.equal(seen.readdirs, 0, 'the listing was the stream\'s, not SFTP\'s');
        assert.deepEqual([r.files, r.unchanged], [32, 299]);
        assert.deepEqual(r.skipped, []);
        assert.ok(r.pushed.includes('shards/1/s-1.bin') && r.pushed.includes('new/n-29.txt'));
        const names = remoteFiles();
        assert.ok(!names.some((n) => n.endsWith('.part')));
        for (const h of hostile) assert.equal(readFileSync(join(remoteDir, h), 'utf8'), 'made on the box', h);
        assert.ok(!existsSync(join(remoteDir, 'PWNED')) && !existsSync(join(sshd.home, 'PWNED')));
        for (const n of names.filter((x) => !hostile.includes(x))) assert.equal(sha(readFileSync(join(remoteDir, n))), sha(readFileSync(join(localDir, n))), n);
      } finally {
        c.close();
      }
    });

    it('a push again where the box cannot list (no GNU find): SFTP lists, and the same files go up', async () => {
      many(100);
      // The box's find prints something else: its answer is not whole, SFTP lists.
      const noFind = (cmd: string) => cmd.replace('LC_ALL=C exec find', 'LC_ALL=C exec echo');
      const c = await connect(sshd, sshd.port, { rewrite: noFind, count: 0 });
      try {
        assert.equal((await pushOnce(c.remote, opts())).files, 101);
        const seen = watched(c);
        put('shards/0/s-0.bin', 'changed', OLD + 60);
        const r = await pushOnce(c.remote, opts());
        assert.equal(seen.stdin[0], 0);
        assert.ok(seen.readdirs > 0, 'SFTP listed the folder');
        assert.deepEqual([r.files, r.unchanged, r.pushed], [1, 100, ['shards/0/s-0.bin']]);
        assert.equal(readFileSync(join(remoteDir, 'shards/0/s-0.bin'), 'utf8'), 'changed');
      } finally {
        c.close();
      }
    });

    it('hundreds of files in flight on one caller signal set off no MaxListenersExceededWarning', async () => {
      many(400);
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.name);
      process.on('warning', onWarning);
      try {
        const ac = new AbortController();
        for (let pass = 0; pass < 12; pass++) await pushOnce(conn.remote, opts({ signal: ac.signal }));
        await new Promise((r) => setImmediate(r));
      } finally {
        process.off('warning', onWarning);
      }
      assert.deepEqual(warnings, []);
    });
  });

  it('uploads a tree verified, with the local mtimes; a second push sends nothing; a changed file alone goes again', async () => {
    put('model.pt', randomBytes(5 * 1024 * 1024 + 7));
    put('cfg/config.json', '{"lr":0.1}');
    for (let i = 0; i < 200; i++) put(`shards/s-${i}.bin`, randomBytes(100 + i));
    const r = await pushOnce(conn.remote, opts());
    assert.equal(r.files, 202);
    assert.deepEqual(r.skipped, []);
    assert.ok(!remoteFiles().some((f) => f.endsWith('.part')), 'no .part left');
    for (const rel of ['model.pt', 'cfg/config.json', 'shards/s-0.bin', 'shards/s-199.bin']) {
      assert.equal(sha(readFileSync(join(remoteDir, rel))), sha(readFileSync(join(localDir, rel))), rel);
      assert.equal(Math.floor(statSync(join(remoteDir, rel)).mtimeMs / 1000), OLD, `${rel} keeps the local mtime`);
    }
    const again = await pushOnce(conn.remote, opts());
    assert.deepEqual([again.files, again.bytes, again.unchanged], [0, 0, 202]);
    put('cfg/config.json', '{"lr":0.2}', OLD + 10);
    const third = await pushOnce(conn.remote, opts());
    assert.deepEqual(third.pushed, ['cfg/config.json']);
    assert.equal(readFileSync(join(remoteDir, 'cfg/config.json'), 'utf8'), '{"lr":0.2}');
  });

  it('never overwrites a file that is newer on the box, unless forced', async () => {
    put('notes.txt', 'local, older', OLD);
    putRemote('notes.txt', 'box, newer', OLD + 100);
    const r = await pushOnce(conn.remote, opts());
    assert.deepEqual(r.skipped, [{ name: 'notes.txt', reason: 'remote-newer' }]);
    assert.equal(readFileSync(join(remoteDir, 'notes.txt'), 'utf8'), 'box, newer');
    const forced = await pushOnce(conn.remote, opts({ force: true }));
    assert.deepEqual(forced.pushed, ['notes.txt']);
    assert.equal(readFileSync(join(remoteDir, 'notes.txt'), 'utf8'), 'local, older');
    // An older file on the box is simply replaced.
    put('b.txt', 'new', OLD + 50);
    putRemote('b.txt', 'old', OLD);
    assert.deepEqual((await pushOnce(conn.remote, opts())).pushed, ['b.txt']);
  });

  it('refuses hostile local names and links, lists each, and sends nothing for them', async () => {
    put('ok.txt', 'fine');
    put('evil\nname.txt', 'x');
    put('back\\slash.txt', 'x');
    put('sneaky.part', 'x');
    put('esc\x1b[2J.txt', 'x');
    symlinkSync('/etc/passwd', join(localDir, 'passwd-link'));
    symlinkSync('/etc', join(localDir, 'etc-link'));
    const r = await pushOnce(conn.remote, opts());
    assert.deepEqual(r.pushed, ['ok.txt']);
    assert.deepEqual(
      r.skipped.map((s) => [s.name, s.reason]),
      [
        ['back\\slash.txt', 'backslash'],
        ['esc\x1b[2J.txt', 'control-char'],
        ['etc-link', 'local-link'],
        ['evil\nname.txt', 'control-char'],
        ['passwd-link', 'local-link'],
        ['sneaky.part', 'reserved-name'],
      ],
    );
    assert.deepEqual(remoteFiles(), ['ok.txt']);
  });

  it('a cut mid-file leaves a .part on the box; the next push verifies it and sends only the rest', async () => {
    const size = 24 * 1024 * 1024;
    const data = randomBytes(size);
    put('weights.bin', data);
    const via = await connect(sshd, proxy.port);
    proxy.cutAfterBytes(Math.floor(size / 2));
    await assert.rejects(pushOnce(via.remote, opts()), /connection lost while pushing weights\.bin/);
    via.close();
    const part = join(remoteDir, 'weights.bin.part');
    assert.ok(existsSync(part), 'a .part on the box');
    assert.ok(!existsSync(join(remoteDir, 'weights.bin')), 'nothing published');
    // The box's sftp-server may still write what reached it before the cut: wait until the .part stops growing.
    let partSize = statSync(part).size;
    for (let stable = 0; stable < 5; ) {
      await new Promise((r) => setTimeout(r, 100));
      const now = statSync(part).size;
      stable = now === partSize ? stable + 1 : 0;
      partSize = now;
    }
    assert.ok(partSize > 0 && partSize < size, `partial: ${partSize}`);
    const partBytes = readFileSync(part);
    assert.equal(partBytes.length, partSize);
    assert.ok(partBytes.equals(data.subarray(0, partSize)), 'the .part is a true prefix');
    const r = await pushOnce(conn.remote, opts());
    assert.equal(r.bytes, size - partSize, 'only the rest was sent');
    assert.ok(readFileSync(join(remoteDir, 'weights.bin')).equals(data));
    assert.ok(!existsSync(part));
  });

  it('a .part on the box with wrong bytes is not trusted: the file is sent whole and checked', async () => {
    const data = randomBytes(6 * 1024 * 1024);
    put('w.bin', data);
    const bad = Buffer.from(data.subarray(0, 3 * 1024 * 1024));
    bad[1000] = bad[1000]! ^ 0xff;
    putRemote('w.bin.part', bad, OLD);
    const r = await pushOnce(conn.remote, opts());
    assert.equal(r.bytes, data.length);
    assert.ok(readFileSync(join(remoteDir, 'w.bin')).equals(data));
  });

  describe('the secret scan covers what push sends', () => {
    it('a linked root is pushed as the folder it points to, scanned as that folder; flagged files can be left out', async () => {
      const real = join(work, 'real');
      mkdirSync(join(real, 'src'), { recursive: true });
      writeFileSync(join(real, 'train.py'), 'print(1)\n');
      writeFileSync(join(real, '.env'), 'HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEF12\n');
      symlinkSync(join(work, 'real'), join(work, 'link'));
      const req = { localDir: join(work, 'link'), remoteDir };
      const stopped = await pushFolder(conn.remote, req);
      assert.equal(stopped.kind, 'secrets-found');
      assert.ok(!existsSync(remoteDir), 'nothing on the box');
      const without = await pushFolder(conn.remote, { ...req, exclude: ['.env'] });
      assert.equal(without.kind, 'pushed');
      assert.deepEqual(without.kind === 'pushed' && without.report.pushed, ['train.py']);
      assert.deepEqual(without.kind === 'pushed' && without.report.skipped, [{ name: '.env', reason: 'excluded' }]);
      assert.deepEqual(remoteFiles(), ['train.py']);
    });
  });

  describe('the CLI', () => {
    let home: string;
    beforeEach(() => {
      home = mkdtempSync(join(tmpdir(), 'push-cli-home-'));
    });
    afterEach(() => rmSync(home, { recursive: true, force: true }));
    const env = () => ({ HOME: home, GPU_RENT_HOME: join(home, '.gpu-rent'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' });
    const args = () => ['push', `ssh://${sshd.user}@127.0.0.1:${sshd.port}`, '--identity', sshd.privateKeyPath, '--accept-new', '--local', localDir, '--remote', remoteDir];

    it('stops before sending anything when the secret scan finds something; --allow-secrets goes ahead', function () {
      if (!existsSync(CLI)) this.skip();
      put('train.py', 'print(1)\n');
      put('.env', 'HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEF12\n');
      const stopped = runCli(args(), { env: env() });
      assert.equal(stopped.code, 3, stopped.stderr);
      assert.match(stopped.stderr, /push stopped: .*likely secret/);
      assert.match(stopped.stderr, /\.env/);
      assert.ok(!existsSync(remoteDir), 'nothing on the box');
      const stoppedJson = runCli([...args(), '--json'], { env: env() });
      assert.equal(stoppedJson.code, 3);
      const e = (JSON.parse(stoppedJson.stdout) as { error: { code: string; message: string; findings: { path: string }[] } }).error;
      assert.equal(e.code, 'secrets-found');
      assert.match(e.message, /likely secret.*nothing was pushed/);
      assert.deepEqual([...new Set(e.findings.map((f) => f.path))], ['.env']);
      const allowed = runCli([...args(), '--allow-secrets', '--json'], { env: env() });
      assert.equal(allowed.code, 0, allowed.stderr);
      const j = JSON.parse(allowed.stdout) as { files: number; pushed: string[] };
      assert.deepEqual(j.pushed, ['.env', 'train.py']);
      assert.ok(existsSync(join(remoteDir, 'train.py')));
    });

    it('a --local that is a link to a folder with a .env is refused; nothing is sent', function () {
      if (!existsSync(CLI)) this.skip();
      const real = join(work, 'real');
      mkdirSync(real);
      writeFileSync(join(real, 'train.py'), 'print(1)\n');
      writeFileSync(join(real, '.env'), 'HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEF12\n');
      rmSync(localDir, { recursive: true });
      symlinkSync(real, localDir);
      const r = runCli(args(), { env: env() });
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, /push stopped: .*likely secret/);
      assert.match(r.stderr, /\.env +dotenv/);
      assert.ok(!existsSync(remoteDir), 'nothing on the box');
    });

    it('a secret scan cut off at its limit stops the push, naming the limit and the flag; --allow-unscanned goes on', function () {
      if (!existsSync(CLI)) this.skip();
      put('a.txt', 'x'.repeat(600 * 1024));
      put('b.txt', 'x'.repeat(600 * 1024));
      // Past the limit: its content is never read, so only the stop protects it.
      put('z-config.py', 'token = "hf_abcdefghijklmnopqrstuvwxyzABCDEF12"\n');
      const stopped = runCli([...args(), '--scan-limit-mb', '1'], { env: env() });
      assert.equal(stopped.code, 3, stopped.stderr);
      assert.match(stopped.stderr, /push stopped: the secret scan stopped at its 1 MiB limit of file content after 1 file: 2 files were not checked \(nothing was sent\)/);
      assert.match(stopped.stderr, /--allow-unscanned/);
      assert.match(stopped.stderr, /--scan-limit-mb/);
      assert.ok(!existsSync(remoteDir), 'nothing on the box');
      const json = runCli([...args(), '--scan-limit-mb', '1', '--json'], { env: env() });
      assert.equal(json.code, 3);
      // The one --json error contract: error.code and error.message, with the scan's figures beside them.
      assert.deepEqual(JSON.parse(json.stdout), {
        error: { code: 'scan-incomplete', message: 'the secret scan stopped at its 1 MiB limit of file content after 1 file: 2 files were not checked: nothing was pushed', reason: 'maxBytes', limit: 1024 * 1024, filesSeen: 1, unscanned: 2 },
      });
      // Read in full (the default limit), the token is found.
      const full = runCli(args(), { env: env() });
      assert.equal(full.code, 3);
      assert.match(full.stderr, /z-config\.py:1 +huggingFaceToken/);
      const allowed = runCli([...args(), '--scan-limit-mb', '1', '--allow-unscanned', '--json'], { env: env() });
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.deepEqual((JSON.parse(allowed.stdout) as { pushed: string[] }).pushed, ['a.txt', 'b.txt', 'z-config.py']);
      assert.deepEqual(remoteFiles(), ['a.txt', 'b.txt', 'z-config.py']);
    });

    it('usage mistakes exit 2', () => {
      const r = runCli(['push', 'ssh://u@127.0.0.1:1', '--local', '/tmp/x'], { env: env() });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /missing --remote DIR/);
    });
  });
});

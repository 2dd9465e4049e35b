// Compression in flight against a real OpenSSH server on loopback, through the production
// connection (RemoteConnection + app/sync's syncRemote): a compressible text file goes up
// through the box's zstd (this machine has /usr/bin/zstd: the box's, and on this Node 20 the
// local binary too) and comes down through its gzip, an incompressible one (random bytes) and
// weights by name as they are, every copy checked byte for byte; a box without zstd gets gzip,
// this side without zstd (no Node zstd, none on PATH) gzip, a box with zstd only zstd, and
// without anything this side can use plain; a push cut mid-transfer (through a 8 Mbit/s
// shaper, so the cut falls among the compressed segments) leaves a true prefix that the next
// push resumes; a box whose PATH has no gzip gets everything plain and the log says so; a box whose gzip is hostile (a script earlier in PATH, as a
// compromised image would ship it) and answers a compressed pull with a decompression bomb or
// with garbage is refused with a clear log line, the file comes over SFTP verified, and
// nothing is left outside the chosen folder, no .part inside it.
import { strict as assert } from 'node:assert';
import { createHash, randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, type TestSshd } from '../support/sshd';
import { startFaultProxy } from '../support/fault-proxy';
import { startShapingProxy } from '../support/shaping-proxy';
import { nodeZstd } from '../../src/remote/sync/segment-codec';
import { connectionTo } from './remote-helpers';
import { syncRemote } from '../../src/app/sync';
import { pushOnce } from '../../src/remote/sync/push';
import { syncOnce } from '../../src/remote/sync';
import type { RemoteConnection } from '../../src/remote/connection';

const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const OLD = Math.floor(Date.now() / 1000) - 3600;

/** JSONL-like text that compresses about as real instruction data does (ratio ~0.3). */
function textOf(bytes: number): Buffer {
  const words = ['训练', '数据', '模型', '显卡', '实例', '计费', 'checkpoint', 'loss', '学习率', '批量', '梯度', '推理', '释放', '关机', '同步'];
  const lines: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const pick = () => words[(i * 7 + n * 13 + (n >> 3)) % words.length]!;
    const line = JSON.stringify({ id: i, instruction: `${pick()}${pick()}${i % 97}`, output: Array.from({ length: 12 }, pick).join('，') + `。${(i * 2654435761) % 100000}` }) + '\n';
    lines.push(line);
    n += Buffer.byteLength(line);
  }
  return Buffer.from(lines.join('')).subarray(0, bytes);
}

describe('compression in flight (real sshd)', function () {
  this.timeout(120_000);
  let sshd: TestSshd;
  let work: string;
  let uid = 0;
  let gid = 0;
  const conns: RemoteConnection[] = [];
  const bashrc = () => join(sshd.home, '.bashrc');
  let bashrcText = '';

  before(async () => {
    sshd = await startSshd();
    uid = statSync(sshd.home).uid;
    gid = statSync(sshd.home).gid;
    bashrcText = readFileSync(bashrc(), 'utf8');
  });
  after(async () => {
    await sshd?.stop();
  });
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'sync-compress-'));
  });
  afterEach(() => {
    for (const c of conns.splice(0)) c.close();
    writeFileSync(bashrc(), bashrcText);
    rmSync(work, { recursive: true, force: true });
  });

  const remoteOf = () => {
    const c = connectionTo(sshd, join(work, 'known_hosts'));
    conns.push(c);
    return syncRemote(c);
  };
  const boxDir = (name: string) => {
    const d = join(sshd.home, `${name}-${randomBytes(3).toString('hex')}`);
    return d;
  };
  const chownTree = (d: string) => {
    chownSync(d, uid, gid);
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) chownTree(join(d, e.name));
      else chownSync(join(d, e.name), uid, gid);
    }
  };
  const files = (d: string, rel = ''): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(d, e.name), `${rel}${e.name}/`) : [`${rel}${e.name}`])).sort();
  const sameTree = (a: string, b: string) => {
    assert.deepEqual(files(b).filter((n) => !n.startsWith('.gpu-rent')), files(a));
    for (const n of files(a)) assert.equal(sha(readFileSync(join(b, n))), sha(readFileSync(join(a, n))), n);
  };
  const put = (dir: string, rel: string, data: Buffer) => {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), data);
    utimesSync(join(dir, rel), OLD, OLD);
  };

  it('a text file goes up and comes down compressed, random bytes and weights as they are; every copy verified', async () => {
    const local = join(work, 'up');
    put(local, 'data/train.jsonl', textOf(6 * MiB + 12345));
    put(local, 'data/noise.dat', randomBytes(3 * MiB));
    // Text named like weights still goes as it is: the name decides before any sample.
    put(local, 'model.safetensors', textOf(2 * MiB));
    const remote = boxDir('up');
    const logs: string[] = [];
    const r = await pushOnce(remoteOf(), { localDir: local, remoteDir: remote, log: (l) => logs.push(l) });
    assert.equal(r.files, 3);
    assert.deepEqual(r.skipped, []);
    assert.equal(r.compression?.tool, 'zstd');
    assert.equal(r.compression?.files, 1, 'only the text file went compressed');
    // On loopback the link outruns compression: after a segment or two the rest may go plain.
    assert.ok(r.compression!.rawBytes >= MiB && r.compression!.rawBytes <= 6 * MiB + 12345, `compressed ${r.compression!.rawBytes} bytes of the file`);
    assert.ok(r.compression!.wireBytes < r.compression!.rawBytes / 2, `compressed to ${r.compression!.wireBytes} bytes`);
    sameTree(local, remote);
    assert.equal(Math.floor(statSync(join(remote, 'data/train.jsonl')).mtimeMs / 1000), OLD);
    assert.deepEqual(logs, []);
    // And back down.
    const down = join(work, 'down');
    const s = await syncOnce(remoteOf(), { remoteDir: remote, localDir: down, settleSeconds: 0, source: 'test' });
    assert.equal(s.files, 3);
    assert.deepEqual(s.skipped, []);
    assert.equal(s.compressed?.files, 1);
    assert.ok(s.compressed!.wireBytes < s.compressed!.rawBytes / 2);
    sameTree(local, down);
    rmSync(remote, { recursive: true, force: true });
  });

  it('a box without gzip in PATH: everything goes plain, and the log says so', async () => {
    // A PATH with every tool of the image except gzip and its kin.
    const nogz = join(sshd.home, 'nogz');
    mkdirSync(nogz, { recursive: true });
    for (const dir of ['/usr/local/bin', '/usr/bin', '/usr/sbin'])
      for (const name of readdirSync(dir)) {
        if (/^(?:gzip|gunzip|zcat|zstd|unzstd|zstdcat|pigz|unpigz)$/.test(name)) continue;
        try {
          symlinkSync(join(dir, name), join(nogz, name));
        } catch {
          /* already linked from an earlier folder */
        }
      }
    writeFileSync(bashrc(), `export PATH="$HOME/nogz"\n${bashrcText}`);
    try {
      const local = join(work, 'up');
      put(local, 'train.jsonl', textOf(3 * MiB));
      for (let i = 0; i < 40; i++) put(local, `small/s-${i}.txt`, textOf(500 + i));
      const remote = boxDir('nogz');
      const logs: string[] = [];
      const r = await pushOnce(remoteOf(), { localDir: local, remoteDir: remote, log: (l) => logs.push(l) });
      assert.equal(r.files, 41);
      assert.equal(r.compression?.tool, 'none');
      assert.equal(r.compression?.files, 0);
      assert.ok(logs.some((l) => /no working gzip/.test(l)), logs.join('\n'));
      sameTree(local, remote);
      const down = join(work, 'down');
      const dlogs: string[] = [];
      const s = await syncOnce(remoteOf(), { remoteDir: remote, localDir: down, settleSeconds: 0, source: 'test', log: (l) => dlogs.push(l) });
      assert.equal(s.files, 41);
      assert.equal(s.compressed, undefined);
      assert.ok(dlogs.some((l) => /no working gzip/.test(l)), dlogs.join('\n'));
      sameTree(local, down);
      rmSync(remote, { recursive: true, force: true });
    } finally {
      rmSync(nogz, { recursive: true, force: true });
    }
  });

  /** A folder of links to every tool of the image but those `leave` matches, made the box's whole PATH. */
  const boxPathWithout = (name: string, leave: RegExp) => {
    const dir = join(sshd.home, name);
    mkdirSync(dir, { recursive: true });
    for (const from of ['/usr/local/bin', '/usr/bin', '/usr/sbin'])
      for (const tool of readdirSync(from)) {
        if (leave.test(tool)) continue;
        try {
          symlinkSync(join(from, tool), join(dir, tool));
        } catch {
          /* already linked from an earlier folder */
        }
      }
    writeFileSync(bashrc(), `export PATH="$HOME/${name}"\n${bashrcText}`);
    return dir;
  };
  const ZSTD_KIN = /^(?:zstd|unzstd|zstdcat|zstdmt|pzstd|zstdgrep|zstdless)$/;
  const GZIP_KIN = /^(?:gzip|gunzip|zcat|pigz|unpigz)$/;
  /** Runs `fn` with this process's PATH holding no zstd (the laptop side looks there for one). */
  const withoutLocalZstd = async <T>(fn: () => Promise<T>): Promise<T> => {
    const path = process.env.PATH;
    process.env.PATH = join(work, 'no-tools-here');
    try {
      return await fn();
    } finally {
      process.env.PATH = path;
    }
  };
  const pushText = async (name: string) => {
    const local = join(work, name);
    put(local, 'train.jsonl', textOf(5 * MiB + 999));
    put(local, 'notes.md', textOf(700 * 1024));
    const remote = boxDir(name);
    const logs: string[] = [];
    const r = await pushOnce(remoteOf(), { localDir: local, remoteDir: remote, log: (l) => logs.push(l) });
    // Every segment counted: none refused (a segment that said the .part's size after the next
    // one had begun appending was refused, and the rest went plain).
    assert.ok(!logs.some((l) => /compressed upload stopped/.test(l)), logs.join('\n'));
    assert.equal(r.files, 2);
    assert.deepEqual(r.skipped, []);
    sameTree(local, remote);
    assert.deepEqual(files(remote).filter((n) => /\.part|\.seg/.test(n)), []);
    rmSync(remote, { recursive: true, force: true });
    return { r, logs };
  };

  it('a box without zstd: gzip; this side without zstd: gzip; each copy equal to the local file', async () => {
    const dir = boxPathWithout('nozstd', ZSTD_KIN);
    try {
      const { r } = await pushText('box-gzip-only');
      assert.equal(r.compression?.tool, 'gzip');
      assert.equal(r.compression?.files, 2);
      assert.ok(r.compression!.wireBytes < r.compression!.rawBytes / 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    writeFileSync(bashrc(), bashrcText);
    // Node 22.15+ has zstd of its own; this Node (20) has not, so with no binary on PATH it is gzip.
    const { r } = await withoutLocalZstd(() => pushText('local-no-zstd'));
    assert.equal(r.compression?.tool, nodeZstd() ? 'zstd' : 'gzip');
    assert.equal(r.compression?.files, 2);
  });

  it('a box with zstd but no gzip: zstd where this side has one, plain where it has none', async () => {
    const dir = boxPathWithout('onlyzstd', GZIP_KIN);
    try {
      const both = await pushText('zstd-both');
      assert.equal(both.r.compression?.tool, 'zstd');
      assert.equal(both.r.compression?.files, 2);
      assert.ok(both.r.compression!.wireBytes < both.r.compression!.rawBytes / 4);
      assert.ok(both.logs.some((l) => /no working gzip/.test(l)), both.logs.join('\n'));
      if (!nodeZstd()) {
        const plain = await withoutLocalZstd(() => pushText('zstd-box-only'));
        assert.equal(plain.r.compression?.tool, 'none');
        assert.equal(plain.r.compression?.files, 0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a segment the box fails while the next one is already on its way: the rest goes over SFTP, the copy is equal, no .seg is left on the box', async () => {
    // The box's zstd fails the second segment (the one at 512 KiB), after taking its bytes and a
    // second's pause: by then the third is written into the channel behind it, and the push
    // stops the box's loop. The script sees which segment it serves by where its stdout goes.
    const evil = join(sshd.home, 'slow-fail');
    mkdirSync(evil, { recursive: true });
    writeFileSync(join(evil, 'zstd'), '#!/bin/sh\ncase "$(readlink /proc/$$/fd/1)" in *.seg524288) cat > /dev/null; sleep 1; exit 1;; esac\nexec /usr/bin/zstd "$@"\n', { mode: 0o755 });
    writeFileSync(bashrc(), `export PATH="$HOME/slow-fail:$PATH"\n${bashrcText}`);
    try {
      const local = join(work, 'seg-fail');
      const data = textOf(6 * MiB + 77);
      put(local, 'train.jsonl', data);
      const remote = boxDir('seg-fail');
      const logs: string[] = [];
      const r = await pushOnce(remoteOf(), { localDir: local, remoteDir: remote, log: (l) => logs.push(l) });
      assert.equal(r.files, 1);
      assert.deepEqual(r.skipped, []);
      assert.ok(logs.some((l) => /compressed upload stopped at 524288 bytes/.test(l)), logs.join('\n'));
      assert.equal(sha(readFileSync(join(remote, 'train.jsonl'))), sha(data));
      assert.deepEqual(readdirSync(remote), ['train.jsonl'], 'no .seg or .part left on the box');
      rmSync(remote, { recursive: true, force: true });
    } finally {
      rmSync(evil, { recursive: true, force: true });
    }
  });

  it('a compressed push cut mid-transfer leaves a true prefix; the next push resumes it, compressed, and the copy is equal', async () => {
    const shaper = await startShapingProxy(sshd.port, { rttMs: 10, bitsPerSecond: 8e6 });
    const cut = await startFaultProxy(shaper.port);
    try {
      const local = join(work, 'cut');
      const data = textOf(12 * MiB + 333);
      put(local, 'train.jsonl', data);
      const remote = boxDir('cut');
      const via = connectionTo(sshd, join(work, 'known_hosts'), { port: cut.port });
      conns.push(via);
      // Past the login, the probe and the first segments; inside the compressed ones (~0.8 MB in all).
      cut.cutAfterBytes(160_000);
      const first = await pushOnce(syncRemote(via), { localDir: local, remoteDir: remote }).then(
        (r) => r,
        (e: unknown) => e as Error,
      );
      assert.ok(first instanceof Error, 'the cut push failed');
      const part = join(remote, 'train.jsonl.part');
      // What reached the box before the cut may still land: wait until the .part stops growing
      // and no segment is left waiting beside it.
      let partSize = -1;
      for (let stable = 0, tries = 0; stable < 5 && tries < 200; tries++) {
        await new Promise((r) => setTimeout(r, 100));
        const now = statSync(part).size;
        const waiting = readdirSync(remote).some((n) => n.includes('.seg'));
        stable = now === partSize && !waiting ? stable + 1 : 0;
        partSize = now;
      }
      assert.deepEqual(readdirSync(remote).filter((n) => n.includes('.seg')), [], 'no segment left waiting');
      assert.ok(partSize > 0 && partSize < data.length, `partial: ${partSize}`);
      assert.ok(readFileSync(part).equals(data.subarray(0, partSize)), 'the .part is a true prefix');
      assert.ok(!statSync(remote).isFile() && !readdirSync(remote).includes('train.jsonl'), 'nothing published');
      const r = await pushOnce(remoteOf(), { localDir: local, remoteDir: remote });
      assert.equal(r.bytes, data.length - partSize, 'only the rest was sent');
      assert.equal(r.compression?.tool, 'zstd');
      assert.equal(r.compression?.files, 1);
      assert.ok(r.compression!.rawBytes > 0 && r.compression!.rawBytes <= data.length - partSize);
      assert.equal(sha(readFileSync(join(remote, 'train.jsonl'))), sha(data));
      assert.deepEqual(readdirSync(remote), ['train.jsonl']);
      rmSync(remote, { recursive: true, force: true });
    } finally {
      await cut.close();
      await shaper.close();
    }
  });

  for (const [attack, script, said] of [
    ['a decompression bomb (endless zeros, gzipped)', 'exec /usr/bin/gzip -1 -c < /dev/zero', /decompression bomb/],
    ['a corrupt compressed stream (random bytes)', 'exec head -c 3000000 /dev/urandom', /not valid gzip/],
    ['endless empty gzip members', "while :; do printf '\\037\\213\\010\\000\\000\\000\\000\\000\\000\\003\\003\\000\\000\\000\\000\\000\\000\\000\\000\\000' || exit 0; done", /more compressed bytes/],
  ] as const) {
    it(`a hostile box's gzip answers a compressed pull with ${attack}: refused, said, pulled verified over SFTP, nothing left over`, async () => {
      const evil = join(sshd.home, 'evil');
      mkdirSync(evil, { recursive: true });
      // Real gzip for everything (the probe, push's unpacking) but the compressed pull (-4).
      writeFileSync(join(evil, 'gzip'), `#!/bin/sh\nif [ "$1" = "-4" ]; then touch "$HOME/evil/ran"; ${script}; fi\nexec /usr/bin/gzip "$@"\n`, { mode: 0o755 });
      chownTree(evil);
      writeFileSync(bashrc(), `export PATH="$HOME/evil:$PATH"\n${bashrcText}`);
      try {
        const remote = boxDir('hostile');
        const content = textOf(4 * MiB + 77);
        put(remote, 'train.jsonl', content);
        chownTree(remote);
        const parent = join(work, 'parent');
        mkdirSync(parent);
        const down = join(parent, 'chosen');
        const logs: string[] = [];
        const rss0 = process.memoryUsage().rss;
        const s = await syncOnce(remoteOf(), { remoteDir: remote, localDir: down, settleSeconds: 0, source: 'test', log: (l) => logs.push(l) });
        const rssGrowth = process.memoryUsage().rss - rss0;
        assert.ok(statSync(join(evil, 'ran')).isFile(), 'the hostile gzip really ran');
        assert.equal(s.files, 1);
        assert.deepEqual(s.skipped, []);
        assert.equal(s.compressed, undefined);
        assert.ok(logs.some((l) => l.startsWith('sync: train.jsonl: ') && said.test(l) && /pulling it uncompressed/.test(l)), logs.join('\n'));
        assert.equal(sha(readFileSync(join(down, 'train.jsonl'))), sha(content));
        // Nothing beside the chosen folder; inside it the file and sync's state only.
        assert.deepEqual(readdirSync(parent), ['chosen']);
        assert.deepEqual(files(down).filter((n) => !n.startsWith('.gpu-rent')), ['train.jsonl']);
        assert.ok(rssGrowth < 128 * MiB, `RSS grew by ${(rssGrowth / MiB).toFixed(0)} MiB`);
        rmSync(remote, { recursive: true, force: true });
      } finally {
        rmSync(evil, { recursive: true, force: true });
      }
    });
  }
});

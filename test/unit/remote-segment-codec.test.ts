// Which compressor a push's segments use (zstd where both ends have it, this side's zstd from
// Node or a binary on PATH, else gzip, else none), the box probe's answer read strictly, the
// local zstd binary bounded, and the box's segment commands run through a real sh and zstd:
// two segments at once (the second arriving first) land in order, the last one says the
// .part's SHA-256, and a size or hash line that is not exactly right is refused.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { PROBE, readProbe } from '../../src/remote/sync/compress';
import { binaryZstd, chooseCodec, findOnPath, nodeZstd, zstdBound } from '../../src/remote/sync/segment-codec';
import { readSegmentAnswer, segmentHeader, segmentsCommand } from '../../src/remote/sync/push-gzip';

const text = Buffer.from(Array.from({ length: 20000 }, (_, i) => JSON.stringify({ id: i, instruction: '把这段话翻译成英文', output: `第${i}步的损失是 ${(i % 97) / 10}` })).join('\n'));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const hasZstd = spawnSync('sh', ['-c', 'command -v zstd']).status === 0;

describe('segment codec: which compressor a push uses', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seg-codec-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('zstd where both ends have it (Node first, then a binary), else gzip where the box has it, else none', () => {
    const none = { nodeZstd: false, zstdBinary: undefined };
    const bin = { nodeZstd: false, zstdBinary: '/usr/bin/zstd' };
    const node = { nodeZstd: true, zstdBinary: '/usr/bin/zstd' };
    assert.deepEqual(chooseCodec({ gzip: true, zstd: true }, node), { tool: 'zstd', via: 'node' });
    assert.deepEqual(chooseCodec({ gzip: true, zstd: true }, bin), { tool: 'zstd', via: 'binary' });
    assert.deepEqual(chooseCodec({ gzip: true, zstd: true }, none), { tool: 'gzip', via: 'zlib' });
    assert.deepEqual(chooseCodec({ gzip: true, zstd: false }, node), { tool: 'gzip', via: 'zlib' });
    assert.deepEqual(chooseCodec({ gzip: false, zstd: true }, bin), { tool: 'zstd', via: 'binary' });
    assert.equal(chooseCodec({ gzip: false, zstd: true }, none), undefined);
    assert.equal(chooseCodec({ gzip: false, zstd: false }, node), undefined);
  });

  it("Node's zstd is feature-detected: a zlib without zstdCompress gives none; one with it is called with the level", async () => {
    assert.equal(nodeZstd({ gzip: () => undefined, constants: {} }), undefined);
    assert.equal(nodeZstd({ zstdCompress: () => undefined, constants: {} }), undefined, 'no level parameter: none');
    const calls: Array<Record<number, number>> = [];
    const fake = { zstdCompress: (b: Buffer, o: { params: Record<number, number> }, cb: (e: Error | null, out: Buffer) => void) => (calls.push(o.params), cb(null, b.subarray(0, 3))), constants: { ZSTD_c_compressionLevel: 100 } };
    const fn = nodeZstd(fake);
    assert.ok(fn);
    assert.deepEqual(await fn(Buffer.from('abcdef'), 3), Buffer.from('abc'));
    assert.deepEqual(calls, [{ 100: 3 }]);
    // This project's Node: whatever it has, the detection agrees with it.
    assert.equal(nodeZstd() !== undefined, typeof (zlib as unknown as Record<string, unknown>).zstdCompress === 'function');
  });

  it('a zstd on PATH: the first executable file, absolute folders only', () => {
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    for (const d of [a, b]) spawnSync('mkdir', ['-p', d]);
    writeFileSync(join(a, 'zstd'), '#!/bin/sh\n');
    chmodSync(join(a, 'zstd'), 0o644);
    writeFileSync(join(b, 'zstd'), '#!/bin/sh\n');
    chmodSync(join(b, 'zstd'), 0o755);
    assert.equal(findOnPath('zstd', `${a}:${b}`), join(b, 'zstd'), 'not executable: skipped');
    assert.equal(findOnPath('zstd', `relative:${a}`), undefined);
    assert.equal(findOnPath('zstd', ''), undefined);
  });

  (hasZstd ? it : it.skip)('the local zstd binary: a real round trip; one that writes past its bound, fails or hangs is refused', async () => {
    const z = await binaryZstd('zstd', text, 3);
    assert.ok(z.length < text.length / 4);
    assert.ok(spawnSync('zstd', ['-q', '-dc'], { input: z, maxBuffer: 64 << 20 }).stdout.equals(text));
    const big = join(dir, 'big');
    writeFileSync(big, '#!/bin/sh\ncat > /dev/null; head -c 3000000 /dev/zero\n', { mode: 0o755 });
    await assert.rejects(binaryZstd(big, randomBytes(1000), 3), /more than its bound/);
    const bad = join(dir, 'bad');
    writeFileSync(bad, '#!/bin/sh\ncat > /dev/null; exit 3\n', { mode: 0o755 });
    await assert.rejects(binaryZstd(bad, text, 3), /exited with 3/);
    const slow = join(dir, 'slow');
    writeFileSync(slow, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    await assert.rejects(binaryZstd(slow, Buffer.alloc(10), 3, 300), /too long/);
    assert.ok(zstdBound(1000) >= 1000 && zstdBound(8 << 20) < (8 << 20) * 1.01);
  });

  it("the box's probe answer counts a tool only for its exact line", () => {
    assert.deepEqual(readProbe(0, 'gzip gpu-rent probe\nzstd gpu-rent probe\nhead rent probe\n'), { gzip: true, zstd: true, exactHead: true });
    assert.deepEqual(readProbe(0, 'gzip gpu-rent probe\nzstd \nhead rent probe\n'), { gzip: true, zstd: false, exactHead: true });
    assert.deepEqual(readProbe(0, 'gzip \nzstd gpu-rent probe\nhead \n'), { gzip: false, zstd: true, exactHead: false });
    assert.deepEqual(readProbe(0, 'gzip gpu-rent probe!\nzstd gpu-rent probe x\nhead gpu-rent probe\n'), { gzip: false, zstd: false, exactHead: false });
    assert.deepEqual(readProbe(1, 'gzip gpu-rent probe\nzstd gpu-rent probe\n'), { gzip: false, zstd: false, exactHead: false });
    assert.deepEqual(readProbe(null, ''), { gzip: false, zstd: false, exactHead: false });
    // This machine's own tools, through the probe itself: GNU head reads no further than asked.
    const here = spawnSync('/bin/sh', ['-c', PROBE], { encoding: 'utf8' });
    assert.equal(readProbe(here.status, here.stdout).exactHead, true, here.stdout);
  });

  it("a segment's answer: exactly the .part's size; the last one's hash line read, a bad one left to a hash of its own", () => {
    const h = 'ab'.repeat(32);
    assert.deepEqual(readSegmentAnswer('1048576\n', 1048576, false, 'p'), {});
    assert.deepEqual(readSegmentAnswer(' 1048576 \n', 1048576, false, 'p'), {}, "BSD wc's spaces");
    assert.equal(readSegmentAnswer('1048575\n', 1048576, false, 'p'), undefined);
    assert.equal(readSegmentAnswer('1048576x\n', 1048576, false, 'p'), undefined);
    assert.equal(readSegmentAnswer('', 0, false, 'p'), undefined);
    assert.deepEqual(readSegmentAnswer(`9\nh ${h}\n`, 9, true, 'p'), { box: { full: h, prefix: undefined } });
    assert.deepEqual(readSegmentAnswer('9\nnone\n', 9, true, 'p'), { box: { full: null, prefix: undefined } });
    assert.deepEqual(readSegmentAnswer('9\nh x\n', 9, true, 'p'), {});
    assert.deepEqual(readSegmentAnswer('9\n', 9, true, 'p'), {});
  });

  /** Runs the box's loop for `part` through a real sh, the segments (header and bytes) on its stdin. */
  const runSegments = (part: string, segs: ReadonlyArray<{ off: number; z: Buffer; last?: boolean; bytes?: number }>, inflate: string, env: NodeJS.ProcessEnv = process.env) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const c = spawn('sh', ['-c', segmentsCommand(part, inflate)], { stdio: ['pipe', 'pipe', 'ignore'], env });
      let out = '';
      c.stdout.on('data', (d: Buffer) => (out += d.toString()));
      c.on('close', (code) => resolve({ code, out }));
      c.stdin.on('error', () => undefined);
      for (const g of segs) c.stdin.write(Buffer.concat([segmentHeader(g.off, g.bytes ?? g.z.length, g.last === true), g.z]));
      c.stdin.end();
    });

  for (const [tool, inflate, squeeze] of [
    ['zstd', 'zstd -q -dc', (b: Buffer) => spawnSync('zstd', ['-q', '-3', '-c'], { input: b }).stdout],
    ['gzip', 'gzip -dc', (b: Buffer) => spawnSync('gzip', ['-6', '-c'], { input: b }).stdout],
  ] as const) {
    (tool === 'zstd' && !hasZstd ? it.skip : it)(`${tool}: three segments in one stream land in order, each answered with its own end; the last says the .part's SHA-256`, async () => {
      const part = join(dir, "it's a file.part");
      // A stale .part from another push: the segment at 0 replaces it.
      writeFileSync(part, 'stale bytes');
      const a = text.subarray(0, 300_000);
      const b = text.subarray(300_000, 700_000);
      const c = text.subarray(700_000);
      const r = await runSegments(part, [{ off: 0, z: squeeze(a) }, { off: a.length, z: squeeze(b) }, { off: a.length + b.length, z: squeeze(c), last: true }], inflate);
      assert.equal(r.code, 0);
      const lines = r.out.split('\n');
      assert.deepEqual(lines.slice(0, 2), [String(a.length), String(a.length + b.length)]);
      assert.deepEqual(readSegmentAnswer(lines.slice(2).join('\n'), text.length, true, part), { box: { full: sha(text), prefix: undefined } });
      assert.ok(readFileSync(part).equals(text));
      assert.deepEqual(spawnSync('ls', ['-A', dir], { encoding: 'utf8' }).stdout.trim().split('\n'), ["it's a file.part"]);
    });

    (tool === 'zstd' && !hasZstd ? it.skip : it)(`${tool}: a resumed .part grows only at its end; a place it has passed, garbage, or a lying header stops the loop with nothing appended`, async () => {
      const part = join(dir, 'resume.part');
      const a = text.subarray(0, 200_000);
      const b = text.subarray(200_000, 500_000);
      writeFileSync(part, a);
      // stdin's end before a last segment: a quiet end, the .part a true prefix.
      assert.deepEqual(await runSegments(part, [{ off: a.length, z: squeeze(b) }], inflate), { code: 0, out: `${a.length + b.length}\n` });
      const ab = Buffer.concat([a, b]);
      assert.ok(readFileSync(part).equals(ab));
      const late = await runSegments(part, [{ off: 1000, z: squeeze(b) }], inflate);
      assert.deepEqual(late, { code: 5, out: '' });
      assert.ok(readFileSync(part).equals(ab));
      const junk = await runSegments(part, [{ off: ab.length, z: randomBytes(5000) }], inflate);
      assert.deepEqual(junk, { code: 4, out: '' });
      // A header that says fewer bytes than follow: the rest is read as the next header and refused.
      const z = squeeze(text.subarray(500_000, 600_000));
      const short = await runSegments(part, [{ off: ab.length, z, bytes: z.length - 100 }], inflate);
      assert.notEqual(short.code, 0);
      assert.ok(readFileSync(part).equals(ab), 'nothing appended');
      assert.deepEqual(spawnSync('ls', ['-A', dir], { encoding: 'utf8' }).stdout.trim().split('\n'), ['resume.part']);
    });
  }

  it('a header that is not three numbers stops the loop before it reads a byte', async () => {
    const part = join(dir, 'h.part');
    for (const header of ['0 10 2\n', 'x 10 0\n', '0 -1 0\n', '0 10\n', '; rm -rf / 0\n']) {
      const c = spawnSync('sh', ['-c', segmentsCommand(part, 'gzip -dc')], { input: Buffer.concat([Buffer.from(header), zlib.gzipSync(Buffer.from('abcdefghij'))]) });
      assert.equal(c.status, 8, header);
      assert.equal(c.stdout.length, 0);
    }
    assert.deepEqual(spawnSync('ls', ['-A', dir], { encoding: 'utf8' }).stdout.trim(), '');
  });
});

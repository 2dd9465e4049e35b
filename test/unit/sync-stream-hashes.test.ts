// The hashes a tar stream's own command sends on stderr (stream-small.ts): a line counts only
// for a path that was asked for, in either tool's format; anything else is ignored, so the
// file is hashed by the batches instead.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAN_REPLY_MS, nearBox, parseStreamHashes, TAR_HASH_COMMAND, TAR_HASH_COMMAND_PLAIN } from '../../src/remote/sync/stream-small';
import { TarReader, type TarMember } from '../../src/remote/sync/tar';

const H1 = 'a'.repeat(64);
const H2 = '0123456789abcdef'.repeat(4);

describe('parseStreamHashes', () => {
  it('takes openssl -r and sha256sum lines for asked paths only; a path\'s first good line counts', () => {
    const asked = new Set(['/d/a.bin', '/d/b c.bin', "/d/q'x"]);
    const text = [`${H1} */d/a.bin`, `${H2}  /d/b c.bin`, `${H1} */d/other.bin`, '-', `${H2}  /d/a.bin`, ''].join('\n');
    assert.deepEqual([...parseStreamHashes(text, asked)].sort(), [
      ['/d/a.bin', H1],
      ['/d/b c.bin', H2],
    ]);
  });

  it('ignores garbled lines: short, not hex, another hash length, a path with more after it', () => {
    const asked = new Set(['/d/a.bin']);
    for (const line of [`${H1.slice(1)} */d/a.bin`, `${'g'.repeat(64)} */d/a.bin`, `${'a'.repeat(40)}  /d/a.bin`, `${'a'.repeat(128)}  /d/a.bin`, `${H1} */d/a.bin.part`, `${H1}\t/d/a.bin`, `${H1} */d/a.bin\r`, `x${H1} */d/a.bin`]) {
      assert.equal(parseStreamHashes(line, asked).size, 0, line);
    }
  });

  it('the command, run by a real sh, sends the files\' SHA-256 on stderr and the files gzipped on stdout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stream-hashes-'));
    try {
      const names = ['a.bin', 'b c.bin', "q'x.bin", '中文.bin'];
      const paths = names.map((n, i) => {
        writeFileSync(join(dir, n), `file ${i}\n`);
        return join(dir, n);
      });
      const out = execFileSync('bash', ['-c', `${TAR_HASH_COMMAND} 2>"$1"`, 'sh', join(dir, 'err')], { input: paths.map((p) => `${p}\n`).join('') });
      assert.deepEqual(execFileSync('tar', ['-t', '-z', '-f', '-'], { input: out }).toString('utf8').trim().split('\n'), paths.map((p) => p.slice(1)));
      const got = parseStreamHashes(execFileSync('cat', [join(dir, 'err')]).toString('utf8'), new Set(paths));
      assert.deepEqual(paths.map((p) => got.get(p)), paths.map((_p, i) => createHash('sha256').update(`file ${i}\n`).digest('hex')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the plain command (a near box) sends the same hashes and an uncompressed tar our reader takes member by member', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stream-hashes-'));
    try {
      const names = ['a.bin', 'b c.bin', "q'x.bin", '中文.bin', 'big.bin'];
      const bodies = names.map((_n, i) => (i === 4 ? Buffer.alloc(70_000, 7) : Buffer.from(`file ${i}\n`)));
      const paths = names.map((n, i) => {
        writeFileSync(join(dir, n), bodies[i]!);
        return join(dir, n);
      });
      const out = execFileSync('bash', ['-c', `${TAR_HASH_COMMAND_PLAIN} 2>"$1"`, 'sh', join(dir, 'err')], { input: paths.map((p) => `${p}\n`).join('') });
      assert.notEqual(out[0], 0x1f, 'not gzip');
      const members: TarMember[] = [];
      const reader = new TarReader((m) => members.push(m), { maxMemberBytes: 1 << 20 });
      // As the channel hands it over: in pieces that cut headers and bodies anywhere.
      for (let off = 0; off < out.length; off += 777) reader.push(out.subarray(off, off + 777));
      reader.end();
      assert.deepEqual(members.map((m) => m.name), paths.map((p) => p.slice(1)));
      assert.deepEqual(members.map((m) => Buffer.compare(m.data, bodies[members.indexOf(m)]!)), [0, 0, 0, 0, 0]);
      const got = parseStreamHashes(execFileSync('cat', [join(dir, 'err')]).toString('utf8'), new Set(paths));
      assert.deepEqual(paths.map((p) => got.get(p)), bodies.map((b) => createHash('sha256').update(b).digest('hex')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('nearBox', () => {
  it('is near only for a measured reply under the LAN threshold; unmeasured or slower stays compressed', () => {
    assert.equal(nearBox(0.2), true);
    assert.equal(nearBox(LAN_REPLY_MS - 0.01), true);
    assert.equal(nearBox(LAN_REPLY_MS), false);
    assert.equal(nearBox(5), false); // a tunnel in the same city
    assert.equal(nearBox(40), false);
    assert.equal(nearBox(undefined), false); // nothing timed (an empty folder's listing failed)
  });
});

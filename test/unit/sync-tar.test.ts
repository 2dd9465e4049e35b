// The tar reader behind many-small-files pulls, on real `tar -c` output (GNU, POSIX ustar and
// pax formats, long names) made here by the same command the box runs, and on hostile streams.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { num, TarError, TarReader, type TarMember } from '../../src/remote/sync/tar';
import { trimEndOf } from '../../src/core/boxLines';
import { TAR_COMMAND } from '../../src/remote/sync/stream-small';

function read(stream: Buffer, maxMemberBytes = 128 * 1024, chunk = 777): TarMember[] {
  const out: TarMember[] = [];
  const r = new TarReader((m) => out.push(m), { maxMemberBytes });
  for (let i = 0; i < stream.length; i += chunk) r.push(stream.subarray(i, i + chunk));
  r.end();
  return out;
}

describe('sync: the tar stream of many small files', () => {
  let dir: string;
  const files: Array<{ path: string; data: Buffer; mtime: number }> = [];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tar-'));
    const long = 'a-folder-name-long-enough-to-need-more-than-one-hundred-bytes-in-a-tar-header/and-deeper-still-for-good-measure';
    for (const [i, rel] of ['one.bin', 'empty.bin', '训练/第1轮.pt', `${long}/shard-00001-of-00002.safetensors`, "it's $(odd) & [x].json"].entries()) {
      const path = join(dir, rel);
      mkdirSync(join(path, '..'), { recursive: true });
      const data = rel === 'empty.bin' ? Buffer.alloc(0) : randomBytes(100 + i * 700);
      writeFileSync(path, data);
      utimesSync(path, 1_700_000_000 + i, 1_700_000_000 + i);
      files.push({ path, data, mtime: 1_700_000_000 + i });
    }
    symlinkSync('/etc/passwd', join(dir, 'swapped.bin'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads what the box command sends (gzip, GNU format): names, sizes, mtimes and bytes; a link comes as a link', () => {
    const stdin = [...files.map((f) => f.path), join(dir, 'swapped.bin'), join(dir, 'vanished.bin')].join('\n') + '\n';
    const gz = execFileSync('/bin/sh', ['-c', TAR_COMMAND.replace(/^\/bin\/sh -c /, '').replace(/^'|'$/g, '')], { input: stdin });
    const members = read(gunzipSync(gz));
    assert.equal(members.length, files.length + 1, 'the vanished file is simply not there');
    files.forEach((f, i) => {
      assert.equal(members[i]!.name, f.path.replace(/^\/+/, ''));
      assert.equal(members[i]!.type, '0');
      assert.equal(members[i]!.mtime, f.mtime);
      assert.ok(members[i]!.data.equals(f.data));
    });
    assert.equal(members.at(-1)!.type, '2');
    assert.equal(members.at(-1)!.data.length, 0);
  });

  for (const format of ['ustar', 'pax', 'gnu', 'oldgnu']) {
    it(`reads ${format} archives, long names included, whatever the chunking`, () => {
      const names = files.map((f) => f.path.slice(1));
      const tar = execFileSync('tar', ['-c', '-f', '-', `--format=${format}`, '-C', '/', ...names]);
      for (const chunk of [1, 512, 100_000]) {
        const m = read(tar, 128 * 1024, chunk);
        assert.deepEqual(m.map((x) => x.name), names);
        assert.ok(m.every((x, i) => x.data.equals(files[i]!.data)));
      }
    });
  }

  it('refuses what it does not trust: a wrong checksum, a member bigger than asked for, a cut stream, not tar at all', () => {
    const tar = execFileSync('tar', ['-c', '-f', '-', '-C', '/', files[3]!.path.slice(1)]);
    const bad = Buffer.from(tar);
    bad[1024 + 130]! ^= 0x01; // the size field of the member header after the long name
    assert.throws(() => read(bad), TarError);
    const flipped = Buffer.from(tar);
    flipped[10]! ^= 1; // the first header's name
    assert.throws(() => read(flipped), /checksum/);
    assert.throws(() => read(tar, 100), /more than asked for/);
    assert.throws(() => read(tar.subarray(0, 1500)), /middle of a member/);
    assert.throws(() => read(randomBytes(4096)), TarError);
    assert.throws(() => read(Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(1020)])), TarError);
  });

  it('an endless stream of long-name records or members is bounded by the caller, never buffered whole', () => {
    // A header announcing a 10 GB member: refused from the header alone.
    const h = Buffer.alloc(512);
    h.write('x', 0);
    h.write('0000644\0', 100);
    h.write('77777777777\0', 124); // 8 GiB
    h.write('00000000000\0', 136);
    h.write('0', 156);
    h.write('ustar\x0000', 257);
    h.write('        ', 148);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
    assert.throws(() => read(h), /more than asked for/);
  });
  it('reads a number field off its bytes exactly as the string reading did (random and edge fields)', () => {
    // The reading before: latin1 text, trailing NULs and spaces trimmed, leading spaces cut, 1-22 octal digits.
    const before = (field: Buffer) => {
      if (field.length && (field[0]! & 0x80) !== 0) return num(field); // base-256: unchanged code
      const s = trimEndOf(field.toString('latin1'), '\0 ').replace(/^ +/, '');
      if (s === '') return 0;
      if (!/^[0-7]{1,22}$/.test(s)) return undefined;
      const v = parseInt(s, 8);
      return Number.isSafeInteger(v) ? v : undefined;
    };
    const alphabet = [0x30, 0x31, 0x37, 0x38, 0x39, 0x20, 0x00, 0x2d, 0x2b, 0x61, 0x0a, 0x09];
    const fields: Buffer[] = ['', ' ', '\0', '0000644\0', '  123 \0', '7'.repeat(22), '7'.repeat(23), '1'.repeat(18), '1'.repeat(17) + '\0', '12 3', '-1', '+1', '08', '\0 12', '00000001000\0'].map((t) => Buffer.from(t, 'latin1'));
    const rnd = randomBytes(20000 * 24);
    for (let n = 0, r = 0; n < 20000; n++) {
      const len = 1 + (n % 24);
      const b = Buffer.alloc(len);
      for (let i = 0; i < len; i++) b[i] = alphabet[rnd[r++]! % (n % 3 === 0 ? 8 : alphabet.length)]!;
      fields.push(b);
    }
    for (const f of fields) assert.equal(num(f), before(f), JSON.stringify(f.toString('latin1')));
  });
});

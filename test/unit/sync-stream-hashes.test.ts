// The hashes a tar stream's own command sends on stderr (stream-small.ts): a line counts only
// for a path that was asked for, in either tool's format; anything else is ignored, so the
// file is hashed by the batches instead.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStreamHashes, TAR_HASH_COMMAND } from '../../src/remote/sync/stream-small';

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
});

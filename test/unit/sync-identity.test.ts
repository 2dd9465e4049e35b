// The identity check that stands in for a second read of a big file on the box: the script
// runs for real here (GNU stat, as on the boxes users rent), odd outputs give "cannot say".
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityScript, identityUsable, parseIdentity, sameIdentity, IDENTITY_MIN_AGE_S } from '../../src/remote/sync/remote-hash';

const look = (path: string) => parseIdentity(execFileSync('/bin/sh', ['-c', identityScript(path)], { encoding: 'utf8' }));

describe('sync: a big file identity on the box', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'identity-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads type, inode, size and nanosecond times from the real stat, and a write in place changes them even with the mtime put back', () => {
    const p = join(dir, "it's a ckpt $(touch x).pt");
    writeFileSync(p, Buffer.alloc(4096, 1));
    utimesSync(p, 1_700_000_000, 1_700_000_000);
    const a = look(p);
    assert.ok(a, 'GNU stat answered');
    assert.equal(a.size, 4096);
    assert.equal((a.mode & 0o170000) === 0o100000, true);
    assert.match(a.ctime, /^\d+\.\d{9}$/);
    assert.ok(sameIdentity(a, look(p)!), 'nothing changed: same identity');
    execFileSync('sleep', ['0.02']);
    const fd = openSync(p, 'r+');
    writeSync(fd, Buffer.from('EVIL'), 0, 4, 100);
    closeSync(fd);
    utimesSync(p, 1_700_000_000, 1_700_000_000); // size and mtime as listed again
    const b = look(p)!;
    assert.equal(b.size, a.size);
    assert.equal(b.mtime, a.mtime);
    assert.ok(!sameIdentity(a, b), 'the change time gives the write away');
  });

  it('stands in for the hash only for a regular file of the listed size and mtime whose last change is old enough', () => {
    const base = { mode: 0o100644, dev: '1', ino: '2', size: 10, mtime: '1700000000.000000000', ctime: '1700000000.123456789', now: 1700000000 + IDENTITY_MIN_AGE_S };
    assert.ok(identityUsable(base, { size: 10, mtime: 1700000000 }));
    assert.ok(!identityUsable({ ...base, now: base.now - 1 }, { size: 10, mtime: 1700000000 }), 'changed within the last seconds');
    assert.ok(!identityUsable(base, { size: 11, mtime: 1700000000 }), 'size differs from the listing');
    assert.ok(!identityUsable(base, { size: 10, mtime: 1700000001 }), 'mtime differs from the listing');
    assert.ok(!identityUsable({ ...base, mode: 0o120777 }, { size: 10, mtime: 1700000000 }), 'a link');
    assert.ok(!sameIdentity(base, { ...base, ino: '3' }), 'replaced by another file');
  });

  it('cannot say for outputs that are not GNU stat\'s (BusyBox, BSD, errors, noise): the box hashes the file instead', () => {
    for (const out of [
      '',
      'stat: unrecognized option: c\n',
      '81a4 2049 131 4096 ? ?\n1700000000\n', // BusyBox: no precision in %Y
      '81a4 2049 131 4096 1700000000 1700000000\n1700000000\n',
      '81a4 2049 131 4096 1700000000.000000000 1700000000.000000000\n', // no clock line
      '81a4 2049 131 4096 1700000000.000000000 1700000000.000000000\n1700000000\nextra\n',
      '81a4 2049 131 99999999999999999999 1700000000.000000000 1700000000.000000000\n1700000000\n',
      '\x1b]52;c;aGk=\x07 2049 131 4096 1.000000000 1.000000000\n1\n',
    ])
      assert.equal(parseIdentity(out), undefined, JSON.stringify(out));
    assert.deepEqual(parseIdentity('81a4 2049 131 4096 1700000000.000000001 1700000001.5\n1700000003\n'), undefined, 'ctime without nine digits');
    assert.equal(parseIdentity('81a4 2049 131 4096 1700000000.000000001 1700000001.500000000\n1700000003\n')?.ino, '131');
  });
});

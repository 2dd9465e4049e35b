// The listing command's answer as the box may send it: anything but a whole, well-formed one is
// no answer (SFTP lists instead), never a half listing that would let a sync delete or skip.
import { strict as assert } from 'node:assert';
import { EXEC_LIST_DEPTH, EXEC_LIST_MAGIC, execListCommand, parseExecListing } from '../../src/remote/sync/list-exec';

const ok = (records: string[], head = `${EXEC_LIST_MAGIC}\u00001764700000\u0000/home/u/ckpt\u0000`) => ({ code: 0, stdout: head + records.map((r) => r + '\0').join(''), truncated: { stdout: 0 } });

describe('parseExecListing', () => {
  it('reads folders, files, links and the rest, with whole-second mtimes and exact names', () => {
    const l = parseExecListing(ok(['d 4096 1764699000.5 run', 'f 12 1764699001.9999999990 run/a b\nc.pt', 'l 9 1764699002.0 link', 'p 0 1764699003 fifo', 'f 0 -5.5 old']), 100);
    assert.ok(l && l !== 'too-many');
    assert.equal(l.root, '/home/u/ckpt');
    assert.equal(l.now, 1764700000);
    assert.deepEqual([...l.dirs.keys()], ['', 'run']);
    const top = l.dirs.get('')!;
    assert.deepEqual(top.map((e) => [e.filename, (e.attrs.mode & 0o170000).toString(8), e.attrs.size, e.attrs.mtime]), [
      ['run', '40000', 4096, 1764699000],
      ['link', '120000', 9, 1764699002],
      ['fifo', '10000', 0, 1764699003],
      ['old', '100000', 0, -5],
    ]);
    assert.deepEqual(l.dirs.get('run')!.map((e) => [e.filename, e.attrs.size, e.attrs.mtime]), [['a b\nc.pt', 12, 1764699001]]);
  });

  it('an empty folder is a whole answer with no entries', () => {
    const l = parseExecListing(ok([]), 100);
    assert.ok(l && l !== 'too-many');
    assert.deepEqual(l.dirs.get(''), []);
  });

  for (const [why, r] of [
    ['a non-zero exit (find could not read a folder, no -printf)', { ...ok(['f 1 1 a']), code: 1 }],
    ['no exit status (killed)', { ...ok(['f 1 1 a']), code: null }],
    ['output cut at its cap', { ...ok(['f 1 1 a']), truncated: { stdout: 10 } }],
    ['stopped for printing too much', { ...ok(['f 1 1 a']), outputLimited: true }],
    ['a login banner before the answer', { ...ok(['f 1 1 a']), stdout: 'Welcome to AutoDL\n' + ok(['f 1 1 a']).stdout }],
    ['the last record cut short', { ...ok([]), stdout: ok(['f 1 1 a']).stdout.slice(0, -1) }],
    ['a relative root', ok(['f 1 1 a'], `${EXEC_LIST_MAGIC}\u00001\u0000home/u\u0000`)],
    ['a clock that is not a number', ok(['f 1 1 a'], `${EXEC_LIST_MAGIC}\0soon\0/r\0`)],
    ['an unknown type letter', ok(['x 1 1 a'])],
    ['a size that is not a number', ok(['f 1e3 1 a'])],
    ['a size past 2^53', ok(['f 99999999999999999 1 a'])],
    ['no name', ok(['f 1 1 '])],
    ['a name ending in a slash', ok(['d 1 1 a', 'f 1 1 a/'])],
    ['a name before its folder', ok(['f 1 1 run/a', 'd 1 1 run'])],
    ['a name in a folder never listed', ok(['f 1 1 ghost/a'])],
  ] as const) {
    it(`no answer: ${why}`, () => assert.equal(parseExecListing(r, 100), undefined));
  }

  it('past the entry cap: too-many, whatever the records hold', () => {
    assert.equal(parseExecListing(ok(Array.from({ length: 11 }, (_, i) => `f 1 1 f${i}`)), 10), 'too-many');
    assert.ok(parseExecListing(ok(Array.from({ length: 10 }, (_, i) => `f 1 1 f${i}`)), 10));
  });

  it('a folder as deep as find goes is left to SFTP (its names were not printed)', () => {
    const path = (n: number) => Array.from({ length: n }, (_, i) => `l${i}`).join('/');
    const records = Array.from({ length: EXEC_LIST_DEPTH }, (_, i) => `d 1 1 ${path(i + 1)}`);
    const l = parseExecListing(ok(records), 1000);
    assert.ok(l && l !== 'too-many');
    assert.ok(l.dirs.has(path(EXEC_LIST_DEPTH - 1)));
    assert.ok(!l.dirs.has(path(EXEC_LIST_DEPTH)));
  });
});

describe('execListCommand', () => {
  it('quotes the folder for the shell and reads no more levels than the walk', () => {
    const c = execListCommand("it's; rm -rf ~");
    assert.ok(c.startsWith(`cd -P -- 'it'\\''s; rm -rf ~' `), c);
    assert.match(c, new RegExp(`-maxdepth ${EXEC_LIST_DEPTH} `));
  });
});

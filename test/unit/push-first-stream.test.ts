// The first stream's command (push-stream.ts firstUnpackCommand) through a real sh, gzip and
// tar: its first line says whether the folder was there before (`old`, then the folder's
// listing and nothing unpacked) or made by it (`new`, so push need not list it, then one e/n
// flag per name, then the box's hash of each .part).
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { firstUnpackCommand, folderCommand, tarOf } from '../../src/remote/sync/push-stream';
import { parseBatchHashOutput } from '../../src/remote/sync/remote-hash';
import { parseExecListing } from '../../src/remote/sync/list-exec';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('push: the first stream says whether it made the folder', () => {
  let work: string;
  beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'first-stream-'))));
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  const members = [
    { name: 'a/one.bin.part', data: Buffer.from('first file\n'), mtime: 1_700_000_000 },
    { name: 'a/b/two.bin.part', data: Buffer.from([0, 1, 2, 255]), mtime: 1_700_000_100 },
    { name: 'three.txt.part', data: Buffer.alloc(0), mtime: 1_700_000_200 },
  ];
  const run = (root: string) =>
    execFileSync('/bin/sh', ['-c', firstUnpackCommand(root, members.map((m) => m.name))], { cwd: work, input: gzipSync(tarOf(members)), encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] }).split('\n');

  it('a missing folder: "new", every name new, each .part hashed as sent', () => {
    const lines = run('data/run1');
    assert.equal(lines[0], 'new');
    assert.deepEqual(lines.slice(1, 4), ['n', 'n', 'n']);
    const answers = parseBatchHashOutput(lines.slice(4).join('\n'), members.length);
    assert.deepEqual(answers, members.map((m) => sha(m.data)));
    for (const m of members) assert.deepEqual(readFileSync(join(work, 'data/run1', m.name)), m.data);
  });

  it('a folder that was there: "old", then its listing (list-exec.ts), reading nothing and unpacking nothing', () => {
    mkdirSync(join(work, 'data/a'), { recursive: true });
    writeFileSync(join(work, 'data/a/one.bin'), 'already here\n');
    writeFileSync(join(work, 'data/new\nline $(x).txt'), '');
    // Nothing on stdin: push holds its bytes back until the box says "new".
    const out = execFileSync('/bin/sh', ['-c', firstUnpackCommand('data', members.map((m) => m.name))], { cwd: work, input: '', encoding: 'utf8' });
    assert.ok(out.startsWith('old\n'));
    const listing = parseExecListing({ code: 0, stdout: out.slice(4) }, 100);
    assert.ok(listing && listing !== 'too-many');
    assert.equal(listing.root, realpathSync(join(work, 'data')));
    assert.deepEqual(listing.dirs.get('')!.map((e) => e.filename).sort(), ['a', 'new\nline $(x).txt']);
    assert.deepEqual(listing.dirs.get('a')!.map((e) => [e.filename, e.attrs.size]), [['one.bin', 13]]);
    assert.equal(existsSync(join(work, 'data/a/one.bin.part')), false);
    assert.equal(existsSync(join(work, 'data/three.txt.part')), false);
    assert.equal(readFileSync(join(work, 'data/a/one.bin'), 'utf8'), 'already here\n');
  });

  it('a path that is a file, not a folder: exits 3 before reading the stream, says nothing', () => {
    writeFileSync(join(work, 'data'), 'not a folder');
    assert.throws(() => run('data'), (e: { status?: number; stdout?: string }) => e.status === 3 && e.stdout === '');
  });

  describe('with no stream to send (a push of a few big files): the folder command', () => {
    const folder = (root: string) => execFileSync('/bin/sh', ['-c', folderCommand(root)], { cwd: work, input: '', encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

    it('a missing folder: made, "new", then an empty listing that names its real path', () => {
      mkdirSync(join(work, 'real'));
      execFileSync('ln', ['-s', 'real', join(work, 'via')]);
      const out = folder('via/deep/run2');
      assert.ok(out.startsWith('new\n'), out);
      const listing = parseExecListing({ code: 0, stdout: out.slice(4) }, 100);
      assert.ok(listing && listing !== 'too-many');
      assert.equal(listing.root, realpathSync(join(work, 'real/deep/run2')));
      assert.deepEqual(listing.dirs.get(''), []);
    });

    it('a folder that was there: "old", then its listing, nothing made', () => {
      mkdirSync(join(work, 'data/a'), { recursive: true });
      writeFileSync(join(work, 'data/a/train.jsonl.part'), 'half');
      const out = folder('data');
      assert.ok(out.startsWith('old\n'));
      const listing = parseExecListing({ code: 0, stdout: out.slice(4) }, 100);
      assert.ok(listing && listing !== 'too-many');
      assert.deepEqual(listing.dirs.get('a')!.map((e) => [e.filename, e.attrs.size]), [['train.jsonl.part', 4]]);
    });

    it('a path that is a file: exits 3, says nothing (SFTP then says what is wrong)', () => {
      writeFileSync(join(work, 'data'), 'not a folder');
      assert.throws(() => folder('data'), (e: { status?: number; stdout?: string }) => e.status === 3 && e.stdout === '');
    });
  });
});

// Which remote names may become local files: hostile ones are refused with a reason code.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { checkComponent, checkRelativePath } from '../../src/remote/sync/names';
import { batchHashScript, hashScript, parseBatchHashOutput, parseHashOutput, parseRemoteNow } from '../../src/remote/sync/remote-hash';
import { readState, writeState } from '../../src/remote/sync/state';

const linux = { platform: 'linux' };
const win = { platform: 'win32' };

describe('sync: remote names', () => {
  it('accepts ordinary checkpoint names, Chinese included', () => {
    for (const name of ['checkpoint-500', 'model.safetensors', 'epoch_3.pt', '训练-第3轮.ckpt', 'a b.bin', '.hidden', 'x..y', 'ckpt-2024-01-01T12:00:00.pt']) {
      assert.equal(checkComponent(name, linux), undefined, name);
    }
  });

  it('refuses traversal, absolute paths, NUL, backslashes, control characters', () => {
    const cases: Array<[string, string]> = [
      ['..', 'dot-segment'],
      ['.', 'dot-segment'],
      ['../../.bashrc', 'dot-segment'],
      ['a/../../b', 'dot-segment'],
      ['/etc/passwd', 'absolute-path'],
      ['a/b', 'separator-in-name'],
      ['a\0b', 'nul'],
      ['..\\..\\evil', 'backslash'],
      ['line\nbreak', 'control-char'],
      ['esc\x1b[2Jape', 'control-char'],
      ['bad\uFFFDutf8', 'not-utf8'],
      ['', 'empty-name'],
      ['x'.repeat(256), 'too-long'],
      ['model.pt.part', 'reserved-name'],
    ];
    for (const [name, reason] of cases) assert.equal(checkComponent(name, linux), reason, JSON.stringify(name));
  });

  it('refuses Windows device names on every platform, any case, with or without extension', () => {
    for (const name of ['CON', 'con', 'Nul', 'AUX.txt', 'prn.pt', 'COM1', 'lpt9.ckpt', 'CONIN$']) {
      assert.equal(checkComponent(name, linux), 'device-name', name);
    }
    for (const name of ['console', 'nullable.pt', 'com10', 'auxiliary']) assert.equal(checkComponent(name, linux), undefined, name);
    assert.equal(checkComponent('trailing.', linux), 'trailing-dot-or-space');
    assert.equal(checkComponent('trailing ', linux), 'trailing-dot-or-space');
  });

  it("refuses Windows' reserved characters only when the local disk is Windows", () => {
    assert.equal(checkComponent('a:b.pt', win), 'windows-reserved-char');
    assert.equal(checkComponent('what?.pt', win), 'windows-reserved-char');
    assert.equal(checkComponent('a:b.pt', linux), undefined);
  });

  it('checks whole relative paths', () => {
    assert.equal(checkRelativePath('ckpt/epoch-1/model.pt', linux), undefined);
    assert.equal(checkRelativePath('/abs/x', linux), 'absolute-path');
    assert.equal(checkRelativePath('C:/x', linux), 'absolute-path');
    assert.equal(checkRelativePath('a/../../b', linux), 'dot-segment');
    assert.equal(checkRelativePath('a//b', linux), 'empty-name');
    assert.equal(checkRelativePath('.gpu-rent-sync.json', linux), 'reserved-name');
  });

  it('never accepts a component that could leave the folder (1000 random names)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (name) => {
        const reason = checkComponent(name, linux);
        if (reason === undefined) {
          assert.ok(!name.includes('/') && !name.includes('\\') && !name.includes('\0') && name !== '..' && name !== '.', JSON.stringify(name));
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('sync: remote hash script', () => {
  it('runs under a real sh and hashes whole files and prefixes byte for byte', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sync-hash-'));
    try {
      const path = join(dir, "it's a \"file\" $(touch pwned) `x`.bin");
      writeFileSync(path, 'hello world\n');
      const req = { path, prefix: 5 };
      const out = execFileSync('sh', ['-c', hashScript(req)], { encoding: 'utf8', cwd: dir });
      const ans = parseHashOutput(out, req);
      assert.equal(ans.full, 'a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447');
      assert.equal(ans.prefix, '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824'); // "hello"
      assert.throws(() => execFileSync('ls', [join(dir, 'pwned')], { stdio: 'ignore' }));
      // A box without openssl falls back to coreutils, with the same answers.
      const bin = join(dir, 'bin');
      mkdirSync(bin);
      for (const tool of ['sha256sum', 'head']) symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bin, tool));
      const viaCoreutils = execFileSync('/bin/sh', ['-c', hashScript(req)], { encoding: 'utf8', cwd: dir, env: { PATH: bin } });
      assert.deepEqual(parseHashOutput(viaCoreutils, req), ans);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports an unreadable file as unknown, and a box without tools as null', () => {
    const req = { path: '/nonexistent/file' };
    const out = execFileSync('sh', ['-c', hashScript(req)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    assert.equal(parseHashOutput(out, req).full, undefined);
    const noTools = execFileSync('/bin/sh', ['-c', hashScript(req)], { encoding: 'utf8', env: { PATH: '/nonexistent' }, stdio: ['ignore', 'pipe', 'ignore'] });
    assert.deepEqual(parseHashOutput(noTools, { path: 'x', prefix: 3 }), { full: null, prefix: null });
    assert.deepEqual(parseHashOutput('garbage\nh zzz\n', req), { full: undefined, prefix: undefined });
  });

  it('hashes a batch of 1000 files in order under a real sh, with each tool the box may have, the names with spaces and quotes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sync-hash-many-'));
    try {
      const paths: string[] = [];
      const want: string[] = [];
      for (let i = 0; i < 1000; i++) {
        const p = join(dir, i % 3 === 0 ? `shard ${i}.bin` : i % 3 === 1 ? `it's-${i}` : `x${i}`);
        const data = `file ${i}\n`.repeat(i % 7);
        writeFileSync(p, data);
        paths.push(p);
        want.push(createHash('sha256').update(data).digest('hex'));
      }
      const out = execFileSync('sh', ['-c', batchHashScript(paths)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 24 });
      assert.deepEqual(parseBatchHashOutput(out, paths.length), want);
      // sha256sum's "HASH  NAME" lines give the same answers (a box without a working openssl).
      const bin = join(dir, 'bin');
      mkdirSync(bin);
      for (const tool of ['sha256sum', 'sed', 'wc', 'head', 'printf']) {
        const real = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
        if (real.startsWith('/')) symlinkSync(real, join(bin, tool));
      }
      const viaSum = execFileSync('/bin/sh', ['-c', batchHashScript(paths)], { encoding: 'utf8', env: { PATH: bin }, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 24 });
      assert.deepEqual(parseBatchHashOutput(viaSum, paths.length), want);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hashes a batch in order under a real sh; a missing file is unknown, a short answer proves nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sync-hash-'));
    try {
      writeFileSync(join(dir, 'a'), 'hello world\n');
      writeFileSync(join(dir, "b'c"), '');
      const paths = [join(dir, 'a'), join(dir, 'missing'), join(dir, "b'c")];
      const out = execFileSync('sh', ['-c', batchHashScript(paths)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      assert.deepEqual(parseBatchHashOutput(out, 3), [
        'a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447',
        undefined,
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      ]);
      assert.deepEqual(parseBatchHashOutput(out.split('\n').slice(0, 2).join('\n'), 3), [undefined, undefined, undefined]);
      assert.deepEqual(parseBatchHashOutput('none\n', 2), [null, null]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the remote clock or says it could not', () => {
    assert.equal(parseRemoteNow('1764400000\n'), 1764400000);
    assert.equal(parseRemoteNow(''), undefined);
    assert.equal(parseRemoteNow('date: not found'), undefined);
  });
});

describe('sync: state file', () => {
  it('round-trips, and ignores a file for another source or one that is garbage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sync-state-'));
    try {
      await writeState(dir, { version: 1, source: 'a:/x', files: { 'b.pt': { size: 3, mtime: 100, sha256: 'a'.repeat(64) }, 'a.pt': { size: 1, mtime: 2, sha256: null } } });
      const back = await readState(dir, 'a:/x');
      assert.deepEqual(back.files, { 'a.pt': { size: 1, mtime: 2, sha256: null }, 'b.pt': { size: 3, mtime: 100, sha256: 'a'.repeat(64) } });
      assert.deepEqual((await readState(dir, 'other:/x')).files, {});
      writeFileSync(join(dir, '.gpu-rent-sync.json'), '{"version":1,"source":"a:/x","files":{"ok":{"size":1,"mtime":1,"sha256":null},"bad":{"size":-1,"mtime":"x"}}}');
      assert.deepEqual(Object.keys((await readState(dir, 'a:/x')).files), ['ok']);
      writeFileSync(join(dir, '.gpu-rent-sync.json'), '\0\0not json');
      assert.deepEqual((await readState(dir, 'a:/x')).files, {});
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

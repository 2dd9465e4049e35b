// One secret scan for both front ends (src/app/secretScan.ts): the built CLI and the function
// the extension calls find the same findings on one real tree, a token in a git remote URL
// (.git/config) included; object stores and links are not read; caps are reported.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanSecrets, type ScanProgress } from '../../src/app/secretScan';
import { runCli } from '../support/cli';

const GH = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';
const HF = 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567';

describe('app/secretScan', function () {
  this.timeout(30000);
  let work: string;
  let tree: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'gpr-scan-'));
    tree = join(work, 'proj');
    mkdirSync(tree);
    // A real repository, so .git has git's own files (hooks, objects, index) around the config.
    execFileSync('git', ['init', '-q', tree]);
    execFileSync('git', ['-C', tree, 'remote', 'add', 'origin', `https://me:${GH}@example.invalid/team/model.git`]);
    writeFileSync(join(tree, 'train.py'), `import os\ntoken = "${HF}"\n`);
    writeFileSync(join(tree, '.env'), 'X=1\n');
    execFileSync('git', ['-C', tree, 'add', 'train.py']);
    execFileSync('git', ['-C', tree, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '-m', 'x']);
    // Loose objects are compressed; a plain-text file in the store must still not be read.
    mkdirSync(join(tree, '.git', 'objects', 'zz'), { recursive: true });
    writeFileSync(join(tree, '.git', 'objects', 'zz', 'plain'), `aws = "AKIAIOSFODNN7EXAMPLE"\n`);
    mkdirSync(join(tree, 'node_modules', 'x'), { recursive: true });
    writeFileSync(join(tree, 'node_modules', 'x', 'index.js'), 'const k = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";\n');
    writeFileSync(join(tree, 'node_modules', 'x', 'id_rsa'), 'x');
    mkdirSync(join(tree, 'data', 'deep', 'er'), { recursive: true });
    writeFileSync(join(tree, 'data', 'deep', 'er', 'kaggle.json'), '{}');
    // A link to a secret outside the tree is not followed.
    const outside = join(work, 'outside.env');
    writeFileSync(outside, `GITHUB_TOKEN=${GH}\n`);
    symlinkSync(outside, join(tree, 'linked.txt'));
    symlinkSync(join(work), join(tree, 'up'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('the CLI and the shared walker find the same findings, the .git/config token among them', async () => {
    const r = await scanSecrets(tree);
    const cli = runCli(['scan-secrets', '.', '--json'], { cwd: tree });
    assert.equal(cli.code, 1, cli.stderr);
    const fromCli = JSON.parse(cli.stdout) as { files: number; findings: unknown[]; truncated: unknown };
    assert.deepEqual(fromCli.findings, r.findings);
    assert.equal(fromCli.files, r.files);
    assert.equal(fromCli.truncated, null);
    const got = r.findings.map((f) => `${f.path}:${f.line ?? '-'}:${f.kind}`);
    assert.ok(got.some((g) => /^\.git\/config:\d+:githubToken$/.test(g)), got.join('\n'));
    assert.equal(got.filter((g) => g.startsWith('.git/')).length, 1, 'nothing else in .git: ' + got.join(', '));
    assert.ok(got.includes('train.py:2:huggingFaceToken'), got.join('\n'));
    assert.ok(got.includes('.env:-:dotenv'));
    assert.ok(got.includes('node_modules/x/id_rsa:-:sshKeyFile'), 'generated folders: names still count');
    assert.ok(got.includes('data/deep/er/kaggle.json:-:credentialsFile'));
    assert.ok(!got.some((g) => g.startsWith('node_modules/x/index.js')), 'generated folders: content not read');
    assert.ok(!got.some((g) => g.includes('objects/')), 'the object store is not read');
    assert.ok(!got.some((g) => g.startsWith('linked.txt') || g.startsWith('up/')), 'links are not followed');
    assert.equal(r.skippedLinks, 2);
    assert.equal(r.truncated, null);
    for (const f of r.findings) assert.ok(!f.hint.includes(GH.slice(5)) && !f.hint.includes(HF.slice(5)), 'never the secret');
    // The same tree scanned from outside it: paths relative to the working folder, as the CLI shows them.
    const rel = await scanSecrets([tree], { relativeTo: work });
    assert.deepEqual(
      rel.findings.map((f) => f.path),
      r.findings.map((f) => `proj/${f.path}`),
    );
  });

  it('a file cap stops the walk and says where; so does a byte cap; the CLI reports it', async () => {
    const capped = await scanSecrets(tree, { maxFiles: 3 });
    assert.deepEqual(capped.truncated, { reason: 'maxFiles', filesSeen: 3, limit: 3 });
    assert.equal(capped.files, 3);
    const bytes = await scanSecrets(tree, { maxBytes: 64 });
    assert.equal(bytes.truncated?.reason, 'maxBytes');
    assert.ok(bytes.bytesRead <= 64);
    const cli = runCli(['scan-secrets', tree, '--max-files', '2']);
    assert.match(cli.stderr, /note: stopped after 2 files \(--max-files 2\): the rest was not checked/);
    const json = JSON.parse(runCli(['scan-secrets', tree, '--max-files', '2', '--json']).stdout) as { truncated: unknown };
    assert.deepEqual(json.truncated, { reason: 'maxFiles', filesSeen: 2, limit: 2 });
  });

  it('is cancellable and reports progress', async () => {
    const many = join(work, 'many');
    mkdirSync(many);
    for (let i = 0; i < 600; i++) writeFileSync(join(many, `f${i}.txt`), 'x\n');
    const seen: ScanProgress[] = [];
    const r = await scanSecrets(many, { onProgress: (p) => seen.push(p) });
    assert.equal(r.files, 600);
    assert.ok(seen.length >= 3 && seen[seen.length - 1]!.filesSeen === 600, JSON.stringify(seen.slice(-2)));
    const ac = new AbortController();
    await assert.rejects(
      scanSecrets(many, {
        signal: ac.signal,
        onProgress: (p) => {
          if (p.filesSeen >= 250) ac.abort();
        },
      }),
      (e: Error) => e.name === 'AbortError',
    );
  });

  it('a single file is shown by its name; a missing root is reported, not thrown', async () => {
    const one = await scanSecrets(join(tree, 'train.py'));
    assert.deepEqual(
      one.findings.map((f) => [f.path, f.kind]),
      [['train.py', 'huggingFaceToken']],
    );
    const none = await scanSecrets(join(work, 'nope'));
    assert.equal(none.unreadableCount, 1);
  });
});

// Push lists its tree once (src/remote/sync/local-tree.ts) and the secret scan checks exactly
// that list (scanTree in src/app/secretScan.ts): a root given as a link is resolved for both,
// links inside the tree are skipped by both, every listed name is checked, and a scan cut off
// at its cap says how many files it did not read. On real files; pushFolder's refusals are
// checked with a box that fails the test if it is ever contacted.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listedFileRule, scanSecrets, scanTree } from '../../src/app/secretScan';
import { pushFolder } from '../../src/app/push';
import { listLocalTree } from '../../src/remote/sync/push';
import type { SyncRemote } from '../../src/remote/sync';

const HF = 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567';

/** A box that must never be reached: the refusals happen before any byte leaves. */
const untouchable: SyncRemote = {
  sftp: () => Promise.reject(new Error('the box was contacted')),
  exec: () => Promise.reject(new Error('the box was contacted')),
};

describe('push and the secret scan walk the same tree', function () {
  this.timeout(30000);
  let work: string;
  let real: string;
  let link: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'gpr-push-scan-'));
    real = join(work, 'project');
    mkdirSync(join(real, 'src'), { recursive: true });
    mkdirSync(join(real, 'node_modules', 'pkg'), { recursive: true });
    writeFileSync(join(real, 'train.py'), 'print(1)\n');
    writeFileSync(join(real, '.env'), 'HF_TOKEN=x\n');
    writeFileSync(join(real, 'src', 'conf.py'), `token = "${HF}"\n`);
    writeFileSync(join(real, 'node_modules', 'pkg', 'index.js'), `const t = "${HF}";\n`);
    // Outside the tree, reached only through links inside it: followed by neither.
    mkdirSync(join(work, 'elsewhere'));
    writeFileSync(join(work, 'elsewhere', '.env'), 'SECRET=1\n');
    symlinkSync(join(work, 'elsewhere'), join(real, 'linked-dir'));
    symlinkSync(join(work, 'elsewhere', '.env'), join(real, 'linked.env'));
    link = join(work, 'link-to-project');
    symlinkSync(real, link);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('a root given as a link is the folder it points to; links inside are listed as skipped', async () => {
    const viaLink = await listLocalTree(link);
    const direct = await listLocalTree(real);
    assert.equal(viaLink.root, realpathSync(real));
    assert.deepEqual(viaLink.files, direct.files);
    assert.deepEqual(
      viaLink.files.map((f) => f.rel),
      ['.env', 'node_modules/pkg/index.js', 'src/conf.py', 'train.py'],
    );
    assert.deepEqual(
      [...viaLink.skipped].sort((a, b) => (a.name < b.name ? -1 : 1)),
      [
        { name: 'linked-dir', reason: 'local-link' },
        { name: 'linked.env', reason: 'local-link' },
      ],
    );
  });

  it('the scan checks every listed file: names everywhere, content where the rules read it', async () => {
    const tree = await listLocalTree(link);
    const r = await scanTree(tree.files);
    assert.deepEqual(
      r.findings.map((f) => [f.path, f.kind]),
      [
        ['.env', 'dotenv'],
        ['src/conf.py', 'huggingFaceToken'],
      ],
    );
    assert.equal(r.files, 4);
    assert.equal(r.contentFiles, 3, 'node_modules is checked by name only');
    assert.equal(r.truncated, null);
    assert.equal(r.unscanned, 0);
    // The folder scan resolves a linked root the same way (it used to see a link and stop).
    const folder = await scanSecrets(link);
    assert.deepEqual(
      folder.findings.map((f) => [f.path, f.kind]),
      r.findings.map((f) => [f.path, f.kind]),
    );
  });

  it('name-only rules by path: generated folders and git object stores', () => {
    assert.equal(listedFileRule('a/b.py'), 'content');
    assert.equal(listedFileRule('node_modules/x/y.js'), 'name');
    assert.equal(listedFileRule('sub/.venv/lib/z.py'), 'name');
    assert.equal(listedFileRule('.git/config'), 'content');
    assert.equal(listedFileRule('.git/objects/ab/cdef'), 'name');
    assert.equal(listedFileRule('.git/index'), 'name');
    assert.equal(listedFileRule('.git/hooks/pre-commit'), 'content');
  });

  it('a cap stops the content reads, not the name checks, and counts what was not read', async () => {
    const dir = join(work, 'big');
    mkdirSync(dir);
    for (const n of ['a', 'b', 'c']) writeFileSync(join(dir, `${n}.txt`), 'x'.repeat(600 * 1024));
    writeFileSync(join(dir, 'd-config.py'), `token = "${HF}"\n`);
    writeFileSync(join(dir, 'e'), '');
    mkdirSync(join(dir, 'keys'));
    writeFileSync(join(dir, 'keys', 'id_ed25519'), 'k');
    const tree = await listLocalTree(dir);
    const r = await scanTree(tree.files, { maxBytes: 1024 * 1024 });
    assert.deepEqual(r.truncated, { reason: 'maxBytes', filesSeen: 1, limit: 1024 * 1024 });
    assert.equal(r.contentFiles, 1);
    assert.equal(r.unscanned, 5, 'b, c, d-config.py, e and keys/id_ed25519 were not read');
    assert.deepEqual(
      r.findings.map((f) => [f.path, f.kind]),
      [['keys/id_ed25519', 'sshKeyFile']],
      'the token in d-config.py was past the cap; the key file is caught by name',
    );
    const all = await scanTree(tree.files);
    assert.ok(all.findings.some((f) => f.path === 'd-config.py' && f.kind === 'huggingFaceToken'));
    const files = await scanTree(tree.files, { maxFiles: 2 });
    assert.equal(files.truncated?.reason, 'maxFiles');
    assert.equal(files.contentFiles, 2);
  });

  it('pushFolder stops before contacting the box: secrets through a linked root, a cut-off scan unless allowed', async () => {
    const found = await pushFolder(untouchable, { localDir: link, remoteDir: '/tmp/x' });
    assert.equal(found.kind, 'secrets-found');
    assert.deepEqual(found.kind === 'secrets-found' && found.findings.map((f) => f.path), ['.env', 'src/conf.py']);
    // Without the flagged files, nothing is flagged, so it goes on to the box (which refuses here).
    await assert.rejects(pushFolder(untouchable, { localDir: link, remoteDir: '/tmp/x', exclude: ['.env', 'src/conf.py'] }), /the box was contacted/);
    const dir = join(work, 'cut');
    mkdirSync(dir);
    for (const n of ['a', 'b']) writeFileSync(join(dir, `${n}.txt`), 'y'.repeat(600 * 1024));
    const cut = await pushFolder(untouchable, { localDir: dir, remoteDir: '/tmp/x', scanLimits: { maxBytes: 1024 * 1024 } });
    assert.equal(cut.kind, 'scan-incomplete');
    assert.equal(cut.kind === 'scan-incomplete' && cut.scan.unscanned, 1);
    await assert.rejects(pushFolder(untouchable, { localDir: dir, remoteDir: '/tmp/x', scanLimits: { maxBytes: 1024 * 1024 }, allowUnscanned: true }), /the box was contacted/);
  });
});

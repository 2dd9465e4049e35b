// A pull never replaces a local file the user changed (real sshd): a file edited after the
// last sync, or one sync never wrote, stays as it is and the box's version is saved beside it
// as "NAME (box copy DATE).EXT", once per version; a file unchanged since the sync (or only
// touched) is updated as before; a file edited or created while the pass runs is kept too;
// `gpu-rent sync --force` replaces, and the CLI's text and --json say what was kept.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { syncRemote } from '../../src/app/sync';
import type { RemoteConnection } from '../../src/remote/connection';
import { releaseGuard } from '../../src/remote/guards/release-guard';
import { syncOnce, type SyncOptions } from '../../src/remote/sync';
import { syncOutcomeOf } from '../../src/app/runs/endAction';
import { CLI, runCli } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo } from './remote-helpers';

const Y2020 = Date.UTC(2020, 2, 1, 12) / 1000;
const OLD = Math.floor(Date.now() / 1000) - 3600;
const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

describe('sync keeps local files the user changed (real sshd)', function () {
  this.timeout(120_000);
  let sshd: TestSshd;
  let conn: RemoteConnection;
  let work: string;
  let remoteDir: string;
  let localDir: string;
  let uid = 0;
  let gid = 0;

  before(async () => {
    sshd = await startSshd();
    uid = statSync(sshd.home).uid;
    gid = statSync(sshd.home).gid;
    work = mkdtempSync(join(tmpdir(), 'sync-edits-'));
    conn = connectionTo(sshd, join(work, 'known_hosts'));
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });
  beforeEach(() => {
    remoteDir = join(sshd.home, `ckpt-${randomBytes(3).toString('hex')}`);
    mkdirSync(remoteDir);
    chownSync(remoteDir, uid, gid);
    localDir = mkdtempSync(join(work, 'local-'));
  });
  afterEach(() => {
    rmSync(remoteDir, { recursive: true, force: true });
    rmSync(localDir, { recursive: true, force: true });
  });

  function put(rel: string, content: Buffer | string, mtime = OLD): void {
    const path = join(remoteDir, rel);
    mkdirSync(dirname(path), { recursive: true });
    chownSync(dirname(path), uid, gid);
    writeFileSync(path, content);
    chownSync(path, uid, gid);
    utimesSync(path, mtime, mtime);
  }
  const local = (rel: string) => join(localDir, rel);
  const box = (rel: string) => readFileSync(join(remoteDir, rel));
  const sync = (extra: Partial<SyncOptions> = {}) => syncOnce(syncRemote(conn), { remoteDir, localDir, settleSeconds: 0, source: 'test', ...extra });
  const mtimeOf = (path: string) => Math.floor(statSync(path).mtimeMs / 1000);

  for (const [label, size] of [
    ['a small file', 100],
    ['a big file (5 MiB)', 5 * 1024 * 1024],
  ] as const) {
    it(`${label} edited after the sync is kept; the box's new version is saved beside it, once per version`, async () => {
      put('notes.md', randomBytes(size));
      assert.deepEqual((await sync()).pulled, ['notes.md']);
      const mine = Buffer.from('my own notes, written after the sync\n');
      writeFileSync(local('notes.md'), mine);
      put('notes.md', randomBytes(size), OLD + 60);

      const r = await sync();
      const copy = `notes (box copy ${day(OLD + 60)}).md`;
      assert.deepEqual(r.kept, [{ name: 'notes.md', boxCopy: copy }]);
      assert.deepEqual(r.pulled, []);
      assert.ok(readFileSync(local('notes.md')).equals(mine), 'the local edit was replaced');
      assert.ok(readFileSync(local(copy)).equals(box('notes.md')), 'the box copy is not the box version');
      assert.equal(mtimeOf(local(copy)), OLD + 60);

      // Nothing new on the box: no second copy, nothing pulled.
      const again = await sync();
      assert.deepEqual(again.kept, []);
      assert.equal(again.keptEarlier, 1);
      assert.equal(again.bytes, 0);
      // A newer version on the box the same day: a second copy beside, the first one untouched.
      put('notes.md', randomBytes(size), OLD + 120);
      const third = await sync();
      const copy2 = `notes (box copy ${day(OLD + 120)}${day(OLD + 120) === day(OLD + 60) ? ', 2' : ''}).md`;
      assert.deepEqual(third.kept, [{ name: 'notes.md', boxCopy: copy2 }]);
      assert.ok(readFileSync(local(copy2)).equals(box('notes.md')));
      assert.ok(readFileSync(local('notes.md')).equals(mine));
      assert.deepEqual(readdirSync(localDir).filter((n) => n.endsWith('.part')), []);
    });
  }

  it("a local file sync never wrote, newer than the box's 2020 copy, is kept; the 2020 copy goes beside it", async () => {
    put('notes.md', 'the box copy from 2020\n', Y2020);
    put('other.txt', 'unrelated');
    writeFileSync(local('notes.md'), 'written here today\n');
    const r = await sync();
    assert.deepEqual(r.pulled, ['other.txt']);
    assert.deepEqual(r.kept, [{ name: 'notes.md', boxCopy: 'notes (box copy 2020-03-01).md' }]);
    assert.equal(readFileSync(local('notes.md'), 'utf8'), 'written here today\n');
    assert.equal(readFileSync(local('notes (box copy 2020-03-01).md'), 'utf8'), 'the box copy from 2020\n');
    // The saved copy is the box version's local copy: a release does not count it as lost.
    const risk = await releaseGuard(conn, remoteDir, localDir);
    assert.deepEqual(risk.atRisk, []);
  });

  it('a file unchanged since the sync, or only touched, is updated normally (no copy beside it)', async () => {
    put('a.pt', randomBytes(1000));
    put('b.pt', randomBytes(1000));
    put('c.pt', randomBytes(6 * 1024 * 1024));
    await sync();
    // b.pt and c.pt touched here (same bytes, a new mtime): still what sync wrote, by its SHA-256.
    const now = new Date();
    utimesSync(local('b.pt'), now, now);
    utimesSync(local('c.pt'), now, now);
    for (const [n, s] of [['a.pt', 1000], ['b.pt', 1000], ['c.pt', 6 * 1024 * 1024]] as const) put(n, randomBytes(s), OLD + 60);
    const r = await sync();
    assert.deepEqual(r.pulled, ['a.pt', 'b.pt', 'c.pt']);
    assert.deepEqual(r.kept, []);
    for (const n of ['a.pt', 'b.pt', 'c.pt']) assert.ok(readFileSync(local(n)).equals(box(n)), n);
    // No copy beside them; the earlier versions went to the hidden .gpu-rent-previous/.
    assert.deepEqual(readdirSync(localDir).sort(), ['.gpu-rent-previous', '.gpu-rent-sync.json', 'a.pt', 'b.pt', 'c.pt']);
    assert.deepEqual(r.replaced.map((k) => k.name), ['a.pt', 'b.pt', 'c.pt']);
  });

  for (const [label, source] of [
    ['the same source', 'test'],
    ['a new source (the same box on a new port, or the launch\'s sync after the extension\'s)', 'test-new-port'],
  ] as const) {
    it(`a rerun on the same box, ${label}: a checkpoint sync wrote and nobody changed is replaced by the box's newer one, the old kept in .gpu-rent-previous/; a file changed here is kept and the box's set aside; both named at the end`, async () => {
      const v1 = randomBytes(5 * 1024 * 1024);
      put('checkpoint-10/adapter_model.bin', v1);
      put('checkpoint-10/trainer_state.json', '{"global_step": 10}');
      put('notes.md', 'notes v1');
      const first = await sync();
      assert.equal(first.files, 3);
      writeFileSync(local('notes.md'), 'my notes, edited here');
      // The rerun writes the same names again.
      put('checkpoint-10/adapter_model.bin', randomBytes(5 * 1024 * 1024), OLD + 60);
      put('checkpoint-10/trainer_state.json', '{"global_step": 10, "run": 2}', OLD + 60);
      put('notes.md', 'notes v2 from the box', OLD + 60);
      const r = await sync({ source });
      // Home is the box's new version, never "adapter_model (box copy …).bin" beside a stale one.
      assert.ok(readFileSync(local('checkpoint-10/adapter_model.bin')).equals(box('checkpoint-10/adapter_model.bin')));
      assert.equal(readFileSync(local('checkpoint-10/trainer_state.json'), 'utf8'), '{"global_step": 10, "run": 2}');
      assert.deepEqual(readdirSync(local('checkpoint-10')).sort(), ['adapter_model.bin', 'trainer_state.json']);
      assert.ok(readFileSync(local('.gpu-rent-previous/checkpoint-10/adapter_model.bin')).equals(v1), 'the earlier version kept aside');
      assert.deepEqual(r.replaced, [
        { name: 'checkpoint-10/adapter_model.bin', previous: '.gpu-rent-previous/checkpoint-10/adapter_model.bin' },
        { name: 'checkpoint-10/trainer_state.json', previous: '.gpu-rent-previous/checkpoint-10/trainer_state.json' },
      ]);
      // Only the file changed here is kept; the box's version set aside.
      assert.equal(readFileSync(local('notes.md'), 'utf8'), 'my notes, edited here');
      assert.deepEqual(r.kept, [{ name: 'notes.md', boxCopy: `notes (box copy ${day(OLD + 60)}).md` }]);
      // Named at the end, for both front ends (the end action's and the launch's line), not "all verified".
      const out = syncOutcomeOf(r);
      assert.ok(out.ok);
      assert.doesNotMatch(out.detail, /all verified/);
      assert.match(out.detail, /kept 1 file\(s\) changed here, the box's version saved beside: "notes\.md" \(box's: "notes \(box copy [\d-]+\)\.md"\)/);
      assert.match(out.detail, /replaced 2 earlier synced file\(s\) with the box's newer version, the earlier kept in \.gpu-rent-previous\/: "checkpoint-10\/adapter_model\.bin", "checkpoint-10\/trainer_state\.json"/);
      // A third pass with nothing new says nothing of the kind.
      const again = await sync({ source });
      assert.deepEqual(again.replaced, []);
      assert.match(syncOutcomeOf(again).detail, /all verified$/);
      // The box's listing never brings a .gpu-rent-previous of its own.
      put('.gpu-rent-previous/x.bin', 'from the box');
      const hostile = await sync({ source });
      assert.deepEqual(hostile.pulled, []);
      assert.equal(existsSync(local('.gpu-rent-previous/x.bin')), false);
    });
  }

  it('a file edited, or a new one created, while the pass runs is kept, not replaced', async () => {
    put('edited.md', 'v1');
    await sync();
    put('edited.md', 'version two from the box', OLD + 60);
    // Many new small files: they come down in a tar stream, published only where nothing is.
    for (let i = 0; i < 40; i++) put(`new/f${String(i).padStart(2, '0')}.bin`, randomBytes(500));
    const r = await syncOnce(syncRemote(conn), { remoteDir, localDir, settleSeconds: 0, source: 'test' }, (p) => {
      if (p.kind !== 'listed') return;
      // After the plan, before any file lands.
      writeFileSync(local('edited.md'), 'edited while the pass ran');
      mkdirSync(local('new'), { recursive: true });
      writeFileSync(local('new/f07.bin'), 'created here while the pass ran');
    });
    const d = day(OLD + 60);
    assert.deepEqual(r.kept, [
      { name: 'edited.md', boxCopy: `edited (box copy ${d}).md` },
      { name: 'new/f07.bin', boxCopy: `new/f07 (box copy ${day(OLD)}).bin` },
    ]);
    assert.equal(r.files, 39);
    assert.equal(readFileSync(local('edited.md'), 'utf8'), 'edited while the pass ran');
    assert.equal(readFileSync(local('new/f07.bin'), 'utf8'), 'created here while the pass ran');
    assert.ok(readFileSync(local(`edited (box copy ${d}).md`)).equals(box('edited.md')));
    assert.ok(readFileSync(local(`new/f07 (box copy ${day(OLD)}).bin`)).equals(box('new/f07.bin')));
    for (const n of r.pulled) assert.ok(readFileSync(local(n)).equals(box(n)), n);
  });

  it('gpu-rent sync says what it kept (text and --json); --force replaces', () => {
    if (!existsSync(CLI)) throw new Error('run "npm run build" first');
    const home = mkdtempSync(join(work, 'home-'));
    const env = { HOME: home, GPU_RENT_HOME: join(home, '.gpu-rent'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' };
    const args = ['sync', `ssh://${sshd.user}@127.0.0.1:${sshd.port}`, '--identity', sshd.privateKeyPath, '--accept-new', '--remote', remoteDir, '--local', localDir, '--settle', '0'];
    put('notes.md', 'box, 2020\n', Y2020);
    writeFileSync(local('notes.md'), 'mine\n');
    const text = runCli(args, { env });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^kept notes\.md: changed here since the last sync; the box's version is saved beside it as notes \(box copy 2020-03-01\)\.md \(--force replaces\)$/m);
    assert.match(text.stdout, /^pulled 0 files, .*; 1 local file kept$/m);
    assert.doesNotMatch(text.stdout, /^pulled notes\.md/m);
    put('notes.md', 'box, 2020, again\n', Y2020 + 5);
    const json = JSON.parse(runCli([...args, '--json'], { env }).stdout) as { files: number; kept: unknown };
    assert.deepEqual(json.kept, [{ name: 'notes.md', boxCopy: 'notes (box copy 2020-03-01, 2).md' }]);
    assert.equal(readFileSync(local('notes.md'), 'utf8'), 'mine\n');
    const forced = JSON.parse(runCli([...args, '--json', '--force'], { env }).stdout) as { files: number; kept: unknown };
    assert.deepEqual(forced.kept, []);
    assert.equal(forced.files, 1);
    assert.equal(readFileSync(local('notes.md'), 'utf8'), 'box, 2020, again\n');
    rmSync(home, { recursive: true, force: true });
  });
});

// Issue 41 bug 4: the release guard reads the folders the launch and the sync watches use (a
// launch's `~/gpu-rent/<task>/ckpt`, found from its state and task file), not a default nothing
// writes to; a folder the login may not read is named ("cannot read"), apart from a box that
// cannot be reached ("cannot reach"). Real sshd, real files, a real launch state file.
import { strict as assert } from 'node:assert';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRelease, launchFoldersOf, releaseFolders, unsyncedEntries } from '../../src/app/releaseCheck';
import { statePath, writeState } from '../../src/app/launch/store';
import { newLaunchState } from '../../src/core/task/launch';
import { createInstance, type Instance } from '../../src/core/instances';
import type { RemoteConnection } from '../../src/remote/connection';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo } from './remote-helpers';
import { syncOnce } from '../../src/remote/sync';
import { syncRemote } from '../../src/app/sync';

describe('release check: the folders the launch and the sync use (issue 41 bug 4, real sshd)', function () {
  this.timeout(120_000);
  let sshd: TestSshd;
  let conn: RemoteConnection;
  let work: string;
  let inst: Instance;

  before(async () => {
    sshd = await startSshd();
    work = mkdtempSync(join(tmpdir(), 'release-check-'));
    conn = connectionTo(sshd, join(work, 'known_hosts'));
    const { uid, gid } = statSync(sshd.home);
    // What the launch wrote on the box: ~/gpu-rent/lora-pro/ckpt with checkpoint-30 (synced) and checkpoint-40 (not yet).
    const ck = join(sshd.home, 'gpu-rent', 'lora-pro', 'ckpt');
    for (const d of [join(sshd.home, 'gpu-rent'), join(sshd.home, 'gpu-rent', 'lora-pro'), ck, join(ck, 'checkpoint-30'), join(ck, 'checkpoint-40')]) {
      mkdirSync(d, { recursive: true });
      chownSync(d, uid, gid);
    }
    for (const n of ['checkpoint-30', 'checkpoint-40']) {
      const f = join(ck, n, 'adapter_model.bin');
      writeFileSync(f, `weights of ${n}`);
      chownSync(f, uid, gid);
      utimesSync(f, 1_700_000_000, 1_700_000_000);
    }
    // A log the trainer writes every step, not synced either: at risk, but not a checkpoint.
    writeFileSync(join(ck, 'trainer_log.jsonl'), '{"loss": 2.05}\n');
    chownSync(join(ck, 'trainer_log.jsonl'), uid, gid);
    // A folder this (non-root) login may not read: a root-owned 0700 one, as /root/autodl-tmp is to a non-root login.
    mkdirSync(join(sshd.home, 'locked', 'checkpoints'), { recursive: true });
    chownSync(join(sshd.home, 'locked'), 0, 0);
    chmodSync(join(sshd.home, 'locked'), 0o700);
    // The launch's task file and its local checkpoints copy (checkpoint-30 came home).
    const project = join(work, 'project');
    mkdirSync(join(project, 'ckpt-home', 'checkpoint-30'), { recursive: true });
    const home = join(project, 'ckpt-home', 'checkpoint-30', 'adapter_model.bin');
    writeFileSync(home, 'weights of checkpoint-30');
    utimesSync(home, 1_700_000_000, 1_700_000_000);
    const file = join(project, 'gpu-rent.yaml');
    writeFileSync(file, ['name: lora-pro', 'resources: {cards: [4090], gpus: 1}', 'instance: autodl:acc1/i-1', 'run: python3 train.py', 'checkpoints: {remote: ckpt, local: ./ckpt-home}', ''].join('\n'));
    const state = newLaunchState({ task: 'lora-pro', file, taskDigest: 'x', smoke: false, now: 1000 });
    state.box = { candidate: 0, kind: 'platform', label: 'AutoDL i-1', account: 'acc1', ref: 'i-1', priceFenPerHour: 198, spot: false, acquiredAt: 1000 };
    await writeState(statePath(join(work, 'config'), file, 'lora-pro'), state);
    // An unrelated launch on another box: its folder is not this instance's.
    const other = newLaunchState({ task: 'lora-pro', file: join(work, 'elsewhere', 'gpu-rent.yaml'), taskDigest: 'x', smoke: false, now: 1000 });
    other.box = { candidate: 0, kind: 'platform', label: 'AutoDL i-2', account: 'acc1', ref: 'i-2', priceFenPerHour: 198, spot: false, acquiredAt: 1000 };
    await writeState(statePath(join(work, 'config'), join(work, 'elsewhere', 'gpu-rent.yaml'), 'lora-pro'), other);
    const base = createInstance({ name: 'pro', host: sshd.host, port: sshd.port, user: sshd.user, platform: 'autodl', pricing: { hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 0 } } as never, 'running', 0);
    inst = { ...base, platformRef: { account: 'acc1', ref: 'i-1' } };
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("checks the launch's ~/gpu-rent/lora-pro/ckpt against its task's local folder: checkpoint-40 is unsynced, checkpoint-30 is home", async () => {
    const launch = await launchFoldersOf(inst, join(work, 'config'));
    assert.deepEqual(
      launch.map((f) => [f.remoteDir, f.localDir, f.source, f.task]),
      [['~/gpu-rent/lora-pro/ckpt', join(work, 'project', 'ckpt-home'), 'launch', 'lora-pro']],
    );
    // The settings' default is not checked once the launch's folder is known (it was before: /root/autodl-tmp/checkpoints).
    const folders = releaseFolders(launch, { remoteDir: '/root/autodl-tmp/checkpoints', localDir: join(work, 'default'), chosen: false });
    assert.deepEqual(folders.map((f) => f.remoteDir), ['~/gpu-rent/lora-pro/ckpt']);
    const check = await checkRelease(async () => conn, folders);
    assert.equal(check.kind, 'checked');
    if (check.kind !== 'checked') return;
    assert.deepEqual(check.risk.files.map((f) => f.rel).sort(), ['checkpoint-40/adapter_model.bin', 'trainer_log.jsonl']);
    assert.deepEqual(check.unreadable, []);
    // The second question names the checkpoint (core/checkpoints), never the log.
    assert.deepEqual(unsyncedEntries(check), ['checkpoint-40']);
  });

  it('a folder the login may not read is named as unreadable (Permission denied), the others still compared; not "could not be reached"', async () => {
    const folders = releaseFolders(await launchFoldersOf(inst, join(work, 'config')), { remoteDir: join(sshd.home, 'locked', 'checkpoints'), localDir: join(work, 'chosen'), chosen: true });
    assert.equal(folders.length, 2);
    const check = await checkRelease(async () => conn, folders);
    assert.equal(check.kind, 'checked');
    if (check.kind !== 'checked') return;
    assert.equal(check.unreadable.length, 1);
    assert.equal(check.unreadable[0]!.remoteDir, join(sshd.home, 'locked', 'checkpoints'));
    assert.match(check.unreadable[0]!.detail, /cannot be read.*[Pp]ermission denied/);
    assert.deepEqual(check.risk.files.map((f) => f.rel).sort(), ['~/gpu-rent/lora-pro/ckpt/checkpoint-40/adapter_model.bin', '~/gpu-rent/lora-pro/ckpt/trainer_log.jsonl']);
    assert.deepEqual(unsyncedEntries(check), ['~/gpu-rent/lora-pro/ckpt/checkpoint-40']);
  });

  it('a box that cannot be connected to is "unreachable", with the cause', async () => {
    const check = await checkRelease(async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:1');
    }, [{ remoteDir: '~/x', localDir: undefined, source: 'default' }]);
    assert.deepEqual(check, { kind: 'unreachable', detail: 'connect ECONNREFUSED 127.0.0.1:1' });
  });

  it('Sync First pulls the launch’s ~/… folder into its task’s local folder; the check then finds nothing unsynced', async () => {
    const [folder] = await launchFoldersOf(inst, join(work, 'config'));
    const r = await syncOnce(syncRemote(conn), { remoteDir: folder!.remoteDir, localDir: folder!.localDir!, durable: true });
    assert.ok(r.files >= 2, `pulled ${r.files}`);
    const again = await checkRelease(async () => conn, [folder!]);
    assert.equal(again.kind, 'checked');
    if (again.kind === 'checked') assert.deepEqual(again.risk.files, []);
  });
});

// Issue 41 bug 4 with deliver 1: what the release asks about a second time is decided by the one
// notion of a checkpoint (core/checkpoints): a task's own pattern, the common layouts otherwise,
// never a log; and the folders a launch resolves on the box.
import { strict as assert } from 'node:assert';
import { releaseFolders, taskCheckpointDir, unsyncedEntries, boxIsInstance, type CheckFolder } from '../../src/app/releaseCheck';

const check = (folders: CheckFolder[], rels: string[]) => ({ kind: 'checked' as const, folders, unreadable: [], risk: { remoteDir: '', files: rels.map((rel) => ({ rel, size: 1, reason: 'missing' as const })), bytes: rels.length, unlisted: 0 } });

describe('release check: folders and unsynced checkpoints (issue 41 bug 4)', () => {
  it('the launch’s folder as the launch resolves it', () => {
    assert.equal(taskCheckpointDir('~/gpu-rent/lora-pro', 'ckpt'), '~/gpu-rent/lora-pro/ckpt');
    assert.equal(taskCheckpointDir('/root/autodl-tmp/work', 'out'), '/root/autodl-tmp/work/out');
    assert.equal(taskCheckpointDir('~/gpu-rent/x', '/data/ckpt'), '/data/ckpt');
    assert.equal(taskCheckpointDir('~/gpu-rent/x', '~/ck'), '~/ck');
  });
  it('the settings’ default only when neither a launch nor a chosen sync folder is known', () => {
    const launch: CheckFolder = { remoteDir: '~/gpu-rent/a/ckpt', localDir: '/p/ck', source: 'launch', task: 'a' };
    assert.deepEqual(releaseFolders([launch], { remoteDir: '/root/autodl-tmp/checkpoints', localDir: '/p/d', chosen: false }).map((f) => f.source), ['launch']);
    assert.deepEqual(releaseFolders([launch], { remoteDir: '/root/autodl-tmp/ck', localDir: '/p/d', chosen: true }).map((f) => f.source), ['launch', 'sync']);
    assert.deepEqual(releaseFolders([], { remoteDir: '/root/autodl-tmp/checkpoints', localDir: '/p/d', chosen: false }).map((f) => f.source), ['default']);
    assert.equal(releaseFolders([launch, { ...launch, task: 'b' }], { remoteDir: '~/gpu-rent/a/ckpt/', localDir: '/p/d', chosen: true }).length, 1, 'one entry per box folder');
  });
  it('checkpoints by the common layouts, never a log or a half-written .tmp name; a task pattern decides where given', () => {
    const one = (rels: string[], patterns?: string[]) => unsyncedEntries(check([{ remoteDir: '~/c', localDir: undefined, source: 'launch', ...(patterns ? { patterns } : {}) }], rels));
    assert.deepEqual(one(['checkpoint-40/adapter_model.bin', 'trainer_log.jsonl', 'checkpoint-30/trainer_state.json']), ['checkpoint-40', 'checkpoint-30']);
    assert.deepEqual(one(['trainer_log.jsonl', 'runs/events.out.tfevents.1']), [], 'logs only: no second question');
    assert.deepEqual(one(['weights/last.pt', 'notes.bin'], ['weights/*.pt']), ['weights/last.pt']);
  });
  it('a launch box is this instance by its platform account and id, or its very SSH login', () => {
    const inst = { platformRef: { account: 'acc1', ref: 'i-1' }, login: { host: 'h', port: 22, user: 'root' } } as never;
    assert.ok(boxIsInstance({ kind: 'platform', label: 'x', account: 'acc1', ref: 'i-1' }, inst));
    assert.ok(!boxIsInstance({ kind: 'platform', label: 'x', account: 'acc1', ref: 'i-2' }, inst));
    assert.ok(boxIsInstance({ kind: 'platform', label: 'x', account: 'autodl-pro', ref: 'i-1' }, inst), 'a CLI launch naming the account by its env id');
    assert.ok(boxIsInstance({ kind: 'ssh', label: 'root@h:22' }, inst));
    assert.ok(!boxIsInstance({ kind: 'ssh', label: 'root@h:2222' }, inst));
  });
});

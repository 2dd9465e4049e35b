// A launch's end as ledger facts (core/ledger/launch.ts): from a launch state as the driver keeps
// it, plus what the driver holds at the end; no job, no record.
import assert from 'node:assert/strict';
import { launchRunFacts } from '../../src/core/ledger/launch';
import { buildRecord } from '../../src/core/ledger/record';
import { LaunchStateSchema, type LaunchState } from '../../src/core/task/launch';

const T0 = 1_780_000_000;
const state = (over: Partial<LaunchState> = {}): LaunchState =>
  LaunchStateSchema.parse({
    version: 1, task: 'lora', file: '/work/p/gpu-rent.yaml', taskDigest: 'd', smoke: false, phase: 'done', startedAt: T0 - 300, updatedAt: T0 + 3600,
    box: { candidate: 0, kind: 'ssh', label: 'root@127.0.0.1:2222', priceFenPerHour: 198, spot: false, acquiredAt: T0 - 300 },
    boxes: [], recoveries: 0, job: { name: 'lora', startedAt: T0, attempt: 1 }, setupDone: true,
    lastSync: { at: T0 + 3590, files: 3, bytes: 100, checkpoint: '/root/out/checkpoint-1800' },
    progress: { step: 1800, total: 1800, etaSeconds: null, costToFinishFen: null, loss: 0.42, final: true },
    outcome: { kind: 'finished', detail: '', exitCode: 0 },
    events: [],
    ...over,
  });

describe('ledger: a launch run', () => {
  it('a finished launch: the record has the task, box, price, steps, loss, checkpoint and the extras', () => {
    const f = launchRunFacts(state(), { kind: 'sweep', card: 'rtx4090', params: { lr: 3e-4, rank: 16 }, commit: 'abc123', lossCurve: [{ step: 1, loss: 2 }, { step: 1800, loss: 0.42 }], costFen: 198, checkpointsLocal: '/work/p/ck' })!;
    const r = buildRecord(f, 'abcd');
    assert.equal(r.kind, 'sweep');
    assert.equal(r.name, 'lora');
    assert.deepEqual(r.task, { file: '/work/p/gpu-rent.yaml', command: null, params: { lr: 3e-4, rank: 16 } });
    assert.equal(r.commit, 'abc123');
    assert.deepEqual(r.price, { fenPerHour: 198, source: 'user' });
    assert.equal(r.instance, 'root@127.0.0.1:2222');
    assert.equal(r.endedAt - r.startedAt, 3600);
    assert.equal(r.steps, 1800);
    assert.equal(r.stepsPerSecond, 0.5);
    assert.equal(r.finalLoss, 0.42);
    assert.deepEqual(r.end, { kind: 'finished', exitCode: 0, cause: null });
    assert.deepEqual(r.checkpoints, { box: '/root/out/checkpoint-1800', local: '/work/p/ck' });
    assert.equal(r.costFen, 198);
  });

  it('a launch staged without the GPU: the record keeps the staging minutes, its rate and what it saved; one not staged has none', () => {
    const staged = state({ box: { candidate: 0, kind: 'platform', label: 'stagebox', priceFenPerHour: 198, spot: false, acquiredAt: T0 - 10, staged: false, stage: { seconds: 1800.4, fenPerHour: 10 } } });
    const r = buildRecord(launchRunFacts(staged)!, 'abcd');
    assert.deepEqual(r.staging, { seconds: 1800, fenPerHour: 10, savedFen: 94 });
    assert.equal(buildRecord(launchRunFacts(state())!, 'abcd').staging, undefined);
  });

  it('budget, diverged and reclaimed ends; no job: nothing to record', () => {
    assert.equal(launchRunFacts(state({ outcome: { kind: 'budget', detail: '' } }))!.end.kind, 'budget');
    assert.deepEqual(launchRunFacts(state({ outcome: { kind: 'diverged', detail: '' } }))!.end, { kind: 'failed', exitCode: null, cause: 'diverged' });
    const box = { candidate: 0, kind: 'platform' as const, label: 'autodl 4090', priceFenPerHour: 198, spot: true, acquiredAt: T0, leftBecause: 'reclaimed' as const, leftAt: T0 + 10 };
    const reclaimed = launchRunFacts(state({ box, outcome: undefined, phase: 'failed' }))!;
    assert.equal(reclaimed.end.kind, 'reclaimed');
    assert.equal(reclaimed.price!.source, 'platform');
    assert.equal(launchRunFacts(state({ job: undefined, outcome: { kind: 'noBox', detail: '' } })), null);
  });
});

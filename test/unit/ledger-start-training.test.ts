// Start Training's end into the ledger (extension/services/ledger.ts, no vscode needed): the
// progress read from a real captured LLaMA-Factory log by core/progress, the instance's card,
// GPUs and price, the end report; written to a real folder and read back as `gpu-rent runs` does.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRuns } from '../../src/app/ledger';
import { progressOf } from '../../src/core/progress';
import { recordStartTraining, setLedgerHome } from '../../src/extension/services/ledger';
import type { Instance, JobRef } from '../../src/core/instances';

const LOG = join(__dirname, '..', 'fixtures', 'training-logs', 'llamafactory.log');

describe('Start Training records its run in the ledger', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'gpu-rent-ledger-ext-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a run read from a real LLaMA-Factory log: steps, total, speed, final loss, card id, price and cost', async () => {
    const T0 = 1_780_000_000;
    const progress = progressOf(readFileSync(LOG, 'utf8'), T0 + 600);
    const inst = { id: 'i1', name: 'autodl-4090', platform: 'autodl', card: 'RTX 4090', gpuCount: 1, pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 0, dataDiskGb: 0 }, platformRef: { account: 'a', ref: 'r' }, sync: { remoteDir: '/root/autodl-tmp/out', localDir: '/home/me/ck' } } as unknown as Instance;
    const job: JobRef = { id: 'lora', command: 'llamafactory-cli train lora.yaml', startedAt: T0, endedAt: T0 + 1800, exitCode: 0 };
    setLedgerHome(dir);
    const id = await recordStartTraining(inst, job, { jobId: 'lora', exitCode: 0, stopped: false, durationSeconds: 1800, costFen: 99, lastLines: [], cause: null }, progress, T0 + 2000);
    const { runs, skipped } = await readRuns(dir);
    assert.deepEqual(skipped, []);
    assert.equal(runs.length, 1);
    const r = runs[0]!;
    assert.equal(r.id, id);
    assert.equal(r.kind, 'start-training');
    assert.equal(r.card, 'rtx4090');
    assert.equal(r.steps, 50);
    assert.equal(r.total, 186);
    assert.equal(r.stepsPerSecond, progress.rate);
    assert.equal(r.finalLoss, 1.2207);
    assert.equal(r.curve.length, progress.lossCurve.length);
    assert.deepEqual(r.price, { fenPerHour: 198, source: 'platform' });
    assert.equal(r.costFen, 99);
    assert.equal(r.endedAt - r.startedAt, 1800);
    assert.deepEqual(r.checkpoints, { box: '/root/autodl-tmp/out', local: '/home/me/ck' });
    assert.deepEqual(r.end, { kind: 'finished', exitCode: 0, cause: null });
  });
});

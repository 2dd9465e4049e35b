// The rows under an instance in the Instances view (src/extension/view/instanceRows.ts), with a
// plain formatter standing in for vscode.l10n. The GPU rows come from a real nvidia-smi capture
// (test/fixtures/nvidia-smi-real/, provenance in its SOURCES.json) read by the smi parser; the
// expected figures are the capture's own (1071MiB / 11439MiB, 30 % and 36 %), written out here.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInstance, type Instance } from '../../src/core/instances';
import { parseNvidiaSmi } from '../../src/core/smi';
import { RunWatch } from '../../src/app/runs/watch';
import type { L10n } from '../../src/extension/view/present';
import { detailRows } from '../../src/extension/view/instanceRows';
import { LiveGpus } from '../../src/app/runs/liveGpus';
import { parseGpuLine } from '../../src/core/progress/gpu';

const l10n: L10n = { t: (m, ...a) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };
const T0 = 1_780_000_000;
const MIB = 1024 * 1024;
const base = (over: Partial<Instance> = {}): Instance => ({
  ...createInstance({ id: 'i1', name: 'box', platform: 'autodl', card: 'Tesla K40m', gpuCount: 2, login: { host: 'h', port: 22, user: 'root', auth: 'agent' }, pricing: { billingMode: 'hour', hourlyRate: 200, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 24 } }, 'running', T0),
  ...over,
});
const facts = (watching = false) => ({ now: T0 + 125, runs: new RunWatch(), watching });

describe('instance rows (view/instanceRows)', () => {
  it('a GPU row per GPU of a real two-K40m nvidia-smi: memory in GiB, utilisation, the probe age', () => {
    const smi = parseNvidiaSmi(readFileSync(join(__dirname, '..', 'fixtures', 'nvidia-smi-real', 'k40m_x2_driver375.66_smi_no-cuda-version.txt'), 'utf8'));
    assert.ok(smi.ok);
    const gpus = smi.report.gpus.map((g, i) => ({ index: g.index ?? i, name: g.name ?? '?', ...(g.memoryTotalMiB !== null ? { memoryTotalBytes: g.memoryTotalMiB * MIB } : {}), ...(g.memoryUsedMiB !== null ? { memoryUsedBytes: g.memoryUsedMiB * MIB } : {}), ...(g.utilizationGpuPct !== null ? { utilizationPct: g.utilizationGpuPct } : {}) }));
    const rows = detailRows(base({ lastProbe: { at: T0, gpus } }), facts(), l10n);
    assert.deepEqual(
      rows.map((r) => [r.key, r.label, r.description, r.icon, r.tooltip, r.command]),
      [
        ['gpu:0', 'GPU 0: Tesla K40m', '1.0 / 11.2 GiB · 30% · 2m ago', 'circuit-board', 'Probed 2m ago', undefined],
        ['gpu:1', 'GPU 1: Tesla K40m', '1.0 / 11.2 GiB · 36% · 2m ago', 'circuit-board', 'Probed 2m ago', undefined],
      ],
    );
  });

  it('the GPU monitor’s reading, newer than the check, replaces its figure (the check’s 0 % while training runs at 95 %), live or with its age', () => {
    // The check saw an idle card; the monitor's stream (LiveGpus, fed by its nvidia-smi lines) sees the run.
    // The line below is synthetic, in the stream's csv,noheader,nounits shape (index, util, mem used, mem total, power, temp).
    const inst = base({ lastProbe: { at: T0, gpus: [{ index: 0, name: 'NVIDIA GeForce RTX 4090', memoryTotalBytes: 24564 * MIB, memoryUsedBytes: 1 * MIB, utilizationPct: 0 }] } });
    const live = new LiveGpus();
    const line = parseGpuLine('0, 95, 20480, 24564, 411.20, 71');
    assert.ok(line);
    live.record('i1', [{ ...line, t: T0 + 120 }]);
    const at = (now: number) => detailRows(inst, { now, runs: new RunWatch(), watching: false, live }, l10n)[0]!;
    assert.deepEqual([at(T0 + 125).description, at(T0 + 125).tooltip], ['20.0 / 24.0 GiB · 95% · live', 'From the GPU monitor 5s ago']);
    // The monitor closed a while ago: the reading says how old it is.
    assert.deepEqual([at(T0 + 720).description, at(T0 + 720).tooltip], ['20.0 / 24.0 GiB · 95% · 10m ago', 'From the GPU monitor 10m ago']);
    // A check after the monitor's reading wins again.
    const rechecked = detailRows({ ...inst, lastProbe: { ...inst.lastProbe!, at: T0 + 700 } }, { now: T0 + 705, runs: new RunWatch(), watching: false, live }, l10n)[0]!;
    assert.deepEqual([rechecked.description, rechecked.tooltip], ['0.0 / 24.0 GiB · 0% · live', 'Probed 5s ago']);
  });

  it('never checked, or checked with no GPU: one row whose click is Check GPU on the instance', () => {
    const never = detailRows(base(), facts(), l10n);
    assert.deepEqual(never, [{ key: 'gpu:none', label: 'Not checked yet', icon: 'question', command: { command: 'checkGpu', title: 'Check GPU', onRow: false } }]);
    const none = detailRows(base({ lastProbe: { at: T0, gpus: [] } }), facts(), l10n);
    assert.deepEqual([none[0]?.label, none[0]?.icon], ['No GPU visible in the last probe', 'warning']);
  });

  it('jobs: finished, exited with a code, running; each opens Jobs and Logs on its own row', () => {
    const jobs = [
      { id: 'job-a', command: 'python train.py', startedAt: T0 - 3600, state: 'exited' as const, exitCode: 0, endedAt: T0 + 65 },
      { id: 'job-b', command: 'python eval.py', startedAt: T0 - 60, state: 'exited' as const, exitCode: 3, endedAt: T0 + 5 },
      { id: 'job-c', command: 'torchrun main.py', startedAt: T0 - 600, state: 'running' as const },
    ];
    const rows = detailRows(base({ lastProbe: { at: T0, gpus: [] }, jobs }), facts(), l10n).slice(1);
    assert.deepEqual(
      rows.map((r) => [r.key, r.description, r.icon, r.tooltip, r.command?.command, r.command?.onRow]),
      [
        ['job:job-a', 'finished · python train.py', 'pass', 'python train.py\nended 1m ago', 'showJobs', true],
        ['job:job-b', 'exited with 3 · python eval.py', 'error', 'python eval.py\nended 2m ago', 'showJobs', true],
        ['job:job-c', 'running · torchrun main.py', 'run', 'torchrun main.py\nstarted 12m ago', 'showJobs', true],
      ],
    );
  });

  it('the checkpoints row: when synced, what is not copied yet, watching, the error', () => {
    const sync = { remoteDir: '/root/autodl-tmp/ckpt', localDir: '/home/me/ckpt', lastSyncAt: T0 + 5, unsynced: 3, lastError: 'Permission denied' };
    const [row] = detailRows(base({ lastProbe: { at: T0, gpus: [] }, sync }), facts(true), l10n).slice(1);
    assert.deepEqual(row, { key: 'sync', label: 'Checkpoints', description: 'synced 2m ago · 3 not yet copied · watching', icon: 'error', tooltip: '/root/autodl-tmp/ckpt → /home/me/ckpt\nPermission denied' });
    const [quiet] = detailRows(base({ lastProbe: { at: T0, gpus: [] }, sync: { remoteDir: '/r', localDir: '/l' } }), facts(false), l10n).slice(1);
    assert.deepEqual([quiet?.description, quiet?.icon], ['never synced', 'sync']);
  });
});

// The Instances view's row for a launch this window drives (src/extension/commands/launch/treeText.ts):
// the step it is at, the box, the training step and what it cost so far, from the launch state
// the app layer saves. A plain formatter stands in for vscode.l10n.
import { strict as assert } from 'node:assert';
import { newLaunchState, type LaunchState } from '../../src/core/task/launch';
import { launchRowText, outcomeLine, phaseWords } from '../../src/extension/view/launchRows';
import type { L10n } from '../../src/extension/view/present';
import { LAUNCH_STEPS } from '../../src/core/task/launch';

const l10n: L10n = { t: (m, ...a) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };
const T0 = 1_700_000_000;

function running(): LaunchState {
  const s = newLaunchState({ task: 'lora', file: '/repo/gpu-rent.yaml', taskDigest: 'x', smoke: false, now: T0 });
  return {
    ...s,
    phase: 'watch',
    box: { candidate: 0, kind: 'ssh', label: 'root@region-1.autodl.com:12345', priceFenPerHour: 198, spot: false, acquiredAt: T0 },
    progress: { step: 450, total: 1500, etaSeconds: 3600, costToFinishFen: 198, loss: 0.5 },
    events: [{ at: T0 + 10, phase: 'watch', text: 'watch: step 450/1500 · spent ¥0.99' }],
  };
}

describe('extension/view/launchRows', () => {
  it('a running launch: phase, box, step/total and the spend so far (30 min at ¥1.98/h = ¥0.99)', () => {
    const t = launchRowText(running(), T0 + 1800, l10n);
    assert.equal(t.label, 'lora');
    assert.equal(t.description, 'running · root@region-1.autodl.com:12345 · step 450/1500 · ¥0.99 spent');
    assert.equal(t.tooltip, '/repo/gpu-rent.yaml\nwatch: step 450/1500 · spent ¥0.99');
  });

  it('a smoke test getting its box: no box, no step, nothing spent; the recoveries counted once there are some', () => {
    const s = { ...newLaunchState({ task: 'lora', file: '/r/gpu-rent.yaml', taskDigest: 'x', smoke: true, now: T0 }), recoveries: 0 };
    assert.deepEqual(launchRowText(s, T0 + 5, l10n), { label: 'lora (smoke test)', description: 'getting a box · ¥0.00 spent', tooltip: '/r/gpu-rent.yaml' });
    const r = launchRowText({ ...running(), recoveries: 2, boxes: [{ candidate: 0, kind: 'ssh', label: 'a', priceFenPerHour: null, spot: true, acquiredAt: T0, leftAt: T0 + 60, leftBecause: 'reclaimed' }] }, T0 + 1800, l10n);
    assert.match(r.description, /¥0\.99\+\? spent · #recoveries 2$/, 'an earlier box of unknown price: the known part and a ?');
  });

  it('every phase has its words', () => {
    for (const p of [...LAUNCH_STEPS, 'done', 'stopped', 'failed'] as const) assert.ok(phaseWords(p, l10n).length > 0, p);
    assert.equal(new Set([...LAUNCH_STEPS, 'done', 'stopped', 'failed'].map((p) => phaseWords(p as never, l10n))).size, LAUNCH_STEPS.length + 3);
  });

  it('the outcome line says it once: the words are left out when the detail starts with them (English), kept before an English detail otherwise (zh-CN)', () => {
    assert.equal(outcomeLine('smoke test done', 'smoke test done: 6 steps ran'), 'smoke test done: 6 steps ran');
    assert.equal(outcomeLine('finished', 'lora finished (exit 0)'), 'finished: lora finished (exit 0)');
    assert.equal(outcomeLine('冒烟测试完成', 'smoke test done: 6 steps ran'), '冒烟测试完成: smoke test done: 6 steps ran');
  });
});

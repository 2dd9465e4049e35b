// The CLI's progress line (app/runs/progress.ts progressLine, printed by `logs --progress`,
// `logs` and `run`'s wait): English word for word as before, and under a Chinese locale the
// extension's own sentences from the zh bundle (literal expectations, written by hand).
import { strict as assert } from 'node:assert';
import { durationWords, progressLine } from '../../src/app/runs/progress';
import type { Finish, Progress } from '../../src/core/progress';
import { formatCny } from '../../src/core/money';
import { l10nIn } from '../../src/cli/words';
import { progressText } from '../../src/extension/view/runText';

const progress = (p: Partial<Progress>): Progress => ({ step: null, total: null, rate: null, epoch: null, epochTotal: null, loss: null, scalars: {}, scope: 'run', source: null, lastUpdateAt: null, lastOutputAt: null, lossCurve: [], diverged: null, ...p });
const finish = (f: Partial<Finish>): Finish => ({ etaSeconds: null, finishAt: null, costToFinishFen: null, reworkFen: null, stalled: false, quietSeconds: null, ...f });
// 21:40 UTC, printed at offset 0.
const at = Date.UTC(2026, 11, 2, 21, 40) / 1000;

describe('progressLine in both languages', () => {
  const running = progress({ step: 450, total: 1500, loss: 0.41234 });
  const eta = finish({ etaSeconds: 2 * 3600 + 10 * 60, finishAt: at, costToFinishFen: 780 });

  it('English as it always read', () => {
    assert.equal(progressLine(running, eta, formatCny, 0), 'step 450/1500 · 2 h 10 min left (21:40) · ¥7.80 to finish · loss 0.4123');
    assert.equal(progressLine(progress({ step: 30, total: 200, epoch: 2, scope: 'epoch' }), finish({}), formatCny, 0), 'step 30/200 (epoch 2)');
    assert.equal(progressLine(progress({ epoch: 3, epochTotal: 10 }), finish({ stalled: true, quietSeconds: 900 }), formatCny, 0), 'epoch 3/10 · stalled: no progress for 15 min');
    assert.equal(progressLine(progress({ step: 7 }), finish({}), formatCny, 0, l10nIn('en')), 'step 7');
  });

  it('Chinese through the bundle', () => {
    const zh = l10nIn('zh-cn');
    assert.equal(progressLine(running, eta, formatCny, 0, zh), '第 450/1500 步 · 还剩 2 小时 10 分（21:40 结束） · 跑完还需 ¥7.80 · 损失 0.4123');
    assert.equal(progressLine(progress({ step: 30, total: 200, epoch: 2, scope: 'epoch' }), finish({}), formatCny, 0, zh), '第 30/200 步 （第 2 轮）');
    assert.equal(progressLine(progress({ epoch: 3, epochTotal: 10 }), finish({ stalled: true, quietSeconds: 900 }), formatCny, 0, zh), '第 3/10 轮 · 卡住了：已 15 分钟 没有进度');
    assert.equal(durationWords(3 * 86400 + 5 * 3600, zh), '3 天 5 小时');
    assert.equal(durationWords(42, zh), '42 秒');
  });

  it('the CLI and the tree say the same: an epoch-scoped count has what is left of this epoch, no finish time, no cost', () => {
    const epochRun = progress({ step: 30, total: 200, epoch: 2, scope: 'epoch', loss: 1.5 });
    const left = finish({ etaSeconds: 600, finishAt: at, costToFinishFen: 120 });
    assert.equal(progressLine(epochRun, left, formatCny, 0), 'step 30/200 (epoch 2) · 10 min left in this epoch · loss 1.5');
    assert.equal(progressText(epochRun, left, l10nIn('en'), () => '21:40'), 'step 30/200 (epoch 2) · 10 min left in this epoch');
    assert.equal(progressLine(epochRun, left, formatCny, 0, l10nIn('zh-cn')), progressText(epochRun, left, l10nIn('zh-cn'), () => '21:40') + ' · 损失 1.5');
    // One rounding for both: just under a minute is "1 min", never "60 s".
    assert.equal(progressText(running, finish({ etaSeconds: 59.6, finishAt: at }), l10nIn('en'), () => '21:40'), 'step 450/1500 · 1 min left (21:40)');
    assert.equal(progressLine(running, finish({ etaSeconds: 59.6, finishAt: at }), formatCny, 0), 'step 450/1500 · 1 min left (21:40) · loss 0.4123');
    // Only a loss so far: the CLI says it, the tree (which shows it elsewhere) says nothing.
    assert.equal(progressLine(progress({ loss: 2 }), finish({}), formatCny, 0), 'loss 2');
    assert.equal(progressText(progress({ loss: 2 }), finish({}), l10nIn('en')), '');
  });
});

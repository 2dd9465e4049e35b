// The CLI's progress line (app/runs/progress.ts progressLine, printed by `logs --progress`,
// `logs` and `run`'s wait): English word for word as before, and under a Chinese locale the
// extension's own sentences from the zh bundle (literal expectations, written by hand).
import { strict as assert } from 'node:assert';
import { durationWords, progressLine } from '../../src/app/runs/progress';
import type { Finish, Progress } from '../../src/core/progress';
import { formatCny } from '../../src/core/money';
import { l10nIn } from '../../src/cli/words';

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
});

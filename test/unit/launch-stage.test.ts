// Stage without the GPU (issue 43): the box record's staging counts at the no-GPU rate, the GPU
// from its restart; what staging saved is its seconds at the GPU rate less the no-GPU rate.
import assert from 'node:assert/strict';
import { boxCostFen, stagingSavedFen, type LaunchBox } from '../../src/core/task/launch';

const box = (p: Partial<LaunchBox>): LaunchBox => ({ candidate: 0, kind: 'platform', label: 'stagebox', priceFenPerHour: 198, spot: false, acquiredAt: 3600, ...p });

describe('launch staging: spend and saving (core/task/launch)', () => {
  it('while staged: the no-GPU rate is the price; nothing saved is claimed yet', () => {
    const b = box({ staged: true, priceFenPerHour: 10 });
    assert.equal(boxCostFen(b, 3600 + 1800), 5);
    assert.equal(stagingSavedFen(b), null);
  });
  it('after the restart: 30 min staged at ¥0.10/h (5 fen) plus 1 h at ¥1.98/h; saved 30 min × (¥1.98 − ¥0.10)', () => {
    const b = box({ staged: false, stage: { seconds: 1800, fenPerHour: 10 } });
    assert.equal(boxCostFen(b, 3600 + 3600), 5 + 198);
    assert.equal(stagingSavedFen(b), 94);
  });
  it('a rate not known: the cost and the saving are unknown, never 0', () => {
    assert.equal(boxCostFen(box({ stage: { seconds: 1800, fenPerHour: null } }), 7200), null);
    assert.equal(stagingSavedFen(box({ stage: { seconds: 1800, fenPerHour: null } })), null);
    assert.equal(stagingSavedFen(box({ priceFenPerHour: null, stage: { seconds: 1800, fenPerHour: 10 } })), null);
  });
});

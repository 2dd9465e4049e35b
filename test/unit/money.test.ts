// Money is integer fen; yuan appear only at the edges.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { fenToYuan, formatCny, formatCnyRange, MoneyRangeError, roundFen, yuanToFen } from '../../src/core/money';

describe('money', () => {
  it('converts the report\'s yuan figures to whole fen', () => {
    assert.equal(yuanToFen(1.98), 198);
    assert.equal(yuanToFen(3.6), 360);
    assert.equal(yuanToFen(0.1), 10);
    assert.equal(yuanToFen(0.5), 50);
    assert.equal(yuanToFen(1.005), 101, '1.005 × 100 is 100.49999… in floating point');
    assert.equal(yuanToFen(15000), 1500000);
    assert.equal(fenToYuan(2970), 29.7);
  });

  it('never returns NaN for garbage', () => {
    assert.equal(yuanToFen(Number.NaN), 0);
    assert.equal(yuanToFen(Infinity), 0);
    assert.equal(roundFen(Number.NaN), 0);
  });

  // Changed deliberately (issue 10): NaN used to print as ¥0.00, hiding the bug behind a price.
  it('refuses to format what is not an amount of money', () => {
    for (const bad of [Number.NaN, Infinity, -Infinity, 1e19, -1e19, Number.MAX_SAFE_INTEGER + 2]) {
      assert.throws(() => formatCny(bad), MoneyRangeError, String(bad));
      assert.throws(() => formatCnyRange(0, bad), MoneyRangeError, String(bad));
    }
    assert.equal(formatCny(Number.MAX_SAFE_INTEGER - 1), '¥90,071,992,547,409.90');
    fc.assert(fc.property(fc.integer({ min: -1e15, max: 1e15 }), (f) => /^-?¥\d{1,3}(,\d{3})*\.\d\d$/.test(formatCny(f))));
  });

  it('formats fen as yuan with grouping', () => {
    assert.equal(formatCny(2970), '¥29.70');
    assert.equal(formatCny(1800), '¥18.00');
    assert.equal(formatCny(123450), '¥1,234.50');
    assert.equal(formatCny(2000000), '¥20,000.00');
    assert.equal(formatCny(5), '¥0.05');
    assert.equal(formatCny(-300), '-¥3.00');
  });

  it('formats ranges as ranges', () => {
    assert.equal(formatCnyRange(160, 200), '¥1.60–2.00');
    assert.equal(formatCnyRange(200, 160), '¥1.60–2.00');
    assert.equal(formatCnyRange(70000, 90000), '¥700.00–900.00');
    assert.equal(formatCnyRange(198, 198), '¥1.98');
  });

  it('round-trips any whole fen amount through yuan', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1e12 }), (f) => yuanToFen(fenToYuan(f)) === f));
  });
});

// The calculator's SVG charts: sizes follow the figures, text is escaped, break-even matches core.
import { strict as assert } from 'node:assert';
import { builtinCatalog } from '../../src/core/catalog';
import { breakEvenHours, midpoint } from '../../src/core/cost';
import { breakEvenChart, crossover, modeCost, niceStep, stackedBars } from '../../src/webview/charts';

const legend = { gpu: 'GPU', storage: 'Storage', idle: 'Stopped', download: 'Download', spotRework: 'Spot rework' };

describe('calculator charts', () => {
  it('stacks each component in proportion and labels totals', () => {
    const svg = stackedBars(
      [
        { label: 'AutoDL · hourly', parts: { gpu: 2970, storage: 1200, idle: 0, download: 0, spotRework: 0 }, highlight: true },
        { label: 'Matpool · hourly', parts: { gpu: 2475, storage: 2400, idle: 100, download: 0, spotRework: 0 } },
      ],
      { width: 800, title: 't', legend },
    );
    const widths = [...svg.matchAll(/<rect class="seg (\w+)" x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="16">/g)].map((m) => [m[1], Number(m[2])] as const);
    const gpuA = widths[0]![1];
    const storA = widths[1]![1];
    assert.ok(Math.abs(gpuA / storA - 2970 / 1200) < 0.02, `${gpuA}/${storA}`);
    assert.match(svg, /¥41\.70/);
    assert.match(svg, /¥49\.75/);
    assert.match(svg, /class="label best"/);
  });

  it('escapes labels', () => {
    const svg = stackedBars([{ label: '<script>x</script>', parts: { gpu: 1, storage: 0, idle: 0, download: 0, spotRework: 0 } }], { width: 400, title: '"t"', legend });
    assert.doesNotMatch(svg, /<script>/);
    assert.match(svg, /&lt;script&gt;/);
  });

  it('tick steps are 1-2-5 and never NaN', () => {
    assert.equal(niceStep(100), 20);
    assert.equal(niceStep(4970), 1000);
    assert.equal(niceStep(0), 1);
    assert.doesNotMatch(stackedBars([], { width: 400, title: 't', legend }), /NaN/);
  });

  it('billing-mode lines cross where core says monthly beats hourly', () => {
    const autodl = builtinCatalog().platforms.find((p) => p.id === 'autodl')!;
    const price = (mode: string) => midpoint(autodl.prices.find((p) => p.card === 'rtx3090' && p.mode === mode)!.price!);
    const hour = { mode: 'hour' as const, pricePerPeriod: price('hour') };
    const month = { mode: 'month' as const, pricePerPeriod: price('month') };
    const at = crossover(hour, month)!;
    const be = breakEvenHours(autodl, 'rtx3090').find((b) => b.shorter === 'hour' && b.longer === 'month')!;
    assert.ok(at >= Math.floor(be.units.min) && at <= Math.ceil(be.units.max), `${at} vs ${JSON.stringify(be.units)}`);
    assert.equal(modeCost({ mode: 'week', pricePerPeriod: 100 }, 169), 200);
    assert.equal(modeCost({ mode: 'hour', pricePerPeriod: 198 }, 0), 0);
    const svg = breakEvenChart([{ ...hour, label: 'hourly' }, { ...month, label: 'monthly' }], { width: 600, title: 't', axis: 'h' });
    assert.equal((svg.match(/<polyline/g) ?? []).length, 2);
    assert.doesNotMatch(svg, /NaN|Infinity/);
  });
});

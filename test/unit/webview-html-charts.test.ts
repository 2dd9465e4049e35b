// The calculator's SVG charts: sizes follow the figures, text is escaped, break-even matches core.
import { strict as assert } from 'node:assert';
import { builtinCatalog } from '../../src/core/catalog';
import { breakEvenHours, midpoint } from '../../src/core/cost';
import { breakEvenChart, crossover, fitText, modeCost, niceStep, stackedBars, textWidth } from '../../src/webview/charts';

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

  describe('layout in a narrow panel', () => {
    const zero = { gpu: 0, storage: 0, idle: 0, download: 0, spotRework: 0 };
    const long = '揽睿星舟 Lanrui Xingzhou · hourly';
    const bars = [
      { label: long, parts: { ...zero, gpu: 2700 } },
      { label: 'AutoDL · hourly', parts: { ...zero, gpu: 2970, storage: 1200, spotRework: 300 } },
    ];
    const texts = (svg: string) => [...svg.matchAll(/<text class="([\w ]+)" x="([\d.-]+)" y="([\d.]+)"(?: text-anchor="(\w+)")?>(?:<title>([^<]*)<\/title>)?([^<]*)<\/text>/g)].map((m) => ({ cls: m[1]!, x: Number(m[2]), y: Number(m[3]), anchor: m[4], title: m[5], text: m[6]! }));

    for (const width of [360, 460, 1100]) {
      it(`keeps every label and legend entry inside ${width} px, cut with an ellipsis and a tooltip when too long`, () => {
        const svg = stackedBars(bars, { width, title: 't', legend });
        const all = texts(svg);
        for (const t of all) {
          const w = textWidth(t.text);
          const left = t.anchor === 'end' ? t.x - w : t.anchor === 'middle' ? t.x - w / 2 : t.x;
          assert.ok(left >= 0 && left + w <= width + 0.5, `"${t.text}" (${t.cls}) spans ${left.toFixed(0)}..${(left + w).toFixed(0)} in ${width}`);
        }
        const labels = all.filter((t) => t.cls.startsWith('label'));
        assert.equal(labels.length, 2);
        const first = labels[0]!;
        if (first.text !== long) {
          assert.ok(first.text.endsWith('…'), first.text);
          assert.equal(first.title, long, 'the full label is in the tooltip');
        }
        const shown = all.filter((t) => t.cls === 'legend').map((t) => t.title ?? t.text);
        assert.deepEqual(shown, Object.values(legend), 'every legend entry is drawn');
        const h = Number(/height="(\d+)"/.exec(svg)![1]);
        assert.ok(all.every((t) => t.y <= h), 'nothing below the bottom edge');
      });
    }

    it('wraps the legend onto a second row when it does not fit', () => {
      const zhLegend = { gpu: 'GPU', storage: '存储', idle: '停机', download: '下载', spotRework: '竞价返工' };
      const narrow = texts(stackedBars(bars, { width: 360, title: 't', legend: { ...legend, spotRework: 'Spot rework (reclaimed progress)' } })).filter((t) => t.cls === 'legend');
      assert.ok(new Set(narrow.map((t) => t.y)).size >= 2, `one row: ${narrow.map((t) => t.y).join(',')}`);
      const wide = texts(stackedBars(bars, { width: 1100, title: 't', legend: zhLegend })).filter((t) => t.cls === 'legend');
      assert.equal(new Set(wide.map((t) => t.y)).size, 1);
    });

    it('the break-even chart keeps its axis title and legend inside a narrow width', () => {
      const svg = breakEvenChart(
        [
          { mode: 'hour', label: 'hourly', pricePerPeriod: 198 },
          { mode: 'week', label: 'weekly', pricePerPeriod: 27500 },
          { mode: 'month', label: 'monthly', pricePerPeriod: 80000 },
        ],
        { width: 360, title: 't', axis: 'Hours of use within 30 days' },
      );
      for (const t of texts(svg).filter((x) => x.cls === 'legend' || x.cls === 'axis')) {
        const w = textWidth(t.text);
        const left = t.anchor === 'middle' ? t.x - w / 2 : t.x;
        assert.ok(left >= 0 && left + w <= 360.5, `"${t.text}" spans ${left}..${left + w}`);
      }
    });

    it('fitText never returns more than fits, and leaves short text alone', () => {
      assert.equal(fitText('AutoDL', 200), 'AutoDL');
      const cut = fitText(long, 80);
      assert.ok(cut.endsWith('…') && textWidth(cut) <= 80, cut);
      assert.equal(fitText('', 10), '');
    });
  });
});

describe('calculator charts: unknown costs (issue 10)', () => {
  it('a bar with a cost without a figure ends open with "+?", like the table, and never looks cheapest', () => {
    const svg = stackedBars(
      [
        { label: '揽睿星舟 · hourly', parts: { gpu: 2400, storage: 0, idle: 0, download: 0, spotRework: 0 }, highlight: true, unknown: 'not priced: Storage' },
        { label: 'AutoDL · hourly', parts: { gpu: 2970, storage: 1200, idle: 0, download: 0, spotRework: 0 } },
      ],
      { width: 800, title: 't', legend },
    );
    assert.match(svg, /<text class="value unknown"[^>]*><title>not priced: Storage<\/title>¥24\.00 \+\?<\/text>/);
    assert.match(svg, /class="open-end"/);
    assert.doesNotMatch(svg, /class="label best/, 'an unknown bar is never drawn as the cheapest');
    assert.match(svg, /<text class="value" [^>]*>¥41\.70<\/text>/);
  });
});

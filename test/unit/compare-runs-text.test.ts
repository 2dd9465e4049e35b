// Compare Runs' Markdown report (extension/view/compareRunsText.ts): the table, the best of each
// figure, each run's curve against step, hours and yuan; box text (a run's name) made inert.
import assert from 'node:assert/strict';
import { compareRuns } from '../../src/core/ledger/compare';
import { buildRecord, type RunFacts } from '../../src/core/ledger/record';
import { lossChartSvg, svgImage } from '../../src/core/ledger/svg';
import { comparisonMarkdown } from '../../src/extension/view/compareRunsText';

const T0 = 1_780_000_000;
const run = (name: string, hex: string, over: Partial<RunFacts> = {}) =>
  buildRecord({ kind: 'start-training', name, startedAt: T0, endedAt: T0 + 7200, steps: 3600, total: 3600, card: 'rtx3090', gpus: 1, price: { fenPerHour: 150, source: 'platform' }, lossCurve: Array.from({ length: 100 }, (_, i) => ({ step: i * 36, loss: 3 - i / 50 })), end: { kind: 'finished', exitCode: 0, cause: null }, ...over }, hex);
const en = { t: (m: string, ...a: (string | number)[]) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };

describe('Compare Runs report', () => {
  it('table, best of each, curves thinned to ~25 rows with hours and yuan', () => {
    const a = run('lr1', 'aaaa');
    const b = run('lr3 | <img src=x>', 'bbbb', { card: 'rtx4090', endedAt: T0 + 3600, price: { fenPerHour: 200, source: 'platform' } });
    const md = comparisonMarkdown(compareRuns([a, b]), en, '/home/me/.vscode/globalStorage/gpu-rent');
    assert.match(md, /^# Compare Runs\n/);
    assert.match(md, /\| lr1 \\\(r\\-\d{8}\\-\d{6}\\-aaaa\\\) \| 1× rtx3090 \| [\d-]+ [\d:]+ \| 2\.00 \| 3600 \| 0\.5 \| 1\.02 \| ¥3\.00 \| finished \|/);
    assert.match(md, /\| 1× rtx4090 \| [\d-]+ [\d:]+ \| 1\.00 \| 3600 \| 1 \| 1\.02 \| ¥2\.00 \| finished \|/);
    assert.ok(!md.includes('<img'), 'a name from the box is inert');
    assert.ok(md.includes('lr3 \\| &lt;img'), 'a | in a name is escaped: it does not break the table');
    for (const l of md.split('\n').filter((x) => x.startsWith('| lr'))) assert.equal(l.replace(/\\\|/g, '').split('|').length, 11, l);
    assert.match(md, /Cheapest: lr3 .* · fastest: lr3 .* · shortest: lr3 .* · lowest final loss: lr1\n/);
    const curveRows = md.split('## ')[1]!.split('\n').filter((l) => /^\| \d+ \|/.test(l));
    assert.ok(curveRows.length >= 25 && curveRows.length <= 26, String(curveRows.length));
    assert.equal(curveRows.at(-1), '| 3564 | 1.02 | 1.980 | 2.97 |');
    assert.match(md, /gpu-rent runs compare r-\S+aaaa r-\S+bbbb --json/);
  });
});

describe('Compare Runs chart', () => {
  it('one SVG per axis with a line per run, names escaped; none for an axis no run has', () => {
    const a = run('a<script>', 'aaaa');
    const b = run('b', 'bbbb', { price: { fenPerHour: null, source: null } });
    const c = compareRuns([a, b]);
    const svg = lossChartSvg(c, 'step', 'Step')!;
    assert.equal((svg.match(/<polyline /g) ?? []).length, 2);
    assert.ok(!svg.includes('<script>') && svg.includes('a&lt;script&gt;'));
    assert.match(svg, /^<svg [^>]*>.*<\/svg>$/s);
    // yuan: b has no price, so only a's line
    assert.equal((lossChartSvg(c, 'yuan', 'Yuan')!.match(/<polyline /g) ?? []).length, 1);
    assert.equal(lossChartSvg(compareRuns([b, run('c', 'cccc', { price: { fenPerHour: null, source: null } })]), 'yuan', 'Yuan'), null);
    const img = svgImage(svg, 'Loss against Step');
    assert.match(img, /^!\[Loss against Step\]\(data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+\)$/);
    assert.equal(Buffer.from(img.slice(img.indexOf(',') + 1, -1), 'base64').toString('utf8'), svg);
    assert.equal((comparisonMarkdown(c, en, '/x').match(/data:image\/svg\+xml/g) ?? []).length, 3);
  });
});

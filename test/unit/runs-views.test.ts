// The words and pictures of training runs: the tree's progress line (en), the monitor's
// protocol (hostile messages dropped), its SVG (escaped, one point per pixel column), its HTML
// (the calculator's CSP: nonce script only), the idle accounting of the 30-minute window.
import { strict as assert } from 'node:assert';
import { GpuWindow, parseGpuLine, progressOf, estimateFinish } from '../../src/core/progress';
import { progressText, causeText } from '../../src/extension/view/runText';
import { durationWords } from '../../src/app/runs/progress';
import { lineChart } from '../../src/webview/monitor-chart';
import { parseMonitorHostMessage, parseMonitorWebviewMessage } from '../../src/webview/monitor-protocol';
import { buildCalculatorHtml, makeNonce } from '../../src/webview/html';
import { cspContent } from '../support/html-attr';

const l10n = { t: (m: string, ...a: (string | number | boolean)[]) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };

describe('training run views', () => {
  it('the tree line: step 450/1500 · 2 h 10 min left (21:40) · ¥7.80 to finish', () => {
    const p = progressOf('Total optimization steps = 1,500\n\r 30%|███       | 450/1500 [39:00<1:31:00,  7.43s/it]', 0);
    const f = estimateFinish(p, { computeFenPerHour: 360, storageFenPerDay: 0 }, { boxNow: 0, localNow: 0, alive: true });
    // By hand: 1500 − 450 = 1050 steps left at the bar's own 7.43 s/it = 7801.5 s (130 min:
    // 2 h 10 min), a whole second either way; at ¥3.60/h that is 360 fen × 7801.5 / 3600 = 780.15 fen, ¥7.80.
    assert.ok(Math.abs(f.etaSeconds! - 7801.5) <= 1, String(f.etaSeconds));
    assert.equal(f.costToFinishFen, 780);
    assert.equal(progressText(p, f, l10n, () => '21:40'), 'step 450/1500 · 2 h 10 min left (21:40) · ¥7.80 to finish');
    assert.equal(durationWords(7800, l10n), '2 h 10 min');
    const stalled = estimateFinish(p, null, { boxNow: 4000, alive: true });
    assert.match(progressText(p, stalled, l10n), /^step 450\/1500 · stalled: no progress for 1 h 7 min$/);
    assert.equal(progressText(progressOf('', 0), f, l10n), '');
    assert.match(causeText({ kind: 'cudaOom', line: '' }, l10n), /smaller batch.*gradient checkpointing.*4-bit QLoRA/);
  });

  it('the monitor protocol drops what does not match; the page posts ready/error only', () => {
    assert.ok(parseMonitorHostMessage({ type: 'samples', samples: [[0, 1, 97, 1, 2, 300, 70]], idleSeconds: 0, now: 1 }));
    assert.equal(parseMonitorHostMessage({ type: 'samples', samples: [[0, 1, 'x', 1, 2, 300, 70]], idleSeconds: 0, now: 1 }), undefined);
    assert.equal(parseMonitorHostMessage({ type: 'samples', samples: [], idleSeconds: -1, now: 1 }), undefined);
    assert.equal(parseMonitorHostMessage({ type: 'eval', code: 'x' }), undefined);
    assert.deepEqual(parseMonitorWebviewMessage({ type: 'ready', requestId: 1 }), { type: 'ready', requestId: 1 });
    assert.equal(parseMonitorWebviewMessage({ type: 'ready', requestId: 1, extra: 1 }), undefined);
  });

  it('line charts escape labels and keep one point per pixel column', () => {
    const pts = Array.from({ length: 1800 }, (_, i) => [i, (i * 37) % 100] as const);
    const svg = lineChart([{ label: '<GPU & 0>', points: pts }], { width: 400, height: 120, title: 'Util "x"', xMin: 0, xMax: 1800, yMax: 100, unit: '%' });
    assert.ok(svg.includes('&lt;GPU &amp; 0&gt;') && svg.includes('Util &quot;x&quot;'));
    assert.ok(!svg.includes('<GPU'));
    const points = (svg.match(/[ML]\d/g) ?? []).length;
    assert.ok(points <= 400 - 44 - 8 + 1, `${points} points`);
  });

  it('the monitor page uses the calculator HTML rules: nonce script, no inline', () => {
    const nonce = makeNonce();
    const html = buildCalculatorHtml({ cspSource: 'https://x.example', nonce, scriptUri: 'https://x.example/monitor.js', styleUri: 'https://x.example/monitor.css', lang: 'zh-cn', title: 'GPU 监控：a<b' });
    const csp = cspContent(html);
    assert.ok(csp, 'CSP meta tag missing');
    const directives = csp.applied.split(/;\s*/);
    assert.ok(directives.includes(`script-src 'nonce-${nonce}'`), csp.applied);
    assert.ok(directives.includes("default-src 'none'"), csp.applied);
    assert.ok(!/unsafe-inline|unsafe-eval/.test(csp.applied));
    assert.ok(html.includes('a&lt;b'));
  });

  it('nvidia-smi stream lines and the idle window (8 GPUs, 1 Hz)', () => {
    assert.deepEqual(parseGpuLine('3, 97, 30000, 81559, 350.50, 71'), { index: 3, util: 97, memUsed: 30000, memTotal: 81559, power: 350.5, temp: 71 });
    assert.deepEqual(parseGpuLine('0, [N/A], 1, 2, [N/A], 40'), { index: 0, util: null, memUsed: 1, memTotal: 2, power: null, temp: 40 });
    assert.equal(parseGpuLine('index, utilization.gpu'), null);
    assert.equal(parseGpuLine('x'.repeat(1000)), null);
    const w = new GpuWindow(1800, 10);
    for (let t = 0; t < 3600; t++) for (let g = 0; g < 8; g++) w.add({ index: g, util: t < 1000 ? 90 : 2, memUsed: 1, memTotal: 2, power: 50, temp: 40 }, t);
    assert.ok(Math.abs(w.idleSeconds - 2599) <= 1, `idle ${w.idleSeconds}`);
    assert.ok(w.samples(0, 3599).length <= 1801);
  });

});

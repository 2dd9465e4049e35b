// A hostile box's nvidia-smi stream cannot hang or flood the GPU monitor: values outside their
// physical range (Infinity, 1e309, 1.7e308 spelled in digits, NaN, negatives) are refused at the
// parser, the chart's tick loop is counted and bounded whatever the domain, and the window keeps
// at most one sample per GPU per second for at most MAX_GPUS GPUs, in the extension host's stream
// consumer and in the page (whose protocol refuses oversize arrays).
import { strict as assert } from 'node:assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { addCapped, GpuWindow, MAX_GPUS, parseGpuLine } from '../../src/core/progress';
import { GpuStream } from '../../src/app/runs/gpuStream';
import { lineChart, MAX_TICKS, yAxis } from '../../src/webview/monitor-chart';
import { MAX_MONITOR_SAMPLES, MAX_SAMPLES_PER_MESSAGE, parseMonitorHostMessage } from '../../src/webview/monitor-protocol';

const HUGE = `17${'0'.repeat(307)}`; // 1.7e308 in digits: finite, and past the old chart's top
const OVER = `1${'0'.repeat(309)}`; // 1e309: Infinity once parsed

/** Heap in use after a full collection (what the window retains, not the garbage the test made). */
function retainedHeap(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

describe('the GPU monitor under a hostile stream', () => {
  it('the parser refuses non-finite and out-of-range values (null), and lines for GPUs past the cap', () => {
    assert.deepEqual(parseGpuLine(`0, 50, 1, 81559, ${HUGE}, 70`), { index: 0, util: 50, memUsed: 1, memTotal: 81559, power: null, temp: 70 });
    assert.deepEqual(parseGpuLine(`0, ${OVER}, 1, 81559, 300, 70`), { index: 0, util: null, memUsed: 1, memTotal: 81559, power: 300, temp: 70 });
    assert.deepEqual(parseGpuLine(`0, 50, ${HUGE}, 81559, 300, 70`), { index: 0, util: 50, memUsed: null, memTotal: 81559, power: 300, temp: 70 });
    assert.deepEqual(parseGpuLine(`0, 50, 1, 81559, 300, ${OVER}`), { index: 0, util: 50, memUsed: 1, memTotal: 81559, power: 300, temp: null });
    assert.deepEqual(parseGpuLine('1, Infinity, NaN, -1, -5, 1e3'), { index: 1, util: null, memUsed: null, memTotal: null, power: null, temp: null });
    assert.deepEqual(parseGpuLine('2, 101, -1, 2097152, 5001, 201'), { index: 2, util: null, memUsed: null, memTotal: null, power: null, temp: null });
    assert.deepEqual(parseGpuLine('3, 100, 0, 1048576, 5000, -50'), { index: 3, util: 100, memUsed: 0, memTotal: 1048576, power: 5000, temp: -50 });
    assert.deepEqual(parseGpuLine('3, 97, 30000, 81559, 350.50, 71'), { index: 3, util: 97, memUsed: 30000, memTotal: 81559, power: 350.5, temp: 71 });
    assert.equal(parseGpuLine(`${MAX_GPUS}, 1, 1, 1, 1, 1`), null);
    assert.equal(parseGpuLine(`${OVER}, 1, 1, 1, 1, 1`), null);
    assert.equal(parseGpuLine('-1, 1, 1, 1, 1, 1'), null);
    assert.equal(parseGpuLine('0.5, 1, 1, 1, 1, 1'), null);
  });

  it('the chart draws a bounded number of ticks whatever the values (1.7e308, MAX_VALUE, Infinity, NaN, negatives)', () => {
    for (const y of [Number.MAX_VALUE, 1.7e308, 1.5e308, 1e300, Infinity, -Infinity, NaN, -5, 0, 1e-300, 5e-324]) {
      const a = yAxis(y);
      assert.ok(Number.isFinite(a.top) && a.top > 0 && Number.isFinite(a.step) && a.step > 0, `${y}: ${JSON.stringify(a)}`);
      assert.ok(a.ticks >= 1 && a.ticks <= MAX_TICKS, `${y}: ${a.ticks} ticks`);
      const t0 = Date.now();
      const svg = lineChart([{ label: 'GPU 0', points: [[0, 1], [10, y], [20, 2], [30, Number.MAX_VALUE]] }], { width: 400, height: 120, title: 't', xMin: 0, xMax: 60, unit: 'W' });
      assert.ok(Date.now() - t0 < 1000);
      const grid = (svg.match(/class="grid"/g) ?? []).length;
      assert.ok(grid >= 2 && grid <= MAX_TICKS + 1, `${y}: ${grid} grid lines`);
      assert.ok(!/NaN|Infinity/.test(svg), `${y}: ${svg.slice(0, 300)}`);
    }
    // A forged domain on the x axis too.
    const svg = lineChart([{ label: 'loss', points: [[-Number.MAX_VALUE, 1], [Number.MAX_VALUE, 2]] }], { width: 400, height: 120, title: 'loss', xMin: -Number.MAX_VALUE, xMax: Number.MAX_VALUE, unit: '' });
    assert.ok(!/NaN|Infinity/.test(svg));
  });

  it('the window keeps one sample per GPU per second, at most windowSeconds + 1, for at most MAX_GPUS GPUs', () => {
    const w = new GpuWindow(1800, 10);
    for (let i = 0; i < 200_000; i++) w.add({ index: i % 8, util: 50, memUsed: 1, memTotal: 2, power: 1, temp: 40 }, i * 0.001);
    assert.equal(w.samples(0).length, 200 + 1 - 1, 'one per second for 200 s');
    for (let t = 200; t < 10_000; t++) w.add({ index: 0, util: 50, memUsed: 1, memTotal: 2, power: 1, temp: 40 }, t);
    assert.equal(w.samples(0).length, 1801);
    for (let g = 0; g < 100; g++) w.add({ index: g, util: 50, memUsed: 1, memTotal: 2, power: 1, temp: 40 }, 10_000);
    assert.equal(w.gpus().length, MAX_GPUS);
    // A clock that jumps back does not grow the list either.
    const list: { t: number }[] = [];
    for (let i = 0; i < 10_000; i++) addCapped(list, { t: i % 2 ? 5 : 1000 }, 1800);
    assert.equal(list.length, 1);
  });

  it('200 000 forged lines at 1 ms spacing through the stream consumer: samples at the cap, memory bounded', function () {
    this.timeout(120_000); // 488 000 lines: seconds on a quiet machine, more on a loaded one; the bounds below are on counts and memory
    let now = 1_700_000_000;
    const stream = new GpuStream(async () => {
      throw new Error('not connected in this test');
    }, { now: () => now });
    const heap0 = retainedHeap();
    let posted = 0;
    let biggestBatch = 0;
    const lines = (n: number, from: number) => Array.from({ length: n }, (_, k) => `${(from + k) % 8}, ${k % 2 ? 'Infinity' : 'NaN'}, 30000, 81559, ${HUGE}, 71\n`).join('');
    // 200 000 lines in chunks of 100, each chunk 0.1 s later: 1 ms per line, 200 s of stream.
    for (let c = 0; c < 2000; c++) {
      const batch = stream.feed(lines(100, c * 100));
      posted += batch.length;
      biggestBatch = Math.max(biggestBatch, batch.length);
      now += 0.1;
    }
    const w = stream.window;
    assert.deepEqual(w.gpus(), [0, 1, 2, 3, 4, 5, 6, 7]);
    for (const g of w.gpus()) assert.ok(w.samples(g).length <= 201, `GPU ${g}: ${w.samples(g).length} samples`);
    assert.ok(biggestBatch <= 8, `a chunk posts ${biggestBatch} samples`);
    assert.ok(posted <= 8 * 201, `${posted} samples for the page in 200 s`);
    const s = w.samples(0).at(-1)!;
    assert.equal(s.util, null, 'Infinity and NaN refused');
    assert.equal(s.power, null, '1.7e308 W refused');
    assert.equal(s.memUsed, 30000);
    // Then two hours of a 1 kHz flood, 32 GPUs and garbage indices: the window stays at its cap.
    for (let c = 0; c < 7200; c++) {
      stream.feed(Array.from({ length: 40 }, (_, k) => `${k}, 50, 1, 2, 3, 4\n`).join(''));
      now += 1;
    }
    assert.equal(w.gpus().length, MAX_GPUS);
    for (const g of w.gpus()) assert.equal(w.samples(g).length, 1801);
    const grown = retainedHeap() - heap0;
    // 32 GPUs × 1801 samples is ~6 MB; the uncapped window kept every line (3.6 GB for 200 MB of lines).
    assert.ok(grown < 48 * 1024 * 1024, `heap grew ${Math.round(grown / 1024 / 1024)} MB`);
    console.log(`      retained heap after 488 000 forged lines: +${(grown / 1024 / 1024).toFixed(1)} MB, ${w.gpus().length} GPUs × ${w.samples(0).length} samples`);
  });

  it('the page protocol refuses out-of-range values and oversize arrays', () => {
    const ok = [0, 1, 97, 1, 2, 300, 70];
    assert.ok(parseMonitorHostMessage({ type: 'samples', samples: [ok], idleSeconds: 0, now: 1 }));
    for (const bad of [[0, 1, 101, 1, 2, 300, 70], [0, 1, 97, -1, 2, 300, 70], [0, 1, 97, 1, 2, Infinity, 70], [0, 1, 97, 1, 2, NaN, 70], [0, 1, 97, 1, 2, 1.7e308, 70], [MAX_GPUS, 1, 1, 1, 1, 1, 1], [0, Infinity, 1, 1, 1, 1, 1]]) {
      assert.equal(parseMonitorHostMessage({ type: 'samples', samples: [bad], idleSeconds: 0, now: 1 }), undefined, JSON.stringify(bad));
    }
    const many = (n: number) => Array.from({ length: n }, () => ok);
    assert.ok(parseMonitorHostMessage({ type: 'samples', samples: many(MAX_SAMPLES_PER_MESSAGE), idleSeconds: 0, now: 1 }));
    assert.equal(parseMonitorHostMessage({ type: 'samples', samples: many(MAX_SAMPLES_PER_MESSAGE + 1), idleSeconds: 0, now: 1 }), undefined);
    const init = (samples: unknown[], windowSeconds = 1800) => ({ type: 'init', requestId: 1, locale: 'en', instanceId: 'i', instanceName: 'n', windowSeconds, computeFenPerHour: 100, samples, loss: [], idleSeconds: 0, state: 'streaming', now: 1 });
    assert.ok(parseMonitorHostMessage(init(many(10))));
    assert.equal(parseMonitorHostMessage(init(many(MAX_MONITOR_SAMPLES + 1))), undefined);
    assert.equal(parseMonitorHostMessage(init(many(1), 86400)), undefined, 'a window longer than the page keeps');
    assert.equal(parseMonitorHostMessage({ type: 'samples', samples: [ok], idleSeconds: Infinity, now: 1 }), undefined);
  });
});

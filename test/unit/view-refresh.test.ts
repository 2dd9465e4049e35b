// The Instances view's refresh scheduler (src/extension/view/refresh.ts), in Node with a manual
// clock: debounced, coalesced (one element → that node, several → those, any whole-tree request →
// the root), delivered only while the view is visible (a request while hidden goes out once it
// shows), every delivery logged with its reasons.
import assert from 'node:assert/strict';
import { launchKey, platformKey, RefreshScheduler, type RefreshClock } from '../../src/extension/view/refresh';

class ManualClock implements RefreshClock {
  t = 0;
  private next = 0;
  /** Timers ever armed. */
  armedTotal = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.next;
    this.armedTotal++;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.timers.delete(h as number);
  }
  get armed(): number {
    return this.timers.size;
  }
  /** Moves the clock on, running each timer that falls due at its own time. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, x]) => x.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.t = due[1].at;
      due[1].fn();
    }
    this.t = end;
  }
}

function setup(visible = true, debounceMs = 150) {
  const clock = new ManualClock();
  const fired: (readonly string[] | undefined)[] = [];
  const logged: string[] = [];
  const s = new RefreshScheduler({ fire: (k) => fired.push(k), visible, debounceMs, clock, log: (l) => logged.push(l) });
  return { clock, fired, logged, s };
}

describe('view refresh scheduler', () => {
  it('debounces: requests 100 ms apart go out once, 150 ms after the last', () => {
    const { clock, fired, s } = setup();
    s.request('runs', 'i1');
    clock.advance(100);
    s.request('runs', 'i1');
    clock.advance(149);
    assert.equal(fired.length, 0, 'not before 150 ms of quiet');
    clock.advance(1);
    assert.deepEqual(fired, [['i1']]);
    clock.advance(10_000);
    assert.equal(fired.length, 1, 'one request, one delivery');
  });

  it('a burst of 1000 requests arms one timer and is one delivery of the 1000 nodes', () => {
    const { clock, fired, s } = setup();
    for (let i = 0; i < 1000; i++) s.request('store', `i${i}`);
    assert.equal(clock.armedTotal, 1);
    clock.advance(150);
    assert.equal(fired.length, 1);
    assert.equal(fired[0]?.length, 1000);
  });

  it('a steady stream of requests is still delivered at least once a second', () => {
    const { clock, fired, s } = setup();
    for (let t = 0; t < 3000; t += 100) {
      s.request('figures', 'i1');
      clock.advance(100);
    }
    assert.ok(fired.length >= 2 && fired.length <= 4, `delivered ${fired.length} times in 3 s of requests every 100 ms`);
    assert.ok(fired.every((k) => k?.length === 1 && k[0] === 'i1'));
  });

  it('coalesces: one element → that node; several → those nodes, each once; none → the whole tree', () => {
    const { clock, fired, s } = setup();
    s.request('store', 'i1');
    clock.advance(200);
    s.request('store', 'i1');
    s.request('runs', 'i2');
    s.request('sync-watch', 'i1');
    s.request('launch', launchKey('/w/gpu-rent.yaml#lora'));
    clock.advance(200);
    s.request('runs', 'i3');
    s.request('platforms');
    s.request('runs', 'i4');
    clock.advance(200);
    assert.deepEqual(fired, [['i1'], ['i1', 'i2', 'launch:/w/gpu-rent.yaml#lora'], undefined]);
  });

  it('while hidden nothing is delivered; what was asked goes out once the view shows', () => {
    const { clock, fired, s } = setup(false);
    s.request('runs', 'i1');
    s.request('figures', platformKey('autodl'));
    clock.advance(60_000);
    assert.equal(fired.length, 0);
    assert.equal(clock.armed, 0, 'no timer runs for a hidden view');
    assert.ok(s.pending);
    s.setVisible(true);
    clock.advance(150);
    assert.deepEqual(fired, [['i1', 'platform:autodl']]);
    assert.ok(!s.pending);
  });

  it('hidden with a delivery due: it waits, and is delivered when shown again', () => {
    const { clock, fired, s } = setup(true);
    s.request('connection', 'i1');
    clock.advance(100);
    s.setVisible(false);
    clock.advance(5000);
    assert.equal(fired.length, 0);
    s.setVisible(true);
    clock.advance(150);
    assert.deepEqual(fired, [['i1']]);
    // Shown with nothing waiting: nothing is delivered.
    s.setVisible(false);
    s.setVisible(true);
    clock.advance(1000);
    assert.equal(fired.length, 1);
  });

  it('logs each delivery with what it refreshed and why, long lists cut', () => {
    const { clock, logged, s } = setup();
    s.request('runs', 'i1');
    s.request('store', 'i2');
    s.request('runs', 'i2');
    clock.advance(150);
    s.request('user');
    clock.advance(150);
    for (let i = 0; i < 25; i++) s.request('figures', `n${i}`);
    clock.advance(150);
    assert.deepEqual(logged.slice(0, 2), ['refresh i1, i2 (runs, store)', 'refresh all (user)']);
    assert.equal(logged[2], 'refresh n0, n1, n2, n3, n4, n5, n6, n7, n8, n9 +15 more (figures)');
  });

  it('disposed: pending and later requests are dropped', () => {
    const { clock, fired, s } = setup();
    s.request('runs', 'i1');
    s.dispose();
    s.request('runs', 'i2');
    clock.advance(1000);
    assert.equal(fired.length, 0);
    assert.equal(clock.armed, 0);
  });

  it('with the real clock: delivered once after the quiet time', async () => {
    const fired: (readonly string[] | undefined)[] = [];
    const s = new RefreshScheduler({ fire: (k) => fired.push(k), visible: true, debounceMs: 20 });
    s.request('runs', 'i1');
    s.request('runs', 'i2');
    const t0 = Date.now();
    while (fired.length === 0 && Date.now() - t0 < 2000) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(fired, [['i1', 'i2']]);
    assert.ok(Date.now() - t0 >= 15, 'not before the quiet time');
    s.dispose();
  });
});

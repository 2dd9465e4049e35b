// The models activate() owns and the views listen to: the sync-watch set (app/syncWatching.ts),
// the launch rows (app/launch/rows.ts) and the runs' change events (app/runs/watch.ts). Each
// fires only when what it holds changed, with the instance or row it changed for.
import assert from 'node:assert/strict';
import { SyncWatching } from '../../src/app/syncWatching';
import { LaunchRows, type LaunchRowChange } from '../../src/app/launch/rows';
import { RunWatch } from '../../src/app/runs/watch';
import { newLaunchState } from '../../src/core/task/launch';

describe('view models', () => {
  it('the sync-watch set fires onDidChange(id) when a watch starts or stops, never for a no-op', () => {
    const w = new SyncWatching();
    const seen: string[] = [];
    const sub = w.onDidChange((id) => seen.push(id));
    assert.equal(w.add('i1'), true);
    assert.equal(w.add('i1'), false, 'already watched');
    assert.equal(w.add('i2'), true);
    assert.ok(w.has('i1') && w.has('i2') && !w.has('i3'));
    assert.deepEqual(w.list(), ['i1', 'i2']);
    assert.equal(w.delete('i3'), false, 'never watched');
    assert.equal(w.delete('i1'), true);
    assert.equal(w.delete('i1'), false);
    assert.deepEqual(seen, ['i1', 'i2', 'i1']);
    assert.deepEqual(w.list(), ['i2']);
    sub.dispose();
    w.delete('i2');
    assert.deepEqual(seen, ['i1', 'i2', 'i1'], 'a disposed listener hears nothing');
  });

  it('a throwing listener does not stop the others or the change', () => {
    const w = new SyncWatching();
    const seen: string[] = [];
    w.onDidChange(() => {
      throw new Error('listener bug');
    });
    w.onDidChange((id) => seen.push(id));
    w.add('i1');
    assert.deepEqual(seen, ['i1']);
    assert.ok(w.has('i1'));
  });

  it('launch rows say which row came, changed or went', () => {
    const rows = new LaunchRows();
    const seen: LaunchRowChange[] = [];
    rows.onDidChange((c) => seen.push(c));
    const st = newLaunchState({ task: 'lora', file: '/w/gpu-rent.yaml', taskDigest: 'd', smoke: false, now: 1_700_000_000 });
    rows.setLaunch('/w/gpu-rent.yaml#lora', st);
    rows.setLaunch('/w/gpu-rent.yaml#lora', { ...st, updatedAt: st.updatedAt + 5 });
    rows.setLaunch('/w/gpu-rent.yaml#other', undefined);
    rows.setLaunch('/w/gpu-rent.yaml#lora', undefined);
    assert.deepEqual(seen, [
      { key: '/w/gpu-rent.yaml#lora', kind: 'added' },
      { key: '/w/gpu-rent.yaml#lora', kind: 'updated' },
      { key: '/w/gpu-rent.yaml#lora', kind: 'removed' },
    ]);
    assert.deepEqual(rows.keys(), []);
  });

  it('runs: an unreachable box is told once until it answers; forgetting nothing fires nothing', () => {
    const runs = new RunWatch();
    const seen: string[] = [];
    runs.onDidChange((id) => seen.push(id));
    runs.unreachable('i1', 100);
    runs.unreachable('i1', 105);
    runs.unreachable('i2', 105);
    runs.forget('i3');
    assert.deepEqual(seen, ['i1', 'i2']);
  });
});

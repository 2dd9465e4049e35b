// The instance store over a real in-memory memento and secret store (the shapes VS Code
// gives): passwords only in secrets, history survives a reload, unreadable data is kept aside.
import { strict as assert } from 'node:assert';
import { accruedFen } from '../../src/core/spend';
import { CORRUPT_KEY, InstanceStore, secretKey, STORE_KEY } from '../../src/extension/store';
import type { Instance } from '../../src/core/instances';
import { MemoryMemento, MemorySecrets } from '../support/memory-store';



const T0 = 1_795_000_000;
const fields = (id: string): Omit<Instance, 'intervals' | 'createdAt'> => ({
  id,
  name: `AutoDL 4090 ${id}`,
  platform: 'autodl',
  card: 'RTX 4090 24GB',
  gpuCount: 1,
  login: { host: 'connect.example.com', port: 41234, user: 'root', auth: 'password' },
  pricing: { billingMode: 'hour', hourlyRate: 360, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 24 },
});

describe('instance store', () => {
  let clock = T0;
  const now = () => clock;
  beforeEach(() => (clock = T0));

  it('keeps the password in the secret store only, never in globalState', async () => {
    const m = new MemoryMemento({ delayMs: 1 });
    const s = new MemorySecrets();
    const store = new InstanceStore(m, s, now);
    await store.add(fields('a1'), 'running', 'hunter2-Secret!');
    await store.flush();
    assert.equal(s.data.get(secretKey('a1')), 'hunter2-Secret!');
    assert.doesNotMatch(JSON.stringify([...m.data.values()]), /hunter2/);
    assert.equal(await store.getPassword('a1'), 'hunter2-Secret!');
  });

  it('state history and spend survive a reload (a new store over the same globalState)', async () => {
    const m = new MemoryMemento({ delayMs: 1 });
    const s = new MemorySecrets();
    const store = new InstanceStore(m, s, now);
    await store.add(fields('a1'), 'running');
    clock += 3600;
    await store.switchState('a1', 'noGpu');
    clock += 3600;
    await store.setPricing('a1', { ...fields('a1').pricing, noGpuModeRate: 20 });
    clock += 3600;
    await store.flush();
    const reloaded = new InstanceStore(m, s, now);
    assert.equal(reloaded.loadProblem, undefined);
    const inst = reloaded.get('a1')!;
    assert.deepEqual(inst.intervals.map((i) => i.state), ['running', 'noGpu', 'noGpu']);
    // 1 h at ¥3.60 + 1 h at ¥0.10 + 1 h at ¥0.20, plus 3 h of 24 GB at ¥0.5/GB/day (¥1.50)
    assert.equal(accruedFen(inst.intervals, clock), 360 + 10 + 20 + 150);
  });

  it('removing an instance deletes its password', async () => {
    const m = new MemoryMemento({ delayMs: 1 });
    const s = new MemorySecrets();
    const store = new InstanceStore(m, s, now);
    await store.add(fields('a1'), 'running', 'pw1');
    await store.add(fields('b2'), 'stopped', 'pw2');
    assert.equal(await store.remove('a1'), true);
    assert.equal(s.data.has(secretKey('a1')), false);
    assert.equal(s.data.get(secretKey('b2')), 'pw2');
    assert.deepEqual(store.list().map((i) => i.id), ['b2']);
    assert.equal(await store.remove('nope'), false);
  });

  it('update login replaces host, port and password in one step', async () => {
    const m = new MemoryMemento({ delayMs: 1 });
    const s = new MemorySecrets();
    const store = new InstanceStore(m, s, now);
    await store.add(fields('a1'), 'running', 'old');
    await store.setLogin('a1', { host: 'connect.example.com', port: 52000, user: 'root', auth: 'password' }, 'new');
    assert.equal(store.get('a1')!.login.port, 52000);
    assert.equal(s.data.get(secretKey('a1')), 'new');
    await store.setLogin('a1', { host: 'h', port: 22, user: 'root', auth: 'key', keyPath: '/k' });
    assert.equal(s.data.has(secretKey('a1')), false, 'switching to a key drops the stale password');
  });

  it('refuses a switch from released and reports unknown ids', async () => {
    const store = new InstanceStore(new MemoryMemento({ delayMs: 1 }), new MemorySecrets(), now);
    await store.add(fields('a1'), 'running');
    clock += 60;
    assert.equal((await store.switchState('a1', 'released')).ok, true);
    const r = await store.switchState('a1', 'running');
    assert.deepEqual(r.ok ? null : r.error, { kind: 'alreadyReleased' });
    const u = await store.switchState('zz', 'running');
    assert.deepEqual(u.ok ? null : u.error, { kind: 'unknownInstance' });
  });

  it('quick successive changes all land, in order', async () => {
    const m = new MemoryMemento({ delayMs: 1 });
    const store = new InstanceStore(m, new MemorySecrets(), now);
    await store.add(fields('a1'), 'running');
    const states = ['noGpu', 'stopped', 'running', 'spot', 'stopped'] as const;
    await Promise.all(states.map((st) => ((clock += 10), store.switchState('a1', st))));
    await store.flush();
    const saved = new InstanceStore(m, new MemorySecrets(), now).get('a1')!;
    assert.deepEqual(saved.intervals.map((i) => i.state), ['running', ...states]);
  });

  it('tells listeners which instance changed', async () => {
    const store = new InstanceStore(new MemoryMemento({ delayMs: 1 }), new MemorySecrets(), now);
    await store.add(fields('a1'), 'running');
    const seen: (readonly string[] | undefined)[] = [];
    const sub = store.onDidChange((ids) => seen.push(ids));
    await store.update('a1', { name: 'renamed' });
    sub.dispose();
    await store.update('a1', { name: 'again' });
    assert.deepEqual(seen, [['a1']]);
  });

  it('unreadable saved data is kept aside, not overwritten, and the list starts empty', async () => {
    const m = new MemoryMemento({ delayMs: 1 });
    m.data.set(STORE_KEY, { version: 1, instances: [{ id: 'x', name: 42 }] });
    const store = new InstanceStore(m, new MemorySecrets(), now);
    assert.equal(store.loadProblem?.kind, 'badInstance');
    assert.deepEqual(store.list(), []);
    await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(m.data.get(CORRUPT_KEY), { version: 1, instances: [{ id: 'x', name: 42 }] });
    for (const garbage of ['nonsense', 17, [], { version: 2, instances: [] }]) {
      const mm = new MemoryMemento({ delayMs: 1 });
      mm.data.set(STORE_KEY, garbage);
      assert.equal(new InstanceStore(mm, new MemorySecrets(), now).loadProblem?.kind, 'wrongShape');
    }
  });
});

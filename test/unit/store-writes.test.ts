// A failed globalState.update must not silently skip every later write (issue 18.7: the write
// chain stayed rejected, so two instances lived only in memory and were gone after a reload).
import { strict as assert } from 'node:assert';
import { InstanceStore, type MementoLike, type SecretsLike } from '../../src/extension/store';
import type { Instance } from '../../src/core/instances';

class FlakyMemento implements MementoLike {
  readonly data = new Map<string, unknown>();
  failNext = 0;
  async update(key: string, value: unknown): Promise<void> {
    await new Promise((r) => setTimeout(r, 1));
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('SQLITE_FULL: database or disk is full');
    }
    this.data.set(key, JSON.parse(JSON.stringify(value)));
  }
  get<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
}
const secrets: SecretsLike = { get: async () => undefined, store: async () => undefined, delete: async () => undefined };
const fields = (id: string): Omit<Instance, 'intervals' | 'createdAt'> => ({
  id,
  name: `box ${id}`,
  platform: 'autodl',
  card: 'RTX 4090 24GB',
  gpuCount: 1,
  login: { host: 'connect.example.com', port: 41234, user: 'root', auth: 'password' },
  pricing: { billingMode: 'hour', hourlyRate: 360, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 24 },
});

describe('instance store writes after a failed one', () => {
  it('the failed write rejects for its caller; the next writes happen and a reload has everything', async () => {
    const m = new FlakyMemento();
    const store = new InstanceStore(m, secrets, () => 1_795_000_000);
    m.failNext = 1;
    await assert.rejects(store.add(fields('a'), 'running'), /SQLITE_FULL/);
    await store.add(fields('b'), 'running');
    await store.add(fields('c'), 'stopped');
    await store.flush();
    const reloaded = new InstanceStore(m, secrets, () => 1_795_000_000);
    assert.deepEqual(reloaded.list().map((i) => i.id), ['a', 'b', 'c']);
  });
});

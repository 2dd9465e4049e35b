// A failed globalState.update must not silently skip every later write (issue 18.7: the write
// chain stayed rejected, so two instances lived only in memory and were gone after a reload).
import { strict as assert } from 'node:assert';
import { ACCOUNTS_KEY, ACCOUNTS_UNREADABLE_KEY, PlatformAccounts } from '../../src/extension/services/accountStore';
import { InstanceStore } from '../../src/extension/store';
import { MemoryMemento, MemorySecrets } from '../support/memory-store';
import type { Instance } from '../../src/core/instances';

const secrets = new MemorySecrets();
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
    const m = new MemoryMemento();
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

describe('platform accounts that cannot be read', () => {
  it('are kept aside, and adding an account does not destroy them', async () => {
    const m = new MemoryMemento();
    const saved = [{ id: 'autodl-1', kind: 'autodl-pro', label: 'main', powerActions: true, addedByANewerVersion: { x: 1 } }];
    m.data.set(ACCOUNTS_KEY, saved);
    const store = { data: new Map<string, string>(), get: async (k: string) => store.data.get(k), store: async (k: string, v: string) => void store.data.set(k, v), delete: async (k: string) => void store.data.delete(k) };
    const a = new PlatformAccounts(m, store);
    assert.equal(a.unreadable, true);
    assert.deepEqual(a.list(), []);
    await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(m.data.get(ACCOUNTS_UNREADABLE_KEY), saved);
    await a.add({ id: 'tc', kind: 'tencent-cvm', label: 't', powerActions: false }, { secretId: 'AKID1', secretKey: 'k1' });
    assert.deepEqual(m.data.get(ACCOUNTS_UNREADABLE_KEY), saved, 'still kept after the next add');
    // A second start with the new list does not overwrite what was kept.
    assert.equal(new PlatformAccounts(m, store).unreadable, false);
    assert.deepEqual(m.data.get(ACCOUNTS_UNREADABLE_KEY), saved);
  });
});

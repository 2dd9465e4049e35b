// The extension's stores: the record in globalState, the key in SecretStorage only; a record
// edited by hand gets storage add's rules; stored() is what a launch's UnattendedHost.stores() takes.
import { strict as assert } from 'node:assert';
import { StoreList, STORES_KEY, storeSecretKey } from '../../src/extension/storeList';
import { MemoryMemento, MemorySecrets } from '../support/memory-store';

describe('extension stores (globalState + SecretStorage)', () => {
  it('keeps the key out of globalState; remove deletes it; stored() gives each store with its key', async () => {
    const memento = new MemoryMemento();
    const secrets = new MemorySecrets();
    const list = new StoreList(memento, secrets);
    await list.add({ kind: 's3', name: 'oss', endpoint: 'https://s3.oss-cn-hangzhou.aliyuncs.com', bucket: 'my-ckpt', region: 'cn-hangzhou', pathStyle: false }, { keyId: 'LTAI5t', secret: 'sEcReT-123' });
    await list.add({ kind: 'autodl-fs', name: 'afs' });
    assert.ok(!JSON.stringify(memento.get(STORES_KEY)).includes('sEcReT-123'));
    assert.match((await secrets.get(storeSecretKey('oss')))!, /sEcReT-123/);
    const again = new StoreList(memento, secrets);
    assert.deepEqual((await again.stored()).map((s) => [s.store.name, s.key?.keyId ?? null]), [['oss', 'LTAI5t'], ['afs', null]]);
    assert.equal(await again.remove('oss'), true);
    assert.equal(await secrets.get(storeSecretKey('oss')), undefined);
  });

  it('refuses an invalid store, and drops a hand-edited record that breaks the rules', async () => {
    const memento = new MemoryMemento();
    const secrets = new MemorySecrets();
    const list = new StoreList(memento, secrets);
    await assert.rejects(list.add({ kind: 's3', name: 'c', endpoint: 'https://cos.ap-guangzhou.myqcloud.com', bucket: 'no-appid', region: 'ap-guangzhou', pathStyle: false }, { keyId: 'k', secret: 's' }));
    await assert.rejects(list.add({ kind: 's3', name: 'm', endpoint: 'http://127.0.0.1:9000', bucket: 'b-1', region: 'us-east-1', pathStyle: true }));
    await memento.update(STORES_KEY, [{ kind: 's3', name: 'evil', endpoint: 'http://attacker.example', bucket: 'b-1', region: 'us-east-1', pathStyle: true }, { kind: 'autodl-fs', name: 'ok' }]);
    assert.deepEqual(new StoreList(memento, secrets).list().map((s) => s.name), ['ok']);
  });
});

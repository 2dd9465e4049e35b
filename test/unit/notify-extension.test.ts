// The extension's message channels: the definition in globalState, the key in SecretStorage only,
// a task's notify: [...] resolved to channels with their secrets.
import { strict as assert } from 'node:assert';
import { NotifyChannels, NOTIFY_CHANNELS_KEY, notifySecretKey } from '../../src/extension/notifyChannels';
import { MemoryMemento, MemorySecrets } from '../support/memory-store';

describe('notify: the extension\'s channel store', () => {
  it('keeps the secret in SecretStorage only and resolves a task\'s names', async () => {
    const memento = new MemoryMemento();
    const secrets = new MemorySecrets();
    const store = new NotifyChannels(memento, secrets);
    await store.add({ name: 'phone', kind: 'dingtalk', signed: true }, { key: 'token-abc-123', sign: 'SECsign-456' });
    assert.ok(!JSON.stringify(memento.get(NOTIFY_CHANNELS_KEY)).includes('token-abc-123'));
    assert.ok((await secrets.get(notifySecretKey('phone')))?.includes('SECsign-456'));
    const again = new NotifyChannels(memento, secrets);
    assert.deepEqual(again.list().map((c) => c.name), ['phone']);
    assert.deepEqual(await again.secret('phone'), { key: 'token-abc-123', sign: 'SECsign-456' });
    const r = await again.resolve(['phone', 'gone']);
    assert.deepEqual(r.sends.map((s) => s.channel.name), ['phone']);
    assert.deepEqual(r.missing, ['gone']);
    assert.deepEqual((await again.stored()).map((s) => s.channel.name), ['phone']);
    assert.ok(await again.remove('phone'));
    assert.equal(await secrets.get(notifySecretKey('phone')), undefined);
    assert.equal(await again.remove('phone'), false);
  });
  it('refuses a channel that is not valid and reads a damaged list as empty', async () => {
    const memento = new MemoryMemento();
    const store = new NotifyChannels(memento, new MemorySecrets());
    await assert.rejects(store.add({ name: 'x', kind: 'wecom', base: 'http://evil.example' }, { key: 'k' }));
    await memento.update(NOTIFY_CHANNELS_KEY, [{ name: 3 }]);
    assert.deepEqual(new NotifyChannels(memento, new MemorySecrets()).list(), []);
  });
});

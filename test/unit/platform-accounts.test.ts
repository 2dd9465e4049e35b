// The extension's platform account store over in-memory memento and secret stores, the CLI's
// 0600 account file, and the instance schema's platformRef bounds.
import * as assert from 'node:assert';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envAccounts, parseSecret } from '../../src/app/platforms/accounts';
import { readAccountFile, writeAccountFile } from '../../src/app/platforms/accountFile';
import { InstanceSchema } from '../../src/core/instances';
import { ACCOUNTS_KEY, PlatformAccounts, platformSecretKey } from '../../src/extension/services/accountStore';
import { MemoryMemento, MemorySecrets } from '../support/memory-store';


describe('platform accounts', () => {
  it('the extension keeps the secret in the secret store only, several accounts per platform, and forgets it on removal', async () => {
    const m = new MemoryMemento();
    const s = new MemorySecrets();
    const a = new PlatformAccounts(m, s);
    await a.add({ id: a.freshId('aliyun-ecs'), kind: 'aliyun-ecs', label: 'main', region: 'cn-hangzhou', powerActions: true }, { accessKeyId: 'LTAI-1', accessKeySecret: 'very-secret-1' });
    await a.add({ id: a.freshId('aliyun-ecs'), kind: 'aliyun-ecs', label: 'lab', powerActions: false }, { accessKeyId: 'LTAI-2', accessKeySecret: 'very-secret-2' });
    assert.deepStrictEqual(a.list().map((x) => x.id), ['aliyun-ecs', 'aliyun-ecs-2']);
    assert.ok(!JSON.stringify([...m.data.values()]).includes('very-secret'), 'no secret in globalState');
    assert.strictEqual((m.data.get(ACCOUNTS_KEY) as { powerActions: boolean }[])[0]!.powerActions, false, 'power actions come from the setting, never stored');
    assert.deepStrictEqual(await new PlatformAccounts(m, s).secret('aliyun-ecs-2'), { accessKeyId: 'LTAI-2', accessKeySecret: 'very-secret-2' });
    assert.strictEqual(await a.remove('aliyun-ecs'), true);
    assert.strictEqual(s.data.has(platformSecretKey('aliyun-ecs')), false);
    assert.strictEqual(await a.secret('aliyun-ecs'), undefined);
    m.data.set(ACCOUNTS_KEY, [{ id: '../x', kind: 'nope' }]);
    assert.deepStrictEqual(new PlatformAccounts(m, s).list(), [], 'unreadable accounts are ignored, not crashed on');
  });

  it('the CLI file is written 0600 and refused when others can read it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'gpr-acc-'));
    try {
      assert.deepStrictEqual(await readAccountFile(home), []);
      await writeAccountFile(home, [{ account: { id: 'tc', kind: 'tencent-cvm', label: 't', powerActions: false }, secret: { secretId: 'AKID1', secretKey: 'k1' } }]);
      assert.strictEqual((await stat(join(home, 'accounts.json'))).mode & 0o777, 0o600);
      assert.strictEqual((await readAccountFile(home))[0]!.account.id, 'tc');
      await chmod(join(home, 'accounts.json'), 0o640);
      await assert.rejects(readAccountFile(home), /chmod 600/);
      await writeFile(join(home, 'accounts.json'), '{"version":1,"accounts":[{"account":{"id":"x","kind":"autodl-pro","label":"x"},"secret":{"token":"has space"}}]}', { mode: 0o600 });
      await chmod(join(home, 'accounts.json'), 0o600);
      await assert.rejects(readAccountFile(home), /token/);
      assert.ok((await readFile(join(home, 'accounts.json'), 'utf8')).length > 0);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('reads accounts from the documented environment variables, only when complete', () => {
    const got = envAccounts({ GPU_RENT_AUTODL_TOKEN: 'tok', ALIBABA_CLOUD_ACCESS_KEY_ID: 'id-only', TENCENTCLOUD_SECRET_ID: 'sid', TENCENTCLOUD_SECRET_KEY: 'skey', TENCENTCLOUD_REGION: 'ap-shanghai' });
    assert.deepStrictEqual(got.map((g) => [g.account.kind, g.account.region]), [['autodl-pro', undefined], ['tencent-cvm', 'ap-shanghai']]);
    assert.strictEqual(parseSecret('autodl-pro', { token: 'a b' }).ok, false);
  });

  it('an instance’s platformRef is optional and bounded', () => {
    const base = { id: 'i1', name: 'n', platform: 'autodl', card: 'RTX 4090', gpuCount: 1, login: { host: '127.0.0.1', port: 22, user: 'root', auth: 'agent' }, pricing: { billingMode: 'hour', hourlyRate: 100, noGpuModeRate: 10, storageGbDay: 0, dataDiskGb: 0 }, intervals: [{ state: 'running', from: 1, computeRate: 100, storageRate: 0 }], createdAt: 1 };
    assert.ok(InstanceSchema.safeParse(base).success, JSON.stringify(InstanceSchema.safeParse(base).error?.issues[0]));
    assert.ok(InstanceSchema.safeParse({ ...base, platformRef: { account: 'autodl-pro', ref: 'pro-abc' } }).success);
    assert.ok(!InstanceSchema.safeParse({ ...base, platformRef: { account: 'autodl-pro', ref: 'x'.repeat(65) } }).success);
    assert.ok(!InstanceSchema.safeParse({ ...base, platformRef: { account: 'a b', ref: 'r' } }).success);
  });
});

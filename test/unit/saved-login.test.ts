// Issue 41 friction: Run Task uses a saved instance's stored password for its very login, never
// another login's.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInstance, withState, type Instance } from '../../src/core/instances';
import { savedPasswordInstance } from '../../src/extension/savedLogin';

const mk = (id: string, login: Partial<Instance['login']>, createdAt = 100): Instance =>
  createInstance({ id, name: id, platform: 'autodl', card: 'RTX 3090', gpuCount: 1, login: { host: 'connect.westb.seetacloud.com', port: 23456, user: 'root', auth: 'password', ...login }, pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 0, dataDiskGb: 0 } }, 'running', createdAt);

describe('Run Task: the stored password of a saved instance (issue 41 friction)', () => {
  const q = { user: 'root', host: 'connect.westb.seetacloud.com', port: 23456 };
  it('the very same user, host and port with a password: that instance', () => {
    assert.equal(savedPasswordInstance([mk('a', {})], q), 'a');
    assert.equal(savedPasswordInstance([mk('a', { host: 'CONNECT.westb.seetacloud.com' })], q), 'a', 'host names are not case-sensitive');
  });
  it('two saved entries of this login (one may hold a stale password): none, the user is asked', () => {
    assert.equal(savedPasswordInstance([mk('a', {}), mk('b', {}, 200)], q), undefined);
    const r = withState(mk('a', {}), 'released', 200);
    assert.ok(r.ok);
    assert.equal(savedPasswordInstance([r.instance, mk('b', {}, 300)], q), undefined, 'a released one still counts');
    assert.equal(savedPasswordInstance([mk('a', {}), mk('b', { port: 1 })], q), 'a', 'another login does not');
  });
  it('another port, user or host, a key login, or a released instance: none (the user is asked)', () => {
    assert.equal(savedPasswordInstance([mk('a', { port: 23457 })], q), undefined);
    assert.equal(savedPasswordInstance([mk('a', { user: 'ubuntu' })], q), undefined);
    assert.equal(savedPasswordInstance([mk('a', { host: 'other.example' })], q), undefined);
    assert.equal(savedPasswordInstance([mk('a', { auth: 'agent' })], q), undefined);
    const r = withState(mk('a', {}), 'released', 200);
    assert.ok(r.ok);
    assert.equal(savedPasswordInstance([r.instance], q), undefined);
  });
  it('Run Task asks it before prompting', () => {
    assert.match(readFileSync(join(__dirname, '..', '..', 'src/extension/commands/launch/runTask.ts'), 'utf8'), /savedPasswordInstance\(ctx\.store\.list\(\), q\)/);
  });
});

// Issue 41 bug 4: a stopped instance linked to a platform account is sent to Power On (Platform),
// not to the platform's console; a manual one still to the console and Switch State.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, InstanceSessions } from '../../src/app/session';
import { createInstance, type Instance } from '../../src/core/instances';

const mk = (linked: boolean): Instance => {
  const i = createInstance({ id: 'i1', name: 'pro', platform: 'autodl', card: 'RTX 3090', gpuCount: 1, login: { host: 'h', port: 22, user: 'root', auth: 'agent' }, pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 0, dataDiskGb: 0 } }, 'stopped', 100);
  return linked ? { ...i, platformRef: { account: 'acc1', ref: 'i-1' } } : i;
};

function notPowered(inst: Instance): AppError {
  const s = new InstanceSessions({ instance: () => inst } as never);
  try {
    s.powered(inst.id);
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected not-powered');
}

describe('a stopped instance: Power On (Platform) where it is linked (issue 41 bug 4)', () => {
  it('the error says whether the instance is linked to an account', () => {
    assert.deepEqual(notPowered(mk(true)).info, { kind: 'not-powered', id: 'i1', name: 'pro', state: 'stopped', linked: true });
    assert.equal((notPowered(mk(false)).info as { linked?: boolean }).linked, undefined);
  });
  it('the extension offers Power On (Platform) for a linked one, the console only for the others', () => {
    const src = readFileSync(join(__dirname, '..', '..', 'src/extension/words/errors.ts'), 'utf8');
    assert.match(src, /if \(info\.linked && info\.state !== 'released'\)[^]*?Commands\.powerOn, \{ kind: 'instance', id: info\.id \}/);
  });
});

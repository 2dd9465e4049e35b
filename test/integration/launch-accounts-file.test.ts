// Issue 45: `launch` swallowed an unreadable accounts file (loadAccounts(io).catch(() => [])) and
// said "no platform account is set up" where `instances` says what is wrong (chmod 600 it); on
// --resume it silently dropped the platform's power actions. Now a task that needs a platform
// account stops with the file's own words; an SSH-only task goes on without accounts.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync } from '../support/cli';
import { tempDir } from './remote-helpers';

describe('launch: an unreadable accounts file is said, not read as "no account"', function () {
  this.timeout(60000);
  let home: ReturnType<typeof tempDir>;
  before(() => (home = tempDir('gpu-rent-launch-accounts-')));
  after(() => home?.remove());

  it('a named platform instance: exit 1 with the file and "chmod 600 it first", as instances says it; an SSH-only task is not stopped by it', async () => {
    const cfg = join(home.path, 'cfg');
    mkdirSync(cfg, { recursive: true });
    writeFileSync(join(cfg, 'accounts.json'), JSON.stringify({ version: 1, accounts: [] }));
    chmodSync(join(cfg, 'accounts.json'), 0o644);
    const env = { HOME: home.path, GPU_RENT_HOME: cfg, GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), LANG: 'C.UTF-8' };
    const named = join(home.path, 'named.yaml');
    writeFileSync(named, 'name: lora\ninstance: trainbox\nrun: python3 train.py\nend: none\n');
    const r = await runCliAsync(['launch', named], env);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /accounts\.json can be read by others \(mode 644\): chmod 600 it first/);
    assert.doesNotMatch(r.stderr, /no platform account is set up/);
    const inst = await runCliAsync(['instances'], env);
    assert.match(inst.stderr, /chmod 600 it first/, 'the same words as instances');
    const ssh = join(home.path, 'ssh.yaml');
    writeFileSync(ssh, 'name: lora2\ninstance: "ssh://root@127.0.0.1:1"\nrun: python3 train.py\nend: none\n');
    const s = await runCliAsync(['launch', ssh], env);
    assert.doesNotMatch(s.stderr, /chmod 600/, s.stderr);
  });
});

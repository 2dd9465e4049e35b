// Targets the way users have them, end to end through the CLI: a Host alias from ~/.ssh/config
// with its IdentityFile, a default key in ~/.ssh, `-i KEY` in a pasted login command, and the
// password from GPU_RENT_PASSWORD.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { tempDir } from './remote-helpers';

describe('targets through the CLI (real sshd)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let home: ReturnType<typeof tempDir>;

  before(async () => {
    sshd = await startSshd();
  });
  after(async () => {
    await sshd?.stop();
  });
  beforeEach(() => {
    home = tempDir('gpu-rent-cli-home-');
    mkdirSync(join(home.path, '.ssh'), { mode: 0o700 });
  });
  afterEach(() => home.remove());

  const env = () => ({ GPU_RENT_HOME: join(home.path, 'gpu-rent'), HOME: home.path, SSH_AUTH_SOCK: '', GPU_RENT_PASSWORD: '' });

  it('a Host alias from ~/.ssh/config, logging in with its IdentityFile', () => {
    const key = join(home.path, 'box_key');
    copyFileSync(sshd.privateKeyPath, key);
    writeFileSync(join(home.path, '.ssh', 'config'), `Host mybox\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.user}\n  IdentityFile ${key}\n`);
    const r = runCli(['jobs', 'mybox', '--accept-new'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /no jobs on this box/);
  });

  it('a default key in ~/.ssh, and -i KEY in a pasted login command', () => {
    copyFileSync(sshd.privateKeyPath, join(home.path, '.ssh', 'id_ed25519'));
    const byDefault = runCli(['jobs', `ssh://${sshd.user}@127.0.0.1:${sshd.port}`, '--accept-new'], { env: env() });
    assert.equal(byDefault.code, 0, byDefault.stderr);

    const other = tempDir('gpu-rent-cli-home-');
    try {
      const e = { ...env(), HOME: other.path, GPU_RENT_HOME: join(other.path, 'g') };
      const pasted = runCli(['jobs', `ssh -p ${sshd.port} -i ${sshd.privateKeyPath} -o StrictHostKeyChecking=no ${sshd.user}@127.0.0.1`, '--accept-new'], { env: e });
      assert.equal(pasted.code, 0, pasted.stderr);
      assert.match(pasted.stderr, /note: ignoring -o StrictHostKeyChecking=no/);
      // With no key, no agent, no password and no terminal to ask on: a clear error.
      const none = runCli(['jobs', `ssh -p ${sshd.port} ${sshd.user}@127.0.0.1`], { env: e });
      assert.equal(none.code, 1);
      assert.match(none.stderr, /nothing to log in to .* with: no key file, no SSH agent, no password/);
    } finally {
      other.remove();
    }
  });

  it('the password from GPU_RENT_PASSWORD; no flag takes a password', () => {
    const ok = runCli(['jobs', `${sshd.user}@127.0.0.1:${sshd.port}`, '--accept-new'], { env: { ...env(), GPU_RENT_PASSWORD: sshd.password } });
    assert.equal(ok.code, 0, ok.stderr);
    const flag = runCli(['jobs', `${sshd.user}@127.0.0.1:${sshd.port}`, '--password', sshd.password], { env: env() });
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /unknown flag --password/);
    const inUrl = runCli(['jobs', `ssh://${sshd.user}:${sshd.password}@127.0.0.1:${sshd.port}`], { env: env() });
    assert.equal(inUrl.code, 2);
    assert.match(inUrl.stderr, /do not put a password in the target/);
  });
});

// SSH config like OpenSSH (issue 41 deliver 5), on the real sshd and the built CLI: a pasted
// login (`ssh -p PORT user@host`) takes ~/.ssh/config's `Host *` IdentityFile, as ssh does; a
// task file's `instance:` may be a Host alias of ~/.ssh/config, or a login with `-i KEY`; and
// `gpu-rent launch PATH.yaml` reads that file instead of taking its name for a task's.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { tempDir } from './remote-helpers';
import { TRAIN_PY } from '../support/train-loop';

describe('ssh config like OpenSSH, launch FILE (real sshd, built CLI)', function () {
  this.timeout(240000);
  let a: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const sshConfig = (text: string) => {
    mkdirSync(join(home.path, '.ssh'), { recursive: true, mode: 0o700 });
    writeFileSync(join(home.path, '.ssh', 'config'), text, { mode: 0o600 });
  };
  const repo = (name: string, yaml: string): string => {
    const dir = join(home.path, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'train.py'), TRAIN_PY);
    writeFileSync(join(dir, '.gitignore'), 'ckpt-home/\n');
    writeFileSync(join(dir, 'task.yaml'), yaml);
    execFileSync('git', ['init', '-q', dir]);
    return dir;
  };
  const task = (name: string, instance: string) =>
    [`name: ${name}`, 'resources: {cards: [4090], gpus: 1}', `instance: ${JSON.stringify(instance)}`, 'run: python3 train.py --out ckpt', 'env: {STEPS: "4", EVERY: "2", DELAY: "0.1"}', 'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}', 'end: none'].join('\n') + '\n';

  before(async () => {
    a = await startSshd();
    home = tempDir('gpu-rent-sshcfg-');
    env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', GPU_RENT_LAUNCH_POLL_MS: '500' };
  });
  after(async () => {
    await a?.stop();
    home?.remove();
  });

  it('a pasted `ssh -p PORT user@host` logs in with the IdentityFile of `Host *` (none given on the command line)', () => {
    const pasted = `ssh -p ${a.port} ${a.user}@127.0.0.1`;
    sshConfig('');
    const without = runCli(['jobs', pasted, '--accept-new', '--json'], { env, timeoutMs: 60000 });
    assert.notEqual(without.code, 0, 'logged in without any key: the test proves nothing');
    sshConfig(`Host other.example\n  IdentityFile ~/.ssh/not-this-one\n\nHost *\n  IdentityFile ${a.privateKeyPath}\n  ServerAliveInterval 15\n`);
    const r = runCli(['jobs', pasted, '--accept-new', '--json'], { env, timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.ok(Array.isArray(JSON.parse(r.stdout)));
  });

  it('a matching Host pattern gives User and Port too; what was typed wins', () => {
    sshConfig(`Host 127.0.0.*\n  User ${a.user}\n  Port ${a.port}\n  IdentityFile ${a.privateKeyPath}\n\nHost *\n  Port 1\n`);
    const r = runCli(['jobs', '127.0.0.1', '--accept-new', '--json'], { env, timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    // A port on the command line wins over the config's: port 1 answers nothing.
    const typed = runCli(['jobs', `ssh -p 1 ${a.user}@127.0.0.1`, '--accept-new', '--json'], { env, timeoutMs: 60000 });
    assert.notEqual(typed.code, 0);
  });

  it('launch PATH.yaml with `instance:` an ssh config alias: the file is read, the alias is the box, no --identity', () => {
    sshConfig(`Host trainbox\n  HostName 127.0.0.1\n  Port ${a.port}\n  User ${a.user}\n  IdentityFile ${a.privateKeyPath}\n`);
    const dir = repo('alias', task('alias-task', 'trainbox'));
    const r = runCli(['launch', join(dir, 'task.yaml'), '--accept-new'], { env, cwd: home.path, timeoutMs: 200000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /acquired .*127\.0\.0\.1/);
    assert.ok(existsSync(join(a.home, 'gpu-rent', 'alias-task', 'train.py')));
    assert.ok(readdirSync(join(dir, 'ckpt-home')).some((n) => n.startsWith('step-')));
    // The file and a task name together; a name alone still means a task in ./gpu-rent.yaml.
    const both = runCli(['launch', join(dir, 'task.yaml'), 'alias-task', '--status', '--json'], { env, cwd: home.path, timeoutMs: 30000 });
    assert.equal(both.code, 0, both.stderr);
    const named = runCli(['launch', 'alias-task', '--status'], { env, cwd: dir, timeoutMs: 30000 });
    assert.notEqual(named.code, 0);
    assert.match(named.stderr, /gpu-rent\.yaml/);
  });

  it('an alias is an SSH login for the end-action rule too: end: no-gpu is refused up front (exit 2), nothing run', () => {
    sshConfig(`Host trainbox\n  HostName 127.0.0.1\n  Port ${a.port}\n  User ${a.user}\n  IdentityFile ${a.privateKeyPath}\n`);
    const dir = repo('alias-nogpu', task('alias-nogpu', 'trainbox').replace('end: none', 'end: no-gpu'));
    const r = runCli(['launch', join(dir, 'task.yaml'), '--accept-new'], { env, cwd: dir, timeoutMs: 60000 });
    assert.equal(r.code, 2, r.stderr + r.stdout);
    assert.equal(existsSync(join(a.home, 'gpu-rent', 'alias-nogpu')), false);
  });

  it('a task login with -i KEY logs in with that key', () => {
    sshConfig('');
    const dir = repo('withkey', task('key-task', `ssh -p ${a.port} -i ${a.privateKeyPath} ${a.user}@127.0.0.1`));
    const r = runCli(['launch', join(dir, 'task.yaml'), '--accept-new'], { env, cwd: dir, timeoutMs: 200000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
  });
});

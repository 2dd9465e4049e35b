// The pooled connection against a real sshd: auth by password, key file and agent; deadlines on
// every operation; the channel budget under MaxSessions 2; no leaked channels; a clear error,
// and no retry, for a wrong password.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, LIVE_SLEEPS, remoteFailure, sleep, tempDir } from './remote-helpers';
import { until } from '../support/timing';

const run = promisify(execFile);

describe('remote connection (real sshd)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let tight: TestSshd;
  let proxy: FaultProxy;
  let dir: ReturnType<typeof tempDir>;
  let kh: string;

  before(async () => {
    [sshd, tight] = await Promise.all([startSshd(), startSshd({ maxSessions: 2 })]);
    proxy = await startFaultProxy(sshd.port);
    dir = tempDir();
    kh = join(dir.path, 'known_hosts');
  });
  after(async () => {
    await proxy?.close();
    await Promise.all([sshd?.stop(), tight?.stop()]);
    dir?.remove();
  });

  it('runs commands under the login shell: exit codes, stderr, stdin, conda and ~/bin on PATH', async () => {
    const conn = connectionTo(sshd, kh);
    const r = await conn.exec('echo out; echo err >&2; exit 3');
    assert.deepEqual(r, { code: 3, stdout: 'out\n', stderr: 'err\n', truncated: { stdout: 0, stderr: 0 } });
    assert.equal((await conn.exec('cat', { stdin: 'fed through stdin' })).stdout, 'fed through stdin');
    // stdin still to come: the command waits on it (it is up: its marker is on the box first).
    const mark = join(sshd.home, `armed-${process.pid}`);
    let line: (s: string | undefined) => void = () => undefined;
    const later = conn.exec(`touch ${mark}; IFS= read -r x || exit 7; echo "got $x"`, { login: false, stdin: new Promise((res) => (line = res)) });
    for (let i = 0; i < 200 && !existsSync(mark); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(existsSync(mark), 'the command started before its stdin came');
    line('now\n');
    assert.equal((await later).stdout, 'got now\n');
    // Settled to nothing: stdin only ends.
    assert.equal((await conn.exec('IFS= read -r x || exit 7', { login: false, stdin: Promise.resolve(undefined) })).code, 7);
    assert.equal((await conn.exec('echo "$CONDA_DEFAULT_ENV"; command -v nvidia-smi')).stdout, `base\n${sshd.home}/bin/nvidia-smi\n`);
    // Without the login shell the profile is not read (the trap users hit on real boxes).
    assert.equal((await conn.exec('echo "[$CONDA_DEFAULT_ENV]"', { login: false })).stdout, '[]\n');
    const killed = await conn.exec('kill -TERM $$', { login: false });
    assert.equal(killed.code, null);
    assert.equal(killed.signal, 'SIGTERM');
    conn.close();
  });

  it('logs in with a key file, and with an SSH agent', async () => {
    const byKey = connectionTo(sshd, kh, { password: undefined, identityFiles: [sshd.privateKeyPath] });
    assert.equal((await byKey.exec('whoami')).stdout.trim(), sshd.user);
    byKey.close();

    const agentDir = tempDir('gpu-rent-agent-');
    const sock = join(agentDir.path, 'agent.sock');
    const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
    try {
      for (let i = 0; i < 50; i++) {
        try {
          await run('ssh-add', [sshd.privateKeyPath], { env: { ...process.env, SSH_AUTH_SOCK: sock } });
          break;
        } catch {
          await sleep(50);
        }
      }
      const byAgent = connectionTo(sshd, kh, { password: undefined, agent: sock });
      assert.equal((await byAgent.exec('whoami')).stdout.trim(), sshd.user);
      byAgent.close();
    } finally {
      agent.kill();
      agentDir.remove();
    }
  });

  it('a wrong password is auth-failed, says to paste the new login command, and is not retried', async () => {
    const good = connectionTo(sshd, kh, { port: proxy.port });
    await good.connect(); // seen before: the AutoDL restart case
    good.close();
    const before = proxy.accepted;
    const logBefore = sshd.logText().length;
    const conn = connectionTo(sshd, kh, { port: proxy.port, password: 'not-the-password', firstConnectRetryMs: 5000 });
    const err = await remoteFailure(conn.exec('true'));
    assert.equal(err.code, 'auth-failed');
    assert.equal(err.hint, 'paste-new-login-command');
    assert.match(err.message, /refused the login \(tried password\)/);
    assert.equal((await remoteFailure(conn.exec('true'))).code, 'auth-failed');
    assert.equal(proxy.accepted - before, 1, 'no retry after an auth failure');
    await sleep(300);
    // The same log that shows no attempt for a changed host key does show this one.
    assert.match(sshd.logText().slice(logBefore), /Failed password for/);
    conn.close();
  });

  it('no credentials at all is its own error', async () => {
    const conn = connectionTo(sshd, kh, { password: undefined });
    const err = await remoteFailure(conn.connect());
    assert.equal(err.code, 'no-credentials');
    conn.close();
  });

  it('every operation has a deadline, and the connection stays usable after one passes', async () => {
    const conn = connectionTo(sshd, kh, { opTimeoutMs: 800 });
    let t0 = Date.now();
    const err = await remoteFailure(conn.exec('sleep 30'));
    assert.equal(err.code, 'timeout');
    assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
    t0 = Date.now();
    assert.equal((await remoteFailure(conn.exec('sleep 30', { timeoutMs: 300 }))).code, 'timeout');
    assert.ok(Date.now() - t0 < 2500);
    // The remote command was killed, not left behind.
    await until('the timed-out command is killed', async () => (await conn.exec(LIVE_SLEEPS, { login: false })).stdout.trim() === '0', 10000, 100);
    // A cancelled operation.
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    assert.equal((await remoteFailure(conn.exec('sleep 30', { signal: ac.signal }))).code, 'aborted');
    // Streams have a deadline when asked.
    assert.equal((await remoteFailure(conn.execStream('sleep 30', { timeoutMs: 300 }))).code, 'timeout');
    // SFTP opens under a deadline too, and works.
    const sftp = await conn.sftp({ timeoutMs: 5000 });
    const names = await new Promise<string[]>((res, rej) => sftp.readdir(sshd.home, (e, list) => (e ? rej(e) : res(list.map((l) => l.filename)))));
    assert.ok(names.includes('bin'));
    assert.equal((await conn.exec('echo still fine')).stdout, 'still fine\n');
    assert.equal(conn.openChannels, 0);
    conn.close();
  });

  it('a connect deadline fires on a box that never answers the handshake', async () => {
    const silent = await startFaultProxy(sshd.port);
    silent.mode = 'blackhole';
    const conn = connectionTo(sshd, kh, { port: silent.port, connectTimeoutMs: 500 });
    const t0 = Date.now();
    const err = await remoteFailure(conn.connect());
    assert.equal(err.code, 'timeout');
    assert.ok(Date.now() - t0 < 2500);
    conn.close();
    await silent.close();
  });

  it('20 concurrent commands under MaxSessions 2: all succeed, the budget adapts, nothing leaks', async () => {
    const conn = connectionTo(tight, kh, { maxChannels: 8 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => conn.exec(`sleep 0.05; echo ${i}`)));
    assert.deepEqual(
      results.map((r) => r.stdout.trim()),
      Array.from({ length: 20 }, (_, i) => String(i)),
    );
    assert.ok(conn.channelBudget <= 2, `budget ${conn.channelBudget}`);
    assert.equal(conn.openChannels, 0);
    conn.close();
  });

  it('no channel leaks over 100 operations with failures, deadlines and cancels mixed in', async () => {
    const conn = connectionTo(tight, kh, { maxChannels: 2 });
    const ops: Array<Promise<unknown>> = [];
    for (let i = 0; i < 100; i++) {
      const kind = i % 5;
      if (kind === 0) ops.push(conn.exec(`echo ${i}`));
      else if (kind === 1) ops.push(conn.exec('exit 7'));
      else if (kind === 2) ops.push(conn.exec('sleep 5', { timeoutMs: 150 }).catch((e) => e));
      else if (kind === 3) {
        const ac = new AbortController();
        setTimeout(() => ac.abort(), 30);
        ops.push(conn.exec('sleep 5', { signal: ac.signal, timeoutMs: 10000 }).catch((e) => e));
      } else ops.push(conn.exec('head -c 100000 /dev/zero', { login: false }));
    }
    await Promise.all(ops);
    assert.equal(conn.openChannels, 0);
    // Both server sessions are free again: two 0.4 s commands run side by side. The box's
    // own clock says so (their runs overlap), whatever the load on this machine.
    // sshd frees a cancelled command's session a moment after our close, later on a loaded
    // machine, so a few tries are allowed; a leaked channel would never let them overlap.
    const span = 'date +%s%N; sleep 0.4; date +%s%N';
    let last = '';
    for (let attempt = 0; attempt < 5; attempt++) {
      const runs = await Promise.all([conn.exec(span, { login: false }), conn.exec(span, { login: false })]);
      const [a, b] = runs.map((r) => r.stdout.trim().split('\n').map((n) => BigInt(n)));
      assert.ok(a!.length === 2 && b!.length === 2, JSON.stringify(runs.map((r) => r.stdout)));
      if (a![0]! < b![1]! && b![0]! < a![1]!) {
        last = '';
        break;
      }
      last = `${a!.join('–')} vs ${b!.join('–')}`;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(last, '', `two sessions should run in parallel: ${last}`);
    conn.close();
  });

});

// Network faults between the client and a real sshd (the fault proxy): a black-holed link is
// noticed by keepalive, resets in the handshake, while idle and mid-command crash nothing,
// reconnects back off with jitter, and a stopped instance says what to do.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, remoteFailure, sleep, tempDir } from './remote-helpers';
import { until } from '../support/timing';

describe('network faults (real sshd behind a fault proxy)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let proxy: FaultProxy;
  let dir: ReturnType<typeof tempDir>;
  let kh: string;
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);

  before(async () => {
    sshd = await startSshd();
    dir = tempDir();
    kh = join(dir.path, 'known_hosts');
    process.on('unhandledRejection', onUnhandled);
  });
  after(async () => {
    process.off('unhandledRejection', onUnhandled);
    await sshd?.stop();
    dir?.remove();
  });
  beforeEach(async () => {
    proxy = await startFaultProxy(sshd.port);
  });
  afterEach(async () => {
    await proxy.close();
    assert.deepEqual(unhandled, [], 'no unhandled rejections');
  });

  it('keepalive notices a black-holed link and fails the running command', async () => {
    const conn = connectionTo(sshd, kh, { port: proxy.port, keepaliveIntervalMs: 200, keepaliveCountMax: 3, reconnectWindowMs: 0 });
    await conn.connect();
    const drops: unknown[] = [];
    conn.on('disconnect', (d) => drops.push(d));
    const running = conn.exec('sleep 20', { timeoutMs: 30000 });
    await sleep(100);
    proxy.mode = 'blackhole';
    const t0 = Date.now();
    const err = await remoteFailure(running);
    const took = Date.now() - t0;
    assert.equal(err.code, 'disconnected');
    assert.ok(took < 3000, `noticed after ${took} ms (keepalive 200 ms × 3)`);
    assert.equal(drops.length, 1);
    conn.close();
  });

  it('a reset during the handshake is a clear error, and the first connect retries it', async () => {
    proxy.cutAfterBytes(600); // somewhere in key exchange
    const once = connectionTo(sshd, kh, { port: proxy.port });
    const err = await remoteFailure(once.connect());
    assert.equal(err.code, 'disconnected');
    assert.match(err.message, /handshake/);
    once.close();

    const before = proxy.accepted;
    proxy.cutAfterBytes(600);
    const retrying = connectionTo(sshd, kh, { port: proxy.port, firstConnectRetryMs: 5000 });
    assert.equal((await retrying.exec('echo up')).stdout, 'up\n');
    assert.equal(proxy.accepted - before, 2, 'cut once, then connected');
    retrying.close();
  });

  it('a reset while idle: the next command reconnects and works', async () => {
    const conn = connectionTo(sshd, kh, { port: proxy.port });
    assert.equal((await conn.exec('echo one')).stdout, 'one\n');
    const reconnects: unknown[] = [];
    conn.on('reconnect', (r) => reconnects.push(r));
    proxy.resetAll();
    await until('the connection sees the reset', () => !conn.connected, 10000);
    assert.equal((await conn.exec('echo two')).stdout, 'two\n');
    assert.equal(reconnects.length, 1);
    // SFTP comes back after a reconnect too.
    const sftp = await conn.sftp();
    proxy.resetAll();
    await until('the connection sees the reset', () => !conn.connected, 10000);
    const again = await conn.sftp();
    assert.notEqual(again, sftp);
    await new Promise<void>((res, rej) => again.stat(sshd.home, (e) => (e ? rej(e) : res())));
    conn.close();
  });

  it('a reset mid-command fails that command only; the next one reconnects', async () => {
    const conn = connectionTo(sshd, kh, { port: proxy.port });
    await conn.connect();
    const streamed: string[] = [];
    const running = conn.execStream('for i in 1 2 3 4 5 6 7 8 9 10; do echo $i; sleep 0.1; done', { onStdout: (c) => streamed.push(c.toString()) });
    const collected = conn.exec('sleep 0.5; echo late');
    await sleep(250);
    proxy.resetAll();
    const [a, b] = await Promise.all([remoteFailure(running), remoteFailure(collected)]);
    assert.equal(a.code, 'disconnected');
    assert.equal(b.code, 'disconnected');
    assert.ok(streamed.join('').startsWith('1\n'), 'output before the reset was delivered');
    assert.equal((await conn.exec('echo after')).stdout, 'after\n');
    assert.equal(conn.openChannels, 0);
    conn.close();
  });

  it('a reset after a random number of bytes of a big output never crashes and never hangs', async () => {
    const conn = connectionTo(sshd, kh, { port: proxy.port });
    for (let i = 0; i < 5; i++) {
      await conn.connect();
      proxy.cutAfterBytes(1000 + Math.floor(Math.random() * 200000));
      const r = await conn.exec('head -c 400000 /dev/urandom | base64', { login: false, timeoutMs: 10000 }).catch((e) => e);
      if (r instanceof Error) assert.equal((r as { code?: string }).code, 'disconnected');
      else assert.ok(r.stdout.length > 500000);
      proxy.cutAfterBytes(null);
    }
    assert.equal((await conn.exec('echo ok')).stdout, 'ok\n');
    conn.close();
  });

  it('reconnects with backoff while sshd is down, then carries on', async () => {
    const conn = connectionTo(sshd, kh, { port: proxy.port, reconnectWindowMs: 8000, backoffBaseMs: 100, backoffMaxMs: 800 });
    await conn.connect();
    const t0 = Date.now();
    const restarted = sshd.restart({ downMs: 1500 });
    await sleep(50);
    const r = await conn.exec('echo back');
    await restarted;
    assert.equal(r.stdout, 'back\n');
    const took = Date.now() - t0;
    assert.ok(took >= 1000, `waited for sshd (${took} ms)`);
    // Backoff: a handful of attempts over 1.5 s, not a tight loop.
    assert.ok(proxy.accepted <= 10, `${proxy.accepted} attempts`);
    conn.close();
  });

  it('a stopped instance: connect-refused with the new-login-command hint once seen before', async () => {
    const conn = connectionTo(sshd, kh, { port: proxy.port, reconnectWindowMs: 600 });
    await conn.connect();
    await proxy.close();
    // The proxy's port now refuses: like AutoDL after a power cycle moved the SSH port.
    proxy = await startFaultProxy(sshd.port); // for afterEach
    const err = await remoteFailure(conn.exec('true'));
    assert.equal(err.code, 'connect-refused');
    assert.equal(err.hint, 'paste-new-login-command');
    conn.close();
  });
});

// The owned pool and instance sessions against a real sshd: a new password on the same
// host:port is what the next connection sends (the old pool kept the first caller's), a new
// setting makes a new connection, connection states are reported, failures are classified
// with host and port, and the same host key on a new port is recognised without asking.
import * as assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SshPool, type ConnectionStateEvent } from '../../src/app/pool';
import { AppError, InstanceSessions } from '../../src/app/session';
import { createInstance, withLogin, type Instance } from '../../src/core/instances';
import type { ConnectOptions } from '../../src/remote/connection';
import { parseTarget } from '../../src/remote/target';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { startSshd, type TestSshd } from '../support/sshd';
import { until } from '../support/timing';
import { remoteFailure, tempDir } from './remote-helpers';

describe('app: the owned SSH pool and instance sessions (real sshd)', function () {
  this.timeout(60_000);
  let sshd: TestSshd;
  let proxy: FaultProxy;
  let dir: ReturnType<typeof tempDir>;
  let kh = '';

  before(async () => {
    sshd = await startSshd();
    proxy = await startFaultProxy(sshd.port);
    dir = tempDir('gpu-rent-app-');
    kh = join(dir.path, 'known_hosts');
  });
  after(async () => {
    await proxy?.close();
    await sshd?.stop();
    dir?.remove();
  });

  const base = (): ConnectOptions => ({ knownHostsPath: kh, acceptNew: true, useDefaultKeys: false, agent: false, firstConnectRetryMs: 0 });

  it('one connection per key and parameters; a new password on the same host:port makes a new connection that sends it', async () => {
    const pool = new SshPool();
    const target = parseTarget(`ssh -p ${sshd.port} ${sshd.user}@${sshd.host}`);
    try {
      const a = await pool.get('box', target, { ...base(), password: sshd.password });
      assert.equal(await pool.get('box', target, { ...base(), password: sshd.password }), a);
      // The platform changed the password (a power cycle): the next connection must try the new one.
      const e = await remoteFailure(pool.get('box', target, { ...base(), password: `changed-${Date.now()}` }));
      assert.equal(e.code, 'auth-failed', 'the old connection was reused instead of logging in with the new password');
      assert.equal(a.connected, false, 'the stale connection is closed');
      assert.equal(pool.size, 0, 'a connection that never came up is not kept');
      assert.equal(pool.state('box'), 'refused', 'a refused login reads as refused, not as a lost connection');
      const b = await pool.get('box', target, { ...base(), password: sshd.password });
      assert.notEqual(b, a);
      assert.equal((await b.exec('echo ok')).stdout, 'ok\n');
    } finally {
      pool.dispose();
    }
  });

  it('a stopped box (nothing listening on its port) reads as unreachable, a dropped link as lost, a refused login as refused', async () => {
    // A port nothing listens on: bound once by this test, then closed.
    const closed = await new Promise<number>((res) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const port = (srv.address() as AddressInfo).port;
        srv.close(() => res(port));
      });
    });
    const pool = new SshPool();
    const events: ConnectionStateEvent[] = [];
    pool.onDidChangeState((e) => events.push(e));
    try {
      const e = await remoteFailure(pool.get('stopped', parseTarget(`ssh -p ${closed} ${sshd.user}@127.0.0.1`), { ...base(), password: sshd.password }));
      assert.equal(e.code, 'connect-refused');
      assert.equal(pool.state('stopped'), 'unreachable');
      const e2 = await remoteFailure(pool.get('wrong', parseTarget(`ssh -p ${proxy.port} ${sshd.user}@${sshd.host}`), { ...base(), password: `wrong-${Date.now()}` }));
      assert.equal(e2.code, 'auth-failed');
      assert.equal(pool.state('wrong'), 'refused');
      // Trying again after either: reconnecting, not a first connect.
      await remoteFailure(pool.get('stopped', parseTarget(`ssh -p ${closed} ${sshd.user}@127.0.0.1`), { ...base(), password: sshd.password }));
      assert.deepEqual(events.filter((x) => x.key === 'stopped').map((x) => x.state), ['connecting', 'unreachable', 'reconnecting', 'unreachable']);
    } finally {
      pool.dispose();
    }
  });

  it('a changed setting makes a new connection; invalidate and dispose close them; states are reported', async () => {
    const pool = new SshPool();
    const events: ConnectionStateEvent[] = [];
    pool.onDidChangeState((e) => events.push(e));
    const target = parseTarget(`ssh -p ${proxy.port} ${sshd.user}@${sshd.host}`);
    try {
      const a = await pool.get('box', target, { ...base(), password: sshd.password, keepaliveIntervalMs: 15_000 });
      const b = await pool.get('box', target, { ...base(), password: sshd.password, keepaliveIntervalMs: 5_000 });
      assert.notEqual(a, b);
      assert.equal(a.connected, false);
      // The link drops: the pool says so, and the next use reconnects.
      proxy.resetAll();
      await until('the pool to report box lost', () => pool.state('box') === 'lost', 15_000, 50, () => `state ${pool.state('box')}`);
      await pool.get('box', target, { ...base(), password: sshd.password, keepaliveIntervalMs: 5_000 });
      assert.equal(pool.state('box'), 'connected');
      pool.invalidate('box');
      assert.equal(pool.state('box'), undefined);
      const states = events.map((e) => e.state);
      assert.deepEqual(states.slice(0, 2), ['connecting', 'connected']);
      assert.ok(states.includes('lost') && states.includes('reconnecting') && states[states.length - 1] === 'closed', JSON.stringify(states));
    } finally {
      pool.dispose();
    }
    await assert.rejects(pool.get('box', target, base()), /closed/);
  });

  it('a session refuses an instance that is not powered, and names host and port when the box does not answer', async () => {
    const pool = new SshPool();
    const stopped = instance('stopped', sshd.port, 'stopped');
    const gone = instance('gone', 1, 'running');
    const sessions = sessionsFor(pool, [stopped, gone], sshd.password);
    try {
      assert.throws(() => sessions.powered('stopped'), (e: unknown) => e instanceof AppError && e.info.kind === 'not-powered');
      assert.throws(() => sessions.get('nope'), (e: unknown) => e instanceof AppError && e.info.kind === 'no-instance');
      const e = await sessions.open('gone').then(() => undefined, (err: unknown) => err);
      assert.ok(e instanceof AppError && e.info.kind === 'remote', String(e));
      assert.equal(e.info.kind === 'remote' && e.info.code, 'connect-refused');
      assert.equal(e.info.kind === 'remote' && e.info.action, 'update-login');
      assert.match(e.message, new RegExp(`^${sshd.host.replace(/\./g, '\\.')}:1: `));
    } finally {
      pool.dispose();
    }
  });

  it('after a port change the same host key is recognised (no question asked); a typed password is kept', async () => {
    const pool = new SshPool();
    let asked = 0;
    const saved: string[] = [];
    const seen: string[] = [];
    let inst = instance('moving', sshd.port, 'running');
    const sessions = new InstanceSessions({
      pool,
      instance: () => inst,
      credentials: { getPassword: async () => undefined, savePassword: async (_id, pw) => void saved.push(pw) },
      prompts: { confirmNewKey: async () => (asked++, true), askPassword: async () => sshd.password },
      settings: () => ({ keepaliveSeconds: 15, readyTimeoutSeconds: 20, knownHostsPath: join(dir.path, 'kh-moving') }),
      log: () => undefined,
      onHostKey: (_i, e) => void seen.push(e.kind),
    });
    try {
      await sessions.open('moving');
      assert.equal(asked, 1, 'first contact asks');
      assert.deepEqual(saved, [sshd.password]);
      inst = withLogin(inst, { ...inst.login, port: proxy.port });
      sessions.invalidate('moving');
      const { conn } = await sessions.open('moving');
      assert.equal((await conn.exec('echo moved')).stdout, 'moved\n');
      assert.equal(asked, 1, 'the same key on the new port was asked about again');
      assert.ok(seen.includes('same-key-new-port'), JSON.stringify(seen));
    } finally {
      pool.dispose();
    }
  });

  it('background work asks nothing: no trust question, no password prompt', async () => {
    const pool = new SshPool();
    let asked = 0;
    const inst = instance('quiet', sshd.port, 'running');
    const sessions = new InstanceSessions({
      pool,
      instance: () => inst,
      credentials: { getPassword: async () => undefined, savePassword: async () => undefined },
      prompts: { confirmNewKey: async () => (asked++, true), askPassword: async () => (asked++, sshd.password) },
      settings: () => ({ keepaliveSeconds: 15, readyTimeoutSeconds: 10, knownHostsPath: join(dir.path, 'kh-quiet') }),
      log: () => undefined,
    });
    try {
      const e = await sessions.connect(inst, { background: true }).then(() => undefined, (err: unknown) => err);
      assert.ok(e instanceof AppError && e.info.kind === 'remote' && e.info.code === 'host-key-unknown', String(e));
      assert.equal(asked, 0);
      await sessions.connect(inst); // interactive: asks, and works
      assert.equal(asked, 2);
    } finally {
      pool.dispose();
    }
  });

  function instance(id: string, port: number, state: 'running' | 'stopped'): Instance {
    return createInstance({ id, name: id, platform: 'autodl', card: 'RTX 4090', gpuCount: 1, login: { host: sshd.host, port, user: sshd.user, auth: 'password' }, pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 0 } }, state, Math.floor(Date.now() / 1000) - 60);
  }

  function sessionsFor(pool: SshPool, list: Instance[], password: string): InstanceSessions {
    return new InstanceSessions({
      pool,
      instance: (id) => list.find((i) => i.id === id),
      credentials: { getPassword: async () => password, savePassword: async () => undefined },
      prompts: { confirmNewKey: async () => true, askPassword: async () => null },
      settings: () => ({ keepaliveSeconds: 15, readyTimeoutSeconds: 5, knownHostsPath: kh }),
      log: () => undefined,
    });
  }
});

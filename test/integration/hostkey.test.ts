// Host keys against a real sshd: pinned on first contact in an OpenSSH-format file, a changed
// key refused before any credential is sent (sshd's own log shows no authentication), never
// retried, and the same host on another port is a new identity.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fingerprint } from '../../src/remote/hostkeys';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, remoteFailure, sleep, tempDir } from './remote-helpers';
import { until } from '../support/timing';

const run = promisify(execFile);

function hostKeyBlob(sshd: TestSshd): Buffer {
  return Buffer.from(readFileSync(sshd.hostKeyPath + '.pub', 'utf8').split(' ')[1]!, 'base64');
}

describe('host keys (real sshd)', function () {
  this.timeout(30000);
  let sshd: TestSshd;
  let other: TestSshd;
  let proxy: FaultProxy;
  let dir: ReturnType<typeof tempDir>;

  before(async () => {
    [sshd, other] = await Promise.all([startSshd(), startSshd()]);
    proxy = await startFaultProxy(sshd.port);
  });
  after(async () => {
    await proxy?.close();
    await Promise.all([sshd?.stop(), other?.stop()]);
  });
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('refuses an unknown key without --accept-new or a yes, and sends no credential', async () => {
    const kh = join(dir.path, 'known_hosts');
    const logBefore = sshd.logText().length;
    const err = await remoteFailure(connectionTo(sshd, kh, { acceptNew: false }).connect());
    assert.equal(err.code, 'host-key-unknown');
    assert.ok(err.message.includes(fingerprint(hostKeyBlob(sshd))), err.message);
    // The session's end in sshd's log closes the window; only then is "nothing" a finding.
    await until("sshd's log of the refused session's end", () => /(Connection closed|Connection reset|Disconnected from|Received disconnect).*\[preauth\]/.test(sshd.logText().slice(logBefore)), 10000);
    assert.doesNotMatch(sshd.logText().slice(logBefore), /Accepted|Failed password|Failed publickey|Postponed/);
  });

  it('pins the key on first contact in OpenSSH format that ssh itself accepts', async () => {
    const kh = join(dir.path, 'known_hosts');
    const conn = connectionTo(sshd, kh, { acceptNew: true, identityFiles: [sshd.privateKeyPath], password: undefined });
    await conn.connect();
    assert.equal(conn.hostKeyFingerprint, fingerprint(hostKeyBlob(sshd)));
    conn.close();
    const line = readFileSync(kh, 'utf8').trim();
    assert.equal(line, `[127.0.0.1]:${sshd.port} ssh-ed25519 ${hostKeyBlob(sshd).toString('base64')}`);
    // OpenSSH with strict checking against our file: it connects, so the format is right.
    const { stdout } = await run('ssh', ['-i', sshd.privateKeyPath, '-p', String(sshd.port), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${kh}`, '-o', 'GlobalKnownHostsFile=/dev/null', `${sshd.user}@127.0.0.1`, 'echo ok']);
    assert.equal(stdout.trim(), 'ok');
  });

  it('asks on first contact, and the handshake deadline waits for the answer', async () => {
    const kh = join(dir.path, 'known_hosts');
    let asked: { fingerprint: string; port: number } | undefined;
    const conn = connectionTo(sshd, kh, {
      acceptNew: false,
      connectTimeoutMs: 400,
      confirmNewKey: async (q) => {
        asked = q;
        await sleep(1200); // a person reading the fingerprint takes longer than the deadline
        return true;
      },
    });
    await conn.connect();
    assert.equal(asked?.fingerprint, fingerprint(hostKeyBlob(sshd)));
    assert.equal(asked?.port, sshd.port);
    assert.equal((await conn.exec('echo hi')).stdout, 'hi\n');
    conn.close();
  });

  it('the same host on another port is a new identity, not a changed key', async () => {
    const kh = join(dir.path, 'known_hosts');
    const first = connectionTo(sshd, kh);
    await first.connect();
    first.close();
    const err = await remoteFailure(connectionTo(other, kh, { acceptNew: false }).connect());
    assert.equal(err.code, 'host-key-unknown');
    const second = connectionTo(other, kh, { acceptNew: true });
    await second.connect();
    second.close();
    assert.equal(readFileSync(kh, 'utf8').trim().split('\n').length, 2);
  });

  it('refuses a changed key before any credential, shows both fingerprints, never retries', async () => {
    const kh = join(dir.path, 'known_hosts');
    // A comment first, so the pinned entry is on line 2.
    writeFileSync(kh, '# pinned by gpu-rent\n');
    // Pin through the proxy's port so the proxy counts every later attempt.
    const pinned = connectionTo(sshd, kh, { port: proxy.port });
    await pinned.connect();
    pinned.close();
    const oldBlob = hostKeyBlob(sshd);
    const oldFp = fingerprint(oldBlob);
    await sshd.restart({ newHostKey: true });
    const newFp = fingerprint(hostKeyBlob(sshd));
    assert.notEqual(oldFp, newFp);

    const logBefore = sshd.logText().length;
    const acceptedBefore = proxy.accepted;
    let askedPassword = false;
    const conn = connectionTo(sshd, kh, {
      port: proxy.port,
      acceptNew: true, // never overrides a pin
      firstConnectRetryMs: 5000,
      password: undefined,
      askPassword: async () => {
        askedPassword = true;
        return sshd.password;
      },
    });
    const err = await remoteFailure(conn.exec('echo should-not-run'));
    assert.equal(err.code, 'host-key-changed');
    assert.ok(err.message.includes(oldFp) && err.message.includes(newFp), err.message);
    assert.equal(err.fatal, true);
    // What the UI shows: which host and port, both fingerprints, and where the pin is.
    assert.ok(err.detail.code === 'host-key-changed');
    if (err.detail.code === 'host-key-changed') {
      assert.equal(err.detail.host, '127.0.0.1');
      assert.equal(err.detail.port, proxy.port);
      assert.deepEqual(err.detail.presented, { fingerprint: newFp, keyType: 'ssh-ed25519' });
      assert.equal(err.detail.pinned.length, 1);
      const pin = err.detail.pinned[0]!;
      assert.equal(pin.fingerprint, oldFp);
      assert.equal(pin.knownHostsPath, kh);
      assert.equal(err.detail.knownHostsPath, kh);
      assert.equal(pin.line, 2);
      // The line it points at is the pinned entry itself.
      assert.equal(readFileSync(kh, 'utf8').split('\n')[pin.line - 1], `[127.0.0.1]:${proxy.port} ssh-ed25519 ${oldBlob.toString('base64')}`);
      assert.equal(err.detail.previousEndpoint, undefined);
    }
    assert.equal(askedPassword, false);
    // A second operation on the same connection fails the same way without dialling again.
    assert.equal((await remoteFailure(conn.exec('true'))).code, 'host-key-changed');
    assert.equal(proxy.accepted - acceptedBefore, 1, 'one attempt, no retry');
    await until("sshd's log of the refused session's end", () => /(Connection closed|Connection reset|Disconnected from|Received disconnect).*\[preauth\]/.test(sshd.logText().slice(logBefore)), 10000);
    const log = sshd.logText().slice(logBefore);
    assert.match(log, /\[preauth\]/);
    assert.doesNotMatch(log, /Accepted|Failed password|Failed publickey|Postponed|Invalid user/);
    conn.close();
  });
});

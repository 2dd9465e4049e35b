// Host-key continuity across a port change of the same instance, against real sshds: AutoDL
// gives a new port after a power cycle and keeps the host key. With sameMachineAs (the
// instance's earlier endpoints) the same key on the new port is recognised without asking
// and pinned there; a different key is refused before any authentication, naming the
// earlier endpoint. The fault proxy is "the new port" of the same sshd (same key); a second
// sshd is a different machine (another key).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostKeyEvent } from '../../src/remote/connection';
import { fingerprint } from '../../src/remote/hostkeys';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, remoteFailure, tempDir } from './remote-helpers';
import { until } from '../support/timing';

function hostKeyBlob(sshd: TestSshd): Buffer {
  return Buffer.from(readFileSync(sshd.hostKeyPath + '.pub', 'utf8').split(' ')[1]!, 'base64');
}

describe('host-key continuity across a port change (real sshd)', function () {
  this.timeout(30000);
  let sshd: TestSshd;
  let other: TestSshd;
  let newPort: FaultProxy;
  let dir: ReturnType<typeof tempDir>;

  before(async () => {
    [sshd, other] = await Promise.all([startSshd(), startSshd()]);
    newPort = await startFaultProxy(sshd.port);
  });
  after(async () => {
    await newPort?.close();
    await Promise.all([sshd?.stop(), other?.stop()]);
  });
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  const endpoint = (port: number) => ({ host: '127.0.0.1', port });

  it('reports pinned-new on first contact and matched afterwards', async () => {
    const kh = join(dir.path, 'known_hosts');
    const events: HostKeyEvent[] = [];
    const first = connectionTo(sshd, kh, { acceptNew: true, onHostKey: (e) => events.push(e) });
    await first.connect();
    first.close();
    const again = connectionTo(sshd, kh, { acceptNew: false, onHostKey: (e) => events.push(e) });
    await again.connect();
    again.close();
    const fp = fingerprint(hostKeyBlob(sshd));
    assert.deepEqual(
      events.map((e) => [e.kind, e.port, e.fingerprint]),
      [
        ['pinned-new', sshd.port, fp],
        ['matched', sshd.port, fp],
      ],
    );
  });

  it('the same key on a new port of the same instance is accepted without asking and pinned there', async () => {
    const kh = join(dir.path, 'known_hosts');
    const pin = connectionTo(sshd, kh, { acceptNew: true });
    await pin.connect();
    pin.close();

    let asked = false;
    const events: HostKeyEvent[] = [];
    const moved = connectionTo(sshd, kh, {
      port: newPort.port,
      acceptNew: false,
      confirmNewKey: async () => {
        asked = true;
        return false;
      },
      sameMachineAs: [endpoint(sshd.port)],
      onHostKey: (e) => events.push(e),
    });
    assert.equal((await moved.exec('echo moved')).stdout, 'moved\n');
    moved.close();
    assert.equal(asked, false, 'the user was asked to trust a key already trusted for this instance');
    assert.equal(events.length, 1);
    assert.equal(events[0]!.kind, 'same-key-new-port');
    assert.equal(events[0]!.port, newPort.port);
    assert.deepEqual(events[0]!.previous, endpoint(sshd.port));
    assert.equal(events[0]!.fingerprint, fingerprint(hostKeyBlob(sshd)));
    // Pinned under the new endpoint: the next connection matches without sameMachineAs.
    const lines = readFileSync(kh, 'utf8').trim().split('\n');
    assert.equal(lines.length, 2);
    assert.equal(lines[1], `[127.0.0.1]:${newPort.port} ssh-ed25519 ${hostKeyBlob(sshd).toString('base64')}`);
    const later: HostKeyEvent[] = [];
    const plain = connectionTo(sshd, kh, { port: newPort.port, acceptNew: false, onHostKey: (e) => later.push(e) });
    await plain.connect();
    plain.close();
    assert.equal(later[0]?.kind, 'matched');
  });

  it('a different key on the new port is refused before any authentication, naming the earlier endpoint', async () => {
    const kh = join(dir.path, 'known_hosts');
    const pin = connectionTo(sshd, kh, { acceptNew: true });
    await pin.connect();
    pin.close();
    const before = readFileSync(kh, 'utf8');

    const logBefore = other.logText().length;
    let askedPassword = false;
    let askedTrust = false;
    const conn = connectionTo(other, kh, {
      acceptNew: true, // never overrides the instance's pinned key
      confirmNewKey: async () => {
        askedTrust = true;
        return true;
      },
      password: undefined,
      askPassword: async () => {
        askedPassword = true;
        return other.password;
      },
      sameMachineAs: [endpoint(sshd.port)],
    });
    const err = await remoteFailure(conn.connect());
    conn.close();
    assert.equal(err.code, 'host-key-changed');
    assert.equal(err.fatal, true);
    assert.equal(askedPassword, false);
    assert.equal(askedTrust, false);
    assert.ok(err.detail.code === 'host-key-changed');
    if (err.detail.code === 'host-key-changed') {
      assert.equal(err.detail.host, '127.0.0.1');
      assert.equal(err.detail.port, other.port);
      assert.deepEqual(err.detail.previousEndpoint, endpoint(sshd.port));
      assert.equal(err.detail.presented.fingerprint, fingerprint(hostKeyBlob(other)));
      assert.equal(err.detail.pinned[0]!.fingerprint, fingerprint(hostKeyBlob(sshd)));
      assert.equal(err.detail.pinned[0]!.port, sshd.port);
      assert.equal(err.detail.pinned[0]!.line, 1);
    }
    assert.match(err.message, new RegExp(`\\[127\\.0\\.0\\.1\\]:${sshd.port}`));
    // Nothing pinned for the impostor, and sshd saw no authentication at all.
    assert.equal(readFileSync(kh, 'utf8'), before);
    await until("the impostor sshd's log of the session's end", () => /(Connection closed|Connection reset|Disconnected from|Received disconnect).*\[preauth\]/.test(other.logText().slice(logBefore)), 10000);
    assert.doesNotMatch(other.logText().slice(logBefore), /Accepted|Failed password|Failed publickey|Postponed|Invalid user/);
  });

  it('without sameMachineAs a new port is still a new identity (unchanged behaviour)', async () => {
    const kh = join(dir.path, 'known_hosts');
    const pin = connectionTo(sshd, kh, { acceptNew: true });
    await pin.connect();
    pin.close();
    const err = await remoteFailure(connectionTo(sshd, kh, { port: newPort.port, acceptNew: false }).connect());
    assert.equal(err.code, 'host-key-unknown');
    // And another machine on another port is just unknown too, not "changed".
    const err2 = await remoteFailure(connectionTo(other, kh, { acceptNew: false }).connect());
    assert.equal(err2.code, 'host-key-unknown');
  });

  it('a pin for the current endpoint wins over sameMachineAs', async () => {
    const kh = join(dir.path, 'known_hosts');
    for (const s of [sshd, other]) {
      const c = connectionTo(s, kh, { acceptNew: true });
      await c.connect();
      c.close();
    }
    const events: HostKeyEvent[] = [];
    const conn = connectionTo(other, kh, { acceptNew: false, sameMachineAs: [endpoint(sshd.port)], onHostKey: (e) => events.push(e) });
    await conn.connect();
    conn.close();
    assert.equal(events[0]?.kind, 'matched');
  });
});

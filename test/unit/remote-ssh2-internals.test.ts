// ssh2's private fields that src/remote/ssh2-internals.ts relies on, checked against a live
// in-process ssh2 server on loopback (no sshd needed). If an ssh2 upgrade renames or moves
// one, this fails here instead of the workaround silently doing nothing.
import { strict as assert } from 'node:assert';
import type { AddressInfo } from 'node:net';
import { Socket } from 'node:net';
import { Client, Server, type ClientChannel, type SFTPWrapper } from 'ssh2';
import { channelStates, corkableSocketOf, killRemote, sftpChannelOpen, sftpHasExtension } from '../../src/remote/ssh2-internals';
import { testHostKey } from '../support/host-key';
import { until } from '../support/timing';

describe('ssh2 internals (in-process ssh2 server)', function () {
  this.timeout(15000);
  let server: Server;
  let client: Client;
  const signals: string[] = [];

  before(async () => {
    const hostKey = testHostKey();
    server = new Server({ hostKeys: [hostKey] }, (conn) => {
      conn.on('authentication', (ctx) => ctx.accept());
      conn.on('ready', () => {
        conn.on('session', (accept) => {
          const session = accept();
          session.on('signal', (acceptSignal, _reject, info) => {
            signals.push(info.name);
            acceptSignal?.();
          });
          session.on('exec', (acceptExec) => {
            const ch = acceptExec();
            ch.resume();
            // The "command" runs until the client closes the channel.
          });
          session.on('sftp', (acceptSftp) => {
            acceptSftp();
          });
        });
      });
      conn.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    client = new Client();
    await new Promise<void>((resolve, reject) => {
      client.once('ready', () => resolve());
      client.once('error', reject);
      client.connect({ host: '127.0.0.1', port, username: 'test', password: 'x', hostVerifier: () => true });
    });
  });

  after(async () => {
    client?.end();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const exec = () => new Promise<ClientChannel>((res, rej) => client.exec('sleep 100', (e, ch) => (e ? rej(e) : res(ch))));

  it('a channel keeps outgoing.state/id and _client._protocol.signal, and killRemote still sends the signal after EOF', async () => {
    const ch = await exec();
    const raw = ch as unknown as { outgoing?: { state?: unknown; id?: unknown }; _client?: { _protocol?: { signal?: unknown } } };
    assert.equal(raw.outgoing?.state, 'open');
    assert.equal(typeof raw.outgoing?.id, 'number');
    assert.equal(typeof raw._client?._protocol?.signal, 'function');
    assert.deepEqual(channelStates(ch).outgoing, 'open');

    // Stdin closed, as every exec of ours does: the public signal() stays silent now, so
    // killRemote sends the request through the protocol object. (ssh2's own server ignores
    // requests after EOF, unlike OpenSSH, so the call itself is what is checked here.)
    ch.end();
    await until('the channel to be at EOF', () => raw.outgoing?.state === 'eof', 3000, 10);
    assert.equal(raw.outgoing?.state, 'eof');
    const protocol = raw._client!._protocol as { signal: (id: number, name: string) => void };
    const original = protocol.signal;
    const sent: Array<[number, string]> = [];
    protocol.signal = function (this: unknown, id: number, name: string) {
      sent.push([id, name]);
      return original.call(this, id, name);
    };
    try {
      ch.signal('KILL');
      // If this starts sending, ssh2 fixed signal() after EOF and the workaround can go.
      assert.deepEqual(sent, [], 'the public signal() now works after EOF');
      killRemote(ch);
    } finally {
      protocol.signal = original;
    }
    assert.deepEqual(sent, [[raw.outgoing!.id as number, 'KILL']]);
    ch.close();
  });

  it('killRemote on an open channel uses the public signal()', async () => {
    const ch = await exec();
    const before = signals.length;
    killRemote(ch);
    await until('the signal to reach the server', () => signals.length > before, 3000, 10);
    assert.equal(signals.at(-1), 'KILL');
    ch.close();
  });

  it('an SFTP session exposes both channel sides and its client socket', async () => {
    const sftp = await new Promise<SFTPWrapper>((res, rej) => client.sftp((e, s) => (e ? rej(e) : res(s))));
    const states = channelStates(sftp);
    assert.equal(states.outgoing, 'open');
    assert.equal(states.incoming, 'open');
    assert.equal(sftpChannelOpen(sftp), true);
    // The server's announced extensions (posix-rename for push) are read from ssh2's _extensions.
    assert.equal(typeof (sftp as unknown as { _extensions?: unknown })._extensions, 'object', 'ssh2 no longer keeps the SFTP extensions in _extensions');
    assert.equal(sftpHasExtension(sftp, 'no-such@example.invalid'), false);
    const sock = corkableSocketOf(sftp);
    assert.ok(sock, 'ssh2 no longer exposes _client._sock on the SFTP session');
    assert.ok(sock instanceof Socket);
    sock.cork();
    sock.uncork();
    // After our side closes, the session must read as unusable (requests would be dropped).
    sftp.end();
    await until('the SFTP channel to close', () => !sftpChannelOpen(sftp), 3000, 10);
    assert.notEqual(channelStates(sftp).outgoing, 'open');
  });
});

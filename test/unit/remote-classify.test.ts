// The pure error classifier: ssh2 and socket errors, host-key verdicts and auth traces in,
// RemoteError codes (with host and port in detail) out.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { channelErrorKind, classifyHandshakeFailure, handshakeTimeoutError, isFinalHandshakeError, socketErrorCode, type HandshakeFacts } from '../../src/remote/classify';
import type { RemoteErrorCode } from '../../src/remote/errors';

const base: HandshakeFacts = { host: 'region-1.example', port: 40123, label: 'root@region-1.example:40123', tried: [], passwordTried: false, seenBefore: false, knownHostsPath: '/tmp/kh' };

describe('remote error classifier', () => {
  it('maps socket errnos', () => {
    const cases: Array<[string, RemoteErrorCode]> = [
      ['ECONNREFUSED', 'connect-refused'],
      ['ENOTFOUND', 'host-not-found'],
      ['EAI_AGAIN', 'host-not-found'],
      ['ETIMEDOUT', 'timeout'],
      ['EHOSTUNREACH', 'timeout'],
      ['ENETUNREACH', 'timeout'],
      ['ECONNRESET', 'disconnected'],
      ['EPIPE', 'disconnected'],
    ];
    for (const [errno, code] of cases) {
      assert.equal(socketErrorCode(errno), code);
      const e = classifyHandshakeFailure({ ...base, error: { message: `connect ${errno}`, code: errno } });
      assert.equal(e.code, code, errno);
      assert.equal(e.detail.host, base.host);
      assert.equal(e.detail.port, base.port);
    }
    assert.equal(socketErrorCode('EWHATEVER'), undefined);
    assert.equal(socketErrorCode(undefined), undefined);
  });

  it('a refused port hints at a new login command only once the box was seen', () => {
    const first = classifyHandshakeFailure({ ...base, error: { message: 'x', code: 'ECONNREFUSED' } });
    assert.equal(first.hint, 'instance-may-be-starting');
    const later = classifyHandshakeFailure({ ...base, seenBefore: true, error: { message: 'x', code: 'ECONNREFUSED' } });
    assert.equal(later.hint, 'paste-new-login-command');
  });

  it('authentication: nothing tried is no-credentials, else auth-failed with what was tried', () => {
    const none = classifyHandshakeFailure({ ...base, error: { message: 'All configured authentication methods failed', level: 'client-authentication' } });
    assert.equal(none.code, 'no-credentials');
    const refused = classifyHandshakeFailure({ ...base, tried: ['key ~/.ssh/id_ed25519', 'password'], passwordTried: true, error: { message: 'All configured authentication methods failed', level: 'client-authentication' } });
    assert.equal(refused.code, 'auth-failed');
    assert.equal(refused.fatal, true);
    assert.equal(refused.hint, 'paste-new-login-command');
    assert.ok(refused.is('auth-failed'));
    if (refused.detail.code === 'auth-failed') assert.deepEqual(refused.detail.tried, ['key ~/.ssh/id_ed25519', 'password']);
    assert.match(refused.message, /tried key ~\/\.ssh\/id_ed25519, password/);
  });

  it('a changed host key names host, port, both fingerprints and the pinned line', () => {
    const e = classifyHandshakeFailure({
      ...base,
      hostKey: {
        kind: 'changed',
        fingerprint: 'SHA256:new',
        keyType: 'ssh-ed25519',
        pinned: ['SHA256:old'],
        pinnedKeys: [{ type: 'ssh-ed25519', blob: Buffer.alloc(0), fingerprint: 'SHA256:old', line: 3, host: base.host, port: base.port }],
      },
    });
    assert.equal(e.code, 'host-key-changed');
    assert.equal(e.fatal, true);
    assert.ok(e.detail.code === 'host-key-changed');
    if (e.detail.code !== 'host-key-changed') return;
    assert.equal(e.detail.host, base.host);
    assert.equal(e.detail.port, base.port);
    assert.deepEqual(e.detail.presented, { fingerprint: 'SHA256:new', keyType: 'ssh-ed25519' });
    assert.deepEqual(e.detail.pinned, [{ fingerprint: 'SHA256:old', keyType: 'ssh-ed25519', host: base.host, port: base.port, knownHostsPath: '/tmp/kh', line: 3 }]);
    assert.equal(e.detail.previousEndpoint, undefined);
    assert.match(e.message, /\[region-1\.example\]:40123/);
    assert.match(e.message, /line 3 of \/tmp\/kh/);
    // Final at once: no waiting for the socket to close.
    assert.equal(isFinalHandshakeError({ hostKey: { kind: 'changed', fingerprint: '', keyType: '', pinned: [], pinnedKeys: [] } }), true);
  });

  it('a key that differs from an earlier port of the same instance says which port', () => {
    const e = classifyHandshakeFailure({
      ...base,
      hostKey: {
        kind: 'changed',
        fingerprint: 'SHA256:new',
        keyType: 'ssh-ed25519',
        pinned: ['SHA256:old'],
        pinnedKeys: [{ type: 'ssh-ed25519', blob: Buffer.alloc(0), fingerprint: 'SHA256:old', line: 1, host: base.host, port: 40000 }],
        previous: { host: base.host, port: 40000 },
      },
    });
    assert.ok(e.detail.code === 'host-key-changed');
    if (e.detail.code !== 'host-key-changed') return;
    assert.deepEqual(e.detail.previousEndpoint, { host: base.host, port: 40000 });
    assert.equal(e.detail.port, 40123);
    assert.equal(e.detail.pinned[0]!.port, 40000);
    assert.match(e.message, /earlier address \[region-1\.example\]:40000/);
  });

  it('an unknown key refused is host-key-unknown with the presented fingerprint', () => {
    const e = classifyHandshakeFailure({ ...base, hostKey: { kind: 'unknown-refused', fingerprint: 'SHA256:abc', keyType: 'ssh-ed25519' } });
    assert.equal(e.code, 'host-key-unknown');
    if (e.detail.code === 'host-key-unknown') assert.equal(e.detail.presented?.fingerprint, 'SHA256:abc');
  });

  it('a link cut during the handshake is disconnected; other ssh2 errors are protocol or timeout', () => {
    assert.equal(classifyHandshakeFailure({ ...base }).code, 'disconnected');
    assert.equal(classifyHandshakeFailure({ ...base, error: { message: 'Connection lost before handshake' } }).code, 'disconnected');
    assert.equal(classifyHandshakeFailure({ ...base, error: { message: 'Timed out while waiting for handshake', level: 'client-timeout' } }).code, 'timeout');
    assert.equal(classifyHandshakeFailure({ ...base, error: { message: 'no matching key exchange algorithm', level: 'handshake' } }).code, 'protocol');
    const t = handshakeTimeoutError(base, 20000);
    assert.equal(t.code, 'timeout');
    assert.equal(t.hint, 'instance-may-be-starting');
    assert.equal(t.detail.port, base.port);
  });

  it('channel errors: session limit, a lost link, or something else', () => {
    assert.equal(channelErrorKind('(SSH) Channel open failure: open failed'), 'session-limit');
    assert.equal(channelErrorKind('Channel open failure: administratively prohibited'), 'session-limit');
    assert.equal(channelErrorKind('No response from server'), 'link-lost');
    assert.equal(channelErrorKind('Not connected'), 'link-lost');
    assert.equal(channelErrorKind('something odd'), 'other');
  });

  it('never throws, always gives a code, and always names the endpoint', () => {
    fc.assert(
      fc.property(fc.string(), fc.option(fc.string(), { nil: undefined }), fc.option(fc.string(), { nil: undefined }), fc.array(fc.string(), { maxLength: 3 }), fc.boolean(), (message, level, code, tried, seen) => {
        const e = classifyHandshakeFailure({ ...base, error: { message, level, code }, tried, seenBefore: seen });
        assert.equal(typeof e.code, 'string');
        assert.equal(e.detail.code, e.code);
        assert.equal(e.detail.host, base.host);
        assert.equal(e.detail.port, base.port);
      }),
    );
  });
});

// The stable `error.code` of a thrown error under --json (src/cli/json-error.ts errorCode): one
// rule for the platform commands (which catch their failures) and a failure that reaches main.
import { strict as assert } from 'node:assert';
import { errorCode, jsonError } from '../../src/cli/json-error';
import { PlatformError } from '../../src/app/platforms/errors';

describe('errorCode: one code per failure for --json', () => {
  it("a platform's failure: its kind in kebab case; unreachable for network and timeout; the platform's own code stays in the message", () => {
    const e = new PlatformError({ platform: 'autodl-pro', kind: 'tokenExpired', code: 'AuthorizeFailed', message: 'token expired' });
    assert.equal(errorCode(e), 'token-expired');
    assert.match(JSON.parse(jsonError(errorCode(e), e.message)).error.message, /AuthorizeFailed/);
    assert.equal(errorCode(new PlatformError({ platform: 'autodl-pro', kind: 'network', code: 'ECONNREFUSED', message: 'connect refused' })), 'unreachable');
    assert.equal(errorCode(new PlatformError({ platform: 'autodl-pro', kind: 'timeout', code: 'timeout', message: 'no answer' })), 'unreachable');
    assert.equal(errorCode(new Error('wrapped', { cause: new PlatformError({ platform: 'autodl-pro', kind: 'notFound', code: 'NotFound', message: 'no such instance' }) })), 'not-found');
  });
  it("a connection's code, else failed; a code that is not a plain word is not taken", () => {
    assert.equal(errorCode(Object.assign(new Error('x'), { code: 'auth-failed' })), 'auth-failed');
    assert.equal(errorCode(Object.assign(new Error('x'), { code: 'a b\n[click](http://x)' })), 'failed');
    assert.equal(errorCode(new Error('plain')), 'failed');
    assert.equal(errorCode('thrown string'), 'failed');
  });
});

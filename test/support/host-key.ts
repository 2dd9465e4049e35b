// A fresh ed25519 host key for the in-test ssh2 servers. ssh2's generateKeyPairSync strips
// leading zero bytes from the public key, so about 1 key in 256 cannot be parsed back (it fails
// `new Server` with "Malformed OpenSSH private key"; mscdex/ssh2#1390, #1513): a key is kept
// only once both halves parse. A clean-clone CI run hit it.
import { utils } from 'ssh2';

export function testHostKey(): string {
  for (let i = 0; i < 64; i++) {
    const k = utils.generateKeyPairSync('ed25519');
    if (!(utils.parseKey(k.private) instanceof Error) && !(utils.parseKey(k.public) instanceof Error)) return k.private;
  }
  throw new Error('ssh2 made 64 ed25519 keys it cannot parse');
}

// Every place the remote layer reaches past ssh2's documented API, in one file. Each is a
// workaround for a gap in that API; test/unit/remote-ssh2-internals.test.ts checks each
// field against a live in-process ssh2 server, so an ssh2 upgrade that moves one fails there
// first instead of silently disabling the workaround.
import type { ClientChannel, SFTPWrapper } from 'ssh2';

/** A channel's state as ssh2 keeps it: `outgoing.state` is 'open', 'eof' (we sent EOF) or 'closed'. */
interface ChannelInternals {
  outgoing?: { state?: string; id?: number };
  incoming?: { state?: string };
  _client?: {
    _protocol?: { signal?: (id: number, name: string) => void };
    _sock?: { cork?: () => void; uncork?: () => void };
  };
}

const internals = (ch: ClientChannel | SFTPWrapper) => ch as unknown as ChannelInternals;

/** ssh2's view of which side of a channel is still open (undefined where ssh2 no longer says). */
export function channelStates(ch: ClientChannel | SFTPWrapper): { outgoing?: string; incoming?: string } {
  const c = internals(ch);
  return { outgoing: c.outgoing?.state, incoming: c.incoming?.state };
}

/**
 * Asks sshd to SIGKILL the command's process group (OpenSSH ≥ 7.9 honours it). ssh2's
 * `signal()` stays silent once stdin is closed, which is always the case here, so the request
 * goes straight to its protocol object when the public method would drop it.
 */
export function killRemote(channel: ClientChannel): void {
  const ch = internals(channel);
  try {
    if (ch.outgoing?.state === 'open') channel.signal('KILL');
    else if (ch.outgoing?.state === 'eof' && typeof ch.outgoing.id === 'number') ch._client?._protocol?.signal?.(ch.outgoing.id, 'KILL');
  } catch {
    /* the link is gone or the server does not take signals: closing the channel is all we can do */
  }
}

/**
 * Whether an SFTP session can still carry requests. After a reset ssh2 marks the incoming
 * side closed and emits 'end' while the outgoing side may still read 'open'; requests sent
 * then are dropped without a callback, so both sides are checked.
 */
export function sftpChannelOpen(sftp: SFTPWrapper): boolean {
  const ch = internals(sftp);
  return (ch.outgoing?.state ?? 'open') === 'open' && ch.incoming?.state !== 'closed';
}

/**
 * The TCP socket under an SFTP session, to cork it while a burst of read requests is queued
 * (ssh2 writes each request separately otherwise). Undefined when ssh2 hides it.
 */
export function corkableSocketOf(sftp: SFTPWrapper): { cork: () => void; uncork: () => void } | undefined {
  const sock = internals(sftp)._client?._sock;
  return sock && typeof sock.cork === 'function' && typeof sock.uncork === 'function' ? (sock as { cork: () => void; uncork: () => void }) : undefined;
}

/** Whether the SFTP server announced an extension (ssh2 keeps the server's list in `_extensions`). */
export function sftpHasExtension(sftp: SFTPWrapper, name: string): boolean {
  const ext = (sftp as unknown as { _extensions?: Record<string, string> })._extensions;
  return !!ext && typeof ext === 'object' && Object.prototype.hasOwnProperty.call(ext, name);
}

// Reading a small file (at most SMALL_FILE) whose handle is open in one burst of SFTP
// requests: the fstat and every read go out together, into memory, one round trip in all.
import type { SFTPWrapper, Stats } from 'ssh2';
import { isChannelOpen, onSessionGone, SFTP_EOF, sftpCode } from './sftp-util';
import { corkableSocketOf } from '../ssh2-internals';
import type { PullFailure } from './transfer';

/** What one burst on an open small file gave. */
export type SmallRead =
  | { ok: true; before: Stats; data: Buffer }
  | { ok: false; failure: PullFailure; before?: Stats };

/** Files up to this size are read in one burst of requests, into memory. */
export const SMALL_FILE = 128 * 1024;

/**
 * Reads a small file (at most SMALL_FILE) whose handle is open: the fstat and every read go
 * out together as one burst (one round trip, not one per request), so many
 * small files cost what their latency allows, not a round trip per step. The caller sends
 * the close right after, in the same burst. Never waits on a read after the channel is gone.
 */
export function readSmall(sftp: SFTPWrapper, handle: Buffer, size: number, deadlineMs = 30_000): Promise<SmallRead> {
  return new Promise<SmallRead>((resolve) => {
    const chunk = 32755;
    const data = Buffer.allocUnsafe(size);
    let before: Stats | undefined;
    let pending = 0;
    let failure: PullFailure | undefined;
    let done = false;
    const finish = () => {
      if (done || (pending > 0 && !failure)) return;
      done = true;
      clearTimeout(timer);
      unsubscribe();
      if (failure) resolve({ ok: false, failure, ...(before ? { before } : {}) });
      else resolve({ ok: true, before: before!, data });
    };
    const fail = (f: PullFailure) => {
      failure ??= f;
      // A transport failure will never answer the rest; an SFTP status may still drain.
      if (f.kind === 'transport' || f.kind === 'stalled') finish();
    };
    const timer = setTimeout(() => fail({ kind: 'stalled', ms: deadlineMs }), deadlineMs);
    const unsubscribe = onSessionGone(sftp, () => {
      fail({ kind: 'transport', message: 'SFTP channel closed' });
      finish();
    });
    const onErr = (err: Error) => {
      const code = sftpCode(err);
      if (code === SFTP_EOF) return fail({ kind: 'remote-shrank', at: 0 });
      if (code === undefined) return fail({ kind: 'transport', message: err.message });
      return fail({ kind: 'remote-io', message: err.message, code });
    };
    const send = (fn: () => void) => {
      pending++;
      try {
        fn();
      } catch (e) {
        pending--;
        fail({ kind: 'transport', message: e instanceof Error ? e.message : String(e) });
      }
    };
    const readAt = (at: number, len: number) =>
      send(() =>
        sftp.read(handle, data, at, len, at, (err: Error | null | undefined, n: number) => {
          pending--;
          if (err) onErr(err);
          else if (n === 0) fail({ kind: 'remote-shrank', at });
          else if (n < len) return readAt(at + n, len - n); // a short read: ask for the rest
          finish();
        }),
      );
    const statBefore = () =>
      send(() =>
        sftp.fstat(handle, (err, st) => {
          pending--;
          if (err) onErr(err);
          else before = st;
          finish();
        }),
      );
    if (!isChannelOpen(sftp)) {
      fail({ kind: 'transport', message: 'SFTP channel closed' });
      return finish();
    }
    const sock = corkableSocketOf(sftp);
    sock?.cork();
    try {
      statBefore();
      for (let at = 0; at < size; at += chunk) readAt(at, Math.min(chunk, size - at));
    } finally {
      sock?.uncork();
    }
    finish();
  });
}

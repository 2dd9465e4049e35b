// Pulls one remote file into a local `.part` with our own pipelined SFTP reads (not
// `fastGet`: after a reset it never called back and left a partial file at the final path).
// Many small reads are kept in flight; data is hashed and appended strictly in file order,
// so whatever is on disk after a failure is a true prefix of the remote file, which the
// next run can verify and resume.
import type { FileHandle } from 'node:fs/promises';
import type { SFTPWrapper } from 'ssh2';
import { isChannelOpen, onSessionGone, SFTP_EOF, sftpCode } from './sftp-util';
import { corkableSocketOf } from '../ssh2-internals';
import { ReadWindow, type Read } from './read-window';
import { PartAppender } from './part-appender';

// The small-file burst read lived here; importers of SMALL_FILE still find it here.
export { readSmall, SMALL_FILE, type SmallRead } from './small-read';

export interface PullOptions {
  /** Remote offset to start from (the verified size of an existing `.part`). */
  from: number;
  /** Bytes to read in total: the size seen when the file was listed. Never more. */
  size: number;
  /** Fed every byte from `from` on, in order. */
  hash: { update(data: Buffer): void };
  /** Reads in flight and bytes per read (default 16 × 255 KiB). */
  inFlight?: number;
  chunkBytes?: number;
  /** Fails the pull when no read completes for this long. */
  stallMs?: number;
  signal?: AbortSignal;
  onBytes?: (n: number) => void;
  /**
   * Flush written bytes to disk in the background every this many bytes (0 = never; default
   * 16 MiB), so an fsync before publishing has little left to do: on this VM an fsync of 256
   * MiB at the end took 0.37 s, a fifth of scp's whole transfer, which never syncs at all.
   */
  syncEvery?: number;
}

export type PullFailure =
  | { kind: 'remote-shrank'; at: number } // EOF before the listed size: rewritten under us
  | { kind: 'remote-io'; message: string; code?: number } // an SFTP error status for this file
  | { kind: 'transport'; message: string } // the connection or channel went away
  | { kind: 'stalled'; ms: number }
  | { kind: 'local-io'; message: string; code?: string }
  | { kind: 'aborted' };

export class PullError extends Error {
  constructor(readonly failure: PullFailure) {
    super(describe(failure));
    this.name = 'PullError';
  }
}

function describe(f: PullFailure): string {
  switch (f.kind) {
    case 'remote-shrank':
      return `the remote file ended at byte ${f.at}, before its listed size`;
    case 'remote-io':
      return `remote read failed: ${f.message}`;
    case 'transport':
      return `connection lost during transfer: ${f.message}`;
    case 'stalled':
      return `no data for ${Math.round(f.ms / 1000)} s`;
    case 'local-io':
      return `local write failed: ${f.message}`;
    case 'aborted':
      return 'interrupted';
  }
}

/**
 * Reads bytes [from, size) of the open remote `handle` and appends them to `out` (a local
 * file whose current length is `from`). Resolves with the number of bytes written; rejects
 * with a PullError after every write already queued has landed, so the local file is a
 * clean prefix either way.
 */
const WRITE_BLOCK = 1024 * 1024;
const SYNC_EVERY = 16 * 1024 * 1024;

export function pullRange(sftp: SFTPWrapper, handle: Buffer, out: FileHandle, opts: PullOptions): Promise<number> {
  const inFlightMax = opts.inFlight ?? 16;
  // 255 KiB per read: OpenSSH's sftp-server answers up to 261120 bytes per read (its limit
  // for a message less 1 KiB), and one reply per eight 32 KiB channel packets costs the
  // JS side an eighth of the callbacks and bookkeeping of 32 KiB reads (measured: ~10%
  // less time for 256 MiB on a loaded 2-core VM). ssh2 splits a read itself where a
  // server allows less. 16 in flight keep the same 4 MiB on the way as 64 × 64 KiB would.
  const chunk = opts.chunkBytes ?? 261120;
  // Refill in bursts (ReadWindow.wantsRefill) and send each burst as one socket write (ssh2
  // writes every request separately otherwise): fewer syscalls per byte on a link that is
  // CPU-bound in JS.
  const sock = corkableSocketOf(sftp);
  const spare: Buffer[] = []; // written buffers, reused for the next reads
  const stallMs = opts.stallMs ?? 60_000;
  const end = opts.size;

  return new Promise<number>((resolve, reject) => {
    const win = new ReadWindow(opts.from, end, inFlightMax, chunk);
    const part = new PartAppender(out, opts.from, end, opts.syncEvery ?? SYNC_EVERY);
    let writing = false;
    let writeQueue: Buffer[] = [];
    let failure: PullFailure | undefined;
    let settled = false;
    let lastProgress = Date.now();

    const stallTimer = setInterval(() => {
      if (Date.now() - lastProgress > stallMs) fail({ kind: 'stalled', ms: stallMs });
    }, Math.min(1000, Math.max(50, stallMs / 4)));
    const onAbort = () => fail({ kind: 'aborted' });
    opts.signal?.addEventListener('abort', onAbort);
    // The channel closing is the one signal that always comes after a reset: reject on it
    // even if some read callback were never to fire.
    const onClose = () => fail({ kind: 'transport', message: 'SFTP channel closed' });
    const unsubscribe = onSessionGone(sftp, onClose);
    const release = () => {
      settled = true;
      clearInterval(stallTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      unsubscribe();
    };

    const finish = () => {
      if (settled) return;
      // Wait for reads already sent (their callbacks fire on reply or channel cleanup) and
      // for queued writes, so the .part is closed on a clean prefix.
      if (failure) {
        // Replies still due would be dropped anyway; only a dead or stalled link or an
        // interrupt is worth not waiting for, an SFTP error status still drains its peers.
        if (writing || (win.inFlight > 0 && failure.kind !== 'transport' && failure.kind !== 'stalled' && failure.kind !== 'aborted')) return;
      } else if (writing || win.inFlight > 0 || !win.complete) return;
      const syncing = part.syncing;
      if (syncing) {
        void syncing.then(finish);
        return;
      }
      release();
      if (failure) reject(new PullError(failure));
      else resolve(win.nextWrite - opts.from);
    };

    function fail(f: PullFailure) {
      if (!failure) failure = f;
      // Nothing more is hashed or written once failed: the prefix ends at nextWrite.
      win.dropReady();
      // What is already in order still lands, so the .part keeps every byte received.
      if (!writing && writeQueue.length) void writeLoop();
      finish();
    }

    const pump = () => {
      if (failure) return finish();
      if (!win.wantsRefill()) return finish();
      sock?.cork();
      try {
        fill();
      } finally {
        sock?.uncork();
      }
      finish();
    };

    const fill = () => {
      // The window holds back reads further ahead than the disk is keeping up with.
      for (let r = win.take(); r; r = win.take()) issue(r);
    };

    const issue = (r: Read) => {
      const { at, len } = r;
      if (!isChannelOpen(sftp)) {
        win.answered();
        return fail({ kind: 'transport', message: 'SFTP channel closed' });
      }
      const reuse = len === chunk ? spare.pop() : undefined;
      const buf = reuse ?? Buffer.allocUnsafe(len);
      try {
        sftp.read(handle, buf, 0, len, at, (err: Error | null | undefined, n: number) => {
          win.answered();
          if (failure) return finish();
          if (err) {
            const code = sftpCode(err);
            if (code === SFTP_EOF) return fail({ kind: 'remote-shrank', at });
            if (code === undefined) return fail({ kind: 'transport', message: err.message });
            return fail({ kind: 'remote-io', message: err.message, code });
          }
          if (n === 0) return fail({ kind: 'remote-shrank', at });
          lastProgress = Date.now();
          win.landed(r, buf, n);
          drainReady();
          pump();
        });
      } catch (e) {
        win.answered();
        fail({ kind: 'transport', message: e instanceof Error ? e.message : String(e) });
      }
    };

    const drainReady = () => {
      for (const piece of win.inOrder()) {
        opts.hash.update(piece);
        writeQueue.push(piece);
      }
      // Disk writes in blocks of about 1 MiB (one syscall each), not one per 32 KiB read.
      if (!writing && writeQueue.length && (win.queued >= WRITE_BLOCK || win.complete || win.inFlight === 0)) void writeLoop();
    };

    const writeLoop = async () => {
      writing = true;
      try {
        while (writeQueue.length) {
          const batch = writeQueue;
          writeQueue = [];
          const total = await part.append(batch);
          win.written(total);
          for (const b of batch) if (b.length === chunk && b.byteOffset === 0 && spare.length < inFlightMax) spare.push(b);
          opts.onBytes?.(total);
          if (!failure) pump();
        }
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        writeQueue = [];
        win.dropQueued();
        writing = false;
        failure ??= { kind: 'local-io', message: err.message, code: err.code };
        win.dropReady();
      }
      writing = false;
      finish();
    };

    if (opts.from >= end) {
      release();
      resolve(0);
      return;
    }
    if (opts.signal?.aborted) return fail({ kind: 'aborted' });
    pump();
  });
}

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

const WRITE_BLOCK = 1024 * 1024;
const SYNC_EVERY = 16 * 1024 * 1024;

/** The reads' size and number and the socket to cork, fixed for one pull. */
interface RangeTuning {
  inFlightMax: number;
  chunk: number;
  sock: ReturnType<typeof corkableSocketOf>;
  stallMs: number;
  end: number;
}

function rangeTuning(sftp: SFTPWrapper, opts: PullOptions): RangeTuning {
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
  const stallMs = opts.stallMs ?? 60_000;
  return { inFlightMax, chunk, sock, stallMs, end: opts.size };
}

/** One pullRange under way: the read window, the writes behind it, and how it settles. */
class RangePull {
  private readonly win: ReadWindow;
  private readonly part: PartAppender;
  private readonly spare: Buffer[] = []; // written buffers, reused for the next reads
  private writing = false;
  private writeQueue: Buffer[] = [];
  private failure: PullFailure | undefined;
  private settled = false;
  private lastProgress = Date.now();
  private readonly stallTimer: ReturnType<typeof setInterval>;
  private readonly unsubscribe: () => void;
  private readonly onAbort = () => this.fail({ kind: 'aborted' });

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly handle: Buffer,
    out: FileHandle,
    private readonly opts: PullOptions,
    private readonly t: RangeTuning,
    private readonly resolve: (n: number) => void,
    private readonly reject: (e: PullError) => void,
  ) {
    this.win = new ReadWindow(opts.from, t.end, t.inFlightMax, t.chunk);
    this.part = new PartAppender(out, opts.from, t.end, opts.syncEvery ?? SYNC_EVERY);
    this.stallTimer = setInterval(() => {
      if (Date.now() - this.lastProgress > t.stallMs) this.fail({ kind: 'stalled', ms: t.stallMs });
    }, Math.min(1000, Math.max(50, t.stallMs / 4)));
    opts.signal?.addEventListener('abort', this.onAbort);
    // The channel closing is the one signal that always comes after a reset: reject on it
    // even if some read callback were never to fire.
    const onClose = () => this.fail({ kind: 'transport', message: 'SFTP channel closed' });
    this.unsubscribe = onSessionGone(sftp, onClose);
  }

  start(): void {
    if (this.opts.from >= this.t.end) {
      this.release();
      this.resolve(0);
      return;
    }
    if (this.opts.signal?.aborted) return this.fail({ kind: 'aborted' });
    this.pump();
  }

  private release(): void {
    this.settled = true;
    clearInterval(this.stallTimer);
    this.opts.signal?.removeEventListener('abort', this.onAbort);
    this.unsubscribe();
  }

  private finish(): void {
    const { win, failure } = this;
    if (this.settled) return;
    // Wait for reads already sent (their callbacks fire on reply or channel cleanup) and
    // for queued writes, so the .part is closed on a clean prefix.
    if (failure) {
      // Replies still due would be dropped anyway; only a dead or stalled link or an
      // interrupt is worth not waiting for, an SFTP error status still drains its peers.
      if (this.writing || (win.inFlight > 0 && failure.kind !== 'transport' && failure.kind !== 'stalled' && failure.kind !== 'aborted')) return;
    } else if (this.writing || win.inFlight > 0 || !win.complete) return;
    const syncing = this.part.syncing;
    if (syncing) {
      void syncing.then(() => this.finish());
      return;
    }
    this.release();
    if (failure) this.reject(new PullError(failure));
    else this.resolve(win.nextWrite - this.opts.from);
  }

  private fail(f: PullFailure): void {
    if (!this.failure) this.failure = f;
    // Nothing more is hashed or written once failed: the prefix ends at nextWrite.
    this.win.dropReady();
    // What is already in order still lands, so the .part keeps every byte received.
    if (!this.writing && this.writeQueue.length) void this.writeLoop();
    this.finish();
  }

  private pump(): void {
    if (this.failure) return this.finish();
    if (!this.win.wantsRefill()) return this.finish();
    this.t.sock?.cork();
    try {
      this.fill();
    } finally {
      this.t.sock?.uncork();
    }
    this.finish();
  }

  private fill(): void {
    // The window holds back reads further ahead than the disk is keeping up with.
    for (let r = this.win.take(); r; r = this.win.take()) this.issue(r);
  }

  private issue(r: Read): void {
    const { win, sftp } = this;
    const { at, len } = r;
    if (!isChannelOpen(sftp)) {
      win.answered();
      return this.fail({ kind: 'transport', message: 'SFTP channel closed' });
    }
    const reuse = len === this.t.chunk ? this.spare.pop() : undefined;
    const buf = reuse ?? Buffer.allocUnsafe(len);
    try {
      sftp.read(this.handle, buf, 0, len, at, (err: Error | null | undefined, n: number) => {
        win.answered();
        if (this.failure) return this.finish();
        if (err) {
          const code = sftpCode(err);
          if (code === SFTP_EOF) return this.fail({ kind: 'remote-shrank', at });
          if (code === undefined) return this.fail({ kind: 'transport', message: err.message });
          return this.fail({ kind: 'remote-io', message: err.message, code });
        }
        if (n === 0) return this.fail({ kind: 'remote-shrank', at });
        this.lastProgress = Date.now();
        win.landed(r, buf, n);
        this.drainReady();
        this.pump();
      });
    } catch (e) {
      win.answered();
      this.fail({ kind: 'transport', message: e instanceof Error ? e.message : String(e) });
    }
  }

  private drainReady(): void {
    const win = this.win;
    for (const piece of win.inOrder()) {
      this.opts.hash.update(piece);
      this.writeQueue.push(piece);
    }
    // Disk writes in blocks of about 1 MiB (one syscall each), not one per 32 KiB read.
    if (!this.writing && this.writeQueue.length && (win.queued >= WRITE_BLOCK || win.complete || win.inFlight === 0)) void this.writeLoop();
  }

  private async writeLoop(): Promise<void> {
    const win = this.win;
    this.writing = true;
    try {
      while (this.writeQueue.length) {
        const batch = this.writeQueue;
        this.writeQueue = [];
        const total = await this.part.append(batch);
        win.written(total);
        for (const b of batch) if (b.length === this.t.chunk && b.byteOffset === 0 && this.spare.length < this.t.inFlightMax) this.spare.push(b);
        this.opts.onBytes?.(total);
        if (!this.failure) this.pump();
      }
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      this.writeQueue = [];
      win.dropQueued();
      this.writing = false;
      this.failure ??= { kind: 'local-io', message: err.message, code: err.code };
      win.dropReady();
    }
    this.writing = false;
    this.finish();
  }
}

/**
 * Reads bytes [from, size) of the open remote `handle` and appends them to `out` (a local
 * file whose current length is `from`). Resolves with the number of bytes written; rejects
 * with a PullError after every write already queued has landed, so the local file is a
 * clean prefix either way.
 */
export function pullRange(sftp: SFTPWrapper, handle: Buffer, out: FileHandle, opts: PullOptions): Promise<number> {
  const tuning = rangeTuning(sftp, opts);
  return new Promise<number>((resolve, reject) => new RangePull(sftp, handle, out, opts, tuning, resolve, reject).start());
}

// Appending a pulled range to its local .part, in file order, and a background datasync
// every so many bytes so that the fsync before publishing has little left to do.
//
// Writes go out synchronously in pieces of at most 32 KiB while each batch lands quickly, and
// as gathered asynchronous writes (one per batch, through libuv) from the first batch that
// does not. Why the small pieces: a write of 128 KiB or more lets Linux (6.x ext4, large
// folios) fill the page cache with large folios; on a VM that hands free memory back to its
// host (virtio-balloon free page reporting, order 5 = 128 KiB here) those come from memory
// the host must back again on first touch, and 256 MiB of ~3 MiB writes cost 0.38–0.72 s of
// system time against a steady 0.09–0.11 s for 32 KiB writes (bench/README.md, sixth
// session). Why synchronous: 8192 writes through libuv's thread pool cost ~0.5 s of CPU in
// wake-ups alone; on the main thread each is a plain syscall, about 13 µs for 32 KiB into
// the page cache. Why the fallback: a disk that is behind makes the kernel throttle the
// writer, and that must not stall the editor's event loop.
import { writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** The largest synchronous write (the size scp writes). */
export const SYNC_PIECE = 32 * 1024;
/** A batch written synchronously that took longer than this switches the appender to asynchronous writes. */
export const SLOW_BATCH_MS = 30;

export class PartAppender {
  private pos: number;
  private unsynced = 0;
  private pendingSync: Promise<void> | undefined;
  private syncWrites: boolean;
  private readonly slowBatchMs: number;

  /** Appends to `out` from offset `from`; a datasync every `syncEvery` bytes (0: never) short of `end`. */
  constructor(
    private readonly out: FileHandle,
    from: number,
    private readonly end: number,
    private readonly syncEvery: number,
    opts: { syncWrites?: boolean; slowBatchMs?: number } = {},
  ) {
    this.pos = from;
    this.syncWrites = opts.syncWrites ?? true;
    this.slowBatchMs = opts.slowBatchMs ?? SLOW_BATCH_MS;
  }

  /** The background datasync under way, if any (one at a time). */
  get syncing(): Promise<void> | undefined {
    return this.pendingSync;
  }

  /** Whether the next batch is written synchronously in small pieces (false once one was slow). */
  get writesInPieces(): boolean {
    return this.syncWrites;
  }

  /** Writes `batch` where the last append ended; resolves with its byte count once every byte is written. */
  async append(batch: Buffer[]): Promise<number> {
    const total = batch.reduce((n, b) => n + b.length, 0);
    if (this.syncWrites) this.writeInPieces(batch);
    else await this.writeGathered(batch, total);
    this.unsynced += total;
    if (this.syncEvery > 0 && this.unsynced >= this.syncEvery && !this.pendingSync && this.pos < this.end) {
      this.unsynced = 0;
      // Never awaited by the writes; its failure only means the final fsync does the work
      // (and reports any error).
      const settle = () => {
        this.pendingSync = undefined;
      };
      this.pendingSync = this.out.datasync().then(settle, settle);
    }
    return total;
  }

  private writeInPieces(batch: Buffer[]): void {
    const fd = this.out.fd;
    const t0 = performance.now();
    for (const b of batch) {
      let off = 0;
      while (off < b.length) {
        const n = writeSync(fd, b, off, Math.min(SYNC_PIECE, b.length - off), this.pos);
        off += n;
        this.pos += n;
      }
    }
    if (performance.now() - t0 > this.slowBatchMs) this.syncWrites = false;
  }

  private async writeGathered(batch: Buffer[], total: number): Promise<void> {
    // Gathered write, no copy; a short write (rare) finishes with plain writes.
    const written = (await this.out.writev(batch, this.pos)).bytesWritten;
    this.pos += written;
    if (written < total) {
      const rest = Buffer.concat(batch).subarray(written);
      let off = 0;
      while (off < rest.length) {
        const { bytesWritten } = await this.out.write(rest, off, rest.length - off, this.pos);
        off += bytesWritten;
        this.pos += bytesWritten;
      }
    }
  }
}

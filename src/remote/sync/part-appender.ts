// Appending a pulled range to its local .part, in file order: gathered writes (no copy), a
// short write finished with plain writes, and a background datasync every so many bytes so
// that the fsync before publishing has little left to do.
import type { FileHandle } from 'node:fs/promises';

export class PartAppender {
  private pos: number;
  private unsynced = 0;
  private pendingSync: Promise<void> | undefined;

  /** Appends to `out` from offset `from`; a datasync every `syncEvery` bytes (0: never) short of `end`. */
  constructor(
    private readonly out: FileHandle,
    from: number,
    private readonly end: number,
    private readonly syncEvery: number,
  ) {
    this.pos = from;
  }

  /** The background datasync under way, if any (one at a time). */
  get syncing(): Promise<void> | undefined {
    return this.pendingSync;
  }

  /** Writes `batch` where the last append ended; resolves with its byte count once every byte is written. */
  async append(batch: Buffer[]): Promise<number> {
    const total = batch.reduce((n, b) => n + b.length, 0);
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
}

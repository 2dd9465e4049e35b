// The bookkeeping of one pipelined range pull, with no I/O: which read to send next (a short
// read's tail first, then the next chunk), how many are out, completed reads held until their
// turn so bytes leave strictly in file order, and the backpressure that stops reading further
// ahead than the disk keeps up with. transfer.ts's pullRange drives it with SFTP reads and
// file writes; the unit tests drive it with replies in any order.

/** One read request: `len` bytes at offset `at`. */
export interface Read {
  at: number;
  len: number;
}

export class ReadWindow {
  private nextIssue: number;
  private nextInOrder: number;
  private out = 0;
  private readonly retry: Read[] = []; // tails of short reads
  private readonly ready = new Map<number, Buffer>(); // completed reads waiting for their turn
  private readyBytes = 0;
  private queuedBytes = 0;
  private readonly refillAt: number;

  /** Bytes [from, end) in reads of `chunk` bytes, at most `inFlightMax` out at once. */
  constructor(
    from: number,
    readonly end: number,
    readonly inFlightMax: number,
    readonly chunk: number,
  ) {
    this.nextIssue = from;
    this.nextInOrder = from;
    this.refillAt = Math.max(1, inFlightMax - Math.max(1, Math.floor(inFlightMax / 8)));
  }

  /** Reads sent and not yet answered. */
  get inFlight(): number {
    return this.out;
  }

  /** The next offset to hash and write: every byte before it has been handed out in order. */
  get nextWrite(): number {
    return this.nextInOrder;
  }

  /** Bytes handed out in order and not yet reported written. */
  get queued(): number {
    return this.queuedBytes;
  }

  /** Every byte up to the end has been handed out in order. */
  get complete(): boolean {
    return this.nextInOrder >= this.end;
  }

  /**
   * Whether to send more now: only once an eighth of the window is back (so reads go out in
   * bursts, one socket write each), or at once when a short read's tail waits.
   */
  wantsRefill(): boolean {
    return !(this.out > 0 && this.out > this.refillAt && this.retry.length === 0);
  }

  /**
   * The next read to send, counted as in flight; none while the window is full or nothing is
   * left. A short read's tail goes out even when the disk is behind: the bytes held after it
   * wait for it, and holding it back too stalled the pull once they filled the backpressure
   * budget. New chunks wait while twice the window is held or queued.
   */
  take(): Read | undefined {
    if (this.out >= this.inFlightMax) return undefined;
    let r = this.retry.shift();
    if (!r) {
      if (this.nextIssue >= this.end || this.queuedBytes + this.readyBytes >= this.inFlightMax * this.chunk * 2) return undefined;
      r = { at: this.nextIssue, len: Math.min(this.chunk, this.end - this.nextIssue) };
      this.nextIssue += r.len;
    }
    this.out++;
    return r;
  }

  /** A read taken is no longer out: answered (with data or an error), or never sent. */
  answered(): void {
    this.out--;
  }

  /** `n` bytes (0 < n <= r.len) came for `r` in `buf`: held for their turn; a short read's tail is asked again. */
  landed(r: Read, buf: Buffer, n: number): void {
    if (n < r.len) this.retry.push({ at: r.at + n, len: r.len - n });
    this.ready.set(r.at, n < r.len ? buf.subarray(0, n) : buf);
    this.readyBytes += n;
  }

  /** The held pieces next in file order, in that order, now counted as queued for the disk. */
  inOrder(): Buffer[] {
    const pieces: Buffer[] = [];
    let piece = this.ready.get(this.nextInOrder);
    while (piece) {
      this.ready.delete(this.nextInOrder);
      this.readyBytes -= piece.length;
      pieces.push(piece);
      this.queuedBytes += piece.length;
      this.nextInOrder += piece.length;
      piece = this.ready.get(this.nextInOrder);
    }
    return pieces;
  }

  /** `n` queued bytes reached the disk. */
  written(n: number): void {
    this.queuedBytes -= n;
  }

  /** Failed: pieces held out of order are dropped, so the prefix ends at nextWrite. */
  dropReady(): void {
    this.ready.clear();
    this.readyBytes = 0;
  }

  /** The writes failed: nothing queued will reach the disk. */
  dropQueued(): void {
    this.queuedBytes = 0;
  }
}

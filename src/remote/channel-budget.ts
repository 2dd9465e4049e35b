// The channel budget: how many SSH channels (exec and SFTP) one connection opens at once,
// below the server's MaxSessions; the rest wait in a FIFO queue under their operation's
// deadline. When the server refuses a channel anyway the budget drops to what was proven
// allowed (the most that were ever open at once), never below one.
import { RemoteError, waitEnded } from './errors';
import { isDeadlineReason } from './util/deadline';
import { Semaphore, type Release } from './util/semaphore';

export class ChannelBudget {
  private readonly slots: Semaphore;
  /** Channels open on the server now, and the most ever open at once. */
  private live = 0;
  private peak = 0;

  constructor(max: number) {
    this.slots = new Semaphore(Math.max(1, max));
  }

  get limit(): number {
    return this.slots.limit;
  }

  get inUse(): number {
    return this.slots.inUse;
  }

  get open(): number {
    return this.live;
  }

  /** One slot, waited for under `signal` (an operation signal: its deadline and its cancel). */
  async acquire(signal?: AbortSignal): Promise<Release> {
    try {
      return await this.slots.acquire(signal);
    } catch (reason) {
      if (reason instanceof RemoteError) throw reason;
      if (isDeadlineReason(reason)) {
        throw waitEnded({ code: 'channel-wait', inUse: this.inUse, budget: this.limit }, { detail: { stage: 'channel-wait', inUse: this.inUse, budget: this.limit } });
      }
      throw waitEnded({ code: 'cancelled' });
    }
  }

  /** A channel opened on the server (call the returned function when it closes). */
  opened(): () => void {
    this.live++;
    this.peak = Math.max(this.peak, this.live);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.live--;
    };
  }

  /** The server refused a channel: lower the budget to what was proven allowed. Returns the new budget. */
  shrinkAfterRefusal(): number {
    this.slots.limit = Math.max(1, this.live, this.peak);
    return this.slots.limit;
  }

  /** The connection closed: everyone waiting fails. */
  close(): void {
    this.slots.failWaiting(waitEnded({ code: 'connection-closed' }));
  }
}

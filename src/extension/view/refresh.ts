// The one way the Instances view is refreshed, in the manner of vscode-containers'
// RefreshManager: every request names why (a reason) and, where it can, which element; requests
// are debounced and coalesced (one element → that node, several → those nodes, any request
// without one → the whole tree) and delivered only while the view is visible. A request made
// while the view is hidden is remembered and delivered once it shows. Free of `vscode` so it is
// tested in Node: the delivery (`fire`) and the clock are injected, visibility is told.

/** Why the view is refreshed (logged at debug level with each delivery). */
export type RefreshReason =
  /** Instances added, removed or changed in the store. */
  | 'store'
  /** An SSH connection's state changed (connecting, lost, …). */
  | 'connection'
  /** A run's progress was read, its box stopped answering, or a run ended. */
  | 'runs'
  /** A checkpoint watch started or stopped. */
  | 'sync-watch'
  /** What a platform said (a poll, an observed state, a login waiting for the user's word). */
  | 'platforms'
  /** A launch row came, changed or went. */
  | 'launch'
  /** An account's "Available now" rows were read. */
  | 'stock'
  /** The periodic tick of figures that move on their own (billing instances, launch spend). */
  | 'figures'
  /** The user's Refresh. */
  | 'user'
  /** A platform power action settled or did not. */
  | 'power'
  /** A platform account was added or removed. */
  | 'accounts'
  /** A store was added or removed (Add Storage…). */
  | 'stores';

/**
 * An element of the view: an instance id as it is (ids are `[A-Za-z0-9_-]+`), or one of the
 * prefixed keys below for the other rows.
 */
export type ElementKey = string;
export const platformKey = (platform: string): ElementKey => `platform:${platform}`;
export const launchKey = (key: string): ElementKey => `launch:${key}`;
export const stockKey = (accountId: string): ElementKey => `stock:${accountId}`;

export interface RefreshClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: RefreshClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface RefreshOptions {
  /** Delivers one coalesced refresh: those elements, or the whole tree (undefined). */
  fire(keys: readonly ElementKey[] | undefined): void;
  /** Whether the view is visible when the scheduler is made (later: setVisible). */
  visible: boolean;
  /** Quiet time after the latest request before it is delivered (ms). */
  debounceMs?: number;
  /** A steady stream of requests is still delivered at least this often (ms). */
  maxWaitMs?: number;
  /** Debug log line per delivery (the reasons and what was refreshed). */
  log?(line: string): void;
  clock?: RefreshClock;
}

export const REFRESH_DEBOUNCE_MS = 150;
const MAX_WAIT_MS = 1000;
/** Keys named in one log line; the rest are counted. */
const LOGGED_KEYS = 10;

export class RefreshScheduler {
  private visible: boolean;
  private root = false;
  private readonly keys = new Set<ElementKey>();
  private readonly reasons = new Set<RefreshReason>();
  /** When the oldest pending request was made (for maxWait); undefined when nothing is pending. */
  private firstAt: number | undefined;
  /** When the latest one was made (the quiet time counts from it). */
  private lastAt = 0;
  private timer: unknown;
  private disposed = false;
  private readonly clock: RefreshClock;
  private readonly debounceMs: number;
  private readonly maxWaitMs: number;

  constructor(private readonly options: RefreshOptions) {
    this.visible = options.visible;
    this.clock = options.clock ?? realClock;
    this.debounceMs = options.debounceMs ?? REFRESH_DEBOUNCE_MS;
    this.maxWaitMs = Math.max(this.debounceMs, options.maxWaitMs ?? MAX_WAIT_MS);
  }

  /** Asks for a refresh of one element (an instance id or another ElementKey), or of the whole tree. */
  request(reason: RefreshReason, key?: ElementKey): void {
    if (this.disposed) return;
    if (key === undefined) this.root = true;
    else if (!this.root) this.keys.add(key);
    this.reasons.add(reason);
    this.lastAt = this.clock.now();
    this.firstAt ??= this.lastAt;
    // One timer per delivery: a burst of requests only moves lastAt (the timer re-arms itself).
    if (this.timer === undefined) this.arm(this.debounceMs);
  }

  /** The view was shown or hidden: hidden, nothing is delivered (requests wait); shown, what waited goes out. */
  setVisible(visible: boolean): void {
    if (this.visible === visible) return;
    this.visible = visible;
    if (!visible) this.cancel();
    else if (this.pending) {
      // What waited while hidden is delivered after the usual quiet time from now.
      this.firstAt = this.lastAt = this.clock.now();
      this.arm(this.debounceMs);
    }
  }

  get isVisible(): boolean {
    return this.visible;
  }

  /** Something waits to be delivered. */
  get pending(): boolean {
    return this.firstAt !== undefined;
  }

  private arm(ms: number): void {
    if (!this.visible || this.firstAt === undefined) return;
    this.cancel();
    this.timer = this.clock.setTimeout(() => this.due(), ms);
  }

  /** The timer's end: delivered once the quiet time since the latest request has passed, or maxWait since the first. */
  private due(): void {
    this.timer = undefined;
    if (this.firstAt === undefined) return;
    const at = Math.min(this.lastAt + this.debounceMs, this.firstAt + this.maxWaitMs);
    const now = this.clock.now();
    if (now < at) this.arm(at - now);
    else this.flush();
  }

  private cancel(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Delivers what is pending now (the timer's end; also usable by the owner before it goes). */
  flush(): void {
    this.cancel();
    if (!this.visible || this.firstAt === undefined) return;
    const keys = this.root ? undefined : [...this.keys];
    const reasons = [...this.reasons];
    this.root = false;
    this.keys.clear();
    this.reasons.clear();
    this.firstAt = undefined;
    this.options.log?.(`refresh ${keys ? describeKeys(keys) : 'all'} (${reasons.join(', ')})`);
    this.options.fire(keys);
  }

  dispose(): void {
    this.disposed = true;
    this.cancel();
  }
}

function describeKeys(keys: readonly ElementKey[]): string {
  const shown = keys.slice(0, LOGGED_KEYS).join(', ');
  return keys.length > LOGGED_KEYS ? `${shown} +${keys.length - LOGGED_KEYS} more` : shown;
}

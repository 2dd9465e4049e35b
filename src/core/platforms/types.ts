// The one connector interface every platform adapter implements, in pure terms: what a
// platform says about an instance (its own state word mapped onto ours), its price read from
// the platform in fen per hour, a balance in fen, and what each connector can do. No I/O here.
import type { Fen } from '../money';
import { DESCRIPTORS, PLATFORM_DESCRIPTORS, PLATFORM_KINDS, type PlatformKind } from './descriptors';

export { PLATFORM_KINDS, type PlatformKind };

/** The catalog platform each connector belongs to (the tree groups by it). */
export const CATALOG_PLATFORM: Record<PlatformKind, string> = Object.fromEntries(DESCRIPTORS.map((d) => [d.kind, d.catalogPlatform])) as Record<PlatformKind, string>;

export const CAPABILITIES = ['list', 'get', 'powerOn:gpu', 'powerOn:noGpu', 'powerOff:keep', 'powerOff:stopCharging', 'release', 'price', 'balance', 'sshLogin'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** What each connector declares (its descriptor's capabilities); the UI and CLI offer only these. */
export const CONNECTOR_CAPABILITIES: Record<PlatformKind, readonly Capability[]> = Object.fromEntries(DESCRIPTORS.map((d) => [d.kind, d.capabilities])) as Record<PlatformKind, readonly Capability[]>;

/** Experimental connectors are opt-in and labelled so. */
export const EXPERIMENTAL: ReadonlySet<PlatformKind> = new Set(DESCRIPTORS.filter((d) => d.experimental).map((d) => d.kind));

export function can(kind: PlatformKind, cap: Capability): boolean {
  return PLATFORM_DESCRIPTORS[kind].capabilities.includes(cap);
}

/** Our reading of the platform's state word. Transitional states settle into a steady one. */
export type PlatformState = 'starting' | 'running' | 'noGpu' | 'stopping' | 'stopped' | 'releasing' | 'released' | 'unknown';
export const STEADY_STATES: ReadonlySet<PlatformState> = new Set(['running', 'noGpu', 'stopped', 'released']);

export interface SshEndpoint {
  host: string;
  port: number;
  user: string;
}

/** One instance as the platform reports it. */
export interface PlatformInstance {
  /** The platform's own id (AutoDL uuid, i-…, ins-…). */
  ref: string;
  name: string;
  state: PlatformState;
  /** The platform's own word, shown in tooltips and JSON. */
  rawState: string;
  card?: string;
  gpuCount?: number;
  region?: string;
  ssh?: SshEndpoint;
  /** Price per hour the platform quotes for this instance, fen/h (AutoDL: only while running). */
  priceFenPerHour?: Fen;
  /** Epoch seconds when that price was read. */
  priceReadAt?: number;
  /** Stopped in a mode that does not bill compute (阿里云 StopCharging, 腾讯云 STOP_CHARGING). */
  stopCharging?: boolean;
  /**
   * How the platform bills it: `postpaid` by the hour at its own price, `prepaid` (包月/包年:
   * compute already paid), `spot` at the spot price. Absent when the platform does not say.
   */
  billing?: PlatformBilling;
  /** When it was shut down, by the platform's clock (AutoDL `stopped_at`), epoch seconds. */
  stoppedAt?: number;
  /** When the platform will release it (AutoDL console `release_at`, or `stopped_at` + 15 days), epoch seconds. */
  releaseAt?: number;
  /**
   * A timer the platform keeps itself and runs while this machine sleeps, as armed in its
   * console: AutoDL `timed_shutdown_at` (a shut-down), 阿里云 `AutoReleaseTime` (a RELEASE, disks
   * and all). `at` in epoch seconds.
   */
  platformTimer?: PlatformTimer;
}

export interface PlatformTimer {
  action: 'shutdown' | 'release';
  at: number;
}

export type PlatformBilling = 'postpaid' | 'prepaid' | 'spot';

/** AutoDL releases an instance, data and all, after this many days shut down. */
export const AUTODL_RELEASE_DAYS = 15;

export interface SshLogin extends SshEndpoint {
  password?: string;
}

export interface Balance {
  fen: Fen;
  readAt: number;
}

export type PowerOnMode = 'gpu' | 'noGpu';
export type PowerOffMode = 'keep' | 'stopCharging';

export type FailureKind =
  | 'auth'
  | 'tokenExpired'
  | 'rateLimited'
  | 'server'
  | 'network'
  | 'timeout'
  | 'insufficientBalance'
  | 'noStock'
  /** The instance's host has no free GPU now (AutoDL 该主机空闲GPU不足): wait, or clone/migrate to another host. */
  | 'noGpuOnHost'
  | 'realName'
  /** An account quota (instances, cores, GPUs of a type) is used up: raise it in the console. */
  | 'quota'
  | 'notFound'
  | 'invalidState'
  | 'badResponse'
  | 'notSupported'
  | 'other';

export interface PlatformFailure {
  platform: PlatformKind;
  kind: FailureKind;
  /** The platform's own error code (or the HTTP status / network code). */
  code: string;
  /** The platform's own message, bounded. */
  message: string;
  status?: number;
}

/** A failure worth backing off from (the poller waits longer; it never hammers). */
export function isTransient(f: Pick<PlatformFailure, 'kind'>): boolean {
  return f.kind === 'rateLimited' || f.kind === 'server' || f.kind === 'network' || f.kind === 'timeout';
}

export interface Connector {
  readonly kind: PlatformKind;
  readonly capabilities: readonly Capability[];
  list(signal?: AbortSignal): Promise<PlatformInstance[]>;
  get(ref: string, signal?: AbortSignal): Promise<PlatformInstance>;
  powerOn(ref: string, mode: PowerOnMode, signal?: AbortSignal): Promise<void>;
  powerOff(ref: string, mode: PowerOffMode, signal?: AbortSignal): Promise<void>;
  release(ref: string, signal?: AbortSignal): Promise<void>;
  /** Price per hour in fen with the time read; undefined when the platform shows none now. */
  price(ref: string, signal?: AbortSignal): Promise<{ fenPerHour: Fen; readAt: number } | undefined>;
  balance(signal?: AbortSignal): Promise<Balance>;
  sshLogin(ref: string, signal?: AbortSignal): Promise<SshLogin | undefined>;
}

/** The most instances read from one account (a page never holds more rows than asked). */
export const MAX_INSTANCES_PER_ACCOUNT = 5000;

const MAX_TEXT = 300;
// C0, DEL, C1 (U+009B is a one-byte CSI), the line and paragraph separators, the bidi
// embeddings, overrides, isolates and marks (they reorder what is shown), and the BOM.
const PLATFORM_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\ufeff]+/g;

/** Platform text is data: one line, no control or reordering character, bounded. The front ends still render it as box text. */
export function boundText(v: unknown, max = MAX_TEXT): string {
  const s = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
  // Bound the work first: a 4 MB name is cut, not scanned whole.
  const head = s.length > max * 4 + 16 ? s.slice(0, max * 4 + 16) : s;
  const one = head.replace(PLATFORM_CONTROL, ' ').trim();
  if (one.length <= max && head.length === s.length) return one;
  if (one.length <= max) return one + '…';
  // Never split a surrogate pair.
  const end = /[\ud800-\udbff]/.test(one[max - 1] ?? '') ? max - 1 : max;
  return one.slice(0, end) + '…';
}

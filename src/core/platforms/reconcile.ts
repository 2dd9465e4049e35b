// What the platform says, applied to the stored instances: which stored entry a platform
// instance is (by its platform id, else its SSH host:port: never a duplicate), which of our
// billing states an observed platform state means, whether a balance covers a day, and, where
// no API exists, what the SSH reachability suggests (a proposal, never a silent switch).
import type { Fen } from '../money';
import type { InstanceState } from '../spend';
import { PLATFORM_DESCRIPTORS } from './descriptors';
import type { PlatformInstance, PlatformKind, PlatformState } from './types';

export interface PlatformRef {
  account: string;
  ref: string;
}

interface Matchable {
  id: string;
  login: { host: string; port: number };
  platformRef?: PlatformRef;
}

/** Stored instances by platform id and by SSH endpoint: thousands of platform instances are matched without a search each. */
export interface StoredIndex<T> {
  byRef: Map<string, T>;
  byEndpoint: Map<string, T[]>;
}

const refKey = (account: string, ref: string) => `${account}\u0000${ref}`;
const endpointKey = (host: string, port: number) => `${host.toLowerCase()}:${port}`;

export function indexStored<T extends Matchable>(stored: readonly T[]): StoredIndex<T> {
  const byRef = new Map<string, T>();
  const byEndpoint = new Map<string, T[]>();
  for (const s of stored) {
    if (s.platformRef) {
      const k = refKey(s.platformRef.account, s.platformRef.ref);
      if (!byRef.has(k)) byRef.set(k, s);
      continue;
    }
    const k = endpointKey(s.login.host, s.login.port);
    const list = byEndpoint.get(k);
    if (list) list.push(s);
    else byEndpoint.set(k, [s]);
  }
  return { byRef, byEndpoint };
}

/** matchStored over an index; `claimed` are ids already matched in this pass. */
export function matchIndexed<T extends Matchable>(ix: StoredIndex<T>, account: string, p: PlatformInstance, claimed: ReadonlySet<string> = new Set()): T | undefined {
  const byRef = ix.byRef.get(refKey(account, p.ref));
  if (byRef) return byRef;
  if (!p.ssh) return undefined;
  return ix.byEndpoint.get(endpointKey(p.ssh.host, p.ssh.port))?.find((s) => !claimed.has(s.id));
}

/** The stored instance a platform instance is, if any: its platform id first, then SSH host:port. */
export function matchStored<T extends Matchable>(stored: readonly T[], account: string, p: PlatformInstance, claimed: ReadonlySet<string> = new Set()): T | undefined {
  return matchIndexed(indexStored(stored), account, p, claimed);
}

/**
 * What to do with a login the platform reports for a stored instance. `take`: the instance had
 * no login yet, or only the port changed on the same host and user (the session checks the
 * host key against the earlier endpoint); `same`: nothing moved; `confirm`: the host or the
 * user differ — the stored login (and its password) stays until the user says otherwise.
 */
export function platformLoginDecision(stored: { host: string; port: number; user: string }, reported: { host: string; port: number; user: string }): 'take' | 'same' | 'confirm' {
  if (stored.host === 'invalid') return 'take';
  if (stored.host.toLowerCase() !== reported.host.toLowerCase() || stored.user !== reported.user) return 'confirm';
  return stored.port === reported.port ? 'same' : 'take';
}

/**
 * The billing state an observed platform state means, or undefined while it is on its way
 * somewhere (starting, stopping): the interval changes when it arrives, at the time it is seen.
 */
export function billingStateOf(state: PlatformState, current: InstanceState | undefined): InstanceState | undefined {
  switch (state) {
    case 'running':
      // A spot instance that runs is still spot.
      return current === 'spot' ? 'spot' : 'running';
    case 'noGpu':
      return 'noGpu';
    case 'stopped':
      return 'stopped';
    case 'released':
      return 'released';
    default:
      return undefined;
  }
}

/**
 * The state that says what is billed. 阿里云 and 腾讯云 keep billing a pay-as-you-go instance
 * stopped in keep-charging mode as if it ran; only StopCharging / STOP_CHARGING stops compute
 * billing. AutoDL bills only the disk of a shut-down instance.
 */
export function billedState(kind: PlatformKind, p: Pick<PlatformInstance, 'state' | 'stopCharging'>): PlatformState {
  return PLATFORM_DESCRIPTORS[kind].keepChargingStopBills && p.state === 'stopped' && !p.stopCharging ? 'running' : p.state;
}

/** The change to record, if any. */
export function observedChange(p: PlatformState, current: InstanceState | undefined): InstanceState | undefined {
  const next = billingStateOf(p, current);
  return next !== undefined && next !== current && current !== 'released' ? next : undefined;
}

/** Hours a balance lasts at a burn rate; Infinity when nothing burns. */
export function runwayHours(balanceFen: Fen, burnFenPerHour: number): number {
  if (!(burnFenPerHour > 0)) return Infinity;
  return Math.max(0, balanceFen) / burnFenPerHour;
}

/** The warning badge: the balance covers less than a day at the current burn rate. */
export function balanceLow(balanceFen: Fen, burnFenPerHour: number): boolean {
  return runwayHours(balanceFen, burnFenPerHour) < 24;
}

/** One SSH check of an instance with no platform API. */
export type SshObservation = { reachable: false } | { reachable: true; gpuCount: number };

export interface InferenceMemory {
  /** Consecutive failed checks since it last answered. */
  misses: number;
  /** It answered at least once since the last recorded state change. */
  wasUp: boolean;
}

export const UNREACHABLE_POLLS = 3;

/** Feeds one observation; returns the new memory and, when the evidence says so, a state to PROPOSE. */
export function inferState(mem: InferenceMemory, obs: SshObservation, current: InstanceState | undefined, missesNeeded = UNREACHABLE_POLLS): { memory: InferenceMemory; propose?: InstanceState | 'stopped?' } {
  if (obs.reachable) {
    const memory = { misses: 0, wasUp: true };
    const seen: InstanceState = obs.gpuCount > 0 ? (current === 'spot' ? 'spot' : 'running') : 'noGpu';
    return seen !== current ? { memory, propose: seen } : { memory };
  }
  const memory = { misses: mem.misses + 1, wasUp: mem.wasUp };
  const billing = current === 'running' || current === 'spot' || current === 'noGpu';
  if (billing && mem.wasUp && memory.misses === missesNeeded) return { memory, propose: 'stopped?' };
  return { memory };
}

// Cloning an instance onto a host with a free card, written once for both front ends (AutoDL's
// console: its answer to 该主机空闲GPU不足). planClone reads only: the instance's row and detail,
// the host list for its card and region, the candidates and their cost. cloneInstance sends the
// clone once; an answer that is lost is looked for by the clone's name before anything else is
// said (found: that is the clone; not yet: unknown, never "failed"), then the new instance is
// waited for until it leaves cloning, and its login read like a created one's.
import { descriptorOf } from '../../core/platforms/descriptors';
import {
  cloneBody,
  cloneCost,
  clonedRef,
  cloneName,
  cloneSourceOf,
  cloneState,
  isCloneRefusal,
  MACHINE_MAX_PAGES,
  machineListBody,
  machinePage,
  pickCandidates,
  sourceBusy,
  type CandidatePick,
  type CloneCandidate,
  type CloneCost,
  type CloneRefusal,
  type CloneSource,
} from '../../core/platforms/autodlClone';
import { boundText, type Connector, type PlatformInstance, type SshLogin } from '../../core/platforms/types';
import { PlatformError } from './errors';

/** What a connector that clones offers (the AutoDL console connector). */
export interface CloneConnector extends Connector {
  listedRow(ref: string, signal?: AbortSignal): Promise<Record<string, unknown> | undefined>;
  instanceDetail(ref: string, signal?: AbortSignal): Promise<unknown>;
  machineList(body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
  cloneOrder(body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
}

export function canClone(c: Connector): c is CloneConnector {
  const x = c as Partial<CloneConnector>;
  return descriptorOf(c.kind).clone === true && typeof x.cloneOrder === 'function' && typeof x.machineList === 'function';
}

export interface ClonePlan {
  source: CloneSource;
  candidates: CloneCandidate[];
  seen: number;
  skipped: CandidatePick['skipped'];
}

export type CloneOutcome =
  | { status: 'cloned'; ref: string; name: string; recovered: boolean; settled: boolean; rawState: string; instance?: PlatformInstance; login?: SshLogin }
  /** The platform made the instance and then reported clone_failed / create_failed. */
  | { status: 'failed'; ref: string; name: string; rawState: string }
  | { status: 'unknown'; name: string; reason: string };

/** The candidates for one instance (by its id), best first, with the facts their cost lines need. Reads only. */
export async function planClone(c: Connector, ref: string, signal?: AbortSignal): Promise<ClonePlan | CloneRefusal> {
  if (!canClone(c)) return { code: 'notSupported' };
  const row = await c.listedRow(ref, signal);
  if (!row) throw new PlatformError({ platform: c.kind, kind: 'notFound', code: 'RecordNotFoundError', message: ref });
  // The detail says the data disk and host; a detail that cannot be read leaves the row's facts.
  const detail = await c.instanceDetail(ref, signal).catch((e: unknown) => {
    if (e instanceof PlatformError && (e.failure.kind === 'auth' || e.failure.kind === 'tokenExpired')) throw e;
    return undefined;
  });
  const source = cloneSourceOf(row, detail);
  if (isCloneRefusal(source)) return source;
  if (sourceBusy(source.rawState)) return { code: 'cloning', detail: { ref, rawState: source.rawState } };
  const rows: unknown[] = [];
  for (let page = 1; page <= MACHINE_MAX_PAGES; page++) {
    const p = machinePage(await c.machineList(machineListBody(source, page), signal));
    rows.push(...p.rows);
    if (page >= p.maxPage || p.rows.length === 0) break;
  }
  const pick = pickCandidates(source, rows);
  if (!pick.candidates.length) return { code: 'noCandidate', detail: { card: source.card, gpus: source.gpus, region: source.regionName ?? source.regionSign ?? '', dataDiskBytes: source.dataDiskBytes, seen: pick.seen, skipped: pick.skipped } };
  return { source, candidates: pick.candidates, seen: pick.seen, skipped: pick.skipped };
}

export function costOf(plan: ClonePlan, c: CloneCandidate): CloneCost {
  return cloneCost(plan.source, c);
}

/** The candidate named by its host id (a front end's choice), or a refusal. */
export function chooseCandidate(plan: ClonePlan, machineId?: string): CloneCandidate | CloneRefusal {
  if (!machineId) return plan.candidates[0]!;
  return plan.candidates.find((x) => x.machineId === machineId) ?? { code: 'unknownMachine', detail: { machineId: boundText(machineId, 64) } };
}

export interface CloneOptions {
  name?: string;
  /** How long to wait for the clone to leave cloning (0: do not wait). Copying a big data disk takes minutes. */
  settleMs: number;
  intervalMs: number;
  /** After a lost answer: how many lists look for the name, intervalMs apart. */
  findAttempts?: number;
  onProgress?: (rawState: string) => void;
  signal?: AbortSignal;
}

const lostAnswer = (e: unknown): boolean => e instanceof PlatformError && (e.failure.kind === 'timeout' || e.failure.kind === 'network' || e.failure.kind === 'badResponse' || e.failure.kind === 'server');

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** An instance of that name other than the source (a clone sent before, its answer lost). */
function byName(list: readonly PlatformInstance[], name: string, sourceRef: string): PlatformInstance | undefined {
  return list.find((p) => p.name === name && p.ref !== sourceRef && p.state !== 'released' && p.state !== 'releasing');
}

/** The clone's state word: its detail, or its list row where the detail cannot be read. */
async function stateOf(c: CloneConnector, ref: string, signal?: AbortSignal): Promise<string> {
  try {
    const d = await c.instanceDetail(ref, signal);
    const s = d && typeof d === 'object' ? (d as { status?: unknown }).status : undefined;
    if (typeof s === 'string') return boundText(s, 40);
  } catch (e) {
    if (e instanceof PlatformError && (e.failure.kind === 'auth' || e.failure.kind === 'tokenExpired')) throw e;
  }
  const row = await c.listedRow(ref, signal).catch(() => undefined);
  return typeof row?.status === 'string' ? boundText(row.status, 40) : '';
}

/**
 * Sends the clone once (an instance already named so is the clone: nothing is sent), then waits
 * until it runs, is shut down or fails, and reads its login where it runs.
 */
export async function cloneInstance(c: Connector, plan: ClonePlan, target: CloneCandidate, o: CloneOptions): Promise<CloneOutcome> {
  if (!canClone(c)) throw new PlatformError({ platform: c.kind, kind: 'notSupported', code: 'NotSupported', message: 'this account cannot clone instances' });
  const name = cloneName(plan.source, o.name);
  let ref: string | undefined;
  let recovered = false;
  const before = byName(await c.list(o.signal), name, plan.source.ref);
  if (before) {
    ref = before.ref;
    recovered = true;
  } else {
    try {
      ref = clonedRef(await c.cloneOrder(cloneBody(plan.source, target, name), o.signal));
      if (!ref) recovered = true;
    } catch (e) {
      if (!lostAnswer(e)) throw e;
      recovered = true;
    }
    if (!ref) {
      const attempts = o.findAttempts ?? 5;
      for (let i = 0; i < attempts && !ref; i++) {
        if (i > 0) await sleep(o.intervalMs, o.signal);
        const found = byName(await c.list(o.signal).catch(() => []), name, plan.source.ref);
        if (found) ref = found.ref;
      }
      if (!ref) return { status: 'unknown', name, reason: 'the clone was sent and no answer came back' };
    }
  }
  const deadline = Date.now() + o.settleMs;
  let raw = await stateOf(c, ref, o.signal);
  o.onProgress?.(raw);
  while (cloneState(raw) === 'inProgress' && Date.now() < deadline && !o.signal?.aborted) {
    await sleep(o.intervalMs, o.signal);
    const next = await stateOf(c, ref, o.signal);
    if (next !== raw) o.onProgress?.(next);
    raw = next;
  }
  if (cloneState(raw) === 'failed') return { status: 'failed', ref, name, rawState: raw };
  const settled = cloneState(raw) === 'done';
  const instance = settled ? (await c.list(o.signal).catch(() => [])).find((p) => p.ref === ref) : undefined;
  const login = settled && raw === 'running' ? await c.sshLogin(ref, o.signal).catch(() => undefined) : undefined;
  return { status: 'cloned', ref, name, recovered, settled, rawState: raw, ...(instance ? { instance } : {}), ...(login ? { login } : {}) };
}

// The renter's instances as the extension stores them (globalState) and exports them (a JSON
// file without secrets). Passwords never live here: they are in the editor's secret store,
// keyed by instance id. Parsing never throws; bad input gives a code naming the problem.
import { z } from 'zod';
import { BILLING_MODES, INSTANCE_STATES, currentState, normalizeBillingMode, repriceCurrent, switchState, type InstanceState, type Pricing, type StateInterval } from './spend';

/** How many earlier host:port pairs of one instance are remembered. */
export const MAX_PREVIOUS_ENDPOINTS = 8;

const fen = z.number().int().min(0).max(100_000_000);
const epoch = z.number().int().min(0).max(32_503_680_000);
const shortText = (max: number) => z.string().min(1).max(max);

export const PricingSchema = z.strictObject({
  billingMode: z.preprocess(normalizeBillingMode, z.enum(BILLING_MODES as [string, ...string[]])),
  hourlyRate: fen,
  spotRate: fen.optional(),
  noGpuModeRate: fen,
  storageGbDay: fen,
  dataDiskGb: z.number().min(0).max(1_000_000),
  dataDiskUnknown: z.literal(true).optional(),
});

export const StateIntervalSchema = z.strictObject({
  state: z.enum(INSTANCE_STATES as [string, ...string[]]),
  from: epoch,
  to: epoch.optional(),
  computeRate: fen,
  storageRate: fen,
});

// C0, DEL, C1 and the Unicode line separators: none belongs in a path or an ssh config value.
const LOGIN_CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/;

export const LoginSchema = z.strictObject({
  host: shortText(255).regex(/^[A-Za-z0-9:][A-Za-z0-9._:-]*$/),
  port: z.number().int().min(1).max(65535),
  user: shortText(64).regex(/^[A-Za-z0-9_][A-Za-z0-9._-]*$/),
  /** 'password' (in the secret store), 'key' (a private key file) or 'agent'. */
  auth: z.enum(['password', 'key', 'agent']),
  /** No control characters: the path goes into ~/.ssh/config and onto ssh's command line. */
  keyPath: z.string().min(1).max(4096).refine((s) => !LOGIN_CONTROL.test(s), 'the key path contains a control character (a newline, tab or escape)').optional(),
  /** When picked from ~/.ssh/config: the Host alias it came from. */
  sshConfigHost: z.string().min(1).max(255).refine((s) => !LOGIN_CONTROL.test(s), 'the Host alias contains a control character').optional(),
  /** Where this same instance answered before (AutoDL gives a new port after a power cycle): its host key is recognised there. */
  previousEndpoints: z.array(z.strictObject({ host: shortText(255).regex(/^[A-Za-z0-9:][A-Za-z0-9._:-]*$/), port: z.number().int().min(1).max(65535) })).max(MAX_PREVIOUS_ENDPOINTS).optional(),
});

export const ProbeGpuSchema = z.strictObject({
  index: z.number().int().min(0).max(1024),
  name: z.string().max(200),
  memoryTotalBytes: z.number().min(0).optional(),
  memoryUsedBytes: z.number().min(0).optional(),
  utilizationPct: z.number().min(0).max(100).optional(),
});

export const LastProbeSchema = z.strictObject({
  at: epoch,
  gpus: z.array(ProbeGpuSchema).max(64),
  driverVersion: z.string().max(40).optional(),
  driverMaxCuda: z.string().max(20).optional(),
  /** Verdict codes from the doctor, worst first. */
  verdict: z.enum(['ok', 'warning', 'error']).optional(),
  /** The login's $HOME on the box (the sync prompt expands `~` to it). */
  home: z.string().max(500).optional(),
  /** The folder the probe found for data: $GPU_RENT_DATA_DIR (env), a platform's data disk (platform), or $HOME when there is none. */
  dataDir: z.strictObject({ path: z.string().max(500), source: z.enum(['env', 'platform', 'home']) }).optional(),
});

export const JobRefSchema = z.strictObject({
  id: shortText(200),
  command: z.string().max(4000),
  startedAt: epoch,
  logPath: z.string().max(4096).optional(),
  /** Last seen by a poll or the Jobs view: still running, or exited (with its code when known). */
  state: z.enum(['running', 'exited']).optional(),
  exitCode: z.number().int().min(-1).max(1_000_000).nullable().optional(),
  endedAt: epoch.optional(),
});

export const SyncInfoSchema = z.strictObject({
  remoteDir: z.string().min(1).max(4096),
  localDir: z.string().min(1).max(4096),
  lastSyncAt: epoch.optional(),
  /** Files present on the box but not (identically) in the local copy at the last check. */
  unsynced: z.number().int().min(0).optional(),
  lastError: z.string().max(500).optional(),
});

export const InstanceSchema = z.strictObject({
  id: shortText(64).regex(/^[A-Za-z0-9_-]+$/),
  name: shortText(120),
  platform: shortText(64),
  card: shortText(120),
  gpuCount: z.number().int().min(1).max(64),
  login: LoginSchema,
  pricing: PricingSchema,
  intervals: z.array(StateIntervalSchema).min(1).max(100_000),
  createdAt: epoch,
  lastProbe: LastProbeSchema.optional(),
  jobs: z.array(JobRefSchema).max(500).optional(),
  sync: SyncInfoSchema.optional(),
  /** The platform account and the platform's own id, when a connector reports this instance. */
  platformRef: z.strictObject({ account: shortText(64).regex(/^[A-Za-z0-9_-]+$/), ref: shortText(64).regex(/^[A-Za-z0-9_-]+$/) }).optional(),
  /** A power action that did not happen (issue 22.2): shown on the tree row and the status bar until the box is seen stopped or its state changes. */
  stillBilling: z.strictObject({ since: epoch, action: z.enum(['powerOff', 'noGpu']), fenPerHour: fen, why: z.string().max(500) }).optional(),
});

export interface ProbeGpu {
  index: number;
  name: string;
  memoryTotalBytes?: number;
  memoryUsedBytes?: number;
  utilizationPct?: number;
}

export interface Login {
  host: string;
  port: number;
  user: string;
  auth: 'password' | 'key' | 'agent';
  keyPath?: string;
  sshConfigHost?: string;
  previousEndpoints?: { host: string; port: number }[];
}

export interface JobRef {
  id: string;
  command: string;
  startedAt: number;
  logPath?: string;
  state?: 'running' | 'exited';
  exitCode?: number | null;
  endedAt?: number;
}

export interface Instance {
  id: string;
  name: string;
  platform: string;
  card: string;
  gpuCount: number;
  login: Login;
  pricing: Pricing;
  intervals: StateInterval[];
  createdAt: number;
  lastProbe?: { at: number; gpus: ProbeGpu[]; driverVersion?: string; driverMaxCuda?: string; verdict?: 'ok' | 'warning' | 'error'; home?: string; dataDir?: { path: string; source: 'env' | 'platform' | 'home' } };
  jobs?: JobRef[];
  sync?: { remoteDir: string; localDir: string; lastSyncAt?: number; unsynced?: number; lastError?: string };
  platformRef?: { account: string; ref: string };
  stillBilling?: StillBillingMark;
}

/** The box kept billing after a power-off or no-GPU switch that did not happen: since when, at what rate (whole instance, fen/h), why. */
export interface StillBillingMark {
  since: number;
  action: 'powerOff' | 'noGpu';
  fenPerHour: number;
  why: string;
}

/** Marks the instance as still billing (the reason cut to what the schema keeps). */
export function withStillBilling(inst: Instance, mark: StillBillingMark): Instance {
  return { ...inst, stillBilling: { ...mark, fenPerHour: Math.max(0, Math.round(mark.fenPerHour)), why: mark.why.slice(0, 500) } };
}

/** The mark cleared: the box was seen stopped (platform state, or it stopped answering). */
export function withoutStillBilling(inst: Instance): Instance {
  if (!inst.stillBilling) return inst;
  const { stillBilling: _drop, ...rest } = inst;
  return rest;
}

const STORE_VERSION = 1;
/** The most instances the store holds (platform accounts may add up to 5000 each); a longer list would not load again. */
export const MAX_STORED_INSTANCES = 20_000;
const StoreSchema = z.strictObject({ version: z.literal(STORE_VERSION), instances: z.array(z.unknown()).max(MAX_STORED_INSTANCES) });
const ExportSchema = z.strictObject({ format: z.literal('gpu-rent.instances'), version: z.literal(STORE_VERSION), instances: z.array(z.unknown()).max(MAX_STORED_INSTANCES) });

export type LoadProblem = { kind: 'notJson' } | { kind: 'wrongShape' } | { kind: 'badInstance'; index: number; path: string; message: string } | { kind: 'duplicateId'; id: string };

/** Validates one instance, including interval order (each starts where the previous ended; only the last is open). */
export function validateInstance(raw: unknown): { ok: true; instance: Instance } | { ok: false; path: string; message: string } {
  const r = InstanceSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    return { ok: false, path: issue ? issue.path.join('.') : '', message: issue?.message ?? 'invalid' };
  }
  const inst = r.data as Instance;
  for (let i = 0; i < inst.intervals.length; i++) {
    const iv = inst.intervals[i]!;
    const last = i === inst.intervals.length - 1;
    if (!last && iv.to === undefined) return { ok: false, path: `intervals.${i}.to`, message: 'only the last interval may be open' };
    if (iv.to !== undefined && iv.to < iv.from) return { ok: false, path: `intervals.${i}.to`, message: 'interval ends before it starts' };
    const prev = inst.intervals[i - 1];
    if (prev && prev.to !== undefined && iv.from < prev.to) return { ok: false, path: `intervals.${i}.from`, message: 'intervals overlap' };
  }
  return { ok: true, instance: inst };
}

function loadList(list: unknown[]): { ok: true; instances: Instance[] } | { ok: false; problem: LoadProblem } {
  const out: Instance[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    const v = validateInstance(list[i]);
    if (!v.ok) return { ok: false, problem: { kind: 'badInstance', index: i, path: v.path, message: v.message } };
    if (seen.has(v.instance.id)) return { ok: false, problem: { kind: 'duplicateId', id: v.instance.id } };
    seen.add(v.instance.id);
    out.push(v.instance);
  }
  return { ok: true, instances: out };
}

/** What globalState holds. */
export function toStore(instances: readonly Instance[]): { version: number; instances: Instance[] } {
  return { version: STORE_VERSION, instances: instances.map((i) => structuredClone(i)) };
}

/** Reads globalState's value; anything unreadable is reported, never thrown. Missing → empty. */
export function fromStore(raw: unknown): { ok: true; instances: Instance[] } | { ok: false; problem: LoadProblem } {
  if (raw === undefined || raw === null) return { ok: true, instances: [] };
  const r = StoreSchema.safeParse(raw);
  if (!r.success) return { ok: false, problem: { kind: 'wrongShape' } };
  return loadList(r.data.instances);
}

/** The export file: the instance list as stored (it holds no secrets), tagged so imports can recognise it. */
export function exportInstances(instances: readonly Instance[]): string {
  return JSON.stringify({ format: 'gpu-rent.instances', version: STORE_VERSION, instances }, null, 2) + '\n';
}

export function parseImport(text: string): { ok: true; instances: Instance[] } | { ok: false; problem: LoadProblem } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, problem: { kind: 'notJson' } };
  }
  const r = ExportSchema.safeParse(raw);
  if (!r.success) return { ok: false, problem: { kind: 'wrongShape' } };
  return loadList(r.data.instances);
}

/** Merges imported instances: an id already present is replaced, new ones are appended. */
export function mergeImported(existing: readonly Instance[], imported: readonly Instance[]): { instances: Instance[]; added: number; replaced: number } {
  const byId = new Map(imported.map((i) => [i.id, i]));
  let replaced = 0;
  const instances = existing.map((e) => {
    const n = byId.get(e.id);
    if (!n) return e;
    replaced++;
    byId.delete(e.id);
    return n;
  });
  instances.push(...byId.values());
  return { instances, added: byId.size, replaced };
}

// Changes: each returns a new instance, never mutates.

export function createInstance(fields: Omit<Instance, 'intervals' | 'createdAt'>, initialState: InstanceState, now: number): Instance {
  const r = switchState([], initialState, fields.pricing, now);
  return { ...fields, intervals: r.ok ? r.intervals : [], createdAt: now };
}

export function withState(inst: Instance, state: InstanceState, now: number) {
  const r = switchState(inst.intervals, state, inst.pricing, now);
  // A state change (the user's, or the platform's observed one) ends a still-billing mark: what bills now is the new state.
  return r.ok ? { ok: true as const, instance: { ...withoutStillBilling(inst), intervals: r.intervals } } : r;
}

/** New prices apply from now; recorded intervals keep what they cost. */
export function withPricing(inst: Instance, pricing: Pricing, now: number): Instance {
  return { ...inst, pricing, intervals: repriceCurrent(inst.intervals, pricing, now) };
}

/** A power cycle gives a new port (and password): replace the login, keep everything else. */
/**
 * A new login for the same instance. The endpoint it replaces is remembered (newest first, a
 * few at most) so the host key pinned there is recognised at the new port.
 */
export function withLogin(inst: Instance, login: Login): Instance {
  const old = inst.login;
  const moved = old.host !== login.host || old.port !== login.port;
  const seen = [...(moved ? [{ host: old.host, port: old.port }] : []), ...(old.previousEndpoints ?? []), ...(login.previousEndpoints ?? [])];
  const previous: { host: string; port: number }[] = [];
  for (const p of seen) {
    if ((p.host === login.host && p.port === login.port) || previous.some((q) => q.host === p.host && q.port === p.port)) continue;
    previous.push({ host: p.host, port: p.port });
  }
  const { previousEndpoints: _drop, ...rest } = login;
  return { ...inst, login: previous.length ? { ...rest, previousEndpoints: previous.slice(0, MAX_PREVIOUS_ENDPOINTS) } : rest };
}

/** Whether commands that talk to the box make sense: it must exist and have power. */
export function isReachable(inst: Instance): boolean {
  const s = currentState(inst.intervals);
  return s === 'running' || s === 'spot' || s === 'noGpu';
}

/**
 * The tree item's contextValue: `instance:<activity>:<offer>[:synced]`, e.g.
 * `instance:running:spot`, `instance:stopped:ondemand`. `when` clauses match it by regex.
 */
export function contextValueOf(inst: Instance): string {
  const s = currentState(inst.intervals) ?? 'released';
  const activity = s === 'spot' ? 'running' : s;
  const offer = s === 'spot' ? 'spot' : 'ondemand';
  const parts = ['instance', activity, offer];
  if (inst.sync) parts.push('sync');
  if (inst.jobs && inst.jobs.length > 0) parts.push('jobs');
  return parts.join(':');
}

export function groupByPlatform(instances: readonly Instance[]): { platform: string; instances: Instance[] }[] {
  // One push per instance (a copy per instance was quadratic: 13 s at the store's 20,000-instance limit on every whole-tree refresh).
  const m = new Map<string, Instance[]>();
  for (const i of instances) {
    const list = m.get(i.platform);
    if (list) list.push(i);
    else m.set(i.platform, [i]);
  }
  return [...m.entries()].map(([platform, list]) => ({ platform, instances: list })).sort((a, b) => a.platform.localeCompare(b.platform));
}

/** An id that is unique among `taken`, from a random source the caller provides. */
export function newInstanceId(taken: ReadonlySet<string>, random: () => number = Math.random): string {
  for (;;) {
    const id = 'i' + Math.floor(random() * 36 ** 8).toString(36).padStart(8, '0');
    if (!taken.has(id)) return id;
  }
}

/**
 * The instances not yet released that already log in at this host and port (host names compare
 * without case): Add Instance warns before a second entry for the same box, which would bill
 * it twice in the spend figures.
 */
export function sameEndpoint(instances: readonly Instance[], host: string, port: number): Instance[] {
  const h = host.trim().toLowerCase();
  return instances.filter((i) => i.login.port === port && i.login.host.toLowerCase() === h && (currentState(i.intervals) ?? 'released') !== 'released');
}

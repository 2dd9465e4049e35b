// Creating an instance through a platform's API, written once for both front ends.
// previewCreate checks everything it can before anything is created (the input, the name not
// taken, the card, region and image known to the platform, the CUDA bound, the price per hour
// and the storage per day where the platform quotes them, the balance covering an hour);
// createInstance sends the create once. A create whose answer is lost (a timeout or a dropped
// connection after sending) is looked for by its name before anything else is said: found, it
// is the created instance; not found yet, its outcome is unknown (never "failed"), and running
// the same create again is safe because the name is checked first (the clouds also get the
// name as their idempotency ClientToken). What differs by platform (the preview's reads, the
// request, the send, the id in the reply) is the connector's `createHooks` (autodlCreate.ts,
// aliyunCreate.ts, tencentCreate.ts); this flow never names a kind.
import type { Fen } from '../../core/money';
import type { AutodlCudaSource } from '../../core/platforms/autodl';
import { balanceRefusal, checkSpec, createRefusalOf, cudaBound, existingByName, isRefusal, type CreateRefusal, type CreateSpec } from '../../core/platforms/create';
import { can, type Connector, type PlatformInstance, type SshLogin } from '../../core/platforms/types';
import { PlatformError } from './errors';
import { TARGET, waitForState } from './settle';
import type { CloudPlan } from './cloudCreate';
import type { PriceSteps, ReclaimFate } from '../../core/platforms/cloudCreate';

export interface CreateInput extends Omit<CreateSpec, 'cudaMin'> {
  cudaMin?: string;
  /** A PyTorch version or wheel tag the CUDA bound is taken from when cudaMin is not given. */
  torch?: string;
  /** 阿里云: the vSwitch (its zone and VPC) and security group RunInstances needs; 腾讯云: the security group. */
  vSwitchId?: string;
  securityGroupId?: string;
  /** 腾讯云: the VPC and subnet (both, or neither: the default VPC). */
  vpcId?: string;
  subnetId?: string;
  /** 阿里云/腾讯云: the OpenSSH public key file imported as the login (default ~/.ssh/id_ed25519.pub, id_ecdsa.pub, id_rsa.pub; 腾讯云 id_rsa.pub). */
  sshKeyPath?: string;
}

export interface CreatePreview {
  kind: Connector['kind'];
  spec: CreateSpec;
  /** What will be sent (the platform's own field names), for the preview and --json. */
  request: Record<string, unknown>;
  /** The CUDA lower bound and where it came from (AutoDL Pro always has one: `cuda_v_from` is required; `image`/`page` only there). */
  cuda?: { cuda: string; from: AutodlCudaSource };
  /** The platform's quote before creating, fen/h; undefined where it gives none before a create (AutoDL Pro). */
  priceFenPerHour?: Fen;
  /** What the disk asked for bills per day: the platform's quote, or the catalog's figure (labelled), or none. */
  storageFenPerDay?: Fen;
  storageSource?: 'platform' | 'catalog';
  balanceFen?: Fen;
  /** An instance of that name is already there: it is the one (never a second). */
  existing?: PlatformInstance;
  /** Where the create goes (阿里云/腾讯云: the region). */
  region?: string;
  /** 阿里云/腾讯云: the login key, network and bandwidth the create sets (cloudCreate.ts). */
  cloud?: CloudPlan;
  /** Spot on the clouds: what a reclaim does to each disk, and what then bills. */
  reclaim?: ReclaimFate;
  /** 腾讯云 pay-as-you-go: the hourly price's later steps (after 96 h, after 360 h) where the inquiry sends them. */
  priceSteps?: PriceSteps;
}

export type CreateOutcome =
  | { status: 'created'; ref: string; recovered: boolean; settled: boolean; instance?: PlatformInstance; login?: SshLogin }
  | { status: 'refused'; refusal: CreateRefusal }
  | { status: 'unknown'; name: string; reason: string };

/** What the shared checks settled before the platform's own preview: the spec, the CUDA bound, an instance of that name. */
export type PreviewBase = Pick<CreatePreview, 'kind' | 'spec' | 'cuda' | 'existing'>;

/**
 * A platform's part of a create, set by its adapter (`createHooks` on the connector): the flow
 * here calls these and never asks which platform it is.
 */
export interface CreateHooks<C extends Connector = Connector> {
  /** The platform's checks and reads before a create (card, region, image, network, login, quote), and the request it will send. */
  preview(c: C, spec: CreateSpec, input: CreateInput, base: PreviewBase, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal>;
  /** Just before the create (a preview with a cloud plan only): what the plan says to make, its ids filled into the request. */
  prepare?(c: C, p: CreatePreview): Promise<CreatePreview>;
  /** Sends the preview's request once: the platform's reply. */
  send(c: C, p: CreatePreview, signal?: AbortSignal): Promise<unknown>;
  /** The new instance's id in the reply; undefined: none there. */
  createdRef(reply: unknown): string | undefined;
  /** The public address comes a moment after the instance runs: waited for within the same settle time. */
  addressAfterRunning?: boolean;
}

/** The connector's create hooks; undefined: the connector does not create. */
export const createHooksOf = (c: Connector): CreateHooks | undefined => (c as Connector & { readonly createHooks?: CreateHooks }).createHooks;

/** An instance id as a create's reply names it (at most 64 letters, digits, `_` and `-`). */
export const instanceIdOf = (v: unknown): string | undefined => (typeof v === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(v) ? v : undefined);

/** The refusal a failure stands for, or the failure itself. */
function refusedOr(e: unknown, spec: CreateSpec): CreateRefusal {
  if (e instanceof PlatformError) {
    const r = createRefusalOf(e.failure, spec);
    if (r) return r;
  }
  throw e;
}

/** Everything checked before a create; a refusal when it would fail. Reads only. */
export async function previewCreate(c: Connector, input: CreateInput, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal> {
  const bound = cudaBound({ ...(input.cudaMin !== undefined ? { cudaMin: input.cudaMin } : {}), ...(input.torch !== undefined ? { torch: input.torch } : {}) });
  if (isRefusal(bound)) return bound;
  const spec: CreateSpec = { card: input.card, gpus: input.gpus, name: input.name, ...(input.region !== undefined ? { region: input.region } : {}), ...(input.image !== undefined ? { image: input.image } : {}), ...(input.diskGb !== undefined ? { diskGb: input.diskGb } : {}), ...(bound.cuda ? { cudaMin: bound.cuda } : {}), ...(input.spot ? { spot: input.spot } : {}), ...(input.autoReleaseHours !== undefined ? { autoReleaseHours: input.autoReleaseHours } : {}), ...(input.bandwidthMbps !== undefined ? { bandwidthMbps: input.bandwidthMbps } : {}), ...(input.spotInterruption !== undefined ? { spotInterruption: input.spotInterruption } : {}) };
  const bad = checkSpec(c.kind, spec);
  if (bad) return bad;
  const cuda = bound.cuda ? { cuda: bound.cuda, from: bound.from! } : undefined;
  // The name check first: a create sent before (its answer lost) is the instance, not a reason for another.
  const existing = existingByName(await c.list(signal), spec.name);
  const base = { kind: c.kind, spec, ...(cuda ? { cuda } : {}), ...(existing ? { existing } : {}) };
  const hooks = createHooksOf(c);
  if (!hooks) return { code: 'notSupported', detail: { kind: c.kind } };
  try {
    return await hooks.preview(c, spec, input, base, signal);
  } catch (e) {
    return refusedOr(e, spec);
  }
}

/** The preview with the balance read where the platform gives one: a balance below an hour at the price is refused. */
export async function withBalance(c: Connector, p: CreatePreview, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal> {
  if (!can(c.kind, 'balance')) return p;
  const b = await c.balance(signal).catch((e: unknown) => {
    // A refused key fails the preview; a balance that cannot be read now is left out.
    if (e instanceof PlatformError && (e.failure.kind === 'auth' || e.failure.kind === 'tokenExpired')) throw e;
    return undefined;
  });
  if (!b) return p;
  // An existing instance needs no balance check: nothing new is created.
  if (!p.existing) {
    const low = balanceRefusal(b.fen, p.priceFenPerHour);
    if (low) return low;
  }
  return { ...p, balanceFen: b.fen };
}

/** A lost answer: no reply, or one that could not be read, after the create went out. */
const lostAnswer = (e: unknown): boolean => e instanceof PlatformError && (e.failure.kind === 'timeout' || e.failure.kind === 'network' || e.failure.kind === 'badResponse' || e.failure.kind === 'server');

export interface CreateOptions {
  /** How long to wait for the new instance to run (0: do not wait). */
  settleMs: number;
  intervalMs: number;
  /** After a lost answer: how many lists look for the name, intervalMs apart. */
  findAttempts?: number;
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * Sends the create once (never for a preview with an existing instance: that one is returned),
 * then waits for it to run and reads its login where the platform gives one.
 */
export async function createInstance(c: Connector, p: CreatePreview, o: CreateOptions): Promise<CreateOutcome> {
  const say = o.onProgress ?? (() => undefined);
  let ref: string | undefined;
  let recovered = false;
  if (p.existing) {
    ref = p.existing.ref;
    recovered = true;
  } else {
    const hooks = createHooksOf(c);
    if (!hooks) return { status: 'refused', refusal: { code: 'notSupported', detail: { kind: c.kind } } };
    // The clouds, before the create: the key pair imported and the SSH-only group made where the plan says so (neither bills). A failure here is said as it is: nothing was created.
    if (p.cloud && hooks.prepare) p = await hooks.prepare(c, p);
    try {
      ref = hooks.createdRef(await hooks.send(c, p, o.signal));
      if (!ref) throw new PlatformError({ platform: c.kind, kind: 'badResponse', code: 'BadResponse', message: 'the create answered without an instance id' });
    } catch (e) {
      if (!lostAnswer(e)) {
        if (e instanceof PlatformError) {
          const r = createRefusalOf(e.failure, p.spec);
          if (r) return { status: 'refused', refusal: r };
        }
        throw e;
      }
      // The answer is lost, not the create: look for it by name.
      say(`the create's answer was lost (${(e as PlatformError).failure.code}); looking for "${p.spec.name}" by name`);
      for (let i = 0; i < (o.findAttempts ?? 3) && !ref; i++) {
        if (i > 0) await sleep(o.intervalMs, o.signal);
        const found = await c.list(o.signal).then((l) => existingByName(l, p.spec.name), () => undefined);
        if (found) ref = found.ref;
      }
      if (!ref) return { status: 'unknown', name: p.spec.name, reason: (e as PlatformError).message };
      recovered = true;
    }
  }
  if (o.settleMs <= 0) return { status: 'created', ref, recovered, settled: false };
  let last = '';
  const r = await waitForState(c, ref, TARGET.powerOnGpu, { deadlineMs: o.settleMs, intervalMs: o.intervalMs, ...(o.signal ? { signal: o.signal } : {}), onProgress: (x) => x.state !== last && say((last = x.state)) }).catch(() => ({ settled: false as const }));
  let inst = 'last' in r ? r.last : undefined;
  // The clouds give the public address a moment after running: waited for within the same time.
  if (r.settled && createHooksOf(c)?.addressAfterRunning && !inst?.ssh) inst = await waitForAddress(c, ref, o, Date.now() + o.settleMs);
  const login = r.settled && can(c.kind, 'sshLogin') ? await c.sshLogin(ref, o.signal).catch(() => undefined) : undefined;
  const cloudLogin = !login && inst?.ssh && p.cloud ? inst.ssh : undefined;
  return { status: 'created', ref, recovered, settled: r.settled, ...(inst ? { instance: inst } : {}), ...(login ? { login } : cloudLogin ? { login: cloudLogin } : {}) };
}

async function waitForAddress(c: Connector, ref: string, o: CreateOptions, until: number): Promise<PlatformInstance | undefined> {
  let last: PlatformInstance | undefined;
  while (!o.signal?.aborted) {
    last = await c.get(ref, o.signal).catch(() => last);
    if (last?.ssh || Date.now() + o.intervalMs > until) return last;
    o.onProgress?.('waiting for the public IP');
    await sleep(o.intervalMs, o.signal);
  }
  return last;
}

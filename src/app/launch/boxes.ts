// Getting the box a launch runs on, one candidate of the task at a time: an SSH login as given,
// an existing platform instance (powered on when it is not running, waiting for a card when
// the host has none free), or a new one created through the platform's API. Each comes back
// with its price per hour (the platform's figure, the task's own for an SSH login, or null:
// shown as ?) and whether it is spot.
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { listSome } from '../../core/text';
import type { Fen } from '../../core/money';
import { can, type Connector, type PlatformInstance, type SshLogin } from '../../core/platforms/types';
import type { Task, TaskCreate, TaskInstance } from '../../core/task/types';
import { tryParseTarget, type SshTarget } from '../../remote/target';
import { TARGET, waitForState } from '../platforms/settle';
import { createInstance, previewCreate } from '../platforms/create';
import { isRefusal, type CreateRefusal } from '../../core/platforms/create';
import type { CreateInput } from '../platforms/create';
import { waitForGpu, type WaitOutcome } from '../platforms/waitForGpu';
import { busyText, PowerOnLocks, powerLockKey, unlockedConnector } from '../platforms/powerLock';
import { PlatformError } from '../platforms/errors';
import { listSshHosts, readSshConfigSync } from '../sshConfig';

export interface LaunchAccount {
  id: string;
  connector: Connector;
  /** The account allows power actions (power-on, create, release). */
  powerActions: boolean;
}

export interface AcquiredBox {
  kind: 'ssh' | 'platform';
  label: string;
  target: SshTarget;
  /** A password the platform gave for this login (never written to the launch state). */
  password?: string;
  login?: string;
  account?: string;
  ref?: string;
  created?: boolean;
  /** The launch powered it on (it was stopped): leaving it, the launch powers it off again. */
  poweredOn?: boolean;
  /** Started without its GPU for the push and setup (stage.ts restarts it with the GPU for the check and the run). */
  staged?: boolean;
  priceFenPerHour: Fen | null;
  spot: boolean;
}

export class AcquireError extends Error {
  constructor(
    readonly code: 'badLogin' | 'noAccount' | 'notFound' | 'ambiguous' | 'readOnly' | 'noLogin' | 'notStarted' | 'createRefused' | 'createUnknown' | 'noCard' | 'tooExpensive' | 'endRefused',
    message: string,
  ) {
    super(message);
  }
}

export interface AcquireOptions {
  /** ~/.ssh/config's text (null: none); undefined: read from $HOME/.ssh/config. Pasted logins take its Host patterns, as ssh does. */
  sshConfig?: string | null;
  accounts: readonly LaunchAccount[];
  /** How long to wait for a free card / for the state to settle. */
  waitForGpuMs: number;
  settleMs: number;
  intervalMs: number;
  signal?: AbortSignal;
  say(line: string): void;
  /** Asked before a create (it bills from the moment it runs): true = create. */
  confirmCreate(what: string): Promise<boolean>;
  /** A name for a created instance (unique per creation: "<task>-<n>"). */
  createName: string;
  locks: PowerOnLocks;
  /**
   * The task's end action checked against what the account can do, before an instance is powered
   * on or created (nothing bills for it yet): the refusal's words, or null when it can happen.
   */
  endCheck?(a: LaunchAccount, label: string): string | null;
  /** The task file's folder: create.ssh_key is relative to it. */
  taskDir?: string;
  /**
   * Stage without the GPU (issue 43): a stopped instance whose platform offers a no-GPU start is
   * started without its GPU at this price (¥/h in fen, null: not known), for the push and setup.
   */
  stageNoGpu?: { fenPerHour(a: LaunchAccount): Fen | null };
  /** The user's home (default os.homedir()): create.ssh_key must lead inside it. */
  home?: string;
}

/** The task file's create.ssh_key as a file inside the user's home (links followed), or why not. Read before anything bills. */
async function createKeyFile(c: TaskCreate | undefined, o: AcquireOptions): Promise<string | undefined> {
  if (!c?.sshKey) return undefined;
  const home = o.home ?? homedir();
  const given = c.sshKey.startsWith('~/') ? join(home, c.sshKey.slice(2)) : isAbsolute(c.sshKey) ? c.sshKey : resolve(o.taskDir ?? process.cwd(), c.sshKey);
  const real = await realpath(given).catch(() => undefined);
  if (!real) throw new AcquireError('createRefused', `create.ssh_key: no file ${given} (the public key imported as the instance's login; relative to the task file, or ~/…)`);
  const realHome = await realpath(home).catch(() => home);
  if (!real.startsWith(realHome.endsWith(sep) ? realHome : realHome + sep)) throw new AcquireError('createRefused', `create.ssh_key leads outside your home folder (${real}): a task file may only name a public key inside ${realHome}`);
  return real;
}

/** The task's create: fields as the create's input (the same builder `gpu-rent create` feeds). */
function createInputOf(task: Task, card: string, name: string, keyFile: string | undefined): CreateInput {
  const c = task.create;
  return {
    card,
    gpus: task.resources.gpus,
    name,
    ...(c?.region ? { region: c.region } : {}),
    ...(c?.image ? { image: c.image } : {}),
    ...(c?.diskGb ? { diskGb: c.diskGb } : {}),
    ...(c?.vSwitchId ? { vSwitchId: c.vSwitchId } : {}),
    ...(c?.securityGroupId ? { securityGroupId: c.securityGroupId } : {}),
    ...(c?.vpcId ? { vpcId: c.vpcId } : {}),
    ...(c?.subnetId ? { subnetId: c.subnetId } : {}),
    ...(c?.bandwidthMbps !== undefined ? { bandwidthMbps: c.bandwidthMbps } : {}),
    ...(keyFile ? { sshKeyPath: keyFile } : {}),
    // spot_reclaim is only accepted with resources.spot and max_yuan_per_hour (the task schema): a spot create bidding that.
    ...(c?.spotReclaim && task.resources.spot && task.resources.maxFenPerHour !== undefined ? { spot: { maxPriceFen: task.resources.maxFenPerHour }, spotInterruption: c.spotReclaim } : {}),
  };
}

/** A refusal as a reason, naming the task file's field where one is at fault. */
function refusalReason(r: CreateRefusal): string {
  const d = r.detail;
  const field =
    r.code === 'networkMissing' ? ({ vSwitch: 'create.vswitch', securityGroup: 'create.security_group', subnet: 'create.subnet', vpc: 'create.vpc' } as Record<string, string>)[String(d.missing)] : r.code === 'badPublicKey' ? 'create.ssh_key' : r.code === 'badBandwidth' ? 'create.bandwidth' : r.code === 'spotStopNotOffered' ? 'create.spot_reclaim' : undefined;
  const note = typeof d.note === 'string' ? d.note.slice(0, 300) : '';
  return `${r.code}${field ? ` (${field}${note ? `: ${note}` : ''})` : ''}`;
}

function sshBox(i: Extract<TaskInstance, { kind: 'ssh' }>, task: Task, sshConfig: string | null): AcquiredBox {
  const r = tryParseTarget(i.login, { sshConfig });
  if (!r.ok) throw new AcquireError('badLogin', `the instance "${i.login.slice(0, 200)}" is not an SSH login: ${r.problem}`);
  return { kind: 'ssh', label: `${r.target.user ?? ''}${r.target.user ? '@' : ''}${r.target.host}:${r.target.port}`, target: r.target, login: i.login, priceFenPerHour: task.priceFenPerHour ?? null, spot: task.resources.spot };
}

function loginTarget(l: SshLogin): SshTarget {
  return { host: l.host, port: l.port, user: l.user, identityFiles: [], source: 'address', ignored: [] };
}

async function priceOf(c: Connector, inst: PlatformInstance, signal?: AbortSignal): Promise<Fen | null> {
  if (inst.priceFenPerHour !== undefined) return inst.priceFenPerHour;
  if (!can(c.kind, 'price')) return null;
  return c.price(inst.ref, signal).then((p) => p?.fenPerHour ?? null, () => null);
}

async function platformLogin(a: LaunchAccount, inst: PlatformInstance, o: AcquireOptions): Promise<SshLogin> {
  const l = can(a.connector.kind, 'sshLogin') ? await a.connector.sshLogin(inst.ref, o.signal).catch(() => undefined) : undefined;
  if (l) return l;
  if (inst.ssh) return inst.ssh;
  throw new AcquireError('noLogin', `${a.id}/${inst.ref} gives no SSH login through its API: put its login ("ssh -p PORT root@HOST") in the task's instance instead`);
}

/** How a GPU power-on of a stopped instance went: running (as the platform now reports it), not accepted (the wait's outcome), or accepted but not running by the deadline. */
export type GpuPowerOn = { kind: 'running'; inst: PlatformInstance } | { kind: 'notStarted'; wait: Exclude<WaitOutcome, { kind: 'started' }> } | { kind: 'notRunning' };

/**
 * The one GPU power-on of a launch (a stopped named instance, and a staged box once its setup is
 * done): the power-on tried again while the host has no free card (waitForGpu, under the
 * instance's power-on lock), then the state followed until it runs. The caller words the failure.
 */
export async function powerOnWithGpu(a: LaunchAccount, ref: string, o: { locks: PowerOnLocks; waitForGpuMs: number; settleMs: number; intervalMs: number; signal?: AbortSignal; onNoCard(attempt: number): void }): Promise<GpuPowerOn> {
  const signal = o.signal ? { signal: o.signal } : {};
  const w = await waitForGpu({ connector: unlockedConnector(a.connector), ref, lockKey: powerLockKey(a.id, ref), locks: o.locks, maxWaitMs: o.waitForGpuMs, ...signal, onTry: (t) => t.verdict === 'noCard' && o.onNoCard(t.attempt) });
  if (w.kind !== 'started') return { kind: 'notStarted', wait: w };
  const r = await waitForState(a.connector, ref, TARGET.powerOnGpu, { deadlineMs: o.settleMs, intervalMs: o.intervalMs, ...signal });
  return r.settled && r.last ? { kind: 'running', inst: r.last } : { kind: 'notRunning' };
}

async function namedBox(ref: string, task: Task, o: AcquireOptions): Promise<AcquiredBox> {
  if (!o.accounts.length) throw new AcquireError('noAccount', `the instance "${ref.slice(0, 200)}" is a platform instance, and no platform account is set up (gpu-rent accounts add)`);
  const hits: { a: LaunchAccount; inst: PlatformInstance }[] = [];
  const errors: string[] = [];
  await Promise.all(
    o.accounts.map(async (a) => {
      try {
        for (const inst of await a.connector.list(o.signal)) if (inst.ref === ref || inst.name === ref) hits.push({ a, inst });
      } catch (e) {
        errors.push(`${a.id}: ${(e as Error).message}`);
      }
    }),
  );
  if (hits.length > 1) throw new AcquireError('ambiguous', `"${ref.slice(0, 200)}" matches ${hits.length} instances (${listSome(hits.map((h) => `${h.a.id}/${h.inst.ref}`))}): use the platform id`);
  const hit = hits[0];
  if (!hit) throw new AcquireError('notFound', `no instance "${ref.slice(0, 200)}" on ${o.accounts.map((a) => a.id).join(', ')}${errors.length ? ` (${errors.join('; ')})` : ''}`);
  const { a } = hit;
  let inst = hit.inst;
  const wasStopped = inst.state !== 'running';
  const refused = o.endCheck?.(a, `${inst.name} (${a.id}/${inst.ref})`);
  if (refused) throw new AcquireError('endRefused', refused);
  if (o.stageNoGpu && a.connector.capabilities.includes('powerOn:noGpu') && (inst.state === 'noGpu' || (inst.state !== 'running' && a.powerActions))) return stagedBox(a, inst, o, o.stageNoGpu.fenPerHour(a));
  if (inst.state !== 'running') {
    if (!a.powerActions) throw new AcquireError('readOnly', `${inst.name} is ${inst.state} and account ${a.id} is read-only: it cannot be powered on`);
    o.say(`${inst.name} is ${inst.rawState || inst.state}: powering it on`);
    const on = await powerOnWithGpu(a, inst.ref, { locks: o.locks, waitForGpuMs: o.waitForGpuMs, settleMs: o.settleMs, intervalMs: o.intervalMs, ...(o.signal ? { signal: o.signal } : {}), onNoCard: (attempt) => o.say(`no card free yet (${attempt} tries)`) });
    if (on.kind === 'notStarted') {
      const w = on.wait;
      throw new AcquireError(w.kind === 'gaveUp' ? 'noCard' : 'notStarted', `${inst.name} did not start: ${w.kind === 'refused' ? w.failure.message : w.kind === 'gaveUp' ? `no free card within ${Math.round(w.waitedMs / 1000)} s` : w.kind}`);
    }
    if (on.kind === 'notRunning') throw new AcquireError('notStarted', `${inst.name} was started but is not running after ${Math.round(o.settleMs / 1000)} s`);
    inst = on.inst;
  }
  const price = await priceOf(a.connector, inst, o.signal);
  if (task.resources.maxFenPerHour !== undefined && price !== null && price > task.resources.maxFenPerHour) throw new AcquireError('tooExpensive', `${inst.name} costs ${price / 100} ¥/h, over the task's max_yuan_per_hour`);
  const login = await platformLogin(a, inst, o);
  return { kind: 'platform', label: `${inst.name} (${a.id}/${inst.ref})`, target: loginTarget(login), ...(login.password ? { password: login.password } : {}), account: a.id, ref: inst.ref, ...(wasStopped ? { poweredOn: true } : {}), priceFenPerHour: price, spot: inst.billing === 'spot' || task.resources.spot };
}

/** The instance started (or found) without its GPU: nothing bills but the no-GPU rate while the launch pushes and sets up. */
async function stagedBox(a: LaunchAccount, found: PlatformInstance, o: AcquireOptions, fenPerHour: Fen | null): Promise<AcquiredBox> {
  let inst = found;
  if (inst.state !== 'noGpu') {
    o.say(`${inst.name} is ${inst.rawState || inst.state}: starting it without a GPU for the push and setup (the GPU bills only for the check and the run)`);
    const started = await o.locks.run(powerLockKey(a.id, inst.ref), `launch: ${inst.name} without GPU`, () => unlockedConnector(a.connector).powerOn(inst.ref, 'noGpu', o.signal));
    if (!started.ok) throw new AcquireError('notStarted', `${inst.name} is being powered on by another GPU Rent (${busyText(started.busy)})`);
    const r = await waitForState(a.connector, inst.ref, TARGET.powerOnNoGpu, { deadlineMs: o.settleMs, intervalMs: o.intervalMs, ...(o.signal ? { signal: o.signal } : {}) });
    if (!r.settled || !r.last) throw new AcquireError('notStarted', `${inst.name} was started without a GPU but is not up after ${Math.round(o.settleMs / 1000)} s`);
    inst = r.last;
  }
  const login = await platformLogin(a, inst, o);
  return { kind: 'platform', label: `${inst.name} (${a.id}/${inst.ref})`, target: loginTarget(login), ...(login.password ? { password: login.password } : {}), account: a.id, ref: inst.ref, poweredOn: true, staged: true, priceFenPerHour: fenPerHour, spot: false };
}

async function newBox(task: Task, o: AcquireOptions): Promise<AcquiredBox> {
  const c = task.create;
  const accounts = o.accounts.filter((a) => !c?.account || a.id === c.account);
  if (!accounts.length) throw new AcquireError('noAccount', c?.account ? `no account ${c.account} (gpu-rent accounts list)` : 'instance: new needs a platform account that can create (gpu-rent accounts add --allow-power)');
  const cards = task.resources.cards.length ? task.resources.cards : [];
  if (!cards.length) throw new AcquireError('createRefused', 'instance: new needs resources.cards (which card to create)');
  const keyFile = await createKeyFile(c, o);
  const reasons: string[] = [];
  let endRefused: string | undefined;
  let considered = 0;
  for (const a of accounts) {
    if (!a.powerActions) {
      reasons.push(`${a.id}: read-only`);
      continue;
    }
    const refused = o.endCheck?.(a, `${o.createName} on ${a.id}`);
    if (refused) {
      endRefused ??= refused;
      reasons.push(refused);
      continue;
    }
    considered++;
    // The platform's own spec names: the task's create.spec, else the card as AutoDL and the clouds spell it ("4090" for rtx4090).
    const asked = c?.spec ? [c.spec] : [...new Set(cards.flatMap((id) => [id, id.replace(/^rtx/, '')]))];
    for (const card of asked) {
      const p = await previewCreate(a.connector, createInputOf(task, card, o.createName, keyFile), o.signal).catch((e: unknown) => {
        if (e instanceof PlatformError) return e;
        throw e;
      });
      if (p instanceof PlatformError) {
        reasons.push(`${a.id} ${card}: ${p.message}`);
        continue;
      }
      if (isRefusal(p)) {
        reasons.push(`${a.id} ${card}: ${refusalReason(p)}`);
        continue;
      }
      if (task.resources.maxFenPerHour !== undefined && p.priceFenPerHour !== undefined && p.priceFenPerHour > task.resources.maxFenPerHour) {
        reasons.push(`${a.id} ${card}: ${p.priceFenPerHour / 100} ¥/h is over max_yuan_per_hour`);
        continue;
      }
      const what = `${o.createName} on ${a.id} (${card} × ${task.resources.gpus}${p.priceFenPerHour !== undefined ? `, ¥${(p.priceFenPerHour / 100).toFixed(2)}/h` : ', price per hour not quoted by the platform before a create'})`;
      if (!(await o.confirmCreate(what))) throw new AcquireError('createRefused', `not created: ${what}. A create bills from the moment it runs: confirm it (gpu-rent launch --yes)`);
      o.say(`creating ${what}`);
      const r = await createInstance(a.connector, p, { settleMs: o.settleMs, intervalMs: o.intervalMs, onProgress: o.say, ...(o.signal ? { signal: o.signal } : {}) });
      if (r.status === 'refused') {
        reasons.push(`${a.id} ${card}: ${refusalReason(r.refusal)}`);
        continue;
      }
      if (r.status === 'unknown') throw new AcquireError('createUnknown', `the create of ${r.name} on ${a.id} got no answer (${r.reason}); it may exist: launch --resume looks for it by name`);
      if (!r.settled) throw new AcquireError('notStarted', `${o.createName} was created (${r.ref}) but is not running yet`);
      const inst = r.instance ?? (await a.connector.get(r.ref, o.signal));
      const login = r.login ?? (inst ? await platformLogin(a, inst, o) : undefined);
      if (!login) throw new AcquireError('noLogin', `${r.ref} gives no SSH login through its API`);
      const price = inst ? await priceOf(a.connector, inst, o.signal) : (p.priceFenPerHour ?? null);
      return { kind: 'platform', label: `${o.createName} (${a.id}/${r.ref})`, target: loginTarget(login), ...(login.password ? { password: login.password } : {}), account: a.id, ref: r.ref, created: true, priceFenPerHour: price ?? p.priceFenPerHour ?? null, spot: inst?.billing === 'spot' };
    }
  }
  // Every account that could create is one the task's end action cannot happen on.
  if (endRefused && !considered) throw new AcquireError('endRefused', endRefused);
  throw new AcquireError('createRefused', `no instance could be created: ${reasons.join('; ')}`);
}

function configOf(o: AcquireOptions): string | null {
  return o.sshConfig !== undefined ? o.sshConfig : readSshConfigSync();
}

/** Whether a task's `instance:` name is an explicit Host alias of ~/.ssh/config (then an SSH login, not a platform instance). */
export function isSshConfigAlias(ref: string, sshConfig: string | null = readSshConfigSync()): boolean {
  return listSshHosts(sshConfig).includes(ref);
}

/** The box for one candidate. Throws AcquireError with what stopped it. */
export function acquireBox(i: TaskInstance, task: Task, o: AcquireOptions): Promise<AcquiredBox> {
  const cfg = configOf(o);
  if (i.kind === 'ssh') return Promise.resolve().then(() => sshBox(i, task, cfg));
  // A Host alias of ~/.ssh/config (an explicit one, not a pattern) is an SSH login, as `ssh ALIAS` takes it.
  if (i.kind === 'named' && isSshConfigAlias(i.ref, cfg)) return Promise.resolve().then(() => sshBox({ kind: 'ssh', login: i.ref }, task, cfg));
  if (i.kind === 'named') return namedBox(i.ref, task, o);
  return newBox(task, o);
}

/** The box again after a restart of the launcher: the SSH login, or the platform instance's current login. */
export async function reacquireBox(box: { kind: 'ssh' | 'platform'; login?: string; account?: string; ref?: string; candidate: number }, task: Task, o: AcquireOptions): Promise<AcquiredBox> {
  const cand = task.instances[box.candidate];
  if (box.kind === 'ssh' && cand?.kind === 'ssh') return sshBox(cand, task, configOf(o));
  if (box.kind === 'ssh' && box.login) return sshBox({ kind: 'ssh', login: box.login }, task, configOf(o));
  return namedBox(box.ref ?? '', { ...task }, { ...o, accounts: o.accounts.filter((a) => a.id === box.account) });
}

/** What the platform says of a box now: still ours and running, or gone (stopped, released, reclaimed). */
export async function platformStateOf(a: LaunchAccount | undefined, ref: string | undefined, signal?: AbortSignal): Promise<'running' | 'gone' | 'unknown'> {
  if (!a || !ref) return 'unknown';
  try {
    const inst = await a.connector.get(ref, signal);
    if (!inst) return 'gone';
    if (inst.state === 'running') return 'running';
    if (inst.state === 'stopped' || inst.state === 'released' || inst.state === 'releasing' || inst.state === 'stopping') return 'gone';
    return 'unknown';
  } catch (e) {
    return e instanceof PlatformError && e.failure.kind === 'notFound' ? 'gone' : 'unknown';
  }
}

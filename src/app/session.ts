// An instance session: from a stored instance to a working connection, in one place. It
// checks that the instance is powered, connects through the owned pool with the stored
// credentials and the user's connection settings, recognises the same machine after a port
// change (AutoDL's power cycle), and turns a failure into one classified error that names the
// host and port, with the action that helps.
import { currentState, type InstanceState } from '../core/spend';
import type { Instance } from '../core/instances';
import type { ConnectOptions, RemoteConnection } from '../remote/connection';
import { isRemoteError, type RemoteError } from '../remote/errors';
import type { HostKeyEvent } from '../remote/handshake';
import type { TrustQuestion } from '../remote/hostkeys';
import type { SshTarget } from '../remote/target';
import type { SshPool } from './pool';

export const POWERED_STATES: readonly InstanceState[] = ['running', 'spot', 'noGpu'];

export function isPowered(inst: Instance): boolean {
  return POWERED_STATES.includes(currentState(inst.intervals) ?? 'released');
}

/** What helps after a failure: the front ends turn it into a button or a hint. */
export type FailureAction = 'update-login' | 'review-host-key' | 'retry' | 'none';

export type AppErrorKind =
  | { kind: 'no-instance'; id: string }
  /** `linked`: the instance is linked to a platform account (its Power On may do it). */
  | { kind: 'not-powered'; id: string; name: string; state: InstanceState | undefined; linked?: boolean }
  | { kind: 'remote'; id: string; name: string; host: string; port: number; code: RemoteError['code']; action: FailureAction; remote: RemoteError };

/** A failure of an app service, as data the front ends put into words. */
export class AppError extends Error {
  constructor(
    readonly info: AppErrorKind,
    message: string,
  ) {
    super(message, info.kind === 'remote' ? { cause: info.remote } : undefined);
    this.name = 'AppError';
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** The SSH target of an instance's stored login. */
export function targetOf(inst: Instance): SshTarget {
  return { host: inst.login.host, port: inst.login.port, user: inst.login.user, identityFiles: inst.login.keyPath ? [inst.login.keyPath] : [], source: 'address', ignored: [] };
}

/** Which action helps with a remote failure. */
export function failureAction(e: RemoteError): FailureAction {
  if (e.code === 'host-key-changed') return 'review-host-key';
  if (e.hint === 'paste-new-login-command' || e.code === 'connect-refused' || e.code === 'auth-failed') return 'update-login';
  if (e.code === 'timeout' || e.code === 'disconnected' || e.code === 'session-limit') return 'retry';
  return 'none';
}

export interface SessionCredentials {
  getPassword(id: string): PromiseLike<string | undefined>;
  /** A password typed at the prompt is kept for the next time. */
  savePassword(id: string, password: string): PromiseLike<unknown>;
}

export interface SessionPrompts {
  confirmNewKey(inst: Instance, q: TrustQuestion): Promise<boolean>;
  askPassword(inst: Instance, q: { user: string; host: string; port: number }): Promise<string | null>;
}

export interface ConnectionSettings {
  keepaliveSeconds: number;
  readyTimeoutSeconds: number;
  knownHostsPath?: string;
}

export interface SessionDeps {
  pool: SshPool;
  instance(id: string): Instance | undefined;
  credentials: SessionCredentials;
  prompts: SessionPrompts;
  settings(): ConnectionSettings;
  log(message: string): void;
  /** Host-key outcomes worth telling the user (the same key recognised on a new port). */
  onHostKey?(inst: Instance, e: HostKeyEvent): void;
}

export interface OpenOptions {
  /** Pin a first-contact host key without asking (scripts, tests). */
  acceptNewHostKey?: boolean;
  /** Background work (polls, watches): never asks the user anything; an unknown key or a missing password fails instead. */
  background?: boolean;
}

export class InstanceSessions {
  constructor(private readonly deps: SessionDeps) {}

  /** The instance by id, or an AppError. */
  get(id: string): Instance {
    const inst = this.deps.instance(id);
    if (!inst) throw new AppError({ kind: 'no-instance', id }, `no instance with id ${id}`);
    return inst;
  }

  /** The instance, which must be powered (its box answers SSH). */
  powered(id: string): Instance {
    const inst = this.get(id);
    const state = currentState(inst.intervals);
    if (!isPowered(inst)) throw new AppError({ kind: 'not-powered', id, name: inst.name, state, ...(inst.platformRef ? { linked: true } : {}) }, `${inst.name} is ${state ?? 'released'}`);
    return inst;
  }

  /** A connection to a powered instance, with a classified error when it fails. */
  async open(id: string, opts: OpenOptions = {}): Promise<{ inst: Instance; conn: RemoteConnection }> {
    const inst = this.powered(id);
    return { inst, conn: await this.connect(inst, opts) };
  }

  /** Connects to an instance whatever its recorded state (a release check, a state inference). */
  async connect(inst: Instance, opts: OpenOptions = {}): Promise<RemoteConnection> {
    try {
      return await this.deps.pool.get(inst.id, targetOf(inst), await this.options(inst, opts));
    } catch (e) {
      throw this.classify(inst, e);
    }
  }

  /** Forgets the instance's connection (new login, removed, released). */
  invalidate(id: string): void {
    this.deps.pool.invalidate(id);
  }

  /** A RemoteError as an AppError naming the instance's host and port; anything else unchanged. */
  classify(inst: Instance, e: unknown): unknown {
    if (!isRemoteError(e)) return e;
    const where = `${inst.login.host}:${inst.login.port}`;
    return new AppError({ kind: 'remote', id: inst.id, name: inst.name, host: inst.login.host, port: inst.login.port, code: e.code, action: failureAction(e), remote: e }, `${where}: ${e.message}`);
  }

  private async options(inst: Instance, opts: OpenOptions): Promise<ConnectOptions> {
    const s = this.deps.settings();
    const password = inst.login.auth === 'password' ? await this.deps.credentials.getPassword(inst.id) : undefined;
    const previous = (inst.login.previousEndpoints ?? []).filter((p) => p.host !== inst.login.host || p.port !== inst.login.port);
    const o: ConnectOptions = {
      ...(password ? { password } : {}),
      ...(inst.login.keyPath ? { identityFiles: [inst.login.keyPath] } : {}),
      agent: inst.login.auth === 'agent' ? undefined : false,
      useDefaultKeys: inst.login.auth !== 'password',
      keepaliveIntervalMs: s.keepaliveSeconds * 1000 || 0,
      connectTimeoutMs: s.readyTimeoutSeconds * 1000,
      ...(s.knownHostsPath ? { knownHostsPath: s.knownHostsPath } : {}),
      acceptNew: opts.acceptNewHostKey === true,
      confirmNewKey: (q) => (opts.background ? Promise.resolve(false) : this.deps.prompts.confirmNewKey(inst, q)),
      askPassword: async (q) => {
        if (opts.background) return null;
        const pw = await this.deps.prompts.askPassword(inst, q);
        if (pw) await this.deps.credentials.savePassword(inst.id, pw);
        return pw;
      },
      log: (m) => this.deps.log(`[${inst.id}] ${m}`),
    };
    if (previous.length) o.sameMachineAs = previous;
    if (this.deps.onHostKey) o.onHostKey = (e) => this.deps.onHostKey?.(inst, e);
    return o;
  }
}

// One SSH connection to a rented box, kept warm and reused: keepalive, a deadline on every
// operation, a channel budget below the server's MaxSessions (the rest wait in a queue),
// reconnect with backoff and jitter, and errors a person can act on. The parts live beside
// it: channel-budget.ts, auth.ts, classify.ts (pure), handshake.ts, util/deadline.ts and
// ssh2-internals.ts (everything past ssh2's documented API).
import { EventEmitter } from 'node:events';
import { userInfo } from 'node:os';
import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import { authMethods } from './auth';
import { ChannelBudget } from './channel-budget';
import { channelErrorKind } from './classify';
import { RemoteError, type Endpoint } from './errors';
import { handshake, type HostKeyEvent } from './handshake';
import { KnownHosts, defaultKnownHostsPath, type TrustQuestion } from './hostkeys';
import { killRemote } from './ssh2-internals';
import { loginShell } from './shell';
import { describeTarget, type SshTarget } from './target';
import { backoffDelay } from './util/backoff';
import { isDeadlineReason, operationSignal, underSignal } from './util/deadline';
import { sleep } from './util/sleep';

export { backoffDelay } from './util/backoff';
export type { HostKeyEvent } from './handshake';

export interface ConnectOptions {
  /** Our known_hosts file (default ~/.config/gpu-rent/known_hosts, or $GPU_RENT_HOME/known_hosts). */
  knownHostsPath?: string;
  /** Pin a first-contact host key without asking (scripts). */
  acceptNew?: boolean;
  /** Ask the user to trust a first-contact key. Without it (and without acceptNew) unknown keys are refused. */
  confirmNewKey?: (q: TrustQuestion) => Promise<boolean>;
  /**
   * Earlier endpoints of this same instance (AutoDL gives a new port after a power cycle and
   * keeps the host key). With no key pinned for the target's [host]:port, the key pinned for
   * one of these decides: the same key is accepted without asking and pinned for the new
   * endpoint ('same-key-new-port'); a different key is refused before any authentication
   * ('host-key-changed', detail.previousEndpoint says which). Absent: unchanged behaviour.
   */
  sameMachineAs?: Endpoint[];
  /** What the host-key check decided, once per successful handshake. */
  onHostKey?: (e: HostKeyEvent) => void;
  /** The password (the CLI takes it from GPU_RENT_PASSWORD; never a flag). */
  password?: string;
  /** Asked only when the server wants a password and none was given; null skips. */
  askPassword?: (q: { user: string; host: string; port: number }) => Promise<string | null>;
  /** Key files to try before the target's and the defaults (~/.ssh/id_ed25519, id_ecdsa, id_rsa). */
  identityFiles?: string[];
  /** Try ~/.ssh/id_* too (default true). */
  useDefaultKeys?: boolean;
  /** SSH agent socket (default $SSH_AUTH_SOCK); false = no agent. */
  agent?: string | false;
  /** Keepalive: a probe every keepaliveIntervalMs, the link is dead after keepaliveCountMax unanswered (15 s × 4). */
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  /** TCP connect plus SSH handshake deadline; the clock stops while the user is asked something. */
  connectTimeoutMs?: number;
  /** Default deadline of every operation (exec, channel wait, SFTP open). */
  opTimeoutMs?: number;
  /** Channels open at once; keep it below the server's MaxSessions (OpenSSH default 10). */
  maxChannels?: number;
  /** How long the first connect keeps retrying a refused or reset link (sshd not up yet). */
  firstConnectRetryMs?: number;
  /** How long a reconnect after a drop keeps trying. */
  reconnectWindowMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** HOME, USER and SSH_AUTH_SOCK come from here (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Diagnostics (the extension's log channel). */
  log?: (message: string) => void;
  /** TCP_NODELAY on the socket (default true; false only to measure what Nagle costs). */
  noDelay?: boolean;
}

export interface ExecOptions {
  /** Deadline for the whole command (default opTimeoutMs). */
  timeoutMs?: number;
  stdin?: string | Buffer;
  signal?: AbortSignal;
  /** Run under `bash -lc` so conda and the platform's PATH are set (default true). */
  login?: boolean;
}

export interface ExecResult {
  code: number | null;
  signal?: string;
  stdout: string;
  stderr: string;
}

export interface StreamOptions {
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  signal?: AbortSignal;
  /** No deadline unless given: streams (logs --follow) run until stopped. */
  timeoutMs?: number;
  login?: boolean;
}

type Stage = 'connect' | 'channel-open' | 'sftp-open' | 'command';

const STAGE_TEXT: Record<Stage, string> = {
  connect: 'connecting',
  'channel-open': 'opening an SSH channel',
  'sftp-open': 'opening SFTP',
  command: 'the remote command',
};

/** The error for an operation signal that fired during `stage`: its deadline, or a cancel. */
function abortedDuring(stage: Stage, reason: unknown, timeoutMs?: number): RemoteError {
  if (reason instanceof RemoteError) return reason;
  if (!isDeadlineReason(reason)) return new RemoteError('aborted', 'cancelled');
  if (stage === 'command' && timeoutMs !== undefined)
    return new RemoteError('timeout', `the remote command did not finish within ${Math.round(timeoutMs / 100) / 10} s`, { detail: { stage, timeoutMs } });
  return new RemoteError('timeout', `${STAGE_TEXT[stage]} took longer than the deadline`, { detail: { stage, ...(timeoutMs === undefined ? {} : { timeoutMs }) } });
}

interface EarlyExit {
  seen: boolean;
  code: number | null;
  signal?: string;
}
const earlyExits = new WeakMap<ClientChannel, EarlyExit>();

type Defaults = Required<Pick<ConnectOptions, 'keepaliveIntervalMs' | 'keepaliveCountMax' | 'connectTimeoutMs' | 'opTimeoutMs' | 'maxChannels' | 'firstConnectRetryMs' | 'reconnectWindowMs' | 'backoffBaseMs' | 'backoffMaxMs'>>;

interface ChannelRun {
  signal?: AbortSignal;
  timeoutMs?: number;
  stdin?: string | Buffer;
  onStdout?: (c: Buffer) => void;
  onStderr?: (c: Buffer) => void;
}

export class RemoteConnection extends EventEmitter {
  readonly target: SshTarget;
  readonly user: string;
  private readonly opts: Defaults & ConnectOptions;
  private readonly knownHosts: KnownHosts;
  private client: Client | null = null;
  private generation = 0;
  private connecting: Promise<Client> | null = null;
  private fatal: RemoteError | null = null;
  private closed = false;
  private everConnected = false;
  private password: string | undefined;
  private sftpSession: Promise<SFTPWrapper> | null = null;
  private readonly budget: ChannelBudget;
  private readonly channels = new Set<ClientChannel>();
  private lastDrop: string | undefined;
  /** The host key fingerprint of the current connection. */
  hostKeyFingerprint: string | undefined;

  constructor(target: SshTarget, opts: ConnectOptions = {}) {
    super();
    this.target = target;
    const env = opts.env ?? process.env;
    this.user = target.user ?? env.USER ?? safeUserName();
    this.opts = {
      keepaliveIntervalMs: 15000,
      keepaliveCountMax: 4,
      connectTimeoutMs: 20000,
      opTimeoutMs: 60000,
      maxChannels: 8,
      firstConnectRetryMs: 8000,
      reconnectWindowMs: 30000,
      backoffBaseMs: 250,
      backoffMaxMs: 4000,
      ...stripUndefined(opts),
    };
    this.knownHosts = new KnownHosts(opts.knownHostsPath ?? defaultKnownHostsPath(env));
    this.password = opts.password;
    this.budget = new ChannelBudget(this.opts.maxChannels);
  }

  /** Channels open right now (tests check that nothing leaks). */
  get openChannels(): number {
    return this.channels.size;
  }

  /** Channel budget now (lowered when the server turns out to allow fewer sessions). */
  get channelBudget(): number {
    return this.budget.limit;
  }

  get connected(): boolean {
    return this.client !== null;
  }

  /** Connects now (the first connect retries briefly: a just-started instance may not run sshd yet). */
  async connect(): Promise<void> {
    await this.ensureClient();
  }

  /** Runs one command and collects its output (under `bash -lc` unless login: false). */
  async exec(command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    const timeoutMs = opts.timeoutMs ?? this.opts.opTimeoutMs;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const r = await this.runChannel(opts.login === false ? command : loginShell(command), {
      signal: operationSignal(timeoutMs, opts.signal),
      timeoutMs,
      stdin: opts.stdin,
      onStdout: (c) => out.push(c),
      onStderr: (c) => err.push(c),
    });
    return { code: r.code, ...(r.signal ? { signal: r.signal } : {}), stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
  }

  /** Runs a command and hands its output over as it arrives (logs --follow). */
  async execStream(command: string, opts: StreamOptions = {}): Promise<{ code: number | null; signal?: string }> {
    return this.runChannel(opts.login === false ? command : loginShell(command), {
      signal: operationSignal(opts.timeoutMs, opts.signal),
      timeoutMs: opts.timeoutMs,
      onStdout: opts.onStdout,
      onStderr: opts.onStderr,
    });
  }

  /** Runs `fn` while holding one slot of the channel budget (for callers that open channels themselves). */
  async withChannel<T>(fn: (client: Client) => Promise<T>, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<T> {
    const signal = operationSignal(opts.timeoutMs ?? this.opts.opTimeoutMs, opts.signal);
    const release = await this.acquire(signal);
    try {
      const client = await this.ensureClient(signal);
      return await fn(client);
    } finally {
      release();
    }
  }

  /** The connection's one SFTP session (opened on first use, reopened after a reconnect). */
  async sftp(opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<SFTPWrapper> {
    if (this.sftpSession) return this.sftpSession;
    const signal = operationSignal(opts.timeoutMs ?? this.opts.opTimeoutMs, opts.signal);
    const session = (async () => {
      const release = await this.acquire(signal);
      let held = true;
      try {
        const client = await this.ensureClient(signal);
        const gen = this.generation;
        const sftp = await underSignal<SFTPWrapper>(
          signal,
          (reason) => abortedDuring('sftp-open', reason),
          (done) => {
            try {
              client.sftp((e, s) => (e ? done(this.classifyChannelError(e)) : done(null, s)));
            } catch (e) {
              // ssh2 throws synchronously on a link that just died.
              done(this.classifyChannelError(e instanceof Error ? e : new Error(String(e))));
            }
          },
          (late) => late.end(), // opened after the deadline: must not leak
        );
        // The session holds its slot until it closes (it counts against MaxSessions too).
        const closed = this.budget.opened();
        const onEnd = () => {
          if (!held) return;
          held = false;
          closed();
          release();
          if (this.generation === gen && this.sftpSession === session) this.sftpSession = null;
        };
        sftp.once('close', onEnd);
        sftp.once('end', onEnd);
        return sftp;
      } catch (e) {
        if (held) {
          held = false;
          release();
        }
        throw e;
      }
    })();
    this.sftpSession = session;
    session.catch(() => {
      if (this.sftpSession === session) this.sftpSession = null;
    });
    return session;
  }

  /** Closes the connection; waiting operations fail with 'aborted'. */
  close(): void {
    this.closed = true;
    this.budget.close();
    const c = this.client;
    this.client = null;
    this.sftpSession = null;
    if (c) {
      c.end();
      // end() waits for the server; a dead link must not keep the process alive.
      setTimeout(() => c.destroy(), 1000).unref();
    }
  }

  // ---- channels ---------------------------------------------------------------------------

  private acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.closed) return Promise.reject(new RemoteError('aborted', 'the connection was closed'));
    return this.budget.acquire(signal);
  }

  private async runChannel(command: string, o: ChannelRun): Promise<{ code: number | null; signal?: string }> {
    if (o.signal?.aborted) throw abortedDuring('command', o.signal.reason, o.timeoutMs);
    for (let attempt = 0; ; attempt++) {
      const release = await this.acquire(o.signal);
      let client: Client;
      let channel: ClientChannel;
      try {
        client = await this.ensureClient(o.signal);
        channel = await this.openExec(client, command, o.signal);
      } catch (e) {
        release();
        const more = !o.signal?.aborted;
        if (e instanceof RemoteError && e.code === 'session-limit' && attempt < 20 && more) {
          // The server allows fewer sessions than our budget, or has not yet freed one we just
          // closed. What was open at once before is proven allowed, so never go below that.
          const others = this.budget.open;
          const budget = this.budget.shrinkAfterRefusal();
          this.opts.log?.(`channel refused with ${others} others open; budget now ${budget}`);
          if (!(await sleep(Math.min(25 * (attempt + 1), 300), o.signal))) throw abortedDuring('channel-open', o.signal?.reason);
          continue;
        }
        // The link died before the channel opened, so the command never ran: safe to run it on a fresh connection.
        if (e instanceof RemoteError && e.code === 'disconnected' && attempt < 2 && more) continue;
        throw e;
      }
      const closed = this.budget.opened();
      return this.driveChannel(channel, client, o).finally(() => {
        closed();
        release();
      });
    }
  }

  private openExec(client: Client, command: string, signal?: AbortSignal): Promise<ClientChannel> {
    return underSignal<ClientChannel>(
      signal,
      (reason) => abortedDuring('channel-open', reason),
      (done) => {
        try {
          client.exec(command, (e, ch) => {
            if (e) return done(this.classifyChannelError(e));
            // Record the exit status now: a quick command's status can arrive in the same packet
            // batch as this callback, before driveChannel's listeners exist.
            const early: EarlyExit = { seen: false, code: null };
            earlyExits.set(ch, early);
            ch.once('exit', (c: number | null, sig?: string) => {
              early.seen = true;
              if (typeof c === 'number') early.code = c;
              else if (typeof sig === 'string') early.signal = sig;
            });
            done(null, ch);
          });
        } catch (e) {
          // ssh2 throws synchronously on a link that just died.
          done(this.classifyChannelError(e instanceof Error ? e : new Error(String(e))));
        }
      },
      (late) => late.close(), // opened after the deadline: must not leak
    );
  }

  private driveChannel(channel: ClientChannel, client: Client, o: ChannelRun): Promise<{ code: number | null; signal?: string }> {
    this.channels.add(channel);
    const gen = this.generation;
    return new Promise((resolve, reject) => {
      const early = earlyExits.get(channel) ?? { seen: false, code: null };
      const sawExitNow = () => early.seen;
      let failure: RemoteError | null = null;
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        this.channels.delete(channel);
        o.signal?.removeEventListener('abort', onAbort);
        this.off('disconnect', onDisconnect);
        if (failure) reject(failure);
        else if (!sawExitNow() && (this.generation !== gen || this.client !== client)) reject(this.lostError('while a remote command was running'));
        else resolve({ code: early.code, ...(early.signal ? { signal: early.signal } : {}) });
      };
      const stop = (why: RemoteError) => {
        if (failure || finished) return;
        failure = why;
        killRemote(channel);
        channel.close();
        // A dead link never confirms the close: do not wait for it.
        setTimeout(finish, 2000).unref();
      };
      const onAbort = () => stop(abortedDuring('command', o.signal?.reason, o.timeoutMs));
      if (o.signal?.aborted) onAbort();
      else o.signal?.addEventListener('abort', onAbort, { once: true });
      const onDisconnect = () => {
        if (!sawExitNow() && !failure) failure = this.lostError('while a remote command was running');
        setImmediate(finish);
      };
      this.on('disconnect', onDisconnect);
      channel.on('data', (c: Buffer) => o.onStdout?.(c));
      channel.stderr.on('data', (c: Buffer) => o.onStderr?.(c));
      channel.on('error', () => undefined);
      channel.on('close', finish);
      if (o.stdin !== undefined) channel.end(o.stdin);
      else channel.end();
    });
  }

  // ---- connecting ------------------------------------------------------------------------

  private async ensureClient(signal?: AbortSignal): Promise<Client> {
    if (this.closed) throw new RemoteError('aborted', 'the connection was closed');
    if (this.fatal) throw this.fatal;
    if (this.client) return this.client;
    if (!this.connecting) {
      this.connecting = this.connectWithRetry().finally(() => {
        this.connecting = null;
      });
    }
    if (!signal) return this.connecting;
    const connecting = this.connecting;
    return underSignal<Client>(
      signal,
      (reason) => abortedDuring('connect', reason),
      (done) => connecting.then((c) => done(null, c), (e: unknown) => done(e instanceof RemoteError ? e : new RemoteError('protocol', String(e)))),
    );
  }

  private async connectWithRetry(): Promise<Client> {
    const reconnecting = this.everConnected;
    const windowMs = reconnecting ? this.opts.reconnectWindowMs : this.opts.firstConnectRetryMs;
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        const c = await this.connectOnce();
        if (reconnecting) this.emit('reconnect', { attempt });
        return c;
      } catch (e) {
        const err = e instanceof RemoteError ? e : new RemoteError('protocol', String(e));
        if (err.fatal) {
          this.fatal = err;
          throw err;
        }
        const retryable = err.code === 'connect-refused' || err.code === 'disconnected' || err.code === 'timeout' || err.code === 'protocol';
        const wait = backoffDelay(attempt, this.opts.backoffBaseMs, this.opts.backoffMaxMs);
        if (this.closed || !retryable || Date.now() - started + wait > windowMs) throw err;
        this.opts.log?.(`connect to ${describeTarget(this.target)} failed (${err.code}); retrying in ${wait} ms`);
        await sleep(wait);
        if (this.closed) throw new RemoteError('aborted', 'the connection was closed');
      }
    }
  }

  private async connectOnce(): Promise<Client> {
    const { host, port } = this.target;
    const label = `${this.user}@${describeTarget({ ...this.target, user: undefined })}`;
    const r = await handshake({
      host,
      port,
      user: this.user,
      label,
      knownHosts: this.knownHosts,
      sameMachineAs: this.opts.sameMachineAs,
      acceptNew: this.opts.acceptNew,
      confirmNewKey: this.opts.confirmNewKey,
      onHostKey: this.opts.onHostKey,
      methods: authMethods({
        identityFiles: [...(this.opts.identityFiles ?? []), ...this.target.identityFiles],
        useDefaultKeys: this.opts.useDefaultKeys !== false,
        agent: this.opts.agent,
        env: this.opts.env ?? process.env,
      }),
      password: () => this.password,
      rememberPassword: (pw) => (this.password = pw),
      askPassword: this.opts.askPassword,
      connectTimeoutMs: this.opts.connectTimeoutMs,
      keepaliveIntervalMs: this.opts.keepaliveIntervalMs,
      keepaliveCountMax: this.opts.keepaliveCountMax,
      noDelay: this.opts.noDelay !== false,
      everConnected: this.everConnected,
      isClosed: () => this.closed,
      onDrop: (client, e) => this.dropped(client, e),
      onLiveError: (e) => this.opts.log?.(`connection to ${label}: ${e.message}`),
    });
    this.hostKeyFingerprint = r.hostKeyFingerprint;
    this.generation++;
    this.client = r.client;
    this.everConnected = true;
    return r.client;
  }

  private dropped(client: Client, err: { message: string } | undefined): void {
    if (this.client !== client) return;
    this.client = null;
    this.generation++;
    this.sftpSession = null;
    // Channels the server never confirmed closing are gone with the link.
    this.channels.clear();
    this.lastDrop = err?.message;
    this.emit('disconnect', { reason: err?.message ?? 'closed' });
  }

  private lostError(when: string): RemoteError {
    const why = this.lastDrop ? ` (${this.lastDrop})` : '';
    return new RemoteError('disconnected', `the connection to ${describeTarget({ ...this.target, user: this.user })} dropped ${when}${why}`, {
      detail: { host: this.target.host, port: this.target.port, ...(this.lastDrop ? { reason: this.lastDrop } : {}) },
    });
  }

  private classifyChannelError(e: Error): RemoteError {
    const kind = channelErrorKind(e.message);
    if (kind === 'session-limit')
      return new RemoteError('session-limit', `the server refused another SSH channel (${this.budget.inUse} open; its MaxSessions limit)`, { detail: { open: this.budget.inUse } });
    if (kind === 'link-lost') return this.lostError('while opening a channel');
    return new RemoteError('protocol', `SSH channel failed: ${e.message}`);
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'root';
  }
}

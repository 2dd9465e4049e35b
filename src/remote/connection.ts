// One SSH connection to a rented box, kept warm and reused: keepalive, a deadline on every
// operation, a channel budget below the server's MaxSessions (the rest wait in a queue),
// reconnect with backoff and jitter, and errors a person can act on.
import { EventEmitter } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import * as net from 'node:net';
import { Client, utils as sshUtils, type AnyAuthMethod, type AuthenticationType, type ClientChannel, type SFTPWrapper } from 'ssh2';
import { RemoteError, type RemoteErrorCode } from './errors';
import { createHostVerifier, KnownHosts, defaultKnownHostsPath, type HostKeyOutcome, type TrustQuestion } from './hostkeys';
import { loginShell } from './shell';
import { describeTarget, knownHostsName, type SshTarget } from './target';

export interface ConnectOptions {
  /** Our known_hosts file (default ~/.config/gpu-rent/known_hosts, or $GPU_RENT_HOME/known_hosts). */
  knownHostsPath?: string;
  /** Pin a first-contact host key without asking (scripts). */
  acceptNew?: boolean;
  /** Ask the user to trust a first-contact key. Without it (and without acceptNew) unknown keys are refused. */
  confirmNewKey?: (q: TrustQuestion) => Promise<boolean>;
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

/** Full-jitter exponential backoff: attempt 0 waits about base, doubling up to max, times 0.5–1. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((res, rej) => {
    if (signal?.aborted) return rej(new RemoteError('aborted', 'cancelled'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      res();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      rej(new RemoteError('aborted', 'cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Host-key algorithms for a pinned key type, so the server shows the key we pinned. */
function algorithmsFor(keyType: string): string[] {
  return keyType === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [keyType];
}

interface Waiter {
  resolve: () => void;
  reject: (e: RemoteError) => void;
}

export class RemoteConnection extends EventEmitter {
  readonly target: SshTarget;
  readonly user: string;
  private readonly opts: Required<Pick<ConnectOptions, 'keepaliveIntervalMs' | 'keepaliveCountMax' | 'connectTimeoutMs' | 'opTimeoutMs' | 'maxChannels' | 'firstConnectRetryMs' | 'reconnectWindowMs' | 'backoffBaseMs' | 'backoffMaxMs'>> & ConnectOptions;
  private readonly knownHosts: KnownHosts;
  private client: Client | null = null;
  private generation = 0;
  private connecting: Promise<Client> | null = null;
  private fatal: RemoteError | null = null;
  private closed = false;
  private everConnected = false;
  private password: string | undefined;
  private sftpSession: Promise<SFTPWrapper> | null = null;
  private budget: number;
  private inUse = 0;
  private readonly waiters: Waiter[] = [];
  private readonly channels = new Set<ClientChannel>();
  /** Channels open on the server now (exec and SFTP), and the most ever open at once. */
  private live = 0;
  private peakLive = 0;
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
    this.budget = Math.max(1, this.opts.maxChannels);
  }

  /** Channels open right now (tests check that nothing leaks). */
  get openChannels(): number {
    return this.channels.size;
  }

  /** Channel budget now (lowered when the server turns out to allow fewer sessions). */
  get channelBudget(): number {
    return this.budget;
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
    const deadline = Date.now() + timeoutMs;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const r = await this.runChannel(opts.login === false ? command : loginShell(command), {
      deadline,
      timeoutMs,
      signal: opts.signal,
      stdin: opts.stdin,
      onStdout: (c) => out.push(c),
      onStderr: (c) => err.push(c),
    });
    return { code: r.code, ...(r.signal ? { signal: r.signal } : {}), stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
  }

  /** Runs a command and hands its output over as it arrives (logs --follow). */
  async execStream(command: string, opts: StreamOptions = {}): Promise<{ code: number | null; signal?: string }> {
    const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs;
    return this.runChannel(opts.login === false ? command : loginShell(command), {
      deadline,
      timeoutMs: opts.timeoutMs ?? Infinity,
      signal: opts.signal,
      onStdout: opts.onStdout,
      onStderr: opts.onStderr,
    });
  }

  /** Runs `fn` while holding one slot of the channel budget (for callers that open channels themselves). */
  async withChannel<T>(fn: (client: Client) => Promise<T>, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<T> {
    const deadline = Date.now() + (opts.timeoutMs ?? this.opts.opTimeoutMs);
    await this.acquire(deadline, opts.signal);
    try {
      const client = await this.ensureClient(deadline);
      return await fn(client);
    } finally {
      this.release();
    }
  }

  /** The connection's one SFTP session (opened on first use, reopened after a reconnect). */
  async sftp(opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<SFTPWrapper> {
    if (this.sftpSession) return this.sftpSession;
    const deadline = Date.now() + (opts.timeoutMs ?? this.opts.opTimeoutMs);
    const session = (async () => {
      await this.acquire(deadline, opts.signal);
      let held = true;
      try {
        const client = await this.ensureClient(deadline);
        const gen = this.generation;
        const sftp = await this.withDeadline<SFTPWrapper>(
          deadline,
          'opening SFTP',
          (done) =>
            client.sftp((e, s) => {
              if (e) done(this.classifyChannelError(e));
              else done(null, s);
            }),
          opts.signal,
        );
        // The session holds its slot until it closes (it counts against MaxSessions too).
        this.live++;
        this.peakLive = Math.max(this.peakLive, this.live);
        const onEnd = () => {
          if (!held) return;
          held = false;
          this.live--;
          this.release();
          if (this.generation === gen && this.sftpSession === session) this.sftpSession = null;
        };
        sftp.once('close', onEnd);
        sftp.once('end', onEnd);
        return sftp;
      } catch (e) {
        if (held) {
          held = false;
          this.release();
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
    for (const w of this.waiters.splice(0)) w.reject(new RemoteError('aborted', 'the connection was closed'));
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

  private acquire(deadline: number, signal?: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(new RemoteError('aborted', 'the connection was closed'));
    if (this.inUse < this.budget && this.waiters.length === 0) {
      this.inUse++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = {
        resolve: () => {
          cleanup();
          resolve();
        },
        reject: (e) => {
          cleanup();
          reject(e);
        },
      };
      const timer = Number.isFinite(deadline)
        ? setTimeout(() => {
            const i = this.waiters.indexOf(w);
            if (i !== -1) this.waiters.splice(i, 1);
            w.reject(new RemoteError('timeout', `waited too long for a free SSH channel (${this.inUse} in use, budget ${this.budget})`, { detail: { inUse: this.inUse, budget: this.budget } }));
          }, Math.max(0, deadline - Date.now()))
        : undefined;
      const onAbort = () => {
        const i = this.waiters.indexOf(w);
        if (i !== -1) this.waiters.splice(i, 1);
        w.reject(new RemoteError('aborted', 'cancelled'));
      };
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(w);
    });
  }

  private release(): void {
    this.inUse--;
    this.pump();
  }

  private pump(): void {
    while (this.inUse < this.budget && this.waiters.length > 0) {
      this.inUse++;
      this.waiters.shift()!.resolve();
    }
  }

  private async runChannel(
    command: string,
    o: { deadline: number; timeoutMs: number; signal?: AbortSignal; stdin?: string | Buffer; onStdout?: (c: Buffer) => void; onStderr?: (c: Buffer) => void },
  ): Promise<{ code: number | null; signal?: string }> {
    if (o.signal?.aborted) throw new RemoteError('aborted', 'cancelled');
    for (let attempt = 0; ; attempt++) {
      await this.acquire(o.deadline, o.signal);
      let released = false;
      const releaseOnce = () => {
        if (released) return;
        released = true;
        this.release();
      };
      let client: Client;
      let channel: ClientChannel;
      try {
        client = await this.ensureClient(o.deadline, o.signal);
        channel = await this.openExec(client, command, o.deadline, o.signal);
      } catch (e) {
        releaseOnce();
        if (e instanceof RemoteError && e.code === 'session-limit' && attempt < 20 && Date.now() < o.deadline) {
          // The server allows fewer sessions than our budget, or has not yet freed one we just
          // closed. What was open at once before is proven allowed, so never go below that.
          const others = this.live;
          this.budget = Math.max(1, others, this.peakLive);
          this.opts.log?.(`channel refused with ${others} others open; budget now ${this.budget}`);
          await sleep(Math.min(25 * (attempt + 1), 300), o.signal);
          continue;
        }
        // The link died before the channel opened, so the command never ran: safe to run it on a fresh connection.
        if (e instanceof RemoteError && e.code === 'disconnected' && attempt < 2 && Date.now() < o.deadline) continue;
        throw e;
      }
      this.live++;
      this.peakLive = Math.max(this.peakLive, this.live);
      return this.driveChannel(channel, client, o).finally(() => {
        this.live--;
        releaseOnce();
      });
    }
  }

  private openExec(client: Client, command: string, deadline: number, signal?: AbortSignal): Promise<ClientChannel> {
    return this.withDeadline<ClientChannel>(
      deadline,
      'opening an SSH channel',
      (done) => {
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
      },
      signal,
    );
  }

  private driveChannel(
    channel: ClientChannel,
    client: Client,
    o: { deadline: number; timeoutMs: number; signal?: AbortSignal; stdin?: string | Buffer; onStdout?: (c: Buffer) => void; onStderr?: (c: Buffer) => void },
  ): Promise<{ code: number | null; signal?: string }> {
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
        if (timer) clearTimeout(timer);
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
      const timer = Number.isFinite(o.deadline)
        ? setTimeout(() => stop(new RemoteError('timeout', `the remote command did not finish within ${Math.round(o.timeoutMs / 100) / 10} s`, { detail: { timeoutMs: o.timeoutMs } })), Math.max(0, o.deadline - Date.now()))
        : undefined;
      const onAbort = () => stop(new RemoteError('aborted', 'cancelled'));
      o.signal?.addEventListener('abort', onAbort, { once: true });
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

  private async ensureClient(deadline = Infinity, signal?: AbortSignal): Promise<Client> {
    if (this.closed) throw new RemoteError('aborted', 'the connection was closed');
    if (this.fatal) throw this.fatal;
    if (this.client) return this.client;
    if (!this.connecting) {
      this.connecting = this.connectWithRetry().finally(() => {
        this.connecting = null;
      });
    }
    if (!Number.isFinite(deadline) && !signal) return this.connecting;
    return this.withDeadline<Client>(deadline, 'connecting', (done) => this.connecting!.then((c) => done(null, c), (e: unknown) => done(e instanceof RemoteError ? e : new RemoteError('protocol', String(e)))), signal);
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

  private connectOnce(): Promise<Client> {
    const { host, port } = this.target;
    const label = `${this.user}@${describeTarget({ ...this.target, user: undefined })}`;
    const pinned = this.knownHosts.lookup(host, port);
    const seenBefore = this.everConnected || pinned.length > 0;
    let outcome: HostKeyOutcome | undefined;
    const tried: string[] = [];
    let passwordTried = false;

    return new Promise<Client>((resolve, reject) => {
      const client = new Client();
      const sock = new net.Socket();
      // Nagle plus delayed ACKs cost ~40 ms per round trip on small exec messages.
      sock.setNoDelay(this.opts.noDelay !== false);
      let settled = false;
      let ready = false;
      let lastError: (Error & { level?: string; code?: string }) | undefined;

      // Handshake deadline, paused while a person is being asked something.
      let timer: NodeJS.Timeout | undefined;
      let remaining = this.opts.connectTimeoutMs;
      let runningSince = 0;
      const startClock = () => {
        runningSince = Date.now();
        timer = setTimeout(() => fail(new RemoteError('timeout', `no SSH handshake from ${label} within ${Math.round(this.opts.connectTimeoutMs / 1000)} s`, { hint: seenBefore ? 'paste-new-login-command' : 'instance-may-be-starting' })), remaining);
      };
      const pauseClock = (paused: boolean) => {
        if (paused) {
          if (timer) clearTimeout(timer);
          timer = undefined;
          remaining = Math.max(0, remaining - (Date.now() - runningSince));
        } else if (!settled) startClock();
      };
      startClock();

      const fail = (err: RemoteError) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        client.removeAllListeners('ready');
        client.on('error', () => undefined);
        client.destroy();
        sock.destroy();
        reject(err);
      };

      const classify = (): RemoteError => {
        if (outcome?.kind === 'changed') {
          return new RemoteError(
            'host-key-changed',
            `the host key of ${knownHostsName(host, port)} has changed: pinned ${outcome.pinned.join(', ')}, the server now shows ${outcome.fingerprint} (${outcome.keyType}). ` +
              `Refused before sending any credential. If the box was reinstalled and you trust it, delete its line from ${this.knownHosts.path}.`,
            { detail: { pinned: outcome.pinned.join(','), offered: outcome.fingerprint, knownHosts: this.knownHosts.path } },
          );
        }
        if (outcome?.kind === 'unknown-refused') {
          return new RemoteError('host-key-unknown', `${knownHostsName(host, port)} is a new host (${outcome.keyType} key ${outcome.fingerprint}) and was not trusted: confirm the fingerprint, or pass --accept-new`, {
            detail: { offered: outcome.fingerprint },
          });
        }
        const e = lastError;
        const code = e?.code;
        const level = e?.level;
        if (level === 'client-authentication') {
          if (tried.length === 0) return new RemoteError('no-credentials', `nothing to log in to ${label} with: no key file, no SSH agent, no password (set GPU_RENT_PASSWORD or use a terminal to be asked)`);
          return new RemoteError('auth-failed', `${label} refused the login (tried ${tried.join(', ')})`, {
            hint: seenBefore || passwordTried ? 'paste-new-login-command' : undefined,
            detail: { tried: tried.join(',') },
          });
        }
        const map: Partial<Record<string, RemoteErrorCode>> = {
          ECONNREFUSED: 'connect-refused',
          ENOTFOUND: 'host-not-found',
          EAI_AGAIN: 'host-not-found',
          ETIMEDOUT: 'timeout',
          EHOSTUNREACH: 'timeout',
          ENETUNREACH: 'timeout',
          ECONNRESET: 'disconnected',
          EPIPE: 'disconnected',
        };
        const mapped = code ? map[code] : undefined;
        if (mapped === 'connect-refused')
          return new RemoteError('connect-refused', `nothing is listening on ${host} port ${port}: the instance is stopped, or its SSH port changed`, { hint: seenBefore ? 'paste-new-login-command' : 'instance-may-be-starting' });
        if (mapped === 'host-not-found') return new RemoteError('host-not-found', `the host name ${host} could not be resolved`);
        if (mapped === 'timeout') return new RemoteError('timeout', `${host} port ${port} did not answer`, { hint: seenBefore ? 'paste-new-login-command' : undefined });
        if (mapped === 'disconnected' || !e || /lost before handshake|closed|reset/i.test(e.message))
          return new RemoteError('disconnected', `the connection to ${label} was cut during the SSH handshake${e ? ` (${e.message})` : ''}`);
        if (level === 'client-timeout') return new RemoteError('timeout', `${label}: ${e.message}`);
        return new RemoteError('protocol', `SSH handshake with ${label} failed: ${e.message}`);
      };

      const methods = this.authMethods();
      const authHandler = (authsLeft: AuthenticationType[] | null, _partial: boolean | null, next: (m: AnyAuthMethod | false) => void) => {
        const allowed = (t: string) => !authsLeft || authsLeft.length === 0 || authsLeft.includes(t as AuthenticationType);
        const step = (): void => {
          const m = methods.shift();
          if (!m) return next(false);
          if (m.kind === 'key') {
            if (!allowed('publickey')) return step();
            tried.push(`key ${m.label}`);
            return next({ type: 'publickey', username: this.user, key: m.key });
          }
          if (m.kind === 'agent') {
            if (!allowed('publickey')) return step();
            tried.push('SSH agent');
            return next({ type: 'agent', username: this.user, agent: m.socket });
          }
          if (!allowed('password') && !allowed('keyboard-interactive')) return step();
          const usePassword = (pw: string) => {
            passwordTried = true;
            tried.push('password');
            if (allowed('password')) return next({ type: 'password', username: this.user, password: pw });
            return next({
              type: 'keyboard-interactive',
              username: this.user,
              prompt: (_n: string, _i: string, _l: string, prompts: unknown[], finish: (answers: string[]) => void) => finish(prompts.map(() => pw)),
            } as AnyAuthMethod);
          };
          if (this.password !== undefined) return usePassword(this.password);
          if (!this.opts.askPassword) return step();
          pauseClock(true);
          this.opts.askPassword({ user: this.user, host, port }).then(
            (pw) => {
              pauseClock(false);
              if (settled) return;
              if (pw === null || pw === undefined) return step();
              this.password = pw;
              usePassword(pw);
            },
            () => {
              pauseClock(false);
              step();
            },
          );
        };
        step();
      };

      const verifier = createHostVerifier({
        knownHosts: this.knownHosts,
        host,
        port,
        acceptNew: this.opts.acceptNew,
        confirmNewKey: this.opts.confirmNewKey,
        onPrompt: (asking) => pauseClock(asking),
        onOutcome: (o) => {
          outcome = o;
          if (o.kind === 'matched' || o.kind === 'accepted-new') this.hostKeyFingerprint = o.fingerprint;
        },
      });

      client.on('ready', () => {
        if (settled) {
          client.destroy();
          return;
        }
        if (this.closed) {
          fail(new RemoteError('aborted', 'the connection was closed'));
          return;
        }
        settled = true;
        ready = true;
        if (timer) clearTimeout(timer);
        this.generation++;
        this.client = client;
        this.everConnected = true;
        resolve(client);
      });
      client.on('error', (e: Error & { level?: string; code?: string }) => {
        lastError = e;
        if (!ready) {
          // Host-key and auth outcomes are final; socket errors may still be followed by 'close'.
          if (outcome?.kind === 'changed' || outcome?.kind === 'unknown-refused' || e.level === 'client-authentication') fail(classify());
          return;
        }
        this.opts.log?.(`connection to ${label}: ${e.message}`);
      });
      client.on('close', () => {
        if (!ready) {
          fail(classify());
          return;
        }
        this.dropped(client, lastError);
      });

      sock.once('error', (e: Error & { code?: string }) => {
        lastError = e;
      });
      sock.connect(port, host);
      const types = pinned.map((k) => k.type);
      try {
        client.connect({
          sock,
          host,
          port,
          username: this.user,
          readyTimeout: 0, // our own clock above, paused while the user is asked
          keepaliveInterval: this.opts.keepaliveIntervalMs,
          keepaliveCountMax: this.opts.keepaliveCountMax,
          hostVerifier: verifier,
          authHandler: authHandler as never,
          ...(types.length ? { algorithms: { serverHostKey: { prepend: [...new Set(types.flatMap(algorithmsFor))] } as never } } : {}),
        });
      } catch (e) {
        fail(new RemoteError('protocol', `SSH setup failed: ${e instanceof Error ? e.message : String(e)}`));
      }
    });
  }

  private dropped(client: Client, err: Error | undefined): void {
    if (this.client !== client) return;
    this.client = null;
    this.generation++;
    this.sftpSession = null;
    // Channels the server never confirmed closing are gone with the link.
    this.channels.clear();
    this.lastDrop = err?.message;
    this.emit('disconnect', { reason: err?.message ?? 'closed' });
  }

  private lastDrop: string | undefined;

  private lostError(when: string): RemoteError {
    const why = this.lastDrop ? ` (${this.lastDrop})` : '';
    return new RemoteError('disconnected', `the connection to ${describeTarget({ ...this.target, user: this.user })} dropped ${when}${why}`);
  }

  private classifyChannelError(e: Error & { reason?: number }): RemoteError {
    if (/open failure|open failed|administratively|no more sessions/i.test(e.message)) {
      return new RemoteError('session-limit', `the server refused another SSH channel (${this.inUse} open; its MaxSessions limit)`, { detail: { open: this.inUse } });
    }
    if (/No response|not connected|closed|not writable|write after end/i.test(e.message)) return this.lostError('while opening a channel');
    return new RemoteError('protocol', `SSH channel failed: ${e.message}`);
  }

  private withDeadline<T>(deadline: number, what: string, start: (done: (e: RemoteError | null, v?: T) => void) => void, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let over = false;
      const end = () => {
        over = true;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const timer = Number.isFinite(deadline)
        ? setTimeout(() => {
            if (over) return;
            end();
            reject(new RemoteError('timeout', `${what} took longer than the deadline`));
          }, Math.max(0, deadline - Date.now()))
        : undefined;
      const onAbort = () => {
        if (over) return;
        end();
        reject(new RemoteError('aborted', 'cancelled'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = (e: RemoteError | null, v?: T) => {
        if (over) {
          // Too late: a channel that opened after the deadline must not leak.
          if (!e && v && typeof (v as unknown as ClientChannel).close === 'function' && what.includes('channel')) (v as unknown as ClientChannel).close();
          if (!e && v && what === 'opening SFTP') (v as unknown as SFTPWrapper).end();
          return;
        }
        end();
        if (e) reject(e);
        else resolve(v as T);
      };
      try {
        start(settle);
      } catch (e) {
        // ssh2 throws synchronously on a link that just died.
        settle(e instanceof RemoteError ? e : this.classifyChannelError(e instanceof Error ? e : new Error(String(e))));
      }
    });
  }

  private authMethods(): Array<{ kind: 'key'; key: Buffer; label: string } | { kind: 'agent'; socket: string } | { kind: 'password' }> {
    const env = this.opts.env ?? process.env;
    const home = env.HOME || homedir();
    const expand = (p: string) => resolve(p.replace(/^~(?=$|\/)/, home));
    const files = [...(this.opts.identityFiles ?? []), ...this.target.identityFiles];
    if (this.opts.useDefaultKeys !== false) for (const n of ['id_ed25519', 'id_ecdsa', 'id_rsa']) files.push(join(home, '.ssh', n));
    const seen = new Set<string>();
    const out: Array<{ kind: 'key'; key: Buffer; label: string } | { kind: 'agent'; socket: string } | { kind: 'password' }> = [];
    for (const f of files) {
      const path = expand(f);
      if (seen.has(path) || !existsSync(path)) continue;
      seen.add(path);
      try {
        const key = readFileSync(path);
        const parsed = sshUtils.parseKey(key);
        // Encrypted keys need a passphrase we do not ask for: the agent covers them.
        if (parsed instanceof Error) continue;
        out.push({ kind: 'key', key, label: f });
      } catch {
        /* unreadable key file: skip */
      }
    }
    const agent = this.opts.agent === false ? undefined : (this.opts.agent ?? env.SSH_AUTH_SOCK);
    if (agent) out.push({ kind: 'agent', socket: agent });
    out.push({ kind: 'password' });
    return out;
  }
}

interface EarlyExit {
  seen: boolean;
  code: number | null;
  signal?: string;
}
const earlyExits = new WeakMap<ClientChannel, EarlyExit>();

/**
 * Asks sshd to SIGKILL the command's process group (OpenSSH ≥ 7.9 honours it). ssh2's
 * `signal()` stays silent once stdin is closed, which is always the case here, so the request
 * goes straight to its protocol object when the public method would drop it.
 */
function killRemote(channel: ClientChannel): void {
  const ch = channel as unknown as { outgoing?: { state?: string; id?: number }; _client?: { _protocol?: { signal?: (id: number, name: string) => void } } };
  try {
    if (ch.outgoing?.state === 'open') channel.signal('KILL');
    else if (ch.outgoing?.state === 'eof' && typeof ch.outgoing.id === 'number') ch._client?._protocol?.signal?.(ch.outgoing.id, 'KILL');
  } catch {
    /* the link is gone or the server does not take signals: closing the channel is all we can do */
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

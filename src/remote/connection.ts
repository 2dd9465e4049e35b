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
import type { ConnectOptions, ExecOptions, ExecResult, StreamOptions } from './connect-options';
import { boxOutput, protocolFailed, RemoteError, waitEnded } from './errors';
import { handshake } from './handshake';
import { KnownHosts, defaultKnownHostsPath } from './hostkeys';
import { abortedDuring, driveChannel, ExecOutput, openExec, type ChannelRun } from './exec-channel';
import { loginShell } from './shell';
import { describeTarget, type SshTarget } from './target';
import { backoffDelay } from './util/backoff';
import { operationSignal, underSignal } from './util/deadline';
import { sleep } from './util/sleep';

export { backoffDelay } from './util/backoff';
export type { HostKeyEvent } from './handshake';

export type { ConnectOptions, ExecOptions, ExecResult, StreamOptions } from './connect-options';

type Defaults = Required<Pick<ConnectOptions, 'keepaliveIntervalMs' | 'keepaliveCountMax' | 'connectTimeoutMs' | 'opTimeoutMs' | 'maxChannels' | 'firstConnectRetryMs' | 'reconnectWindowMs' | 'backoffBaseMs' | 'backoffMaxMs'>>;

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
    // Kept under a cap per stream: a box printing gigabytes must not take the process down.
    const out = new ExecOutput(opts.maxOutputBytes);
    const r = await this.runChannel(opts.login === false ? command : loginShell(command), {
      signal: operationSignal(timeoutMs, opts.signal),
      timeoutMs,
      stdin: opts.stdin,
      onStdout: out.stdout.push,
      onStderr: out.stderr.push,
      overLimit: out.overLimit,
    });
    return { code: r.code, ...(r.signal ? { signal: r.signal } : {}), ...out.result(), ...(r.outputLimited ? { outputLimited: true } : {}) };
  }

  /** Runs a command and hands its output over as it arrives (logs --follow, sync's tar stream). */
  async execStream(command: string, opts: StreamOptions = {}): Promise<{ code: number | null; signal?: string }> {
    return this.runChannel(opts.login === false ? command : loginShell(command), {
      signal: operationSignal(opts.timeoutMs, opts.signal),
      timeoutMs: opts.timeoutMs,
      stdin: opts.stdin,
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
    if (this.closed) return Promise.reject(waitEnded({ code: 'connection-closed' }));
    return this.budget.acquire(signal);
  }

  private async runChannel(command: string, o: ChannelRun): Promise<{ code: number | null; signal?: string; outputLimited?: boolean }> {
    if (o.signal?.aborted) throw abortedDuring('command', o.signal.reason, o.timeoutMs);
    for (let attempt = 0; ; attempt++) {
      const release = await this.acquire(o.signal);
      let client: Client;
      let channel: ClientChannel;
      try {
        client = await this.ensureClient(o.signal);
        channel = await openExec(client, command, o.signal, (e) => this.classifyChannelError(e));
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

  private driveChannel(channel: ClientChannel, client: Client, o: ChannelRun): Promise<{ code: number | null; signal?: string; outputLimited?: boolean }> {
    const gen = this.generation;
    return driveChannel(channel, o, {
      track: (ch) => {
        this.channels.add(ch);
        return () => this.channels.delete(ch);
      },
      stillCurrent: () => this.generation === gen && this.client === client,
      onDisconnect: (fn) => {
        this.on('disconnect', fn);
        return () => this.off('disconnect', fn);
      },
      lostError: (when) => this.lostError(when),
    });
  }

  // ---- connecting ------------------------------------------------------------------------

  private async ensureClient(signal?: AbortSignal): Promise<Client> {
    if (this.closed) throw waitEnded({ code: 'connection-closed' });
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
      (done) => connecting.then((c) => done(null, c), (e: unknown) => done(e instanceof RemoteError ? e : protocolFailed({ code: 'ssh-other', output: boxOutput(String(e)) }))),
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
        const err = e instanceof RemoteError ? e : protocolFailed({ code: 'ssh-other', output: boxOutput(String(e)) });
        if (err.fatal) {
          this.fatal = err;
          throw err;
        }
        const retryable = err.code === 'connect-refused' || err.code === 'disconnected' || err.code === 'timeout' || err.code === 'protocol';
        const wait = backoffDelay(attempt, this.opts.backoffBaseMs, this.opts.backoffMaxMs);
        if (this.closed || !retryable || Date.now() - started + wait > windowMs) throw err;
        this.opts.log?.(`connect to ${describeTarget(this.target)} failed (${err.code}); retrying in ${wait} ms`);
        await sleep(wait);
        if (this.closed) throw waitEnded({ code: 'connection-closed' });
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
    return protocolFailed({ code: 'ssh-channel', output: boxOutput(e.message) });
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

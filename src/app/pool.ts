// The SSH connections a front end holds, owned by it: the extension makes one in activate()
// and disposes it on deactivate; the CLI makes one per command. Entries are keyed by what
// they are for (an instance id, or a CLI target) and remember the connection parameters they
// were made with: a different password, port or setting gives a new connection, never the
// first caller's stale one.
import { createHash } from 'node:crypto';
import { RemoteConnection, type ConnectOptions } from '../remote/connection';
import { isRemoteError } from '../remote/errors';
import type { SshTarget } from '../remote/target';
import { Emitter } from './events';

/**
 * `lost`: the link dropped, or a connect failed for another reason; `refused`: the box answered
 * and refused the login (a wrong or changed password, no key it accepts); `unreachable`: nothing
 * answered at host:port (connection refused, no answer in time, no such host): the box is
 * stopped, or its port changed after a restart.
 */
export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'lost' | 'refused' | 'unreachable' | 'closed';

/** The state a failed connect leaves, from the remote layer's error code. */
export function failedConnectState(e: unknown): 'lost' | 'refused' | 'unreachable' {
  if (!isRemoteError(e)) return 'lost';
  switch (e.code) {
    case 'auth-failed':
    case 'no-credentials':
      return 'refused';
    case 'connect-refused':
    case 'timeout':
    case 'host-not-found':
      return 'unreachable';
    default:
      return 'lost';
  }
}

export interface ConnectionStateEvent {
  key: string;
  state: ConnectionState;
  /** Why it was lost or closed, when known. */
  reason?: string;
}

interface Entry {
  conn: RemoteConnection;
  /** A digest of the target and the options that matter for authentication and timing. */
  fingerprint: string;
  off: () => void;
}

/**
 * What makes two connections interchangeable. The password enters only as a SHA-256 digest,
 * held in memory for the comparison; callbacks (prompts) do not count, they are re-bound.
 */
export function connectionFingerprint(target: SshTarget, opts: ConnectOptions): string {
  const h = createHash('sha256');
  const parts = {
    host: target.host,
    port: target.port,
    user: target.user ?? opts.env?.USER ?? null,
    identityFiles: [...(opts.identityFiles ?? []), ...target.identityFiles],
    useDefaultKeys: opts.useDefaultKeys ?? true,
    agent: opts.agent ?? null,
    keepaliveIntervalMs: opts.keepaliveIntervalMs ?? null,
    keepaliveCountMax: opts.keepaliveCountMax ?? null,
    connectTimeoutMs: opts.connectTimeoutMs ?? null,
    opTimeoutMs: opts.opTimeoutMs ?? null,
    maxChannels: opts.maxChannels ?? null,
    knownHostsPath: opts.knownHostsPath ?? null,
    acceptNew: opts.acceptNew ?? false,
    sameMachineAs: opts.sameMachineAs ?? null,
    password: opts.password === undefined ? null : createHash('sha256').update(opts.password).digest('hex'),
  };
  h.update(JSON.stringify(parts));
  return h.digest('hex');
}

const FAILED: ReadonlySet<ConnectionState | undefined> = new Set(['lost', 'refused', 'unreachable']);

export class SshPool {
  private readonly entries = new Map<string, Entry>();
  private readonly states = new Map<string, ConnectionState>();
  private readonly changed = new Emitter<ConnectionStateEvent>();
  private disposed = false;
  /** Connection state changes per key (connected, reconnecting, lost, closed). */
  readonly onDidChangeState = this.changed.event;

  constructor(private readonly make: (target: SshTarget, opts: ConnectOptions) => RemoteConnection = (t, o) => new RemoteConnection(t, o)) {}

  /** The warm connection for `key`, made (or remade, when the parameters changed) as needed. */
  async get(key: string, target: SshTarget, opts: ConnectOptions = {}): Promise<RemoteConnection> {
    if (this.disposed) throw new Error('the SSH pool is closed');
    const fingerprint = connectionFingerprint(target, opts);
    let entry = this.entries.get(key);
    if (entry && entry.fingerprint !== fingerprint) {
      this.drop(key, 'the login or connection settings changed');
      entry = undefined;
    }
    if (!entry) entry = this.create(key, target, opts, fingerprint);
    const conn = entry.conn;
    if (!conn.connected) this.setState(key, FAILED.has(this.states.get(key)) ? 'reconnecting' : 'connecting');
    try {
      await conn.connect();
    } catch (e) {
      // A connection that never came up (or failed for good) is not kept.
      if (this.entries.get(key) === entry && !conn.connected) this.drop(key, e instanceof Error ? e.message : String(e), failedConnectState(e));
      throw e;
    }
    this.setState(key, 'connected');
    return conn;
  }

  /** Closes and forgets the connection for `key` (a new login, a removed instance). */
  invalidate(key: string): void {
    this.drop(key, 'invalidated');
  }

  /** Closes every connection (a connection setting changed). */
  invalidateAll(): void {
    for (const key of [...this.entries.keys()]) this.drop(key, 'invalidated');
  }

  state(key: string): ConnectionState | undefined {
    return this.states.get(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Closes everything; later `get` calls fail. */
  dispose(): void {
    this.invalidateAll();
    this.disposed = true;
    this.changed.dispose();
  }

  private create(key: string, target: SshTarget, opts: ConnectOptions, fingerprint: string): Entry {
    const conn = this.make(target, opts);
    const onDisconnect = (e: { reason?: string } | undefined) => {
      if (this.entries.get(key)?.conn === conn) this.setState(key, 'lost', e?.reason);
    };
    const onReconnect = () => {
      if (this.entries.get(key)?.conn === conn) this.setState(key, 'connected');
    };
    conn.on('disconnect', onDisconnect);
    conn.on('reconnect', onReconnect);
    const entry: Entry = {
      conn,
      fingerprint,
      off: () => {
        conn.off('disconnect', onDisconnect);
        conn.off('reconnect', onReconnect);
      },
    };
    this.entries.set(key, entry);
    return entry;
  }

  private drop(key: string, reason: string, state: ConnectionState = 'closed'): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    entry.off();
    entry.conn.close();
    this.setState(key, state, reason);
  }

  private setState(key: string, state: ConnectionState, reason?: string): void {
    if (this.states.get(key) === state) return;
    if (state === 'closed') this.states.delete(key);
    else this.states.set(key, state);
    this.changed.fire({ key, state, ...(reason ? { reason } : {}) });
  }
}

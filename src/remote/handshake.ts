// One SSH handshake: TCP connect, host-key check, authentication, under a deadline whose
// clock stops while a person is asked something. Resolves with a ready ssh2 Client; every
// failure is classified (classify.ts) with the facts gathered on the way.
import * as net from 'node:net';
import { Client } from 'ssh2';
import { createAuthHandler, type AuthMethod, type AuthTrace } from './auth';
import { classifyHandshakeFailure, handshakeTimeoutError, isFinalHandshakeError, type HandshakeFacts, type LowLevelError } from './classify';
import { boxOutput, protocolFailed, RemoteError, waitEnded, type Endpoint } from './errors';
import { createHostVerifier, pinnedKeyTypes, type HostKeyOutcome, type KnownHosts, type TrustQuestion } from './hostkeys';
import { PausableDeadline } from './util/deadline';

/** What the host-key check decided, for the UI ("same machine as before, new port"). */
export interface HostKeyEvent {
  kind: 'pinned-new' | 'same-key-new-port' | 'matched';
  host: string;
  port: number;
  fingerprint: string;
  keyType: string;
  /** For 'same-key-new-port': the earlier endpoint the key was pinned for. */
  previous?: Endpoint;
}

export interface HandshakeParams {
  host: string;
  port: number;
  user: string;
  /** user@host[:port] for messages. */
  label: string;
  knownHosts: KnownHosts;
  sameMachineAs?: Endpoint[];
  acceptNew?: boolean;
  confirmNewKey?: (q: TrustQuestion) => Promise<boolean>;
  onHostKey?: (e: HostKeyEvent) => void;
  methods: AuthMethod[];
  password(): string | undefined;
  rememberPassword(pw: string): void;
  askPassword?: (q: { user: string; host: string; port: number }) => Promise<string | null>;
  connectTimeoutMs: number;
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  noDelay: boolean;
  /** The connection was reached before (the port or password may have changed since). */
  everConnected: boolean;
  /** The owner closed meanwhile: a handshake that completes now is discarded. */
  isClosed(): boolean;
  /** After 'ready': the link dropped (with ssh2's last error). */
  onDrop(client: Client, lastError: LowLevelError | undefined): void;
  /** After 'ready': an error ssh2 reported on the live link. */
  onLiveError(e: LowLevelError): void;
}

export interface HandshakeResult {
  client: Client;
  hostKeyFingerprint: string | undefined;
}

/** Host-key algorithms for a pinned key type, so the server shows the key we pinned. */
function algorithmsFor(keyType: string): string[] {
  return keyType === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [keyType];
}

function hostKeyEvent(o: HostKeyOutcome, host: string, port: number): HostKeyEvent | undefined {
  if (o.kind === 'matched') return { kind: 'matched', host, port, fingerprint: o.fingerprint, keyType: o.keyType };
  if (o.kind === 'accepted-new') return { kind: 'pinned-new', host, port, fingerprint: o.fingerprint, keyType: o.keyType };
  if (o.kind === 'same-key-new-port') return { kind: 'same-key-new-port', host, port, fingerprint: o.fingerprint, keyType: o.keyType, previous: o.previous };
  return undefined;
}

/** The host-key types to ask the server for, and whether this box was reached or pinned before. */
function keyTypesToAsk(p: HandshakeParams): { types: string[]; seenBefore: boolean } {
  const { host, port } = p;
  // Ask for the kind of key pinned here (or, with no pin here, for an earlier port of the instance).
  let types = pinnedKeyTypes(p.knownHosts, host, port);
  const pinnedHere = types.length > 0;
  if (!pinnedHere) for (const e of p.sameMachineAs ?? []) types = [...new Set([...types, ...pinnedKeyTypes(p.knownHosts, e.host, e.port)])];
  const seenBefore = p.everConnected || types.length > 0;
  return { types, seenBefore };
}

/** One handshake under way: the socket, the ssh2 client, the deadline, and the facts gathered for a failure. */
class HandshakeAttempt {
  private readonly client = new Client();
  private readonly sock = new net.Socket();
  private settled = false;
  private ready = false;
  private lastError: LowLevelError | undefined;
  private outcome: HostKeyOutcome | undefined;
  private fingerprint: string | undefined;
  private readonly trace: AuthTrace = { tried: [], passwordTried: false };
  private readonly deadline: PausableDeadline;

  constructor(
    private readonly p: HandshakeParams,
    private readonly types: string[],
    private readonly seenBefore: boolean,
    private readonly resolve: (r: HandshakeResult) => void,
    private readonly reject: (e: RemoteError) => void,
  ) {
    const { host, port, label } = p;
    // Nagle plus delayed ACKs cost ~40 ms per round trip on small exec messages.
    this.sock.setNoDelay(p.noDelay);
    // Handshake deadline, paused while a person is being asked something.
    this.deadline = new PausableDeadline(p.connectTimeoutMs);
    this.deadline.signal.addEventListener('abort', () => this.fail(handshakeTimeoutError({ host, port, label, seenBefore }, p.connectTimeoutMs)), { once: true });
  }

  start(): void {
    const { p, client, sock } = this;
    const pauseClock = (asking: boolean) => (asking ? this.deadline.pause() : this.deadline.resume());
    const authHandler = this.authHandler(pauseClock);
    const verifier = this.hostVerifier(pauseClock);
    client.on('ready', () => this.onReady());
    client.on('error', (e: Error & { level?: string; code?: string }) => this.onError(e));
    client.on('close', () => this.onClose());
    sock.once('error', (e: Error & { code?: string }) => {
      this.lastError = e;
    });
    sock.connect(p.port, p.host);
    this.connect(verifier, authHandler);
  }

  private facts(): HandshakeFacts {
    const { p, trace } = this;
    return { host: p.host, port: p.port, label: p.label, error: this.lastError, hostKey: this.outcome, tried: trace.tried, passwordTried: trace.passwordTried, seenBefore: this.seenBefore, knownHostsPath: p.knownHosts.path };
  }

  private fail(err: RemoteError): void {
    if (this.settled) return;
    this.settled = true;
    this.deadline.clear();
    this.client.removeAllListeners('ready');
    this.client.on('error', () => undefined);
    this.client.destroy();
    this.sock.destroy();
    this.reject(err);
  }

  private authHandler(pauseClock: (asking: boolean) => void): ReturnType<typeof createAuthHandler> {
    const p = this.p;
    return createAuthHandler(
      {
        user: p.user,
        host: p.host,
        port: p.port,
        methods: p.methods,
        password: p.password,
        rememberPassword: p.rememberPassword,
        askPassword: p.askPassword,
        onPrompt: pauseClock,
        settled: () => this.settled,
      },
      this.trace,
    );
  }

  private hostVerifier(pauseClock: (asking: boolean) => void): ReturnType<typeof createHostVerifier> {
    const p = this.p;
    return createHostVerifier({
      knownHosts: p.knownHosts,
      host: p.host,
      port: p.port,
      sameMachineAs: p.sameMachineAs,
      acceptNew: p.acceptNew,
      confirmNewKey: p.confirmNewKey,
      onPrompt: pauseClock,
      onOutcome: (o) => {
        this.outcome = o;
        if (o.kind === 'matched' || o.kind === 'accepted-new' || o.kind === 'same-key-new-port') this.fingerprint = o.fingerprint;
      },
    });
  }

  private onReady(): void {
    const { p, client } = this;
    if (this.settled) {
      client.destroy();
      return;
    }
    if (p.isClosed()) {
      this.fail(waitEnded({ code: 'connection-closed' }, { detail: { host: p.host, port: p.port } }));
      return;
    }
    this.settled = true;
    this.ready = true;
    this.deadline.clear();
    const event = this.outcome && hostKeyEvent(this.outcome, p.host, p.port);
    if (event) {
      try {
        p.onHostKey?.(event);
      } catch {
        /* a listener's failure is not the connection's */
      }
    }
    this.resolve({ client, hostKeyFingerprint: this.fingerprint });
  }

  private onError(e: Error & { level?: string; code?: string }): void {
    this.lastError = e;
    if (!this.ready) {
      // Host-key and auth outcomes are final; socket errors may still be followed by 'close'.
      if (isFinalHandshakeError({ hostKey: this.outcome, error: e })) this.fail(classifyHandshakeFailure(this.facts()));
      return;
    }
    this.p.onLiveError(e);
  }

  private onClose(): void {
    if (!this.ready) {
      this.fail(classifyHandshakeFailure(this.facts()));
      return;
    }
    this.p.onDrop(this.client, this.lastError);
  }

  private connect(verifier: ReturnType<typeof createHostVerifier>, authHandler: ReturnType<typeof createAuthHandler>): void {
    const { p, types } = this;
    const { host, port } = p;
    try {
      this.client.connect({
        sock: this.sock,
        host,
        port,
        username: p.user,
        readyTimeout: 0, // our own clock above, paused while the user is asked
        keepaliveInterval: p.keepaliveIntervalMs,
        keepaliveCountMax: p.keepaliveCountMax,
        hostVerifier: verifier,
        authHandler: authHandler as never,
        // ssh2 documents { prepend } for an algorithm list; its type definitions only know arrays.
        ...(types.length ? { algorithms: { serverHostKey: { prepend: [...new Set(types.flatMap(algorithmsFor))] } as never } } : {}),
      });
    } catch (e) {
      this.fail(protocolFailed({ code: 'ssh-setup', output: boxOutput(e instanceof Error ? e.message : String(e)) }, { detail: { host, port } }));
    }
  }
}

export function handshake(p: HandshakeParams): Promise<HandshakeResult> {
  const { types, seenBefore } = keyTypesToAsk(p);
  return new Promise<HandshakeResult>((resolve, reject) => new HandshakeAttempt(p, types, seenBefore, resolve, reject).start());
}

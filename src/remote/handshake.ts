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

export function handshake(p: HandshakeParams): Promise<HandshakeResult> {
  const { host, port, label } = p;
  // Ask for the kind of key pinned here (or, with no pin here, for an earlier port of the instance).
  let types = pinnedKeyTypes(p.knownHosts, host, port);
  const pinnedHere = types.length > 0;
  if (!pinnedHere) for (const e of p.sameMachineAs ?? []) types = [...new Set([...types, ...pinnedKeyTypes(p.knownHosts, e.host, e.port)])];
  const seenBefore = p.everConnected || types.length > 0;
  const trace: AuthTrace = { tried: [], passwordTried: false };
  let outcome: HostKeyOutcome | undefined;
  let fingerprint: string | undefined;

  return new Promise<HandshakeResult>((resolve, reject) => {
    const client = new Client();
    const sock = new net.Socket();
    // Nagle plus delayed ACKs cost ~40 ms per round trip on small exec messages.
    sock.setNoDelay(p.noDelay);
    let settled = false;
    let ready = false;
    let lastError: LowLevelError | undefined;

    const facts = (): HandshakeFacts => ({ host, port, label, error: lastError, hostKey: outcome, tried: trace.tried, passwordTried: trace.passwordTried, seenBefore, knownHostsPath: p.knownHosts.path });
    const fail = (err: RemoteError) => {
      if (settled) return;
      settled = true;
      deadline.clear();
      client.removeAllListeners('ready');
      client.on('error', () => undefined);
      client.destroy();
      sock.destroy();
      reject(err);
    };
    // Handshake deadline, paused while a person is being asked something.
    const deadline = new PausableDeadline(p.connectTimeoutMs);
    deadline.signal.addEventListener('abort', () => fail(handshakeTimeoutError({ host, port, label, seenBefore }, p.connectTimeoutMs)), { once: true });
    const pauseClock = (asking: boolean) => (asking ? deadline.pause() : deadline.resume());

    const authHandler = createAuthHandler(
      {
        user: p.user,
        host,
        port,
        methods: p.methods,
        password: p.password,
        rememberPassword: p.rememberPassword,
        askPassword: p.askPassword,
        onPrompt: pauseClock,
        settled: () => settled,
      },
      trace,
    );

    const verifier = createHostVerifier({
      knownHosts: p.knownHosts,
      host,
      port,
      sameMachineAs: p.sameMachineAs,
      acceptNew: p.acceptNew,
      confirmNewKey: p.confirmNewKey,
      onPrompt: pauseClock,
      onOutcome: (o) => {
        outcome = o;
        if (o.kind === 'matched' || o.kind === 'accepted-new' || o.kind === 'same-key-new-port') fingerprint = o.fingerprint;
      },
    });

    client.on('ready', () => {
      if (settled) {
        client.destroy();
        return;
      }
      if (p.isClosed()) {
        fail(waitEnded({ code: 'connection-closed' }, { detail: { host, port } }));
        return;
      }
      settled = true;
      ready = true;
      deadline.clear();
      const event = outcome && hostKeyEvent(outcome, host, port);
      if (event) {
        try {
          p.onHostKey?.(event);
        } catch {
          /* a listener's failure is not the connection's */
        }
      }
      resolve({ client, hostKeyFingerprint: fingerprint });
    });
    client.on('error', (e: Error & { level?: string; code?: string }) => {
      lastError = e;
      if (!ready) {
        // Host-key and auth outcomes are final; socket errors may still be followed by 'close'.
        if (isFinalHandshakeError({ hostKey: outcome, error: e })) fail(classifyHandshakeFailure(facts()));
        return;
      }
      p.onLiveError(e);
    });
    client.on('close', () => {
      if (!ready) {
        fail(classifyHandshakeFailure(facts()));
        return;
      }
      p.onDrop(client, lastError);
    });

    sock.once('error', (e: Error & { code?: string }) => {
      lastError = e;
    });
    sock.connect(port, host);
    try {
      client.connect({
        sock,
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
      fail(protocolFailed({ code: 'ssh-setup', output: boxOutput(e instanceof Error ? e.message : String(e)) }, { detail: { host, port } }));
    }
  });
}

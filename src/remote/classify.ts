// The error classifier: what went wrong in an SSH handshake or on a channel, as a RemoteError
// a person can act on. Pure: it reads the facts it is given (ssh2's error, the host-key
// verdict, what authentication tried) and does no I/O, so every branch is unit-tested.
import { boxOutput, protocolFailed, RemoteError, type RemoteErrorCode } from './errors';
import type { HostKeyOutcome } from './hostkeys';
import { knownHostsName } from './target';

/** What ssh2 and Node put on their errors: `level` (ssh2) and `code` (socket errno). */
export interface LowLevelError {
  message: string;
  level?: string;
  code?: string;
}

export interface HandshakeFacts {
  host: string;
  port: number;
  /** user@host[:port] for messages. */
  label: string;
  /** The last error ssh2 or the socket reported (undefined: the link just closed). */
  error?: LowLevelError;
  /** The host-key verifier's verdict, if it ran. */
  hostKey?: HostKeyOutcome;
  /** Authentication methods tried, in order ("key ~/.ssh/id_ed25519", "SSH agent", "password"). */
  tried: string[];
  passwordTried: boolean;
  /** This endpoint (or instance) was reached before: the port or password may have changed. */
  seenBefore: boolean;
  knownHostsPath: string;
}

const SOCKET_CODES: Partial<Record<string, RemoteErrorCode>> = {
  ECONNREFUSED: 'connect-refused',
  ENOTFOUND: 'host-not-found',
  EAI_AGAIN: 'host-not-found',
  ETIMEDOUT: 'timeout',
  EHOSTUNREACH: 'timeout',
  ENETUNREACH: 'timeout',
  ECONNRESET: 'disconnected',
  EPIPE: 'disconnected',
};

/** The RemoteError code for a socket errno (undefined: not a socket error we know). */
export function socketErrorCode(code: string | undefined): RemoteErrorCode | undefined {
  return code ? SOCKET_CODES[code] : undefined;
}

/** A handshake verdict that ends the attempt at once (no retry, no waiting for 'close'). */
export function isFinalHandshakeError(facts: Pick<HandshakeFacts, 'hostKey' | 'error'>): boolean {
  return facts.hostKey?.kind === 'changed' || facts.hostKey?.kind === 'unknown-refused' || facts.error?.level === 'client-authentication';
}

export function hostKeyChangedError(o: Extract<HostKeyOutcome, { kind: 'changed' }>, host: string, port: number, knownHostsPath: string): RemoteError<'host-key-changed'> {
  const pinnedList = o.pinned.join(', ');
  const where = knownHostsName(host, port);
  const lines = o.pinnedKeys.map((k) => k.line).join(', ');
  const text = o.previous
    ? `the host key of ${where} differs from the key pinned for this instance's earlier address ${knownHostsName(o.previous.host, o.previous.port)}: pinned ${pinnedList}, the server now shows ${o.fingerprint} (${o.keyType}). ` +
      `Refused before sending any credential: this may not be your instance. If it was reinstalled and you trust it, delete line ${lines} of ${knownHostsPath}.`
    : `the host key of ${where} has changed: pinned ${pinnedList}, the server now shows ${o.fingerprint} (${o.keyType}). ` +
      `Refused before sending any credential. If the box was reinstalled and you trust it, delete line ${lines} of ${knownHostsPath}.`;
  return new RemoteError('host-key-changed', text, {
    detail: {
      host,
      port,
      presented: { fingerprint: o.fingerprint, keyType: o.keyType },
      pinned: o.pinnedKeys.map((k) => ({ fingerprint: k.fingerprint, keyType: k.type, host: k.host, port: k.port, knownHostsPath, line: k.line })),
      ...(o.previous ? { previousEndpoint: o.previous } : {}),
      knownHostsPath,
    },
  });
}

/** Why a handshake failed, from everything seen during it. */
export function classifyHandshakeFailure(f: HandshakeFacts): RemoteError {
  const { host, port, label } = f;
  const where = { host, port };
  if (f.hostKey?.kind === 'changed') return hostKeyChangedError(f.hostKey, host, port, f.knownHostsPath);
  if (f.hostKey?.kind === 'unknown-refused') {
    return new RemoteError('host-key-unknown', `${knownHostsName(host, port)} is a new host (${f.hostKey.keyType} key ${f.hostKey.fingerprint}) and was not trusted: confirm the fingerprint, or pass --accept-new`, {
      detail: { ...where, presented: { fingerprint: f.hostKey.fingerprint, keyType: f.hostKey.keyType } },
    });
  }
  const e = f.error;
  if (e?.level === 'client-authentication') {
    if (f.tried.length === 0) return new RemoteError('no-credentials', `nothing to log in to ${label} with: no key file, no SSH agent, no password (set GPU_RENT_PASSWORD or use a terminal to be asked)`, { detail: where });
    return new RemoteError('auth-failed', `${label} refused the login (tried ${f.tried.join(', ')})`, {
      hint: f.seenBefore || f.passwordTried ? 'paste-new-login-command' : undefined,
      detail: { ...where, tried: [...f.tried] },
    });
  }
  const mapped = socketErrorCode(e?.code);
  if (mapped === 'connect-refused')
    return new RemoteError('connect-refused', `nothing is listening on ${host} port ${port}: the instance is stopped, or its SSH port changed`, {
      hint: f.seenBefore ? 'paste-new-login-command' : 'instance-may-be-starting',
      detail: where,
    });
  if (mapped === 'host-not-found') return new RemoteError('host-not-found', `the host name ${host} could not be resolved`, { detail: where });
  if (mapped === 'timeout') return new RemoteError('timeout', `${host} port ${port} did not answer`, { hint: f.seenBefore ? 'paste-new-login-command' : undefined, detail: { ...where, stage: 'connect' } });
  if (mapped === 'disconnected' || !e || /lost before handshake|closed|reset/i.test(e.message))
    return new RemoteError('disconnected', `the connection to ${label} was cut during the SSH handshake${e ? ` (${e.message})` : ''}`, { detail: { ...where, ...(e ? { reason: e.message } : {}) } });
  if (e.level === 'client-timeout') return new RemoteError('timeout', `${label}: ${e.message}`, { detail: { ...where, stage: 'connect' } });
  return protocolFailed({ code: 'ssh-handshake', label, output: boxOutput(e.message) }, { detail: where });
}

/** The handshake ran past its deadline (the clock stops while a person is asked). */
export function handshakeTimeoutError(f: Pick<HandshakeFacts, 'host' | 'port' | 'label' | 'seenBefore'>, timeoutMs: number): RemoteError<'timeout'> {
  return new RemoteError('timeout', `no SSH handshake from ${f.label} within ${Math.round(timeoutMs / 1000)} s`, {
    hint: f.seenBefore ? 'paste-new-login-command' : 'instance-may-be-starting',
    detail: { host: f.host, port: f.port, stage: 'connect', timeoutMs },
  });
}

export type ChannelErrorKind = 'session-limit' | 'link-lost' | 'other';

/** What an error from opening a channel (exec, SFTP) means. */
export function channelErrorKind(message: string): ChannelErrorKind {
  if (/open failure|open failed|administratively|no more sessions/i.test(message)) return 'session-limit';
  if (/No response|not connected|closed|not writable|write after end/i.test(message)) return 'link-lost';
  return 'other';
}

// Every failure the remote layer reports, as a code people can act on. The message is
// plain English for the CLI; the extension maps `code` (and `hint`) to localized words, and
// reads the facts it shows from `detail`, whose shape is fixed per code (`detail.code` is the
// discriminant: `if (e.detail.code === 'host-key-changed') e.detail.presented`).

import type { LoginProblem } from './target';

export type RemoteErrorCode =
  | 'bad-target' // the target text could not be understood
  | 'host-key-changed' // the pinned key differs: refused before any credential was sent
  | 'host-key-unknown' // first contact and nobody confirmed the key (no prompt, or declined)
  | 'auth-failed' // every method (keys, agent, password) was refused
  | 'no-credentials' // nothing to try: no key, no agent, no password
  | 'connect-refused' // nothing listening: instance stopped, or its SSH port changed
  | 'host-not-found' // DNS failed
  | 'timeout' // connect, handshake or an operation ran past its deadline
  | 'session-limit' // the server refused another channel (MaxSessions)
  | 'disconnected' // the link dropped (reset, keepalive timeout) while working
  | 'protocol' // handshake or SSH protocol failure not covered above
  | 'aborted' // the caller cancelled
  | 'remote-failed'; // a remote helper command failed (exit status in the message)

/** A platform-specific suggestion to show with the error. */
export type RemoteHint =
  | 'paste-new-login-command' // AutoDL and friends change port and password on every power cycle
  | 'instance-may-be-starting'; // "running" in the console before sshd is up

export interface Endpoint {
  host: string;
  port: number;
}

/** Where a pinned key sits: the file and its 1-based line, so the UI can open it there. */
export interface PinnedKeyRef {
  /** `SHA256:…` as ssh-keygen prints it. */
  fingerprint: string;
  keyType: string;
  /** The endpoint the key is pinned for (the one connected to, or an earlier port of the same instance). */
  host: string;
  port: number;
  knownHostsPath: string;
  line: number;
}

/** Every detail may say which endpoint it is about (the UI's "… of HOST:PORT"). */
interface Where {
  host?: string;
  port?: number;
}

/** The facts each code carries, beside its message. */
export interface RemoteErrorDetails {
  /** `login`: why a pasted login could not be read (target.ts); absent for the other bad inputs. */
  'bad-target': Where & { login?: LoginProblem };
  'host-key-changed': {
    host: string;
    port: number;
    /** The key the server showed now. */
    presented: { fingerprint: string; keyType: string };
    /** What was pinned (at least one entry): for this endpoint, or for an earlier one in `previousEndpoint`. */
    pinned: PinnedKeyRef[];
    /** Set when the pin that differs belongs to an earlier endpoint of the same instance (sameMachineAs). */
    previousEndpoint?: Endpoint;
    knownHostsPath: string;
  };
  'host-key-unknown': Where & { presented?: { fingerprint: string; keyType: string } };
  'auth-failed': Where & { tried: string[] };
  'no-credentials': Where;
  'connect-refused': Where;
  'host-not-found': Where;
  timeout: Where & { stage?: 'connect' | 'channel-wait' | 'channel-open' | 'sftp-open' | 'command'; timeoutMs?: number; inUse?: number; budget?: number };
  'session-limit': Where & { open?: number };
  disconnected: Where & { reason?: string };
  protocol: Where;
  aborted: Where;
  'remote-failed': Where & { exitCode?: number | null };
}

/** `detail` as a discriminated union on `detail.code`. */
type DetailByCode = { [C in RemoteErrorCode]: { code: C } & RemoteErrorDetails[C] };
export type RemoteErrorDetail = DetailByCode[RemoteErrorCode];

type DetailFor<C extends RemoteErrorCode> = RemoteErrorDetails[C];
type DetailArg<C extends RemoteErrorCode> = object extends DetailFor<C> ? { detail?: DetailFor<C> } : { detail: DetailFor<C> };
export type RemoteErrorOptions<C extends RemoteErrorCode> = DetailArg<C> & { hint?: RemoteHint; cause?: unknown };

type OptionalArg<C extends RemoteErrorCode> = object extends DetailFor<C> ? [opts?: RemoteErrorOptions<C>] : [opts: RemoteErrorOptions<C>];

export class RemoteError<C extends RemoteErrorCode = RemoteErrorCode> extends Error {
  readonly code: C;
  hint?: RemoteHint;
  /** Extra facts for the UI (fingerprints, host, limits), typed per code. */
  readonly detail: DetailByCode[C];
  /** Never retried when true (authentication and host-key failures). */
  readonly fatal: boolean;

  constructor(code: C, message: string, ...[opts]: OptionalArg<C>) {
    const o = (opts ?? {}) as { detail?: object; hint?: RemoteHint; cause?: unknown };
    super(message, o.cause === undefined ? undefined : { cause: o.cause });
    this.name = 'RemoteError';
    this.code = code;
    this.hint = o.hint;
    this.detail = { ...(o.detail ?? {}), code } as DetailByCode[C];
    this.fatal = code === 'auth-failed' || code === 'host-key-changed' || code === 'host-key-unknown' || code === 'no-credentials' || code === 'bad-target';
  }

  /** Narrows to one code (and so to its detail's shape). */
  is<K extends RemoteErrorCode>(code: K): this is RemoteError<K> {
    return (this.code as RemoteErrorCode) === code;
  }
}

export function isRemoteError(e: unknown): e is RemoteError {
  return e instanceof RemoteError;
}

const HINT_TEXT: Record<RemoteHint, string> = {
  'paste-new-login-command':
    'If the instance was restarted, its SSH port and password may have changed (AutoDL changes them on every power cycle): paste the new login command from the console.',
  'instance-may-be-starting': 'The console may say "running" before sshd is up: wait a few seconds and try again.',
};

/** The message plus the platform hint, for the CLI. */
export function describeRemoteError(e: RemoteError): string {
  return e.hint ? `${e.message}\n${HINT_TEXT[e.hint]}` : e.message;
}

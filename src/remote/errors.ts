// Every failure the remote layer reports, as a code people can act on. The message is
// plain English for the CLI; the extension maps `code` (and `hint`) to localized words.

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

export class RemoteError extends Error {
  readonly code: RemoteErrorCode;
  hint?: RemoteHint;
  /** Extra facts for the UI (fingerprints, host, limits). */
  readonly detail: Record<string, string | number | boolean | undefined>;
  /** Never retried when true (authentication and host-key failures). */
  readonly fatal: boolean;

  constructor(code: RemoteErrorCode, message: string, opts: { detail?: RemoteError['detail']; hint?: RemoteHint; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'RemoteError';
    this.code = code;
    this.hint = opts.hint;
    this.detail = opts.detail ?? {};
    this.fatal = code === 'auth-failed' || code === 'host-key-changed' || code === 'host-key-unknown' || code === 'no-credentials' || code === 'bad-target';
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

// Every failure the remote layer reports, as a code people can act on. The message is
// plain English for the CLI; the extension maps `code` (and `hint`) to localized words, and
// reads the facts it shows from `detail`, whose shape is fixed per code (`detail.code` is the
// discriminant: `if (e.detail.code === 'host-key-changed') e.detail.presented`). A box or SSH
// failure (remote-failed, protocol), an unreadable login and an unusable argument (bad-target)
// also carry a code of their own with its facts (`detail.failure`, `detail.login`,
// `detail.input`), which app/remoteWords.ts puts into words; the message is that code's English.

import { forTerminal } from '../core/text';
import type { LoginProblem } from './target';
import { boxFailureEnglish, inputProblemEnglish, protocolFailureEnglish, waitProblemEnglish } from './error-english';

export { boxFailureEnglish, inputProblemEnglish, protocolFailureEnglish, waitProblemEnglish } from './error-english';

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
  /** `login`: why a pasted login could not be read (target.ts); `input`: which other argument cannot be used (InputProblem). */
  'bad-target': Where & { login?: LoginProblem; input?: InputProblem };
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
  /** `wait`: the deadline that passed, as a code with its facts (WaitProblem); absent for a connect timeout, whose message names the host. */
  timeout: Where & { stage?: 'connect' | 'channel-wait' | 'channel-open' | 'sftp-open' | 'command'; timeoutMs?: number; inUse?: number; budget?: number; wait?: WaitProblem };
  'session-limit': Where & { open?: number };
  disconnected: Where & { reason?: string };
  /** `failure`: which SSH step failed, with the library's own words (ProtocolFailure). */
  protocol: Where & { failure?: ProtocolFailure };
  /** `wait`: a cancel or a closed connection (WaitProblem). */
  aborted: Where & { wait?: WaitProblem };
  /** `failure`: what the box could not do, with its facts (BoxFailure). */
  'remote-failed': Where & { exitCode?: number | null; failure?: BoxFailure };
}

/** A script gpu-rent runs on the box (runSh's step), for "… failed on the box". */
export type BoxStep =
  | { step: 'watchdog-status' }
  | { step: 'watchdog-start' }
  | { step: 'watchdog-remove' }
  | { step: 'watchdog-write'; name: string }
  | { step: 'ram-check' }
  | { step: 'ram-create' }
  | { step: 'ram-wipe' }
  | { step: 'env-copy'; name: string }
  | { step: 'supervisor-python' }
  | { step: 'supervisor-status' }
  | { step: 'supervisor-mark' }
  | { step: 'supervisor-claim' }
  | { step: 'supervisor-stop' }
  | { step: 'supervisor-start' }
  | { step: 'supervisor-write'; name: string };

/**
 * What the box (or a helper gpu-rent ran there) could not do, as a code and its facts; the
 * front ends put it into words. `output` is the box's own text (stderr's last lines), made
 * inert (forTerminal) and cut to BOX_OUTPUT_CHARS: data, never a sentence of ours.
 */
export type BoxFailure =
  | { code: 'probe-output-too-big'; limitBytes: number }
  | { code: 'probe-unfinished'; exit: string; output: string }
  | { code: 'jobs-output-too-big'; limitBytes: number }
  | { code: 'gpu-count-unreadable'; output: string }
  | { code: 'gpu-none-listed' }
  | { code: 'job-already-running'; name: string }
  | { code: 'job-start-failed'; name: string; exit: string; output: string }
  | { code: 'job-not-found'; name: string }
  | { code: 'private-address-unknown' }
  | { code: 'gpu-counts-differ'; counts: string }
  | { code: 'port-in-use'; port: number; node: string }
  | { code: 'nodes-unreachable'; nodes: string; first: string; address: string; port: number; output: string }
  | { code: 'env-capture-unfinished'; exit: string }
  | { code: 'torch-command-unexpected'; command: string }
  | { code: 'torch-word-unexpected'; word: string }
  | { code: 'step-failed'; step: BoxStep; exit: string; output: string }
  | { code: 'watchdog-not-armed'; pid: string; running: boolean; outputPath: string }
  | { code: 'supervisor-not-armed'; pid: string; running: boolean; outputPath: string }
  | { code: 'ram-upload-failed'; file: string; dir: string; output: string };

/**
 * An argument gpu-rent was given that cannot be used (a job name, --gpus, an env name, a folder
 * on the box), as a code and its facts. The facts are what was given (the user's, a task file's
 * or a platform's text): the words show it as data.
 */
export type InputProblem =
  | { code: 'job-name-invalid'; name: string }
  | { code: 'env-var-name-invalid'; name: string }
  | { code: 'job-command-missing' }
  | { code: 'launch-command-missing' }
  | { code: 'launch-script-missing' }
  | { code: 'gpus-invalid'; gpus: number }
  | { code: 'nodes-too-few' }
  | { code: 'shell-arg-nul' }
  | { code: 'box-path-invalid' }
  /** `rule`: the message spells out what an env name may hold (startRebuild's check). */
  | { code: 'env-name-invalid'; name: string; rule: boolean }
  | { code: 'python-version-invalid' }
  | { code: 'ram-dir-relative'; dir: string }
  | { code: 'ram-dir-dotdot'; dir: string }
  /** `skipped`: each local path left out and why (ramdisk's collectLocalFiles reasons). */
  | { code: 'upload-nothing'; skipped: { path: string; reason: string }[] };

export type InputProblemCode = InputProblem['code'];

/** Which part of SSH failed; `output` is the SSH library's (or the server's) own words, inert and cut. */
export type ProtocolFailure =
  | { code: 'ssh-setup'; output: string }
  | { code: 'ssh-handshake'; label: string; output: string }
  | { code: 'ssh-channel'; output: string }
  | { code: 'host-key-format' }
  | { code: 'ssh-other'; output: string };

/**
 * Why an operation stopped waiting: its deadline passed (for a free channel, for a command, for
 * a step of SSH) or it was cancelled / its connection closed. `timeout` and `aborted` carry it
 * as `detail.wait`; app/remoteWords.ts waitProblemText puts it into words.
 */
export type WaitProblem =
  | { code: 'channel-wait'; inUse: number; budget: number }
  | { code: 'command-timeout'; seconds: number }
  | { code: 'stage-timeout'; stage: 'connect' | 'channel-open' | 'sftp-open' | 'command' }
  | { code: 'cancelled' }
  | { code: 'connection-closed' };

export type WaitProblemCode = WaitProblem['code'];

export type BoxFailureCode = BoxFailure['code'];
export type ProtocolFailureCode = ProtocolFailure['code'];

/** The most of the box's (or SSH's) own text a failure carries. */
export const BOX_OUTPUT_CHARS = 1000;

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

/** Box or library text as a failure's `output`: control characters made visible, cut. */
export function boxOutput(text: string): string {
  const one = forTerminal(String(text).slice(0, BOX_OUTPUT_CHARS * 2));
  return one.length > BOX_OUTPUT_CHARS ? `${one.slice(0, BOX_OUTPUT_CHARS - 1)}…` : one;
}

/** A RemoteError('remote-failed') for a box failure: the English message and the code with its facts. */
export function boxFailed(failure: BoxFailure, opts: { detail?: Where & { exitCode?: number | null }; hint?: RemoteHint; cause?: unknown } = {}): RemoteError<'remote-failed'> {
  return new RemoteError('remote-failed', boxFailureEnglish(failure), { ...opts, detail: { ...opts.detail, failure } });
}

/** A RemoteError('bad-target') for an argument that cannot be used: the English message and the code with its facts. */
export function badInput(input: InputProblem, opts: { detail?: Where; cause?: unknown } = {}): RemoteError<'bad-target'> {
  return new RemoteError('bad-target', inputProblemEnglish(input), { ...opts, detail: { ...opts.detail, input } });
}

/** A RemoteError('timeout') or ('aborted') for a wait that ended: the English message and the code with its facts. */
export function waitEnded(wait: Extract<WaitProblem, { code: 'channel-wait' | 'command-timeout' | 'stage-timeout' }>, opts?: { detail?: Omit<RemoteErrorDetails['timeout'], 'wait'> }): RemoteError<'timeout'>;
export function waitEnded(wait: Extract<WaitProblem, { code: 'cancelled' | 'connection-closed' }>, opts?: { detail?: Where }): RemoteError<'aborted'>;
export function waitEnded(wait: WaitProblem, opts: { detail?: object } = {}): RemoteError<'timeout' | 'aborted'> {
  const code = wait.code === 'cancelled' || wait.code === 'connection-closed' ? 'aborted' : 'timeout';
  return new RemoteError(code, waitProblemEnglish(wait), { detail: { ...opts.detail, wait } } as RemoteErrorOptions<'timeout'>);
}

/** A RemoteError('protocol') for an SSH failure. */
export function protocolFailed(failure: ProtocolFailure, opts: { detail?: Where; hint?: RemoteHint; cause?: unknown } = {}): RemoteError<'protocol'> {
  return new RemoteError('protocol', protocolFailureEnglish(failure), { ...opts, detail: { ...opts.detail, failure } });
}

// Every failure the remote layer reports, as a code people can act on. The message is
// plain English for the CLI; the extension maps `code` (and `hint`) to localized words, and
// reads the facts it shows from `detail`, whose shape is fixed per code (`detail.code` is the
// discriminant: `if (e.detail.code === 'host-key-changed') e.detail.presented`). A box or SSH
// failure (remote-failed, protocol), an unreadable login and an unusable argument (bad-target)
// also carry a code of their own with its facts (`detail.failure`, `detail.login`,
// `detail.input`), which app/remoteWords.ts puts into words; the message is that code's English.

import { forTerminal } from '../core/text';
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
  | { step: 'env-copy'; name: string };

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

function stepEnglish(s: BoxStep): string {
  switch (s.step) {
    case 'watchdog-status':
      return 'reading the watchdog status';
    case 'watchdog-start':
      return 'starting the watchdog';
    case 'watchdog-remove':
      return 'removing the watchdog';
    case 'watchdog-write':
      return `writing ${s.name}`;
    case 'ram-check':
      return 'checking the upload folder';
    case 'ram-create':
      return 'creating the RAM folder';
    case 'ram-wipe':
      return 'wiping the RAM folder';
    case 'env-copy':
      return `copying ${s.name}`;
  }
}

const mib = (bytes: number) => bytes / 1024 / 1024;
const colon = (output: string) => (output ? `: ${output}` : '');

/** The English message of a box failure (the CLI's and the log's words), as the remote layer always wrote it. */
export function boxFailureEnglish(f: BoxFailure): string {
  switch (f.code) {
    case 'probe-output-too-big':
      return `the probe printed more than ${mib(f.limitBytes)} MiB on the box (a real one prints a few KiB); stopped it and read nothing of it`;
    case 'probe-unfinished':
      return `the probe did not finish on the box (exit ${f.exit})${colon(f.output)}`;
    case 'jobs-output-too-big':
      return `the jobs listing printed more than ${mib(f.limitBytes)} MiB on the box (a real one is a few KiB); not read`;
    case 'gpu-count-unreadable':
      return `could not read the GPU count from nvidia-smi (${f.output}); pass --gpus N`;
    case 'gpu-none-listed':
      return 'nvidia-smi lists no GPU on this box; pass --gpus N';
    case 'job-already-running':
      return `a job named ${f.name} is already running: stop it first (gpu-rent stop TARGET ${f.name}) or pick another --name`;
    case 'job-start-failed':
      return `could not start job ${f.name} (exit ${f.exit}): ${f.output}`;
    case 'job-not-found':
      return `no job named ${f.name} on this box (gpu-rent jobs TARGET lists them)`;
    case 'private-address-unknown':
      return 'could not find the first node’s private address: pass --master-addr';
    case 'gpu-counts-differ':
      return `the nodes have different GPU counts (${f.counts}): every node needs the same number`;
    case 'port-in-use':
      return `port ${f.port} on ${f.node} is already in use: pick another --port`;
    case 'nodes-unreachable':
      return `${f.nodes} cannot reach ${f.first} at ${f.address}:${f.port} (${f.output}): put the nodes in one VPC / security group that allows the port`;
    case 'env-capture-unfinished':
      return `capturing the environment did not finish on the box (exit ${f.exit})`;
    case 'torch-command-unexpected':
      return `unexpected torch install command: ${f.command}`;
    case 'torch-word-unexpected':
      return `unexpected word in the torch install command: ${f.word}`;
    case 'step-failed':
      return `${stepEnglish(f.step)} failed on the box (exit ${f.exit})${colon(f.output)}`;
    case 'watchdog-not-armed':
      return `the watchdog did not arm on the box (pid ${f.pid}, ${f.running ? 'running' : 'not running'}, no heartbeat); see ${f.outputPath}`;
    case 'ram-upload-failed':
      return `uploading ${f.file} failed: ${f.output}. Files already in ${f.dir} stay in RAM; run wipe to remove them.`;
  }
}

/** The English message of an SSH protocol failure. */
export function protocolFailureEnglish(f: ProtocolFailure): string {
  switch (f.code) {
    case 'ssh-setup':
      return `SSH setup failed: ${f.output}`;
    case 'ssh-handshake':
      return `SSH handshake with ${f.label} failed: ${f.output}`;
    case 'ssh-channel':
      return `SSH channel failed: ${f.output}`;
    case 'host-key-format':
      return 'the server sent a host key in an unknown format';
    case 'ssh-other':
      return f.output;
  }
}

/** A RemoteError('remote-failed') for a box failure: the English message and the code with its facts. */
export function boxFailed(failure: BoxFailure, opts: { detail?: Where & { exitCode?: number | null }; hint?: RemoteHint; cause?: unknown } = {}): RemoteError<'remote-failed'> {
  return new RemoteError('remote-failed', boxFailureEnglish(failure), { ...opts, detail: { ...opts.detail, failure } });
}

/** The English message of an argument that cannot be used, as the remote layer always wrote it. */
export function inputProblemEnglish(p: InputProblem): string {
  switch (p.code) {
    case 'job-name-invalid':
      return `"${p.name}" is not usable as a job name: use letters, digits, - and _`;
    case 'env-var-name-invalid':
      return `"${p.name}" is not a valid environment variable name`;
    case 'job-command-missing':
      return 'no command given: put it after --, e.g. gpu-rent run TARGET --name train -- python train.py';
    case 'launch-command-missing':
      return 'no command to launch';
    case 'launch-script-missing':
      return 'the launcher needs a script after python';
    case 'gpus-invalid':
      return `--gpus must be a whole number ≥ 1, got ${p.gpus}`;
    case 'nodes-too-few':
      return '--nodes needs at least two nodes';
    case 'shell-arg-nul':
      return 'a shell argument cannot contain a NUL byte';
    case 'box-path-invalid':
      return 'a path on the box cannot contain NUL or newline characters';
    case 'env-name-invalid':
      return p.rule ? `"${p.name}" is not a usable env name: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64` : `"${p.name}" is not a usable env name`;
    case 'python-version-invalid':
      return 'not a Python version';
    case 'ram-dir-relative':
      return `the RAM folder must be an absolute path on the box (got "${p.dir}")`;
    case 'ram-dir-dotdot':
      return `the RAM folder may not contain ".." (got "${p.dir}")`;
    case 'upload-nothing':
      return `nothing to upload${p.skipped.length ? `: ${p.skipped.map((s) => `${s.path} (${s.reason})`).join(', ')}` : ''}`;
  }
}

/** A RemoteError('bad-target') for an argument that cannot be used: the English message and the code with its facts. */
export function badInput(input: InputProblem, opts: { detail?: Where; cause?: unknown } = {}): RemoteError<'bad-target'> {
  return new RemoteError('bad-target', inputProblemEnglish(input), { ...opts, detail: { ...opts.detail, input } });
}

const STAGE_ENGLISH: Record<Extract<WaitProblem, { code: 'stage-timeout' }>['stage'], string> = {
  connect: 'connecting',
  'channel-open': 'opening an SSH channel',
  'sftp-open': 'opening SFTP',
  command: 'the remote command',
};

/** The English message of a wait that ended, as the channel budget and the exec channel always wrote it. */
export function waitProblemEnglish(w: WaitProblem): string {
  switch (w.code) {
    case 'channel-wait':
      return `waited too long for a free SSH channel (${w.inUse} in use, budget ${w.budget})`;
    case 'command-timeout':
      return `the remote command did not finish within ${w.seconds} s`;
    case 'stage-timeout':
      return `${STAGE_ENGLISH[w.stage]} took longer than the deadline`;
    case 'cancelled':
      return 'cancelled';
    case 'connection-closed':
      return 'the connection was closed';
  }
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

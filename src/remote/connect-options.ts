// What a connection is made with (ConnectOptions) and what its operations take and give.
// connection.ts re-exports all of it.
import type { StdinSource } from './exec-channel';
import type { Endpoint } from './errors';
import type { HostKeyEvent } from './handshake';
import type { TrustQuestion } from './hostkeys';

export interface ConnectOptions {
  /** Our known_hosts file (default ~/.config/gpu-rent/known_hosts, or $GPU_RENT_HOME/known_hosts). */
  knownHostsPath?: string;
  /** Pin a first-contact host key without asking (scripts). */
  acceptNew?: boolean;
  /** Ask the user to trust a first-contact key. Without it (and without acceptNew) unknown keys are refused. */
  confirmNewKey?: (q: TrustQuestion) => Promise<boolean>;
  /**
   * Earlier endpoints of this same instance (AutoDL gives a new port after a power cycle and
   * keeps the host key). With no key pinned for the target's [host]:port, the key pinned for
   * one of these decides: the same key is accepted without asking and pinned for the new
   * endpoint ('same-key-new-port'); a different key is refused before any authentication
   * ('host-key-changed', detail.previousEndpoint says which). Absent: unchanged behaviour.
   */
  sameMachineAs?: Endpoint[];
  /** What the host-key check decided, once per successful handshake. */
  onHostKey?: (e: HostKeyEvent) => void;
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
  /**
   * What the command reads on stdin, then its end. A promise is written when it settles, the
   * command waiting on its stdin meanwhile (sync's identity look made ready ahead of the last
   * byte); one that settles to undefined, or fails, only ends stdin. An async iterable is
   * written chunk by chunk as it yields (push's compressed segments, one channel per file).
   */
  stdin?: StdinSource;
  signal?: AbortSignal;
  /** Run under `bash -lc` so conda and the platform's PATH are set (default true). */
  login?: boolean;
  /**
   * Bytes kept of each of stdout and stderr (default DEFAULT_EXEC_OUTPUT_BYTES, 16 MiB). The
   * rest is counted, not kept; a command that goes on printing far past it is stopped.
   */
  maxOutputBytes?: number;
}

export interface ExecResult {
  code: number | null;
  signal?: string;
  stdout: string;
  stderr: string;
  /** Bytes of each stream not kept (beyond maxOutputBytes); 0 when all of it is in stdout/stderr. */
  truncated: { stdout: number; stderr: number };
  /** The command printed so far past the cap that it was stopped (its code is then null). */
  outputLimited?: boolean;
}

export interface StreamOptions {
  /** As ExecOptions.stdin: a promise is written when it settles (undefined: only the end); an async iterable as it yields. */
  stdin?: StdinSource;
  /** A promise returned pauses the channel (the box is made to wait) until it settles: backpressure. */
  onStdout?: (chunk: Buffer) => unknown;
  onStderr?: (chunk: Buffer) => void;
  signal?: AbortSignal;
  /** No deadline unless given: streams (logs --follow) run until stopped. */
  timeoutMs?: number;
  login?: boolean;
}

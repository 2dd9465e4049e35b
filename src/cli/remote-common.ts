// What every command that talks to a rented box shares: the TARGET argument, the connection
// flags, the password and trust prompts (a terminal only; never a password flag), and turning
// RemoteErrors into one clear message.
import { UsageError, type FlagSpecs } from './args';
import type { CliIO } from './command';
import type { ConnectOptions, RemoteConnection } from '../remote/connection';
import { describeRemoteError, RemoteError } from '../remote/errors';
import type { TrustQuestion } from '../remote/hostkeys';
import { SshPool } from '../app/pool';
import { readSshConfigSync } from '../app/sshConfig';
import { knownHostsName, tryParseTarget, type SshTarget } from '../remote/target';

export const TARGET_HELP =
  'TARGET is ssh://user@host:port, the login command the platform shows pasted whole in quotes ' +
  "('ssh -p 12345 root@connect.westb.seetacloud.com'), user@host[:port], or a Host from ~/.ssh/config. " +
  'The password comes from GPU_RENT_PASSWORD or a prompt, never a flag.';

export const REMOTE_FLAGS = {
  'accept-new': { type: 'boolean', description: 'trust and pin the host key on first contact without asking (scripts)' },
  identity: { type: 'string', short: 'i', valueName: 'FILE', repeat: true, description: 'private key file to try first (like ssh -i; repeatable)' },
  'connect-timeout': { type: 'number', valueName: 'SECONDS', min: 0, exclusiveMin: true, max: 600, description: 'SSH connect and handshake deadline (default 20)' },
} as const satisfies FlagSpecs;

export interface RemoteFlags {
  'accept-new'?: boolean;
  identity?: string[];
  'connect-timeout'?: number;
}

/** Parses TARGET or throws a UsageError that names what is wrong with it. */
export function targetFromArg(text: string | undefined, io: CliIO): SshTarget {
  if (text === undefined || text.trim() === '') throw new UsageError(`missing TARGET. ${TARGET_HELP}`);
  const r = tryParseTarget(text, { sshConfig: readSshConfigSync({ env: io.env }) });
  if (!r.ok) throw new UsageError(`bad TARGET: ${r.problem}`);
  return r.target;
}

/** Reads one line from the terminal; with `hidden` nothing is echoed (passwords). */
export function promptLine(question: string, hidden: boolean): Promise<string | null> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return Promise.resolve(null);
  return new Promise((resolve) => {
    process.stderr.write(question);
    let answer = '';
    const wasRaw = stdin.isRaw;
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const done = (value: string | null) => {
      stdin.setRawMode(wasRaw);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(answer);
        if (ch === '\u0003' || ch === '\u0004') return done(null); // Ctrl-C, Ctrl-D
        if (ch === '\u007f' || ch === '\b') {
          if (answer.length) {
            answer = answer.slice(0, -1);
            if (!hidden) process.stderr.write('\b \b');
          }
          continue;
        }
        answer += ch;
        if (!hidden) process.stderr.write(ch);
      }
    };
    stdin.on('data', onData);
  });
}

/** Connection options from the flags and the environment. */
export function connectOptions(flags: RemoteFlags, io: CliIO): ConnectOptions {
  const interactive = Boolean(process.stdin.isTTY);
  const opts: ConnectOptions = {
    acceptNew: flags['accept-new'] === true,
    identityFiles: flags.identity ?? [],
    env: io.env,
    password: io.env.GPU_RENT_PASSWORD || undefined,
  };
  if (flags['connect-timeout'] !== undefined) opts.connectTimeoutMs = flags['connect-timeout'] * 1000;
  if (io.env.GPU_RENT_KNOWN_HOSTS) opts.knownHostsPath = io.env.GPU_RENT_KNOWN_HOSTS;
  if (interactive) {
    opts.confirmNewKey = async (q: TrustQuestion) => {
      io.stderr(`The host ${q.port === 22 ? q.host : `[${q.host}]:${q.port}`} is new to gpu-rent.\n${q.keyType} key fingerprint is ${q.fingerprint}.\n`);
      const a = await promptLine('Trust it and remember it? (yes/no) ', false);
      return a !== null && /^y(es)?$/i.test(a.trim());
    };
    opts.askPassword = async (q) => promptLine(`${q.user}@${q.host}'s password (port ${q.port}): `, true);
  }
  return opts;
}

/** Turns a RemoteError into an Error whose message the dispatcher prints as is. */
export function asCliError(e: unknown): unknown {
  if (e instanceof RemoteError) {
    if (e.code === 'bad-target') return new UsageError(e.message);
    return new Error(describeRemoteError(e), { cause: e });
  }
  return e;
}

/**
 * Connects to TARGET through a pool owned by this command, runs `fn`, and always closes the
 * pool so the process can exit. RemoteErrors come out as one readable message (with the
 * platform hint).
 */
export async function withRemote<T>(targetText: string | undefined, flags: RemoteFlags, io: CliIO, fn: (conn: RemoteConnection, target: SshTarget) => Promise<T>): Promise<T> {
  const target = targetFromArg(targetText, io);
  for (const note of target.ignored) io.stderr(`note: ignoring ${note} from the target\n`);
  const pool = new SshPool();
  try {
    const conn = await pool.get(`${target.user ?? ''}@${knownHostsName(target.host, target.port)}`, target, connectOptions(flags, io));
    return await fn(conn, target);
  } catch (e) {
    throw asCliError(e);
  } finally {
    pool.dispose();
  }
}

// Authentication: which methods to offer (key files, the SSH agent, a password) and the
// ssh2 authHandler that walks them in order, asking for a password only when the server
// wants one and none was given.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { utils as sshUtils, type AnyAuthMethod, type AuthenticationType } from 'ssh2';

/** The largest file read as a private key (an RSA-16384 key in PEM is under 13 KiB). */
const MAX_KEY_FILE_BYTES = 256 * 1024;

export type AuthMethod = { kind: 'key'; key: Buffer; label: string } | { kind: 'agent'; socket: string } | { kind: 'password' };

export interface AuthSources {
  /** Key files to try first (the caller's), then the target's. */
  identityFiles: string[];
  /** Try ~/.ssh/id_ed25519, id_ecdsa, id_rsa too. */
  useDefaultKeys: boolean;
  /** Agent socket; false = none; undefined = $SSH_AUTH_SOCK. */
  agent?: string | false;
  env: NodeJS.ProcessEnv;
}

/** Usable key files (parsed, unencrypted), then the agent, then the password, in that order. */
export function authMethods(src: AuthSources): AuthMethod[] {
  const home = src.env.HOME || homedir();
  const expand = (p: string) => resolve(p.replace(/^~(?=$|\/)/, home));
  const files = [...src.identityFiles];
  if (src.useDefaultKeys) for (const n of ['id_ed25519', 'id_ecdsa', 'id_rsa']) files.push(join(home, '.ssh', n));
  const seen = new Set<string>();
  const out: AuthMethod[] = [];
  for (const f of files) {
    const path = expand(f);
    if (seen.has(path) || !existsSync(path)) continue;
    seen.add(path);
    try {
      // A key file is a few KiB: a path to a device, a fifo or a huge file (a task file's -i) is not read.
      const st = statSync(path);
      if (!st.isFile() || st.size > MAX_KEY_FILE_BYTES) continue;
      const key = readFileSync(path);
      // Encrypted keys need a passphrase we do not ask for: the agent covers them.
      if (sshUtils.parseKey(key) instanceof Error) continue;
      out.push({ kind: 'key', key, label: f });
    } catch {
      /* unreadable key file: skip */
    }
  }
  const agent = src.agent === false ? undefined : (src.agent ?? src.env.SSH_AUTH_SOCK);
  if (agent) out.push({ kind: 'agent', socket: agent });
  out.push({ kind: 'password' });
  return out;
}

export interface AuthSession {
  user: string;
  host: string;
  port: number;
  methods: AuthMethod[];
  /** The password known now (given, or typed earlier on this connection). */
  password(): string | undefined;
  /** Remembers a typed password for reconnects. */
  rememberPassword(pw: string): void;
  askPassword?: (q: { user: string; host: string; port: number }) => Promise<string | null>;
  /** The handshake clock stops while the person types. */
  onPrompt(asking: boolean): void;
  /** True once the attempt is over (a late answer must not be sent). */
  settled(): boolean;
}

/** What authentication tried, for the error message when the server refuses them all. */
export interface AuthTrace {
  tried: string[];
  passwordTried: boolean;
}

type Next = (m: AnyAuthMethod | false) => void;

/** ssh2's authHandler: offers each method the server still accepts, in order. */
export function createAuthHandler(s: AuthSession, trace: AuthTrace): (authsLeft: AuthenticationType[] | null, partial: boolean | null, next: Next) => void {
  const methods = [...s.methods];
  return (authsLeft, _partial, next) => {
    const allowed = (t: string) => !authsLeft || authsLeft.length === 0 || authsLeft.includes(t as AuthenticationType);
    const usePassword = (pw: string) => {
      trace.passwordTried = true;
      trace.tried.push('password');
      if (allowed('password')) return next({ type: 'password', username: s.user, password: pw });
      return next({
        type: 'keyboard-interactive',
        username: s.user,
        prompt: (_n: string, _i: string, _l: string, prompts: unknown[], finish: (answers: string[]) => void) => finish(prompts.map(() => pw)),
      } as AnyAuthMethod);
    };
    const step = (): void => {
      const m = methods.shift();
      if (!m) return next(false);
      if (m.kind === 'key') {
        if (!allowed('publickey')) return step();
        trace.tried.push(`key ${m.label}`);
        return next({ type: 'publickey', username: s.user, key: m.key });
      }
      if (m.kind === 'agent') {
        if (!allowed('publickey')) return step();
        trace.tried.push('SSH agent');
        return next({ type: 'agent', username: s.user, agent: m.socket });
      }
      if (!allowed('password') && !allowed('keyboard-interactive')) return step();
      const known = s.password();
      if (known !== undefined) return usePassword(known);
      if (!s.askPassword) return step();
      s.onPrompt(true);
      s.askPassword({ user: s.user, host: s.host, port: s.port }).then(
        (pw) => {
          s.onPrompt(false);
          if (s.settled()) return;
          if (pw === null || pw === undefined) return step();
          s.rememberPassword(pw);
          usePassword(pw);
        },
        () => {
          s.onPrompt(false);
          step();
        },
      );
    };
    step();
  };
}

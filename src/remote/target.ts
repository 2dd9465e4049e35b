// What the user points us at: `ssh://user@host:port`, the login command a platform shows
// (`ssh -p 12345 root@connect.westb.seetacloud.com`, pasted whole, `-i KEY` and `-o` too),
// `user@host[:port]`, or a Host alias from ~/.ssh/config.
import { parse as parseSshConfig } from 'ssh-config';
import { RemoteError } from './errors';
import { loginProblemEnglish, type LoginPlace, type LoginProblem } from './login-problems';

export interface SshTarget {
  host: string;
  port: number;
  /** Undefined: the config's User, else the local user name (as ssh does). */
  user?: string;
  /** Key files named by the target (-i, IdentityFile), in order, `~` not yet expanded. */
  identityFiles: string[];
  /** The alias the user typed, when the target came from ~/.ssh/config. */
  alias?: string;
  source: 'url' | 'ssh-command' | 'ssh-config' | 'address';
  /** Things in the pasted text we understood but do not act on (e.g. `-o Compression=yes`). */
  ignored: string[];
}

export type { LoginPlace, LoginProblem, LoginProblemCode } from './login-problems';
export { loginProblemEnglish } from './login-problems';

export type TargetParse = { ok: true; target: SshTarget } | { ok: false; problem: string; reason: LoginProblem };

type Parsed<T> = { ok: true; target: T } | { ok: false; reason: LoginProblem };
type Internal = Parsed<SshTarget>;
const fail = (reason: LoginProblem): { ok: false; reason: LoginProblem } => ({ ok: false, reason });
const isProblem = (x: unknown): x is LoginProblem => typeof x === 'object' && x !== null && 'code' in x;

export interface ParseTargetOptions {
  /** Text of ~/.ssh/config (the CLI reads it; null = no config). */
  sshConfig?: string | null;
}

// OpenSSH client flags that take a value (from ssh(1)); the others are single letters without one.
const FLAGS_WITH_VALUE = new Set('BbcDEeFIiJLlmOoPpQRSWw'.split(''));
const FLAGS_WITHOUT_VALUE = new Set('46AaCfGgKkMNnqsTtVvXxYy'.split(''));

/** Splits a pasted command like sh would (quotes and backslashes), without expanding anything. */
function tokenize(text: string): { ok: true; words: string[] } | { ok: false; reason: LoginProblem } {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else cur += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1]!)) cur += text[++i]!;
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      cur += text[++i]!;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote) return fail({ code: 'login-quote-unbalanced', quote });
  if (inWord) words.push(cur);
  return { ok: true, words };
}

function parsePort(raw: string, place: LoginPlace): number | LoginProblem {
  const n = /^\d{1,5}$/.test(raw) ? Number(raw) : 0;
  if (n < 1 || n > 65535) return { code: 'login-port-range', place, port: raw };
  return n;
}

const HOST_RE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const IPV6_RE = /^[0-9A-Fa-f:.]+(%[\w.-]+)?$/;

function checkHost(host: string, place?: LoginPlace): LoginProblem | null {
  const at = place ? { place } : {};
  if (host === '') return { code: 'login-host-empty', ...at };
  if (host.includes(':') ? !IPV6_RE.test(host) : !HOST_RE.test(host)) return { code: 'login-host-invalid', ...at, host };
  return null;
}

const USER_RE = /^[A-Za-z0-9._][A-Za-z0-9._-]*\$?$/;

/** `user@host`, `user@host:port`, `host:port`, `[v6]:port`. */
function parseAddress(text: string, where: LoginPlace): { user?: string; host: string; port?: number } | LoginProblem {
  let rest = text;
  let user: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at !== -1) {
    user = rest.slice(0, at);
    rest = rest.slice(at + 1);
    if (user.includes(':')) return { code: 'login-password-inside' };
    if (!USER_RE.test(user)) return { code: 'login-user-invalid', place: where, user };
  }
  let host = rest;
  let port: number | undefined;
  const v6 = /^\[([^\]]*)\](?::(.*))?$/.exec(rest);
  if (v6) {
    host = v6[1]!;
    if (v6[2] !== undefined) {
      const p = parsePort(v6[2], where);
      if (isProblem(p)) return p;
      port = p;
    }
  } else if ((rest.match(/:/g) ?? []).length === 1) {
    const [h, p] = rest.split(':') as [string, string];
    host = h;
    const parsed = parsePort(p, where);
    if (isProblem(parsed)) return parsed;
    port = parsed;
  }
  return checkHost(host, where) ?? { user, host, port };
}

function fromUrl(text: string): Internal {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail({ code: 'login-url-invalid', text });
  }
  if (url.password) return fail({ code: 'login-password-inside' });
  if ((url.pathname && url.pathname !== '/') || url.search || url.hash) return fail({ code: 'login-url-path', text });
  let user: string | undefined;
  try {
    user = url.username ? decodeURIComponent(url.username) : undefined;
  } catch {
    return fail({ code: 'login-url-user-encoding', text });
  }
  if (user !== undefined && !USER_RE.test(user)) return fail({ code: 'login-user-invalid', user });
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const bad = checkHost(host);
  if (bad) return fail(bad);
  let port = 22;
  if (url.port) {
    const p = parsePort(url.port, 'url');
    if (isProblem(p)) return fail(p);
    port = p;
  }
  return { ok: true, target: { host, port, user, identityFiles: [], source: 'url', ignored: [] } };
}

/** The `-o Key=Value` / `-o "Key Value"` options we act on; the rest are listed as ignored. */
function applyOption(opt: string, acc: { port?: number; user?: string; identityFiles: string[]; ignored: string[]; hostName?: string }): LoginProblem | null {
  const m = /^\s*([A-Za-z]+)\s*(?:=|\s)\s*(.*?)\s*$/.exec(opt);
  if (!m) return { code: 'login-option-form', option: opt };
  const key = m[1]!.toLowerCase();
  const value = m[2]!;
  if (key === 'port') {
    const p = parsePort(value, 'option-port');
    if (isProblem(p)) return p;
    acc.port = p;
  } else if (key === 'user') acc.user = value;
  else if (key === 'identityfile') acc.identityFiles.push(value);
  else if (key === 'hostname') acc.hostName = value;
  else acc.ignored.push(`-o ${opt}`);
  return null;
}

function fromSshCommand(words: string[], sshConfig: string | null | undefined): Internal {
  const acc: { port?: number; user?: string; identityFiles: string[]; ignored: string[]; hostName?: string } = { identityFiles: [], ignored: [] };
  let destination: string | undefined;
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--') {
      i++;
      if (destination === undefined && i < words.length) destination = words[i++];
      break;
    }
    if (w.startsWith('-') && w.length > 1) {
      // Bundled flags: -4Cp 12345, -p12345
      for (let j = 1; j < w.length; j++) {
        const f = w[j]!;
        if (FLAGS_WITHOUT_VALUE.has(f)) {
          if (f === 'f' || f === 'N' || f === 'G' || f === 'V') acc.ignored.push(`-${f}`);
          continue;
        }
        if (!FLAGS_WITH_VALUE.has(f)) return fail({ code: 'login-flag-unknown', flag: f });
        let value = w.slice(j + 1);
        if (value === '') {
          if (i + 1 >= words.length) return fail({ code: 'login-flag-value', flag: f });
          value = words[++i]!;
        }
        if (f === 'p') {
          const p = parsePort(value, 'flag-p');
          if (isProblem(p)) return fail(p);
          acc.port = p;
        } else if (f === 'l') acc.user = value;
        else if (f === 'i') acc.identityFiles.push(value);
        else if (f === 'o') {
          const bad = applyOption(value, acc);
          if (bad) return fail(bad);
        } else if (f === 'J') return fail({ code: 'login-jump-host' });
        else acc.ignored.push(`-${f} ${value}`);
        break;
      }
      continue;
    }
    if (destination === undefined) {
      destination = w;
      continue;
    }
    // Anything after the destination that is not an option is a remote command.
    acc.ignored.push(`remote command "${words.slice(i).join(' ')}"`);
    break;
  }
  if (destination === undefined) return fail({ code: 'login-no-host' });

  let base: SshTarget;
  if (destination.startsWith('ssh://')) {
    const r = fromUrl(destination);
    if (!r.ok) return r;
    base = r.target;
    if (acc.port !== undefined && new URL(destination).port === '') base.port = acc.port;
  } else {
    const viaConfig = !destination.includes('@') && !destination.includes(':') ? fromConfig(destination, sshConfig, acc.user) : null;
    if (viaConfig) base = viaConfig;
    else {
      // ssh itself does not take host:port here; a colon means a mistake or IPv6.
      const a = parseAddress(destination.includes(':') && !destination.includes('[') && (destination.match(/:/g) ?? []).length > 1 ? `[${destination}]` : destination, 'login-command');
      if (isProblem(a)) return fail(a);
      base = withConfigDefaults({ host: a.host, port: a.port ?? 22, user: a.user, identityFiles: [], source: 'ssh-command', ignored: [] }, a.port !== undefined || acc.port !== undefined, sshConfig, a.user ?? acc.user);
    }
    if (acc.port !== undefined) base.port = acc.port;
  }
  if (acc.hostName) {
    const bad = checkHost(acc.hostName, 'option-hostname');
    if (bad) return fail(bad);
    base.host = acc.hostName;
  }
  if (base.user === undefined && acc.user !== undefined) base.user = acc.user;
  if (base.user !== undefined && !USER_RE.test(base.user)) return fail({ code: 'login-user-invalid', user: base.user });
  base.identityFiles = [...acc.identityFiles, ...base.identityFiles];
  base.ignored = [...acc.ignored, ...base.ignored];
  base.source = base.source === 'ssh-config' ? 'ssh-config' : 'ssh-command';
  return { ok: true, target: base };
}

/** What ~/.ssh/config says for `host` as typed (OpenSSH: the first value per keyword wins, Host patterns, `Host *`); null without a config. */
function computeConfig(host: string, sshConfig: string | null | undefined, user?: string): Record<string, string | string[]> | null {
  if (!sshConfig) return null;
  try {
    const config = parseSshConfig(sshConfig);
    return (user !== undefined ? config.compute({ Host: host, User: user }) : config.compute(host)) as Record<string, string | string[]>;
  } catch {
    return null; // an unreadable config is treated as absent, like a plain host name
  }
}

const firstOf = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** IdentityFile values with the tokens ssh expands in them that we can know here (%d home, %h, %r, %u, %%). */
function identityFilesOf(computed: Record<string, string | string[]>, host: string, user: string | undefined): string[] {
  const ids = computed['IdentityFile'];
  const list = ids === undefined ? [] : Array.isArray(ids) ? ids : [ids];
  return list
    .filter((f) => f.toLowerCase() !== 'none')
    .map((f) => f.replace(/%([%dhru])/g, (m, t: string) => (t === '%' ? '%' : t === 'd' ? '~' : t === 'h' ? host : user !== undefined ? user : m)));
}

/**
 * A login typed as user@host (pasted `ssh -p P user@host`, or user@host[:port]) with what
 * ~/.ssh/config says for that host, as OpenSSH takes it: what was typed wins (user, port), the
 * config fills the rest (HostName, User, Port unless `portGiven`), and its IdentityFiles come after
 * any -i. ProxyJump/ProxyCommand are not followed (said in `ignored`).
 */
function withConfigDefaults(base: SshTarget, portGiven: boolean, sshConfig: string | null | undefined, user: string | undefined): SshTarget {
  const computed = computeConfig(base.host, sshConfig, user);
  if (!computed) return base;
  const hostName = firstOf(computed['HostName']);
  if (hostName !== undefined) {
    const h = hostName.replace(/%h/g, base.host);
    if (!checkHost(h)) base.host = h;
  }
  const portText = firstOf(computed['Port']);
  if (!portGiven && portText !== undefined) {
    const port = parsePort(portText, 'config');
    if (!isProblem(port)) base.port = port;
  }
  const cfgUser = firstOf(computed['User']);
  if (base.user === undefined && user === undefined && cfgUser !== undefined && USER_RE.test(cfgUser)) base.user = cfgUser;
  base.identityFiles = [...base.identityFiles, ...identityFilesOf(computed, base.host, base.user ?? user)];
  for (const k of ['ProxyJump', 'ProxyCommand']) {
    const v = firstOf(computed[k]);
    if (v !== undefined && v.toLowerCase() !== 'none') base.ignored.push(`${k} from ~/.ssh/config (not followed: gpu-rent connects directly)`);
  }
  return base;
}

/** A Host alias in ~/.ssh/config, or null when the config says nothing specific about it. */
function fromConfig(alias: string, sshConfig: string | null | undefined, typedUser?: string): SshTarget | null {
  const computed = computeConfig(alias, sshConfig, typedUser);
  if (!computed) return null;
  const hostName = firstOf(computed['HostName']);
  const portText = firstOf(computed['Port']);
  const user = typedUser ?? firstOf(computed['User']);
  const identityFiles = identityFilesOf(computed, alias, user);
  if (hostName === undefined && portText === undefined && user === undefined && identityFiles.length === 0) return null;
  const host = (hostName ?? alias).replace(/%h/g, alias);
  if (checkHost(host)) return null;
  const port = portText !== undefined ? parsePort(portText, 'config') : 22;
  if (isProblem(port)) return null;
  const ignored: string[] = [];
  for (const k of ['ProxyJump', 'ProxyCommand']) {
    const v = firstOf(computed[k]);
    if (v !== undefined && v.toLowerCase() !== 'none') ignored.push(`${k} from ~/.ssh/config (not followed: gpu-rent connects directly)`);
  }
  return { host, port, user, identityFiles, alias, source: 'ssh-config', ignored };
}

/** Parses any accepted form; never throws. A failure carries its code (`reason`) and its English (`problem`). */
export function tryParseTarget(input: string, opts: ParseTargetOptions = {}): TargetParse {
  const r = parseAny(input, opts);
  return r.ok ? r : { ok: false, problem: loginProblemEnglish(r.reason), reason: r.reason };
}

function parseAny(input: string, opts: ParseTargetOptions): Internal {
  if (typeof input !== 'string') return fail({ code: 'login-not-text' });
  // A pasted console block may carry several lines (command, then password): use the ssh line.
  const lines = input.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const sshLine = lines.find((l) => /^(\$\s*)?ssh\s/.test(l));
  const text = (sshLine ?? lines[0] ?? '').replace(/^\$\s*/, '');
  if (text === '') return fail({ code: 'login-empty' });
  if (/[\0\x01-\x08\x0b-\x1f\x7f]/.test(text)) return fail({ code: 'login-control-chars' });
  if (text.startsWith('ssh://')) return fromUrl(text);
  if (/^ssh\s/.test(text)) {
    const t = tokenize(text);
    if (!t.ok) return t;
    return fromSshCommand(t.words, opts.sshConfig);
  }
  if (/\s/.test(text)) return fail({ code: 'login-not-a-target', text });
  if (!text.includes('@') && !text.includes(':')) {
    const c = fromConfig(text, opts.sshConfig);
    if (c) return { ok: true, target: c };
  }
  const a = parseAddress(text, 'target');
  if (isProblem(a)) return fail(a);
  return { ok: true, target: withConfigDefaults({ host: a.host, port: a.port ?? 22, user: a.user, identityFiles: [], source: 'address', ignored: [] }, a.port !== undefined, opts.sshConfig, a.user) };
}

/** Parses a target or throws RemoteError('bad-target') naming the problem. */
export function parseTarget(input: string, opts: ParseTargetOptions = {}): SshTarget {
  const r = tryParseTarget(input, opts);
  if (!r.ok) throw new RemoteError('bad-target', r.problem, { detail: { login: r.reason } });
  return r.target;
}

/** How OpenSSH names the host in known_hosts: `host` on port 22, else `[host]:port`. */
export function knownHostsName(host: string, port: number): string {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

/** A short label for messages: `root@host:port`. */
export function describeTarget(t: SshTarget): string {
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return `${t.user ? `${t.user}@` : ''}${host}:${t.port}`;
}

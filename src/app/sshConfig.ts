// ~/.ssh/config for both front ends: read it (the extension's gpuRent.connection.sshConfigPath
// overrides where), list its Host aliases, and write our Host block for Remote-SSH. ssh takes
// the first value it finds for each option, so our block goes BEFORE the first `Host *` or
// `Match all` block (else its settings would win); our earlier block for the same alias is
// replaced. Every value is checked (no newline can start a new directive) and the file is
// replaced atomically, with the previous one kept as config.gpu-rent.bak.
import { readFileSync } from 'node:fs';
import { chmod, lstat, mkdir, readFile, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseSshConfig } from 'ssh-config';

export const BACKUP_SUFFIX = '.gpu-rent.bak';

export interface SshConfigLocation {
  /** An explicit file (the extension's gpuRent.connection.sshConfigPath); empty means the default. */
  path?: string | undefined;
  /** $HOME comes from here (default process.env), then os.homedir(). */
  env?: NodeJS.ProcessEnv;
}

/** Where the config is: the override, else $HOME/.ssh/config. */
export function sshConfigPath(loc: SshConfigLocation = {}): string {
  if (loc.path) return loc.path;
  const env = loc.env ?? process.env;
  return join(env.HOME || homedir(), '.ssh', 'config');
}

/** The config text, or null when there is none (or it cannot be read). */
export async function readSshConfig(loc: SshConfigLocation = {}): Promise<string | null> {
  try {
    return await readFile(sshConfigPath(loc), 'utf8');
  } catch {
    return null;
  }
}

/** readSshConfig for synchronous callers (the CLI's TARGET parsing). */
export function readSshConfigSync(loc: SshConfigLocation = {}): string | null {
  try {
    return readFileSync(sshConfigPath(loc), 'utf8');
  } catch {
    return null;
  }
}

/** The Host aliases a user can connect to by name: no wildcards or negations, each once, in file order. */
export function listSshHosts(text: string | null): string[] {
  if (!text) return [];
  const out: string[] = [];
  try {
    for (const line of parseSshConfig(text)) {
      const l = line as { param?: string; value?: unknown };
      if (l.param?.toLowerCase() !== 'host') continue;
      const values = Array.isArray(l.value) ? l.value.map((v: { val?: string } | string) => (typeof v === 'string' ? v : (v.val ?? ''))) : [String(l.value)];
      for (const v of values.flatMap((x) => x.split(/\s+/))) if (v && !/[*?!]/.test(v) && !out.includes(v)) out.push(v);
    }
  } catch {
    return [];
  }
  return out;
}

export interface HostBlock {
  /** The name after `Host` (ours: gpu-rent-<platform>-<id>). */
  alias: string;
  hostName: string;
  port: number;
  user: string;
  /** IdentityFile; with it, IdentitiesOnly yes. */
  identityFile?: string | undefined;
  /** ServerAliveInterval (default 15). */
  serverAliveIntervalSeconds?: number;
}

export type SshConfigField = 'alias' | 'hostName' | 'port' | 'user' | 'identityFile' | 'serverAliveIntervalSeconds';

/** A value that cannot go into ~/.ssh/config as it is. Nothing was written. */
export class SshConfigValueError extends Error {
  constructor(
    readonly field: SshConfigField,
    readonly problem: 'controlCharacter' | 'quote' | 'empty' | 'notAllowed' | 'outOfRange',
  ) {
    const what = { alias: 'Host alias', hostName: 'HostName', port: 'Port', user: 'User', identityFile: 'IdentityFile (key path)', serverAliveIntervalSeconds: 'ServerAliveInterval' }[field];
    const why = {
      controlCharacter: 'contains a newline or another control character',
      quote: 'contains a double quote, which ssh config cannot escape',
      empty: 'is empty',
      notAllowed: 'contains characters ssh would read as something else',
      outOfRange: 'is out of range',
    }[problem];
    super(`${what} ${why}: refusing to write it into the ssh config`);
    this.name = 'SshConfigValueError';
  }
}

function checked(field: SshConfigField, v: string): string {
  if (v === '') throw new SshConfigValueError(field, 'empty');
  if (/[\u0000-\u001f\u007f\u0085\u2028\u2029]/.test(v)) throw new SshConfigValueError(field, 'controlCharacter');
  if (v.includes('"')) throw new SshConfigValueError(field, 'quote');
  return v;
}

/** Quoted when it has spaces (ssh splits on them), else as is. */
const word = (v: string): string => (/[\s'#=]/.test(v) ? `"${v}"` : v);

function identityFileValue(raw: string): string {
  let v = checked('identityFile', raw);
  // A Windows path: ssh for Windows takes forward slashes, and "\\" would be read as one backslash.
  if (/^[A-Za-z]:\\/.test(v) || v.startsWith('\\\\')) v = v.replace(/\\/g, '/');
  else if (v.includes('\\')) throw new SshConfigValueError('identityFile', 'notAllowed');
  // ${VAR} is expanded by ssh; %x are tokens (a literal % is written %%).
  if (v.includes('${')) throw new SshConfigValueError('identityFile', 'notAllowed');
  return word(v.replace(/%/g, '%%'));
}

const begin = (alias: string) => `# >>> ${alias} (managed by GPU Rent)`;
const end = (alias: string) => `# <<< ${alias}`;

/** Our block (between markers), every value checked. Throws SshConfigValueError. */
export function renderHostBlock(b: HostBlock, eol = '\n'): string {
  const alias = checked('alias', b.alias);
  if (!/^[A-Za-z0-9._-]+$/.test(alias)) throw new SshConfigValueError('alias', 'notAllowed');
  const host = checked('hostName', b.hostName);
  if (!/^[A-Za-z0-9._:-]+$/.test(host)) throw new SshConfigValueError('hostName', 'notAllowed');
  if (!Number.isInteger(b.port) || b.port < 1 || b.port > 65535) throw new SshConfigValueError('port', 'outOfRange');
  const user = checked('user', b.user);
  if (user.includes('%') || /\s/.test(user)) throw new SshConfigValueError('user', 'notAllowed');
  const alive = b.serverAliveIntervalSeconds ?? 15;
  if (!Number.isInteger(alive) || alive < 0 || alive > 86400) throw new SshConfigValueError('serverAliveIntervalSeconds', 'outOfRange');
  const lines = [begin(alias), `Host ${alias}`, `  HostName ${host}`, `  Port ${b.port}`, `  User ${user}`, `  ServerAliveInterval ${alive}`];
  if (b.identityFile !== undefined) lines.push(`  IdentityFile ${identityFileValue(b.identityFile)}`, '  IdentitiesOnly yes');
  lines.push(end(alias));
  return lines.join(eol) + eol;
}

/** Is this line the start of a block that applies to every host (`Host *`, `Match all`)? */
function isCatchAll(line: string): boolean {
  const m = /^\s*(host|match)\s*(?:=\s*|\s)\s*(.*?)\s*(?:#.*)?$/i.exec(line);
  if (!m) return false;
  const words = m[2]!.split(/\s+/).map((w) => w.replace(/^"(.*)"$/, '$1'));
  if (m[1]!.toLowerCase() === 'host') return words.includes('*');
  // `Match all`, also after `canonical` or `final`.
  const lower = words.map((w) => w.toLowerCase());
  return lower[lower.length - 1] === 'all' && lower.slice(0, -1).every((w) => w === 'canonical' || w === 'final');
}

/**
 * The config with our block for `b.alias` in place: earlier copies of it removed, the new one
 * before the first catch-all block (and the comment lines right above it), else at the end.
 * Everything else is kept byte for byte. Throws SshConfigValueError.
 */
export function upsertHostBlock(config: string, b: HostBlock): string {
  const eol = config.includes('\r\n') ? '\r\n' : '\n';
  const block = renderHostBlock(b, eol);
  const lines = config.split('\n');
  const startMark = begin(b.alias);
  const endMark = end(b.alias);
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.replace(/\r$/, '') === startMark) {
      const stop = lines.findIndex((l, j) => j > i && l.replace(/\r$/, '') === endMark);
      if (stop !== -1) {
        i = stop;
        continue;
      }
    }
    kept.push(lines[i]!);
  }
  const catchAll = kept.findIndex(isCatchAll);
  if (catchAll === -1) {
    const text = kept.join('\n');
    const sep = text === '' || text.endsWith(eol + eol) ? '' : text.endsWith('\n') ? eol : eol + eol;
    return text + sep + block;
  }
  let at = catchAll;
  while (at > 0 && /^\s*#/.test(kept[at - 1]!)) at--;
  const before = kept.slice(0, at).join('\n');
  const after = kept.slice(at).join('\n');
  const lead = before === '' ? '' : before.endsWith('\n') ? '' : '\n';
  const gap = before === '' || /\n\r?\n$/.test(before + lead) ? '' : eol;
  return before + lead + gap + block + eol + after;
}

import { writeFileAtomic, type WriteSteps } from './atomicWrite';

export type { WriteSteps };

export interface HostBlockWritten {
  /** The file written (a linked config is written where the link points). */
  path: string;
  alias: string;
  /** The previous file's copy; null when there was none or nothing changed. */
  backupPath: string | null;
  /** False when the file already said exactly this (nothing was written). */
  changed: boolean;
}

/**
 * Writes our block for `b.alias` into the ssh config: checked, placed before `Host *`,
 * replacing our earlier block, through a temporary file in the same folder that is synced and
 * renamed over the old one (its mode kept, 0600 for a new file); the old file is kept as
 * config.gpu-rent.bak first. A failure at any step leaves the old file as it was.
 */
export async function writeHostBlock(b: HostBlock, loc: SshConfigLocation & { steps?: Partial<WriteSteps> } = {}): Promise<HostBlockWritten> {
  renderHostBlock(b); // refuse bad values before touching anything
  let path = sshConfigPath(loc);
  // A config linked from a dotfiles folder stays a link: write the file it points to.
  if ((await lstat(path).catch(() => undefined))?.isSymbolicLink()) path = await realpath(path);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const old = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  const next = upsertHostBlock(old ?? '', b);
  if (old === next) return { path, alias: b.alias, backupPath: null, changed: false };
  const mode = old === null ? 0o600 : (await stat(path)).mode & 0o777;
  let backupPath: string | null = null;
  if (old !== null) {
    backupPath = path + BACKUP_SUFFIX;
    await writeFileAtomic(backupPath, old, { mode: 0o600 });
    await chmod(backupPath, 0o600);
  }
  await writeFileAtomic(path, next, { mode, ...(loc.steps ? { steps: loc.steps } : {}) });
  return { path, alias: b.alias, backupPath, changed: true };
}

// One field of a task file at a time: its limits, the checks of a duration, a yuan amount, a
// command, a path (here or on the box), an ssh login and a card, each with the words its error
// shows. The task and file schemas (shape.ts) are built from these.
import { z } from 'zod';
import { cardSpecs, findCard, normalizeCardName } from '../cards';
import { asMessage, said } from './problems';
import { hasGitComponent } from '../gitNames';
import { parseStoreRef } from '../storage/names';

/** A task file larger than this is refused unread (a real one is a few hundred bytes). */
export const MAX_TASK_FILE_BYTES = 256 * 1024;
export const MAX_TASKS = 32;
/** A command line (run, resume, a setup step, a data fetch). */
export const MAX_COMMAND = 16 * 1024;
export const MAX_NAME = 64;
/** A path, local or on the box. */
export const MAX_PATH = 4096;
/** YAML aliases expanded when the document becomes values (yaml's maxAliasCount; a billion-laughs file needs thousands). */
export const MAX_ALIASES = 100;
/** Flow collections nested deeper than this are refused before the (recursive) YAML composer sees them. */
export const MAX_NESTING = 64;
/**
 * List items and mapping keys in the whole file (32 full tasks are well under 2,000): yaml takes
 * ~1.5 s to build a 120,000-item flow list and checks duplicate keys pairwise, so a file with more
 * is refused before it is built.
 */
export const MAX_ENTRIES = 4096;
export const MAX_ERRORS = 50;
export const MAX_LIST = 64;
export const MAX_ENV_VARS = 256;

export const DEFAULT_CHECKPOINT_EVERY_SECONDS = 600;
export const MIN_CHECKPOINT_EVERY_SECONDS = 30;
export const DEFAULT_SMOKE_STEPS = 20;
export const DEFAULT_SMOKE_SECONDS = 300;
export const DEFAULT_RECLAIM_AFTER_SECONDS = 120;
export const MAX_NODES = 16;
export const MIN_RECLAIM_AFTER_SECONDS = 10;
/** The longest duration a task file may give: a year. */
const MAX_DURATION_SECONDS = 366 * 24 * 3600;

export const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const DURATION_RE = /^(?:(\d{1,6})h)?(?:(\d{1,7})m)?(?:(\d{1,9})s)?$/;
// Control characters (the point is to find them).
export const CONTROL_RE = /[\u0000-\u001f\u007f]/;
export const CONTROLS_RE = /[\u0000-\u001f\u007f]/g;
// A command may hold tabs and newlines, never NUL or other controls.
const COMMAND_CONTROL_RE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
/** The ssh logins an `instance` may be: `ssh [-p N] [-i KEY] user@host [-p N]`, `user@host[:port]`, `ssh://user@host[:port]`. */
const SSH_CMD_RE = /^ssh(?:\s+-p\s*(\d{1,5}))?\s+([A-Za-z0-9_][A-Za-z0-9._-]{0,63})@([A-Za-z0-9][A-Za-z0-9.-]{0,252})(?:\s+-p\s*(\d{1,5}))?$/;
const SSH_URL_RE = /^ssh:\/\/([A-Za-z0-9_][A-Za-z0-9._-]{0,63})@([A-Za-z0-9][A-Za-z0-9.-]{0,252})(?::(\d{1,5}))?\/?$/;
const SSH_AT_RE = /^([A-Za-z0-9_][A-Za-z0-9._-]{0,63})@([A-Za-z0-9][A-Za-z0-9.-]{0,252})(?::(\d{1,5}))?$/;

/** "90s", "10m", "1h30m", "2h" or a bare number of seconds → whole seconds; undefined when it is none of those. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') {
    return Number.isInteger(text) && text >= 0 && text <= MAX_DURATION_SECONDS ? text : undefined;
  }
  if (typeof text !== 'string' || text.length > 32) return undefined;
  const t = text.trim().toLowerCase();
  if (t === '') return undefined;
  if (/^\d{1,9}$/.test(t)) return parseDuration(Number(t));
  const m = DURATION_RE.exec(t);
  if (!m || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) return undefined;
  const seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  return seconds <= MAX_DURATION_SECONDS ? seconds : undefined;
}

/** A key file a task's login may name with -i: ~/… or a plain path, no spaces, quotes or `$`. */
const KEY_PATH_RE = /^(?:~\/)?[A-Za-z0-9._/-]{1,200}$/;
const USER_AT_HOST_RE = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}@[A-Za-z0-9][A-Za-z0-9.-]{0,252}$/;

/** `ssh` with -p PORT and -i KEY (each as its own word or joined, `-p2222`) around one user@host. */
function isSshCommandWithKey(login: string): boolean {
  const words = login.split(/\s+/);
  if (words[0] !== 'ssh') return false;
  let dest = 0;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const flag = /^-([pi])(.*)$/.exec(w);
    if (flag) {
      const value = flag[2] !== '' ? flag[2]! : words[++i];
      if (value === undefined) return false;
      if (flag[1] === 'p' && !(/^\d{1,5}$/.test(value) && Number(value) >= 1 && Number(value) <= 65535)) return false;
      if (flag[1] === 'i' && (!KEY_PATH_RE.test(value) || value.split('/').includes('..'))) return false;
      continue;
    }
    if (!USER_AT_HOST_RE.test(w)) return false;
    dest++;
  }
  return dest === 1;
}

/** Whether `login` is one of the ssh login forms `instance` accepts (port 1–65535; `-i KEY` too). */
export function isSshLogin(login: string): boolean {
  if (login.length > 400) return false;
  if (/^ssh\s/.test(login) && /\s-i/.test(login)) return isSshCommandWithKey(login);
  const m = SSH_CMD_RE.exec(login) ?? SSH_URL_RE.exec(login);
  const at = m ? undefined : SSH_AT_RE.exec(login);
  if (!m && !at) return false;
  const port = m ? (login.startsWith('ssh://') ? m[3] : (m[1] ?? m[4])) : at![3];
  if (port === undefined) return true;
  const n = Number(port);
  return Number.isInteger(n) && n >= 1 && n <= 65535;
}

/** Looks like an ssh login (so a malformed one is reported as such, not taken for an instance name). */
export function looksLikeSsh(s: string): boolean {
  return s.startsWith('ssh ') || s.startsWith('ssh://') || s.includes('@');
}

function twoDecimals(v: number): boolean {
  return Math.abs(v * 100 - Math.round(v * 100)) < 1e-6;
}

/** Shows a value the user wrote inside a message: quoted, and cut so a huge value cannot make a huge message. */
export function shown(v: unknown): string {
  const s = typeof v === 'string' ? v : String(v);
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
}

export const yuan = (what: string, max: number) =>
  z
    .number(said({ code: 'not-yuan', what }))
    .gt(0, said({ code: 'yuan-not-positive', what }))
    .max(max, said({ code: 'yuan-too-large', what, max }))
    .refine(twoDecimals, said({ code: 'yuan-decimals', what }));

export const duration = (min: number) =>
  z
    .union([z.int(said({ code: 'not-duration' })).nonnegative(said({ code: 'not-duration' })), z.string().max(32, said({ code: 'not-duration' })).regex(/^(\d+h)?(\d+m)?(\d+s)?$/, said({ code: 'not-duration' }))], said({ code: 'not-duration' }))
    .refine((v) => parseDuration(v) !== undefined, said({ code: 'duration-too-long' }))
    .refine((v) => (parseDuration(v) ?? min) >= min, said({ code: 'duration-too-short', min }));

export const command = (what: string) =>
  z
    .string(said({ code: 'not-command', what }))
    .min(1, said({ code: 'empty', what }))
    .max(MAX_COMMAND, said({ code: 'longer-kib', what, kib: MAX_COMMAND / 1024 }))
    .refine((s) => s.trim() !== '', said({ code: 'empty', what }))
    .refine((s) => !COMMAND_CONTROL_RE.test(s), said({ code: 'control-char', what }));

/**
 * Whether a local path stays inside the task file's folder: relative, and no `..` that climbs
 * out of it. A cloned repository's task file decides these paths, and the box's files are
 * written to the checkpoint folder: neither may reach ~/.ssh or anything else outside the repo.
 */
export function staysInside(p: string): boolean {
  if (p.startsWith('/') || p.startsWith('~') || p.startsWith('\\') || /^[A-Za-z]:/.test(p)) return false;
  let depth = 0;
  for (const part of p.split(/[/\\]/)) {
    if (part === '..') depth--;
    else if (part !== '' && part !== '.') depth++;
    if (depth < 0) return false;
  }
  return true;
}

export const localPath = (what: string) =>
  z
    .string(said({ code: 'not-path', what }))
    .min(1, said({ code: 'empty', what }))
    .max(MAX_PATH, said({ code: 'longer-chars', what, max: MAX_PATH }))
    .refine((s) => !CONTROL_RE.test(s), said({ code: 'control-char', what }))
    .refine(staysInside, said({ code: 'path-outside', what }))
    .refine((s) => !hasGitComponent(s), said({ code: 'path-in-git', what }));

/** A cloud resource id (vSwitch, security group, VPC, subnet) of the task's create: optional. */
export const cloudId = (what: string) =>
  z
    .string(said({ code: 'not-string', what }))
    .min(1, said({ code: 'empty', what }))
    .max(MAX_NAME, said({ code: 'at-most-chars', what, max: MAX_NAME }))
    .regex(/^[\w.-]+$/, said({ code: 'bad-id-chars', what }))
    .optional();

/**
 * The create's SSH public key: a .pub file, relative to the task file or ~/…. Where it leads
 * (inside the user's home) and whether it is a public key are checked where the launch reads it.
 */
export const publicKeyPath = (what: string) =>
  z
    .string(said({ code: 'not-path', what }))
    .min(1, said({ code: 'empty', what }))
    .max(MAX_PATH, said({ code: 'longer-chars', what, max: MAX_PATH }))
    .refine((s) => !CONTROL_RE.test(s), said({ code: 'control-char', what }))
    .refine((s) => /\.pub$/.test(s) && !/^~[^/]/.test(s), said({ code: 'not-public-key-path' }));

/** A path on the box: absolute or ~/…, or (relativeOk) relative to the remote workdir; never `..`, never control characters. */
function remotePathProblem(p: string, relativeOk: boolean): 'control-char' | 'box-path-dotdot' | 'box-path-relative' | 'box-path-tilde-user' | undefined {
  if (CONTROL_RE.test(p)) return 'control-char';
  if (p.split('/').includes('..')) return 'box-path-dotdot';
  if (!relativeOk && !(p.startsWith('/') || p.startsWith('~/'))) return 'box-path-relative';
  if (p.startsWith('~') && !p.startsWith('~/') && p !== '~') return 'box-path-tilde-user';
  return undefined;
}
/** A store and prefix, `NAME/PREFIX` (gpu-rent storage list names the stores): core/storage/names.ts checks it. */
export const storeRef = (what: string) =>
  z
    .string(said({ code: 'not-string', what }))
    .max(600, said({ code: 'longer-chars', what, max: 600 }))
    .superRefine((s, ctx) => {
      const r = parseStoreRef(s);
      if (!r.ok || (r.value.prefix === '' && what !== 'data.from')) ctx.addIssue({ code: 'custom', message: asMessage({ code: 'bad-store-ref', what, ref: JSON.stringify(s.slice(0, 80)) }), input: s });
    });

export const remotePath = (what: string, relativeOk: boolean) =>
  z
    .string(said({ code: 'not-box-path', what }))
    .min(1, said({ code: 'empty', what }))
    .max(MAX_PATH, said({ code: 'longer-chars', what, max: MAX_PATH }))
    .superRefine((p, ctx) => {
      const problem = remotePathProblem(p, relativeOk);
      if (problem) ctx.addIssue({ code: 'custom', message: asMessage({ code: problem, what }), input: p });
    });

export const commandList = (what: string) =>
  z.union([command(what), z.array(command(what)).max(MAX_LIST, said({ code: 'too-many', of: 'commands', max: MAX_LIST, what }))], said({ code: 'not-command-list', what }));

function cardProblem(v: string | number): string | undefined {
  if (findCard(String(v))) return undefined;
  const norm = normalizeCardName(String(v).slice(0, 64));
  const near = [...cardSpecs]
    .map((c) => ({ id: c.id, d: Math.min(editDistance(norm, normalizeCardName(c.id)), ...c.aliases.map((a) => editDistance(norm, normalizeCardName(a)))) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, 5)
    .map((c) => c.id);
  return asMessage({ code: 'unknown-card', card: shown(v), near });
}

export const card = z
  .union([z.string().max(MAX_NAME, said({ code: 'not-card' })), z.number()], said({ code: 'not-card' }))
  .superRefine((v, ctx) => {
    const problem = cardProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: v });
  })
  .meta({ title: 'Card', description: 'A card id or alias: 4090, rtx4090, 3090, a100-80g, h100, l20, 910b …' });

/** Levenshtein distance, for "did you mean"; both strings are short (keys). */
export function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Math.abs(a.length - b.length) + 64;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

// SHA-256 on the box: of whole files (batched), and of a file's first N bytes (to check that
// a local `.part` really is a prefix before resuming it). Uses `openssl dgst`, else
// sha256sum, else `shasum -a 256`; where none exists the answer is null and callers fall
// back to comparing sizes. Output is one tagged line per request so file names never need
// parsing.
import { shQuote } from '../shell';

export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

// OpenSSL first: it uses the CPU's SHA extensions (about 6× coreutils' sha256sum here), which
// matters when the box hashes a checkpoint while we pull it. Probed, not assumed to work.
const PRELUDE =
  "if printf '' | openssl dgst -sha256 -r >/dev/null 2>&1; then H='openssl dgst -sha256 -r'; " +
  "elif command -v sha256sum >/dev/null 2>&1; then H=sha256sum; elif command -v shasum >/dev/null 2>&1; then H='shasum -a 256'; else echo none; exit 0; fi; " +
  'h() { r=$($H < "$1") && echo "h ${r%% *}" || echo "h x"; }; ' +
  'p() { r=$(head -c "$2" < "$1" | $H) && echo "p ${r%% *}" || echo "p x"; }; ';

export interface HashRequest {
  path: string;
  /** Also hash the first `prefix` bytes. */
  prefix?: number;
}

export interface HashAnswer {
  /** null: the box has no SHA-256 tool; undefined: the file could not be read. */
  full: string | null | undefined;
  prefix: string | null | undefined;
}

export function hashScript(req: HashRequest): string {
  let body = PRELUDE;
  if (req.prefix !== undefined) body += `p ${shQuote(req.path)} ${Math.floor(req.prefix)}; `;
  body += `h ${shQuote(req.path)}`;
  // Run under sh whatever the login shell is (fish, csh and friends read this differently).
  return `/bin/sh -c ${shQuote(body)}`;
}

/** A SHA-256 as the box's tools print it: 64 lowercase hex digits. */
export const HEX64 = /^[0-9a-f]{64}$/;

export function parseHashOutput(stdout: string, req: HashRequest): HashAnswer {
  const lines = stdout.split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines[0] === 'none') return { full: null, prefix: req.prefix === undefined ? undefined : null };
  const pick = (tag: 'h' | 'p'): string | undefined => {
    const line = lines.find((l) => l.startsWith(`${tag} `));
    const value = line?.slice(2).toLowerCase();
    return value && HEX64.test(value) ? value : undefined;
  };
  return { full: pick('h'), prefix: req.prefix === undefined ? undefined : pick('p') };
}

/** The box's clock, whole seconds, for judging whether a file has settled. */
export const REMOTE_NOW = 'date +%s';

export function parseRemoteNow(stdout: string): number | undefined {
  const n = Number(stdout.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

// The tool runs once over every file of a batch (a process per file cost ~5 ms each: 100 s
// for 20,000 files); where that fails (a file unreadable) or gives a line count other than
// the file count, each file is hashed alone. Names never contain a newline or a backslash
// (the listing refuses them), so each file is exactly one line; only its first word is read,
// by one sed over all lines: a shell `while read` loop read them a byte per system call
// (2000 files: 0.5 s of the box's CPU in sh, more than rsync's whole box side).
const MANY = 'o=$($H "$@" 2>/dev/null) && [ "$(printf "%s\\n" "$o" | wc -l)" -eq $# ] && printf "%s\\n" "$o" | sed -e \'s/ .*//\' -e \'s/^/h /\' || for f in "$@"; do h "$f"; done';

/** Script text hashing the files in "$@" (one `h` line each, in order; `none` without a tool), to end a script with. */
export const HASH_ARGS = `${PRELUDE}${MANY}`;

/** One script hashing many whole files: one `h` line per path, in order. */
export function batchHashScript(paths: readonly string[]): string {
  if (paths.length === 0) return '/bin/sh -c true';
  return `/bin/sh -c ${shQuote(`set -- ${paths.map(shQuote).join(' ')}; ${OPENSSL_FIRST}{ ${PRELUDE}${MANY}; }`)}`;
}

// A batch tries openssl over all its files straight away, without PRELUDE's probe (one more
// openssl run per batch: half of the box's openssl starts in a 2000-file pull). Where that
// fails or miscounts (no openssl, an unreadable file), the batch runs as before: probe, tool
// over all files, else file by file.
const OPENSSL_FIRST = 'o=$(openssl dgst -sha256 -r "$@" 2>/dev/null) && [ "$(printf "%s\\n" "$o" | wc -l)" -eq $# ] && printf "%s\\n" "$o" | sed -e \'s/ .*//\' -e \'s/^/h /\' || ';

/** Answers for a batch, in request order; a box without tools answers null for all. */
export function parseBatchHashOutput(stdout: string, count: number): Array<string | null | undefined> {
  const lines = stdout.split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines[0] === 'none') return Array.from({ length: count }, () => null);
  const hs = lines.filter((l) => l.startsWith('h '));
  // A short or garbled answer proves nothing about any file in it.
  if (hs.length !== count) return Array.from({ length: count }, () => undefined);
  return hs.map((l) => {
    const v = l.slice(2).toLowerCase();
    return HEX64.test(v) ? v : undefined;
  });
}

/**
 * A file's identity on the box, to prove it was not written while we read it without reading
 * it a second time there: its type and mode, device, inode, size, modification and change
 * times in nanoseconds (GNU stat), and the box's clock. Any write changes the change time
 * (ctime), which no user can set back; a file whose ctime is at least IDENTITY_MIN_AGE_S old
 * when first looked at gets a different one from any write after that, however coarse the
 * file system's clock. Where stat cannot say (BusyBox, BSD), the answer is undefined and the
 * box hashes the file instead.
 */
export interface BoxIdentity {
  mode: number;
  dev: string;
  ino: string;
  size: number;
  /** "seconds.nanoseconds", compared as text. */
  mtime: string;
  ctime: string;
  /** The box's clock, whole seconds. */
  now: number;
}

export const IDENTITY_MIN_AGE_S = 2;

/** The look itself, on "$1": what parseIdentity reads. */
const IDENTITY_LOOK = 'stat -c "%f %d %i %s %.9Y %.9Z" -- "$1" && date +%s';

export function identityScript(path: string): string {
  return `/bin/sh -c ${shQuote(IDENTITY_LOOK)} sh ${shQuote(path)}`;
}

/**
 * The same look, made ready ahead: the shell waits for a line on stdin before it looks, so the
 * channel and the shell are up before the last byte arrives and the look costs one round trip
 * after it. Its stdin ending without a line: no look, exit 1.
 */
export function armedIdentityScript(path: string): string {
  return `/bin/sh -c ${shQuote(`IFS= read -r _ || exit 1; ${IDENTITY_LOOK}`)} sh ${shQuote(path)}`;
}

const IDENTITY_RE = /^([0-9a-f]{1,8}) (\d{1,20}) (\d{1,20}) (\d{1,16}) (\d{1,12}\.\d{9}) (\d{1,12}\.\d{9})\n(\d{1,12})\n?$/;

export function parseIdentity(stdout: string): BoxIdentity | undefined {
  const m = IDENTITY_RE.exec(stdout);
  if (!m) return undefined;
  const size = Number(m[4]);
  const now = Number(m[7]);
  if (!Number.isSafeInteger(size) || !Number.isSafeInteger(now)) return undefined;
  return { mode: parseInt(m[1]!, 16), dev: m[2]!, ino: m[3]!, size, mtime: m[5]!, ctime: m[6]!, now };
}

/** Whether two looks at a file saw the same version of the same regular file. */
export function sameIdentity(a: BoxIdentity, b: BoxIdentity): boolean {
  return a.mode === b.mode && a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtime === b.mtime && a.ctime === b.ctime;
}

/** Whether a first look can stand in for the box's hash: a regular file of the listed size and mtime, last changed long enough ago. */
export function identityUsable(id: BoxIdentity, listed: { size: number; mtime: number }): boolean {
  const isFile = (id.mode & 0o170000) === 0o100000;
  const ctimeS = Number(id.ctime.split('.')[0]);
  return isFile && id.size === listed.size && Number(id.mtime.split('.')[0]) === listed.mtime && ctimeS <= id.now - IDENTITY_MIN_AGE_S;
}

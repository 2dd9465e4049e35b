// The box's version of a file whose local copy the user changed is not put over it: it is
// saved beside it as "notes (box copy 2020-03-01).md" (the date is the box file's mtime, UTC),
// with ", 2", ", 3"… where that name is taken. The name keeps the extension, so the copy opens
// like the original; it is made with an exclusive create or link, so nothing is replaced.
import { closeSync, linkSync, openSync, renameSync, rmSync, unlinkSync } from 'node:fs';

const MAX_NAME_BYTES = 255;
const TRIES = 1000;

/** "2020-03-01" for a Unix time in seconds; "unknown date" for a time no date can show. */
function dayOf(mtime: number): string {
  const d = new Date(mtime * 1000);
  return Number.isFinite(d.getTime()) ? d.toISOString().slice(0, 10) : 'unknown date';
}

/** Splits "model.tar.gz" into "model" and ".tar.gz", "notes.md" into "notes" and ".md"; ".bashrc" has no extension. */
function splitExtension(name: string): [string, string] {
  const tar = /\.tar\.[a-z0-9]{1,4}$/i.exec(name);
  const m = tar && tar.index > 0 ? tar : /\.[^.]{1,16}$/.exec(name);
  if (!m || m.index === 0) return [name, ''];
  return [name.slice(0, m.index), name.slice(m.index)];
}

/** Cuts `s` to at most `bytes` UTF-8 bytes without splitting a character. */
function cutToBytes(s: string, bytes: number): string {
  let out = '';
  let n = 0;
  for (const ch of s) {
    n += Buffer.byteLength(ch);
    if (n > bytes) break;
    out += ch;
  }
  return out;
}

/** The `n`th candidate name (1, 2, …) for the box's copy of `rel` (a "/"-separated relative path). */
export function boxCopyName(rel: string, mtime: number, n = 1): string {
  const slash = rel.lastIndexOf('/');
  const dir = slash === -1 ? '' : rel.slice(0, slash + 1);
  const [stem, ext] = splitExtension(rel.slice(slash + 1));
  const tag = ` (box copy ${dayOf(mtime)}${n > 1 ? `, ${n}` : ''})`;
  const room = MAX_NAME_BYTES - Buffer.byteLength(tag) - Buffer.byteLength(ext);
  return `${dir}${cutToBytes(stem, Math.max(1, room))}${tag}${ext}`;
}

const code = (e: unknown) => (e as NodeJS.ErrnoException).code;

/**
 * Moves the verified `part` to the first free box-copy name beside `rel`, never replacing
 * anything, never taking a name the box's listing has (`taken`, lower-cased). Returns the
 * name used, relative.
 */
export function saveBeside(part: string, rel: string, mtime: number, pathOf: (rel: string) => string, taken: ReadonlySet<string>): string {
  for (let n = 1; n <= TRIES; n++) {
    const name = boxCopyName(rel, mtime, n);
    if (taken.has(name.toLowerCase())) continue;
    const path = pathOf(name);
    let linked = false;
    try {
      linkSync(part, path); // fails on a name that exists: nothing is replaced
      linked = true;
    } catch (e) {
      if (code(e) === 'EEXIST') continue;
    }
    if (linked) {
      // Outside the try: a failed unlink must not send the loop on to link the part again.
      unlinkSync(part);
      return name;
    }
    // A disk without hard links (FAT, some network shares): claim the name, then move onto it.
    try {
      closeSync(openSync(path, 'wx'));
    } catch (e2) {
      if (code(e2) === 'EEXIST') continue;
      throw e2;
    }
    try {
      renameSync(part, path);
    } catch (e3) {
      rmSync(path, { force: true }); // the empty placeholder, not a file of the user's
      throw e3;
    }
    return name;
  }
  throw new Error(`no free name beside ${rel} for the box's copy`);
}

/**
 * Puts a verified `part` at `local` only if nothing is there (a new file): a hard link fails
 * on a name that exists, so a file the user created meanwhile is never replaced. False when
 * something is there. Where the disk has no hard links, a check and a rename.
 */
export function publishNew(part: string, local: string, exists: () => boolean): boolean {
  try {
    linkSync(part, local);
  } catch (e) {
    if (code(e) === 'EEXIST') return false;
    if (exists()) return false;
    renameSync(part, local);
    return true;
  }
  unlinkSync(part);
  return true;
}

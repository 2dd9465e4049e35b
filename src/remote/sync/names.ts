// Which remote names may become local files. The rented box is not trusted: a compromised or
// shared instance can send any bytes as a "file name", so every path component is checked
// before it is joined to the local folder. Returns a reason code (words belong to the CLI).

import { isGitDirName } from '../../core/gitNames';

export type SkipReason =
  | 'empty-name'
  | 'dot-segment' // "." or ".." as a component, e.g. "a/../../b"
  | 'absolute-path'
  | 'separator-in-name' // "/" inside one component (a server listing "../../.bashrc")
  | 'backslash'
  | 'nul'
  | 'control-char' // newline, tab, escape…
  | 'not-utf8' // the server's bytes did not decode: the name we hold is not the file's
  | 'device-name' // CON, NUL, AUX, COM1… (Windows opens the device, not a file)
  | 'windows-reserved-char' // < > : " | ? * (local Windows only)
  | 'trailing-dot-or-space' // Windows strips them: "a." and "a" would be one file
  | 'too-long'
  | 'reserved-name' // our own ".part" files and state file
  | 'git-dir' // ".git" (any case, ".git.", "git~1"…) from the box: its config would run commands here
  | 'case-collision' // "A.pt" and "a.pt" on a case-insensitive local disk
  | 'symlink-outside' // a link that resolves outside the synced folder
  | 'symlink-dangling'
  | 'symlink-to-directory'
  | 'special-file' // fifo, socket, device node
  | 'unreadable' // permission denied or vanished while listing/reading
  | 'still-being-written' // modified within the settle time
  | 'changed-during-download'
  | 'verify-failed' // SHA-256 or size did not match the box twice
  | 'local-conflict' // a local folder (or link) sits where the file would go
  | 'local-modified' // --delete kept a file changed locally since it was synced
  | 'remote-empty-no-delete' // --delete refused: the remote folder is empty
  | 'remote-swapped'; // after listing, the path became a link or another file: not pulled

export const PART_SUFFIX = '.part';
export const STATE_FILE = '.gpu-rent-sync.json';
/** Where a synced file's earlier version goes when the box's newer one replaces it (a hidden folder no loader reads). */
export const PREVIOUS_DIR = '.gpu-rent-previous';

const DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$/i;
const WINDOWS_RESERVED = /[<>:"|?*]/;
// C0 controls and DEL; C1 controls too (terminal escapes when a name is printed).
const CONTROL = /[\x01-\x1f\x7f\u0080-\u009f]/;

export interface NameRules {
  /** The local platform: 'win32' adds Windows' reserved characters. Device names are refused everywhere. */
  platform: NodeJS.Platform | string;
}

/** Checks one path component as the server sent it. */
export function checkComponent(name: string, rules: NameRules): SkipReason | undefined {
  if (name.length === 0) return 'empty-name';
  if (name.includes('\0')) return 'nul';
  if (name === '.' || name === '..') return 'dot-segment';
  if (name.includes('/')) {
    if (name.startsWith('/')) return 'absolute-path';
    if (name.split('/').some((p) => p === '..' || p === '.')) return 'dot-segment';
    return 'separator-in-name';
  }
  if (name.includes('\\')) return 'backslash';
  if (name.includes('\uFFFD')) return 'not-utf8';
  if (CONTROL.test(name)) return 'control-char';
  if (DEVICE.test(name)) return 'device-name';
  if (/[. ]$/.test(name)) return 'trailing-dot-or-space';
  if (Buffer.byteLength(name, 'utf8') > 255) return 'too-long';
  if (rules.platform === 'win32' && WINDOWS_RESERVED.test(name)) return 'windows-reserved-char';
  if (name.endsWith(PART_SUFFIX)) return 'reserved-name';
  return undefined;
}

/**
 * Checks one component of a name the box sent before it is written here: every rule above, and
 * never `.git` in any spelling git, Windows or macOS reads as `.git` (a box folder holding
 * `.git/config` with core.fsmonitor would run a command at the next `git status`).
 */
export function checkPulledComponent(name: string, rules: NameRules): SkipReason | undefined {
  if (name.length > 0 && !name.includes('/') && isGitDirName(name)) return 'git-dir';
  return checkComponent(name, rules);
}

/**
 * Checks a relative path given as text ("ckpt/epoch-3.pt"), e.g. from a state file or a
 * caller. Absolute paths, "..", backslashes and every per-component rule are refused.
 */
export function checkRelativePath(path: string, rules: NameRules): SkipReason | undefined {
  if (path.length === 0) return 'empty-name';
  if (path.includes('\0')) return 'nul';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'absolute-path';
  if (path.includes('\\')) return 'backslash';
  const parts = path.split('/');
  for (const part of parts) {
    const reason = checkComponent(part, rules);
    if (reason) return reason;
  }
  if (path === STATE_FILE || parts[0] === PREVIOUS_DIR) return 'reserved-name';
  return undefined;
}

/** True when the local disk compares names without case (Windows, macOS by default). */
export function caseInsensitivePlatform(platform: string): boolean {
  return platform === 'win32' || platform === 'darwin';
}

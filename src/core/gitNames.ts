// Names git reads as its own folder. A file the box sends (a sync), a folder a task file names, or
// a folder chosen for a sync that lands in `.git` can plant a config whose core.fsmonitor or hooks
// run on this computer at the next `git status` (VS Code runs one by itself). Git itself refuses
// these spellings in a tree (verify_path): case folded, Windows' trailing dots and spaces and NTFS
// streams (`.git::$INDEX_ALLOCATION`), its 8.3 short name `git~1`, and the code points HFS+ ignores
// (`.g\u200cit`). Pure.

const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** True when one path component is `.git` as git, Windows or macOS would read it. */
export function isGitDirName(name: string): boolean {
  let n = name.replace(HFS_IGNORABLE, '').toLowerCase();
  const colon = n.indexOf(':');
  if (colon >= 0) n = n.slice(0, colon);
  n = n.replace(/[. ]+$/, '');
  return n === '.git' || n === 'git~1';
}

/** True when any component of `path` ('/' or '\\' separated) is such a name. */
export function hasGitComponent(path: string): boolean {
  return path.split(/[\\/]/).some((part) => part !== '' && isGitDirName(part));
}

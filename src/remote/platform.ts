// Where a platform keeps the user's data. AutoDL's system disk is small and goes with the
// image; its data disk is mounted at /root/autodl-tmp, so jobs and checkpoints go there. A user
// can name another folder with GPU_RENT_DATA_DIR in the box's ~/.profile.
import { shQuote } from './shell';

export interface DataDirCandidate {
  path: string;
  platform: string;
}

export const DATA_DIR_CANDIDATES: readonly DataDirCandidate[] = [{ path: '/root/autodl-tmp', platform: 'AutoDL' }];

export type DataDirSource = 'env' | 'platform' | 'home';

export interface DataDir {
  path: string;
  source: DataDirSource;
  platform?: string;
}

/**
 * POSIX sh that prints `SOURCE<TAB>PATH` for the data folder: $GPU_RENT_DATA_DIR when it is a
 * directory, else the first platform data disk that exists, else $HOME.
 */
export function dataDirScript(candidates: readonly DataDirCandidate[] = DATA_DIR_CANDIDATES): string {
  const checks = candidates.map((c) => `elif [ -d ${shQuote(c.path)} ] && [ -w ${shQuote(c.path)} ]; then printf 'platform\\t%s\\n' ${shQuote(c.path)}`).join('; ');
  return `if [ -n "\${GPU_RENT_DATA_DIR:-}" ] && [ -d "$GPU_RENT_DATA_DIR" ]; then printf 'env\\t%s\\n' "$GPU_RENT_DATA_DIR"; ${checks ? checks + '; ' : ''}else printf 'home\\t%s\\n' "$HOME"; fi`;
}

/** Reads dataDirScript's line; falls back to home when the line is missing or odd. */
export function parseDataDir(line: string, home: string, candidates: readonly DataDirCandidate[] = DATA_DIR_CANDIDATES): DataDir {
  const m = /^(env|platform|home)\t(.+)$/m.exec(line);
  if (!m) return { path: home, source: 'home' };
  const source = m[1] as DataDirSource;
  const path = m[2]!;
  const platform = candidates.find((c) => c.path === path)?.platform;
  return { path, source, ...(platform && source === 'platform' ? { platform } : {}) };
}

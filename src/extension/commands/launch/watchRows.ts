// Launches in progress that this window does not drive (started by `gpu-rent launch` in a
// terminal, or before VS Code restarted): their rows in the Instances view, from the state files
// of the workspace's task file, read every few seconds. A launch the CLI left half way (killed,
// the laptop asleep) keeps its row: its run may still bill on the box. Continue picks it up.
import { isFinished, launchStatus } from '../../../app/launch/run';
import { readTaskFile } from '../../../app/launch/taskFile';
import { configHome } from '../../../app/platforms/accountFile';
import type { LaunchState } from '../../../core/task/launch';

export const WATCH_ROWS_MS = 5000;

export interface LaunchRows {
  setLaunch(key: string, state: LaunchState | undefined): void;
}

/** Reads the workspace's launches once: rows for those in progress, none for the rest. Returns the keys shown. */
export async function refreshLaunchRows(tree: LaunchRows, folder: string | undefined, shown: ReadonlySet<string>, home = configHome(process.env)): Promise<Set<string>> {
  const now = new Set<string>();
  const r = folder ? await readTaskFile(folder) : undefined;
  if (r?.ok) {
    for (const t of r.tasks) {
      const st = await launchStatus(home, r.file, t.name).catch(() => undefined);
      const key = `${r.file}#${t.name}`;
      if (st && !isFinished(st)) {
        tree.setLaunch(key, st);
        now.add(key);
      }
    }
  }
  for (const key of shown) if (!now.has(key)) tree.setLaunch(key, undefined);
  return now;
}

/** Keeps the rows fresh while the extension runs; disposed with it. `folder`: the first workspace folder now. */
export function watchLaunchRows(tree: LaunchRows, folder: () => string | undefined): { dispose(): void } {
  let shown = new Set<string>();
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    void refreshLaunchRows(tree, folder(), shown)
      .then((s) => (shown = s), () => undefined)
      .finally(() => (busy = false));
  };
  tick();
  const timer = setInterval(tick, WATCH_ROWS_MS);
  return { dispose: () => clearInterval(timer) };
}

// Launches in progress that this window does not drive (started by `gpu-rent launch` in a
// terminal, or before VS Code restarted): their rows in the Instances view, from the state files
// of the workspace's task file, read every few seconds. A launch the CLI left half way (killed,
// the laptop asleep) keeps its row: its run may still bill on the box. Continue picks it up.
// The rows are the LaunchRows model (app/launch/rows.ts); the tree listens to it.
import { isFinished, launchStatus } from '../../../app/launch/run';
import { readTaskFile } from '../../../app/launch/taskFile';
import { configHome } from '../../../app/platforms/accountFile';
import type { LaunchRows as LaunchRowsModel } from '../../../app/launch/rows';

export const WATCH_ROWS_MS = 5000;

export type LaunchRows = Pick<LaunchRowsModel, 'setLaunch'>;

/**
 * Reads the workspace's launches once: rows for those in progress, none for the rest; a row is
 * redrawn only when its state file changed. Returns what is shown (key → the state's updatedAt).
 */
export async function refreshLaunchRows(rows: LaunchRows, folder: string | undefined, shown: ReadonlyMap<string, number>, home = configHome(process.env)): Promise<Map<string, number>> {
  const now = new Map<string, number>();
  const r = folder ? await readTaskFile(folder) : undefined;
  if (r?.ok) {
    for (const t of r.tasks) {
      const st = await launchStatus(home, r.file, t.name).catch(() => undefined);
      const key = `${r.file}#${t.name}`;
      if (st && !isFinished(st)) {
        if (shown.get(key) !== st.updatedAt) rows.setLaunch(key, st);
        now.set(key, st.updatedAt);
      }
    }
  }
  for (const key of shown.keys()) if (!now.has(key)) rows.setLaunch(key, undefined);
  return now;
}

/** Keeps the rows fresh while the extension runs; disposed with it. `folder`: the first workspace folder now. */
export function watchLaunchRows(rows: LaunchRows, folder: () => string | undefined): { dispose(): void } {
  let shown = new Map<string, number>();
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    void refreshLaunchRows(rows, folder(), shown)
      .then((s) => (shown = s), () => undefined)
      .finally(() => (busy = false));
  };
  tick();
  const timer = setInterval(tick, WATCH_ROWS_MS);
  return { dispose: () => clearInterval(timer) };
}

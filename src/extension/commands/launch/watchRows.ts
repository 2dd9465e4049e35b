// Launches in progress that this window does not drive (started by `gpu-rent launch` in a
// terminal, or before VS Code restarted): their rows in the Instances view, from the state files
// of the workspace's task file, read every few seconds. A launch the CLI left half way (killed,
// the laptop asleep) keeps its row: its run may still bill on the box. Continue picks it up.
// The rows are the LaunchRows model (app/launch/rows.ts); the tree listens to it.
// Close the lid: for a launch whose box has a supervisor, what the box says (app/launch/away.ts)
// is read at once and every AWAY_READ_MS, shown beside the row, and a run the box ended while
// the laptop was away is announced once (the caller remembers which).
import type { AwayRead, BoxView } from '../../../app/launch/away';
import { isFinished, launchStatus } from '../../../app/launch/run';
import type { LaunchState } from '../../../core/task/launch';
import type { Task } from '../../../core/task/types';
import { combinations, memberName } from '../../../core/task/sweep';
import { readTaskFile } from '../../../app/launch/taskFile';
import { configHome } from '../../../app/platforms/accountFile';
import type { LaunchRows as LaunchRowsModel } from '../../../app/launch/rows';

export const WATCH_ROWS_MS = 5000;

export type LaunchRows = Pick<LaunchRowsModel, 'setLaunch'> & Partial<Pick<LaunchRowsModel, 'setAway'>>;

/** How often the box of a launch in progress is asked what its supervisor did. */
export const AWAY_READ_MS = 120_000;

export interface AwayWatch {
  read(st: LaunchState, task: Task): Promise<AwayRead>;
  /** The box ended the run while no window drove it: said once per run attempt by the caller. */
  ended(key: string, st: LaunchState, view: BoxView): void;
  everyMs?: number;
  /** key → when it was last asked (ms); keys being read now are in `reading`. */
  lastRead: Map<string, number>;
  reading: Set<string>;
}

/**
 * Reads the workspace's launches once: rows for those in progress, none for the rest; a row is
 * redrawn only when its state file changed. Returns what is shown (key → the state's updatedAt).
 */
export async function refreshLaunchRows(rows: LaunchRows, folder: string | undefined, shown: ReadonlyMap<string, number>, home = configHome(process.env), away?: AwayWatch): Promise<Map<string, number>> {
  const now = new Map<string, number>();
  const r = folder ? await readTaskFile(folder) : undefined;
  if (r?.ok) {
    // A sweep's runs are launches of their own (lora-1 … lora-N, app/launch/sweep.ts): a row each.
    const names = r.tasks.flatMap((t) => (t.sweep ? combinations(t.sweep.matrix).map((_, i) => ({ name: memberName(t.name, i + 1), task: t })) : [{ name: t.name, task: t }]));
    for (const { name, task: t } of names) {
      const st = await launchStatus(home, r.file, name).catch(() => undefined);
      const key = `${r.file}#${name}`;
      if (st && !isFinished(st)) {
        if (shown.get(key) !== st.updatedAt) rows.setLaunch(key, st);
        now.set(key, st.updatedAt);
        if (away) askTheBox(rows, away, key, st, t);
      }
    }
  }
  for (const key of shown.keys()) if (!now.has(key)) rows.setLaunch(key, undefined);
  return now;
}

/** In the background (a box may take seconds to answer): the row's box view, and the end announced. */
function askTheBox(rows: LaunchRows, away: AwayWatch, key: string, st: LaunchState, task: Task): void {
  const armed = !!st.unattended && !!st.job && (st.phase === 'watch' || st.phase === 'run' || st.phase === 'end');
  const last = away.lastRead.get(key);
  if (!armed || away.reading.has(key) || (last !== undefined && Date.now() - last < (away.everyMs ?? AWAY_READ_MS))) return;
  away.reading.add(key);
  away.lastRead.set(key, Date.now());
  void away
    .read(st, task)
    .then(
      (r) => {
        if (r.kind !== 'read') return;
        rows.setAway?.(key, r.view);
        if (r.view.outcome) away.ended(key, st, r.view);
      },
      () => undefined,
    )
    .finally(() => away.reading.delete(key));
}

/** Keeps the rows fresh while the extension runs; disposed with it. `folder`: the first workspace folder now. */
export function watchLaunchRows(rows: LaunchRows, folder: () => string | undefined, away?: Omit<AwayWatch, 'lastRead' | 'reading'>): { dispose(): void } {
  let shown = new Map<string, number>();
  let busy = false;
  const watch: AwayWatch | undefined = away && { ...away, lastRead: new Map(), reading: new Set() };
  const tick = () => {
    if (busy) return;
    busy = true;
    void refreshLaunchRows(rows, folder(), shown, configHome(process.env), watch)
      .then((s) => (shown = s), () => undefined)
      .finally(() => (busy = false));
  };
  tick();
  const timer = setInterval(tick, WATCH_ROWS_MS);
  return { dispose: () => clearInterval(timer) };
}

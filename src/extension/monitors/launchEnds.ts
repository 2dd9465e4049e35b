// A launch that just ended (or just left a box: powered off, released, reclaimed) changed what the
// platform bills: the instances are read again at once instead of at the next poll, so the tree
// never shows "running ¥1.98/h" for a minute after the launch's own power-off (issue 41 bug 9).
import type { LaunchRows } from '../../app/launch/rows';
import { boxIsInstance } from '../../app/releaseCheck';
import type { Instance } from '../../core/instances';
import { currentState } from '../../core/spend';
import type { LaunchBox, LaunchState } from '../../core/task/launch';

const ENDED = new Set<LaunchState['phase']>(['done', 'stopped', 'failed']);

/** How many boxes a state has left (their leftAt set): a new one means a box was given up, powered off or released. */
function leftBoxes(s: LaunchState): number {
  return [...s.boxes, ...(s.box ? [s.box] : []), ...(s.nodes ?? [])].filter((b) => b.leftAt !== undefined).length;
}

/** Whether the step from `prev` to `next` ended the launch, ran its end action, or left a box. */
export function launchChangedBilling(prev: LaunchState | undefined, next: LaunchState | undefined): boolean {
  if (!next) return false;
  if (ENDED.has(next.phase) && (!prev || !ENDED.has(prev.phase))) return true;
  if (next.end && (!prev?.end || prev.end.action !== next.end.action || prev.end.ok !== next.end.ok)) return true;
  return leftBoxes(next) > (prev ? leftBoxes(prev) : 0);
}

/**
 * The SSH boxes (no platform to ask) the launch's end just powered off, verified (its end action
 * power-off reported done): their stored instances are recorded stopped now, as a platform poll
 * would for a platform box.
 */
export function boxesPoweredOff(prev: LaunchState | undefined, next: LaunchState | undefined): LaunchBox[] {
  if (!next?.end || next.end.action !== 'power-off' || !next.end.ok || next.end.stillBilling) return [];
  if (prev?.end && prev.end.ok && prev.end.action === next.end.action) return [];
  return [...(next.box ? [next.box] : []), ...(next.nodes ?? [])].filter((b) => b.kind === 'ssh');
}

/** The stored manual instances (not linked to an account) that are these boxes and still recorded as running. */
export function instancesToStop(boxes: readonly LaunchBox[], instances: readonly Instance[]): Instance[] {
  return instances.filter((i) => !i.platformRef && ['running', 'spot', 'noGpu'].includes(currentState(i.intervals) ?? '') && boxes.some((b) => boxIsInstance(b, i)));
}

/** Calls `onChange` whenever a launch row's change moved billing (see launchChangedBilling), with the SSH boxes its end powered off. */
export function followLaunchEnds(rows: Pick<LaunchRows, 'onDidChange' | 'get'>, onChange: (poweredOff: LaunchBox[]) => void): { dispose(): void } {
  const last = new Map<string, LaunchState>();
  return rows.onDidChange((c) => {
    const next = rows.get(c.key);
    const prev = last.get(c.key);
    if (next) last.set(c.key, next);
    else last.delete(c.key);
    // The first sight of a row already ended (an old launch shown again) is not a change.
    if (prev && launchChangedBilling(prev, next)) onChange(boxesPoweredOff(prev, next));
  });
}

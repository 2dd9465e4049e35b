// A launch's state as it is kept on disk (one JSON file per task, written atomically by
// app/launch/store.ts) and the decisions made from it: which step comes next, what the boxes
// cost so far, whether the budget covers another step, whether a run must stop. Pure: the
// app layer does the I/O and asks these functions.
import { z } from 'zod';
import type { Fen } from '../money';

export const LAUNCH_STEPS = ['acquire', 'check', 'push', 'setup', 'run', 'watch', 'end'] as const;
export type LaunchStep = (typeof LAUNCH_STEPS)[number];
/** Where a launch is: a step in progress, or how it ended. */
export type LaunchPhase = LaunchStep | 'done' | 'stopped' | 'failed';

/**
 * How a launch ended: finished (the run exited 0), smoke (the small test reached its steps or
 * minutes), budget (the cap stopped it), doctor (the GPU check was red: nothing paid for hours),
 * runFailed (the run exited non-zero), failed (a step could not be done: see detail),
 * noBox (no candidate could be had).
 */
export type LaunchOutcome = 'finished' | 'smoke' | 'budget' | 'doctor' | 'runFailed' | 'failed' | 'noBox';

const fen = z.number().int().min(0).max(1e12);
const time = z.number().min(0).max(1e11);
const text = (max: number) => z.string().max(max);

export const BoxSchema = z.strictObject({
  /** Index into the task's instances (its candidates). */
  candidate: z.number().int().min(0).max(1000),
  kind: z.enum(['ssh', 'platform']),
  /** What the user reads: the login (host:port) or the platform name and id. */
  label: text(300),
  /** ssh: the login as the task gives it; platform: the account and the instance id. */
  login: text(2000).optional(),
  account: text(200).optional(),
  ref: text(200).optional(),
  /** A created instance (the launch made it: a release is its own to offer). */
  created: z.boolean().optional(),
  priceFenPerHour: fen.nullable(),
  spot: z.boolean(),
  acquiredAt: time,
  /** When it was left: reclaimed, released, or the launch moved on. */
  leftAt: time.optional(),
  leftBecause: z.enum(['reclaimed', 'ended', 'failed']).optional(),
});
export type LaunchBox = z.infer<typeof BoxSchema>;

export const LaunchStateSchema = z.strictObject({
  version: z.literal(1),
  task: text(64),
  /** The task file (absolute), and a digest of the task as read: a changed task is noticed on resume. */
  file: text(4096),
  taskDigest: text(128),
  smoke: z.boolean(),
  phase: z.enum([...LAUNCH_STEPS, 'done', 'stopped', 'failed']),
  startedAt: time,
  updatedAt: time,
  /** The box in use; earlier ones (reclaimed, failed) in `boxes`. */
  box: BoxSchema.optional(),
  /** A multi-node run's other nodes (rank 1…N-1), beside `box` (rank 0). */
  nodes: z.array(BoxSchema).max(16).optional(),
  boxes: z.array(BoxSchema).max(100),
  recoveries: z.number().int().min(0).max(1000),
  job: z.strictObject({ name: text(64), startedAt: time, resumedFrom: text(4096).optional(), attempt: z.number().int().min(1).max(1000) }).optional(),
  setupDone: z.boolean(),
  lastSync: z.strictObject({ at: time, files: z.number().int().min(0), bytes: z.number().min(0), checkpoint: text(4096).optional() }).optional(),
  progress: z.strictObject({ step: z.number().nullable(), total: z.number().nullable(), etaSeconds: z.number().nullable(), costToFinishFen: fen.nullable(), loss: z.number().nullable() }).optional(),
  end: z.strictObject({ action: text(40), ok: z.boolean(), stillBilling: z.boolean(), detail: text(2000) }).optional(),
  outcome: z.strictObject({ kind: z.enum(['finished', 'smoke', 'budget', 'doctor', 'runFailed', 'failed', 'noBox']), detail: text(2000), exitCode: z.number().int().nullable().optional() }).optional(),
  events: z.array(z.strictObject({ at: time, phase: text(20), text: text(1000) })).max(400),
});
export type LaunchState = z.infer<typeof LaunchStateSchema>;

export const MAX_EVENTS = 200;

export function newLaunchState(o: { task: string; file: string; taskDigest: string; smoke: boolean; now: number }): LaunchState {
  return { version: 1, task: o.task, file: o.file, taskDigest: o.taskDigest, smoke: o.smoke, phase: 'acquire', startedAt: o.now, updatedAt: o.now, boxes: [], recoveries: 0, setupDone: false, events: [] };
}

/** Adds an event (the newest MAX_EVENTS are kept). */
export function withEvent(s: LaunchState, now: number, line: string): LaunchState {
  const events = [...s.events, { at: now, phase: s.phase, text: line.slice(0, 1000) }];
  return { ...s, updatedAt: now, events: events.length > MAX_EVENTS ? events.slice(-MAX_EVENTS) : events };
}

/** What one box cost from its acquisition until it was left (or now); null when its price is not known. */
export function boxCostFen(b: LaunchBox, now: number): Fen | null {
  if (b.priceFenPerHour === null) return null;
  const end = b.leftAt ?? now;
  return Math.round((b.priceFenPerHour * Math.max(0, end - b.acquiredAt)) / 3600);
}

/** Every box this launch held, the current one to `now`; `unknown` when a box's price is not known (its part is left out). */
export function spentFen(s: LaunchState, now: number): { fen: Fen; unknown: boolean } {
  let total = 0;
  let unknown = false;
  for (const b of [...s.boxes, ...(s.box ? [s.box] : []), ...(s.nodes ?? [])]) {
    const c = boxCostFen(b, now);
    if (c === null) unknown = true;
    else total += c;
  }
  return { fen: total, unknown };
}

/** The least a step may have left in the budget before it starts: this many seconds at the current burn. */
export const STEP_RESERVE_SECONDS = 600;

export type BudgetCheck = { ok: true } | { ok: false; reason: 'spent' | 'reserve' | 'projected' | 'noPrice'; spentFen: Fen; capFen: Fen; needFen?: Fen };

/**
 * Whether the budget covers the next step: what is spent plus STEP_RESERVE_SECONDS at the
 * current burn (or, while running, plus the cost to finish when the ETA is known) within the cap.
 * A cap with a box whose price is unknown cannot be kept: `noPrice`.
 */
export function checkBudget(s: LaunchState, capFen: Fen | undefined, now: number, o: { burnFenPerHour: Fen | null; costToFinishFen?: Fen | null }): BudgetCheck {
  if (capFen === undefined) return { ok: true };
  const spent = spentFen(s, now);
  if (spent.unknown || (s.box && o.burnFenPerHour === null)) return { ok: false, reason: 'noPrice', spentFen: spent.fen, capFen };
  if (spent.fen >= capFen) return { ok: false, reason: 'spent', spentFen: spent.fen, capFen };
  if (o.costToFinishFen !== undefined && o.costToFinishFen !== null) {
    const need = spent.fen + o.costToFinishFen;
    return need > capFen ? { ok: false, reason: 'projected', spentFen: spent.fen, capFen, needFen: need } : { ok: true };
  }
  const reserve = Math.round(((o.burnFenPerHour ?? 0) * STEP_RESERVE_SECONDS) / 3600);
  return spent.fen + reserve > capFen ? { ok: false, reason: 'reserve', spentFen: spent.fen, capFen, needFen: spent.fen + reserve } : { ok: true };
}

/** Whether a smoke run reached its end: the steps (as the log counts them) or the seconds since it started. */
export function smokeReached(smoke: { steps?: number; seconds?: number }, o: { step: number | null; runningSeconds: number }): 'steps' | 'seconds' | null {
  if (smoke.steps !== undefined && o.step !== null && o.step >= smoke.steps) return 'steps';
  if (smoke.seconds !== undefined && o.runningSeconds >= smoke.seconds) return 'seconds';
  return null;
}

/**
 * The next candidate to try after the ones lost (a recovery never goes back to a reclaimed or
 * failed box); a `new` candidate can always make another instance, up to `maxCreates`.
 */
export function nextCandidate(s: LaunchState, kinds: readonly ('new' | 'existing')[], maxCreates = 3): number | null {
  const lost = new Set(s.boxes.filter((b) => b.leftBecause === 'reclaimed' || b.leftBecause === 'failed').map((b) => b.candidate));
  const created = [...s.boxes, ...(s.box ? [s.box] : [])].filter((b) => b.created).length;
  for (let i = 0; i < kinds.length; i++) {
    if (kinds[i] === 'new' ? created < maxCreates : !lost.has(i)) return i;
  }
  return null;
}

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
 * noBox (no candidate could be had), diverged (the training loss was NaN/±Inf at the end, or
 * the divergence stop ended it: the hours since were paid for nothing), refused (the task's end
 * action cannot happen on the box it got: refused before anything ran).
 */
export const LAUNCH_OUTCOMES = ['finished', 'smoke', 'budget', 'doctor', 'runFailed', 'failed', 'noBox', 'diverged', 'refused'] as const;
export type LaunchOutcome = (typeof LAUNCH_OUTCOMES)[number];

const fen = z.number().int().min(0).max(1e12);
const time = z.number().min(0).max(1e11);
const text = (max: number) => z.string().max(max);

/** The most a derived figure (the cost to finish) is kept as: a log's absurd total (1/999999999999 at 0.01 it/s) is over it. */
export const COST_TO_FINISH_CAP_FEN = 1e10;

/** A derived figure the launch computed from a log: kept within `max`, otherwise unknown (null), never a reason to refuse the state. */
export const boundedFigure = (v: number | null | undefined, max: number): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= max ? v : null);

/** Read back tolerant: an out-of-range derived figure in a state written before this bound reads as unknown, not as a broken state. */
const derived = (max: number, int = false) => z.preprocess((v) => (typeof v === 'number' && (!int || Number.isInteger(v)) ? boundedFigure(v, max) : v === undefined ? null : v), z.number().nullable());

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
  /**
   * When it stopped counting: left (released, ended) or, for a platform box left by a reclaim or a
   * failure, when the platform said it stopped. A box in `boxes` without it still bills: its spend
   * goes on counting and no new instance is created beside it.
   */
  leftAt: time.optional(),
  leftBecause: z.enum(['reclaimed', 'ended', 'failed']).optional(),
  /** Started without its GPU for the push and setup (issue 43): priceFenPerHour is the no-GPU rate until it is restarted with the GPU. */
  staged: z.boolean().optional(),
  /** The staging it had, once restarted with the GPU (from acquiredAt on the GPU bills at priceFenPerHour): its seconds and rate. */
  stage: z.strictObject({ seconds: z.number().min(0).max(1e9), fenPerHour: fen.nullable() }).optional(),
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
  progress: z
    .strictObject({
      step: z.number().nullable(),
      total: z.number().nullable(),
      etaSeconds: derived(1e11),
      costToFinishFen: derived(COST_TO_FINISH_CAP_FEN, true),
      loss: z.number().nullable(),
      /** The training loss is NaN/±Inf now (core/progress's Diverged, the run model `gpu-rent jobs` reads). */
      diverged: z.strictObject({ value: z.enum(['nan', 'inf', '-inf']), readings: z.number().int().min(0).max(1e12), since: time, step: z.number().nullable(), lastFiniteLoss: z.number().nullable() }).nullable().optional(),
      /** The run has ended: these are the figures of the log's last lines (no ETA, no cost to finish). */
      final: z.boolean().optional(),
    })
    .optional(),
  end: z.strictObject({ action: text(40), ok: z.boolean(), stillBilling: z.boolean(), detail: text(2000) }).optional(),
  /** The box's supervisor was armed (close the lid): whether it may power the box off itself, and the store prefix it uploads to (NAME/PREFIX/). */
  unattended: z.strictObject({ powerOff: z.boolean(), store: text(700).nullable() }).optional(),
  outcome: z.strictObject({ kind: z.enum(LAUNCH_OUTCOMES), detail: text(2000), exitCode: z.number().int().nullable().optional() }).optional(),
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
  if (b.priceFenPerHour === null || (b.stage && b.stage.fenPerHour === null)) return null;
  const end = b.leftAt ?? now;
  const staging = b.stage ? Math.round((b.stage.fenPerHour! * b.stage.seconds) / 3600) : 0;
  return staging + Math.round((b.priceFenPerHour * Math.max(0, end - b.acquiredAt)) / 3600);
}

/** What staging without the GPU saved on a box: its seconds at the GPU rate less the no-GPU rate (null: a rate not known). */
export function stagingSavedFen(b: LaunchBox): Fen | null {
  if (!b.stage || b.stage.fenPerHour === null || b.priceFenPerHour === null || b.staged) return null;
  return Math.max(0, Math.round(((b.priceFenPerHour - b.stage.fenPerHour) * b.stage.seconds) / 3600));
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
  // No new instance while one this launch created and left still bills (the platform has not said it stopped).
  const createdBilling = stillBillingLeft(s).some((b) => b.created);
  for (let i = 0; i < kinds.length; i++) {
    if (kinds[i] === 'new' ? created < maxCreates && !createdBilling : !lost.has(i)) return i;
  }
  return null;
}

/** The boxes this launch left that still bill: not yet confirmed stopped by their platform. */
export const stillBillingLeft = (s: Pick<LaunchState, 'boxes'>): LaunchBox[] => s.boxes.filter((b) => b.leftAt === undefined);

/**
 * The launch's exit status, the same for `launch` and `launch --resume`: 0 only when it did what
 * the task asked and the end state is the one asked for; 2 an end action refused before anything
 * ran; 3 a rule stopped it (budget, the GPU check) with the end done; 4 the end state is not the
 * one asked for (the end action failed or was not done: a box may STILL BILL); 1 anything else.
 */
export function launchExitCode(s: Pick<LaunchState, 'phase' | 'outcome' | 'end'>): number {
  if (s.outcome?.kind === 'refused') return 2;
  if (s.end && (!s.end.ok || s.end.stillBilling)) return 4;
  if (s.phase === 'done') return 0;
  return s.outcome?.kind === 'budget' || s.outcome?.kind === 'doctor' ? 3 : 1;
}

// One finished run as the ledger keeps it (issue 42 item 2): what ran (task, parameters, commit),
// where (card × GPUs, platform, instance), at what price and from which source, how far it got
// (steps, speed, losses, a bounded curve), why it ended, where its checkpoints are and what it
// cost (fen). Each line of the ledger is one record, checked by this schema when read back: a
// line that fails is skipped and counted, never trusted. Pure: no Node, no clock.
import { z } from 'zod';

/** The curve kept per run: enough for a chart, small enough that a line stays a few KB. */
export const MAX_CURVE_POINTS = 200;
export const LEDGER_VERSION = 1;
const MAX_TEXT = 4096;
const MAX_PARAMS = 64;

const text = (max = MAX_TEXT) => z.string().max(max);
const finite = z.number().finite();
const nonNeg = finite.min(0);
/** Epoch seconds between 2000 and 2200. */
const epoch = finite.min(946_684_800).max(7_258_118_400);

/** [step, loss, seconds since the run's start (null where the log gave no time)]. */
export const CurvePointSchema = z.tuple([nonNeg, finite, nonNeg.nullable()]);
export type CurvePoint = z.infer<typeof CurvePointSchema>;

export const RUN_KINDS = ['launch', 'sweep', 'run', 'start-training'] as const;
export const END_KINDS = ['finished', 'failed', 'stopped', 'lost', 'reclaimed', 'budget', 'unknown'] as const;
export type EndKind = (typeof END_KINDS)[number];

export const RunRecordSchema = z.strictObject({
  v: z.literal(LEDGER_VERSION),
  /** r-YYYYMMDD-HHMMSS-xxxx: sortable, unique enough for one person's runs. */
  id: z.string().regex(/^r-\d{8}-\d{6}-[0-9a-f]{4,16}$/),
  /** What started it. */
  kind: z.enum(RUN_KINDS),
  /** The job's or task's name (a sweep member: the task's name plus its parameters). */
  name: text(200),
  task: z.strictObject({
    file: text().nullable(),
    command: text().nullable(),
    /** A sweep's matrix values for this run ({lr: 3e-4, rank: 16}). */
    params: z.record(text(100), z.union([text(1000), finite, z.boolean()])).refine((p) => Object.keys(p).length <= MAX_PARAMS, `at most ${MAX_PARAMS} parameters`),
  }),
  commit: text(100).nullable(),
  /** Card id from the catalog (rtx4090) or the name nvidia-smi gave where the catalog has none. */
  card: text(100).nullable(),
  gpus: z.number().int().min(1).max(1024).nullable(),
  platform: text(100).nullable(),
  instance: text(200).nullable(),
  price: z.strictObject({
    /** What the instance cost per hour, fen (all its cards). */
    fenPerHour: z.number().int().min(0).max(1e9).nullable(),
    /** Where the price came from: platform (its API), catalog, user (a flag), or null (not known). */
    source: z.enum(['platform', 'catalog', 'user']).nullable(),
  }),
  startedAt: epoch,
  endedAt: epoch,
  steps: z.number().int().min(0).max(1e12).nullable(),
  total: z.number().int().min(0).max(1e12).nullable(),
  stepsPerSecond: finite.positive().max(1e9).nullable(),
  finalLoss: finite.nullable(),
  bestLoss: finite.nullable(),
  curve: z.array(CurvePointSchema).max(MAX_CURVE_POINTS),
  end: z.strictObject({
    kind: z.enum(END_KINDS),
    exitCode: z.number().int().min(-1).max(1000).nullable(),
    /** The cause read from the log's tail (core/progress/causes: cudaOom, diskFull, …). */
    cause: text(40).nullable(),
  }),
  checkpoints: z.strictObject({ box: text().nullable(), local: text().nullable() }),
  /** What the run cost, fen (its hours × the price), null when the price is unknown. */
  costFen: z.number().int().min(0).max(1e12).nullable(),
  /** A launch staged without the GPU (issue 43): the minutes the GPU did not bill for the push and setup, and what that saved. */
  staging: z.strictObject({ seconds: z.number().min(0).max(1e9), fenPerHour: z.number().int().min(0).max(1e9).nullable(), savedFen: z.number().int().min(0).max(1e12).nullable() }).optional(),
}).refine((r) => r.endedAt >= r.startedAt, { message: 'endedAt is before startedAt', path: ['endedAt'] });

export type RunRecord = z.infer<typeof RunRecordSchema>;

/** The record's first problem in words ("curve: at most 200 items"), or null when it is valid. */
export function recordProblem(value: unknown): string | null {
  const r = RunRecordSchema.safeParse(value);
  if (r.success) return null;
  const i = r.error.issues[0]!;
  return `${i.path.join('.') || '(record)'}: ${i.message}`;
}

/**
 * At most `max` points of a curve, oldest first: evenly spaced by index, always keeping the
 * first, the last and the lowest loss (a chart's two ends and its best point survive thinning).
 */
export function downsample<T extends { loss: number }>(points: readonly T[], max = MAX_CURVE_POINTS): T[] {
  const n = points.length;
  const k = Math.max(2, Math.floor(max));
  if (n <= k) return [...points];
  let best = 0;
  for (let i = 1; i < n; i++) if (points[i]!.loss < points[best]!.loss) best = i;
  const keep = new Set<number>();
  for (let j = 0; j < k; j++) keep.add(Math.round((j * (n - 1)) / (k - 1)));
  if (!keep.has(best)) {
    // Replace the kept index nearest the best one (never the ends) so the count stays ≤ max.
    let near = -1;
    for (const i of keep) if (i !== 0 && i !== n - 1 && (near === -1 || Math.abs(i - best) < Math.abs(near - best))) near = i;
    if (near !== -1) keep.delete(near);
    keep.add(best);
  }
  return [...keep].sort((a, b) => a - b).map((i) => points[i]!);
}

/** The id of a run that started at `startedAt` (epoch s), with `hex` random digits. */
export function runId(startedAt: number, hex: string): string {
  const d = new Date(Math.round(startedAt) * 1000).toISOString();
  return `r-${d.slice(0, 10).replace(/-/g, '')}-${d.slice(11, 19).replace(/:/g, '')}-${hex.toLowerCase()}`;
}

/** Cost of `seconds` at `fenPerHour`, whole fen; null without a price. */
export function costOf(seconds: number, fenPerHour: number | null): number | null {
  if (fenPerHour === null || !(seconds >= 0)) return null;
  return Math.round((seconds / 3600) * fenPerHour);
}

/** What a run-ending front end knows; the record is built from it (curve thinned, best loss, speed, cost). */
export interface RunFacts {
  kind: RunRecord['kind'];
  name: string;
  task?: Partial<RunRecord['task']>;
  commit?: string | null;
  card?: string | null;
  gpus?: number | null;
  platform?: string | null;
  instance?: string | null;
  price?: RunRecord['price'];
  startedAt: number;
  endedAt: number;
  steps?: number | null;
  total?: number | null;
  /** The log's own rate where it gave one; else steps over the run's seconds. */
  stepsPerSecond?: number | null;
  /** Loss by step; `at` (epoch s) where known. */
  lossCurve?: readonly { step: number; loss: number; at?: number | null }[];
  finalLoss?: number | null;
  end: RunRecord['end'];
  checkpoints?: Partial<RunRecord['checkpoints']>;
  /** Given where the caller priced it (a launch's budget); else hours × price. */
  costFen?: number | null;
  staging?: RunRecord['staging'];
}

/** A record from what a front end knows at a run's end; `hex` makes the id unique. Throws on facts that break the schema. */
export function buildRecord(f: RunFacts, hex: string): RunRecord {
  const seconds = Math.max(0, f.endedAt - f.startedAt);
  const finitePoints = (f.lossCurve ?? []).filter((p) => Number.isFinite(p.loss) && Number.isFinite(p.step) && p.step >= 0);
  const curve: CurvePoint[] = downsample(finitePoints).map((p) => [p.step, p.loss, p.at != null && Number.isFinite(p.at) ? Math.max(0, Math.round(p.at - f.startedAt)) : null]);
  const best = finitePoints.reduce<number | null>((m, p) => (m === null || p.loss < m ? p.loss : m), null);
  const last = finitePoints.length ? finitePoints[finitePoints.length - 1]!.loss : null;
  const finalLoss = f.finalLoss !== undefined && f.finalLoss !== null && Number.isFinite(f.finalLoss) ? f.finalLoss : last;
  const steps = f.steps ?? null;
  const rate = f.stepsPerSecond && f.stepsPerSecond > 0 ? f.stepsPerSecond : steps && seconds > 0 ? steps / seconds : null;
  const price = f.price ?? { fenPerHour: null, source: null };
  const rec = {
    v: LEDGER_VERSION,
    id: runId(f.startedAt, hex),
    kind: f.kind,
    name: f.name,
    task: { file: f.task?.file ?? null, command: f.task?.command ?? null, params: f.task?.params ?? {} },
    commit: f.commit ?? null,
    card: f.card ?? null,
    gpus: f.gpus ?? null,
    platform: f.platform ?? null,
    instance: f.instance ?? null,
    price,
    startedAt: f.startedAt,
    endedAt: f.endedAt,
    steps,
    total: f.total ?? null,
    stepsPerSecond: rate,
    finalLoss,
    bestLoss: best === null ? finalLoss : finalLoss === null ? best : Math.min(best, finalLoss),
    curve,
    end: f.end,
    checkpoints: { box: f.checkpoints?.box ?? null, local: f.checkpoints?.local ?? null },
    costFen: f.costFen !== undefined && f.costFen !== null ? f.costFen : costOf(seconds, price.fenPerHour),
    ...(f.staging ? { staging: f.staging } : {}),
  };
  const parsed = RunRecordSchema.safeParse(rec);
  if (!parsed.success) throw new Error(`run record: ${recordProblem(rec)}`);
  return parsed.data;
}

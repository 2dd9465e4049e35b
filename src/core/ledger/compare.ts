// Runs side by side (issue 42 item 3) and the job a run did, priced again (item 4). Pure.
import { findCard, type CardSpec } from '../cards';
import type { JobInput } from '../cost';
import { multiGpuSpeedup } from '../perf';
import type { RunRecord } from './record';
import { BOUNDS, withinBound } from '../bounds';

/** The run `ref` names: its whole id, a unique id prefix, or a unique name (newest wins among same names only when exact). */
export function findRun(runs: readonly RunRecord[], ref: string): { run: RunRecord } | { error: 'none' | 'ambiguous'; candidates: string[] } {
  const exact = runs.find((r) => r.id === ref);
  if (exact) return { run: exact };
  const byPrefix = ref.length >= 3 ? runs.filter((r) => r.id.startsWith(ref)) : [];
  if (byPrefix.length === 1) return { run: byPrefix[0]! };
  if (byPrefix.length > 1) return { error: 'ambiguous', candidates: byPrefix.map((r) => r.id) };
  const byName = runs.filter((r) => r.name === ref);
  if (byName.length === 1) return { run: byName[0]! };
  if (byName.length > 1) return { error: 'ambiguous', candidates: byName.map((r) => r.id) };
  return { error: 'none', candidates: [] };
}

export interface CurveRow {
  step: number;
  loss: number;
  /** Hours since the run's start: the log's time where kept, else step ÷ the run's speed; null when neither is known. */
  hours: number | null;
  /** Yuan spent by then: hours × the run's price; null without a price. */
  yuan: number | null;
}

export interface RunSummary {
  id: string;
  name: string;
  card: string | null;
  gpus: number | null;
  platform: string | null;
  startedAt: number;
  seconds: number;
  steps: number | null;
  total: number | null;
  stepsPerSecond: number | null;
  finalLoss: number | null;
  bestLoss: number | null;
  costFen: number | null;
  /** Fen per 1000 steps (cost ÷ steps), null where either is unknown. */
  fenPerKStep: number | null;
  end: RunRecord['end']['kind'];
  /** What started it (a launch, a sweep's run, gpu-rent run …) and a sweep run's matrix values. */
  kind: RunRecord['kind'];
  params: RunRecord['task']['params'];
  /** Staged without the GPU (a launch on a no-GPU start): its minutes and what it saved; absent otherwise. */
  staging?: RunRecord['staging'];
}

export function summary(r: RunRecord): RunSummary {
  const seconds = r.endedAt - r.startedAt;
  return {
    id: r.id,
    name: r.name,
    card: r.card,
    gpus: r.gpus,
    platform: r.platform,
    startedAt: r.startedAt,
    seconds,
    steps: r.steps,
    total: r.total,
    stepsPerSecond: r.stepsPerSecond,
    finalLoss: r.finalLoss,
    bestLoss: r.bestLoss,
    costFen: r.costFen,
    fenPerKStep: r.costFen !== null && r.steps ? Math.round((r.costFen * 1000) / r.steps) : null,
    end: r.end.kind,
    kind: r.kind,
    params: r.task.params,
    ...(r.staging ? { staging: r.staging } : {}),
  };
}

/** The run's loss against step, hours and yuan. */
export function curveOf(r: RunRecord): CurveRow[] {
  const seconds = r.endedAt - r.startedAt;
  const fenPerSecond = r.costFen !== null && seconds > 0 ? r.costFen / seconds : r.price.fenPerHour !== null ? r.price.fenPerHour / 3600 : null;
  return r.curve.map(([step, loss, at]) => {
    const s = at !== null ? at : r.stepsPerSecond ? step / r.stepsPerSecond : null;
    const hours = s === null ? null : Math.round((s / 3600) * 1e6) / 1e6;
    const yuan = s === null || fenPerSecond === null ? null : Math.round(s * fenPerSecond) / 100;
    return { step, loss, hours, yuan };
  });
}

export interface Comparison {
  runs: (RunSummary & { curve: CurveRow[] })[];
  /** Which run is lowest on each figure (ids); null where no run has it. */
  best: { cost: string | null; speed: string | null; duration: string | null; finalLoss: string | null };
}

function lowest(rows: readonly RunSummary[], f: (r: RunSummary) => number | null): string | null {
  let best: RunSummary | null = null;
  for (const r of rows) {
    const v = f(r);
    if (v !== null && (best === null || v < f(best)!)) best = r;
  }
  return best?.id ?? null;
}

export function compareRuns(runs: readonly RunRecord[]): Comparison {
  const rows = runs.map((r) => ({ ...summary(r), curve: curveOf(r) }));
  return {
    runs: rows,
    best: {
      cost: lowest(rows, (r) => r.costFen),
      speed: lowest(rows, (r) => (r.stepsPerSecond === null ? null : -r.stepsPerSecond)),
      duration: lowest(rows, (r) => r.seconds),
      finalLoss: lowest(rows, (r) => r.finalLoss),
    },
  };
}

export type LikeProblem = 'no-card' | 'unknown-card' | 'no-speed' | 'no-steps';

export interface LikeJob {
  /** The job for quoteCatalog: the run's steps at its measured speed, on its card and GPU count. */
  input: Pick<JobInput, 'gpuHours' | 'refCard' | 'gpus' | 'measuredHours'>;
  card: CardSpec;
  gpus: number;
  steps: number;
  stepsPerSecond: number;
  /** Wall hours the whole job takes on the run's card × GPUs at the measured speed. */
  wallHours: number;
}

/**
 * The job run `r` did, to price it anywhere: its total steps (else the steps it reached) at its
 * measured steps per second on its card × GPUs. Hours on one card are the measured wall hours
 * times the multi-GPU speed-up (perf.ts), so the same card and count gets back exactly the
 * measured hours; other cards scale by the catalog's relative speed (quoteCatalog's estimate).
 */
export function likeJob(r: RunRecord, cards: readonly CardSpec[]): LikeJob | { problem: LikeProblem } {
  if (!r.card) return { problem: 'no-card' };
  const card = findCard(r.card, cards);
  if (!card) return { problem: 'unknown-card' };
  if (!r.stepsPerSecond) return { problem: 'no-speed' };
  const steps = r.total ?? r.steps;
  if (!steps) return { problem: 'no-steps' };
  const gpus = r.gpus ?? 1;
  const wallHours = steps / r.stepsPerSecond / 3600;
  const gpuHours = wallHours * multiGpuSpeedup(gpus);
  return { input: { gpuHours, refCard: card.id, gpus, measuredHours: { [card.id]: gpuHours } }, card, gpus, steps, stepsPerSecond: r.stepsPerSecond, wallHours };
}

/** A run as the calculator's From my runs offers it (webview/protocol.ts's MyRun). */
export interface CalculatorRun {
  id: string;
  name: string;
  card: string;
  gpus: number;
  steps: number;
  secondsPerStep: number;
  gpuHours: number;
  endedAt: number;
}

/**
 * The runs the calculator can price, newest first, at most `max`: each one likeJob can read (a
 * known card, a measured speed, steps), as steps × seconds per step that give back its GPU hours
 * on its own card. Runs outside the form's bounds are left out (never clamped into a wrong job).
 */
export function calculatorRuns(runs: readonly RunRecord[], cards: readonly CardSpec[], max = 50): CalculatorRun[] {
  const out: CalculatorRun[] = [];
  const seen = new Set<string>();
  for (const r of [...runs].sort((a, b) => b.endedAt - a.endedAt)) {
    if (out.length >= max) break;
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    const j = likeJob(r, cards);
    if ('problem' in j) continue;
    const secondsPerStep = (j.input.gpuHours * 3600) / j.steps;
    if (!withinBound(j.steps, BOUNDS.steps) || !withinBound(secondsPerStep, BOUNDS.secPerStep) || !withinBound(j.input.gpuHours, BOUNDS.jobHours) || !withinBound(j.gpus, BOUNDS.gpus)) continue;
    out.push({ id: r.id, name: r.name.slice(0, 200), card: j.card.id, gpus: j.gpus, steps: j.steps, secondsPerStep, gpuHours: j.input.gpuHours, endedAt: Math.floor(r.endedAt) });
  }
  return out;
}

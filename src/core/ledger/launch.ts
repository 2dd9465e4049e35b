// A launch's (or a sweep member's) end as ledger facts: what the launch's state knows (task, box,
// price, job start, last progress, outcome) plus what only the driver holds at the end (the
// card, the loss curve from its log tail, the commit, a sweep's parameters, the spend). The
// driver calls `recordRun(home, launchRunFacts(state, extras, now))` once its run has ended;
// null when no job ever ran (no box, the GPU check was red, a refused end action): nothing to record.
import { stagingSavedFen, type LaunchState } from '../task/launch';
import type { RunFacts, RunRecord } from './record';

export interface LaunchExtras {
  kind?: 'launch' | 'sweep';
  card?: string | null;
  gpus?: number | null;
  platform?: string | null;
  commit?: string | null;
  /** A sweep member's matrix values. */
  params?: Record<string, string | number | boolean>;
  command?: string | null;
  lossCurve?: RunFacts['lossCurve'];
  stepsPerSecond?: number | null;
  /** The launch's spend over the run (its budget's figure), fen. */
  costFen?: number | null;
  /** The local folder checkpoints were synced into. */
  checkpointsLocal?: string | null;
  /** When the run ended (epoch s); default the state's last update. */
  endedAt?: number;
  cause?: string | null;
}

const END: Partial<Record<NonNullable<LaunchState['outcome']>['kind'], RunRecord['end']['kind']>> = {
  finished: 'finished',
  smoke: 'finished',
  budget: 'budget',
  runFailed: 'failed',
  diverged: 'failed',
  failed: 'failed',
};

export function launchRunFacts(state: LaunchState, x: LaunchExtras = {}): RunFacts | null {
  if (!state.job) return null;
  const kind = state.outcome?.kind;
  const box = state.box;
  const reclaimed = box?.leftBecause === 'reclaimed';
  const endedAt = Math.max(state.job.startedAt, x.endedAt ?? state.updatedAt);
  return {
    kind: x.kind ?? 'launch',
    name: state.task,
    task: { file: state.file, command: x.command ?? null, params: x.params ?? {} },
    commit: x.commit ?? null,
    card: x.card ?? null,
    gpus: x.gpus ?? (state.nodes?.length ? null : 1),
    platform: x.platform ?? (box?.kind === 'ssh' ? 'ssh' : null),
    instance: box?.label ?? null,
    price: { fenPerHour: box?.priceFenPerHour ?? null, source: box?.priceFenPerHour == null ? null : box.kind === 'platform' ? 'platform' : 'user' },
    startedAt: state.job.startedAt,
    endedAt,
    steps: state.progress?.step != null ? Math.max(0, Math.floor(state.progress.step)) : null,
    total: state.progress?.total != null ? Math.max(0, Math.floor(state.progress.total)) : null,
    stepsPerSecond: x.stepsPerSecond ?? null,
    lossCurve: x.lossCurve ?? [],
    finalLoss: state.progress?.loss ?? null,
    end: { kind: reclaimed ? 'reclaimed' : kind ? (END[kind] ?? 'unknown') : state.phase === 'stopped' ? 'stopped' : 'unknown', exitCode: state.outcome?.exitCode ?? null, cause: x.cause ?? (kind === 'diverged' ? 'diverged' : null) },
    checkpoints: { box: state.lastSync?.checkpoint ?? null, local: x.checkpointsLocal ?? null },
    costFen: x.costFen ?? null,
    ...(box?.stage ? { staging: { seconds: Math.round(box.stage.seconds), fenPerHour: box.stage.fenPerHour, savedFen: stagingSavedFen(box) } } : {}),
  };
}

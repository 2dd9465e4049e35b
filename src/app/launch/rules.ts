// The launch's decisions, pure: no connection, no file, no clock of its own (the caller passes
// `now`). The step modules (acquire, check, upload, setup, start, watch, reclaim, end) ask these
// what to do and then do it; each rule is tested in test/unit/launch-rules.test.ts.
import { posix } from 'node:path';
import { checkpointArgument } from '../../core/checkpoints';
import type { Fen } from '../../core/money';
import type { EndAction, Finish, Progress } from '../../core/progress';
import { checkEndAction, isRefused, type BoxPower } from '../../core/guards/powerOffer';
import type { PlatformKind } from '../../core/platforms/types';
import type { EndRefusalCode } from './words';
import { boundedFigure, COST_TO_FINISH_CAP_FEN, type LaunchBox, type LaunchOutcome, type LaunchPhase, type LaunchState } from '../../core/task/launch';
import type { Task } from '../../core/task/types';
import type { JobInfo } from '../../remote/jobs';
import { ENGLISH, type L10n } from '../../core/l10n';
import { shQuote } from '../../remote/shell';

/** Why the run is ending (the outcome it will have). */
export interface StopReason {
  kind: LaunchOutcome;
  detail: string;
  exitCode?: number | null;
}

const TERMINAL: ReadonlySet<LaunchPhase> = new Set(['done', 'stopped', 'failed']);
export const isFinished = (s: LaunchState) => TERMINAL.has(s.phase);

/** The phase an outcome ends in: done (it did what was asked), stopped (a rule stopped it), failed. */
export function outcomePhase(kind: LaunchOutcome): 'done' | 'stopped' | 'failed' {
  return kind === 'finished' || kind === 'smoke' ? 'done' : kind === 'budget' || kind === 'doctor' ? 'stopped' : 'failed';
}

/** The end action the task's `end` stands for (checkpoints: always the final verified sync first). */
export function endActionOf(task: Pick<Task, 'end' | 'checkpoints'>): EndAction {
  if (task.end === 'no-gpu') return 'sync-then-no-gpu';
  if (task.end === 'power-off') return 'sync-then-power-off';
  return task.checkpoints ? 'sync' : 'nothing';
}

/**
 * The end action when the run ends: the task's, except that a launch that ran nothing (a red
 * doctor, no job started) has nothing to sync, so a power action stays and `release` / `keep`
 * do nothing.
 */
export function endActionFor(task: Pick<Task, 'end' | 'checkpoints'>, ranNothing: boolean): EndAction {
  if (!ranNothing) return endActionOf(task);
  return task.end === 'power-off' ? 'sync-then-power-off' : task.end === 'no-gpu' ? 'sync-then-no-gpu' : 'nothing';
}

/** What decides whether the task's end can happen on one box: its platform account (if any), what its login may do, whether the launch made it. */
export interface EndFacts {
  account?: { kind: PlatformKind; powerAllowed: boolean };
  boxPower: BoxPower;
  /** The login was probed (before that a power-off through the login cannot be told yet). */
  probed: boolean;
  created: boolean;
}

/**
 * Why the task's `end:` cannot happen on a box with these facts (null: it can, or it cannot be told
 * yet: a power-off whose route is the login, before the login was probed). The rule `run --then`
 * and `schedule add` use (core/guards/powerOffer), plus: a launch releases only what it created.
 */
export function endRefusal(end: Task['end'], f: EndFacts): EndRefusalCode | null {
  if (end === 'none') return null;
  if (end === 'release') return f.created ? null : 'releaseNotCreated';
  const c = checkEndAction(end === 'no-gpu' ? 'sync-then-no-gpu' : 'sync-then-power-off', { account: f.account, boxPower: f.boxPower, syncFolders: true });
  if (!isRefused(c)) return null;
  return c.reason === 'boxPowerUnknown' && !f.probed ? null : c.reason;
}

/** Whether nothing of this launch ran on the box: the doctor stopped it, or no job was started. */
export const ranNothing = (reason: StopReason, s: Pick<LaunchState, 'job'>) => reason.kind === 'doctor' || !s.job;

/**
 * Why the end step runs: the reason this process stopped the run for, else the outcome saved
 * before (a resumed end), else an interruption before the end (the end action runs on resume).
 */
export function endReason(stop: StopReason | undefined, outcome: LaunchState['outcome']): StopReason {
  if (stop) return stop;
  if (outcome) return { kind: outcome.kind, detail: outcome.detail, exitCode: outcome.exitCode };
  return { kind: 'failed', detail: 'the launch was interrupted before its end; the end action ran on resume' };
}

/**
 * What the end actions add up to. `boxes` is how many boxes had to act (0 when none was
 * connected). ok: every box acted and each succeeded. Still billing: a box says so, or a power
 * action was due and some box never acted.
 */
export function endTally(results: readonly { ok: boolean; stillBilling?: boolean }[], action: EndAction, boxes: number): { ok: boolean; stillBilling: boolean } {
  const ok = results.length > 0 && results.length === boxes && results.every((r) => r.ok);
  const stillBilling = results.some((r) => !!r.stillBilling) || (action !== 'nothing' && action !== 'sync' && results.length < boxes);
  return { ok, stillBilling };
}

/** What a watch poll does with the job it found (undefined: its job folder is gone). */
export type JobVerdict = { kind: 'watch' } | { kind: 'end' } | { kind: 'finish'; outcome: LaunchOutcome; detail: string; exitCode: number | null };

/**
 * The run's job as seen on the box: still running → watch on; exit 0 → finished; any other end →
 * the end step with the reason already chosen when this launch stopped it (smoke, budget, a node),
 * else runFailed with the exit code.
 */
export function jobVerdict(job: JobInfo | undefined, stopping: boolean, l10n: L10n = ENGLISH): JobVerdict {
  if (!job) return { kind: 'finish', outcome: 'failed', detail: l10n.t('the run is not on the box any more (its job folder is gone)'), exitCode: null };
  if (job.state !== 'exited' && job.state !== 'lost') return { kind: 'watch' };
  if (job.state === 'exited' && job.exitCode === 0) return { kind: 'finish', outcome: 'finished', detail: l10n.t('{0} finished (exit 0)', job.name), exitCode: 0 };
  if (stopping) return { kind: 'end' };
  return { kind: 'finish', outcome: 'runFailed', detail: job.state === 'lost' ? l10n.t('{0} was lost (the box restarted?)', job.name) : l10n.t('{0} exited with code {1}', job.name, String(job.exitCode)), exitCode: job.exitCode };
}

/** The first other node whose part of the run ended other than by exit 0 (its end stops them all). */
export function deadNode<T extends { label: string; job?: Pick<JobInfo, 'state' | 'exitCode'> | null }>(states: readonly T[]): T | undefined {
  return states.find((x) => x.job && x.job.state !== 'running' && x.job.state !== 'starting' && !(x.job.state === 'exited' && x.job.exitCode === 0));
}

/** How a dead node ended, in words. */
export const nodeEnd = (job: Pick<JobInfo, 'state' | 'exitCode'>) => (job.state === 'exited' ? `exit ${job.exitCode}` : job.state);

/** A progress line goes to the front end at most this often (the state has every reading). */
export const PROGRESS_LINE_SECONDS = 30;

/**
 * Whether a progress reading is said: only when the step or total changed, and then at once for
 * the first line or the first reading with a step, else at most every PROGRESS_LINE_SECONDS.
 */
export function sayProgress(prev: { step: number | null; total: number | null } | undefined, now: { step: number | null; total: number | null }, lastLineAt: number, at: number): boolean {
  const changed = !prev || prev.step !== now.step || prev.total !== now.total;
  return changed && (lastLineAt === 0 || (prev?.step ?? null) === null || at - lastLineAt >= PROGRESS_LINE_SECONDS);
}

/** A spot box silent this long is reclaimed (`since`: when it first did not answer). */
export const reclaimDue = (since: number, now: number, reclaimAfterSeconds: number) => now - since >= reclaimAfterSeconds;

/** What every box held now costs per hour; null when one's price is not known or no box is held. */
export function burnOf(s: Pick<LaunchState, 'box' | 'nodes'>): Fen | null {
  let total = 0;
  for (const b of [...(s.box ? [s.box] : []), ...(s.nodes ?? [])]) {
    if (b.priceFenPerHour === null) return null;
    total += b.priceFenPerHour;
  }
  return s.box ? total : null;
}

/** The name a created instance gets: the task's, then task-2, task-3 … after `created` earlier creates. */
export const createName = (task: string, created: number) => (created ? `${task}-${created + 1}` : task);

/** The instances this launch created so far (left or held). */
export const createdSoFar = (s: Pick<LaunchState, 'box' | 'boxes'>) => [...s.boxes, ...(s.box ? [s.box] : [])].filter((b) => b.created).length;

/**
 * The command the run starts with: the task's `resume` with the last verified checkpoint when
 * this is a second start (a recovery, or a job that started before) and there is one, else `run`.
 */
export function resumeCommand(task: Pick<Task, 'run' | 'resume'>, s: Pick<LaunchState, 'recoveries' | 'job' | 'lastSync'>, remoteCheckpoints: string | undefined): { command: string; from?: string } {
  const cp = s.lastSync?.checkpoint;
  if (s.recoveries > 0 || s.job) {
    if (task.resume && cp && remoteCheckpoints) {
      const path = posix.join(remoteCheckpoints, cp);
      // The name came from the box: put in as it is only when no character of it means anything
      // to a shell, so it is the same text inside the user's "{checkpoint}", '{checkpoint}' or
      // none (core/checkpoints.ts checkpointArgument); else refused, the path shown as data.
      const arg = checkpointArgument(path);
      if (!arg.ok) throw new Error(`resume: {checkpoint} would be ${JSON.stringify(path).slice(0, 600)}, which holds ${arg.bad.map((c) => JSON.stringify(c)).join(' ')}: characters a shell reads are refused, so that nothing in a name the box chose can run. Rename that checkpoint on the box or here, or start over with run`);
      return { command: task.resume.split('{checkpoint}').join(arg.text), from: path };
    }
  }
  return { command: task.run };
}

/** The env rebuilt from the task's capture is named after the task (a leading letter or digit). */
export const envName = (task: string) => (/^[A-Za-z0-9]/.test(task) ? task : `env${task}`);

/** The shell line that puts the rebuilt env's python first on PATH (conda env, else venv); none without an environment. */
export function activation(task: Pick<Task, 'name' | 'environment'>): string[] {
  if (!task.environment) return [];
  const n = shQuote(envName(task.name));
  return [`if command -v conda >/dev/null 2>&1 && [ -d "$(conda info --base)/envs/"${n} ]; then export PATH="$(conda info --base)/envs/"${n}"/bin:$PATH"; elif [ -d "$HOME/.gpu-rent/venvs/"${n} ]; then export PATH="$HOME/.gpu-rent/venvs/"${n}"/bin:$PATH"; fi`];
}

/** The remote path with ~/ made absolute against the box's home (relative: against `base`, else home). */
export function onBox(p: string, home: string, base?: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return posix.join(home, p.slice(2));
  if (p.startsWith('/')) return posix.normalize(p);
  return posix.join(base ?? home, p);
}

/** An error in one line of at most 600 characters. */
export const errText = (e: unknown) => (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').slice(0, 600);

/** The state's record of a box just had: bounded label and login, when it was had. */
export function boxRecord(
  box: { kind: LaunchBox['kind']; label: string; login?: string; account?: string; ref?: string; created?: boolean; staged?: boolean; priceFenPerHour: Fen | null; spot: boolean },
  candidate: number,
  now: number,
): LaunchBox {
  return { candidate, kind: box.kind, label: box.label.slice(0, 300), ...(box.login ? { login: box.login.slice(0, 2000) } : {}), ...(box.account ? { account: box.account } : {}), ...(box.ref ? { ref: box.ref } : {}), ...(box.created ? { created: true } : {}), ...(box.staged ? { staged: true } : {}), priceFenPerHour: box.priceFenPerHour, spot: box.spot, acquiredAt: now };
}

/** The state's patch when a launch ends: its phase and outcome, and every held box marked left (unless it already was). */
export function finishPatch(s: Pick<LaunchState, 'box' | 'nodes'>, kind: LaunchOutcome, detail: string, now: number, exitCode?: number | null): Partial<LaunchState> {
  const phase = outcomePhase(kind);
  return {
    phase,
    outcome: { kind, detail: detail.slice(0, 2000), ...(exitCode !== undefined ? { exitCode } : {}) },
    ...(s.box ? { box: { ...s.box, leftAt: s.box.leftAt ?? now, leftBecause: s.box.leftBecause ?? 'ended' } } : {}),
    ...(s.nodes ? { nodes: s.nodes.map((n) => ({ ...n, leftAt: n.leftAt ?? now, leftBecause: n.leftBecause ?? 'ended' })) } : {}),
  };
}

/**
 * The state's record of a reading. A finished run (`final`) keeps no ETA and no cost to finish;
 * a derived figure past its bound (a log's absurd total) is kept as unknown, never written out
 * of the state's range.
 */
export function progressPatch(p: Progress, f: Finish | null, final: boolean): NonNullable<LaunchState['progress']> {
  const d = p.diverged;
  return {
    step: p.step,
    total: p.total,
    etaSeconds: final || !f ? null : boundedFigure(f.etaSeconds, 1e11),
    costToFinishFen: final || !f ? null : boundedFigure(f.costToFinishFen, COST_TO_FINISH_CAP_FEN),
    loss: p.loss,
    diverged: d ? { value: d.value, readings: d.readings, since: d.since, step: d.step, lastFiniteLoss: d.lastFiniteLoss } : null,
    ...(final ? { final: true } : {}),
  };
}

// A sweep (issue 42): `matrix: {lr: [1e-4, 3e-4], rank: [8, 16]}` in a task makes one run per
// combination, each a task of its own (its own name, state, workdir on the box and checkpoint
// folders) with `{lr}` put into run, resume, env and the paths. The task file may come from a
// cloned repository, so what is put into a shell command is bounded here: a value is a number, a
// boolean or a word of letters, digits and `_ . + - /` (no spaces, quotes, `$`, globs, `..`),
// inert in a shell whether quoted or not. Pure: the zod parts for shape.ts, the expansion and the
// plan of which box each run goes to.
import { z } from 'zod';
import { hasGitComponent } from '../gitNames';
import { MAX_COMMAND, MAX_NAME, MAX_PATH, shown, staysInside } from './fields';
import { asMessage, said } from './problems';
import type { Task, TaskInstance } from './types';

export const MAX_SWEEP_KEYS = 8;
export const MAX_SWEEP_VALUES = 16;
/** Runs in one sweep (the product of the value counts). */
export const MAX_SWEEP_RUNS = 64;
export const MAX_SWEEP_VALUE_CHARS = 100;

export const SWEEP_KEY_RE = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;
/** A word, or words joined by `/` (a model id: Qwen/Qwen2.5-0.5B); no part starts with `.` (so no `..`, no hidden names). */
export const SWEEP_WORD_RE = /^[A-Za-z0-9_+-][A-Za-z0-9_.+-]*(?:\/[A-Za-z0-9_+-][A-Za-z0-9_.+-]*)*$/;
/** `{name}`; `{checkpoint}` is the resume's own placeholder and never a matrix key. */
const PLACEHOLDER_RE = /\{([A-Za-z_][A-Za-z0-9_]{0,31})\}/g;

export type SweepValue = string | number | boolean;
export type SweepParams = Record<string, SweepValue>;

/** The value as it goes into a command or a path: numbers as JavaScript writes them (1e-4 → 0.0001, 1e-7 → 1e-7). */
export function valueText(v: SweepValue): string {
  return typeof v === 'string' ? v : String(v);
}

/** Why a matrix value cannot go into a command or a path; undefined when it can. */
export function sweepValueProblem(v: unknown): 'type' | 'chars' | 'long' | undefined {
  if (typeof v === 'boolean') return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : 'type';
  if (typeof v !== 'string') return 'type';
  if (v.length > MAX_SWEEP_VALUE_CHARS) return 'long';
  return SWEEP_WORD_RE.test(v) ? undefined : 'chars';
}

const sweepValue = z.unknown().superRefine((v, ctx) => {
  const p = sweepValueProblem(v);
  if (p) ctx.addIssue({ code: 'custom', message: asMessage({ code: 'sweep-value', value: shown(typeof v === 'object' ? JSON.stringify(v) : v), problem: p, max: MAX_SWEEP_VALUE_CHARS }), input: v });
});

/** `matrix:` as the user writes it: keys → lists of values (a single value is a list of one). */
export const matrixSchema = z
  .record(
    z.string().regex(SWEEP_KEY_RE, said({ code: 'sweep-key' })).refine((k) => k !== 'checkpoint', said({ code: 'sweep-key' })),
    z.union([z.array(sweepValue).min(1, said({ code: 'sweep-values', max: MAX_SWEEP_VALUES })).max(MAX_SWEEP_VALUES, said({ code: 'sweep-values', max: MAX_SWEEP_VALUES })), z.union([z.string(), z.number(), z.boolean()])], said({ code: 'sweep-values', max: MAX_SWEEP_VALUES })),
    said({ code: 'sweep-not-matrix' }),
  )
  .superRefine((m, ctx) => {
    const keys = Object.keys(m);
    if (keys.length === 0 || keys.length > MAX_SWEEP_KEYS) ctx.addIssue({ code: 'custom', message: asMessage({ code: 'sweep-keys', max: MAX_SWEEP_KEYS }), input: m });
    let runs = 1;
    for (const k of keys) {
      const list = Array.isArray(m[k]) ? (m[k] as unknown[]) : [m[k]];
      if (new Set(list.map((v) => JSON.stringify(v))).size !== list.length) ctx.addIssue({ code: 'custom', path: [k], message: asMessage({ code: 'sweep-duplicate', key: k }), input: list });
      runs *= list.length;
    }
    if (runs > MAX_SWEEP_RUNS) ctx.addIssue({ code: 'custom', message: asMessage({ code: 'sweep-too-many', runs, max: MAX_SWEEP_RUNS }), input: m });
  });

/** The sweep part of a task as read (shape.ts's `matrix`, `max_parallel`, `fail_fast`, `gpus_per_run`). */
export interface TaskSweep {
  /** Keys in the file's order, each with its values in order. */
  matrix: [string, SweepValue[]][];
  /** Runs at once (default: the listed boxes' lanes; with `new`, min(runs, 4)). */
  maxParallel?: number;
  /** A failed run stops the sweep from starting more (default false: the others go on). */
  failFast: boolean;
  /** Cards each run takes on a listed box: a box with resources.gpus cards runs gpus / gpus_per_run runs side by side, each with its own CUDA_VISIBLE_DEVICES. */
  gpusPerRun?: number;
}

/** What a member task carries of its sweep (the ledger records `params`). */
export interface SweepMember {
  sweep: string;
  /** 1-based. */
  index: number;
  params: SweepParams;
}

export function toTaskSweep(matrix: Record<string, unknown>, o: { max_parallel?: number | undefined; fail_fast?: boolean | undefined; gpus_per_run?: number | undefined }): TaskSweep {
  return {
    matrix: Object.entries(matrix).map(([k, v]) => [k, (Array.isArray(v) ? v : [v]) as SweepValue[]]),
    ...(o.max_parallel !== undefined ? { maxParallel: o.max_parallel } : {}),
    failFast: o.fail_fast ?? false,
    ...(o.gpus_per_run !== undefined ? { gpusPerRun: o.gpus_per_run } : {}),
  };
}

/** Every combination, the first key varying slowest ({lr: [a, b], rank: [8, 16]} → a·8, a·16, b·8, b·16). */
export function combinations(matrix: readonly [string, readonly SweepValue[]][]): SweepParams[] {
  let out: SweepParams[] = [{}];
  for (const [k, values] of matrix) out = out.flatMap((p) => values.map((v) => ({ ...p, [k]: v })));
  return out.slice(0, MAX_SWEEP_RUNS);
}

/** `{key}` replaced by the run's value wherever key is a matrix key; any other braces are left as they are. */
export function substitute(text: string, params: SweepParams): string {
  return text.replace(PLACEHOLDER_RE, (all, k: string) => (Object.prototype.hasOwnProperty.call(params, k) ? valueText(params[k]!) : all));
}

/** The matrix keys a text names as `{key}`. */
export function placeholdersIn(text: string, keys: readonly string[]): string[] {
  return [...text.matchAll(PLACEHOLDER_RE)].map((m) => m[1]!).filter((k) => keys.includes(k));
}

/** The longest a text becomes once every run's values are put in (for the bounds, checked before anything runs). */
export function longestSubstituted(text: string, matrix: Record<string, unknown>): number {
  const longest = (k: string) => Math.max(0, ...(Array.isArray(matrix[k]) ? (matrix[k] as unknown[]) : [matrix[k]]).map((v) => valueText(v as SweepValue).length));
  return text.length + placeholdersIn(text, Object.keys(matrix)).reduce((n, k) => n + longest(k) - k.length - 2, 0);
}

/** A member's name: the sweep's name and its 1-based index (lora-1 … lora-4). */
export function memberName(sweep: string, index: number): string {
  return `${sweep}-${index}`;
}

/** The longest a task name may be with a matrix of `runs` runs (room for `-N`). */
export function maxSweepNameLength(runs: number): number {
  return MAX_NAME - 1 - String(runs).length;
}

/** The input fields a `{key}` may stand in (the checks in shape.ts and the expansion read the same list). */
export interface SweepFields {
  run: string;
  resume?: string | undefined;
  env?: Record<string, unknown> | undefined;
  remote_workdir?: string | undefined;
  checkpoints?: { remote: string; local: string } | undefined;
}

export type SweepFieldProblem =
  | { code: 'sweep-unused'; key: string }
  | { code: 'sweep-too-long'; field: string; max: number }
  | { code: 'sweep-shared-checkpoints' }
  | { code: 'sweep-path'; field: string };

/** What is wrong with a task's fields under its matrix: a key named nowhere, a text too long once filled in, runs that would share a checkpoint folder. */
export function sweepFieldProblems(t: SweepFields, matrix: Record<string, unknown>): { path: string[]; problem: SweepFieldProblem }[] {
  const keys = Object.keys(matrix);
  const out: { path: string[]; problem: SweepFieldProblem }[] = [];
  const texts: [string[], string, number][] = [[['run'], t.run, MAX_COMMAND]];
  if (t.resume !== undefined) texts.push([['resume'], t.resume, MAX_COMMAND]);
  for (const [k, v] of Object.entries(t.env ?? {})) if (typeof v === 'string') texts.push([['env', k], v, MAX_COMMAND]);
  if (t.remote_workdir !== undefined) texts.push([['remote_workdir'], t.remote_workdir, MAX_PATH]);
  if (t.checkpoints) texts.push([['checkpoints', 'remote'], t.checkpoints.remote, MAX_PATH], [['checkpoints', 'local'], t.checkpoints.local, MAX_PATH]);
  const used = new Set<string>();
  for (const [path, text, max] of texts) {
    for (const k of placeholdersIn(text, keys)) used.add(k);
    if (longestSubstituted(text, matrix) > max) out.push({ path, problem: { code: 'sweep-too-long', field: path.join('.'), max } });
  }
  for (const k of keys) if (!used.has(k)) out.push({ path: ['matrix', k], problem: { code: 'sweep-unused', key: k } });
  if (t.checkpoints) {
    const own = (s: string | undefined) => s !== undefined && placeholdersIn(s, keys).length > 0;
    // The box's folder is the run's own when the workdir is (the default ~/gpu-rent/<run>, or one with a {key}) and the folder is inside it, or when the folder has a {key}.
    const ownWorkdir = t.remote_workdir === undefined || own(t.remote_workdir);
    const relative = !t.checkpoints.remote.startsWith('/') && !t.checkpoints.remote.startsWith('~');
    if (!own(t.checkpoints.remote) && !(ownWorkdir && relative)) out.push({ path: ['checkpoints', 'remote'], problem: { code: 'sweep-shared-checkpoints' } });
    for (const params of combinations(Object.entries(matrix).map(([k, v]) => [k, (Array.isArray(v) ? v : [v]) as SweepValue[]]))) {
      const local = substitute(t.checkpoints.local, params);
      if (!staysInside(local) || hasGitComponent(local)) {
        out.push({ path: ['checkpoints', 'local'], problem: { code: 'sweep-path', field: 'checkpoints.local' } });
        break;
      }
    }
  }
  return out;
}

/** One run of the sweep as a task of its own: the values put in, its own name, box workdir and checkpoint folders. */
export function memberTask(task: Task, index: number, params: SweepParams, extra: { instance?: TaskInstance; devices?: string; end?: Task['end']; budgetFen?: number } = {}): Task {
  const name = memberName(task.name, index);
  const keys = Object.keys(params);
  const sub = (s: string) => substitute(s, params);
  const defaultWorkdir = task.remoteWorkdir === `~/gpu-rent/${task.name}`;
  const m: Task = {
    ...task,
    name,
    run: sub(task.run),
    env: { ...Object.fromEntries(Object.entries(task.env).map(([k, v]) => [k, sub(v)])), ...(extra.devices !== undefined ? { CUDA_VISIBLE_DEVICES: extra.devices } : {}) },
    remoteWorkdir: defaultWorkdir ? `~/gpu-rent/${name}` : sub(task.remoteWorkdir),
    instances: extra.instance ? [extra.instance] : task.instances,
    end: extra.end ?? task.end,
    sweepMember: { sweep: task.name, index, params },
  };
  delete m.sweep;
  if (extra.budgetFen !== undefined) m.budgetFen = extra.budgetFen;
  if (task.resume !== undefined) m.resume = sub(task.resume);
  if (task.checkpoints) {
    const local = placeholdersIn(task.checkpoints.local, keys).length ? sub(task.checkpoints.local) : `${trimSlashes(task.checkpoints.local)}/${name}`;
    m.checkpoints = { ...task.checkpoints, remote: sub(task.checkpoints.remote), local };
  }
  return m;
}

function trimSlashes(p: string): string {
  let end = p.length;
  while (end > 1 && p[end - 1] === '/') end--;
  return p.slice(0, end);
}

/** Where runs go: each listed box (runs one after another, or `lanes` side by side), or `new` (each run its own box). */
export interface SweepSlot {
  instance: TaskInstance;
  /** Runs at once on this box; a `new` slot: any number (each its own box). */
  lanes: number;
}

export interface SweepPlan {
  slots: SweepSlot[];
  /** The slot of each run (0-based by run). */
  slotOf: number[];
  /** Runs at once over the whole sweep. */
  maxParallel: number;
  /**
   * The run that ends each shared box (the last of its slot): only it carries the task's end action,
   * and it starts once the box's other runs have ended, so no run powers off a box another still uses.
   */
  endCarrier: (number | undefined)[];
}

/** Which box each run goes to: round-robin over the listed boxes (a `new` in the list: a fresh box per run). */
export function planSweep(task: Task, runs: number): SweepPlan {
  const s = task.sweep!;
  const listed = task.instances.length ? task.instances : [{ kind: 'new' as const }];
  const lanesOf = (i: TaskInstance) => (i.kind === 'new' ? Number.MAX_SAFE_INTEGER : s.gpusPerRun ? Math.max(1, Math.floor(task.resources.gpus / s.gpusPerRun)) : 1);
  const slots = listed.map((instance) => ({ instance, lanes: lanesOf(instance) }));
  const slotOf = Array.from({ length: runs }, (_, i) => i % slots.length);
  const boxLanes = slots.reduce((n, sl) => n + (sl.instance.kind === 'new' ? 0 : sl.lanes), 0);
  const hasNew = slots.some((sl) => sl.instance.kind === 'new');
  const maxParallel = Math.max(1, Math.min(runs, s.maxParallel ?? (hasNew ? boxLanes + 4 : boxLanes)));
  const endCarrier = slots.map((sl, k) => {
    // end: none turns nothing off: no run need wait for the others on its box.
    if (sl.instance.kind === 'new' || task.end === 'none') return undefined;
    const mine = slotOf.flatMap((x, i) => (x === k ? [i] : []));
    return mine.length > 1 ? mine[mine.length - 1] : undefined;
  });
  return { slots, slotOf, maxParallel, endCarrier };
}

/** CUDA_VISIBLE_DEVICES of a lane: gpus_per_run cards from lane × gpus_per_run ("0", "2,3"). */
export function laneDevices(lane: number, gpusPerRun: number): string {
  return Array.from({ length: gpusPerRun }, (_, i) => lane * gpusPerRun + i).join(',');
}

/** The task of this name in a file, or the sweep run of that name (lora-3: its values, workdir and checkpoint folders). */
export function taskOrSweepRun(tasks: readonly Task[], name: string): Task | undefined {
  const plain = tasks.find((t) => t.name === name);
  if (plain) return plain;
  for (const t of tasks) {
    if (!t.sweep || !name.startsWith(`${t.name}-`)) continue;
    const index = Number(name.slice(t.name.length + 1));
    const combos = combinations(t.sweep.matrix);
    if (Number.isInteger(index) && index >= 1 && index <= combos.length && memberName(t.name, index) === name) return memberTask(t, index, combos[index - 1]!);
  }
  return undefined;
}

// The task file (`gpu-rent.yaml`) as the user writes it: snake_case keys, yuan, durations as
// "10m". parseTaskFile reads the text (the caller reads the file: core has no fs), checks it
// with zod and returns Task values in fen and seconds, or errors that name the line, column
// and field. The file may come from a cloned repository, so it is bounded like box text: size,
// task count, string lengths and YAML aliases are capped, patterns are linear, nothing throws.
// The field checks, the zod shapes and the error words are beside this file (fields.ts, shape.ts,
// errors.ts); here the reading itself and the Task values it returns.
import { isScalar, Lexer, LineCounter, parseDocument, visit, type Node } from 'yaml';
import { findCard } from '../cards';
import { yuanToFen } from '../money';
import { fieldName, issueProblem, KEYS_BY_OBJECT, narrowUnion, nodeAt, suggestion, TASK_KEYS, yamlMessage } from './errors';
import { DEFAULT_SMOKE_SECONDS, DEFAULT_SMOKE_STEPS, looksLikeSsh, MAX_ALIASES, MAX_ENTRIES, MAX_ERRORS, MAX_NESTING, MAX_TASK_FILE_BYTES, parseDuration, shown } from './fields';
import type { TaskProblem } from './problems';
import { MIRRORS_AUTO, MIRRORS_OFF } from './mirrors';
import { fileSchema, taskInputSchema, taskSchema, type TaskInput } from './shape';
import { toTaskSweep } from './sweep';
import type { Task, TaskData, TaskFileError, TaskFileResult, TaskInstance } from './types';
import { taskProblemText } from './words';

export {
  DEFAULT_CHECKPOINT_EVERY_SECONDS,
  DEFAULT_RECLAIM_AFTER_SECONDS,
  DEFAULT_SMOKE_SECONDS,
  DEFAULT_SMOKE_STEPS,
  isSshLogin,
  MAX_ALIASES,
  MAX_COMMAND,
  MAX_ENTRIES,
  MAX_NAME,
  MAX_NESTING,
  MAX_NODES,
  MAX_PATH,
  MAX_TASK_FILE_BYTES,
  MAX_TASKS,
  MIN_CHECKPOINT_EVERY_SECONDS,
  MIN_RECLAIM_AFTER_SECONDS,
  parseDuration,
  staysInside,
} from './fields';
export { taskFileInputSchema, taskInputSchema } from './shape';

export interface ParseTaskFileOptions {
  /** Catalog platform ids; when given, resources.platforms must name only these. */
  platformIds?: readonly string[];
}

/** Reads a gpu-rent.yaml; never throws: every problem is a TaskFileError with its line, column and field. */
export function parseTaskFile(text: string, opts: ParseTaskFileOptions = {}): TaskFileResult {
  try {
    return parseUnsafe(text, opts);
  } catch (e) {
    // A deep structure can still exhaust the stack in the YAML composer: one error, never a throw.
    return fail(1, 1, '', { code: 'file-unreadable', nested: e instanceof RangeError });
  }
}

/** One error: where, which field, the problem and its English words. */
function problemAt(line: number, column: number, field: string, problem: TaskProblem): TaskFileError {
  return { line, column, field, problem, message: taskProblemText(problem) };
}

function fail(line: number, column: number, field: string, problem: TaskProblem): TaskFileResult {
  return { ok: false, errors: [problemAt(line, column, field, problem)] };
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 4; // a surrogate pair is one 4-byte character
      i++;
    } else n += 3;
  }
  return n;
}

function parseUnsafe(text: string, opts: ParseTaskFileOptions): TaskFileResult {
  if (typeof text !== 'string') return fail(1, 1, '', { code: 'file-not-text' });
  if (text.length > MAX_TASK_FILE_BYTES || utf8Length(text) > MAX_TASK_FILE_BYTES) {
    return fail(1, 1, '', { code: 'file-too-large', kib: MAX_TASK_FILE_BYTES / 1024 });
  }
  const scanned = preScan(text);
  if (scanned) {
    let line = 1;
    let lineStart = 0;
    for (let i = text.indexOf('\n'); i !== -1 && i < scanned.offset; i = text.indexOf('\n', i + 1)) [line, lineStart] = [line + 1, i + 1];
    return fail(line, scanned.offset - lineStart + 1, '', scanned.problem);
  }
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: false, version: '1.2', schema: 'core', strict: true, logLevel: 'error' });
  const at = (offset: number | undefined) => {
    const p = lc.linePos(Math.max(0, Math.min(offset ?? 0, text.length)));
    return { line: p.line, column: p.col };
  };
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.slice(0, MAX_ERRORS).map((e) => {
        const p = at(e.pos[0]);
        return problemAt(p.line, p.column, '', { code: 'yaml', detail: yamlMessage(e.message) });
      }),
    };
  }
  let complexKey: Node | undefined;
  let unresolved: Node | undefined;
  let duplicate: Node | undefined;
  visit(doc, {
    // Duplicate keys are found here with a Set (yaml's own uniqueKeys compares every pair: 0.4 s on 4000 keys).
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (seen.has(String(pair.key.value))) {
          duplicate = pair.key;
          return visit.BREAK;
        }
        seen.add(String(pair.key.value));
      }
      return undefined;
    },
    Alias(_, alias) {
      if (alias.resolve(doc) !== undefined) return undefined;
      unresolved = alias;
      return visit.BREAK;
    },
    Pair(_, pair) {
      if (isScalar(pair.key) && (pair.key.value === null || typeof pair.key.value !== 'object')) return undefined;
      complexKey = (pair.key as Node | null) ?? undefined;
      return visit.BREAK;
    },
  });
  if (duplicate) return fail(at(duplicate.range?.[0]).line, at(duplicate.range?.[0]).column, '', { code: 'yaml-duplicate-key' });
  if (unresolved) return fail(at(unresolved.range?.[0]).line, at(unresolved.range?.[0]).column, '', { code: 'yaml-alias-no-anchor' });
  if (complexKey) return fail(at(complexKey.range?.[0]).line, at(complexKey.range?.[0]).column, '', { code: 'complex-key' });
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    const problem: TaskProblem = e instanceof ReferenceError && e.message.includes('Excessive alias count') ? { code: 'aliases-expanded', max: MAX_ALIASES } : { code: 'yaml-unreadable' };
    return fail(1, 1, '', problem);
  }
  if (value === null || value === undefined) return fail(1, 1, '', { code: 'file-empty' });
  if (typeof value !== 'object' || Array.isArray(value)) {
    return fail(at(doc.contents?.range?.[0]).line, at(doc.contents?.range?.[0]).column, '', { code: 'file-not-mapping' });
  }

  const multi = Object.prototype.hasOwnProperty.call(value, 'tasks');
  const task = opts.platformIds ? taskSchema(opts.platformIds) : taskInputSchema;
  const result = multi ? fileSchema(task).safeParse(value) : task.safeParse(value);
  if (!result.success) {
    const errors: TaskFileError[] = [];
    for (const iss of result.error.issues.flatMap((i) => narrowUnion(i, 0))) {
      if (errors.length >= MAX_ERRORS) break;
      if (iss.code === 'unrecognized_keys') {
        const objectKind = iss.path.filter((s) => typeof s === 'string' && s !== 'tasks').slice(-1)[0];
        // A task's own keys (and, at the top of a one-task file, `tasks`), or the keys of the mapping the key sits in.
        const known = typeof objectKind === 'string' ? (KEYS_BY_OBJECT[objectKind] ?? TASK_KEYS) : iss.path.length === 0 ? [...TASK_KEYS, 'tasks'] : TASK_KEYS;
        for (const key of iss.keys.slice(0, MAX_ERRORS)) {
          const path = [...iss.path, key];
          const node = nodeAt(doc.contents, path, true);
          const suggest = multi && iss.path.length === 0 ? undefined : suggestion(key, known);
          const problem: TaskProblem = multi && iss.path.length === 0 ? { code: 'unknown-key', key: shown(key), tasksOnly: true } : { code: 'unknown-key', key: shown(key), ...(suggest !== undefined ? { suggest } : {}) };
          const p = at(node?.range?.[0]);
          errors.push(problemAt(p.line, p.column, fieldName(path), problem));
        }
        continue;
      }
      const field = fieldName(iss.path);
      if (errors.some((e) => e.field === field)) continue; // one problem per field: the first zod found
      const node = nodeAt(doc.contents, iss.path, iss.code === 'invalid_key');
      const p = at(node?.range?.[0]);
      errors.push(problemAt(p.line, p.column, field, issueProblem(iss, iss.path, value)));
    }
    errors.sort((a, b) => a.line - b.line || a.column - b.column);
    return { ok: false, errors };
  }
  const inputs: TaskInput[] = multi ? (result.data as { tasks: TaskInput[] }).tasks : [result.data as TaskInput];
  return { ok: true, tasks: inputs.map(toTask) };
}


/**
 * One pass of yaml's lexer (iterative, linear) before the document is built: a file with more alias
 * nodes than MAX_ALIASES, flow collections nested deeper than MAX_NESTING or more than MAX_ENTRIES
 * items and keys is refused there, so neither a billion-laughs file, 100k brackets nor a 100k-item
 * list reaches the composer (which takes seconds on them and recurses). The offset is where the
 * limit was crossed.
 */
function preScan(text: string): { offset: number; problem: TaskProblem } | undefined {
  let offset = 0;
  let aliases = 0;
  let depth = 0;
  let entries = 0;
  let indicatorsOnLine = 0; // `- - - 1` nests block lists on one line, with no bracket to count
  for (const token of new Lexer().lex(text)) {
    if (token.includes('\n')) indicatorsOnLine = 0;
    else if ((token === '-' || token === '?') && ++indicatorsOnLine > MAX_NESTING) {
      return { offset, problem: { code: 'nested-too-deep', max: MAX_NESTING } };
    }
    // The lexer's own markers (document, scalar, flow error) are not source text.
    if (token !== '\u0002' && token !== '\u001f' && token !== '\u0018') offset += token.length;
    if (token.startsWith('*')) {
      if (++aliases > MAX_ALIASES) return { offset: offset - token.length, problem: { code: 'too-many-aliases', max: MAX_ALIASES } };
    } else if (token === '[' || token === '{') {
      if (++depth > MAX_NESTING) return { offset: offset - 1, problem: { code: 'nested-too-deep', max: MAX_NESTING } };
    } else if (token === ']' || token === '}') depth = Math.max(0, depth - 1);
    else if (token === ',' || token === '-' || token === ':' || token === '?') {
      if (++entries > MAX_ENTRIES) return { offset: offset - 1, problem: { code: 'too-many-entries', max: MAX_ENTRIES } };
    }
  }
  return undefined;
}

const asList = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function toInstance(ref: string): TaskInstance {
  const t = ref.trim();
  if (t === 'new') return { kind: 'new' };
  if (looksLikeSsh(t)) return { kind: 'ssh', login: t };
  return { kind: 'named', ref: t };
}

function toTask(t: TaskInput): Task {
  const r = t.resources;
  const setup = t.setup;
  const setupObject = setup !== undefined && typeof setup === 'object' && !Array.isArray(setup) ? setup : undefined;
  const data: TaskData[] = (t.data ?? []).map((d) => ({ ...(d.push !== undefined ? { push: d.push } : {}), ...(d.fetch !== undefined ? { fetch: d.fetch } : {}), ...(d.from !== undefined ? { from: d.from } : {}), remote: d.remote }));
  const smoke = t.smoke;
  const task: Task = {
    name: t.name,
    resources: {
      cards: [...new Set(asList(r?.cards).map((c) => findCard(String(c))!.id))],
      gpus: r?.gpus ?? 1,
      ...(r?.min_vram_gb !== undefined ? { minVramGb: r.min_vram_gb } : {}),
      ...(r?.max_yuan_per_hour !== undefined ? { maxFenPerHour: yuanToFen(r.max_yuan_per_hour) } : {}),
      platforms: [...new Set(r?.platforms ?? [])],
      spot: r?.spot ?? false,
    },
    instances: asList(t.instance).map(toInstance),
    workdir: t.workdir,
    remoteWorkdir: t.remote_workdir ?? `~/gpu-rent/${t.name}`,
    data,
    setup: setupObject ? asList(setupObject.commands) : asList(setup as string | string[] | undefined),
    run: t.run,
    env: Object.fromEntries(Object.entries(t.env ?? {}).map(([k, v]) => [k, String(v)])),
    end: t.end as Task['end'],
    smoke: smoke === undefined || (smoke.steps === undefined && smoke.minutes === undefined)
      ? { steps: DEFAULT_SMOKE_STEPS, seconds: DEFAULT_SMOKE_SECONDS }
      : { ...(smoke.steps !== undefined ? { steps: smoke.steps } : {}), ...(smoke.minutes !== undefined ? { seconds: Math.round(smoke.minutes * 60) } : {}) },
    reclaimAfterSeconds: parseDuration(t.reclaim_after)!,
  };
  if (setupObject?.environment !== undefined) task.environment = setupObject.environment;
  if (t.checkpoints) task.checkpoints = { remote: t.checkpoints.remote, local: t.checkpoints.local, everySeconds: parseDuration(t.checkpoints.every)!, ...(t.checkpoints.pattern !== undefined ? { patterns: typeof t.checkpoints.pattern === 'string' ? [t.checkpoints.pattern] : t.checkpoints.pattern } : {}), ...(t.checkpoints.store !== undefined ? { store: t.checkpoints.store } : {}) };
  if (t.resume !== undefined) task.resume = t.resume;
  if (t.mirrors !== undefined) task.mirrors = t.mirrors === 'off' ? { ...MIRRORS_OFF } : t.mirrors === 'auto' ? { ...MIRRORS_AUTO } : { hfEndpoint: t.mirrors.hf_endpoint ?? 'auto', pipIndex: t.mirrors.pip_index ?? 'auto', turbo: t.mirrors.turbo ?? 'auto' };
  if (t.budget_yuan !== undefined) task.budgetFen = yuanToFen(t.budget_yuan);
  if (t.notify?.length) task.notify = [...new Set(t.notify)];
  if (t.progress !== undefined) task.progressPattern = t.progress;
  if (t.end_unattended !== undefined) task.endUnattended = t.end_unattended as 'power-off' | 'none';
  if (t.price_yuan_per_hour !== undefined) task.priceFenPerHour = yuanToFen(t.price_yuan_per_hour);
  if (t.nodes > 1) task.nodes = t.nodes;
  if (t.launcher !== undefined) task.launcher = t.launcher;
  if (t.master_addr !== undefined) task.masterAddr = t.master_addr;
  if (t.port !== undefined) task.rendezvousPort = t.port;
  if (t.matrix !== undefined) task.sweep = toTaskSweep(t.matrix, t);
  if (t.create) task.create = { ...(t.create.account !== undefined ? { account: t.create.account } : {}), ...(t.create.spec !== undefined ? { spec: t.create.spec } : {}), ...(t.create.region !== undefined ? { region: t.create.region } : {}), ...(t.create.image !== undefined ? { image: t.create.image } : {}), ...(t.create.disk_gb !== undefined ? { diskGb: t.create.disk_gb } : {}), ...(t.create.vswitch !== undefined ? { vSwitchId: t.create.vswitch } : {}), ...(t.create.security_group !== undefined ? { securityGroupId: t.create.security_group } : {}), ...(t.create.vpc !== undefined ? { vpcId: t.create.vpc } : {}), ...(t.create.subnet !== undefined ? { subnetId: t.create.subnet } : {}), ...(t.create.bandwidth !== undefined ? { bandwidthMbps: t.create.bandwidth } : {}), ...(t.create.ssh_key !== undefined ? { sshKey: t.create.ssh_key } : {}), ...(t.create.spot_reclaim !== undefined ? { spotReclaim: t.create.spot_reclaim } : {}) };
  return task;
}

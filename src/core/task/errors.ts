// Where a task file's error is and how it reads: the YAML node a zod issue's path leads to (its
// line and column), the field's name, "did you mean" for an unknown key, a union's issue narrowed
// to the branch that matched, and the problem (problems.ts) each issue is; words.ts says it.
import { isMap, isPair, isScalar, isSeq, type Node, type Pair } from 'yaml';
import type { z } from 'zod';
import { CONTROLS_RE, editDistance, shown } from './fields';
import { problemOf, type TaskProblem, type ValueKind } from './problems';
import { taskInputSchema } from './shape';

export const TASK_KEYS = Object.keys(taskInputSchema.shape);
/** The keys of the mapping a field holds (through optional, default, list and union), for "did you mean". */
function mappingKeys(schema: z.core.$ZodType, depth = 0): string[] | undefined {
  const def = schema._zod.def as { type: string; innerType?: z.core.$ZodType; element?: z.core.$ZodType; options?: z.core.$ZodType[]; shape?: Record<string, unknown> };
  if (depth > 4) return undefined;
  if (def.type === 'object' && def.shape) return Object.keys(def.shape);
  if ((def.type === 'optional' || def.type === 'default') && def.innerType) return mappingKeys(def.innerType, depth + 1);
  if (def.type === 'array' && def.element) return mappingKeys(def.element, depth + 1);
  if (def.type === 'union' && def.options) return def.options.map((o) => mappingKeys(o, depth + 1)).find((k) => k !== undefined);
  return undefined;
}
/** Per field of a task that holds a mapping (resources, data, setup, checkpoints, smoke): its keys. */
export const KEYS_BY_OBJECT: Record<string, readonly string[]> = Object.fromEntries(
  TASK_KEYS.flatMap((k) => {
    const keys = mappingKeys(taskInputSchema.shape[k as keyof typeof taskInputSchema.shape]);
    return keys ? [[k, keys]] : [];
  }),
);


/** The known key a mistyped one is near enough to, for "did you mean". */
export function suggestion(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best !== undefined && bestD <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined;
}

export type Path = readonly PropertyKey[];

export function fieldName(path: Path): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : `${out === '' ? '' : '.'}${String(seg)}`;
  return out;
}

/** The node a path leads to in the YAML tree; the key's node when the value is missing (`run:`), the nearest parent key when the key is absent. */
export function nodeAt(root: unknown, path: Path, lastKeyOnly = false): Node | undefined {
  let node = root as Node | null | undefined;
  let keyOfNode: Node | undefined;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (isMap(node)) {
      const pair = (node.items as Pair[]).find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return keyOfNode ?? node;
      keyOfNode = (pair.key as Node) ?? keyOfNode;
      if (lastKeyOnly && i === path.length - 1) return keyOfNode;
      const v = pair.value as Node | null;
      if (v === null || (isScalar(v) && v.value === null && (v.range?.[0] ?? 0) === (v.range?.[1] ?? 0))) return keyOfNode;
      node = v;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg] as Node | undefined;
      if (!item || isPair(item)) return node;
      node = item;
      keyOfNode = undefined;
    } else {
      return node ?? keyOfNode;
    }
  }
  return node ?? keyOfNode;
}

/** The parsed value at a path, and whether the key is there at all. */
function valueAt(root: unknown, path: Path): { present: boolean; value?: unknown } {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, seg)) return { present: false };
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return { present: true, value: v };
}

function kindOf(v: unknown): ValueKind {
  if (Array.isArray(v)) return { kind: 'list' };
  if (v === null) return { kind: 'nothing' };
  if (typeof v === 'object') return { kind: 'mapping' };
  return typeof v === 'string' ? { kind: 'text', value: shown(v) } : { kind: 'other', type: typeof v, value: shown(v) };
}

/** The problem one zod issue is: "run is required", "gpus: expected int, got the text \"two\"", or the one the schema's check carries. */
export function issueProblem(iss: z.core.$ZodIssue, path: Path, root: unknown): TaskProblem {
  if (iss.code === 'invalid_type') {
    const field = path.length ? String(path[path.length - 1]) : 'the file';
    const input = valueAt(root, path);
    if (!input.present) return { code: 'required', field };
    if (input.value === null) return { code: 'no-value', field };
    if (iss.message.startsWith('Invalid input')) return { code: 'wrong-type', field, expected: String(iss.expected), got: kindOf(input.value) };
  }
  if (iss.code === 'invalid_key') return path[path.length - 2] === 'matrix' || path[path.length - 1] === 'matrix' ? { code: 'sweep-key' } : { code: 'env-name' };
  return problemOf(iss.message);
}

/**
 * A union's issue ("setup is a command, a list of commands, or {environment, commands}") is replaced
 * by the issues of the one branch whose type matched, so the error points into it (setup.commands[1]).
 */
export function narrowUnion(iss: z.core.$ZodIssue, depth: number): z.core.$ZodIssue[] {
  if (iss.code !== 'invalid_union' || depth > 8) return [iss];
  const matched = iss.errors.filter((branch) => !branch.every((b) => b.code === 'invalid_type' && b.path.length === 0));
  if (matched.length !== 1) return [iss];
  return matched[0]!.flatMap((b) => narrowUnion({ ...b, path: [...iss.path, ...b.path] } as z.core.$ZodIssue, depth + 1));
}

export function yamlMessage(message: string): string {
  const firstLine = (message.split('\n')[0] ?? '').replace(CONTROLS_RE, '?');
  const cut = firstLine.length > 160 ? `${firstLine.slice(0, 160)}…` : firstLine;
  return cut;
}

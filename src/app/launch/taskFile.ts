// Finding and reading gpu-rent.yaml, for both front ends: the file named, else gpu-rent.yaml,
// else gpu-rent.yml in the folder; read with a size cap and validated (core/task/schema.ts),
// every problem with its line, column and field.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { builtinCatalog } from '../../core/catalog';
import { MAX_TASK_FILE_BYTES, parseTaskFile } from '../../core/task/schema';
import type { Task, TaskFileError } from '../../core/task/types';

export const TASK_FILE_NAMES = ['gpu-rent.yaml', 'gpu-rent.yml'] as const;

export type TaskFileRead =
  | { ok: true; file: string; tasks: Task[] }
  | { ok: false; kind: 'notFound'; looked: string[] }
  | { ok: false; kind: 'unreadable'; file: string; message: string }
  | { ok: false; kind: 'invalid'; file: string; errors: TaskFileError[] };

export async function readTaskFile(dir: string, named?: string): Promise<TaskFileRead> {
  const candidates = named ? [resolve(dir, named)] : TASK_FILE_NAMES.map((n) => resolve(dir, n));
  for (const file of candidates) {
    let buf: Buffer;
    try {
      buf = await readFile(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return { ok: false, kind: 'unreadable', file, message: (e as Error).message };
    }
    if (buf.length > MAX_TASK_FILE_BYTES) return { ok: false, kind: 'unreadable', file, message: `${buf.length} bytes; a task file is at most ${MAX_TASK_FILE_BYTES / 1024} KiB` };
    const r = parseTaskFile(buf.toString('utf8'), { platformIds: builtinCatalog().platforms.map((p) => p.id) });
    return r.ok ? { ok: true, file, tasks: r.tasks } : { ok: false, kind: 'invalid', file, errors: r.errors };
  }
  return { ok: false, kind: 'notFound', looked: candidates };
}

/** The problems as lines: "line 3, column 1 (chekpoints): unknown key … did you mean checkpoints?" */
export function taskFileErrorLines(errors: readonly TaskFileError[]): string[] {
  return errors.map((x) => `line ${x.line}, column ${x.column}${x.field ? ` (${x.field})` : ''}: ${x.message}`);
}

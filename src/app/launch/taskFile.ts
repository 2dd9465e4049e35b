// Finding and reading gpu-rent.yaml, for both front ends: the file named, else gpu-rent.yaml,
// else gpu-rent.yml in the folder; read with a size cap and validated (core/task/schema.ts),
// every problem with its line, column and field.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { builtinCatalog } from '../../core/catalog';
import { MAX_TASK_FILE_BYTES, parseTaskFile } from '../../core/task/schema';
import type { Task, TaskFileError } from '../../core/task/types';
import { ENGLISH, taskProblemText, type TaskL10n } from '../../core/task/words';

export const TASK_FILE_NAMES = ['gpu-rent.yaml', 'gpu-rent.yml'] as const;

export type TaskFileRead =
  | { ok: true; file: string; tasks: Task[] }
  | { ok: false; kind: 'notFound'; looked: string[] }
  /** `tooLarge` when it is over the cap (then `message` is the English of it); else `message` is the system's. */
  | { ok: false; kind: 'unreadable'; file: string; message: string; tooLarge?: { bytes: number; maxKib: number } }
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
    if (buf.length > MAX_TASK_FILE_BYTES) {
      const tooLarge = { bytes: buf.length, maxKib: MAX_TASK_FILE_BYTES / 1024 };
      return { ok: false, kind: 'unreadable', file, message: tooLargeText(tooLarge, ENGLISH), tooLarge };
    }
    const r = parseTaskFile(buf.toString('utf8'), { platformIds: builtinCatalog().platforms.map((p) => p.id) });
    return r.ok ? { ok: true, file, tasks: r.tasks } : { ok: false, kind: 'invalid', file, errors: r.errors };
  }
  return { ok: false, kind: 'notFound', looked: candidates };
}

function tooLargeText(t: { bytes: number; maxKib: number }, l10n: TaskL10n): string {
  return l10n.t('{0} bytes; a task file is at most {1} KiB', t.bytes, t.maxKib);
}

/** Why an unreadable task file could not be read, in the l10n's language (the system's own words stay as they are). */
export function taskFileUnreadableText(r: Extract<TaskFileRead, { kind: 'unreadable' }>, l10n: TaskL10n = ENGLISH): string {
  return r.tooLarge ? tooLargeText(r.tooLarge, l10n) : r.message;
}

/** The problems as lines: "line 3, column 1 (chekpoints): unknown key … did you mean checkpoints?"; English unless an l10n is passed. */
export function taskFileErrorLines(errors: readonly TaskFileError[], l10n: TaskL10n = ENGLISH): string[] {
  return errors.map((x) => {
    const what = taskProblemText(x.problem, l10n);
    return x.field ? l10n.t('line {0}, column {1} ({2}): {3}', x.line, x.column, x.field, what) : l10n.t('line {0}, column {1}: {2}', x.line, x.column, what);
  });
}

// The task file checked as it is typed, for an editor: the same reader as `gpu-rent launch`
// (core/task/schema.ts, every problem with its line, column and field) turned into marks an
// editor shows, in the UI's language. No extension for YAML needed; the JSON Schema stays for
// those who have one. Pure over the text (the extension hands in the document's text).
import { builtinCatalog } from '../../core/catalog';
import { MAX_TASK_FILE_BYTES, parseTaskFile } from '../../core/task/schema';
import { ENGLISH, taskProblemText, type TaskL10n } from '../../core/task/words';

/** Names checked as task files: gpu-rent.yaml / .yml, and NAME.gpu-rent.yaml / .yml. */
export function isTaskFileName(path: string): boolean {
  return /(^|[\\/])([^\\/]+\.)?gpu-rent\.ya?ml$/i.test(path);
}

export interface TaskMark {
  /** 0-based line and columns (an editor's), the end past the marked word. */
  line: number;
  column: number;
  endColumn: number;
  message: string;
  /** The field's path ("resources.max_yuan_per_hour"), "" for the file as a whole. */
  field: string;
}

/** The problems of a task file's text, each where it is; [] when it is fine. */
export function taskFileMarks(text: string, l10n: TaskL10n = ENGLISH): TaskMark[] {
  if (Buffer.byteLength(text, 'utf8') > MAX_TASK_FILE_BYTES) {
    return [{ line: 0, column: 0, endColumn: 1, field: '', message: l10n.t('the task file is larger than {0} KiB', MAX_TASK_FILE_BYTES / 1024) }];
  }
  const r = parseTaskFile(text, { platformIds: builtinCatalog().platforms.map((p) => p.id) });
  if (r.ok) return [];
  const lines = text.split(/\r?\n/);
  return r.errors.slice(0, 100).map((e) => {
    const line = Math.max(0, Math.min(lines.length - 1, e.line - 1));
    const src = lines[line] ?? '';
    const column = Math.max(0, Math.min(src.length, e.column - 1));
    // To the end of the word there (a key or value), at least one character.
    const rest = src.slice(column);
    const word = /^\S+/.exec(rest)?.[0].length ?? 0;
    const endColumn = Math.max(column + 1, column + word);
    // The words name the field already ("budget_yuan must be more than ¥0").
    const words = taskProblemText(e.problem, l10n);
    return { line, column, endColumn, field: e.field, message: words };
  });
}

// Which gpu-rent.yaml a launch command is about (the explorer's file, a script's `file`, else
// the first workspace folder's gpu-rent.yaml / .yml), read and validated by the app layer. A
// file with problems opens at the first one's line and column, and the error names every
// problem's line and field.
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { readTaskFile, taskFileErrorLines, taskFileUnreadableText } from '../../../app/launch/taskFile';
import type { Task } from '../../../core/task/types';
import { forLabel } from '../../../core/text';
import { UserError } from '../../words/errors';

/** The file the argument names (a Uri from the explorer, or a script's path), else undefined: the workspace's. */
function namedFile(arg: unknown, scriptedFile: string | undefined): string | undefined {
  if (arg instanceof vscode.Uri) return arg.fsPath;
  return scriptedFile;
}

export async function readWorkspaceTaskFile(arg: unknown, scriptedFile?: string): Promise<{ file: string; tasks: Task[] }> {
  const named = namedFile(arg, scriptedFile);
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!named && !folder) throw new UserError(vscode.l10n.t('Open a folder with a gpu-rent.yaml first (or choose Run Task on a Rented GPU… on the file in the Explorer).'));
  const r = named ? await readTaskFile(dirname(named), named) : await readTaskFile(folder!);
  if (r.ok) return r;
  if (r.kind === 'notFound') throw new UserError(vscode.l10n.t('No task file: {0} not found. The README’s “Launch a task” shows a complete one.', r.looked.join(vscode.l10n.t(' or '))));
  if (r.kind === 'unreadable') throw new UserError(vscode.l10n.t('The task file {0} cannot be read: {1}', r.file, taskFileUnreadableText(r, vscode.l10n)));
  const first = r.errors[0];
  if (first) {
    // The editor shows the first problem where it is (the YAML extension, when installed, marks the rest).
    const at = new vscode.Position(Math.max(0, first.line - 1), Math.max(0, first.column - 1));
    await vscode.window.showTextDocument(vscode.Uri.file(r.file), { selection: new vscode.Range(at, at), preview: false }).then(undefined, () => undefined);
  }
  throw new UserError(vscode.l10n.t('{0} has {1} problem(s): {2}', r.file, r.errors.length, taskFileErrorLines(r.errors, vscode.l10n).join(vscode.l10n.t('; '))));
}

/** The task a script names, the only one, or the one the user picks; undefined when cancelled. */
export async function pickTask(tasks: readonly Task[], name: string | undefined, file: string): Promise<Task | undefined> {
  if (name !== undefined) {
    const t = tasks.find((x) => x.name === name);
    if (!t) throw new UserError(vscode.l10n.t('No task {0} in {1} (it has {2}).', name, file, tasks.map((x) => x.name).join(', ')));
    return t;
  }
  if (tasks.length === 1) return tasks[0];
  const pick = await vscode.window.showQuickPick(
    tasks.map((t) => ({ label: forLabel(t.name), description: forLabel(t.run, 120), task: t })),
    { placeHolder: vscode.l10n.t('Choose a task from {0}', forLabel(file)) },
  );
  return pick?.task;
}

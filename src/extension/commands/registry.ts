// One way to register a command. A failure becomes one notification (with the button that
// helps) and one log line, never a second toast from VS Code: the error is not rethrown to
// the UI. Calls from scripts (an argument object) get the rejection instead, and no toast.
import * as vscode from 'vscode';
import { showError } from '../notify';
import type { CommandId } from '../commandIds';
import { shownError } from '../words/errors';

export type Handler = (arg: unknown, ...rest: unknown[]) => unknown;

/** A call from a script or test passes an argument object (tree nodes carry a `kind`). */
export function isScripted(arg: unknown): arg is Record<string, unknown> {
  return !!arg && typeof arg === 'object' && !Array.isArray(arg) && !('kind' in arg) && !(arg instanceof vscode.Uri);
}

export interface Registry {
  log: vscode.LogOutputChannel;
}

/** Shows an error once: a notification with its buttons (modal when it carries detail), and a log line. */
export function reportError(log: vscode.LogOutputChannel, id: string, e: unknown): void {
  const shown = shownError(e);
  log.error(`${id}: ${shown.message}`);
  const titles = shown.actions.map((a) => a.title);
  const pick = shown.detail ? showError(shown.message, { modal: true, detail: shown.detail, log, logged: true }, ...titles) : showError(shown.message, { log, logged: true }, ...titles);
  void pick.then((t) => shown.actions.find((a) => a.title === t)?.run());
}

export function registerCommand(id: CommandId, handler: Handler, reg: Registry): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (arg: unknown, ...rest: unknown[]) => {
    try {
      return await handler(arg, ...rest);
    } catch (e) {
      if (isScripted(arg)) {
        const message = shownError(e).message;
        reg.log.error(`${id}: ${message}`);
        throw new Error(message, { cause: e });
      }
      reportError(reg.log, id, e);
      return undefined;
    }
  });
}

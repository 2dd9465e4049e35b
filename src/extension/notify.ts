// The one way the extension raises a notification or a message dialog. VS Code renders
// `[label](command:…)` in a notification's message as a link whose click runs the command, and
// these messages carry box and platform text (file names, stderr, log lines, instance names,
// a platform's error message). Every message and modal detail goes through core/text's
// forNotification; a message cut to fit a toast is written whole to the output channel.
// eslint forbids calling vscode.window.show*Message anywhere else.
import * as vscode from 'vscode';
import { forNotification } from '../core/text';

export interface NotifyOptions extends vscode.MessageOptions {
  /** Where the whole text goes when the toast shows only its start. */
  log?: vscode.LogOutputChannel;
  /** The caller already wrote the whole text to `log`: only say where it is. */
  logged?: boolean;
}

type Kind = 'error' | 'warning' | 'info';
type Item = string | vscode.MessageItem;
type Rest<T extends Item> = Array<T | NotifyOptions>;

const isItem = (x: unknown): x is Item => typeof x === 'string' || (!!x && typeof x === 'object' && 'title' in x);

const SHOW = {
  error: (m: string, o: vscode.MessageOptions, items: vscode.MessageItem[]) => vscode.window.showErrorMessage(m, o, ...items),
  warning: (m: string, o: vscode.MessageOptions, items: vscode.MessageItem[]) => vscode.window.showWarningMessage(m, o, ...items),
  info: (m: string, o: vscode.MessageOptions, items: vscode.MessageItem[]) => vscode.window.showInformationMessage(m, o, ...items),
} as const;

/** What a message and its modal detail become on screen. */
function renderMessage(message: string, options: vscode.MessageOptions = {}): { message: string; detail?: string; cut: boolean } {
  const m = forNotification(message, options.modal ? { max: 2000 } : {});
  const d = options.detail === undefined ? undefined : forNotification(options.detail, { keepNewlines: true });
  return { message: m.text, ...(d ? { detail: d.text } : {}), cut: m.cut || !!d?.cut };
}

function show<T extends Item>(kind: Kind, message: string, rest: Rest<T>): Thenable<T | undefined> {
  const opts = (rest[0] !== undefined && !isItem(rest[0]) ? rest[0] : {}) as NotifyOptions;
  const original = rest.filter(isItem) as T[];
  // Buttons are shown as MessageItems with rendered titles; the pick maps back to the caller's item.
  const items = original.map((i) => ({ title: forNotification(typeof i === 'string' ? i : i.title, { max: 60 }).text, ...(typeof i === 'object' && i.isCloseAffordance ? { isCloseAffordance: true } : {}) }));
  const { log, logged, ...vsOpts } = opts;
  const r = renderMessage(message, vsOpts);
  let text = r.message;
  if (r.cut && log) {
    if (!logged) log[kind === 'info' ? 'info' : kind === 'warning' ? 'warn' : 'error'](`${message}${opts.detail ? `\n${opts.detail}` : ''}`);
    text += ' ' + vscode.l10n.t('(The whole text is in the GPU Rent output.)');
  }
  const picked = SHOW[kind](text, { ...vsOpts, ...(r.detail !== undefined ? { detail: r.detail } : {}) }, items);
  return picked.then((p) => (p === undefined ? undefined : original[items.indexOf(p)]));
}

export function showError<T extends Item>(message: string, ...rest: Rest<T>): Thenable<T | undefined> {
  return show('error', message, rest);
}
export function showWarning<T extends Item>(message: string, ...rest: Rest<T>): Thenable<T | undefined> {
  return show('warning', message, rest);
}
export function showInfo<T extends Item>(message: string, ...rest: Rest<T>): Thenable<T | undefined> {
  return show('info', message, rest);
}

/**
 * withProgress in a notification: its title and every reported message are notification text
 * too (instance names from a platform, file names), rendered the same way.
 */
export function withNotificationProgress<R>(
  opts: { title: string; cancellable?: boolean },
  task: (progress: vscode.Progress<{ message?: string; increment?: number }>, token: vscode.CancellationToken) => Thenable<R>,
): Thenable<R> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: forNotification(opts.title, { max: 200 }).text, ...(opts.cancellable ? { cancellable: true } : {}) }, (progress, token) =>
    task({ report: (v) => progress.report(v.message === undefined ? v : { ...v, message: forNotification(v.message, { max: 200 }).text }) }, token),
  );
}

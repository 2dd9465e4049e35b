// gpu-rent.yaml (and NAME.gpu-rent.yaml) checked as you type, without a YAML extension: the
// launch's own reader (src/app/launch/taskDiagnostics.ts) publishes its problems into a
// DiagnosticCollection on open, on each change (debounced) and on save, in the UI's language;
// a closed file's marks go. The JSON Schema (yamlValidation) stays for those with the YAML extension.
import * as vscode from 'vscode';
import { isTaskFileName, taskFileMarks } from '../app/launch/taskDiagnostics';

const DEBOUNCE_MS = 250;

export function registerTaskDiagnostics(subs: { push(...d: vscode.Disposable[]): unknown }): vscode.DiagnosticCollection {
  const collection = vscode.languages.createDiagnosticCollection('gpu-rent');
  const timers = new Map<string, NodeJS.Timeout>();
  const isTask = (doc: vscode.TextDocument) => isTaskFileName(doc.uri.path);
  const check = (doc: vscode.TextDocument) => {
    if (!isTask(doc)) return;
    const marks = taskFileMarks(doc.getText(), vscode.l10n);
    collection.set(
      doc.uri,
      marks.map((m) => {
        const d = new vscode.Diagnostic(new vscode.Range(m.line, m.column, m.line, m.endColumn), m.message, vscode.DiagnosticSeverity.Error);
        d.source = 'gpu-rent';
        return d;
      }),
    );
  };
  const later = (doc: vscode.TextDocument) => {
    if (!isTask(doc)) return;
    const key = doc.uri.toString();
    clearTimeout(timers.get(key));
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        check(doc);
      }, DEBOUNCE_MS),
    );
  };
  subs.push(
    collection,
    vscode.workspace.onDidOpenTextDocument(check),
    vscode.workspace.onDidChangeTextDocument((e) => later(e.document)),
    vscode.workspace.onDidSaveTextDocument(check),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      clearTimeout(timers.get(doc.uri.toString()));
      timers.delete(doc.uri.toString());
      collection.delete(doc.uri);
    }),
    { dispose: () => timers.forEach((t) => clearTimeout(t)) },
  );
  for (const doc of vscode.workspace.textDocuments) check(doc);
  return collection;
}

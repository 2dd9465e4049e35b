// Where the extension keeps its state: files under its globalStorageUri (src/app/stateFiles.ts),
// on the machine the extension host runs on, the same under code-server, Remote-SSH and the
// desktop; moved once from globalState. A folder that cannot be made falls back to globalState
// (said in the log) rather than losing the list.
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { FileMemento } from '../app/stateFiles';

export interface StateMemento extends vscode.Memento {
  flush(): Promise<void>;
}

export function openState(context: Pick<vscode.ExtensionContext, 'globalStorageUri' | 'globalState'>, log: Pick<vscode.LogOutputChannel, 'info' | 'error'>): StateMemento {
  let files: FileMemento;
  try {
    files = new FileMemento(join(context.globalStorageUri.fsPath, 'state'));
  } catch (e) {
    log.error(`the state folder under ${context.globalStorageUri.fsPath} cannot be used (${(e as Error).message}); keeping the state in globalState`);
    return Object.assign(context.globalState, { flush: () => Promise.resolve() });
  }
  for (const f of files.unreadable) log.error(`a state file could not be read and was kept aside: ${f}`);
  const move = files.moveFrom(context.globalState);
  if (move.copied.length) log.info(`moved ${move.copied.length} saved record(s) from globalState to ${files.dir}: ${move.copied.join(', ')}`);
  move.done.catch((e: unknown) => log.error(`moving the state to ${files.dir} is not finished (${(e as Error).message}); it is tried again at the next start`));
  return files;
}

// PLACEHOLDER composition root: replaced by the extension work.
import type * as vscode from 'vscode';

export function activate(_context: vscode.ExtensionContext): void {}

export function deactivate(): void {}

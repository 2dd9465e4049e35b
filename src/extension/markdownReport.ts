// A read-only Markdown report (the GPU check's, Launch Status): a document of its own scheme,
// opened rendered in VS Code's Markdown preview, or as text where the preview is unavailable
// (the built-in Markdown extension disabled). Callers escape box text before it gets here.
import * as vscode from 'vscode';

export class MarkdownReportView implements vscode.Disposable {
  private readonly docs = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly registration: vscode.Disposable;

  constructor(private readonly scheme: string) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(scheme, { onDidChange: this.changed.event, provideTextDocumentContent: (uri) => this.docs.get(uri.toString()) ?? '' });
  }

  /** Shows `md` as the document at `path` (e.g. "/id/Title.md"), replacing what it held. */
  async open(path: string, md: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: this.scheme, path });
    this.docs.set(uri.toString(), md);
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    const rendered = await Promise.resolve(vscode.commands.executeCommand('markdown.showPreview', uri)).then(
      () => true,
      () => false,
    );
    if (!rendered) await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: false });
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}

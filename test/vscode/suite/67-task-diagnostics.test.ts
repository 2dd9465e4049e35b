// gpu-rent.yaml checked as it is typed in a real VS Code, with no YAML extension installed:
// opening a task file with an error shows it in the Problems view at its line (the launch's own
// reader), fixing the text clears it, and NAME.gpu-rent.yaml is checked too; other YAML is not.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { waitFor } from '../support';

describe('task file diagnostics (no YAML extension)', function () {
  this.timeout(60_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-rent-diag-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ours = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'gpu-rent');

  it('an error is marked at its line as the file opens, and goes once the text is fixed', async () => {
    const file = path.join(dir, 'gpu-rent.yaml');
    fs.writeFileSync(file, 'name: diag\ninstance: new\nrun: python train.py\nbudget_yuan: -3\n');
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    const marks = await waitFor('a gpu-rent diagnostic', () => (ours(doc.uri).length ? ours(doc.uri) : undefined));
    assert.strictEqual(marks[0]!.range.start.line, 3, JSON.stringify(marks.map((m) => [m.range.start.line, m.message])));
    assert.match(marks[0]!.message, /budget_yuan/);
    assert.strictEqual(marks[0]!.severity, vscode.DiagnosticSeverity.Error);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(3, 0, 3, doc.lineAt(3).text.length), 'budget_yuan: 3');
    assert.ok(await vscode.workspace.applyEdit(edit));
    await waitFor('the diagnostic cleared', () => (ours(doc.uri).length === 0 ? true : undefined));
  });

  it('NAME.gpu-rent.yaml is checked; another YAML file is not', async () => {
    const named = path.join(dir, 'lora.gpu-rent.yaml');
    fs.writeFileSync(named, 'name: lora\nrun: python train.py\ncheckpoints: {remote: ckpt, local: ./.git, every: 10m}\n');
    const doc = await vscode.workspace.openTextDocument(named);
    const marks = await waitFor('a gpu-rent diagnostic', () => (ours(doc.uri).length ? ours(doc.uri) : undefined));
    assert.ok(marks.some((m) => /\.git/.test(m.message)), JSON.stringify(marks.map((m) => m.message)));
    const other = path.join(dir, 'compose.yaml');
    fs.writeFileSync(other, 'budget_yuan: -3\n');
    const otherDoc = await vscode.workspace.openTextDocument(other);
    await new Promise((r) => setTimeout(r, 800));
    assert.strictEqual(ours(otherDoc.uri).length, 0);
  });
});

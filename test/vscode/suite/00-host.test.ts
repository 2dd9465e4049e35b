// The harness itself: the extension under development is loaded in this extension host.
import * as assert from 'assert';
import * as vscode from 'vscode';

const EXTENSION_ID = 'gpu-rent.gpu-rent';

describe('extension host', () => {
  it('loads gpu-rent from the checkout and activates it', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not loaded; loaded: ${vscode.extensions.all.map((e) => e.id).filter((id) => !id.startsWith('vscode.')).join(', ')}`);
    await ext.activate();
    assert.strictEqual(ext.isActive, true);
  });
});

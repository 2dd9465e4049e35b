// Left for the DOM checks that follow the in-host suites: an instance whose login is refused,
// so a failing command can be run from the command palette as a user would.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { BROKEN_INSTANCE } from '../../e2e/shared';
import { readInfo } from '../support';

describe('fixtures for the DOM checks', function () {
  this.timeout(60_000);
  it('adds an instance whose password is refused', async () => {
    const { sshd } = readInfo();
    const id = await vscode.commands.executeCommand<string>('gpuRent.addInstance', { name: BROKEN_INSTANCE, login: `ssh -p ${sshd.port} ${sshd.user}@${sshd.host}`, password: `refused-${Date.now()}`, platform: 'autodl', card: 'RTX 4090', hourlyRate: 1, state: 'running' });
    assert.ok(id);
  });
});

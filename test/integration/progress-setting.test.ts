// gpuRent.progress.pattern on a real box (loopback sshd): a plain run's log in a format the built-in
// reader does not know is said to be unread; with the setting's pattern the extension's watch
// (RunWatch, read by byte offset) reads its step, total and loss, the whole log afresh.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { RemoteConnection } from '../../src/remote/connection';
import { RunWatch } from '../../src/app/runs/watch';
import { progressSettingOf } from '../../src/app/runs/progressSetting';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, tempDir } from './remote-helpers';

describe('gpuRent.progress.pattern on a real box', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let dir: ReturnType<typeof tempDir>;
  let conn: RemoteConnection;

  before(async () => {
    sshd = await startSshd();
    dir = tempDir();
    conn = connectionTo(sshd, join(dir.path, 'known_hosts'));
    await conn.connect();
    // A custom trainer's lines (the README's example of a log the reader cannot read).
    sshd.runAsUser(`printf '[  %d |  500 ] %s 0.89\\n' 10 0.9123 20 0.7001 40 0.4123 > "$HOME/plain.log"`);
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    dir?.remove();
  });

  it('unread without the setting; read with it; a refused pattern leaves the built-in reader', async () => {
    const logPath = join(sshd.home, 'plain.log');
    const watch = new RunWatch();
    const read = () => watch.update(conn, { instanceId: 'box1', jobId: 'plain', logPath, alive: true, price: null, now: Date.now() / 1000 });
    const before = await read();
    assert.equal(before.progress.step, null);
    assert.equal(before.progress.unread?.lines, 3);
    assert.match(before.progress.unread!.lastLine, /^\[ {2}40 \| {2}500 \] 0\.4123/);

    watch.setPattern(progressSettingOf('^\\[ *(?<step>\\d+) \\| *(?<total>\\d+) \\] (?<loss>\\S+)').re);
    const after = await read();
    assert.deepEqual([after.progress.step, after.progress.total, after.progress.loss, after.progress.unread ?? null], [40, 500, 0.4123, null]);

    const refused = progressSettingOf('(?<step>\\d+).*loss');
    assert.ok(refused.problem);
    watch.setPattern(refused.re);
    assert.equal((await read()).progress.step, null, 'back to the built-in reader, which cannot read it');
  });
});

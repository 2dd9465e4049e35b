// Sync's one lstat (remote/sync/sftp-util.ts lstatRemote) against a real sftp-server: the
// semantics its callers rely on. A path that cannot be had (missing, not permitted) is
// undefined; a link is not followed; no answer at all (the channel gone) is thrown, never
// taken for a missing file.
import { strict as assert } from 'node:assert';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import type { RemoteConnection } from '../../src/remote/connection';
import { lstatRemote, SftpGoneError } from '../../src/remote/sync/sftp-util';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, tempDir } from './remote-helpers';

describe('lstatRemote (real sshd)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let dir: ReturnType<typeof tempDir>;
  let conn: RemoteConnection;
  let sftp: SFTPWrapper;

  before(async () => {
    sshd = await startSshd();
    dir = tempDir();
    conn = connectionTo(sshd, join(dir.path, 'known_hosts'));
    await conn.connect();
    sftp = await conn.sftp();
    sshd.runAsUser('printf abc > "$HOME/file" && ln -s file "$HOME/link"');
    // A folder only root may enter (made by this test, as root): the box user gets "permission denied".
    mkdirSync(join(dir.path, 'closed'));
    writeFileSync(join(dir.path, 'closed', 'inside'), 'x');
    chmodSync(join(dir.path, 'closed'), 0o700);
    symlinkSync('/nonexistent', join(dir.path, 'dangling'));
    chmodSync(dir.path, 0o755);
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    dir?.remove();
  });

  it('a file: its attributes; a link: the link itself, not its target', async () => {
    const f = await lstatRemote(sftp, join(sshd.home, 'file'));
    assert.ok(f?.isFile() && f.size === 3, JSON.stringify(f));
    const l = await lstatRemote(sftp, join(sshd.home, 'link'));
    assert.ok(l?.isSymbolicLink(), 'not followed');
    assert.ok((await lstatRemote(sftp, join(dir.path, 'dangling')))?.isSymbolicLink(), 'a dangling link is still there');
  });

  it('missing, or not permitted: undefined (an SFTP status, the path cannot be had)', async () => {
    assert.equal(await lstatRemote(sftp, join(sshd.home, 'no-such-file')), undefined);
    assert.equal(await lstatRemote(sftp, join(dir.path, 'closed', 'inside')), undefined);
  });

  it('the channel gone: thrown as SftpGoneError, not undefined', async () => {
    const own = await conn.sftp();
    const closed = new Promise((res) => own.once('close', res));
    own.end();
    await closed;
    await assert.rejects(lstatRemote(own, join(sshd.home, 'file')), (e: unknown) => e instanceof SftpGoneError);
    // A new channel on the same connection answers again.
    sftp = await conn.sftp();
    assert.ok((await lstatRemote(sftp, join(sshd.home, 'file')))?.isFile());
  });
});

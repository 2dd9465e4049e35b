// Puts a grant and the script that uses it on the box: a private folder (0700), the grant in a
// 0600 file written over SFTP (never in an argument list, an environment or a command line), the
// script beside it. What the box then runs is `sh DIR/upload.sh DIR/upload.grant FILE NAME`
// (the supervisor, for each complete checkpoint file) or `sh DIR/pull.sh DIR/pull.grant DEST`
// (the launch's data step).
import type { SFTPWrapper } from 'ssh2';
import { renderBoxPuller, renderBoxUploader, renderPostGrantConfig, renderPullGrant, shQuote, type PostGrant, type PullItem } from '../../core/storage/grant';
import type { SyncRemote } from '../../remote/sync/types';

function writeRemote(sftp: SFTPWrapper, path: string, text: string, mode: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // Created with the final mode (and set again, whatever the server's umask did) before one byte is written.
    sftp.open(path, 'w', { mode }, (err, handle) => {
      if (err) return reject(err);
      sftp.fchmod(handle, mode, (err2) => {
        if (err2) return sftp.close(handle, () => reject(err2));
        sftp.write(handle, Buffer.from(text), 0, Buffer.byteLength(text), 0, (err3) => {
          sftp.close(handle, (err4) => (err3 || err4 ? reject(err3 ?? err4) : resolve()));
        });
      });
    });
  });
}

async function privateDir(remote: SyncRemote, dir: string): Promise<void> {
  const r = await remote.exec(`mkdir -p -m 700 -- ${shQuote(dir)} && chmod 700 -- ${shQuote(dir)}`, { timeoutMs: 20_000 });
  if (r.code !== 0) throw new Error(`cannot make ${dir} on the box: ${r.stderr.slice(0, 200)}`);
}

export interface BoxUploader {
  grantPath: string;
  scriptPath: string;
  /** The command that uploads FILE as the run prefix + NAME (both quoted for sh). */
  command(file: string, name: string): string;
}

export async function installUploader(remote: SyncRemote, dir: string, grant: PostGrant, opts: { attempts?: number; retryPauseS?: number } = {}): Promise<BoxUploader> {
  await privateDir(remote, dir);
  const sftp = await remote.sftp();
  const grantPath = `${dir}/upload.grant`;
  const scriptPath = `${dir}/upload.sh`;
  await writeRemote(sftp, grantPath, renderPostGrantConfig(grant), 0o600);
  await writeRemote(sftp, scriptPath, renderBoxUploader({ prefix: grant.prefix, maxBytes: grant.maxBytes, ...opts }), 0o700);
  return { grantPath, scriptPath, command: (file, name) => `sh ${shQuote(scriptPath)} ${shQuote(grantPath)} ${shQuote(file)} ${shQuote(name)}` };
}

export interface BoxPuller {
  grantPath: string;
  scriptPath: string;
  /** The command that fetches every object of the grant into DEST, verified. */
  command(dest: string): string;
}

export async function installPuller(remote: SyncRemote, dir: string, items: readonly PullItem[], opts: { attempts?: number; retryPauseS?: number } = {}): Promise<BoxPuller> {
  await privateDir(remote, dir);
  const sftp = await remote.sftp();
  const grantPath = `${dir}/pull.grant`;
  const scriptPath = `${dir}/pull.sh`;
  await writeRemote(sftp, grantPath, renderPullGrant(items), 0o600);
  await writeRemote(sftp, scriptPath, renderBoxPuller(opts), 0o700);
  return { grantPath, scriptPath, command: (dest) => `sh ${shQuote(scriptPath)} ${shQuote(grantPath)} ${shQuote(dest)}` };
}

// Bundled by bench/sync.bench.ts the way esbuild.mjs bundles the extension (ssh2's native
// add-ons left out, so ssh2 runs its pure-JS crypto as in the extension host), then run in a
// child process: connects once through the app's SshPool (the extension's warm pool), then
// times syncOnce (or pushOnce) alone and prints { ms, files, bytes } as one JSON line.
import { SshPool } from '../src/app/pool';
import { parseTarget } from '../src/remote/target';
import { syncOnce } from '../src/remote/sync';
import { pushOnce } from '../src/remote/sync/push';

async function main(): Promise<void> {
  const a = JSON.parse(process.argv[2]!) as { target: string; key: string; knownHosts: string; remote: string; local: string; push?: boolean };
  const pool = new SshPool();
  try {
    const conn = await pool.get('bench', parseTarget(a.target), { acceptNew: true, identityFiles: [a.key], knownHostsPath: a.knownHosts, useDefaultKeys: false, agent: false });
    const remote = { sftp: () => conn.sftp(), exec: (c: string, o?: { timeoutMs?: number; login?: boolean }) => conn.exec(c, { login: false, timeoutMs: o?.timeoutMs }) };
    await conn.sftp();
    const t0 = performance.now();
    const r = a.push ? await pushOnce(remote, { localDir: a.local, remoteDir: a.remote }) : await syncOnce(remote, { remoteDir: a.remote, localDir: a.local, settleSeconds: 0, source: 'bench' });
    console.log(JSON.stringify({ ms: performance.now() - t0, files: r.files, bytes: r.bytes }));
  } finally {
    pool.dispose();
  }
}
main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});

// Checkpoint sync against the tools users would otherwise use, same run, same loopback sshd:
//  1. first pull of 1 GiB of checkpoints (4 × 256 MiB random files): gpu-rent sync (the CLI,
//     a new process and connection, verifying SHA-256 on the box) and syncOnce on a warm
//     connection vs `scp -r` and `rsync -a -e ssh`. Target: no slower than scp. On loopback
//     every party shares the CPUs, and sync also hashes each file on both ends.
//  2. re-sync of 1000 unchanged small files: rsync vs the CLI (target: faster) and vs
//     syncOnce on a warm pooled connection, the extension's case (target: under a fifth).
// Several rounds each, medians, ratios. Disk use is bounded (one local copy at a time).
// Every tool runs with its defaults; the ciphers each side negotiates are printed first
// (OpenSSH picks chacha20-poly1305, ssh2 aes128-gcm; the CLI uses ssh2's native crypto
// binding when ssh2's install step built it, pure JS otherwise — which one is printed too).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Client } from 'ssh2';
import { startSshd, type TestSshd } from '../test/support/sshd';
import { CLI } from '../test/support/cli';
import { SshPool } from '../src/app/pool';
import { parseTarget } from '../src/remote/target';
import { syncOnce } from '../src/remote/sync';

const ROUNDS_BIG = Number(process.env.SYNC_BENCH_ROUNDS ?? 3);
const ROUNDS_SMALL = 7;
const FILE_MIB = Number(process.env.SYNC_BENCH_FILE_MIB ?? 256);
const FILES = 4;
const SMALL_FILES = 1000;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const secs = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
const pad = (s: string, n: number) => s.padEnd(n);

function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

async function timedAsync(fn: () => void | Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

function run(cmd: string, args: string[], env?: NodeJS.ProcessEnv): void {
  const r = spawnSync(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr.slice(0, 500)}`);
}

function sha256File(path: string): string {
  const h = createHash('sha256');
  const buf = Buffer.allocUnsafe(4 * 1024 * 1024);
  const fd = openSync(path, 'r');
  try {
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

function writeRandomFile(path: string, mib: number): void {
  const fd = openSync(path, 'w');
  try {
    for (let i = 0; i < mib; i++) writeSync(fd, randomBytes(1024 * 1024));
  } finally {
    closeSync(fd);
  }
}

/** Which cipher ssh2 and OpenSSH's client each negotiate with this sshd, and whether ssh2 runs native crypto. */
async function cipherLine(sshd: TestSshd, sshCmd: string, login: string): Promise<string> {
  let native = 'no (pure JS)';
  try {
    createRequire(__filename)('ssh2/lib/protocol/crypto/build/Release/sshcrypto.node');
    native = 'yes';
  } catch {
    /* not built at install time */
  }
  const ours = await new Promise<string>((res) => {
    const c = new Client();
    let cipher = '?';
    c.on('handshake', (n: { cs?: { cipher?: string } }) => {
      cipher = n.cs?.cipher ?? '?';
    });
    c.on('ready', () => c.end());
    c.on('error', () => res(cipher));
    c.on('close', () => res(cipher));
    c.connect({ host: '127.0.0.1', port: sshd.port, username: sshd.user, privateKey: readFileSync(sshd.privateKeyPath) });
  });
  const v = spawnSync('sh', ['-c', `${sshCmd} -v ${login} true`], { encoding: 'utf8' });
  const theirs = /server->client cipher: (\S+)/.exec(v.stderr)?.[1] ?? '?';
  return `ciphers: gpu-rent/ssh2 ${ours} (native crypto binding: ${native}); scp, rsync and ssh (OpenSSH defaults) ${theirs}`;
}

export async function run_(): Promise<void> {
  for (const tool of ['scp', 'rsync', 'ssh']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
      console.log(`skipped: ${tool} is not installed (scripts/ensure-system-deps.sh installs it)`);
      return;
    }
  }
  let sshd: TestSshd | undefined;
  const pool = new SshPool();
  const work = mkdtempSync(join(tmpdir(), 'sync-bench-'));
  try {
    sshd = await startSshd();
    const { uid, gid } = statSync(sshd.home);
    const home = join(work, 'home');
    mkdirSync(home);
    const env = { HOME: home, GPU_RENT_HOME: join(home, '.gpu-rent'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' };
    const sshCmd = `ssh -i ${sshd.privateKeyPath} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p ${sshd.port}`;
    const login = `${sshd.user}@127.0.0.1`;
    const target = `ssh://${login}:${sshd.port}`;
    const cliSync = (remote: string, local: string) =>
      run(process.execPath, [CLI, 'sync', target, '--identity', sshd!.privateKeyPath, '--accept-new', '--remote', remote, '--local', local, '--settle', '0', '--json'], env);
    const old = Math.floor(Date.now() / 1000) - 3600;

    const conn = await pool.get(
      'bench',
      parseTarget(target),
      { acceptNew: true, identityFiles: [sshd.privateKeyPath], knownHostsPath: join(home, 'known_hosts'), env: { ...process.env, ...env }, useDefaultKeys: false, agent: false },
    );
    const warmRemote = { sftp: () => conn.sftp(), exec: (c: string, o?: { timeoutMs?: number; login?: boolean }) => conn.exec(c, { login: o?.login ?? false, timeoutMs: o?.timeoutMs }) };

    console.log(await cipherLine(sshd, sshCmd, login));

    // ---- 1. first pull of 1 GiB --------------------------------------------------------
    const big = join(sshd.home, 'big');
    mkdirSync(big);
    for (let i = 0; i < FILES; i++) {
      const p = join(big, `checkpoint-${(i + 1) * 500}.pt`);
      writeRandomFile(p, FILE_MIB);
      utimesSync(p, old, old);
    }
    execFileSync('chown', ['-R', `${uid}:${gid}`, big]);
    const totalBytes = FILES * FILE_MIB * 1024 * 1024;
    const dest = join(work, 'dest');
    const tools: Array<[string, () => void | Promise<unknown>]> = [
      ['gpu-rent sync (CLI)', () => cliSync(big, dest)],
      ['syncOnce, warm connection', () => syncOnce(warmRemote, { remoteDir: big, localDir: dest, settleSeconds: 0, source: 'bench' })],
      ['scp -r', () => run('scp', ['-q', '-r', '-i', sshd!.privateKeyPath, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', '-P', String(sshd!.port), `${login}:${big}`, dest])],
      ['rsync -a -e ssh', () => run('rsync', ['-a', '-e', sshCmd, `${login}:${big}/`, `${dest}/`])],
    ];
    const firstPull = new Map<string, number[]>(tools.map(([n]) => [n, []]));
    for (let round = 0; round < ROUNDS_BIG; round++) {
      for (const [name, fn] of tools) {
        rmSync(dest, { recursive: true, force: true });
        firstPull.get(name)!.push(await timedAsync(fn));
        rmSync(dest, { recursive: true, force: true });
      }
    }
    // What verification costs here: SHA-256 of the same bytes on the box (openssl, as sync
    // runs it) and locally (Node's hash, as sync runs it). On loopback both share the CPUs.
    const files = Array.from({ length: FILES }, (_, i) => join(big, `checkpoint-${(i + 1) * 500}.pt`));
    const boxHashMs = median([0, 1, 2].map(() => timed(() => run('openssl', ['dgst', '-sha256', ...files]))));
    const localHashMs = median([0, 1, 2].map(() => timed(() => files.forEach(sha256File))));
    rmSync(big, { recursive: true, force: true });
    const scpMs = median(firstPull.get('scp -r')!);
    console.log(`first pull of ${FILES} × ${FILE_MIB} MiB, median of ${ROUNDS_BIG} (time, throughput, ratio to scp):`);
    for (const [name] of tools) {
      const ms = median(firstPull.get(name)!);
      console.log(`  ${pad(name, 26)} ${pad(secs(ms), 10)} ${pad(`${(totalBytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s`, 10)} ${(ms / scpMs).toFixed(2)}× scp`);
    }
    const syncMs = median(firstPull.get('gpu-rent sync (CLI)')!);
    console.log(`  target no slower than scp: ${syncMs <= scpMs * 1.05 ? 'met' : 'NOT met'} (sync/scp = ${(syncMs / scpMs).toFixed(2)})`);
    console.log(`  SHA-256 of the same ${FILES * FILE_MIB} MiB, which sync computes on both ends and scp does not: box side (openssl) ${secs(boxHashMs)}, local side (Node) ${secs(localHashMs)}`);

    // ---- 2. re-sync of 1000 unchanged small files ----------------------------------------
    const small = join(sshd.home, 'small');
    for (let i = 0; i < SMALL_FILES; i++) {
      const dir = join(small, `step-${String(i % 10).padStart(2, '0')}`);
      if (i < 10) mkdirSync(dir, { recursive: true });
      const p = join(dir, `shard-${i}.json`);
      writeFileSync(p, randomBytes(1024 + (i % 512)));
      utimesSync(p, old, old);
    }
    execFileSync('chown', ['-R', `${uid}:${gid}`, small]);
    const viaRsync = join(work, 'rsync-copy');
    const viaCli = join(work, 'cli-copy');
    const viaWarm = join(work, 'warm-copy');
    run('rsync', ['-a', '-e', sshCmd, `${login}:${small}/`, `${viaRsync}/`]);
    cliSync(small, viaCli);
    const first = await syncOnce(warmRemote, { remoteDir: small, localDir: viaWarm, settleSeconds: 0, source: 'bench' });
    if (first.files !== SMALL_FILES) throw new Error(`warm first sync pulled ${first.files} files, expected ${SMALL_FILES}`);

    const rsyncTimes: number[] = [];
    const cliTimes: number[] = [];
    const warmTimes: number[] = [];
    let warmBytes = 0;
    for (let round = 0; round < ROUNDS_SMALL; round++) {
      rsyncTimes.push(timed(() => run('rsync', ['-a', '-e', sshCmd, `${login}:${small}/`, `${viaRsync}/`])));
      cliTimes.push(timed(() => cliSync(small, viaCli)));
      const t0 = performance.now();
      const r = await syncOnce(warmRemote, { remoteDir: small, localDir: viaWarm, settleSeconds: 0, source: 'bench' });
      warmTimes.push(performance.now() - t0);
      warmBytes += r.bytes + r.files;
    }
    pool.dispose();
    if (warmBytes !== 0) throw new Error('a no-change re-sync transferred data');
    const rs = median(rsyncTimes);
    const cl = median(cliTimes);
    const wm = median(warmTimes);
    console.log(`re-sync of ${SMALL_FILES} unchanged files in 10 folders, median of ${ROUNDS_SMALL} (ratio to rsync):`);
    console.log(`  ${pad('rsync -a -e ssh', 34)} ${pad(secs(rs), 10)} 1.00×`);
    console.log(`  ${pad('gpu-rent sync (CLI, new process)', 34)} ${pad(secs(cl), 10)} ${(cl / rs).toFixed(2)}×  target < 1: ${cl < rs ? 'met' : 'NOT met'}`);
    console.log(`  ${pad('syncOnce on a warm connection', 34)} ${pad(secs(wm), 10)} ${(wm / rs).toFixed(2)}×  target < 0.2: ${wm < rs / 5 ? 'met' : 'NOT met'}`);
  } finally {
    pool.dispose();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

export { run_ as run };

// Checkpoint sync and push against the tools users would otherwise use, same run, same sshd
// (SYNC_BENCH=big,small,push,shaped,resync picks parts; rounds are interleaved, medians):
//  1. first pull of one 256 MiB file on loopback: the CLI (new process, new connection,
//     SHA-256 of the bytes as they arrive, the file's identity checked on the box), syncOnce on a warm connection, the extension's bundle (ssh2
//     without its native binding, as the extension host runs it) vs scp -r and rsync.
//  2. first pull of 20,000 × 512 B (target ≤ 2× rsync), with process warnings watched.
//  3. push of 256 MiB and of 1000 × 512 B on loopback.
//  4. a shaped link (test/support/shaping-proxy.ts): 40 ms RTT at 100 Mbit/s (256 MiB) and
//     10 Mbit/s (16 MiB), pull and push, big and 1000 small files, and a resume after a cut.
//  5. re-sync of 1000 unchanged small files (rsync vs the CLI, and a warm connection).
// The ciphers each side negotiates are printed first (OpenSSH picks chacha20-poly1305, ssh2
// aes128-gcm; the CLI uses ssh2's native crypto binding when its install built it).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
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
import { syncRemote } from '../src/app/sync';
import { parseTarget } from '../src/remote/target';
import { syncOnce } from '../src/remote/sync';
import { startShapingProxy } from '../test/support/shaping-proxy';
import { runAsync } from './util';

const ROUNDS_BIG = Number(process.env.SYNC_BENCH_ROUNDS ?? 3);
const ROUNDS_SMALL = 7;
const ROUNDS_MANY = Number(process.env.SYNC_BENCH_ROUNDS ?? 3);
const FILE_MIB = Number(process.env.SYNC_BENCH_FILE_MIB ?? 256);
const SMALL_FILES = 1000;
const MANY_FILES = Number(process.env.SYNC_BENCH_MANY ?? 20000);
/** SYNC_BENCH=big,small,push,shaped,resync runs only those parts (default: all). */
const PARTS = (process.env.SYNC_BENCH ?? 'big,small,push,shaped,resync').split(',');
const want = (part: string) => PARTS.includes(part);
const CLI_B = process.env.SYNC_BENCH_CLI_B;

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


/** Runs a command to the end without blocking the event loop; gives its exit code and stdout. */
function runCapture(cmd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
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
    // What the extension hands the engine for a pooled connection (tar streams included).
    const warmRemote = syncRemote(conn);

    console.log(await cipherLine(sshd, sshCmd, login));

    const scpArgs = (port: number) => ['-q', '-r', '-i', sshd!.privateKeyPath, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', '-P', String(port)];
    const sshCmdAt = (port: number) => sshCmd.replace(`-p ${sshd!.port}`, `-p ${port}`);
    const cliAt = (port: number) => `ssh://${login}:${port}`;
    const cliArgs = (port: number) => [cliAt(port), '--identity', sshd!.privateKeyPath, '--accept-new'];
    const pullTools = (port: number, remote: string, dest: string): Array<[string, () => void | Promise<unknown>]> => [
      ['gpu-rent sync (CLI)', () => runAsync(process.execPath, [CLI, 'sync', ...cliArgs(port), '--remote', remote, '--local', dest, '--settle', '0', '--json'], env)],
      // SYNC_BENCH_CLI_B=<another build>/dist/cli.js: that build as its own row, in the same rounds.
      ...(CLI_B ? [['gpu-rent (build B)', () => runAsync(process.execPath, [CLI_B, 'sync', ...cliArgs(port), '--remote', remote, '--local', dest, '--settle', '0', '--json'], env)] as [string, () => Promise<unknown>]] : []),
      ['scp -r', () => runAsync('scp', [...scpArgs(port), `${login}:${remote}`, dest])],
      ['rsync -a -e ssh', () => runAsync('rsync', ['-a', '-e', sshCmdAt(port), `${login}:${remote}/`, `${dest}/`])],
    ];
    const pushTools = (port: number, local: string, remote: string): Array<[string, () => void | Promise<unknown>]> => [
      ['gpu-rent push (CLI)', () => runAsync(process.execPath, [CLI, 'push', ...cliArgs(port), '--local', local, '--remote', remote, '--json'], env)],
      ...(CLI_B ? [['gpu-rent (build B)', () => runAsync(process.execPath, [CLI_B, 'push', ...cliArgs(port), '--local', local, '--remote', remote, '--json'], env)] as [string, () => Promise<unknown>]] : []),
      ['scp -r', () => runAsync('scp', [...scpArgs(port), local, `${login}:${remote}`])],
      ['rsync -a -e ssh', () => runAsync('rsync', ['-a', '-e', sshCmdAt(port), `${local}/`, `${login}:${remote}/`])],
    ];
    const makeSmall = (dir: string, n: number, bytes: number) => {
      for (let i = 0; i < n; i++) {
        const d = join(dir, `step-${String(i % 20).padStart(2, '0')}`);
        if (i < 20) mkdirSync(d, { recursive: true });
        const p = join(d, `shard-${i}.bin`);
        writeFileSync(p, randomBytes(bytes));
        utimesSync(p, old, old);
      }
      execFileSync('chown', ['-R', `${uid}:${gid}`, dir]);
    };
    /** Interleaved rounds; the destination is emptied before each run. */
    const rounds = async (tools: Array<[string, () => void | Promise<unknown>]>, n: number, clean: () => void) => {
      const times = new Map<string, number[]>(tools.map(([t]) => [t, []]));
      for (let r = 0; r < n; r++)
        for (const [name, fn] of tools) {
          clean();
          times.get(name)!.push(await timedAsync(fn));
        }
      clean();
      return new Map([...times].map(([k, v]) => [k, median(v)]));
    };
    const table = (title: string, times: Map<string, number>, base: string, bytes?: number) => {
      console.log(title);
      const b = times.get(base)!;
      for (const [name, ms] of times) console.log(`  ${pad(name, 34)} ${pad(secs(ms), 10)} ${bytes ? pad(`${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s`, 12) : ''}${(ms / b).toFixed(2)}× ${base}`);
    };
    const dest = join(work, 'dest');
    const cleanDest = () => rmSync(dest, { recursive: true, force: true });

    // ---- 1. first pull of one 256 MiB file --------------------------------------------
    if (want('big')) {
      const big = join(sshd.home, 'big');
      mkdirSync(big);
      const p = join(big, 'checkpoint-500.pt');
      writeRandomFile(p, FILE_MIB);
      utimesSync(p, old, old);
      execFileSync('chown', ['-R', `${uid}:${gid}`, big]);
      const bytes = FILE_MIB * 1024 * 1024;
      const extBundle = await bundleExtensionPull(work);
      const extRun = () => {
        const r = spawnSync(process.execPath, [extBundle, JSON.stringify({ target, key: sshd!.privateKeyPath, knownHosts: join(home, 'known_hosts'), remote: big, local: dest })], { encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`extension-bundle pull failed: ${r.stderr.slice(0, 300)}`);
        extMs.push((JSON.parse(r.stdout.trim().split('\n').pop()!) as { ms: number }).ms);
      };
      const extMs: number[] = [];
      const tools = [...pullTools(sshd.port, big, dest), ['syncOnce, warm connection (CLI build of ssh2)', () => syncOnce(warmRemote, { remoteDir: big, localDir: dest, settleSeconds: 0, source: 'bench' })] as [string, () => Promise<unknown>], ['extension bundle (pure-JS ssh2), new process', extRun] as [string, () => void]];
      const t = await rounds(tools, ROUNDS_BIG, cleanDest);
      t.set('extension bundle, syncOnce alone (warm)', median(extMs));
      table(`first pull of 1 × ${FILE_MIB} MiB on loopback, median of ${ROUNDS_BIG} interleaved rounds (time, throughput, ratio):`, t, 'scp -r', bytes);
      const cli = t.get('gpu-rent sync (CLI)')!;
      const scp = t.get('scp -r')!;
      console.log(`  target ≤ 1.0× scp (CLI, verified: SHA-256 here, unchanged identity on the box): ${cli <= scp ? 'met' : 'NOT met'} (${(cli / scp).toFixed(2)}×)`);
      const boxHashMs = median([0, 1, 2].map(() => timed(() => run('openssl', ['dgst', '-sha256', p]))));
      console.log(`  SHA-256 of the same ${FILE_MIB} MiB on the box (openssl; what --box-hash adds there, alongside the transfer): ${secs(boxHashMs)}`);
      rmSync(big, { recursive: true, force: true });
    }

    // ---- 2. first pull of 20,000 small files -----------------------------------------
    if (want('small')) {
      const small = join(sshd.home, 'many');
      makeSmall(small, MANY_FILES, 512);
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.name);
      process.on('warning', onWarning);
      const tools = [...pullTools(sshd.port, small, dest).filter(([n]) => n !== 'scp -r'), ['syncOnce, warm connection', () => syncOnce(warmRemote, { remoteDir: small, localDir: dest, settleSeconds: 0, source: 'bench' })] as [string, () => Promise<unknown>]];
      const t = await rounds(tools, ROUNDS_MANY, cleanDest);
      process.off('warning', onWarning);
      table(`first pull of ${MANY_FILES} × 512 B in 20 folders on loopback, median of ${ROUNDS_MANY} (ratio to rsync):`, t, 'rsync -a -e ssh');
      const cli = t.get('gpu-rent sync (CLI)')!;
      const rs = t.get('rsync -a -e ssh')!;
      console.log(`  target ≤ 2× rsync: ${cli <= 2 * rs ? 'met' : 'NOT met'} (${(cli / rs).toFixed(2)}×); process warnings during the in-process runs: ${warnings.length ? warnings.join(', ') : 'none'}`);
      rmSync(small, { recursive: true, force: true });
    }

    // ---- 3. push on loopback -------------------------------------------------------
    if (want('push')) {
      const src = join(work, 'push-src');
      mkdirSync(src);
      const p = join(src, 'weights.bin');
      writeRandomFile(p, FILE_MIB);
      utimesSync(p, old, old);
      const boxDest = join(sshd.home, 'pushed');
      const cleanBox = () => rmSync(boxDest, { recursive: true, force: true });
      const t = await rounds(pushTools(sshd.port, src, boxDest), ROUNDS_BIG, cleanBox);
      table(`push of 1 × ${FILE_MIB} MiB on loopback, median of ${ROUNDS_BIG} (ratio to scp):`, t, 'scp -r', FILE_MIB * 1024 * 1024);
      rmSync(src, { recursive: true, force: true });
      mkdirSync(src);
      makeSmall(src, SMALL_FILES, 512);
      const t2 = await rounds(pushTools(sshd.port, src, boxDest), ROUNDS_BIG, cleanBox);
      table(`push of ${SMALL_FILES} × 512 B on loopback, median of ${ROUNDS_BIG} (ratio to rsync):`, t2, 'rsync -a -e ssh');
      rmSync(src, { recursive: true, force: true });
    }

    // ---- 4. a shaped link: 40 ms RTT at 100 and 10 Mbit/s -----------------------------
    if (want('shaped')) await shapedLink({ sshd, work, dest, old, uid, gid, pullTools, pushTools, makeSmall, rounds, table, cleanDest, cliArgs });

    // ---- 5. re-sync of 1000 unchanged small files ----------------------------------------
    if (want('resync')) {
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
    }
  } finally {
    pool.dispose();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

export { run_ as run };

type Tools = Array<[string, () => void | Promise<unknown>]>;

/** Bundles bench/ext-pull.ts as esbuild.mjs bundles the extension: ssh2's *.node add-ons external (not found: pure JS). */
async function bundleExtensionPull(work: string): Promise<string> {
  const esbuild = await import('esbuild');
  const out = join(work, 'ext-pull.js');
  await esbuild.build({ entryPoints: [join(__dirname, 'ext-pull.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node18', outfile: out, external: ['vscode', 'cpu-features', '*.node'], logLevel: 'error' });
  return out;
}

interface ShapedCtx {
  sshd: TestSshd;
  work: string;
  dest: string;
  old: number;
  uid: number;
  gid: number;
  pullTools: (port: number, remote: string, dest: string) => Tools;
  pushTools: (port: number, local: string, remote: string) => Tools;
  makeSmall: (dir: string, n: number, bytes: number) => void;
  rounds: (tools: Tools, n: number, clean: () => void) => Promise<Map<string, number>>;
  table: (title: string, times: Map<string, number>, base: string, bytes?: number) => void;
  cleanDest: () => void;
  cliArgs: (port: number) => string[];
}

/**
 * Pull and push of one big file and of 1000 × 512 B through the shaping proxy at 40 ms RTT,
 * 100 Mbit/s (256 MiB) and 10 Mbit/s (16 MiB by default: 256 MiB would take 3.5 min per tool),
 * one round each (the link, not the CPU, sets the time). scp is left out of the small-file
 * rows: it copies one file after another, a few round trips each (1000 files ≈ 3 min here).
 * Then a pull cut at 50% and resumed: bytes that crossed the link beyond one file's size.
 */
async function shapedLink(c: ShapedCtx): Promise<void> {
  // SYNC_BENCH_SHAPED_MBIT=100 one link only; SYNC_BENCH_SHAPED_ROWS=pull-big,... some rows only
  // (pull-big, pull-small, push-big, push-small, repush-small, resume); SYNC_BENCH_SHAPED_ROUNDS=5 interleaved rounds.
  const mbits = (process.env.SYNC_BENCH_SHAPED_MBIT ?? '100,10').split(',').map(Number);
  const rows = new Set((process.env.SYNC_BENCH_SHAPED_ROWS ?? 'pull-big,pull-small,push-big,push-small,resume').split(','));
  const shapedRounds = Number(process.env.SYNC_BENCH_SHAPED_ROUNDS ?? 1);
  const links = [
    { mbit: 100, mib: Number(process.env.SYNC_BENCH_SHAPED_MIB ?? 256) },
    { mbit: 10, mib: Number(process.env.SYNC_BENCH_SLOW_MIB ?? 16) },
  ].filter((l) => mbits.includes(l.mbit));
  const boxBig = join(c.sshd.home, 'shaped-big');
  const boxSmall = join(c.sshd.home, 'shaped-small');
  const boxDest = join(c.sshd.home, 'shaped-pushed');
  const localBig = join(c.work, 'shaped-local-big');
  const localSmall = join(c.work, 'shaped-local-small');
  const cleanBox = () => rmSync(boxDest, { recursive: true, force: true });
  c.makeSmall(boxSmall, SMALL_FILES, 512);
  c.makeSmall(localSmall, SMALL_FILES, 512);
  for (const link of links) {
    const proxy = await startShapingProxy(c.sshd.port, { rttMs: 40, bitsPerSecond: link.mbit * 1e6 });
    try {
      for (const d of [boxBig, localBig]) {
        rmSync(d, { recursive: true, force: true });
        mkdirSync(d);
        writeRandomFile(join(d, 'weights.bin'), link.mib);
        utimesSync(join(d, 'weights.bin'), c.old, c.old);
      }
      execFileSync('chown', ['-R', `${c.uid}:${c.gid}`, boxBig]);
      const bytes = link.mib * 1024 * 1024;
      const tag = `40 ms RTT, ${link.mbit} Mbit/s`;
      if (rows.has('pull-big')) {
        const bigPull = await c.rounds(c.pullTools(proxy.port, boxBig, c.dest), shapedRounds, c.cleanDest);
        c.table(`[${tag}] pull of 1 × ${link.mib} MiB (ratio to the faster of scp and rsync):`, bigPull, fasterOf(bigPull), bytes);
      }
      if (rows.has('pull-small')) {
        const smallPull = await c.rounds(c.pullTools(proxy.port, boxSmall, c.dest).filter(([n]) => n !== 'scp -r'), shapedRounds, c.cleanDest);
        c.table(`[${tag}] pull of ${SMALL_FILES} × 512 B (ratio to rsync; scp left out, see above):`, smallPull, 'rsync -a -e ssh');
      }
      if (rows.has('push-big')) {
        const bigPush = await c.rounds(c.pushTools(proxy.port, localBig, boxDest), shapedRounds, cleanBox);
        c.table(`[${tag}] push of 1 × ${link.mib} MiB (ratio to the faster of scp and rsync):`, bigPush, fasterOf(bigPush), bytes);
      }
      if (rows.has('push-small')) {
        const smallPush = await c.rounds(c.pushTools(proxy.port, localSmall, boxDest).filter(([n]) => n !== 'scp -r'), shapedRounds, cleanBox);
        c.table(`[${tag}] push of ${SMALL_FILES} × 512 B (ratio to rsync):`, smallPush, 'rsync -a -e ssh');
      }
      if (rows.has('repush-small')) {
        // A push again after editing a few files: the box holds the last push (same sizes and
        // mtimes), 10 of the 1000 local files changed since. Each run starts from that state.
        // Each edit a whole second later than the last (mtimes compare in seconds: two runs in
        // the same second would see nothing changed).
        let edits = 0;
        const again = () => {
          cleanBox();
          execFileSync('cp', ['-a', localSmall, boxDest]);
          execFileSync('chown', ['-R', `${c.uid}:${c.gid}`, boxDest]);
          const t = c.old + 60 + ++edits;
          for (let i = 0; i < 10; i++) {
            const p = join(localSmall, `step-${String(i % 20).padStart(2, '0')}`, `shard-${i}.bin`);
            writeFileSync(p, randomBytes(512));
            utimesSync(p, t, t);
          }
        };
        const rePush = await c.rounds(c.pushTools(proxy.port, localSmall, boxDest).filter(([n]) => n !== 'scp -r'), shapedRounds, again);
        c.table(`[${tag}] push again of ${SMALL_FILES} × 512 B, 10 changed (ratio to rsync):`, rePush, 'rsync -a -e ssh');
      }
      if (link.mbit === 100 && rows.has('resume')) {
        // Resume: cut the link once half the file has come down, then pull again.
        c.cleanDest();
        const env = { HOME: join(c.work, 'home'), GPU_RENT_HOME: join(c.work, 'home', '.gpu-rent'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' };
        const args = [CLI, 'sync', ...c.cliArgs(proxy.port), '--remote', boxBig, '--local', c.dest, '--settle', '0', '--json'];
        const before = proxy.bytesDown;
        proxy.cutDownAfter(Math.floor(bytes / 2));
        await runCapture(process.execPath, args, env);
        proxy.cutDownAfter(null);
        const part = join(c.dest, 'weights.bin.part');
        const partBytes = statSync(part, { throwIfNoEntry: false })?.size ?? 0;
        const r = await runCapture(process.execPath, args, env);
        const report = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { bytes?: number };
        const onLink = proxy.bytesDown - before;
        const ok = sha256File(join(c.dest, 'weights.bin')) === sha256File(join(boxBig, 'weights.bin'));
        const resentPayload = partBytes + (report.bytes ?? 0) - bytes;
        console.log(
          `[${tag}] resume after a cut at 50%: .part kept ${(partBytes / 1048576).toFixed(1)} MiB, second run read ${((report.bytes ?? 0) / 1048576).toFixed(1)} MiB; ` +
            `file bytes read twice ${resentPayload} (${((resentPayload / bytes) * 100).toFixed(2)}%); all bytes on the link (SSH framing, the data lost in flight at the cut, both logins) ${((onLink / bytes - 1) * 100).toFixed(2)}% over the file size; ` +
            `target ≤ 5%: ${onLink - bytes <= 0.05 * bytes ? 'met' : 'NOT met'}; verified copy: ${ok ? 'yes' : 'NO'}`,
        );
        c.cleanDest();
      }
    } finally {
      await proxy.close();
    }
  }
  for (const d of [boxBig, boxSmall, localBig, localSmall]) rmSync(d, { recursive: true, force: true });
  cleanBox();
}

function fasterOf(t: Map<string, number>): string {
  return (t.get('scp -r') ?? Infinity) <= (t.get('rsync -a -e ssh') ?? Infinity) ? 'scp -r' : 'rsync -a -e ssh';
}

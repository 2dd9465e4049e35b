// Pulls measured by CPU time, not wall time: on a shared 2-core VM other jobs stretch every
// wall-clock figure, while the core-seconds a transfer burns move far less. For each run,
// user+sys of the client's process tree (gpu-rent's CLI; scp or rsync with their ssh) from
// this process's reaped-children counters, and of the box's side (sshd's session processes,
// sftp-server, tar, sha256sum...) from the test sshd's own reaped-children counters.
// Interleaved rounds, medians, every copy checked by SHA-256 against the box's file.
//   PULL_CPU=tiny,big,small  which parts (default all)
//   PULL_CPU_ROUNDS=5      rounds per part
//   PULL_CPU_MIB=256       the big file's size
//   PULL_CPU_MANY=2000,20000  small-file counts (512 B each, in 20 folders)
//   PULL_CPU_DEST=DIR      where the local copies go (default: a temp folder; /dev/shm takes this VM's
//                          journal-less ext4 out: each file creation there costs ~0.5 ms of kernel
//                          CPU in ext4's scan past recently deleted inodes, for every tool alike)
//   PULL_CPU_BOXES=1       print the box side's CPU by process name after each run
//   PULL_CPU_PROF=DIR      also run the CLI once more per part under node --cpu-prof into DIR
//   PULL_CPU_STRACE=FILE   also run each tool once more per part under `strace -f -c` into FILE.<part>.<tool>
//   PULL_CPU_PERF=FILE     also run the CLI once more per part under `perf record -g` (all threads, JIT names) into FILE.<part>
//   PULL_CPU_CLI=NAME=PATH,...  also run these builds of the CLI (another checkout's dist/cli.js) in the same rounds: A/B
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { startSshd, type TestSshd } from '../test/support/sshd';
import { CLI } from '../test/support/cli';

const ROUNDS = Number(process.env.PULL_CPU_ROUNDS ?? 5);
const MIB = Number(process.env.PULL_CPU_MIB ?? 256);
const MANY = (process.env.PULL_CPU_MANY ?? '2000,20000').split(',').map(Number);
/** big, small, and tiny (one 1-byte file: each tool's fixed cost, start-up and login). */
const PARTS = (process.env.PULL_CPU ?? 'tiny,big,small').split(',');
const PROF = process.env.PULL_CPU_PROF;
const PERF = process.env.PULL_CPU_PERF;
const STRACE = process.env.PULL_CPU_STRACE;
const OTHER_CLIS = (process.env.PULL_CPU_CLI ?? '').split(',').filter(Boolean).map((e) => e.split('=') as [string, string]);
const TCK = 100; // USER_HZ on Linux

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** utime, stime, cutime, cstime of a process, in seconds. */
function cpuOf(pid: number | 'self'): { self: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state(0) ... utime(11) stime(12) cutime(13) cstime(14)
  return { self: (Number(f[11]) + Number(f[12])) / TCK, children: (Number(f[13]) + Number(f[14])) / TCK };
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const s = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(e));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Waits until sshd has reaped every session of the run. */
async function sessionsReaped(master: number): Promise<void> {
  for (let i = 0; i < 100 && childrenOf(master).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
}

/**
 * The box side's CPU: sshd does not hand its sessions' descendants' times up to the listener
 * (a 300 MB sha256sum run over ssh showed 0.14 s in the listener's reaped-children counters
 * against 1.16 s run here), so every process below the listener is sampled every 10 ms and
 * its own user+sys taken at the last sample; a process that ends loses at most its last
 * 10 ms (an undercount that favours neither tool: both run the same sshd).
 */
function boxSampler(master: number): { stop(): number } {
  const last = new Map<number, number>(); // pid → own CPU seconds at its last sample
  const comm = new Map<number, string>();
  const below = new Map<number, boolean>();
  const sample = () => {
    for (const e of readdirSync('/proc')) {
      if (!/^\d+$/.test(e)) continue;
      const pid = Number(e);
      try {
        const s = readFileSync(`/proc/${e}/stat`, 'utf8');
        const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
        const ppid = Number(f[1]);
        let mine = below.get(pid);
        if (mine === undefined) {
          mine = ppid === master || below.get(ppid) === true;
          below.set(pid, mine);
        }
        if (mine) {
          last.set(pid, (Number(f[11]) + Number(f[12])) / TCK);
          comm.set(pid, s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')));
        }
      } catch {
        /* gone */
      }
    }
  };
  sample();
  const timer = setInterval(sample, 10);
  return {
    stop() {
      clearInterval(timer);
      sample();
      let n = 0;
      const by = new Map<string, [number, number]>();
      for (const [pid, v] of last) {
        n += v;
        const k = comm.get(pid) ?? '?';
        const e = by.get(k) ?? [0, 0];
        by.set(k, [e[0] + v, e[1] + 1]);
      }
      if (process.env.PULL_CPU_BOXES) console.log(`    box: ${[...by].sort((a, b) => b[1][0] - a[1][0]).map(([k, [t, c]]) => `${k} ×${c} ${t.toFixed(2)} s`).join(', ')}`);
      return n;
    },
  };
}

interface Cpu {
  client: number;
  box: number;
  wall: number;
}

function spawnWait(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-2000)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} failed (${code}): ${stderr.slice(0, 500)}`))));
  });
}

async function measured(master: number, cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<Cpu> {
  await sessionsReaped(master);
  const c0 = cpuOf('self').children;
  const box = boxSampler(master);
  const t0 = performance.now();
  await spawnWait(cmd, args, env);
  const wall = (performance.now() - t0) / 1000;
  return { client: cpuOf('self').children - c0, box: box.stop(), wall };
}

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function writeRandomFile(path: string, mib: number): void {
  const fd = openSync(path, 'w');
  try {
    for (let i = 0; i < mib; i++) writeSync(fd, randomBytes(1024 * 1024));
  } finally {
    closeSync(fd);
  }
}

export async function run(): Promise<void> {
  // Node reads NODE_EXTRA_CA_CERTS at every start, before any script runs: where it is set (this
  // sandbox sets it) each CLI start pays 45-65 ms of CPU that ssh, scp and rsync do not.
  // `env -u NODE_EXTRA_CA_CERTS npx tsx bench/run.ts pull-cpu` measures without it.
  if (process.env.NODE_EXTRA_CA_CERTS) console.log('note: NODE_EXTRA_CA_CERTS is set: every node start (the CLI\'s) loads those certificates, 45-65 ms of CPU on this VM');
  let sshd: TestSshd | undefined;
  const work = mkdtempSync(join(tmpdir(), 'pull-cpu-'));
  try {
    sshd = await startSshd();
    const master = Number(readFileSync(join(dirname(sshd.configPath), 'sshd.pid'), 'utf8').trim());
    const { uid, gid } = statSync(sshd.home);
    const home = join(work, 'home');
    mkdirSync(home);
    const env = { HOME: home, GPU_RENT_HOME: join(home, '.gpu-rent'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' };
    const login = `${sshd.user}@127.0.0.1`;
    const sshOpts = ['-i', sshd.privateKeyPath, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'];
    const sshCmd = `ssh ${sshOpts.join(' ')} -p ${sshd.port}`;
    const cliArgs = [`ssh://${login}:${sshd.port}`, '--identity', sshd.privateKeyPath, '--accept-new'];
    const destRoot = process.env.PULL_CPU_DEST ? mkdtempSync(join(process.env.PULL_CPU_DEST, 'pull-cpu-dest-')) : work;
    const dest = join(destRoot, 'dest');
    const old = Math.floor(Date.now() / 1000) - 3600;
    const cli = (remote: string, nodeFlags: string[] = [], path = CLI): [string, string[]] => [process.execPath, [...nodeFlags, path, 'sync', ...cliArgs, '--remote', remote, '--local', dest, '--settle', '0', '--json']];
    const tools = (remote: string, withScp: boolean): Array<[string, [string, string[]]]> => [
      ['gpu-rent sync (CLI)', cli(remote)],
      ...OTHER_CLIS.map(([name, path]) => [`gpu-rent (${name})`, cli(remote, [], path)] as [string, [string, string[]]]),
      ...(withScp ? [['scp -r', ['scp', ['-q', '-r', ...sshOpts, '-P', String(sshd!.port), `${login}:${remote}`, dest]]] as [string, [string, string[]]]] : []),
      ['rsync -a -e ssh', ['rsync', ['-a', '-e', sshCmd, `${login}:${remote}/`, `${dest}/`]]],
    ];
    const clean = () => rmSync(dest, { recursive: true, force: true });
    const report = async (tag: string, title: string, remote: string, withScp: boolean, base: string, verify: () => void) => {
      const list = tools(remote, withScp);
      const got = new Map<string, Cpu[]>(list.map(([n]) => [n, []]));
      const load0 = loadavg()[0]!;
      for (let r = 0; r < ROUNDS; r++)
        for (const [name, [cmd, args]] of list) {
          clean();
          if (base === 'rsync -a -e ssh' || name !== 'scp -r') mkdirSync(dest, { recursive: true });
          got.get(name)!.push(await measured(master, cmd, args, env));
          verify();
        }
      clean();
      console.log(`${title}, local copies in ${destRoot === work ? 'a temp folder' : process.env.PULL_CPU_DEST}, median of ${ROUNDS} interleaved rounds, load ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}:`);
      console.log(`  ${'tool'.padEnd(22)} ${'client CPU'.padEnd(11)} ${'box CPU'.padEnd(9)} ${'total'.padEnd(9)} ${'vs ' + base.padEnd(16)} wall (under load)`);
      const tot = (c: Cpu) => c.client + c.box;
      if (ROUNDS > 0) {
      const b = median(got.get(base)!.map(tot));
      for (const [name, xs] of got) {
        const t = median(xs.map(tot));
        console.log(`  ${name.padEnd(22)} ${(median(xs.map((c) => c.client)).toFixed(2) + ' s').padEnd(11)} ${(median(xs.map((c) => c.box)).toFixed(2) + ' s').padEnd(9)} ${(t.toFixed(2) + ' s').padEnd(9)} ${((t / b).toFixed(2) + '×').padEnd(19)} ${median(xs.map((c) => c.wall)).toFixed(2)} s`);
      }
      }
      if (PROF) {
        clean();
        mkdirSync(PROF, { recursive: true });
        const [cmd, args] = cli(remote, ['--cpu-prof', '--cpu-prof-dir', PROF, '--cpu-prof-interval', '500']);
        await spawnWait(cmd, args, env);
        verify();
        clean();
      }
      if (STRACE) {
        for (const [name, [cmd, args]] of list) {
          clean();
          if (name !== 'scp -r') mkdirSync(dest, { recursive: true });
          await spawnWait('strace', ['-f', '-c', '-o', `${STRACE}.${tag}.${name.split(' ')[0]}`, cmd, ...args], env);
          verify();
        }
        clean();
      }
      if (PERF) {
        clean();
        const [cmd, args] = cli(remote, ['--perf-basic-prof']);
        await spawnWait('perf', ['record', '-q', '-F', '997', '-g', '-o', `${PERF}.${tag}`, '--', cmd, ...args], env);
        verify();
        clean();
      }
    };

    if (PARTS.includes('tiny')) {
      const tiny = join(sshd.home, 'tiny');
      mkdirSync(tiny);
      writeFileSync(join(tiny, 'a.txt'), 'x');
      utimesSync(join(tiny, 'a.txt'), old, old);
      execFileSync('chown', ['-R', `${uid}:${gid}`, tiny]);
      await report('tiny', 'first pull of 1 × 1 B: start-up, login, listing (CPU seconds)', tiny, true, 'scp -r', () => {
        const got = [join(dest, 'a.txt'), join(dest, 'tiny', 'a.txt')].find((x) => statSync(x, { throwIfNoEntry: false }));
        if (!got || readFileSync(got, 'utf8') !== 'x') throw new Error('the 1-byte file did not arrive');
      });
      rmSync(tiny, { recursive: true, force: true });
    }
    if (PARTS.includes('big')) {
      const big = join(sshd.home, 'big');
      mkdirSync(big);
      const p = join(big, 'checkpoint-500.pt');
      writeRandomFile(p, MIB);
      utimesSync(p, old, old);
      execFileSync('chown', ['-R', `${uid}:${gid}`, big]);
      const want = sha256File(p);
      await report('big', `first pull of 1 × ${MIB} MiB on loopback (CPU seconds)`, big, true, 'scp -r', () => {
        const got = [join(dest, 'checkpoint-500.pt'), join(dest, 'big', 'checkpoint-500.pt')].find((x) => statSync(x, { throwIfNoEntry: false }));
        if (!got || sha256File(got) !== want) throw new Error('a pulled copy differs from the box\'s file');
      });
      rmSync(big, { recursive: true, force: true });
    }
    if (PARTS.includes('small')) {
      for (const n of MANY) {
        const small = join(sshd.home, `many-${n}`);
        for (let i = 0; i < n; i++) {
          const d = join(small, `step-${String(i % 20).padStart(2, '0')}`);
          if (i < 20) mkdirSync(d, { recursive: true });
          const f = join(d, `shard-${i}.bin`);
          writeFileSync(f, randomBytes(512));
          utimesSync(f, old, old);
        }
        execFileSync('chown', ['-R', `${uid}:${gid}`, small]);
        await report(`small-${n}`, `first pull of ${n} × 512 B in 20 folders on loopback (CPU seconds)`, small, false, 'rsync -a -e ssh', () => {
          const last = join(dest, `step-${String((n - 1) % 20).padStart(2, '0')}`, `shard-${n - 1}.bin`);
          if (readFileSync(last).compare(readFileSync(join(small, `step-${String((n - 1) % 20).padStart(2, '0')}`, `shard-${n - 1}.bin`))) !== 0) throw new Error('a small file differs');
          let count = 0;
          for (const d of readdirSync(dest).filter((x) => x.startsWith('step-'))) count += readdirSync(join(dest, d)).filter((x) => x.endsWith('.bin')).length;
          if (count !== n) throw new Error(`pulled ${count} files, expected ${n}`);
        });
        rmSync(small, { recursive: true, force: true });
      }
    }
  } finally {
    await sshd?.stop();
    if (process.env.PULL_CPU_DEST) for (const d of readdirSync(process.env.PULL_CPU_DEST)) if (d.startsWith('pull-cpu-dest-')) rmSync(join(process.env.PULL_CPU_DEST, d), { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

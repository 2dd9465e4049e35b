// A real OpenSSH server on loopback for the integration tests and benchmarks (TESTING.md §1).
// Each instance gets its own temp folder, host key, config, log and its own throw-away user
// (so parallel suites never share a home, a tmux server or an nvidia-smi choice). Needs root:
// password auth and a second account are only possible for a root sshd.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturesDir as inRepoFixturesDir } from './fixtures';

export interface TestSshd {
  host: string;
  port: number;
  user: string;
  password: string;
  /** Client private key (OpenSSH ed25519) listed in the user's authorized_keys. */
  privateKeyPath: string;
  /** The user's home, a real folder. */
  home: string;
  hostKeyPath: string;
  configPath: string;
  /** sshd's own log (LogLevel VERBOSE), e.g. to prove no authentication was attempted. */
  logPath: string;
  logText(): string;
  /** Which real captured output the fake nvidia-smi prints; null = command not found. */
  setNvidiaSmi(fixtureFileName: string | null): void;
  /** Runs a command as the test user through a login shell on this machine (not over SSH). */
  runAsUser(command: string): string;
  stop(): Promise<void>;
  /** Stops sshd (ending live sessions), optionally stays down for downMs, starts again on the same port. */
  restart(opts?: { newHostKey?: boolean; downMs?: number }): Promise<void>;
}

export interface StartSshdOptions {
  maxSessions?: number;
  port?: number;
  /** nvidia-smi fixture to start with (default rtx4090_driver535.86.05_q.xml); null = none. */
  nvidiaSmi?: string | null;
}

/** Where the real captured nvidia-smi outputs live: test/fixtures/shared in the checkout. */
export function fixturesDir(): string {
  return inRepoFixturesDir();
}

function sh(cmd: string, args: string[], input?: string): string {
  return execFileSync(cmd, args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/** useradd/userdel/chpasswd take a lock on /etc/passwd; serialise them across processes. */
function withUserLock(args: string[], input?: string): string {
  for (let attempt = 0; ; attempt++) {
    try {
      return sh('flock', ['/tmp/gpu-rent-test-users.lock', ...args], input);
    } catch (err) {
      // Someone outside our lock (another tool, a parallel suite's userdel) may hold /etc/passwd.
      if (attempt >= 20) throw err;
      execFileSync('sleep', ['0.25']);
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = net.createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => res(port));
    });
  });
}

/** Resolves once the port answers with an SSH banner. */
function bannerReady(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = net.connect(port, '127.0.0.1');
    let buf = '';
    const done = (ok: boolean) => {
      s.destroy();
      res(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.on('data', (d) => {
      buf += d.toString('latin1');
      if (buf.includes('SSH-2.0-')) done(true);
    });
    s.on('error', () => done(false));
    s.on('close', () => done(buf.includes('SSH-2.0-')));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pidsOf(args: string[]): number[] {
  try {
    return sh('ps', ['-o', 'pid=', ...args])
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => Number.isInteger(n) && n > 0);
  } catch {
    return []; // ps exits 1 when nothing matches
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killPids(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/** Synchronous last-resort cleanups, run if the test process exits without calling stop(). */
const exitCleanups = new Set<() => void>();
process.once('exit', () => {
  for (const c of exitCleanups) {
    try {
      c();
    } catch {
      /* best effort at exit */
    }
  }
});

/** Accounts left by a crashed run: our naming, home folder already gone. */
function purgeStaleUsers(): void {
  let passwd = '';
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return;
  }
  for (const line of passwd.split('\n')) {
    const [name, , , , , homeDir] = line.split(':');
    if (!name || !/^gpr[0-9a-f]{8}$/.test(name) || !homeDir?.includes('gpu-rent-sshd-') || existsSync(homeDir)) continue;
    try {
      withUserLock(['userdel', '--force', name]);
    } catch {
      /* someone else removed it */
    }
  }
}

const NVIDIA_SMI_SCRIPT = `#!/bin/sh
# Test stand-in: prints a real captured nvidia-smi output chosen by the test harness.
exec cat "$HOME/.nvidia-smi-fixture"
`;

export async function startSshd(opts: StartSshdOptions = {}): Promise<TestSshd> {
  if (process.getuid?.() !== 0) throw new Error('the test sshd needs root (password auth and a test user)');
  if (!existsSync('/usr/sbin/sshd')) throw new Error('/usr/sbin/sshd is missing: run scripts/ensure-system-deps.sh');
  const fixtures = join(fixturesDir(), 'nvidia-smi');

  const dir = mkdtempSync(join(tmpdir(), 'gpu-rent-sshd-'));
  chmodSync(dir, 0o755); // the user must be able to reach its home inside
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  purgeStaleUsers();

  const user = `gpr${randomBytes(4).toString('hex')}`;
  const home = join(dir, 'home');
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  withUserLock(['useradd', '--create-home', '--home-dir', home, '--shell', '/bin/bash', '--user-group', user]);
  withUserLock(['chpasswd'], `${user}:${password}\n`);
  const uid = Number(sh('id', ['-u', user]).trim());
  const gid = Number(sh('id', ['-g', user]).trim());

  const ownFile = (path: string, text: string, mode: number) => {
    writeFileSync(path, text, { mode });
    chmodSync(path, mode);
    chownSync(path, uid, gid);
  };
  const ownDir = (path: string, mode: number) => {
    mkdirSync(path, { recursive: true, mode });
    chmodSync(path, mode);
    chownSync(path, uid, gid);
  };

  // Login shells find ~/bin first; .bashrc's early return for non-interactive shells (as in
  // Debian's skeleton) is kept so the tests see the same PATH trap users hit on real boxes.
  ownFile(join(home, '.profile'), ['# test user login profile', 'export PATH="$HOME/bin:$PATH"', 'export CONDA_DEFAULT_ENV=base', '[ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"', ''].join('\n'), 0o644);
  ownFile(join(home, '.bashrc'), ['case $- in *i*) ;; *) return;; esac', 'export PATH="$HOME/bin:$PATH"', ''].join('\n'), 0o644);
  ownDir(join(home, 'bin'), 0o755);
  ownDir(join(home, '.ssh'), 0o700);

  const privateKeyPath = join(dir, 'client_ed25519');
  sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${user}@gpu-rent-test`, '-f', privateKeyPath]);
  ownFile(join(home, '.ssh', 'authorized_keys'), readFileSync(privateKeyPath + '.pub', 'utf8'), 0o600);

  const hostKeyPath = join(dir, 'host_ed25519');
  const newHostKey = () => {
    rmSync(hostKeyPath, { force: true });
    rmSync(hostKeyPath + '.pub', { force: true });
    sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'gpu-rent-test-host', '-f', hostKeyPath]);
  };
  newHostKey();

  const configPath = join(dir, 'sshd_config');
  const pidFile = join(dir, 'sshd.pid');
  const logPath = join(dir, 'sshd.log');
  const writeConfig = (port: number) =>
    writeFileSync(
      configPath,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKeyPath}`,
        `PidFile ${pidFile}`,
        'UsePAM no',
        'StrictModes no',
        'PasswordAuthentication yes',
        'PubkeyAuthentication yes',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin no',
        `AllowUsers ${user}`,
        'AuthorizedKeysFile .ssh/authorized_keys',
        `MaxSessions ${opts.maxSessions ?? 10}`,
        'MaxStartups 200',
        'MaxAuthTries 6',
        'LoginGraceTime 30',
        'UseDNS no',
        'PrintMotd no',
        'PrintLastLog no',
        'Subsystem sftp /usr/lib/openssh/sftp-server',
        'LogLevel VERBOSE',
        '',
      ].join('\n'),
    );

  let child: ChildProcess | undefined;
  let port = opts.port ?? (await freePort());

  const launch = async (): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      writeConfig(port);
      rmSync(pidFile, { force: true });
      const logFd = openSync(logPath, 'a');
      const proc = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', configPath], { stdio: ['ignore', logFd, logFd] });
      closeSync(logFd);
      let exited = false;
      proc.once('exit', () => {
        exited = true;
      });
      const deadline = Date.now() + 10000;
      while (!exited && Date.now() < deadline) {
        if (existsSync(pidFile) && (await bannerReady(port))) {
          child = proc;
          return;
        }
        await sleep(25);
      }
      if (!exited) killPids([proc.pid!], 'SIGKILL');
      const tail = existsSync(logPath) ? readFileSync(logPath, 'utf8').split('\n').slice(-5).join(' | ') : '';
      // Someone else took the free port between our probe and sshd's bind: try another.
      if (opts.port === undefined && attempt < 3 && /Address already in use|Cannot bind/i.test(tail)) {
        port = await freePort();
        continue;
      }
      throw new Error(`sshd did not start on port ${port}: ${tail}`);
    }
  };

  const halt = async (): Promise<void> => {
    const masterPid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : child?.pid;
    if (!masterPid || !Number.isInteger(masterPid)) return;
    // sshd leaves running sessions alive when the listener stops; a stopped instance has none.
    const sessions = pidsOf(['--ppid', String(masterPid)]);
    killPids(sessions, 'SIGKILL');
    killPids([masterPid], 'SIGTERM');
    const deadline = Date.now() + 5000;
    while (alive(masterPid) && Date.now() < deadline) await sleep(20);
    if (alive(masterPid)) killPids([masterPid], 'SIGKILL');
    // Reap the zombie so alive() above and the next start see it gone.
    if (child && child.exitCode === null && child.signalCode === null) await new Promise((r) => child!.once('exit', r));
    child = undefined;
    rmSync(pidFile, { force: true });
  };

  const setNvidiaSmi = (fixtureFileName: string | null): void => {
    const script = join(home, 'bin', 'nvidia-smi');
    const target = join(home, '.nvidia-smi-fixture');
    if (fixtureFileName === null) {
      rmSync(script, { force: true });
      rmSync(target, { force: true });
      return;
    }
    const source = join(fixtures, fixtureFileName);
    if (!existsSync(source)) throw new Error(`no nvidia-smi fixture named ${fixtureFileName} in ${fixtures}`);
    copyFileSync(source, target);
    chownSync(target, uid, gid);
    chmodSync(target, 0o644);
    ownFile(script, NVIDIA_SMI_SCRIPT, 0o755);
  };
  setNvidiaSmi(opts.nvidiaSmi === undefined ? 'rtx4090_driver535.86.05_q.xml' : opts.nvidiaSmi);

  let stopped = false;
  const cleanupAtExit = () => {
    const masterPid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : child?.pid;
    if (masterPid) killPids([...pidsOf(['--ppid', String(masterPid)]), masterPid], 'SIGKILL');
    killPids(pidsOf(['-u', String(uid)]), 'SIGKILL');
    try {
      withUserLock(['userdel', '--force', user]);
    } catch {
      /* harmless leftover */
    }
    rmSync(dir, { recursive: true, force: true });
  };
  exitCleanups.add(cleanupAtExit);
  try {
    await launch();
  } catch (err) {
    exitCleanups.delete(cleanupAtExit);
    cleanupAtExit();
    throw err;
  }

  return {
    host: '127.0.0.1',
    get port() {
      return port;
    },
    user,
    password,
    privateKeyPath,
    home,
    hostKeyPath,
    configPath,
    logPath,
    logText: () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : ''),
    setNvidiaSmi,
    runAsUser: (command: string) => sh('runuser', ['-u', user, '--', 'bash', '-lc', command]),
    restart: async (o = {}) => {
      await halt();
      if (o.newHostKey) newHostKey();
      if (o.downMs) await sleep(o.downMs);
      await launch();
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      exitCleanups.delete(cleanupAtExit);
      await halt();
      // Whatever the tests left running as this throw-away user (tmux servers, detached jobs).
      for (let i = 0; i < 3; i++) {
        const left = pidsOf(['-u', String(uid)]);
        if (left.length === 0) break;
        killPids(left, 'SIGKILL');
        await sleep(100);
      }
      try {
        withUserLock(['userdel', '--force', user]);
      } catch {
        /* a leftover account is harmless; its home goes with the folder below */
      }
      rmSync(join('/tmp', `tmux-${uid}`), { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Remote command latency on loopback: a warm ssh2 connection from the pool vs OpenSSH
// `ssh host true` (a new connection per call) vs OpenSSH ControlMaster (multiplexed).
// Several rounds, medians, ratios side by side (the machines are shared and noisy).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RemoteConnection } from '../src/remote/connection';
import { parseTarget } from '../src/remote/target';
import { startSshd } from '../test/support/sshd';

const run = promisify(execFile);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function timeEach(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

export async function run_(): Promise<void> {
  const sshd = await startSshd({ nvidiaSmi: null });
  const dir = mkdtempSync(join(tmpdir(), 'gpu-rent-bench-ssh-'));
  const base = ['-i', sshd.privateKeyPath, '-p', String(sshd.port), '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR'];
  const dest = `${sshd.user}@${sshd.host}`;
  const cm = ['-o', 'ControlMaster=auto', '-o', `ControlPath=${join(dir, 'cm-%C')}`, '-o', 'ControlPersist=60'];
  const conn = new RemoteConnection(parseTarget(`ssh://${dest}:${sshd.port}`), {
    knownHostsPath: join(dir, 'known_hosts'),
    acceptNew: true,
    identityFiles: [sshd.privateKeyPath],
    useDefaultKeys: false,
    agent: false,
  });
  try {
    await conn.connect();
    // Warm-up: the first ControlMaster call sets up the master; the first exec warms the pool.
    await run('ssh', [...base, ...cm, dest, 'true']);
    await conn.exec('true', { login: false });

    const rounds = 5;
    const ssh2: number[] = [];
    const plain: number[] = [];
    const master: number[] = [];
    for (let r = 0; r < rounds; r++) {
      ssh2.push(median(await timeEach(30, () => conn.exec('true', { login: false }))));
      plain.push(median(await timeEach(5, () => run('ssh', [...base, dest, 'true']))));
      master.push(median(await timeEach(20, () => run('ssh', [...base, ...cm, dest, 'true']))));
    }
    const a = median(ssh2);
    const b = median(plain);
    const c = median(master);
    const f = (ms: number) => `${ms.toFixed(2)} ms`;
    console.log(`remote command latency, median of ${rounds} rounds (each a median of its calls), loopback:`);
    console.log(`  ssh2 exec on a warm pooled connection  ${f(a)}`);
    console.log(`  OpenSSH ssh host true (new connection) ${f(b)}   ${(b / a).toFixed(1)}× slower than ssh2 (target ≥ 50×)`);
    console.log(`  OpenSSH ControlMaster                  ${f(c)}   ${(c / a).toFixed(1)}× slower than ssh2 (target > 1×)`);
    const warm = median(await timeEach(30, () => conn.exec('true')));
    console.log(`  ssh2 exec under a login shell (bash -lc, what commands use) ${f(warm)}`);
    // Why the socket has TCP_NODELAY: the same exec with Nagle's algorithm left on.
    const nagle = new RemoteConnection(parseTarget(`ssh://${dest}:${sshd.port}`), {
      knownHostsPath: join(dir, 'known_hosts'),
      identityFiles: [sshd.privateKeyPath],
      useDefaultKeys: false,
      agent: false,
      noDelay: false,
    });
    try {
      await nagle.exec('true', { login: false });
      const slow = median(await timeEach(15, () => nagle.exec('true', { login: false })));
      console.log(`  ssh2 exec without setNoDelay (Nagle + delayed ACK) ${f(slow)}   ${(slow / a).toFixed(1)}× slower`);
    } finally {
      nagle.close();
    }
  } finally {
    conn.close();
    await run('ssh', [...base, ...cm, '-O', 'exit', dest]).catch(() => undefined);
    await sshd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export { run_ as run };

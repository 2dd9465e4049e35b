// Detached training on a real box: starts without waiting for the job (tmux and setsid), records pid, start
// and exit code, names match exactly, stop ends the whole process group, a job whose wrapper was
// killed shows as lost, and a job keeps running through a connection reset.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { RemoteConnection } from '../../src/remote/connection';
import { followLog, listJobs, readLog, startJob, stopJob, type JobInfo } from '../../src/remote/jobs';
import { runCli } from '../support/cli';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, LIVE_SLEEPS, tempDir } from './remote-helpers';
import { until, untilValue } from '../support/timing';

/** The job's record once it is in `state`. */
async function waitFor(conn: RemoteConnection, name: string, state: JobInfo['state'], ms = 10000): Promise<JobInfo> {
  const get = async () => (await listJobs(conn, { name }))[0];
  const info = await untilValue(`job ${name} to be ${state}`, get, (i) => i?.state === state, { ms, everyMs: 50, show: (i) => `it is ${i?.state ?? 'missing'}` });
  return info!;
}

describe('detached jobs (real sshd)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let proxy: FaultProxy;
  let dir: ReturnType<typeof tempDir>;
  let conn: RemoteConnection;

  before(async () => {
    sshd = await startSshd();
    proxy = await startFaultProxy(sshd.port);
    dir = tempDir();
    conn = connectionTo(sshd, join(dir.path, 'known_hosts'));
    await conn.connect();
  });
  after(async () => {
    conn?.close();
    await proxy?.close();
    await sshd?.stop();
    dir?.remove();
  });

  for (const runner of ['tmux', 'setsid'] as const) {
    it(`${runner}: returns without waiting for the job and records pid, start, log and exit code`, async () => {
      const t0 = Date.now();
      // The job runs 4 s: startJob must come back while it still runs (a wall-clock bound of
      // "under a second" measured the loaded machine, not startJob).
      const job = await startJob(conn, { name: `quick-${runner}`, command: ['bash', '-c', 'echo "lr=$LR in $PWD"; sleep 4; echo done; exit 3'], env: { LR: '1e-4' }, cwd: '~', runner });
      const took = Date.now() - t0;
      assert.ok(took < 4000, `started in ${took} ms: it waited for the job`);
      assert.equal(job.state, 'running');
      assert.equal(job.runner, runner);
      assert.ok(job.pid && job.pid > 1);
      assert.ok(job.startedAt && Math.abs(job.startedAt - Date.now() / 1000) < 30);
      assert.equal(job.cwd, '~');
      const done = await waitFor(conn, job.name, 'exited');
      assert.equal(done.exitCode, 3);
      assert.equal(done.stopped, false);
      assert.ok(done.finishedAt! >= done.startedAt!);
      assert.equal((await readLog(conn, job.name)).text, `lr=1e-4 in ${sshd.home}\ndone\n`);
      if (runner === 'tmux') assert.equal(sshd.runAsUser(`tmux has-session -t '=${job.name}' 2>/dev/null && echo yes || echo gone`).trim(), 'gone');
    });
  }

  it('matches names exactly: train and train_long are different jobs', async () => {
    const long = await startJob(conn, { name: 'train_long', command: ['sleep 30'], runner: 'tmux' });
    const short = await startJob(conn, { name: 'train', command: ['sleep 30'], runner: 'tmux' });
    // A second "train" while the first runs is refused, and train_long is not mistaken for it.
    await assert.rejects(startJob(conn, { name: 'train', command: ['true'] }), /already running/);
    const stopped = await stopJob(conn, 'train', { graceSeconds: 5 });
    assert.equal(stopped.state, 'exited');
    assert.equal(stopped.stopped, true);
    assert.equal(stopped.exitCode, 143, 'SIGTERM');
    const [still] = await listJobs(conn, { name: 'train_long' });
    assert.equal(still?.state, 'running');
    assert.equal(sshd.runAsUser("tmux has-session -t '=train_long' && echo yes").trim(), 'yes');
    // `stop` ends the whole process group, launcher workers included.
    await stopJob(conn, long.name, { graceSeconds: 5 });
    assert.equal(sshd.runAsUser(LIVE_SLEEPS).trim(), '0');
    void short;
  });

  it('a command that ignores TERM is killed after the grace time', async () => {
    await startJob(conn, { name: 'stubborn', command: ["trap '' TERM; sleep 30"], runner: 'setsid' });
    await waitFor(conn, 'stubborn', 'running');
    const t0 = Date.now();
    const stopped = await stopJob(conn, 'stubborn', { graceSeconds: 1 });
    assert.equal(stopped.state, 'exited');
    assert.equal(stopped.stopped, true);
    assert.ok(Date.now() - t0 < 6000);
    assert.equal(sshd.runAsUser(LIVE_SLEEPS).trim(), '0');
  });

  it('a job whose processes were killed behind our back shows as lost', async () => {
    const job = await startJob(conn, { name: 'victim', command: ['sleep 30'], runner: 'setsid' });
    sshd.runAsUser(`kill -KILL -- -${job.pid}`);
    const lost = await waitFor(conn, 'victim', 'lost');
    assert.equal(lost.exitCode, null);
  });

  it('follows a log until the job ends', async () => {
    await startJob(conn, { name: 'chatty', command: ['for i in 1 2 3 4 5; do echo line $i; sleep 0.1; done'] });
    const chunks: string[] = [];
    const end = await followLog(conn, 'chatty', { onData: (c) => chunks.push(c.toString()) });
    assert.equal(chunks.join(''), 'line 1\nline 2\nline 3\nline 4\nline 5\n');
    assert.equal(end.state, 'exited');
    assert.equal(end.exitCode, 0);
  });

  it('a job started, then cut off by a connection reset, is still running after reconnect', async () => {
    const viaProxy = connectionTo(sshd, join(dir.path, 'known_hosts'), { port: proxy.port });
    const job = await startJob(viaProxy, { name: 'survivor', command: ['for i in $(seq 1 30); do echo step $i; sleep 0.1; done'] });
    assert.equal(job.state, 'running');
    proxy.resetAll();
    await until('the connection sees the reset', () => !viaProxy.connected, 10000);
    const [after] = await listJobs(viaProxy, { name: 'survivor' }); // reconnects
    assert.equal(after?.state, 'running');
    assert.equal(after?.pid, job.pid);
    const done = await waitFor(viaProxy, 'survivor', 'exited');
    assert.equal(done.exitCode, 0);
    assert.match((await readLog(viaProxy, 'survivor')).text, /step 30\n$/);
    viaProxy.close();
  });

  it('wraps the command in torchrun with the GPU count read from nvidia-smi', async () => {
    sshd.setNvidiaSmi('rtx2070_x2_driver590.44.01_q.xml');
    const job = await startJob(conn, { name: 'ddp', command: ['python', 'train.py', '--epochs', '3'], launcher: 'torchrun', gpus: 'auto' });
    assert.equal(job.gpus, 2);
    assert.equal(job.commandLine, 'torchrun --standalone --nproc_per_node=2 train.py --epochs 3');
    const done = await waitFor(conn, 'ddp', 'exited');
    assert.equal(done.exitCode, 127, 'no torchrun on the test box');
    assert.match((await readLog(conn, 'ddp')).text, /torchrun: command not found/);
    sshd.setNvidiaSmi(null);
    await assert.rejects(startJob(conn, { name: 'ddp2', command: ['train.py'], launcher: 'deepspeed', gpus: 'auto' }), /GPU count.*--gpus N/);
    sshd.setNvidiaSmi('rtx4090_driver535.86.05_q.xml');
  });

  it('gpu-rent run / jobs / logs / stop from the command line', () => {
    const home = tempDir('gpu-rent-cli-home-');
    try {
      const env = { GPU_RENT_HOME: home.path, HOME: home.path, GPU_RENT_PASSWORD: sshd.password, SSH_AUTH_SOCK: '' };
      const target = `ssh://${sshd.user}@127.0.0.1:${sshd.port}`;
      const started = runCli(['run', target, '--accept-new', '--name', 'cli job', '--env', 'MSG=hello world', '--', 'sh', '-c', 'echo "$MSG"; sleep 30'], { env });
      assert.equal(started.code, 0, started.stderr);
      assert.match(started.stdout, /^started cli-job \(running, pid \d+, via tmux\)/);
      const listed = runCli(['jobs', target, '--json'], { env });
      const jobs = JSON.parse(listed.stdout) as JobInfo[];
      assert.equal(jobs.find((j) => j.name === 'cli-job')?.state, 'running');
      const table = runCli(['jobs', target], { env });
      assert.match(table.stdout, /^NAME\s+STATE\s+STARTED \(UTC\)\s+LOG/);
      assert.match(table.stdout, /cli-job\s+running/);
      const logs = runCli(['logs', target, 'cli-job'], { env });
      assert.equal(logs.stdout, 'hello world\n');
      const stop = runCli(['stop', target, 'cli-job', '--grace', '2'], { env });
      assert.equal(stop.code, 0);
      assert.equal(stop.stdout, 'cli-job: stopped (exit 143)\n');
      assert.equal(runCli(['logs', target, 'nope'], { env }).code, 1);
      const usage = runCli(['run', target, '--name', 'x'], { env });
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /no command: put it after --/);
      assert.equal(runCli(['run', target, '--name', 'x', '--gpus', '2', '--', 'train.py'], { env }).code, 2);
    } finally {
      home.remove();
    }
  });
});

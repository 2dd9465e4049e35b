// Ports (issue 44 deliver 1) against the real sshd: a real HTTP server on the box's loopback
// (python3 -m http.server, started as the test user through the job runner) fetched through the
// forward, on 127.0.0.1 only; an sshd restart dropping the link and the next request remaking it;
// the built CLI's `gpu-rent forward` (JSON line, Ctrl-C, usage errors); TensorBoard started when
// none answers (a stand-in `tensorboard` on the box's PATH that serves its --logdir).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as http from 'node:http';
import * as net from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { ensureTensorBoard, ForwardError, startForward, type ForwardEvent } from '../../src/app/forward';
import type { RemoteConnection } from '../../src/remote/connection';
import { startJob, stopJob } from '../../src/remote/jobs';
import { CLI, runCli } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { until } from '../support/timing';
import { connectionTo, tempDir } from './remote-helpers';

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: 10000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
  });
}

async function freeBoxPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** A non-loopback IPv4 address of this machine, if it has one. */
function outsideAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

describe('port forward (real sshd, real HTTP server on the box)', function () {
  this.timeout(90000);
  let sshd: TestSshd;
  let dir: ReturnType<typeof tempDir>;
  let conn: RemoteConnection;
  let boxPort: number;

  before(async () => {
    sshd = await startSshd();
    dir = tempDir();
    conn = connectionTo(sshd, join(dir.path, 'kh'), { reconnectWindowMs: 20000 });
    boxPort = await freeBoxPort();
    sshd.runAsUser(`mkdir -p ~/site && echo "served from the box $(id -un)" > ~/site/index.html`);
    await startJob(conn, { name: 'web', command: [`exec /usr/bin/python3 -m http.server ${boxPort} --bind 127.0.0.1 --directory "$HOME/site"`], runner: 'setsid' });
    await until('the box web server', async () => (await conn.exec(`timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/${boxPort}' 2>/dev/null`, { login: false })).code === 0, 20000, 200);
  });
  after(async () => {
    await stopJob(conn, 'web').catch(() => undefined);
    conn?.close();
    await sshd?.stop();
    dir?.remove();
  });

  it("serves the box's loopback HTTP server on 127.0.0.1 of the laptop only, and survives an sshd restart", async () => {
    const events: ForwardEvent[] = [];
    const fwd = await startForward({ connection: async () => conn, port: { remote: boxPort, local: 0 }, onEvent: (e) => events.push(e) });
    try {
      assert.match(fwd.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
      const r = await get(fwd.url);
      assert.equal(r.status, 200);
      assert.equal(r.body, `served from the box ${sshd.user}\n`);
      // Several at once (a browser's parallel requests), each its own channel.
      const many = await Promise.all(Array.from({ length: 6 }, () => get(fwd.url)));
      assert.ok(many.every((x) => x.status === 200 && x.body.includes('served from the box')));
      // Only loopback listens: the machine's other address refuses.
      const outside = outsideAddress();
      if (outside) {
        await assert.rejects(
          new Promise<void>((resolve, reject) => {
            const s = net.connect({ host: outside, port: fwd.localPort }, () => {
              s.destroy();
              resolve();
            });
            s.on('error', reject);
          }),
          /ECONNREFUSED/,
        );
      }
      // The link drops (sshd restarted, sessions killed); the next request remakes it.
      await sshd.restart({ downMs: 300 });
      // The user's side of the old session outlives the restart here (reparented to init); a real drop ends it too.
      for (const line of execFileSync('ps', ['-u', sshd.user, '-o', 'pid=,args='], { encoding: 'utf8' }).split('\n')) {
        const m = /^\s*(\d+)\s+sshd: /.exec(line);
        if (m) process.kill(Number(m[1]), 'SIGKILL');
      }
      await until('the drop noticed', () => events.some((e) => e.kind === 'link-lost'), 20000);
      const again = await get(fwd.url);
      assert.equal(again.status, 200);
      assert.equal(again.body, `served from the box ${sshd.user}\n`);
      assert.ok(events.some((e) => e.kind === 'link-restored'), JSON.stringify(events));
    } finally {
      await fwd.close();
    }
    // Closed with its owner: nothing listens any more.
    await assert.rejects(get(fwd.url), /ECONNREFUSED/);
  });

  it('a request to a box port where nothing listens fails that request, not the forward', async () => {
    const events: ForwardEvent[] = [];
    const dead = await freeBoxPort();
    const fwd = await startForward({ connection: async () => conn, port: { remote: dead, local: 0 }, onEvent: (e) => events.push(e) });
    try {
      await assert.rejects(get(fwd.url));
      assert.ok(events.some((e) => e.kind === 'channel-failed'));
    } finally {
      await fwd.close();
    }
  });

  it('a named local port that is taken is refused with local-port-busy', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      await assert.rejects(startForward({ connection: async () => conn, port: { remote: boxPort, local: taken } }), (e: unknown) => e instanceof ForwardError && e.code === 'local-port-busy');
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it('starts TensorBoard on the box (loopback, the log folder given) when none answers, and reuses one that does', async () => {
    const tbPort = await freeBoxPort();
    // Stand-in for tensorboard: serves its --logdir on --host:--port, as the real one serves its UI.
    sshd.runAsUser(
      [
        'cat > ~/bin/tensorboard <<"EOF"',
        '#!/bin/sh',
        'while [ $# -gt 0 ]; do case "$1" in --logdir) D=$2; shift;; --host) H=$2; shift;; --port) P=$2; shift;; esac; shift; done',
        'echo "tensorboard logdir=$D host=$H" > "$D/index.html"',
        'exec /usr/bin/python3 -m http.server "$P" --bind "$H" --directory "$D"',
        'EOF',
        'chmod +x ~/bin/tensorboard',
      ].join('\n'),
    );
    const logdir = `${sshd.home}/runs/tf`;
    const tb = await ensureTensorBoard(conn, { port: tbPort, logdir });
    assert.deepEqual(tb, { port: tbPort, started: true, logdir });
    const fwd = await startForward({ connection: async () => conn, port: { remote: tbPort, local: 0 } });
    try {
      assert.equal((await get(fwd.url)).body, `tensorboard logdir=${logdir} host=127.0.0.1\n`);
    } finally {
      await fwd.close();
    }
    assert.deepEqual(await ensureTensorBoard(conn, { port: tbPort, logdir }), { port: tbPort, started: false });
    await stopJob(conn, 'gpu-rent-tensorboard');
    // No folder given: the one the task's running job names (--logging_dir, relative to its folder).
    await startJob(conn, { name: 'train', command: [': --logging_dir out/tb; exec sleep 60'], cwd: sshd.home, runner: 'setsid' });
    const fromTask = await ensureTensorBoard(conn, { port: tbPort });
    assert.deepEqual(fromTask, { port: tbPort, started: true, logdir: `${sshd.home}/out/tb` });
    await stopJob(conn, 'gpu-rent-tensorboard');
    await stopJob(conn, 'train');
    sshd.runAsUser('rm -f ~/bin/tensorboard');
    await assert.rejects(ensureTensorBoard(conn, { port: tbPort }), (e: unknown) => e instanceof ForwardError && e.code === 'tensorboard-missing');
  });

  it('gpu-rent forward (built CLI): one JSON line, the page through it, Ctrl-C ends it; bad ports are usage errors', async () => {
    const env = { ...process.env, LANG: 'C.UTF-8', LC_ALL: '', GPU_RENT_PASSWORD: sshd.password, GPU_RENT_KNOWN_HOSTS: join(dir.path, 'kh-cli'), HOME: dir.path };
    const p = spawn(process.execPath, [CLI, 'forward', `ssh -p ${sshd.port} ${sshd.user}@127.0.0.1`, `${boxPort}:0`, '--json', '--accept-new'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((r) => p.on('close', (code) => r(code)));
    try {
      await until('the listening line', () => out.includes('\n') || p.exitCode !== null, 30000);
      assert.ok(out.includes('\n'), `no listening line; stderr: ${err}`);
      const first = JSON.parse(out.split('\n')[0]!) as { event: string; local: string; remotePort: number; url: string };
      assert.equal(first.event, 'listening');
      assert.equal(first.remotePort, boxPort);
      assert.match(first.local, /^127\.0\.0\.1:\d+$/);
      assert.equal((await get(first.url)).body, `served from the box ${sshd.user}\n`);
      p.kill('SIGINT');
      assert.equal(await exited, 0, err);
    } finally {
      p.kill('SIGKILL');
    }
    for (const bad of ['0', '70000', '80:x', 'abc']) {
      const r = runCli(['forward', 'user@127.0.0.1', bad, '--json'], { env });
      assert.equal(r.code, 2, `${bad}: ${r.stdout}${r.stderr}`);
      assert.equal((JSON.parse(r.stdout) as { error: { code: string } }).error.code, 'usage');
    }
    const zh = runCli(['forward', 'user@127.0.0.1', '99999', '--lang', 'zh-cn'], { env });
    assert.match(zh.stderr, /端口 "99999" 无效/);
  });
});

// The CLI over real boxes: `gpu-rent run --nodes A,B --launcher torchrun` on two loopback sshd
// nodes (jobs --nodes shows each rank's state, logs --nodes puts the rank in front, stop --nodes
// stops both), and `gpu-rent run --then sync-then-power-off`: waits for the job, the verified
// sync first, then the power-off command; with a failing sync no power-off and it says so.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { CLI, runCli, type CliResult } from '../support/cli';
import { startFaultProxy } from '../support/fault-proxy';
import { startSshd, type TestSshd } from '../support/sshd';
import { until } from '../support/timing';
import { tempDir } from './remote-helpers';

const STAND_IN = `#!/bin/sh
printf '%s\\n' "$@" > "$HOME/torchrun.argv"
echo "rank $GPU_RENT_NODE_RANK of $GPU_RENT_NNODES"
exec sleep 60
`;

describe('gpu-rent run --nodes and --then (real sshd)', function () {
  this.timeout(120000);
  let a: TestSshd;
  let b: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const t = (s: TestSshd) => `ssh://${s.user}@127.0.0.1:${s.port}`;
  const keys = () => ['--accept-new', '--identity', a.privateKeyPath, '--identity', b.privateKeyPath];

  before(async () => {
    [a, b] = await Promise.all([startSshd(), startSshd()]);
    for (const s of [a, b]) s.runAsUser(`cat > "$HOME/bin/torchrun" <<'EOF_T'\n${STAND_IN}EOF_T\nchmod +x "$HOME/bin/torchrun"`);
    home = tempDir();
    env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_PASSWORD: '' };
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    home?.remove();
  });

  it('run --nodes, jobs --nodes, logs --nodes, stop --nodes', async () => {
    const nodes = `${t(a)},${t(b)}`;
    const r = runCli(['run', '--nodes', nodes, ...keys(), '--launcher', 'torchrun', '--name', 'ddp', '--port', '29621', '--master-addr', '127.0.0.1', '--cwd', '~', '--', 'python', 'train.py'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^started ddp on 2 nodes \(1 GPU\(s\) each\), rendezvous 127\.0\.0\.1:29621\n  rank 0 ssh:\/\/.*: running/);
    // Rank 1's launcher has written its arguments (instead of trusting 800 ms on a loaded machine).
    await until('rank 1 to start torchrun', () => existsSync(join(b.home, 'torchrun.argv')) && readFileSync(join(b.home, 'torchrun.argv'), 'utf8').includes('--node_rank='), 20000, 50);
    assert.match(readFileSync(join(b.home, 'torchrun.argv'), 'utf8'), /^--nnodes=2\n--node_rank=1\n/);
    const jobs = runCli(['jobs', '--nodes', nodes, ...keys()], { env });
    assert.match(jobs.stdout, /ddp\s+0\s+\S+\s+running[\s\S]*ddp\s+1\s+\S+\s+running/);
    const logs = runCli(['logs', '--nodes', nodes, ...keys(), 'ddp'], { env });
    assert.equal(logs.stdout, '[rank 0] rank 0 of 2\n[rank 1] rank 1 of 2\n');
    const stop = runCli(['stop', '--nodes', nodes, ...keys(), 'ddp', '--grace', '1'], { env });
    assert.equal(stop.code, 0, stop.stderr);
    assert.match(stop.stdout, /^rank 0 .*: stopped \(exit \d+\)\nrank 1 .*: stopped \(exit \d+\)\n$/);
    assert.equal(runCli(['run', '--nodes', t(a), ...keys(), '--launcher', 'torchrun', '--name', 'x', '--', 'train.py'], { env }).code, 2, 'one node is a usage error');
  });

  it('run --then sync-then-power-off: the sync is verified before the power-off, and the power-off counts only once the box stops answering SSH; a failed sync stops it', async () => {
    const local = join(home.path, 'ck');
    const off = 'touch "$HOME/powered-off"';
    const job = ['sh', '-c', 'mkdir -p "$HOME/ckpt" && echo weights > "$HOME/ckpt/model.bin" && sleep 1'];
    // The box is reached through a proxy; when the stand-in power-off has run, the proxy refuses
    // every connection (a box that went down), which is what the CLI's verification must see.
    const proxy = await startFaultProxy(a.port);
    let r: CliResult;
    try {
      const watch = setInterval(() => {
        if (existsSync(join(a.home, 'powered-off'))) proxy.mode = 'reset';
      }, 100);
      r = await runCliAsync(['run', `ssh://${a.user}@127.0.0.1:${proxy.port}`, ...keys(), '--name', 'then1', '--cwd', '~', '--then', 'sync-then-power-off', '--sync-remote', join(a.home, 'ckpt'), '--sync-local', local, '--power-off-command', off, '--', ...job], { env, timeoutMs: 60000 });
      clearInterval(watch);
    } finally {
      await proxy.close();
    }
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /sync: ok — 1 file\(s\) pulled[\s\S]*powerOff: ok \(box\) — done: the box stopped answering SSH after \d+ s/);
    assert.equal(readFileSync(join(local, 'model.bin'), 'utf8'), 'weights\n');
    assert.equal(existsSync(join(a.home, 'powered-off')), true);
    a.runAsUser('rm -f "$HOME/powered-off"');
    const bad = runCli(['run', t(a), ...keys(), '--name', 'then2', '--cwd', '~', '--then', 'sync-then-power-off', '--sync-remote', join(a.home, 'missing'), '--sync-local', local, '--power-off-command', off, '--', 'true'], { env, timeoutMs: 60000 });
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /sync: FAILED[\s\S]*the final sync failed: the box was NOT powered off and keeps billing/);
    // What could still power the box off later is its own trigger: it was armed, then stood down
    // (stop file, no pid), and never ran the action. Seen on the box, not waited for.
    const trigger = join(a.home, '.gpu-rent', 'after-job', 'then2');
    const events = readFileSync(join(trigger, 'events.log'), 'utf8');
    assert.match(events, /\barmed\b/);
    assert.ok(existsSync(join(trigger, 'stop')) && !existsSync(join(trigger, 'pid')), 'the on-box trigger stood down');
    assert.doesNotMatch(events, /action-start|action-exit/);
    assert.equal(existsSync(join(a.home, 'powered-off')), false);
    assert.equal(runCli(['run', t(a), ...keys(), '--name', 'x', '--then', 'sync', '--', 'true'], { env }).code, 2, '--then without folders is a usage error');
  });

  describe('a power-off that cannot or did not happen (issue 22)', () => {
    const local = () => join(home.path, 'ck22');
    const job = ['sh', '-c', 'mkdir -p "$HOME/ckpt22" && echo w > "$HOME/ckpt22/m.bin"'];
    const then = (name: string) => ['run', t(a), ...keys(), '--name', name, '--cwd', '~', '--rate', '2', '--then', 'sync-then-power-off', '--sync-remote', join(a.home, 'ckpt22'), '--sync-local', local()];
    before(() => {
      // This machine must never be powered off by a test: the login is a plain user that
      // neither is root nor may use sudo, so `shutdown` (systemctl here) is refused.
      assert.notEqual(a.runAsUser('id -u').trim(), '0');
      assert.equal(a.runAsUser('if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then echo sudo; else echo no-sudo; fi').trim(), 'no-sudo');
    });

    it('a non-root login without sudo: sync-then-power-off is refused before the job starts, saying why', () => {
      const r = runCli([...then('then3'), '--', ...job], { env, timeoutMs: 60000 });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, new RegExp(`the box cannot power itself off: this login \\(${a.user}\\) is not root and sudo -n is not allowed\\. Nothing was started`));
      assert.equal(r.stdout, '');
      assert.equal(existsSync(join(a.home, '.gpu-rent', 'jobs', 'then3')), false, 'no job was started');
      // Under a Chinese locale the same refusal in Chinese, the login's name kept as given.
      const zh = runCli([...then('then3'), '--', ...job], { env: { ...env, LANG: 'zh_CN.UTF-8' }, timeoutMs: 60000 });
      assert.equal(zh.code, 1, zh.stdout + zh.stderr);
      assert.equal(zh.stderr, `gpu-rent run: --then sync-then-power-off：机器无法自己关机：这个登录用户（${a.user}）不是 root，也不允许 sudo -n。什么都没有启动。请以 root 登录、允许这个用户执行 \`sudo -n shutdown\`，或者用 --then sync，再用 gpu-rent power-off 或在平台控制台关机\n`);
      assert.equal(existsSync(join(a.home, '.gpu-rent', 'jobs', 'then3')), false, 'no job was started');
      const nogpu = runCli(['run', t(a), ...keys(), '--name', 'x', '--then', 'sync-then-no-gpu', '--sync-remote', '/tmp', '--sync-local', local(), '--', 'true'], { env });
      assert.equal(nogpu.code, 2);
      assert.match(nogpu.stderr, /sync-then-no-gpu cannot happen from gpu-rent run/);
    });

    it('the real shutdown, refused for this login: exits 1 saying the box did NOT power off and keeps billing ¥2.00/h', () => {
      const r = runCli([...then('then4'), '--power-off-command', 'shutdown -h now', '--', ...job], { env, timeoutMs: 60000 });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /sync: ok[\s\S]*powerOff: FAILED \(box\) — the power-off command failed on the box \(exit \d+\)/);
      assert.match(r.stderr, /gpu-rent run: end action sync-then-power-off: the box did NOT power off and keeps billing ¥2\.00\/h: the power-off command failed on the box \(exit [1-9]\d*\)/);
      assert.match(r.stderr, /The box's own power-off stays armed/);
      assert.equal(readFileSync(join(local(), 'm.bin'), 'utf8'), 'w\n', 'the verified sync ran first');
      const pid = a.runAsUser('cat "$HOME/.gpu-rent/after-job/then4/pid"').trim();
      assert.equal(a.runAsUser(`kill -0 ${pid} && echo alive`).trim(), 'alive', 'the on-box backup power-off is still armed');
    });

    it('a power-off command that "succeeds" but the box keeps answering SSH: exits 1 after the bounded wait', () => {
      const started = Date.now();
      const r = runCli([...then('then5'), '--power-off-command', 'true', '--', ...job], { env: { ...env, GPU_RENT_POWER_VERIFY_SECONDS: '3' }, timeoutMs: 60000 });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, /end action sync-then-power-off: the box did NOT power off and keeps billing ¥2\.00\/h: the box still answers SSH \d+ s after the power-off/);
      assert.ok(Date.now() - started < 40000);
    });

    it('under LANG=zh_CN.UTF-8 the end report, its progress lines and the still-billing line are Chinese', () => {
      const r = runCli([...then('then6'), '--power-off-command', 'true', '--', ...job], { env: { ...env, GPU_RENT_POWER_VERIFY_SECONDS: '3', LANG: 'zh_CN.UTF-8' }, timeoutMs: 60000 });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /^同步：成功 — 拉取了 \d+ 个文件，本地已有 \d+ 个，全部已校验\n关机：失败（机器） — 关机 \d+ 秒后机器仍在应答 SSH\n$/m);
      assert.match(r.stderr, /结束动作 sync-then-power-off：最后一次检查点同步\n/);
      assert.match(r.stderr, /已发送关机命令（true）；最多等待 3 秒，直到 127\.0\.0\.1:\d+ 不再应答\n/);
      assert.match(r.stderr, /gpu-rent run: 结束动作 sync-then-power-off：机器没有关机，仍在计费 ¥2\.00\/h：关机 \d+ 秒后机器仍在应答 SSH。/);
      for (const english of ['end action', 'final sync', 'power-off sent', 'keeps billing', 'still answers']) assert.ok(!(r.stdout + r.stderr).includes(english), `"${english}" left in:\n${r.stdout}${r.stderr}`);
    });
  });
});

/** The built CLI as a child process without blocking this one (the proxy above runs in this process). */
function runCliAsync(args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, LC_ALL: '', LC_MESSAGES: '', LANG: 'C.UTF-8', ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

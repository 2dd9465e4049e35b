// The CLI over real boxes: `gpu-rent run --nodes A,B --launcher torchrun` on two loopback sshd
// nodes (jobs --nodes shows each rank's state, logs --nodes puts the rank in front, stop --nodes
// stops both), and `gpu-rent run --then sync-then-power-off`: waits for the job, the verified
// sync first, then the power-off command; with a failing sync no power-off and it says so.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
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
    await new Promise((res) => setTimeout(res, 800));
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

  it('run --then sync-then-power-off: the sync is verified before the power-off; a failed sync stops it', async () => {
    const local = join(home.path, 'ck');
    const off = 'touch "$HOME/powered-off"';
    const job = ['sh', '-c', 'mkdir -p "$HOME/ckpt" && echo weights > "$HOME/ckpt/model.bin" && sleep 1'];
    const r = runCli(['run', t(a), ...keys(), '--name', 'then1', '--cwd', '~', '--then', 'sync-then-power-off', '--sync-remote', join(a.home, 'ckpt'), '--sync-local', local, '--power-off-command', off, '--', ...job], { env, timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /sync: ok — 1 file\(s\) pulled[\s\S]*powerOff: ok \(box\)/);
    assert.equal(readFileSync(join(local, 'model.bin'), 'utf8'), 'weights\n');
    await new Promise((res) => setTimeout(res, 2600));
    assert.equal(existsSync(join(a.home, 'powered-off')), true);
    a.runAsUser('rm -f "$HOME/powered-off"');
    const bad = runCli(['run', t(a), ...keys(), '--name', 'then2', '--cwd', '~', '--then', 'sync-then-power-off', '--sync-remote', join(a.home, 'missing'), '--sync-local', local, '--power-off-command', off, '--', 'true'], { env, timeoutMs: 60000 });
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /sync: FAILED[\s\S]*the final sync failed: the box was NOT powered off and keeps billing/);
    await new Promise((res) => setTimeout(res, 2600));
    assert.equal(existsSync(join(a.home, 'powered-off')), false);
    assert.equal(runCli(['run', t(a), ...keys(), '--name', 'x', '--then', 'sync', '--', 'true'], { env }).code, 2, '--then without folders is a usage error');
  });
});

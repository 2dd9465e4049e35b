// Multi-node on two loopback sshd "nodes" (different ports, users and homes): the launcher is
// started on both with the right node count, rank, rendezvous address and port (a stand-in
// records its argv and environment), a DeepSpeed hostfile is written, the preflight refuses
// different GPU counts and an unreachable port, stop stops both, logs come back per rank.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RemoteConnection } from '../../src/remote/connection';
import { multiNodeJobs, multiNodeLogs, startMultiNode, stopMultiNode, type RunNode } from '../../src/app/runs/multinode';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, remoteFailure, sleep, tempDir } from './remote-helpers';

// Records argv (one per line) and the rendezvous environment, prints a line, keeps running.
const STAND_IN = (tool: string) => `#!/bin/sh
# Test stand-in for ${tool}: records how it was started.
printf '%s\\n' "$0" "$@" > "$HOME/${tool}.argv"
env | grep -E '^(MASTER_|GPU_RENT_N|LR=)' | sort > "$HOME/${tool}.env"
echo "${tool} on rank $GPU_RENT_NODE_RANK up"
exec sleep 60
`;

describe('multi-node launch (two real sshd nodes)', function () {
  this.timeout(90000);
  let a: TestSshd;
  let b: TestSshd;
  let dir: ReturnType<typeof tempDir>;
  let nodes: RunNode[];
  const argv = (s: TestSshd, tool: string) => readFileSync(join(s.home, `${tool}.argv`), 'utf8').trim().split('\n').slice(1);
  const env = (s: TestSshd, tool: string) => readFileSync(join(s.home, `${tool}.env`), 'utf8').trim().split('\n');

  before(async () => {
    [a, b] = await Promise.all([startSshd(), startSshd()]);
    for (const s of [a, b]) for (const tool of ['torchrun', 'deepspeed']) s.runAsUser(`cat > "$HOME/bin/${tool}" <<'EOF_T'\n${STAND_IN(tool)}EOF_T\nchmod +x "$HOME/bin/${tool}"`);
    dir = tempDir();
    const ca: RemoteConnection = connectionTo(a, join(dir.path, 'kh'));
    const cb: RemoteConnection = connectionTo(b, join(dir.path, 'kh'));
    await Promise.all([ca.connect(), cb.connect()]);
    nodes = [
      { label: 'A', conn: ca },
      { label: 'B', conn: cb },
    ];
  });
  after(async () => {
    for (const n of nodes ?? []) n.conn.close();
    await Promise.all([a?.stop(), b?.stop()]);
    dir?.remove();
  });

  it('torchrun on every node with --nnodes, --node_rank, the first node’s address and port; one job; stop stops all; logs per rank', async () => {
    const run = await startMultiNode(nodes, { name: 'ddp', command: ['python', 'train.py', '--lr', '1e-4'], launcher: 'torchrun', port: 29611, masterAddr: '127.0.0.1', env: { LR: '1e-4' }, cwd: '~' });
    assert.equal(run.gpusPerNode, 1);
    await sleep(800);
    assert.deepEqual(argv(a, 'torchrun'), ['--nnodes=2', '--node_rank=0', '--nproc_per_node=1', '--master_addr=127.0.0.1', '--master_port=29611', 'train.py', '--lr', '1e-4']);
    assert.deepEqual(argv(b, 'torchrun'), ['--nnodes=2', '--node_rank=1', '--nproc_per_node=1', '--master_addr=127.0.0.1', '--master_port=29611', 'train.py', '--lr', '1e-4']);
    assert.deepEqual(env(b, 'torchrun'), ['GPU_RENT_NNODES=2', 'GPU_RENT_NODE_RANK=1', 'LR=1e-4', 'MASTER_ADDR=127.0.0.1', 'MASTER_PORT=29611']);
    const states = await multiNodeJobs(nodes, 'ddp');
    assert.deepEqual(states.map((s) => [s.label, s.rank, s.job?.state]), [['A', 0, 'running'], ['B', 1, 'running']]);
    assert.equal(await multiNodeLogs(nodes, 'ddp'), '[rank 0] torchrun on rank 0 up\n[rank 1] torchrun on rank 1 up\n');
    const stopped = await stopMultiNode(nodes, 'ddp', { graceSeconds: 2 });
    assert.deepEqual(stopped.map((s) => s.job?.state), ['exited', 'exited']);
  });

  it('deepspeed: a hostfile on each node and --no_ssh with the rank', async () => {
    await startMultiNode(nodes, { name: 'ds', command: ['python', 'train.py'], launcher: 'deepspeed', port: 29612, masterAddr: '127.0.0.1', hosts: ['10.0.0.1', '10.0.0.2'], cwd: '~' });
    await sleep(800);
    const args = argv(b, 'deepspeed');
    assert.equal(args[0], `--hostfile=${b.home}/.gpu-rent/hostfile-ds`);
    assert.deepEqual(args.slice(1), ['--no_ssh', '--node_rank=1', '--master_addr=127.0.0.1', '--master_port=29612', 'train.py']);
    assert.equal(readFileSync(join(b.home, '.gpu-rent', 'hostfile-ds'), 'utf8'), '10.0.0.1 slots=1\n10.0.0.2 slots=1\n');
    await stopMultiNode(nodes, 'ds', { graceSeconds: 1 });
  });

  it('preflight: different GPU counts and an unreachable port are refused before anything starts', async () => {
    b.setNvidiaSmi('rtx2070_x2_driver590.44.01_q.xml');
    try {
      const e = await remoteFailure(startMultiNode(nodes, { name: 'bad', command: ['python', 'train.py'], launcher: 'torchrun', port: 29613, masterAddr: '127.0.0.1' }));
      assert.match(e.message, /different GPU counts \(A: 1, B: 2\)/);
    } finally {
      b.setNvidiaSmi('rtx4090_driver535.86.05_q.xml');
    }
    // 127.0.0.2 answers nothing on that port: the listener is on all addresses, so use an address nobody listens on.
    const e2 = await remoteFailure(startMultiNode(nodes, { name: 'bad2', command: ['python', 'train.py'], launcher: 'torchrun', port: 29614, masterAddr: '192.0.2.1' }));
    assert.match(e2.message, /B cannot reach A at 192\.0\.2\.1:29614/);
    assert.deepEqual((await multiNodeJobs(nodes, 'bad2')).map((s) => s.job), [null, null], 'nothing was started');
  });
});

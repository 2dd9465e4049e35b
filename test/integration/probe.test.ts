// `probe` against a real sshd whose nvidia-smi prints real captured outputs: the verdict, GPU
// count, disks, conda env and data folder; 20 concurrent probes under MaxSessions 2; and the
// CLI as a user runs it (new process, GPU_RENT_PASSWORD, --accept-new).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { probeBox } from '../../src/remote/probe';
import { probeInstance } from '../../src/app/probe';
import { DEFAULT_SYNC_REMOTE_DIR, expandRemoteHome, suggestedRemoteDir } from '../../src/app/sync';
import { createInstance, validateInstance } from '../../src/core/instances';
import { runCli } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, tempDir } from './remote-helpers';

describe('probe (real sshd, real nvidia-smi captures)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let tight: TestSshd;
  let dir: ReturnType<typeof tempDir>;
  let kh: string;

  before(async () => {
    [sshd, tight] = await Promise.all([startSshd(), startSshd({ maxSessions: 2 })]);
    dir = tempDir();
    kh = join(dir.path, 'known_hosts');
  });
  after(async () => {
    await Promise.all([sshd?.stop(), tight?.stop()]);
    dir?.remove();
  });

  it('reads the GPU, driver and verdict in one command, plus disks and the conda env', async () => {
    sshd.setNvidiaSmi('rtx4090_driver535.86.05_q.xml');
    const conn = connectionTo(sshd, kh);
    const p = await probeBox(conn);
    assert.equal(p.gpuCount, 1);
    assert.equal(p.diagnosis.gpuName, 'NVIDIA GeForce RTX 4090');
    assert.equal(p.diagnosis.driverVersion, '535.86.05');
    assert.equal(p.diagnosis.verdict, 'no-torch'); // the test box's python has no torch
    assert.ok(p.torch.ok && p.torch.probe.pythonVersion);
    assert.equal(p.condaEnv, 'base', 'read from the login shell');
    assert.equal(p.home, sshd.home);
    assert.deepEqual(p.dataDir, { path: sshd.home, source: 'home' });
    const system = p.disks.find((d) => d.role === 'system');
    assert.ok(system && system.sizeBytes > 0 && system.usedBytes > 0 && system.availableBytes > 0 && system.mountedOn === '/');
    conn.close();
  });

  it('a box with no data disk: the instance records its home, the sync prompt offers ~/checkpoints there (not /root/autodl-tmp), and ~ means that home', async () => {
    sshd.setNvidiaSmi('rtx4090_driver535.86.05_q.xml');
    const conn = connectionTo(sshd, kh);
    try {
      const r = await probeInstance(conn, { card: 'RTX 4090', gpuCount: 1, state: 'running' }, 1_780_000_000);
      assert.equal(r.lastProbe.home, sshd.home);
      assert.deepEqual(r.lastProbe.dataDir, { path: sshd.home, source: 'home' });
      // What the store keeps passes its schema, and the prompt reads it back.
      const inst = { ...createInstance({ id: 'i1', name: 'box', platform: 'autodl', card: 'RTX 4090', gpuCount: 1, login: { host: sshd.host, port: sshd.port, user: sshd.user, auth: 'password' }, pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 0, dataDiskGb: 0 } }, 'running', 1_780_000_000), lastProbe: r.lastProbe };
      assert.ok(validateInstance(inst).ok);
      assert.equal(suggestedRemoteDir(DEFAULT_SYNC_REMOTE_DIR, inst.lastProbe), `${sshd.home}/checkpoints`);
      assert.equal(suggestedRemoteDir('/data/ckpt', inst.lastProbe), '/data/ckpt', 'a folder the user set is kept');
      assert.equal(expandRemoteHome('~/runs/a', inst.lastProbe.home, sshd.user), `${sshd.home}/runs/a`);
      assert.equal(expandRemoteHome('~', inst.lastProbe.home, sshd.user), sshd.home);
      // A data disk the probe found (here GPU_RENT_DATA_DIR's folder) is offered instead.
      sshd.runAsUser(`mkdir -p ~/mydata && echo 'export GPU_RENT_DATA_DIR="$HOME/mydata"' >> ~/.profile`);
      try {
        const withDisk = await probeInstance(conn, { card: 'RTX 4090', gpuCount: 1, state: 'running' }, 1_780_000_060);
        assert.equal(suggestedRemoteDir(DEFAULT_SYNC_REMOTE_DIR, withDisk.lastProbe), `${sshd.home}/mydata/checkpoints`);
      } finally {
        sshd.runAsUser("sed -i '/GPU_RENT_DATA_DIR/d' ~/.profile");
      }
    } finally {
      conn.close();
    }
  });

  it('sees eight GPUs, a missing nvidia-smi and a driver/library mismatch', async () => {
    const conn = connectionTo(sshd, kh);
    sshd.setNvidiaSmi('v100sxm2_32gb_x8_driver520.61.05_smi.txt');
    assert.equal((await probeBox(conn)).gpuCount, 8);
    sshd.setNvidiaSmi(null);
    const none = await probeBox(conn);
    assert.equal(none.gpuCount, 0);
    assert.ok(!none.smi.ok && none.smi.error.kind === 'not-found');
    assert.equal(none.diagnosis.verdict, 'no-driver');
    sshd.setNvidiaSmi('errors_nvml_driver_library_mismatch.txt');
    assert.equal((await probeBox(conn)).diagnosis.verdict, 'nvml-mismatch');
    sshd.setNvidiaSmi('rtx4090_driver535.86.05_q.xml');
    conn.close();
  });

  it("uses the platform's data disk when it exists, and GPU_RENT_DATA_DIR over it", async () => {
    const conn = connectionTo(sshd, kh);
    sshd.runAsUser('mkdir -p ~/autodl-tmp ~/mydata');
    const candidates = [{ path: `${sshd.home}/autodl-tmp`, platform: 'AutoDL' }];
    const p = await probeBox(conn, { dataDirCandidates: candidates });
    assert.deepEqual(p.dataDir, { path: `${sshd.home}/autodl-tmp`, source: 'platform', platform: 'AutoDL' });
    sshd.runAsUser(`echo 'export GPU_RENT_DATA_DIR="$HOME/mydata"' >> ~/.profile`);
    try {
      const q = await probeBox(conn, { dataDirCandidates: candidates });
      assert.deepEqual(q.dataDir, { path: `${sshd.home}/mydata`, source: 'env' });
    } finally {
      sshd.runAsUser("sed -i '/GPU_RENT_DATA_DIR/d' ~/.profile");
    }
    conn.close();
  });

  it('20 concurrent probes over one connection under MaxSessions 2', async () => {
    tight.setNvidiaSmi('rtx2070_x2_driver590.44.01_q.xml');
    const conn = connectionTo(tight, kh);
    const results = await Promise.all(Array.from({ length: 20 }, () => probeBox(conn)));
    for (const r of results) {
      assert.equal(r.gpuCount, 2);
      assert.equal(r.diagnosis.driverVersion, '590.44.01');
    }
    assert.equal(conn.openChannels, 0);
    conn.close();
  });

  it('gpu-rent probe from the command line: refuses an unknown host, then --accept-new, --json', () => {
    const home = tempDir('gpu-rent-cli-home-');
    try {
      const env = { GPU_RENT_HOME: home.path, HOME: home.path, GPU_RENT_PASSWORD: sshd.password, SSH_AUTH_SOCK: '' };
      const target = `ssh -p ${sshd.port} ${sshd.user}@127.0.0.1`;
      const refused = runCli(['probe', target], { env });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /is a new host \(ssh-ed25519 key SHA256:[A-Za-z0-9+/]{43}\).*--accept-new/);
      const text = runCli(['probe', target, '--accept-new'], { env });
      assert.equal(text.code, 1, 'not ok: no torch on the test box');
      assert.match(text.stdout, /PyTorch is not installed/);
      assert.match(text.stdout, /NVIDIA GeForce RTX 4090/);
      assert.match(text.stdout, /Conda env: base/);
      assert.match(text.stdout, /system\s+\/\s+\S+ \S*B used of/);
      const json = runCli(['probe', target, '--json'], { env }); // pinned now: no flag needed
      const parsed = JSON.parse(json.stdout) as { verdict: string; gpus: Array<{ name: string }>; condaEnv: string; disks: unknown[] };
      assert.equal(parsed.verdict, 'no-torch');
      assert.equal(parsed.gpus[0]?.name, 'NVIDIA GeForce RTX 4090');
      assert.equal(parsed.condaEnv, 'base');
      const wrong = runCli(['probe', target], { env: { ...env, GPU_RENT_PASSWORD: 'wrong' } });
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /refused the login/);
      assert.match(wrong.stderr, /paste the new login command/);
      const bad = runCli(['probe', 'ssh -p 99999 root@h'], { env });
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /port must be a number from 1 to 65535/);
    } finally {
      home.remove();
    }
  });
});

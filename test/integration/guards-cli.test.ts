// The guard commands as a user runs them: the built CLI in a new process, against the real
// loopback sshd with real captured nvidia-smi outputs.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { exportInstances, type Instance } from '../../src/core/instances';

describe('guard commands (built CLI, real sshd)', function () {
  this.timeout(120000);
  let sshd: TestSshd;
  let work: string;
  let env: NodeJS.ProcessEnv;
  const remote = () => [`${sshd.user}@127.0.0.1:${sshd.port}`, '--accept-new', '--identity', sshd.privateKeyPath];

  before(async () => {
    sshd = await startSshd({ nvidiaSmi: 'h100_80gb_driver590.48.01_smi_load.txt' });
    work = mkdtempSync(join(tmpdir(), 'gpr-guards-cli-'));
    env = { GPU_RENT_KNOWN_HOSTS: join(work, 'known_hosts'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' };
  });
  after(async () => {
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('idle-check: a loaded H100 is busy; an idle TITAN V is idle, with AutoDL’s no-GPU mode and its saving', () => {
    sshd.setNvidiaSmi('h100_80gb_driver590.48.01_smi_load.txt');
    const busy = runCli(['idle-check', ...remote(), '--for', '2', '--every', '1'], { env });
    assert.equal(busy.code, 0, busy.stderr);
    assert.match(busy.stdout, /^busy: GPU utilisation 100% \(threshold 10%\), 3 compute processes on the GPU/);
    sshd.setNvidiaSmi('titanv_driver515.65.01_smi.txt');
    const idle = runCli(['idle-check', ...remote(), '--for', '2', '--every', '1', '--platform', 'autodl', '--card', 'rtx3090', '--json'], { env });
    assert.equal(idle.code, 0, idle.stderr);
    const j = JSON.parse(idle.stdout);
    assert.equal(j.verdict.kind, 'idle');
    assert.equal(j.advice.recommended.action, 'noGpuMode');
    assert.equal(j.advice.recommended.savingPerHour, 188);
    const text = runCli(['idle-check', ...remote(), '--for', '2', '--every', '1', '--platform', 'AutoDL', '--card', '3090'], { env });
    assert.match(text.stdout, /IDLE for .*\nCheapest safe action on AutoDL: switch to no-GPU mode .*saving ¥1\.88\/h/);
  });

  it('watchdog install → status → remove', () => {
    sshd.setNvidiaSmi('h100_80gb_driver590.48.01_smi_load.txt');
    const install = runCli(['watchdog', 'install', ...remote(), '--window', '600', '--poll', '1', '--hook', 'true', '--action', 'command', '--action-command', 'touch "$HOME/acted"'], { env });
    assert.equal(install.code, 0, install.stderr);
    assert.match(install.stdout, /^watchdog: ARMED \(pid \d+\)/);
    const status = runCli(['watchdog', 'status', ...remote(), '--json'], { env });
    assert.equal(status.code, 0, status.stderr);
    const s = JSON.parse(status.stdout);
    assert.equal(s.armed, true);
    assert.equal(s.idleWindowSeconds, 600);
    // Killed on the box: installed, not armed: exit 1 in both formats, the error beside the status under --json.
    process.kill(s.pid as number, 'SIGKILL');
    const dead = runCli(['watchdog', 'status', ...remote(), '--json'], { env });
    assert.equal(dead.code, 1, dead.stderr);
    const d = JSON.parse(dead.stdout);
    assert.equal(d.armed, false);
    assert.equal(d.error.code, 'not-armed');
    assert.match(d.error.message, /installed but not armed: it is not running/);
    assert.equal(runCli(['watchdog', 'status', ...remote()], { env }).code, 1);
    const removed = runCli(['watchdog', 'remove', ...remote()], { env });
    assert.match(removed.stdout, /watchdog: removed/);
    const after = runCli(['watchdog', 'status', ...remote()], { env });
    assert.equal(after.stdout, 'watchdog: not installed\n');
    assert.equal(existsSync(join(sshd.home, 'acted')), false);
  });

  it('watchdog refuses unclear installs before connecting', () => {
    const noAction = runCli(['watchdog', 'install', ...remote()], { env });
    assert.equal(noAction.code, 2);
    assert.match(noAction.stderr, /--action is required/);
    const bad = runCli(['watchdog', 'install', ...remote(), '--action', 'reboot'], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--action expects one of none, shutdown, command/);
    assert.equal(runCli(['watchdog', 'launch', ...remote()], { env }).code, 2);
  });

  it('secure-upload into /dev/shm, then wipe', () => {
    const local = join(work, 'patients.csv');
    writeFileSync(local, 'id,diagnosis\n1,x\n');
    const dir = `/dev/shm/gpr-cli-${process.pid}`;
    try {
      const up = runCli(['secure-upload', ...remote(), local, '--to', dir], { env });
      assert.equal(up.code, 0, up.stderr);
      assert.match(up.stdout, new RegExp(`uploaded 1 file \\(\\d+ B\\) into ${dir} \\(tmpfs, RAM only\\)`));
      assert.equal(readFileSync(join(dir, 'patients.csv'), 'utf8'), 'id,diagnosis\n1,x\n');
      const disk = runCli(['secure-upload', ...remote(), local, '--to', join(sshd.home, 'data')], { env });
      assert.equal(disk.code, 1);
      assert.match(disk.stderr, /not RAM \(tmpfs\/ramfs\)/);
      const wipe = runCli(['wipe', ...remote(), dir], { env });
      assert.equal(wipe.code, 0, wipe.stderr);
      assert.match(wipe.stdout, /^wiped /);
      assert.equal(existsSync(dir), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('release-check: safe after a sync, lists what a release would lose after new checkpoints land', () => {
    const box = join(sshd.home, 'ckpt');
    mkdirSync(join(box, 'run1'), { recursive: true });
    writeFileSync(join(box, 'run1', 'epoch1.pt'), Buffer.alloc(4096, 1));
    writeFileSync(join(box, 'run1', 'epoch2.pt'), Buffer.alloc(8192, 2));
    const old = new Date(Date.now() - 3600 * 1000);
    for (const f of ['epoch1.pt', 'epoch2.pt']) utimesSync(join(box, 'run1', f), old, old);
    execFileSync('chown', ['-R', `${statSync(sshd.home).uid}:${statSync(sshd.home).gid}`, box]);
    const local = join(work, 'ckpt-local');
    const sync = runCli(['sync', ...remote(), '--remote', '~/ckpt', '--local', local], { env });
    assert.equal(sync.code, 0, sync.stderr + sync.stdout);
    const safe = runCli(['release-check', ...remote(), '--remote', '~/ckpt', '--local', local], { env });
    assert.equal(safe.code, 0, safe.stderr);
    assert.match(safe.stdout, /^safe to release: all 2 files/);
    writeFileSync(join(box, 'run1', 'epoch3.pt'), Buffer.alloc(16384, 3));
    execFileSync('chown', [`${statSync(sshd.home).uid}`, join(box, 'run1', 'epoch3.pt')]);
    const risky = runCli(['release-check', ...remote(), '--remote', '~/ckpt', '--local', local], { env });
    assert.equal(risky.code, 1, risky.stderr);
    assert.match(risky.stdout, /^RELEASING WOULD LOSE 1 file \(16 KB\) from .*:\n  run1\/epoch3\.pt \(16 KB, no local copy\)/);
    const j = JSON.parse(runCli(['release-check', ...remote(), '--remote', '~/ckpt', '--local', local, '--json'], { env }).stdout);
    assert.deepEqual(j.atRisk.map((f: { rel: string }) => f.rel), ['run1/epoch3.pt']);
    const missing = runCli(['release-check', ...remote(), '--remote', '~/nope', '--local', local], { env });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /does not exist/);
  });

  it('env capture writes a folder another box can be rebuilt from', () => {
    const out = join(work, 'env-out');
    const r = runCli(['env', 'capture', ...remote(), '--out', out], { env });
    assert.equal(r.code, 0, r.stderr);
    const snap = JSON.parse(readFileSync(join(out, 'gpu-rent-env.json'), 'utf8'));
    assert.equal(snap.driverVersion, '590.48.01');
    assert.ok(existsSync(join(out, 'requirements.txt')));
    assert.match(r.stdout, /rebuild elsewhere: gpu-rent env rebuild NEW_TARGET --from /);
    const bad = runCli(['env', 'rebuild', ...remote(), '--from', out, '--name', 'bad name'], { env });
    assert.equal(bad.code, 2);
  });
});

describe('guard commands without a box', () => {
  let work: string;
  before(() => (work = mkdtempSync(join(tmpdir(), 'gpr-guards-cli-local-'))));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('scan-secrets finds keys and tokens (exit 1) and passes a clean folder (exit 0)', () => {
    const dir = join(work, 'proj');
    mkdirSync(join(dir, '.git'), { recursive: true });
    mkdirSync(join(dir, 'node_modules', 'x'), { recursive: true });
    writeFileSync(join(dir, 'train.py'), 'import os\ntoken = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"\n');
    writeFileSync(join(dir, '.env'), 'X=1\n');
    writeFileSync(join(dir, '.git', 'config'), '[remote "origin"]\n\turl = https://me:ghp_0123456789abcdefghijklmnopqrstuvwxyzAB@example.invalid/r.git\n');
    writeFileSync(join(dir, 'node_modules', 'x', 'index.js'), 'const k = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";\n');
    const r = runCli(['scan-secrets', dir]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /train\.py:2: Hugging Face token \(hf_A…\)/);
    assert.match(r.stdout, /\.env: \.env file/);
    assert.match(r.stdout, /\.git\/config:2: GitHub token/);
    assert.doesNotMatch(r.stdout, /node_modules/, 'generated folders are checked by name only');
    assert.doesNotMatch(r.stdout, /AbCdEfGh/, 'never prints the secret');
    const clean = join(work, 'clean');
    mkdirSync(clean);
    writeFileSync(join(clean, 'train.py'), 'print("hello")\n');
    const ok = runCli(['scan-secrets', clean]);
    assert.equal(ok.code, 0);
    assert.match(ok.stdout, /no likely secrets in 1 file/);
    const missing = runCli(['scan-secrets', join(work, 'nope')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^gpu-rent scan-secrets: cannot read .*nope.* \(no such file or folder\)\n$/);
  });

  it('peak uses Beijing time whatever TZ the process has', () => {
    for (const TZ of ['America/New_York', 'UTC']) {
      const r = runCli(['peak', '--platform', '秘塔智算', '--at', '2026-11-29T12:30:00Z'], { env: { TZ } });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Beijing time now: 2026-11-29 20:30 \(Beijing\)\n秘塔智算 \(mita\): PEAK HOURS/);
    }
    const off = runCli(['peak', '--platform', 'mita', '--at', '2026-11-29T16:00:00+08:00']);
    assert.match(off.stdout, /off peak; the evening queue \(19:00–23:00 Beijing\) starts 2026-11-29 19:00/);
    const bad = runCli(['peak', '--at', '20:30']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--at expects an ISO date-time with a zone/);
  });

  it('spot-check asks for a confirmation over an hour', () => {
    const long = runCli(['spot-check', '--rate', '1.58', '--hours', '8', '--sync-minutes', '60']);
    assert.equal(long.code, 1);
    assert.match(long.stderr, /needs confirmation \(--yes\)/);
    assert.equal(runCli(['spot-check', '--rate', '1.58', '--hours', '8', '--sync-minutes', '60', '--yes']).code, 0);
    const short = runCli(['spot-check', '--rate', '1.58', '--hours', '0.5', '--sync-minutes', '10', '--json']);
    assert.equal(short.code, 0);
    assert.equal(JSON.parse(short.stdout).needsConfirmation, false);
    assert.equal(runCli(['spot-check', '--rate', 'abc', '--hours', '1', '--sync-minutes', '1']).code, 2);
  });

  it('spend reads the exported instance list: budget, projection, AutoDL release warning with the date', () => {
    const now = Date.parse('2026-11-20T12:00:00+08:00') / 1000;
    const day = 86400;
    const base = (id: string, platform: string, intervals: Instance['intervals']): Instance => ({
      id,
      name: id,
      platform,
      card: 'rtx3090',
      gpuCount: 1,
      login: { host: '127.0.0.1', port: 22, user: 'root', auth: 'password' },
      pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 20 },
      intervals,
      createdAt: now - 20 * day,
    });
    const stoppedAt = now - 12 * day;
    const list = [
      base('parked', 'autodl', [
        { state: 'running', from: stoppedAt - 10 * 3600, to: stoppedAt, computeRate: 198, storageRate: 1000 },
        { state: 'stopped', from: stoppedAt, computeRate: 0, storageRate: 1000 },
      ]),
      base('training', 'autodl', [{ state: 'running', from: now - 5 * 3600, computeRate: 198, storageRate: 1000 }]),
    ];
    const file = join(work, 'instances.json');
    writeFileSync(file, exportInstances(list));
    const r = runCli(['spend', file, '--budget', '1000', '--at', '2026-11-20T12:00:00+08:00']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /burning ¥2\.81\/h now/); // ¥1.98 + two disks at ¥10/day
    assert.match(r.stdout, /projected month end: ¥/);
    assert.match(r.stdout, /WARNING parked: .*releases it, data and all, on 2026-11-23 /);
    const j = JSON.parse(runCli(['spend', file, '--budget', '10', '--json', '--at', '2026-11-20T12:00:00+08:00']).stdout);
    assert.equal(j.budget.level, 'exceeded');
    assert.equal(j.releases[0].watch.kind, 'releaseSoon');
    assert.equal(j.releases[0].watch.dayNumber, 13);
    const garbage = join(work, 'garbage.json');
    writeFileSync(garbage, '{"nope":1}');
    const g = runCli(['spend', garbage]);
    assert.equal(g.code, 2);
    assert.match(g.stderr, /not an exported instance list/);
  });
});

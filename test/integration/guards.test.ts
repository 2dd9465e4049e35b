// Guards against a real OpenSSH server on loopback, with real captured nvidia-smi outputs and
// a fake clock (a file the watchdog reads instead of `date`): idle probes, the on-box watchdog
// (armed, never fires on a busy GPU, fires on an idle one with the hook first, spot reclaim
// notice from a local metadata server), memory-only upload and wipe.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RemoteConnection } from '../../src/remote/connection';
import { startSshd, fixturesDir, type TestSshd } from '../support/sshd';
import { judgeIdle } from '../../src/core/guards/idle';
import { parseNvidiaSmi } from '../../src/core/smi';
import { probeIdle } from '../../src/remote/guards/probe';
import { installWatchdog, removeWatchdog, watchdogStatus, type WatchdogStatus } from '../../src/remote/guards/watchdog';
import { WATCHDOG_SCRIPT, spotTerminationUrl, tencentSpotTerminationUrl, watchdogConfigText, type WatchdogConfig } from '../../src/remote/guards/watchdog-script';
import { MetadataServer } from '../support/metadata-server';
import { untilValue } from '../support/timing';
import { shQuote } from '../../src/remote/shell';
import { secureUpload, wipeRamDir, RamUploadRefused, inspectRamTarget } from '../../src/remote/guards/ramdisk';
import { captureEnvironment, startRebuild } from '../../src/remote/guards/environment';
import { followLog } from '../../src/remote/jobs';
import { loopRounds } from './remote-helpers';

/** How the box-side reads below are polled: each is an SSH exec. */
const READS = { ms: 30000, everyMs: 200 };

describe('guards: the watchdog reads nvidia-smi the way core does', () => {
  it('agrees with the core parser on busy/quiet for every real capture', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpr-wd-'));
    try {
      const script = join(dir, 'watchdog.sh');
      writeFileSync(script, WATCHDOG_SCRIPT);
      mkdirSync(join(dir, 'bin'));
      const smiDir = join(fixturesDir(), 'nvidia-smi');
      for (const name of readdirSync(smiDir).filter((f) => !f.endsWith('.md'))) {
        writeFileSync(join(dir, 'bin', 'nvidia-smi'), `#!/bin/sh\ncat '${join(smiDir, name)}'\n`);
        chmodSync(join(dir, 'bin', 'nvidia-smi'), 0o755);
        const out = execFileSync('sh', [script, 'reading'], { env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, HOME: dir }, encoding: 'utf8' }).trim();
        const [gpus, unknown, max, procs] = out.split(' ').map(Number) as [number, number, number, number];
        const core = parseNvidiaSmi(readFileSync(join(smiDir, name), 'utf8'));
        const v = judgeIdle(
          [0, 60].map((t) => ({ at: t, smi: core, logSizes: {} })),
          { utilizationThresholdPct: 10, windowSeconds: 60 },
        );
        const shBusy = procs > 0 || max >= 10;
        const shUnknown = !shBusy && (gpus === 0 || unknown > 0);
        const shSays = shBusy ? 'busy' : shUnknown ? 'cannotTell' : 'idle';
        // The version-only output has no GPUs: both refuse to call it idle.
        assert.equal(shSays, v.kind, `${name}: watchdog read "${out}", core says ${JSON.stringify(v)}`);
        if (/_load/.test(name)) assert.equal(shSays === 'idle', false, name);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('guards: the watchdog config survives hostile values', () => {
  it('sh reads back every value byte for byte', () => {
    // The payload points into the folder this test made, and only that folder is looked at.
    const dir = mkdtempSync(join(tmpdir(), 'gpr-cfg-'));
    const hostile = `x'; touch ${dir}/PWNED; '\n$(id) \`id\` "q" \\ ; *`;
    const text = watchdogConfigText(
      { pollSeconds: 5.7, utilizationThresholdPct: NaN, idleWindowSeconds: -3, watchDirs: ['/a b', hostile], hookCommand: hostile, hookTimeoutSeconds: 9, actionCommand: hostile, actionIfHookFails: false, spotUrl: hostile, clockFile: null },
      shQuote,
    );
    try {
      writeFileSync(join(dir, 'config'), text);
      const out = execFileSync('sh', ['-c', '. "$1/config"; printf "%s\\0" "$GR_POLL_SECONDS" "$GR_UTIL_THRESHOLD" "$GR_IDLE_WINDOW" "$GR_WATCH_DIRS" "$GR_HOOK" "$GR_ACTION" "$GR_SPOT_URL" "$GR_ACTION_IF_HOOK_FAILS"', 'sh', dir], { encoding: 'utf8' });
      assert.deepEqual(out.split('\0').slice(0, -1), ['5', '1', '0', `/a b\n${hostile}`, hostile, hostile, hostile, 'no']);
      assert.deepEqual(readdirSync(dir), ['config'], 'nothing but the config: no PWNED file');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('guards against a real sshd', function () {
  this.timeout(120000);
  let sshd: TestSshd;
  let conn: RemoteConnection;
  let work: string;
  let uid = 0;
  let gid = 0;

  const asUser = (path: string) => chownSync(path, uid, gid);
  const userFile = (path: string, text: string) => {
    writeFileSync(path, text);
    asUser(path);
  };

  before(async () => {
    sshd = await startSshd({ nvidiaSmi: 'h100_80gb_driver590.48.01_smi_load.txt' });
    work = mkdtempSync(join(tmpdir(), 'gpr-guards-'));
    uid = statSync(sshd.home).uid;
    gid = statSync(sshd.home).gid;
    conn = new RemoteConnection(
      { host: sshd.host, port: sshd.port, user: sshd.user, identityFiles: [sshd.privateKeyPath], source: 'address', ignored: [] },
      { knownHostsPath: join(work, 'known_hosts'), acceptNew: true, agent: false, useDefaultKeys: false, opTimeoutMs: 20000 },
    );
    await conn.connect();
  });

  after(async () => {
    conn?.close();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  describe('idle probes', () => {
    it('a loaded GPU (real H100 capture under gpu-burn) is busy; an idle TITAN V with a silent log goes idle after the window', async () => {
      const jobs = join(sshd.home, '.gpu-rent', 'jobs', 'train');
      mkdirSync(jobs, { recursive: true });
      execFileSync('chown', ['-R', `${uid}:${gid}`, join(sshd.home, '.gpu-rent')]);
      userFile(join(jobs, 'log'), 'epoch 1\n');
      const settings = { utilizationThresholdPct: 10, windowSeconds: 1800 };
      const T = 1_800_000_000;
      const loaded = [await probeIdle(conn, { now: () => T }), await probeIdle(conn, { now: () => T + 3600 })];
      const busy = judgeIdle(loaded, settings);
      assert.ok(busy.kind === 'busy' && busy.signals.includes('gpuUtilization') && busy.signals.includes('gpuProcesses'), JSON.stringify(busy));
      assert.deepEqual(loaded[1]!.logSizes, { [join(jobs, 'log')]: 8 });

      sshd.setNvidiaSmi('titanv_driver515.65.01_smi.txt');
      const quiet = [await probeIdle(conn, { now: () => T + 3700 })];
      appendFileSync(join(jobs, 'log'), 'epoch 2\n');
      quiet.push(await probeIdle(conn, { now: () => T + 3800 }));
      // The log grew: busy even though the GPU reads 0 % with no process.
      const growing = judgeIdle([...loaded, ...quiet], settings);
      assert.ok(growing.kind === 'busy' && growing.signals.includes('logGrowing'), JSON.stringify(growing));
      // Quiet from the first probe after the last growth; idle one window later.
      quiet.push(await probeIdle(conn, { now: () => T + 3860 }));
      quiet.push(await probeIdle(conn, { now: () => T + 3860 + 1000 }));
      assert.equal(judgeIdle([...loaded, ...quiet], settings).kind, 'quiet');
      quiet.push(await probeIdle(conn, { now: () => T + 3860 + 1800 }));
      const idle = judgeIdle([...loaded, ...quiet], settings);
      assert.ok(idle.kind === 'idle' && idle.quietSince === T + 3860, JSON.stringify(idle));
    });
  });

  describe('on-box watchdog', () => {
    let clockFile: string;
    const setClock = (t: number) => userFile(clockFile, `${t}\n`);
    const base = (over: Partial<WatchdogConfig> = {}): WatchdogConfig => ({
      pollSeconds: 1,
      utilizationThresholdPct: 10,
      idleWindowSeconds: 1800,
      watchDirs: [join(sshd.home, '.gpu-rent', 'jobs')],
      hookCommand: `echo hook >> "$HOME/order"; touch "$HOME/hook-ran"`,
      hookTimeoutSeconds: 30,
      actionCommand: `echo action >> "$HOME/order"; touch "$HOME/action-ran"`,
      actionIfHookFails: false,
      spotUrl: null,
      clockFile,
      ...over,
    });
    const status = () => watchdogStatus(conn);

    before(() => {
      clockFile = join(sshd.home, 'fake-clock');
      setClock(2_000_000_000);
    });
    afterEach(async () => {
      await removeWatchdog(conn);
      for (const f of ['order', 'hook-ran', 'action-ran']) rmSync(join(sshd.home, f), { force: true });
    });

    it('installs detached and verifies it is armed; survives the SSH connection closing', async () => {
      sshd.setNvidiaSmi('h100_80gb_driver590.48.01_smi_load.txt');
      const s = await installWatchdog(conn, base());
      assert.equal(s.armed, true);
      assert.equal(s.running, true);
      assert.ok(s.pid && s.pid > 0);
      assert.ok(s.events.some((e) => e.kind === 'armed'));
      // A fresh connection (the laptop went to sleep and came back) still finds it running.
      conn.close();
      conn = new RemoteConnection(conn.target, { knownHostsPath: join(work, 'known_hosts'), acceptNew: true, agent: false, useDefaultKeys: false, opTimeoutMs: 20000 });
      await loopRounds(sshd, '.gpu-rent/watchdog', 1);
      const again = await status();
      assert.equal(again.running, true);
      assert.equal(again.pid, s.pid);
      assert.equal(again.armed, true);
    });

    it('never fires on a busy GPU, however long the fake clock runs', async () => {
      sshd.setNvidiaSmi('h100_80gb_driver590.48.01_smi_load.txt');
      setClock(2_000_000_000);
      await installWatchdog(conn, base());
      for (const t of [2_000_000_000 + 1000, 2_000_000_000 + 5000, 2_000_000_000 + 86400]) {
        setClock(t);
        await untilValue('a busy reading at the new time', status, (s) => s.state?.kind === 'busy' && s.state.at === t, READS);
      }
      // The 2080 SUPER capture reads 8 % (under the threshold) but runs ffmpeg on the GPU.
      sshd.setNvidiaSmi('rtx2080super_driver610.57.04_smi_load_KMD-UMD-header.txt');
      setClock(2_000_000_000 + 2 * 86400);
      await untilValue('busy on the 8 % capture', status, (s) => s.state?.kind === 'busy' && s.state.at === 2_000_000_000 + 2 * 86400, READS);
      const s = await status();
      assert.equal(s.running, true);
      assert.ok(!s.events.some((e) => e.kind === 'idle'));
      assert.equal(existsSync(join(sshd.home, 'action-ran')), false);
      assert.equal(existsSync(join(sshd.home, 'hook-ran')), false);
    });

    it('fires on an idle GPU after the window: the checkpoint hook first, then the action', async () => {
      sshd.setNvidiaSmi('titanv_driver515.65.01_smi.txt');
      const t0 = 2_100_000_000;
      setClock(t0);
      await installWatchdog(conn, base());
      await untilValue('quiet', status, (s) => s.state?.kind === 'quiet', READS);
      setClock(t0 + 1000);
      await loopRounds(sshd, '.gpu-rent/watchdog', 2);
      let s = await status();
      assert.equal(s.running, true, 'still inside the window');
      assert.equal(existsSync(join(sshd.home, 'action-ran')), false);
      setClock(t0 + 1800);
      s = await untilValue('fired', status, (x) => x.state?.kind === 'fired', READS);
      assert.equal(s.running, false);
      assert.deepEqual(readFileSync(join(sshd.home, 'order'), 'utf8').trim().split('\n'), ['hook', 'action']);
      const kinds = s.events.map((e) => e.kind);
      assert.deepEqual(kinds.slice(kinds.indexOf('idle')), ['idle', 'hook-start', 'hook-exit', 'action-start', 'action-exit']);
    });

    it('a job that keeps writing its log holds it off; a failed hook stops the action', async () => {
      sshd.setNvidiaSmi('titanv_driver515.65.01_smi.txt');
      const log = join(sshd.home, '.gpu-rent', 'jobs', 'train', 'log');
      const t0 = 2_200_000_000;
      setClock(t0);
      await installWatchdog(conn, base({ hookCommand: 'echo hook >> "$HOME/order"; exit 3' }));
      for (let i = 1; i <= 4; i++) {
        setClock(t0 + i * 1000);
        // The job keeps writing while we wait (one write could fall between two polls' markers
        // on a loaded machine and never be seen, which is not what this test is about).
        await untilValue(
          'busy while the log grows',
          async () => {
            appendFileSync(log, `step ${i}\n`);
            return status();
          },
          (s) => s.state?.kind === 'busy' && s.state.at === t0 + i * 1000,
          READS,
        );
      }
      // The job stops writing: quiet from the next poll, fires one window later.
      const quiet = await untilValue('quiet', status, (s) => s.state?.kind === 'quiet', READS);
      setClock(quiet.state!.at + 1800);
      const s = await untilValue('fired', status, (x) => x.state?.kind === 'fired', READS);
      assert.ok(s.events.some((e) => e.kind === 'hook-exit' && e.detail === '3'));
      assert.ok(s.events.some((e) => e.kind === 'action-skipped'));
      assert.equal(existsSync(join(sshd.home, 'action-ran')), false);
    });

    it('阿里云 spot: a termination time in the (local) metadata server triggers the hook once', async () => {
      let announce = false;
      let hits = 0;
      const server: Server = createServer((req, res) => {
        hits++;
        if (req.url === '/latest/meta-data/instance/spot/termination-time' && announce) {
          res.end('2026-11-29T12:05:00Z');
        } else {
          res.statusCode = 404;
          res.end('Not Found');
        }
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const port = (server.address() as AddressInfo).port;
        sshd.setNvidiaSmi('h100_80gb_driver590.48.01_smi_load.txt');
        await installWatchdog(conn, base({ idleWindowSeconds: 0, spotUrl: spotTerminationUrl(`127.0.0.1:${port}`), actionCommand: null }));
        await untilValue('a few 404 polls', async () => hits, (h) => h >= 2, READS);
        assert.equal(existsSync(join(sshd.home, 'hook-ran')), false);
        announce = true;
        const s = await untilValue('the spot notice', status, (x) => x.events.some((e) => e.kind === 'hook-exit'), READS);
        assert.ok(s.events.some((e) => e.kind === 'spot-termination' && e.detail === '2026-11-29T12:05:00Z'));
        assert.equal(existsSync(join(sshd.home, 'hook-ran')), true);
        const hitsAfter = hits;
        await loopRounds(sshd, '.gpu-rent/watchdog', 2);
        const later = await status();
        assert.equal(later.events.filter((e) => e.kind === 'hook-start').length, 1, 'the hook runs once');
        assert.equal(later.running, true);
        assert.equal(hits, hitsAfter, 'no more metadata polls after the notice');
      } finally {
        server.close();
      }
    });

    it('spot on a box whose metadata requires the token (阿里云) and on 腾讯云’s address: each notice is read and runs the hook', async () => {
      const md = await MetadataServer.start();
      try {
        sshd.setNvidiaSmi('h100_80gb_driver590.48.01_smi_load.txt');
        await installWatchdog(conn, base({ idleWindowSeconds: 0, spotUrl: spotTerminationUrl(md.host), spotTencentUrl: tencentSpotTerminationUrl(md.host), actionCommand: null }));
        await untilValue('polls with the token', async () => md.hits.filter((h) => h.path.endsWith('/instance/spot/termination-time') && h.token).length, (n) => n >= 2, READS);
        assert.ok(md.hits.some((h) => h.method === 'PUT' && h.path === '/latest/api/token'));
        md.aliyun = '2026-11-29T12:05:00Z';
        const s = await untilValue('the 阿里云 notice', status, (x) => x.events.some((e) => e.kind === 'hook-exit'), READS);
        assert.ok(s.events.some((e) => e.kind === 'spot-termination' && e.detail === '2026-11-29T12:05:00Z'), JSON.stringify(s.events));
        await removeWatchdog(conn);
        rmSync(join(sshd.home, 'hook-ran'), { force: true });
        md.aliyun = undefined;
        md.tencent = '2026-11-29 20:05:00';
        await installWatchdog(conn, base({ idleWindowSeconds: 0, spotUrl: spotTerminationUrl(md.host), spotTencentUrl: tencentSpotTerminationUrl(md.host), actionCommand: null }));
        const t = await untilValue('the 腾讯云 notice', status, (x) => x.events.some((e) => e.kind === 'hook-exit'), READS);
        assert.ok(t.events.some((e) => e.kind === 'spot-termination' && e.detail === '2026-11-29 20:05:00'), JSON.stringify(t.events));
        assert.equal(existsSync(join(sshd.home, 'hook-ran')), true);
      } finally {
        await md.close();
      }
    });

    it('status tells a dead watchdog from an armed one; remove leaves nothing behind', async () => {
      sshd.setNvidiaSmi('h100_80gb_driver590.48.01_smi_load.txt');
      const s = await installWatchdog(conn, base());
      process.kill(s.pid!, 'SIGKILL');
      const dead = await untilValue('dead', status, (x) => !x.running, READS);
      assert.equal(dead.armed, false);
      assert.equal(dead.installed, true);
      const r = await removeWatchdog(conn);
      assert.deepEqual(r, { wasInstalled: true, wasRunning: false });
      assert.equal(existsSync(join(sshd.home, '.gpu-rent', 'watchdog')), false);
      const none: WatchdogStatus = await status();
      assert.equal(none.installed, false);
    });
  });

  describe('memory-only upload', () => {
    const shmDir = `/dev/shm/gpr-test-${process.pid}`;
    let local: string;
    before(() => {
      local = join(work, 'secret-data');
      mkdirSync(join(local, 'sub'), { recursive: true });
      writeFileSync(join(local, 'users.csv'), 'id,phone\n1,13800000000\n');
      writeFileSync(join(local, 'sub', 'big.bin'), Buffer.alloc(3 * 1024 * 1024 + 17, 7));
    });
    after(() => rmSync(shmDir, { recursive: true, force: true }));

    it('streams files into tmpfs, private, byte for byte; wipe removes them', async () => {
      const r = await secureUpload(conn, [local], `${shmDir}/up`);
      assert.equal(r.target.fsType, 'tmpfs');
      assert.deepEqual(
        r.files.map((f) => f.relPath),
        ['secret-data/sub/big.bin', 'secret-data/users.csv'],
      );
      const remote = join(shmDir, 'up', 'secret-data');
      assert.deepEqual(readFileSync(join(remote, 'users.csv')), readFileSync(join(local, 'users.csv')));
      assert.deepEqual(readFileSync(join(remote, 'sub', 'big.bin')), readFileSync(join(local, 'sub', 'big.bin')));
      assert.equal(statSync(join(remote, 'users.csv')).mode & 0o777, 0o600);
      assert.equal(statSync(join(shmDir, 'up')).mode & 0o777, 0o700);
      assert.equal(statSync(join(remote, 'users.csv')).uid, uid);
      const w = await wipeRamDir(conn, `${shmDir}/up`);
      assert.equal(w.kind, 'wiped');
      assert.ok(w.kind === 'wiped' && w.bytes >= 3 * 1024 * 1024);
      assert.equal(existsSync(join(shmDir, 'up')), false);
      assert.deepEqual(await wipeRamDir(conn, `${shmDir}/up`), { kind: 'absent' });
    });

    it('refuses a disk folder, a RAM shortfall, and writes nothing', async () => {
      const onDisk = join(sshd.home, 'not-ram');
      const info = await inspectRamTarget(conn, onDisk);
      assert.notEqual(info.fsType, 'tmpfs');
      await assert.rejects(secureUpload(conn, [local], onDisk), (e: unknown) => e instanceof RamUploadRefused && e.refusal.kind === 'notRamBacked' && /not RAM/.test(e.message));
      assert.equal(existsSync(onDisk), false);
      await assert.rejects(secureUpload(conn, [local], `${shmDir}/short`, { reserveBytes: 1e15 }), (e: unknown) => e instanceof RamUploadRefused && e.refusal.kind === 'ramShort' && /RAM available/.test(e.message));
      assert.equal(existsSync(join(shmDir, 'short')), false);
      // A link on the way to disk is caught after mkdir, and the folder is removed again.
      mkdirSync(shmDir, { recursive: true });
      execFileSync('ln', ['-s', sshd.home, join(shmDir, 'to-home')]);
      await assert.rejects(secureUpload(conn, [local], `${shmDir}/to-home/x`), (e: unknown) => e instanceof RamUploadRefused && e.refusal.kind === 'notRamBacked');
    });

    it('wipe touches only folders it made, and never a mount point', async () => {
      mkdirSync(join(shmDir, 'someone-else'), { recursive: true, mode: 0o777 });
      chmodSync(join(shmDir, 'someone-else'), 0o777);
      chmodSync(shmDir, 0o777);
      assert.equal((await wipeRamDir(conn, join(shmDir, 'someone-else'))).kind, 'notOurs');
      assert.equal(existsSync(join(shmDir, 'someone-else')), true);
      assert.equal((await wipeRamDir(conn, '/dev/shm', { force: true })).kind, 'refused');
      assert.equal((await wipeRamDir(conn, '~', { force: true })).kind, 'refused');
      assert.equal(existsSync(sshd.home), true);
    });
  });
  describe('portable environment', () => {
    it('captures a box’s env and rebuilds it in a fresh env on a box with one command', async () => {
      sshd.setNvidiaSmi('titanv_driver515.65.01_smi.txt');
      sshd.runAsUser('python3 -m venv "$HOME/srcenv"');
      appendFileSync(join(sshd.home, '.profile'), 'export PATH="$HOME/srcenv/bin:$PATH"\n');
      const snap = await captureEnvironment(conn, 'test-box', { now: () => 1_800_000_000 });
      assert.equal(snap.driverVersion, '515.65.01');
      assert.equal(snap.driverMaxCuda, '11.7');
      assert.deepEqual(snap.gpus, ['NVIDIA TITAN V']);
      assert.equal(snap.environmentYml, null, 'no conda on the test box');
      assert.equal(snap.torch, null);
      assert.match(snap.pythonVersion ?? '', /^3\.\d+/);
      assert.match(snap.requirements, /^pip==/m);
      const started = await startRebuild(conn, snap, 'moved');
      assert.equal(started.job.name, 'env-moved');
      let log = '';
      const done = await followLog(conn, 'env-moved', { onData: (c) => (log += c.toString()) });
      assert.equal(done.exitCode, 0, log);
      assert.match(log, /gpu-rent: environment moved ready: .*\.gpu-rent\/venvs\/moved\/bin\/python/);
      const rebuilt = sshd.runAsUser('"$HOME/.gpu-rent/venvs/moved/bin/python" -m pip list --format=freeze');
      const original = sshd.runAsUser('"$HOME/srcenv/bin/python" -m pip list --format=freeze');
      assert.equal(rebuilt, original);
      // Never over an existing env.
      await startRebuild(conn, snap, 'moved');
      let again = '';
      const second = await followLog(conn, 'env-moved', { onData: (c) => (again += c.toString()) });
      assert.equal(second.exitCode, 3, again);
      assert.match(again, /exists already/);
      await assert.rejects(startRebuild(conn, snap, '../x'), /not a usable env name/);
    });
  });
});

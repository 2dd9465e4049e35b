// The output of `schedule` (against the local platform server) and of the box guards
// (release-check, secure-upload, wipe, watchdog, against the real loopback sshd) in Chinese,
// run as a user would (the built dist/cli.js). LANG=C is pinned; --lang or LANG=zh_CN decide.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireFileLock, powerLockKey } from '../../src/app/platforms/powerLock';
import { runCli, runCliAsync } from '../support/cli';
import { PlatformServer } from '../support/platform-server';
import { startSshd, type TestSshd } from '../support/sshd';

/** Three or more English words in a row, once typed commands (`gpu-rent …`) are cut. */
function englishRun(text: string): string | undefined {
  return /\b[a-z]{2,}(?: [a-z]{2,}){2,}\b/i.exec(text.replace(/gpu-rent [^（）。；\n]*/g, ''))?.[0];
}

const bj = (s: string) => String(Date.parse(`${s.replace(' ', 'T')}:00+08:00`) / 1000);

describe('gpu-rent schedule in Chinese (built CLI, local platform server, fixed clock)', function () {
  this.timeout(90000);
  let s: PlatformServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const at = (when: string, lang: string) => ({ ...env, GPU_RENT_TEST_NOW: bj(when), LANG: lang });
  const run = (args: string[], e: NodeJS.ProcessEnv) => runCliAsync(['schedule', ...args], e);
  before(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 200;
  });
  after(() => s.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-sched-lang-'));
    env = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_WEB_API: s.url, GPU_RENT_SETTLE_INTERVAL_MS: '100', GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_ALLOW_POWER: '1' };
    s.instances.clear();
    s.requests.length = 0;
    s.faults.length = 0;
    s.balances.autodlPro = 123450;
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('add, list, run (done, missed, refused) and remove in Chinese; the JSON of list and run the same in both', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-s', name: 'train', state: 'shutdown' });
    const noon = '2026-12-04 12:00';
    const bad = await run(['add', 'train', '--at', 'mon-fri 25:00', '--do', 'power-on'], at(noon, 'zh_CN.UTF-8'));
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--at："25:00" 不是一天中的时间（00:00 … 23:59）\n$/);
    const noGpu = await run(['add', 'train', '--at', 'daily 01:00', '--do', 'no-gpu'], at(noon, 'zh_CN.UTF-8'));
    assert.equal(noGpu.code, 1);
    assert.equal(noGpu.stderr, 'gpu-rent schedule: AutoDL Pro 的 API 不提供无卡开机（只有 AutoDL 控制台令牌 autodl-web 可以）：未添加\n');
    const ro = await run(['add', 'train', '--at', 'mon-fri 17:00', '--do', 'power-on'], { ...at(noon, 'zh_CN.UTF-8'), GPU_RENT_ALLOW_POWER: '' });
    assert.match(ro.stderr, /账号 env-autodl-pro 是只读的（运行时请设置 GPU_RENT_ALLOW_POWER=1）：未添加/);
    const missing = await run(['add', 'nope', '--at', 'mon-fri 17:00', '--do', 'power-on', '--lang', 'zh-cn'], at(noon, 'C.UTF-8'));
    assert.match(missing.stderr, /env-autodl-pro 上没有实例 nope/);

    const add = await run(['add', 'train', '--at', 'mon-fri 17:00', '--do', 'power-on', '--on-platform'], at(noon, 'zh_CN.UTF-8'));
    assert.equal(add.code, 0, add.stderr);
    const id = /^已添加 ([a-z0-9]+)：mon-fri 17:00（北京时间）：开机（带 GPU） train（env-autodl-pro\/pro-s）；下一次 北京时间 2026-12-04 17:00\n$/.exec(add.stdout)?.[1];
    assert.ok(id, add.stdout);
    assert.match(add.stderr, /^未在平台上设定：没有平台支持定时开机。\n这条规则由 gpu-rent 的执行器负责/);
    assert.equal(englishRun(add.stdout + add.stderr), undefined, add.stdout + add.stderr);

    const list = await run(['list'], at(noon, 'zh_CN.UTF-8'));
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^ID +实例 +时间（北京） +操作 +下一次（北京） +计费 +平台定时器 +上一次\n/);
    assert.match(list.stdout, new RegExp(`\\n${id} +train \\(env-autodl-pro/pro-s\\) +mon-fri 17:00 +开机（带 GPU） +2026-12-04 17:00 +开始计费 ¥1\\.97/小时`));
    const listEn = await run(['list', '--json'], at(noon, 'C.UTF-8'));
    assert.equal((await run(['list', '--json'], at(noon, 'zh_CN.UTF-8'))).stdout, listEn.stdout);

    const done = await run(['run'], at('2026-12-04 17:05', 'zh_CN.UTF-8'));
    assert.equal(done.code, 0, done.stderr);
    assert.equal(done.stdout, `${id} 开机（带 GPU） train（env-autodl-pro/pro-s）计划时间 北京时间 2026-12-04 17:00：完成：已带 GPU 开机\n`);
    const nothing = await run(['run'], at('2026-12-04 17:10', 'zh_CN.UTF-8'));
    assert.equal(nothing.stderr, '没有到期的计划（北京时间 2026-12-04 17:10）\n');
    const last = await run(['list'], at('2026-12-04 17:10', 'zh_CN.UTF-8'));
    assert.match(last.stdout, / 完成 2026-12-04 17:00\n/);

    // The laptop slept past Monday's window: missed, exit 1, in Chinese.
    const late = await run(['run'], at('2026-12-07 17:31', 'zh_CN.UTF-8'));
    assert.equal(late.code, 1);
    assert.match(late.stdout, /：错过：计划时间已过去 31 分钟，期间没有任何程序在运行，超出了 30 分钟的窗口：不会迟执行\n$/);
    assert.equal(englishRun(late.stdout), undefined, late.stdout);

    // A refusal: the extension's words for 余额不足, the platform's own words kept beside them; the JSON the same.
    s.instances.get('pro-s')!.state = 'shutdown';
    s.balances.autodlPro = 0;
    const refusedJson = await run(['run', '--json'], at('2026-12-08 17:01', 'C.UTF-8'));
    assert.equal(refusedJson.code, 1);
    const refusedDoc = JSON.parse(refusedJson.stdout) as { results: { outcome: string; detail: string }[] };
    assert.equal(refusedDoc.results[0]!.outcome, 'refused');
    assert.match(refusedDoc.results[0]!.detail, /power-on refused: AutoDL Pro: 余额不足/);
    const refused = await run(['run'], at('2026-12-09 17:01', 'zh_CN.UTF-8'));
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /：被拒绝：余额不足：请先充值（power-on refused: AutoDL Pro: 余额不足/);

    const gone = await run(['remove', id!], at(noon, 'zh_CN.UTF-8'));
    assert.equal(gone.stdout, `已删除 ${id}（mon-fri 17:00：开机（带 GPU） train）\n`);
  });
});

describe('gpu-rent power-on --wait-for-gpu and a busy schedule run in Chinese (local platform server)', function () {
  this.timeout(90000);
  let s: PlatformServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 200;
  });
  after(() => s.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-wait-lang-'));
    env = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_API: s.url, GPU_RENT_SETTLE_INTERVAL_MS: '50', GPU_RENT_WAIT_MIN_INTERVAL_MS: '40', GPU_RENT_ALLOW_POWER: '1', GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, LANG: 'zh_CN.UTF-8' };
    s.instances.clear();
    s.requests.length = 0;
    s.faults.length = 0;
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('a refusal waiting does not mend (余额不足), the instance lock held elsewhere, another schedule run in progress', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-1', name: 'train', state: 'shutdown' });
    s.fault({ platform: 'autodl-pro', on: '/api/v1/dev/instance/pro/power_on', error: 'insufficientBalance' });
    const bal = await runCliAsync(['power-on', 'pro-1', '--wait-for-gpu', '--yes'], env);
    assert.equal(bal.code, 1);
    const refusal = bal.stderr.split('\n').find((l) => l.startsWith('gpu-rent power-on: train：'));
    assert.ok(refusal, bal.stderr);
    assert.match(refusal, /^gpu-rent power-on: train：余额不足：请先充值，再运行一次。AutoDL Pro：余额不足：请先充值（\S+ .*）。等了 .+ 后停止等待$/);
    s.faults.length = 0;
    const power = acquireFileLock(join(home, 'locks'), powerLockKey('env-autodl-pro', 'pro-1'), 'power-on --wait-for-gpu');
    assert.ok('release' in power);
    try {
      const busy = await runCliAsync(['power-on', 'pro-1', '--wait-for-gpu', '--yes'], env);
      assert.equal(busy.code, 1);
      assert.match(busy.stderr, /\ngpu-rent power-on: train 正在由 power-on --wait-for-gpu（pid \d+）开机，自北京时间 \d{4}-\d\d-\d\d \d\d:\d\d 起：未发送任何请求\n$/);
      // The schedule runner meets the same lock: its busy detail read back in Chinese.
      const add = await runCliAsync(['schedule', 'add', 'train', '--at', 'daily 17:00', '--do', 'power-on'], { ...env, GPU_RENT_TEST_NOW: bj('2026-12-04 12:00') });
      assert.equal(add.code, 0, add.stderr);
      const r = await runCliAsync(['schedule', 'run'], { ...env, GPU_RENT_TEST_NOW: bj('2026-12-04 17:02') });
      assert.equal(r.code, 0, 'busy is not a failure: the holder is starting it');
      assert.match(r.stdout, /：忙：正在由 power-on --wait-for-gpu（pid \d+）开机，自北京时间 \d{4}-\d\d-\d\d \d\d:\d\d 起：未发送任何请求\n$/);
      assert.equal(englishRun(r.stdout.replace('power-on --wait-for-gpu', '')), undefined, r.stdout);
    } finally {
      power.release();
    }
    const runLock = acquireFileLock(join(home, 'locks'), 'schedule-run', 'schedule run');
    assert.ok('release' in runLock);
    try {
      const second = await runCliAsync(['schedule', 'run'], { ...env, GPU_RENT_TEST_NOW: bj('2026-12-04 17:03') });
      assert.equal(second.code, 1);
      assert.match(second.stderr, /^gpu-rent schedule: 另一个 gpu-rent schedule run（pid \d+）正在运行：什么也没做\n$/);
    } finally {
      runLock.release();
    }
    assert.equal(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, 1, 'the refused try only');
  });
});

describe('box guards in Chinese (built CLI, real sshd)', function () {
  this.timeout(120000);
  let sshd: TestSshd;
  let work: string;
  let env: NodeJS.ProcessEnv;
  const remote = () => [`${sshd.user}@127.0.0.1:${sshd.port}`, '--accept-new', '--identity', sshd.privateKeyPath];
  const zh = (args: string[]) => runCli([...args, '--lang', 'zh-cn'], { env });

  before(async () => {
    sshd = await startSshd({ nvidiaSmi: 'titanv_driver515.65.01_smi.txt' });
    work = mkdtempSync(join(tmpdir(), 'gpr-guards-lang-'));
    env = { GPU_RENT_KNOWN_HOSTS: join(work, 'known_hosts'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' };
  });
  after(async () => {
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('release-check: safe, at risk and a missing folder in Chinese; the JSON the same', () => {
    const box = join(sshd.home, 'ckpt-zh');
    mkdirSync(join(box, 'run1'), { recursive: true });
    writeFileSync(join(box, 'run1', 'epoch1.pt'), Buffer.alloc(4096, 1));
    const old = new Date(Date.now() - 3600 * 1000);
    utimesSync(join(box, 'run1', 'epoch1.pt'), old, old);
    execFileSync('chown', ['-R', `${statSync(sshd.home).uid}:${statSync(sshd.home).gid}`, box]);
    const local = join(work, 'local-ckpt');
    mkdirSync(local, { recursive: true });
    const risky = zh(['release-check', ...remote(), '--remote', '~/ckpt-zh', '--local', local]);
    assert.equal(risky.code, 1, risky.stderr);
    assert.match(risky.stdout, /^释放会丢失 \S+ckpt-zh 中的 1 个文件（4\.1 KB）：\n  run1\/epoch1\.pt（4\.1 KB，没有本地副本）\n请先拉回来：gpu-rent sync TARGET --remote ~\/ckpt-zh --local /);
    assert.equal(englishRun(risky.stdout), undefined, risky.stdout);
    const en = runCli(['release-check', ...remote(), '--remote', '~/ckpt-zh', '--local', local, '--json'], { env });
    const zhJson = runCli(['release-check', ...remote(), '--remote', '~/ckpt-zh', '--local', local, '--json'], { env: { ...env, LANG: 'zh_CN.UTF-8' } });
    assert.equal(zhJson.stdout, en.stdout);
    const missing = zh(['release-check', ...remote(), '--remote', '~/nope-zh', '--local', local]);
    assert.equal(missing.code, 1);
    // The extension's sentence for the same folder error (its zh bundle).
    assert.match(missing.stderr, /^gpu-rent release-check: 机器上（还）没有文件夹 \S*nope-zh：请检查路径，或先启动会写入它的训练。\n$/);
    assert.equal(englishRun(missing.stderr), undefined, missing.stderr);
  });

  it('secure-upload, its refusal on disk, and wipe in Chinese', () => {
    const local = join(work, 'patients.csv');
    writeFileSync(local, 'id,diagnosis\n1,x\n');
    const dir = `/dev/shm/gpr-cli-zh-${process.pid}`;
    try {
      const up = zh(['secure-upload', ...remote(), local, '--to', dir]);
      assert.equal(up.code, 0, up.stderr);
      assert.match(up.stdout, new RegExp(`^已上传 1 个文件（\\d+ B）到 ${dir}（tmpfs，只在内存中）\\n$`));
      const disk = zh(['secure-upload', ...remote(), local, '--to', join(sshd.home, 'data-zh')]);
      assert.equal(disk.code, 1);
      assert.match(disk.stderr, /^gpu-rent secure-upload: 已拒绝：\S+data-zh 位于 \S+ 文件系统上，不在内存（tmpfs）中/);
      const wipe = zh(['wipe', ...remote(), dir]);
      assert.equal(wipe.code, 0, wipe.stderr);
      assert.match(wipe.stdout, /^已清除 /);
      assert.equal(existsSync(dir), false);
      const again = zh(['wipe', ...remote(), dir]);
      assert.equal(again.stdout, `没有要清除的：机器上不存在 ${dir}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('watchdog: not installed, and its flag errors, in Chinese', () => {
    const status = zh(['watchdog', 'status', ...remote()]);
    assert.equal(status.stdout, '看门狗：未安装\n');
    const removed = zh(['watchdog', 'remove', ...remote()]);
    assert.equal(removed.stdout, '看门狗：本来就没有安装\n');
    const noAction = zh(['watchdog', 'install', ...remote()]);
    assert.equal(noAction.code, 2);
    assert.match(noAction.stderr, /install 必须给出 --action：none、shutdown 或 command/);
  });
});

// The CLI speaks Chinese under a Chinese locale (issue 23.5): the built CLI in a new process,
// LANG=zh_CN.UTF-8 against LANG=C.UTF-8, on the real loopback sshd and the local platform
// server. Heads, help, flag errors, states and connection errors are Chinese (the extension's
// own words where its l10n bundle has the same English); JSON is byte-identical in both.
import { strict as assert } from 'node:assert';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, runCliAsync } from '../support/cli';
import { NVIDIA_SMI_DIR } from '../support/fixtures';
import { PlatformServer } from '../support/platform-server';
import { startSshd, type TestSshd } from '../support/sshd';

const BUNDLE = JSON.parse(readFileSync(join(__dirname, '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const ZH = { LC_ALL: '', LC_MESSAGES: '', LANG: 'zh_CN.UTF-8' };
const EN = { LC_ALL: '', LC_MESSAGES: '', LANG: 'C.UTF-8' };
const CJK = /[\u4e00-\u9fff]/;

describe('the CLI in Chinese under a zh locale (built CLI, real sshd, platform server)', function () {
  this.timeout(120000);

  it('top help, a command help, an unknown command and a flag error are Chinese; English unchanged under LANG=C; --lang wins', () => {
    const zh = runCli(['--help'], { env: ZH });
    assert.equal(zh.code, 0);
    assert.match(zh.stdout, /^用法：gpu-rent 命令 \[选项\]/);
    assert.match(zh.stdout, /\n {2}instances +列出平台账号下的实例及其真实状态和价格\n/);
    assert.match(zh.stdout, /\n {2}sync +从租到的机器拉取检查点/);
    // Every command's line is Chinese.
    const rows = zh.stdout.split('\n').filter((l) => /^ {2}[a-z-]+ {2,}/.test(l));
    assert.ok(rows.length >= 30, zh.stdout);
    for (const r of rows) assert.match(r, CJK, r);
    const en = runCli(['--help'], { env: EN });
    assert.match(en.stdout, /^Usage: gpu-rent COMMAND \[options\]/);
    assert.doesNotMatch(en.stdout, /用法|列出平台账号/);
    assert.equal(runCli(['--help', '--lang', 'en'], { env: ZH }).stdout, en.stdout);
    assert.equal(runCli(['--help', '--lang', 'zh-cn'], { env: EN }).stdout, zh.stdout);

    const help = runCli(['probe', '--help'], { env: ZH });
    assert.match(help.stdout, /^用法：gpu-rent probe TARGET/);
    assert.match(help.stdout, /\n选项：\n/);
    assert.match(help.stdout, /-i, --identity FILE +先尝试的私钥文件/);
    assert.match(help.stdout, /--help +显示此帮助/);
    assert.match(runCli(['probe', '--help'], { env: EN }).stdout, /-i, --identity FILE +private key file to try first/);

    const unknown = runCli(['instancse'], { env: ZH });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /未知命令 "instancse"/);

    const flag = runCli(['instances', '--bogus'], { env: ZH });
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /^gpu-rent instances: 未知选项 --bogus（可用：--platform, --json, --lang）/);
    const bound = runCli(['probe', 'x@127.0.0.1', '--connect-timeout', '0'], { env: ZH });
    assert.match(bound.stderr, /--connect-timeout 需要数字（> 0，≤ 600），收到 "0"/);
    assert.match(runCli(['probe', 'x@127.0.0.1', '--connect-timeout', '0'], { env: EN }).stderr, /--connect-timeout expects a number > 0 and ≤ 600, got "0"/);
    // --json: the same English error object in both languages.
    const jz = runCli(['instances', '--bogus', '--json'], { env: ZH });
    const je = runCli(['instances', '--bogus', '--json'], { env: EN });
    assert.equal(jz.stdout, je.stdout);
    assert.equal(JSON.parse(je.stdout).error.code, 'usage');
  });

  it('smi: Chinese heads and summary line; --json byte-identical in both languages', () => {
    const file = join(NVIDIA_SMI_DIR, 'h100_80gb_driver590.48.01_smi_load.txt');
    const zh = runCli(['smi', file], { env: ZH });
    assert.equal(zh.code, 0, zh.stderr);
    assert.match(zh.stdout, /^nvidia-smi table：驱动 590\.48\.01，CUDA ≤ 13\.1，\d+ 块 GPU\n/);
    assert.match(zh.stdout, /\nGPU +名称 +显存 +利用率 +温度 +功率 +算力 +MIG\n/);
    const en = runCli(['smi', file], { env: EN });
    assert.match(en.stdout, /\nGPU +NAME +MEMORY +UTIL +TEMP +POWER +CC +MIG\n/);
    assert.equal(runCli(['smi', file, '--json'], { env: ZH }).stdout, runCli(['smi', file, '--json'], { env: EN }).stdout);
    const missing = runCli(['smi', '/nonexistent/smi.txt'], { env: ZH });
    assert.match(missing.stderr, /无法读取 \/nonexistent\/smi\.txt：没有这个文件/);
  });

  describe('on the real sshd', () => {
    let sshd: TestSshd;
    let work: string;
    let remoteDir: string;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      sshd = await startSshd({ nvidiaSmi: 'h100_80gb_driver590.48.01_smi_load.txt' });
      work = mkdtempSync(join(tmpdir(), 'gpr-cli-lang-'));
      env = { GPU_RENT_KNOWN_HOSTS: join(work, 'known_hosts'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '', HOME: work, GPU_RENT_HOME: join(work, '.gpu-rent') };
      remoteDir = join(sshd.home, `lang-${process.pid}`);
      mkdirSync(remoteDir);
      const old = Math.floor(Date.now() / 1000) - 3600;
      for (const name of ['ckpt-1.pt', 'ckpt-2.pt']) {
        writeFileSync(join(remoteDir, name), `weights ${name}\n`);
        utimesSync(join(remoteDir, name), old, old);
      }
      const { uid, gid } = statSync(sshd.home);
      for (const p of [remoteDir, join(remoteDir, 'ckpt-1.pt'), join(remoteDir, 'ckpt-2.pt')]) chownSync(p, uid, gid);
    });
    after(async () => {
      await sshd?.stop();
      rmSync(work, { recursive: true, force: true });
      rmSync(remoteDir, { recursive: true, force: true });
    });
    const target = () => `${sshd.user}@127.0.0.1:${sshd.port}`;

    it('probe: the verdict, disks and data folder in Chinese; --json the same in both but for the timing', () => {
      const key = ['--accept-new', '-i', sshd.privateKeyPath];
      const zh = runCli(['probe', target(), ...key], { env: { ...env, ...ZH } });
      assert.match(zh.stdout, /：检查用时 \d+\.\d 秒\n/, zh.stdout + zh.stderr);
      assert.match(zh.stdout, /\n磁盘：\n/);
      assert.match(zh.stdout, /\n任务和检查点的数据目录：/);
      const en = runCli(['probe', target(), ...key], { env: { ...env, ...EN } });
      assert.match(en.stdout, /: checked in \d+\.\d s\n/);
      assert.match(en.stdout, /\nData folder for jobs and checkpoints: /);
      // The timing and the disks' free bytes move between two runs; everything else is the same.
      const strip = (s: string) => {
        const j = JSON.parse(s) as Record<string, unknown> & { disks: { usedBytes?: number; availableBytes?: number }[] };
        return { ...j, seconds: 0, disks: j.disks.map((d) => ({ ...d, usedBytes: 0, availableBytes: 0 })) };
      };
      const jz = runCli(['probe', target(), ...key, '--json'], { env: { ...env, ...ZH } }).stdout;
      const je = runCli(['probe', target(), ...key, '--json'], { env: { ...env, ...EN } }).stdout;
      assert.deepEqual(strip(jz), strip(je));
      assert.deepEqual(Object.keys(JSON.parse(jz) as object), Object.keys(JSON.parse(je) as object));
    });

    it('a refused connection reads in the extension\'s Chinese (its l10n bundle), the English detail kept; --json identical', async () => {
      const port = await new Promise<number>((resolve) => {
        const s = createServer();
        s.listen(0, '127.0.0.1', () => {
          const p = (s.address() as { port: number }).port;
          s.close(() => resolve(p));
        });
      });
      const args = ['probe', `root@127.0.0.1:${port}`, '--accept-new'];
      const zh = runCli(args, { env: { ...env, ...ZH } });
      assert.equal(zh.code, 1);
      const en = 'Nothing answers at {0}. The instance may be stopped, or its SSH port changed after a restart: paste the new login command.';
      assert.ok(BUNDLE[en], 'the bundle has the extension\'s words for a refused connection');
      assert.ok(zh.stderr.includes(BUNDLE[en]!.replace('{0}', `127.0.0.1:${port}`)), zh.stderr);
      assert.match(zh.stderr, /nothing is listening on 127\.0\.0\.1 port/);
      assert.equal(runCli([...args, '--json'], { env: { ...env, ...ZH } }).stdout, runCli([...args, '--json'], { env: { ...env, ...EN } }).stdout);
    });

    it('sync: the pass report in Chinese; --json the same keys and counts in both', () => {
      const local = join(work, 'ckpt-zh');
      const args = ['sync', target(), '--accept-new', '-i', sshd.privateKeyPath, '--remote', remoteDir, '--settle', '0'];
      const zh = runCli([...args, '--local', local], { env: { ...env, ...ZH } });
      assert.equal(zh.code, 0, zh.stderr);
      assert.match(zh.stdout, /已拉取 ckpt-1\.pt（/);
      assert.match(zh.stdout, /\n拉取了 2 个文件，\d+ B，用时 \d+\.\d 秒/);
      const again = runCli([...args, '--local', local], { env: { ...env, ...ZH } });
      assert.match(again.stdout, /^拉取了 0 个文件，0 B，用时 \d+\.\d 秒；2 个(未变|已相同)/);
      const strip = (s: string) => ({ ...(JSON.parse(s) as Record<string, unknown>), seconds: 0 });
      const jz = runCli([...args, '--local', join(work, 'j-zh'), '--json'], { env: { ...env, ...ZH } }).stdout;
      const je = runCli([...args, '--local', join(work, 'j-en'), '--json'], { env: { ...env, ...EN } }).stdout;
      assert.deepEqual(strip(jz), strip(je));
      assert.equal(JSON.stringify(Object.keys(JSON.parse(jz) as object)), JSON.stringify(Object.keys(JSON.parse(je) as object)));
    });

    it('jobs: Chinese heads and the empty-box line', () => {
      const zh = runCli(['jobs', target(), '--accept-new', '-i', sshd.privateKeyPath], { env: { ...env, ...ZH } });
      assert.equal(zh.code, 0, zh.stderr);
      assert.match(zh.stdout, /^这台机器上没有任务（用 gpu-rent run TARGET --name NAME -- COMMAND 启动一个）\n$/);
    });
  });

  describe('on the platform server', () => {
    let s: PlatformServer;
    let home: string;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      s = await PlatformServer.start();
      home = mkdtempSync(join(tmpdir(), 'gpr-cli-lang-home-'));
      env = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_API: s.url, GPU_RENT_ALIYUN_ENDPOINT: s.url, GPU_RENT_TENCENT_ENDPOINT: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, TENCENTCLOUD_SECRET_ID: s.creds.tencentSecretId, TENCENTCLOUD_SECRET_KEY: 'tc-secret' };
      s.add({ platform: 'autodl-pro', id: 'pro-1', name: 'train', state: 'running' });
      s.add({ platform: 'tencent', id: 'ins-tc1', name: 'cvm', state: 'STOPPED' });
    });
    after(() => {
      s.close();
      rmSync(home, { recursive: true, force: true });
    });

    it('instances: Chinese heads and the extension\'s state words; --json byte-identical', async () => {
      const zh = await runCliAsync(['instances'], { ...env, ...ZH });
      assert.equal(zh.code, 0, zh.stderr);
      const head = zh.stdout.split('\n')[0]!;
      assert.match(head, /^账号 +实例 +名称 +状态 +GPU +价格 +地区 +释放日期 +平台定时 +SSH$/);
      const pro = zh.stdout.split('\n').find((l) => l.includes('pro-1'))!;
      assert.ok(pro.includes(BUNDLE.running!), pro);
      assert.ok(pro.includes(`¥1.97${BUNDLE['{0}/h']!.replace('{0}', '')}`), pro);
      const tc = zh.stdout.split('\n').find((l) => l.includes('ins-tc1'))!;
      assert.ok(tc.includes(`${BUNDLE.stopped!}（STOPPED）`), tc);
      const en = await runCliAsync(['instances'], { ...env, ...EN });
      assert.match(en.stdout.split('\n')[0]!, /^ACCOUNT +INSTANCE +NAME +STATE +GPU +PRICE +REGION +RELEASED ON +PLATFORM TIMER +SSH$/);
      assert.match(en.stdout, /pro-1 .* running /);
      const jz = await runCliAsync(['instances', '--json'], { ...env, ...ZH });
      const je = await runCliAsync(['instances', '--json'], { ...env, ...EN });
      // Byte for byte, but for when each price was read.
      const readAt = (t: string) => t.replace(/"priceReadAt": \d+/g, '"priceReadAt": 0');
      assert.equal(readAt(jz.stdout), readAt(je.stdout));
      assert.ok(jz.stdout.includes('"state": "running"'));
    });

    it('power-off without --yes says what it would do in Chinese; an unknown instance too', async () => {
      const r = await runCliAsync(['power-off', 'pro-1'], { ...env, ...ZH, GPU_RENT_ALLOW_POWER: '1' });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^train（env-autodl-pro\/pro-1，running）在 AutoDL Pro：关机（计算停止计费；付费数据盘仍计费）；¥1\.97\/时\n/);
      assert.match(r.stderr, /gpu-rent power-off: 未执行任何操作；加 --yes 才会执行\n$/);
      const none = await runCliAsync(['power-on', 'nope'], { ...env, ...ZH });
      assert.match(none.stderr, /上没有实例 nope/);
    });
  });
});

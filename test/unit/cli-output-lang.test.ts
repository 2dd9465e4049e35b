// The output of advise, platforms, schedule, peak, spend, spot-check and diagnose in Chinese
// and English, run as a user would (the built dist/cli.js: run `npm run build` first). Under
// --lang zh-cn (or LANG=zh_CN) the sentences are Chinese; --json is the same bytes in both.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportInstances, type Instance } from '../../src/core/instances';
import { scheduleDetailZh } from '../../src/cli/commands/schedule-words';
import { statusText } from '../../src/cli/commands/guards/watchdog';
import { runCli } from '../support/cli';

const tmp = mkdtempSync(join(tmpdir(), 'gpu-rent-cli-output-lang-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** LANG=C pinned by runCli; --lang decides. */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): { code: number; stdout: string; stderr: string } {
  return runCli(args, { env: { GPU_RENT_HOME: join(tmp, 'home'), ...env } });
}

/**
 * Three or more English words in a row: a sentence left untranslated. Commands the user types
 * (`gpu-rent …` up to a Chinese bracket or the line's end) are code, not prose, and are cut first.
 */
function englishRun(text: string): string | undefined {
  const prose = text.replace(/gpu-rent [^（）。；\n]*/g, '');
  return /\b[a-z]{2,}(?: [a-z]{2,}){2,}\b/i.exec(prose)?.[0];
}

function both(args: string[], env: NodeJS.ProcessEnv = {}): { en: ReturnType<typeof cli>; zh: ReturnType<typeof cli> } {
  return { en: cli([...args, '--lang', 'en'], env), zh: cli([...args, '--lang', 'zh-cn'], env) };
}

function sameJson(args: string[], env: NodeJS.ProcessEnv = {}): void {
  const en = cli([...args, '--json'], { ...env, LANG: 'C.UTF-8' });
  const zh = cli([...args, '--json'], { ...env, LANG: 'zh_CN.UTF-8' });
  const zhFlag = cli([...args, '--json', '--lang', 'zh-cn'], env);
  assert.equal(en.code, zh.code);
  assert.ok(en.stdout.length > 2, en.stderr);
  JSON.parse(en.stdout);
  assert.equal(zh.stdout, en.stdout, `${args.join(' ')} --json differs under LANG=zh_CN`);
  assert.equal(zhFlag.stdout, en.stdout, `${args.join(' ')} --json differs under --lang zh-cn`);
}

describe('cli: advise, platforms, peak, spend, spot-check, diagnose in Chinese', function () {
  this.timeout(120000);

  it('advise: the tier, month, verdicts, cites and reasons in Chinese; English as before; JSON the same', () => {
    const { en, zh } = both(['advise', '--budget', '500']);
    assert.equal(zh.code, 0, zh.stderr);
    assert.match(en.stdout, /^Budget ¥500\.00\/month, task lora \(data disk 24 GB\): ¥300–1000\/month: daily LoRA and demos \(report §5\)\./);
    assert.match(en.stdout, /within budget\n/);
    assert.match(zh.stdout, /^预算每月 ¥500\.00，任务 lora（数据盘 24 GB）：每月 300–1000 元：日常 LoRA 和演示（报告 §5）。/);
    assert.match(zh.stdout, /   每月：1 周（包周，显卡 7 天），数据盘 24 GB × 7 天：¥334\.00–384\.00（GPU ¥250\.00–300\.00 \+ 数据盘 ¥84\.00），在预算内\n/);
    assert.match(zh.stdout, /   对比包月：.*超出这个预算\n/);
    assert.match(zh.stdout, /   报告 §5：「/);
    assert.match(zh.stdout, /   - 超出该预算（推算）\n/);
    for (const s of ['within budget', 'over this budget', 'month:', 'report §', 'vs the monthly plan', 'derived']) assert.ok(!zh.stdout.includes(s), `"${s}" left in:\n${zh.stdout}`);
    assert.equal(englishRun(zh.stdout), undefined, zh.stdout);
    assert.ok(englishRun(en.stdout), 'the detector finds the English it looks for');
    // The smallest tier: free quotas, runs released between them.
    const small = cli(['advise', '--budget', '50', '--task', 'inference', '--lang', 'zh-cn']);
    assert.match(small.stdout, /每月 100 元内：免费额度和低峰时段/);
    assert.match(small.stdout, /每月：2 次、每次 2 小时（GPU 共 4 小时），数据盘 14 GB × 2 天，两次之间释放：/);
    assert.equal(englishRun(small.stdout), undefined, small.stdout);
    sameJson(['advise', '--budget', '500']);
  });

  it('platforms: heads, cells, prices per GPU and the footnote in Chinese; JSON the same', () => {
    const { en, zh } = both(['platforms']);
    assert.equal(zh.code, 0, zh.stderr);
    assert.match(en.stdout, /^Id +Platform +Modes +Data disk +No-GPU mode +Mbps +Root +Queue +Dated\n/);
    assert.match(en.stdout, /\nPrices per GPU:\n/);
    assert.match(zh.stdout, /^ID +平台 +计费方式 +数据盘 +无卡模式 +带宽 Mbps +root +排队 +日期\n/);
    assert.match(zh.stdout, /\nautodl +AutoDL +按小时\/包周\/包月\/竞价 +¥0\.50\/GB\/天 +¥0\.10\/\S+ +10 +\? +中等 10–30 分钟 +未注明日期/);
    assert.match(zh.stdout, /\nmita .* 严重 60–180 分钟（19:00-23:00）/);
    assert.match(zh.stdout, /\n每张 GPU 的价格：\n/);
    assert.match(zh.stdout, /  秘塔智算（mita）：RTX 3090 ¥1\.20–1\.50\/小时；关机清空了数据盘\n/);
    assert.match(zh.stdout, /含在套餐内/);
    for (const s of ['Prices per GPU', 'bundled', '/GB/day', 'bills while stopped', 'undated', 'named in the report']) assert.ok(!zh.stdout.includes(s), `"${s}" left in:\n${zh.stdout}`);
    assert.equal(englishRun(zh.stdout), undefined, zh.stdout);
    assert.ok(englishRun(en.stdout));
    sameJson(['platforms']);
  });

  it('peak: the evening queue, advice and the overnight comparison in Chinese; JSON the same', () => {
    const args = ['peak', '--platform', 'mita', '--card', 'rtx3090', '--disk-gb', '20', '--at', '2026-12-01T20:30:00+08:00'];
    const { en, zh } = both(args);
    assert.equal(zh.code, 0, zh.stderr);
    assert.match(en.stdout, /PEAK HOURS \(19:00–23:00 Beijing\)/);
    assert.match(zh.stdout, /^现在是北京时间 2026-12-01 20:30\n秘塔智算（mita）：高峰时段（北京时间 19:00–23:00），到北京时间 2026-12-01 23:00 为止；抢到卡预计要等 60 分钟–3\.0 小时\n/);
    assert.match(zh.stdout, /  在这个平台上关机会清空磁盘：关机前先把检查点同步回本地。\n/);
    assert.match(zh.stdout, /    关机：¥\d+\.\d\d（磁盘会被清空！）\n/);
    for (const s of ['PEAK', 'Beijing', 'Overnight', 'release:', 'stop:']) assert.ok(!zh.stdout.includes(s), `"${s}" left in:\n${zh.stdout}`);
    assert.equal(englishRun(zh.stdout), undefined, zh.stdout);
    const off = cli(['peak', '--at', '2026-12-01T10:30:00+08:00'], { LANG: 'zh_CN.UTF-8' });
    assert.match(off.stdout, /AutoDL（autodl）：非高峰；晚间排队（北京时间 19:00–23:00）从北京时间 2026-12-01 19:00 开始/);
    sameJson(args);
  });

  it('spend: totals, budget, per platform, instances and the release warning in Chinese; JSON the same', () => {
    const now = Date.parse('2026-11-20T12:00:00+08:00') / 1000;
    const day = 86400;
    const base = (id: string, intervals: Instance['intervals']): Instance => ({
      id,
      name: id,
      platform: 'autodl',
      card: 'rtx3090',
      gpuCount: 1,
      login: { host: '127.0.0.1', port: 22, user: 'root', auth: 'password' },
      pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 20 },
      intervals,
      createdAt: now - 20 * day,
    });
    const stoppedAt = now - 12 * day;
    const file = join(tmp, 'instances.json');
    writeFileSync(
      file,
      exportInstances([
        base('parked', [
          { state: 'running', from: stoppedAt - 10 * 3600, to: stoppedAt, computeRate: 198, storageRate: 1000 },
          { state: 'stopped', from: stoppedAt, computeRate: 0, storageRate: 1000 },
        ]),
        base('training', [{ state: 'running', from: now - 5 * 3600, computeRate: 198, storageRate: 1000 }]),
      ]),
    );
    const args = ['spend', file, '--budget', '1000', '--at', '2026-11-20T12:00:00+08:00'];
    const { en, zh } = both(args);
    assert.equal(zh.code, 0, zh.stderr);
    assert.match(en.stdout, /burning ¥2\.81\/h now/);
    assert.match(zh.stdout, /^今天 ¥[\d.,]+，本月 ¥[\d.,]+（北京时间），现在每小时消耗 ¥2\.81\/小时\n月底预计：¥/);
    assert.match(zh.stdout, /\n预算 ¥1,000\.00：已用 \d+%，在预算内/);
    assert.match(zh.stdout, /\n按平台：\n  autodl：本月 ¥/);
    assert.match(zh.stdout, /\n  training：运行中 已 5\.0 小时，本月 ¥/);
    assert.match(zh.stdout, /\n警告 parked：已关机 12\+ 天；平台将于北京时间 2026-11-23 \d\d:\d\d 释放它及其全部数据（还剩 /);
    for (const s of ['this month', 'WARNING', 'projected', 'burning', 'per platform']) assert.ok(!zh.stdout.includes(s), `"${s}" left in:\n${zh.stdout}`);
    assert.equal(englishRun(zh.stdout), undefined, zh.stdout);
    sameJson(args);
    const garbage = join(tmp, 'garbage.json');
    writeFileSync(garbage, '{"nope":1}');
    const g = cli(['spend', garbage, '--lang', 'zh-cn']);
    assert.equal(g.code, 2);
    assert.match(g.stderr, /garbage\.json：不是导出的实例列表/);
  });

  it('spot-check: the rework estimate, the cadence and the confirmation in Chinese; JSON the same', () => {
    const args = ['spot-check', '--hours', '3', '--sync-minutes', '60', '--rate', '2'];
    const { en, zh } = both(args);
    assert.equal(en.code, 1);
    assert.equal(zh.code, 1);
    assert.match(en.stdout, /^Spot job of 3\.0 h at ¥2\.00\/h, syncing every 60 min:/);
    assert.match(zh.stdout, /^抢占式任务 3\.0 小时，每小时 ¥2\.00，每 60 分钟 同步一次：\n  预计被回收 0\.30 次，重做约 \d+ 分钟 的工作，花费约 ¥0\.\d\d\n/);
    assert.match(zh.stdout, /实测报告：一次 8 小时的抢占式运行在第 2 小时被回收/);
    assert.equal(zh.stderr, 'gpu-rent spot-check: 超过一小时的抢占式任务需要确认（--yes）\n');
    assert.equal(englishRun(zh.stdout + zh.stderr), undefined, zh.stdout);
    sameJson([...args, '--yes']);
    const noPrice = cli(['spot-check', '--hours', '1', '--sync-minutes', '10', '--platform', 'aliyun', '--card', 't4', '--lang', 'zh-cn']);
    assert.equal(noPrice.code, 2);
    assert.match(noPrice.stderr, /价格目录里没有 aliyun 上 t4 的抢占式价格；请给出 --rate/);
    const badAt = cli(['peak', '--at', '20:30', '--lang', 'zh-cn']);
    assert.match(badAt.stderr, /--at 需要带时区的 ISO 日期时间/);
  });

  it('diagnose: flag errors in Chinese under LANG=zh_CN, English under LANG=C', () => {
    const zh = cli(['diagnose', '--driver', '53', '--torch', '2.1.0'], { LANG: 'zh_CN.UTF-8' });
    assert.equal(zh.code, 2);
    assert.match(zh.stderr, /--driver 需要像 535\.104\.05 这样的驱动版本，却是 "53"/);
    const en = cli(['diagnose', '--driver', '53', '--torch', '2.1.0']);
    assert.match(en.stderr, /--driver expects a driver version like 535\.104\.05, got "53"/);
    const both2 = cli(['diagnose', '--driver', '535.104.05', '--torch', '2.1.0', '--gpu', 'RTX 3090', '--compute-cap', '8.6', '--lang', 'zh-cn']);
    assert.match(both2.stderr, /--gpu 和 --compute-cap 只能给一个/);
  });
});

describe('cli: gpu-rent schedule without accounts, in Chinese', function () {
  this.timeout(60000);
  const env = { GPU_RENT_HOME: join(tmp, 'sched-home'), HOME: join(tmp, 'sched-home'), GPU_RENT_TEST_NOW: String(Date.parse('2026-12-04T12:00:00+08:00') / 1000) };

  it('list, remove and run say so in Chinese; usage errors in Chinese; list --json the same', () => {
    const list = both(['schedule', 'list'], env);
    assert.equal(list.en.stdout, 'no schedules (gpu-rent schedule add INSTANCE --at "mon-fri 17:00" --do power-on)\n');
    assert.equal(list.zh.stdout, '还没有计划（gpu-rent schedule add INSTANCE --at "mon-fri 17:00" --do power-on）\n');
    const rm = cli(['schedule', 'remove', 'abc', '--lang', 'zh-cn'], env);
    assert.equal(rm.code, 1);
    assert.equal(rm.stderr, 'gpu-rent schedule: 没有计划 abc（gpu-rent schedule list 可查看）\n');
    const run = cli(['schedule', 'run', '--lang', 'zh-cn'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '没有到期的计划（北京时间 2026-12-04 12:00）\n');
    const grace = cli(['schedule', 'list', '--grace', '5'], { ...env, LANG: 'zh_CN.UTF-8' });
    assert.equal(grace.code, 2);
    assert.match(grace.stderr, /--grace 只用于 schedule run/);
    const noAcc = cli(['schedule', 'add', 'train', '--at', 'mon-fri 17:00', '--do', 'power-on', '--lang', 'zh-cn'], env);
    assert.equal(noAcc.code, 1);
    assert.match(noAcc.stderr, /^gpu-rent schedule: 还没有配置平台账号。/);
    sameJson(['schedule', 'list'], env);
  });

  it("a run's details read back in Chinese: each English detail the app writes is in app/schedule.ts", () => {
    // The exact sentences are app/schedule.ts' own (read from its source, not restated here).
    const app = readFileSync(join(__dirname, '..', '..', 'src', 'app', 'schedule.ts'), 'utf8');
    for (const en of ['already running', 'already in no-GPU mode', 'the instance is gone from the account (released?)', 'started with its GPU', 'switched to no-GPU mode']) assert.ok(app.includes(`'${en}'`), en);
    assert.equal(scheduleDetailZh({ detail: 'already running', outcome: 'skipped' }), '已在运行');
    assert.equal(scheduleDetailZh({ detail: 'its time passed 1 h 5 min ago while nothing ran, outside the 30 min window: not run late', outcome: 'missed' }), '计划时间已过去 1 小时 5 分钟，期间没有任何程序在运行，超出了 30 分钟的窗口：不会迟执行');
    assert.equal(scheduleDetailZh({ detail: 'its time passed 40 min ago while nothing ran, outside the 30 min window: not run late', outcome: 'missed' }), '计划时间已过去 40 分钟，期间没有任何程序在运行，超出了 30 分钟的窗口：不会迟执行');
    assert.equal(scheduleDetailZh({ detail: 'account acc-1 is read-only: power actions are not allowed', outcome: 'refused' }), '账号 acc-1 是只读的：不允许电源操作');
    assert.equal(scheduleDetailZh({ detail: 'power-off sent, but it reports "running" after 120 s: it may STILL BILL, check it in the console', outcome: 'unsettled' }), '已发送关机请求，但 120 秒后它的状态是 "running"：可能仍在计费，请在控制台查看');
    // A platform's refusal: the extension's words for the kind, the platform's own words beside them.
    assert.equal(scheduleDetailZh({ detail: 'power-on: AutoDL Pro: 余额不足 (Insufficient)', outcome: 'refused', failure: { kind: 'insufficientBalance', code: 'x', message: 'Insufficient' } }).startsWith('余额不足'), true);
    // An unknown shape is kept as it came (a platform's message is data).
    assert.equal(scheduleDetailZh({ detail: 'something new', outcome: 'failed' }), 'something new');
    // Linear on a long hostile detail (eslint-plugin-regexp checks the patterns; this the time).
    const long = `its time passed ${'1'.repeat(5000)}`;
    const t0 = process.hrtime.bigint();
    scheduleDetailZh({ detail: long, outcome: 'missed' });
    assert.ok(Number(process.hrtime.bigint() - t0) / 1e6 < 50);
  });

  it("watchdog status in Chinese: the states and ages; the box script's event words kept as data", () => {
    const s = { installed: true, armed: true, running: true, pid: 4242, heartbeatAgeSeconds: 30, pollSeconds: 60, idleWindowSeconds: 1800, now: 1000, state: { kind: 'quiet' as const, at: 700 }, events: [{ at: 900, kind: 'started', detail: '' }] };
    const zh = statusText(s as unknown as Parameters<typeof statusText>[0], 'zh-cn');
    assert.equal(zh, '看门狗：已就绪（pid 4242）\n上次心跳在 30 秒 前；每 60 秒检查一次\n安静 30 分钟 后执行\nGPU 从 5 分钟 前起一直安静\n最近的事件：\n  1970-01-01T00:15:00Z  started\n');
    assert.equal(statusText(s as unknown as Parameters<typeof statusText>[0]), 'watchdog: ARMED (pid 4242)\nlast heartbeat 30 s ago; checks every 60 s\nacts after 30 min quiet\nGPU quiet since 5 min ago\nrecent events:\n  1970-01-01T00:15:00Z  started\n');
    assert.equal(statusText({ installed: false } as unknown as Parameters<typeof statusText>[0], 'zh-cn'), '看门狗：未安装\n');
  });
});

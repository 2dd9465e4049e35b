// `gpu-rent platforms | quote | advise` run as a user would: the built dist/cli.js in a new
// process (run `npm run build` first).
import { strict as assert } from 'node:assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli';

const tmp = mkdtempSync(join(tmpdir(), 'gpu-rent-cli-pricing-'));
const file = (name: string, text: string) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};

function oneLineError(args: string[], pattern: RegExp): void {
  const r = runCli(args);
  assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}\n${r.stdout}${r.stderr}`);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(r.stderr, /NaN|at .*\.js:\d+|Error:/);
}

interface QuoteJson {
  currency: string;
  rows: {
    platform: string;
    platformName: string;
    card: string;
    billing: string;
    total: number;
    totalMin?: number;
    totalMax?: number;
    hours: number;
    breakdown: { gpu: number; storage: number | null; idle: number | null; download: number | null; spotRework: number };
    price: { yuan: number; source: string; asOf: string | null };
    cheapest: boolean;
  }[];
  skipped: { platform: string; reason: string }[];
}

const quoteJson = (args: string[]): QuoteJson => {
  const r = runCli(['quote', ...args, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as QuoteJson;
};

describe('cli: gpu-rent quote', function () {
  this.timeout(60000);
  it('with no flags prints the report\'s LoRA job on built-in defaults, cheapest marked, with dates and warnings', () => {
    const r = runCli(['quote']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const out = r.stdout;
    assert.match(out, /^Job: 15 h on one RTX 3090/);
    assert.match(out, /data disk 24 GB/);
    // Changed deliberately (issue 10): the report gives no date; the invented 2024-03 is gone.
    assert.match(out, /Prices: undated \(field report test week\)\./);
    assert.doesNotMatch(out, /2024/);
    assert.match(out, /AutoDL +RTX 3090 +hour +15 h +¥29\.70 +¥12\.00 .* ¥41\.70/);
    assert.match(out, /^\* +AutoDL +RTX 4090 +hour/m, 'the 4090 is the cheapest fully priced job');
    assert.match(out, /揽睿星舟 .*¥24\.00–30\.00 \+\?/);
    assert.match(out, /Warnings:/);
    assert.match(out, /秘塔智算.*Evening peak 19:00–23:00/);
    assert.match(out, /阿里云 ECS GPU.*bills while it exists/);
    assert.match(out, /火山引擎.*enterprise verification/);
    assert.match(out, /Not quoted:.*华为云 裸金属 GPU: no price in the report/);
    assert.doesNotMatch(out, /NaN|undefined|\[object/);
  });

  it('--json has the documented shape, yuan as numbers, ranges with totalMin/totalMax', () => {
    const j = quoteJson([]);
    assert.equal(j.currency, 'CNY');
    assert.ok(j.rows.length > 5);
    for (const row of j.rows) {
      for (const k of ['platform', 'platformName', 'card', 'billing', 'total', 'breakdown']) assert.ok(k in row, k);
      assert.equal(typeof row.total, 'number');
      assert.equal(typeof row.breakdown.gpu, 'number');
      assert.ok(row.price.source.length > 0);
      if (row.totalMin !== undefined) {
        assert.ok(row.totalMin <= row.total && row.total <= row.totalMax!);
        assert.equal(row.total, Math.round(((row.totalMin + row.totalMax!) / 2) * 100) / 100);
      }
    }
    assert.equal(j.rows.filter((r) => r.cheapest).length, 1);
    const lanrui = j.rows.find((r) => r.platform === 'lanrui' && r.card === 'rtx3090')!;
    assert.deepEqual([lanrui.totalMin, lanrui.totalMax], [24, 30]);
    assert.equal(lanrui.breakdown.storage, null, 'no figure: null, not 0');
  });

  it('reproduces the report: 3090 15 h ¥29.70 vs 4090 5 h ¥18.00 at AutoDL', () => {
    const a = quoteJson(['--card', '3090', '--gpu-hours', '15', '--storage-gb', '0', '--platform', 'autodl']).rows.find((r) => r.billing === 'hour')!;
    const b = quoteJson(['--card', 'RTX 4090', '--gpu-hours', '5', '--storage-gb', '0', '--platform', 'autodl']).rows.find((r) => r.billing === 'hour')!;
    assert.equal(a.total, 29.7);
    assert.equal(b.total, 18);
    assert.equal(a.price.asOf, null);
    assert.equal((a.price as { dated?: string }).dated, 'undated (field report test week)');
    const steps = quoteJson(['--card', 'rtx4090', '--steps', '2000', '--sec-per-step', '9', '--storage-gb', '0', '--platform', 'autodl']).rows.find((r) => r.billing === 'hour')!;
    assert.equal(steps.hours, 5);
    assert.equal(steps.total, 18);
  });

  it('storage, idle, downloads and spot show up in the breakdown', () => {
    const j = quoteJson(['--card', '3090', '--gpu-hours', '1', '--storage-gb', '24', '--days', '30', '--idle-hours', '10', '--download-gb', '14', '--spot', '--platform', 'autodl']);
    const hour = j.rows.find((r) => r.billing === 'hour')!;
    assert.equal(hour.breakdown.storage, 360);
    assert.equal(hour.breakdown.idle, 1);
    assert.ok(hour.breakdown.download! > 6 && hour.breakdown.download! < 6.3);
    const spot = j.rows.find((r) => r.billing === 'spot')!;
    assert.ok(spot.breakdown.spotRework > 0);
    assert.ok(spot.breakdown.gpu < hour.breakdown.gpu);
  });

  it('--card alone prices the default job on that card: measured hours where the report measured them, else an estimate; a card without prices says so', () => {
    const r = runCli(['quote', '--card', '4090', '--json']);
    const j = JSON.parse(r.stdout) as { rows: { card: string; hours: number; hoursEstimated: boolean }[] };
    assert.ok(j.rows.length > 0 && j.rows.every((x) => x.card === 'rtx4090' && !x.hoursEstimated && x.hours === 5), r.stdout);
    const a = JSON.parse(runCli(['quote', '--card', 'A100-80G', '--json']).stdout) as typeof j;
    assert.ok(a.rows.length > 0 && a.rows.every((x) => x.card === 'a100-80g' && x.hoursEstimated && x.hours > 5 && x.hours < 15), JSON.stringify(a.rows));
    const h = runCli(['quote', '--card', 'NVIDIA H800']);
    assert.equal(h.code, 0);
    assert.match(h.stdout, /the field report gives no H800 80GB price\); add one with --catalog FILE/);
  });

  it('with one card, prints the break-even hours between billing modes', () => {
    const r = runCli(['quote', '--card', '3090', '--platform', 'autodl']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Break-even on AutoDL RTX 3090: week beats hour above 126–152 h per week; month beats hour above 354–455 h per month/);
  });

  it('--platform is repeatable and --card takes aliases', () => {
    const j = quoteJson(['--platform', 'mita', '--platform', 'matpool', '--card', 'NVIDIA GeForce RTX 3090']);
    assert.deepEqual([...new Set(j.rows.map((r) => r.platform))].sort(), ['matpool', 'mita']);
    assert.ok(j.rows.every((r) => r.card === 'rtx3090'));
  });

  it('--catalog merges a user file; its prices carry its date', () => {
    const f = file('ok.json', JSON.stringify({ asOf: '2026-11-01', platforms: [{ id: 'autodl', prices: [{ card: '4090', mode: 'hour', yuan: 2 }] }, { id: 'mybox', name: { zh: '自建', en: 'Home box' }, billingModes: ['hour'], prices: [{ card: '4090', mode: 'hour', yuan: 1 }] }] }));
    const j = quoteJson(['--catalog', f, '--card', '4090', '--gpu-hours', '5', '--storage-gb', '0']);
    const autodl = j.rows.find((r) => r.platform === 'autodl' && r.billing === 'hour')!;
    assert.equal(autodl.total, 10);
    assert.equal(autodl.price.asOf, '2026-11-01');
    assert.equal(j.rows[0]!.platform, 'mybox');
    assert.equal(j.rows[0]!.price.asOf, '2026-11-01');
    const text = runCli(['platforms', '--catalog', f]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /mybox +自建/);
  });

  it('bad input exits 2 with one line naming the flag and what it accepts', () => {
    oneLineError(['quote', '--gpu-hours', '-3'], /--gpu-hours expects a number ≥ 0.000278 \(one GPU-second\) and ≤ 100000, got "-3"/);
    oneLineError(['quote', '--gpu-hours', 'abc'], /--gpu-hours expects a number ≥ 0.000278 .*got "abc"/);
    oneLineError(['quote', '--storage-gb', 'lots'], /--storage-gb expects a number ≥ 0 and ≤ 1000000, got "lots"/);
    oneLineError(['quote', '--gpus', '1.5'], /--gpus expects a whole number/);
    oneLineError(['quote', '--card', 'h900'], /--card expects a known card .*got "h900"/);
    oneLineError(['quote', '--platform', 'nope'], /--platform expects one of autodl, lanrui, .*got "nope"/);
    oneLineError(['quote', '--steps', '100'], /--steps needs --sec-per-step/);
    oneLineError(['quote', '--gpu-hours', '3', '--steps', '1', '--sec-per-step', '2'], /alternatives/);
    oneLineError(['quote', '--bogus'], /unknown flag --bogus/);
    oneLineError(['quote', 'extra'], /unexpected argument "extra"/);
    oneLineError(['quote', '--catalog', join(tmp, 'missing.json')], /--catalog expects a readable JSON file: cannot read .*no such file/);
    oneLineError(['quote', '--catalog', file('bad.json', '{"platforms": [')], /--catalog .*bad\.json: not valid JSON/);
    oneLineError(['quote', '--catalog', file('badprice.json', JSON.stringify({ platforms: [{ id: 'autodl', prices: [{ card: '4090', mode: 'hour', yuan: 'cheap' }] }] }))], /--catalog .*badprice\.json: platforms\[0\]\.prices\[0\]\.yuan: expected a number ≥ 0/);
    oneLineError(['quote', '--catalog', file('badcard.json', JSON.stringify({ platforms: [{ id: 'autodl', prices: [{ card: 'h900', mode: 'hour', yuan: 1 }] }] }))], /platforms\[0\]\.prices\[0\]\.card: unknown card "h900"/);
    oneLineError(['quote', '--catalog', file('array.json', '[1,2]')], /--catalog .*array\.json: \(top level\)/);
  });

  it('--help on each command', () => {
    for (const cmd of ['quote', 'platforms', 'advise']) {
      const r = runCli([cmd, '--help']);
      assert.equal(r.code, 0);
      assert.match(r.stdout, new RegExp(`^Usage: gpu-rent ${cmd}`));
    }
    assert.match(runCli(['quote', '--help']).stdout, /--gpu-hours H/);
  });
});

describe('cli: gpu-rent platforms', function () {
  this.timeout(60000);
  it('lists every platform with figures and dates; --json keeps sources', () => {
    const r = runCli(['platforms']);
    assert.equal(r.code, 0);
    for (const id of ['autodl', 'lanrui', 'mita', 'matpool', 'aliyun', 'tencent', 'huawei', 'volcengine', 'qingjiao', 'zanqi', 'aistudio', 'colab', 'reseller']) {
      assert.match(r.stdout, new RegExp(`^${id} `, 'm'));
    }
    assert.match(r.stdout, /AutoDL .*¥0\.50\/GB\/day +¥0\.10\/h +10 /);
    assert.match(r.stdout, /severe 60–180 min at 19:00-23:00/);
    const j = JSON.parse(runCli(['platforms', '--json']).stdout) as { platforms: { id: string; prices: { yuan: unknown; source: string; asOf: string }[] }[] };
    const autodl = j.platforms.find((p) => p.id === 'autodl')!;
    assert.deepEqual(autodl.prices.find((p) => (p.yuan as number[])[0] === 700)?.yuan, [700, 900]);
    assert.ok(autodl.prices.every((p) => p.source && p.asOf === null && (p as { dated?: string }).dated === 'undated (field report test week)'));
    assert.match(r.stdout, /undated: it says only that prices were collected in the week of its tests/);
  });
});

describe('cli: gpu-rent advise', function () {
  this.timeout(60000);
  it('gives the report\'s advice with reasons', () => {
    const r = runCli(['advise', '--budget', '80', '--task', 'lora']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Colab/);
    assert.match(r.stdout, /秘塔智算/);
    assert.match(r.stdout, /report §5/);
    const j = JSON.parse(runCli(['advise', '--budget', '800', '--task', 'aigc', '--json']).stdout) as { tier: string; picks: { code: string; reasons: { code: string }[] }[] };
    assert.equal(j.tier, '300to1000');
    assert.deepEqual(j.picks.map((p) => p.code), ['aigcPlatforms', 'aigcAutodl']);
  });

  it('bad input exits 2 with one line', () => {
    oneLineError(['advise'], /--budget is required/);
    oneLineError(['advise', '--budget', '-5'], /--budget expects a number ≥ 0/);
    oneLineError(['advise', '--budget', '100', '--task', 'painting'], /--task expects one of lora, full-finetune, inference, aigc, got "painting"/);
  });
});

describe('cli: bounds, repeated flags, catalog files, provenance (issue 10)', function () {
  this.timeout(60000);
  it('every number flag has a maximum and is refused beyond it, naming the flag', () => {
    oneLineError(['quote', '--storage-gb', '1e308'], /--storage-gb expects a number ≥ 0 and ≤ 1000000, got "1e308"/);
    oneLineError(['quote', '--gpu-hours', '1e-300'], /--gpu-hours expects a number ≥ 0.000278 \(one GPU-second\)/);
    oneLineError(['quote', '--gpu-hours', '1e6'], /--gpu-hours expects .*≤ 100000, got "1e6"/);
    oneLineError(['quote', '--gpus', '9'], /--gpus expects a whole number ≥ 1 and ≤ 8/);
    oneLineError(['quote', '--idle-hours', '1e9'], /--idle-hours expects a number ≥ 0 and ≤ 100000/);
    oneLineError(['quote', '--download-gb', '2e6'], /--download-gb/);
    oneLineError(['quote', '--steps', '1', '--sec-per-step', '0.001'], /--steps × --sec-per-step is .* of GPU time: expected one GPU-second/);
    oneLineError(['advise', '--budget', '1e12'], /--budget expects a number ≥ 0 and ≤ 10000000/);
  });

  it('a repeated number flag is refused like a repeated text flag', () => {
    oneLineError(['quote', '--gpu-hours', '1', '--gpu-hours', '2'], /--gpu-hours was given twice/);
    oneLineError(['advise', '--budget', '100', '--budget=200'], /--budget was given twice/);
  });

  it('catalog files: over the 5 MiB cap or endless (/dev/zero) are refused; duplicate ids name both paths; huge prices are refused', () => {
    const big = file('big.json', `{"platforms":[${' '.repeat(5 * 1024 * 1024)}]}`);
    oneLineError(['quote', '--catalog', big], /--catalog .*big\.json: larger than 5 MiB/);
    oneLineError(['quote', '--catalog', '/dev/zero'], /--catalog \/dev\/zero: larger than 5 MiB/);
    const dup = file('dup.json', JSON.stringify({ platforms: [{ id: 'autodl', prices: [] }, { id: 'autodl', prices: [{ card: '4090', mode: 'hour', yuan: 9 }] }] }));
    oneLineError(['quote', '--catalog', dup], /platforms\[1\]\.id: duplicate platform id "autodl" \(also at platforms\[0\]\.id\)/);
    const huge = file('huge.json', JSON.stringify({ platforms: [{ id: 'autodl', prices: [{ card: '4090', mode: 'hour', yuan: 1e308 }] }] }));
    oneLineError(['quote', '--catalog', huge], /platforms\[0\]\.prices\[0\]\.yuan: expected at most 100,000 yuan per hour/);
  });

  it('a spot job over 1 h is never starred; a bundled cost is ? and never starred', () => {
    const j = quoteJson(['--spot']);
    const star = j.rows.find((r) => r.cheapest)!;
    assert.notEqual(star.billing, 'spot');
    assert.ok(j.rows.some((r) => r.billing === 'spot' && r.total < star.total), 'a cheaper spot row is listed');
    const a100 = quoteJson(['--card', 'a100', '--gpu-hours', '10']);
    const aliyun = a100.rows.find((r) => r.platform === 'aliyun' && r.billing === 'hour')!;
    assert.equal(aliyun.breakdown.storage, null);
    assert.equal(aliyun.cheapest, false);
    const text = runCli(['quote', '--card', 'a100', '--gpu-hours', '10']).stdout;
    assert.doesNotMatch(text, /^\*/m);
    assert.match(text, /阿里云 ECS GPU: data disk bundled with the instance/);
  });

  it('idle hours say in the row how they were billed', () => {
    const r = runCli(['quote', '--card', '3090', '--gpu-hours', '5', '--idle-hours', '10', '--platform', 'autodl', '--platform', 'mita']);
    assert.match(r.stdout, /AutoDL .*¥1\.00 no-GPU/);
    assert.match(r.stdout, /秘塔智算 .*kept running/);
    assert.match(r.stdout, /Idle hours: .*no-GPU = the no-GPU-mode rate, billed on top of the data disk per day/);
  });

  it('gpu-rent with no arguments: usage on stderr, nothing on stdout, exit 2', () => {
    const r = runCli([]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^Usage: gpu-rent COMMAND/);
    const h = runCli(['--help']);
    assert.equal(h.code, 0);
    assert.match(h.stdout, /^Usage: gpu-rent COMMAND/);
  });

  it('advise --json: each pick has a month; quote with the same usage gives the same total and verdict', () => {
    type Pick = { code: string; platform: string; card: string; billing: string; withinBudget: boolean; month: { total: number; totalMin?: number; totalMax?: number; breakdown: Record<string, number | null>; usage: { gpuHours: number; noGpuHours: number; dataDiskGb: number; days: number; gpus: number } } | null };
    for (const budget of ['100', '1000']) {
      const r = runCli(['advise', '--budget', budget, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const j = JSON.parse(r.stdout) as { budget: number; picks: Pick[] };
      for (const p of j.picks) {
        assert.ok(p.month, p.code);
        for (const k of ['gpu', 'storage', 'idle', 'download']) assert.ok(k in p.month.breakdown, k);
        const u = p.month.usage;
        if (u.gpus !== 1 || p.billing !== 'hour' || p.code.startsWith('free')) continue;
        const q = quoteJson(['--card', p.card, '--gpu-hours', String(u.gpuHours), '--idle-hours', String(u.noGpuHours), '--storage-gb', String(u.dataDiskGb), '--days', String(u.days), '--platform', p.platform]);
        const row = q.rows.find((x) => x.billing === 'hour')!;
        assert.equal(row.total, p.month.total, `${budget} ${p.code}`);
        const max = row.totalMax ?? row.total;
        assert.equal(p.withinBudget, max <= j.budget && row.breakdown.storage !== null, `${budget} ${p.code}`);
      }
    }
  });
});

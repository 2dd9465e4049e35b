import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { findCard } from '../../src/core/cards';
import { builtinCatalog } from '../../src/core/catalog';
import { AddInstanceArgs, instanceIdOf, StartTrainingArgs } from '../../src/extension/args';
import { parseCount, parseGb, parseYuan } from '../../src/extension/input';
import { prefillPricing } from '../../src/extension/prefill';
import { readSettings } from '../../src/extension/settings';
import { upsertHostBlock } from '../../src/app/sshConfig';
import { hostAlias, hostBlockOf } from '../../src/extension/sshConfigEntry';

describe('typed input', () => {
  it('reads yuan as people write them', () => {
    for (const [t, fen] of [['1.98', 198], ['¥1.98', 198], ['￥3.6元', 360], ['1,234.5', 123450], ['0.1元/时', 10], ['.5', 50]] as const) {
      assert.deepEqual(parseYuan(t), { ok: true, fen }, t);
    }
    for (const [t, problem] of [['', 'empty'], ['abc', 'notNumber'], ['-1', 'negative'], ['1e400', 'notNumber'], ['2000000', 'tooLarge'], ['NaN', 'notNumber'], ['Infinity', 'notNumber']] as const) {
      assert.deepEqual(parseYuan(t), { ok: false, problem }, t);
    }
  });

  it('never throws or yields NaN on any text (property)', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        for (const r of [parseYuan(s), parseCount(s, 1, 64), parseGb(s)]) {
          if (r.ok) assert.ok(Number.isFinite('fen' in r ? r.fen : r.value));
        }
      }),
    );
  });

  it('counts and sizes', () => {
    assert.deepEqual(parseCount('2', 1, 64), { ok: true, value: 2 });
    assert.deepEqual(parseCount('1.5', 1, 64), { ok: false, problem: 'notInteger' });
    assert.deepEqual(parseCount('0', 1, 64), { ok: false, problem: 'negative' });
    assert.deepEqual(parseCount('65', 1, 64), { ok: false, problem: 'tooLarge' });
    assert.deepEqual(parseGb('24 GB'), { ok: true, value: 24 });
    assert.deepEqual(parseGb('-3'), { ok: false, problem: 'negative' });
  });
});

describe('catalog pre-fill', () => {
  const catalog = builtinCatalog();

  it("pre-fills AutoDL's 3090 with the report's figures, scaled by the GPU count", () => {
    const p = prefillPricing(catalog, 'autodl', 'RTX 3090', 2, 'hour', 24);
    assert.equal(p.pricing.hourlyRate, 2 * 198);
    assert.equal(p.pricing.noGpuModeRate, 10);
    assert.equal(p.pricing.storageGbDay, 50);
    assert.equal(p.pricing.dataDiskGb, 24);
    // Changed deliberately (issue 10): no invented date; the figure says it is undated.
    assert.equal(p.priceSource?.dated, 'undated (field report test week)');
    assert.deepEqual(p.missing, []);
    assert.ok(p.offeredModes.includes('week'));
  });

  it('spreads a package price over its hours and says what is missing elsewhere', () => {
    const weekly = prefillPricing(catalog, 'autodl', 'rtx3090', 1, 'week', 0);
    const week = catalog.platforms.find((x) => x.id === 'autodl')!.prices.find((x) => x.card === findCard('rtx3090')!.id && x.mode === 'week')!.price!;
    assert.equal(weekly.pricing.hourlyRate, Math.round((week.min + week.max) / 2 / 168));
    const unknown = prefillPricing(catalog, 'nowhere', 'rtx3090', 1, 'hour', 0);
    assert.ok(unknown.missing.includes('gpuPrice'));
    assert.equal(unknown.pricing.hourlyRate, 0);
  });
});

describe('command arguments', () => {
  it('accepts the scripted add and fills defaults', () => {
    const r = AddInstanceArgs.parse({ login: 'ssh -p 41234 root@connect.example.com', platform: 'autodl', card: 'RTX 4090' });
    assert.equal(r.gpuCount, 1);
    assert.equal(r.state, 'running');
    assert.equal(r.billingMode, 'hour');
  });

  it('refuses unknown keys, wrong types and hostile env names', () => {
    assert.equal(AddInstanceArgs.safeParse({ login: 'x', platform: 'p', card: 'c', evil: 1 }).success, false);
    assert.equal(AddInstanceArgs.safeParse({ login: 'x', platform: 'p', card: 'c', gpuCount: '2' }).success, false);
    assert.equal(StartTrainingArgs.safeParse({ id: 'a', command: 'x', env: { 'A;rm -rf /': '1' } }).success, false);
    assert.equal(StartTrainingArgs.safeParse({ id: 'a', command: 'x', env: { CUDA_VISIBLE_DEVICES: '0' } }).success, true);
  });

  it('finds the instance id in a node, an id, or an object', () => {
    assert.equal(instanceIdOf('a1'), 'a1');
    assert.equal(instanceIdOf({ kind: 'instance', id: 'a1' }), 'a1');
    assert.equal(instanceIdOf({ instanceId: 'a1' }), 'a1');
    assert.equal(instanceIdOf({ kind: 'platform', platform: 'autodl' }), undefined);
    assert.equal(instanceIdOf(undefined), undefined);
  });
});

describe('settings', () => {
  it('clamps to the manifest bounds and falls back on nonsense', () => {
    const s = readSettings((k) => ({ 'budget.monthly': 1500.5, 'refresh.intervalSeconds': 1, 'sync.watchIntervalSeconds': 1e9, 'sync.remoteDir': 'relative/dir', 'catalog.overrides': [1, 2], 'statusBar.enabled': 'no' })[k]);
    assert.equal(s.monthlyBudgetFen, 150050);
    assert.equal(s.refreshIntervalSeconds, 15);
    assert.equal(s.syncWatchIntervalSeconds, 86400);
    assert.equal(s.syncRemoteDir, '/root/autodl-tmp/checkpoints');
    assert.deepEqual(s.catalogOverride, {});
    assert.equal(s.statusBarEnabled, true);
    const d = readSettings(() => undefined);
    assert.equal(d.monthlyBudgetFen, 0);
    assert.equal(readSettings((k) => (k === 'budget.monthly' ? NaN : undefined)).monthlyBudgetFen, 0);
  });
});

describe('Remote-SSH host entry', () => {
  const login = { host: 'connect.example.com', port: 41234, user: 'root', auth: 'password' as const };
  it('appends once and replaces its own block after a login change, keeping the rest byte for byte', () => {
    const alias = hostAlias({ id: 'i0000abcd', platform: 'autodl' });
    const before = 'Host work\n  HostName w.example.com\n';
    const inst = { id: 'i0000abcd', platform: 'autodl', login };
    const once = upsertHostBlock(before, hostBlockOf(inst));
    assert.ok(once.startsWith(before));
    assert.match(once, new RegExp(`Host ${alias}\\n  HostName connect.example.com\\n  Port 41234\\n  User root`));
    const twice = upsertHostBlock(once + 'Host after\n  Port 1\n', hostBlockOf({ ...inst, login: { ...login, port: 52000 } }));
    assert.equal((twice.match(new RegExp(`Host ${alias}\\n`, 'g')) ?? []).length, 1);
    assert.match(twice, /Port 52000/);
    assert.doesNotMatch(twice, /Port 41234/);
    assert.ok(twice.includes(before + '\nHost after\n  Port 1\n'), JSON.stringify(twice));
  });
});

// Issue 41 bugs 5 and 6: a stopped platform instance whose disk size the platform never said is
// shown as `?`, not ¥0.00/h (tree, status bar, tooltip, month projection), its disk size once
// given is billed; a stopped manual instance's ¥0.63/h is its disk alone (30 GB at ¥0.50/GB/day);
// an edited on-demand price carries the spot price along by the catalog's ratio.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinCatalog } from '../../src/core/catalog';
import { createInstance, validateInstance, type Instance } from '../../src/core/instances';
import { summarizeSpend } from '../../src/core/spend';
import { prefillPricing, spotAfterHourlyEdit } from '../../src/extension/prefill';
import { instanceDescription, statusBarText, tooltipMarkdown } from '../../src/extension/view/present';

const l10n = { t: (m: string, ...a: (string | number | boolean)[]) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };
const NOW = 1_800_000_000;

function inst(pricing: Partial<Instance['pricing']>, state: 'running' | 'stopped' = 'stopped'): Instance {
  const p = { billingMode: 'hour' as const, hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 0, ...pricing };
  return createInstance({ id: 'i1', name: 'pro', platform: 'autodl', card: 'RTX 3090', gpuCount: 1, login: { host: 'h', port: 22, user: 'root', auth: 'agent' }, pricing: p } as never, state, NOW - 3600);
}

describe('stopped instances: storage shown, `?` where the disk size is not known (issue 41 bug 5)', () => {
  it('a platform instance whose disk size is unknown: ?/h in the tree, status bar, tooltip row and projection, never ¥0.00/h', () => {
    const i = inst({ dataDiskUnknown: true });
    assert.ok(validateInstance(i).ok, 'the stored shape takes the mark');
    const s = summarizeSpend([i], NOW);
    const desc = instanceDescription(i, { totalFen: 0, burnRate: s.burnRate, secondsInState: 3600 }, l10n);
    assert.match(desc, /\?\/h \(disk size not known\)/);
    assert.doesNotMatch(desc, /¥0\.00\/h/);
    assert.match(statusBarText(s, l10n, 0, [i]), /\?\/h/);
    const tip = tooltipMarkdown(s, [i], l10n);
    assert.doesNotMatch(tip, /¥0\.00\/h/);
    assert.match(tip, /Projected month-end: ¥[\d.]+ \+ disk \?/);
    // Running: the known compute part and the unknown disk.
    const r = inst({ dataDiskUnknown: true }, 'running');
    assert.match(instanceDescription(r, { totalFen: 0, burnRate: summarizeSpend([r], NOW).burnRate, secondsInState: 1 }, l10n), /¥1\.98\/h \+ disk \?/);
  });
  it('a stopped manual instance with 30 GB at ¥0.50/GB/day bills ¥15/day = ¥0.63/h: its disk, not the GPU', () => {
    const i = inst({ dataDiskGb: 30 });
    const s = summarizeSpend([i], NOW);
    assert.equal(Math.round(s.burnRate), 63);
    assert.match(instanceDescription(i, { totalFen: 0, burnRate: s.burnRate, secondsInState: 1 }, l10n), /¥0\.63\/h/);
  });
  it('an instance first seen on a platform is stored with its disk size unknown; the Release dialog of a stopped one says its stopped rate', () => {
    const apply = readFileSync(join(__dirname, '..', '..', 'src/extension/monitors/platformApply.ts'), 'utf8');
    assert.match(apply, /dataDiskUnknown: true/);
    const tree = readFileSync(join(__dirname, '..', '..', 'src/extension/tree.ts'), 'utf8');
    assert.doesNotMatch(tree, /formatRate\(/, 'the tree’s tooltip and platform group say ? too');
    const power = readFileSync(join(__dirname, '..', '..', 'src/extension/commands/platforms/power.ts'), 'utf8');
    assert.match(power, /'Now: \{0\}', nowText/);
  });
});

describe('Add Instance: the spot price follows an edited on-demand one (issue 41 bug 6)', () => {
  it('AutoDL RTX 4090: ¥3.60 on demand, ¥2.88 spot in the catalog; typed ¥3.00 → spot ¥2.40, never dearer than on demand', () => {
    const pre = prefillPricing(builtinCatalog(), 'autodl', 'rtx4090', 1, 'hour', 0).pricing;
    assert.deepEqual([pre.hourlyRate, pre.spotRate], [360, 288]);
    assert.equal(spotAfterHourlyEdit(pre, 300), 240);
    assert.equal(spotAfterHourlyEdit(pre, 360), 288, 'unchanged on-demand: the catalog spot as it was');
    for (const typed of [1, 100, 351, 1000, 99999]) assert.ok(spotAfterHourlyEdit(pre, typed)! <= typed, String(typed));
    assert.equal(spotAfterHourlyEdit({ hourlyRate: 0, spotRate: 100 }, 300), undefined, 'no pair to scale by: unknown (?), not the old figure');
    assert.equal(spotAfterHourlyEdit({ hourlyRate: 300 }, 200), undefined);
  });
  it('Add Instance and Edit Instance both use it', () => {
    for (const f of ['src/extension/commands/instances/add.ts', 'src/extension/commands/instances/edit.ts']) assert.match(readFileSync(join(__dirname, '..', '..', f), 'utf8'), /spotAfterHourlyEdit\(/, f);
  });
});

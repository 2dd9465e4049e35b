// Words and figures for the tree and status bar, with a plain formatter standing in for vscode.l10n.
import { strict as assert } from 'node:assert';
import { createInstance } from '../../src/core/instances';
import { summarizeSpend } from '../../src/core/spend';
import { builtinCatalog } from '../../src/core/catalog';
import { budgetNotice, formatDuration, instanceDescription, priceProvenance, statusBarAccessibility, statusBarText, tooltipMarkdown, type L10n } from '../../src/extension/view/present';

const l10n: L10n = { t: (m, ...a) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };
const T0 = Date.UTC(2026, 10, 9, 16) / 1000; // 2026-11-10 00:00 Beijing
const inst = (id: string, name: string, rate: number, state: 'running' | 'stopped' = 'running') =>
  createInstance({ id, name, platform: 'autodl', card: 'RTX 4090 24GB', gpuCount: 1, login: { host: 'h', port: 22, user: 'root', auth: 'agent' }, pricing: { billingMode: 'hour', hourlyRate: rate, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 24 } }, state, T0);

describe('presentation', () => {
  it('durations read naturally at every scale', () => {
    assert.equal(formatDuration(42, l10n), '42s');
    assert.equal(formatDuration(125, l10n), '2m');
    assert.equal(formatDuration(2 * 3600 + 5 * 60, l10n), '2h 05m');
    assert.equal(formatDuration(3 * 86400 + 4 * 3600, l10n), '3d 4h');
    assert.equal(formatDuration(NaN, l10n), '0s');
    assert.equal(formatDuration(-5, l10n), '0s');
  });

  it('the status bar shows today, month and burn rate in ¥, and changes as time passes', () => {
    const list = [inst('a', 'A', 360)];
    const t1 = summarizeSpend(list, T0 + 3600);
    assert.equal(statusBarText(t1, l10n), '$(credit-card) Today ¥4.10 · Month ¥4.10 · ¥4.10/h');
    const t2 = summarizeSpend(list, T0 + 7200);
    assert.notEqual(statusBarText(t2, l10n), statusBarText(t1, l10n));
    assert.match(statusBarAccessibility(t2, l10n), /today ¥8\.20, this month ¥8\.20, now ¥4\.10\/h/);
  });

  it('budget levels change the icon', () => {
    const list = [inst('a', 'A', 360)];
    assert.match(statusBarText(summarizeSpend(list, T0 + 10 * 3600, 4500), l10n), /^\$\(warning\)/);
    assert.match(statusBarText(summarizeSpend(list, T0 + 10 * 3600, 1000), l10n), /^\$\(error\)/);
  });

  it('the tooltip breaks spend down per instance, escapes names, and shows the projection', () => {
    const list = [inst('a', 'my|evil*name](command:x)', 360), inst('b', 'B', 198, 'stopped')];
    const s = summarizeSpend(list, T0 + 3600, 100000);
    const md = tooltipMarkdown(s, list, l10n);
    assert.match(md, /Projected month-end: ¥/);
    assert.match(md, /Budget ¥1,000\.00: 0% used/);
    // One escaping for box and user text in Markdown (core/text forMarkdown): ':' too, so no scheme survives.
    assert.ok(md.includes('my\\|evil\\*name\\]\\(command\\:x\\)'), md);
    assert.equal((md.match(/^\| /gm) ?? []).length, 3); // header + 2 instances
    assert.match(md, /Stopped \(storage only\)/);
  });

  it('the tree description has card, rate, accrued and time in state', () => {
    const i = inst('a', 'A', 360);
    const p = summarizeSpend([i], T0 + 5400).perInstance[0]!;
    assert.equal(instanceDescription(i, p, l10n), 'RTX 4090 24GB ×1 · ¥4.10/h · ¥6.15 · 1h 30m');
  });

  it('the tree tooltip says where the price comes from and how old it is', () => {
    const catalog = builtinCatalog();
    const p = catalog.platforms.find((x) => x.id === 'autodl')!.prices.find((x) => x.card === 'rtx4090' && x.mode === 'hour')!;
    const fromCatalog = priceProvenance(inst('a', 'A', Math.round((p.price!.min + p.price!.max) / 2)), catalog, l10n);
    // Changed deliberately (issue 10): the report's figures are undated, not "as of 2024-03".
    assert.equal(fromCatalog, `Price: catalog, undated (field report test week) (source: ${p.source})`);
    const edited = priceProvenance(inst('b', 'B', 410), catalog, l10n);
    assert.match(edited, /^Price: entered by you; the catalog says ¥\d+\.\d\d\/h, undated \(field report test week\) /);
    assert.ok(edited.includes(p.source), edited);
    const unpriced = createInstance({ id: 'c', name: 'C', platform: 'autodl', card: 'Made-up 9000', gpuCount: 1, login: { host: 'h', port: 22, user: 'root', auth: 'agent' }, pricing: { billingMode: 'hour', hourlyRate: 100, noGpuModeRate: 0, storageGbDay: 0, dataDiskGb: 0 } }, 'running', T0);
    assert.match(priceProvenance(unpriced, catalog, l10n), /entered by you \(the catalog has no price/);
  });

  it('each budget warning shows once per level per Beijing month', () => {
    const list = [inst('a', 'A', 360)];
    // ¥4.10/h against a ¥45 budget: 80 % after 9 h, 100 % after 11 h.
    assert.equal(budgetNotice(undefined, summarizeSpend(list, T0 + 8 * 3600, 4500)).show, undefined);
    const r1 = budgetNotice(undefined, summarizeSpend(list, T0 + 9 * 3600, 4500));
    assert.equal(r1.show, 'warning');
    const r2 = budgetNotice(r1.memo, summarizeSpend(list, T0 + 10 * 3600, 4500));
    assert.equal(r2.show, undefined);
    const r3 = budgetNotice(r2.memo, summarizeSpend(list, T0 + 12 * 3600, 4500));
    assert.equal(r3.show, 'exceeded');
    assert.equal(budgetNotice(r3.memo, summarizeSpend(list, T0 + 14 * 3600, 4500)).show, undefined);
    // next month starts over
    const dec = Date.UTC(2026, 11, 5) / 1000;
    const later = [createInstance({ ...inst('a', 'A', 360) }, 'running', dec)];
    assert.equal(budgetNotice(r3.memo, summarizeSpend(later, dec + 11 * 3600, 4500)).show, 'exceeded');
  });
});

// Issue 41 bug 7: New Instance's confirmation of a billing create: a price always (the platform's,
// else the catalog's marked with source and date, else ? said plainly), Cancel first and the close
// affordance, the card by its name, titled steps.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinCatalog } from '../../src/core/catalog';
import { cardLabel, catalogPrice, createButtons, createPriceLine, imageChoices, specStock, stepTitle, stockWords } from '../../src/extension/createConfirm';

const l10n = { t: (m: string, ...a: (string | number | boolean)[]) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };

describe('New Instance confirmation (issue 41 bug 7)', () => {
  it('the card by its name: AutoDL Pro v-48g is the 4090-48G', () => {
    assert.equal(cardLabel('autodl-pro', 'v-48g'), '4090-48G (v-48g)');
    assert.equal(cardLabel('aliyun-ecs', 'ecs.gn6i-c4g1.xlarge'), 'ecs.gn6i-c4g1.xlarge');
  });
  it('a price always: the platform quote; else the catalog figure marked as the catalog’s with its source and date; else ?', () => {
    assert.equal(createPriceLine(198, undefined, l10n), 'Price: ¥1.98/h (the platform’s quote)');
    const cp = catalogPrice(builtinCatalog(), 'autodl-web', 'RTX 4090', 2);
    assert.ok(cp, 'the catalog prices an AutoDL RTX 4090');
    assert.equal(cp.fenPerHour, 720);
    const line = createPriceLine(undefined, cp, l10n);
    assert.match(line, /about ¥7\.20\/h — the catalog’s figure \(.+, .+\), not the platform’s quote/);
    assert.ok(line.includes(cp.source), 'its source named');
    assert.equal(catalogPrice(builtinCatalog(), 'autodl-pro', 'v-48g', 1), undefined, 'the catalog has no 4090-48G price');
    assert.match(createPriceLine(undefined, undefined, l10n), /^Price: \?\/h — the platform quotes none before a create and the catalog has none/);
  });
  it('Cancel first and the close affordance: Enter or Escape never creates', () => {
    const b = createButtons(false, l10n);
    assert.deepEqual(b.map((x) => [x.title, x.go, !!x.isCloseAffordance]), [['Cancel', false, true], ['Create (Starts Billing)', true, false]]);
  });
  it('steps are titled, and the command uses these (no blank title, no Create-only modal)', () => {
    assert.equal(stepTitle('AutoDL Pro', 2, 7, 'number of GPUs', l10n), 'New Instance on AutoDL Pro (2/7): number of GPUs');
    const src = readFileSync(join(__dirname, '..', '..', 'src/extension/commands/platforms/create.ts'), 'utf8');
    assert.match(src, /createButtons\(/);
    assert.match(src, /createPriceLine\(/);
    assert.doesNotMatch(src, /showQuickPick\([^)]*\{ placeHolder/, 'every quick pick has a title');
  });
  it('AutoDL Pro’s images as a list from its page’s appendix, newest CUDA first; other platforms type theirs', () => {
    const list = imageChoices('autodl-pro');
    assert.ok(list.length >= 10);
    assert.deepEqual(list[0], { id: list[0]!.id, cuda: '11.8' });
    assert.equal(list[list.length - 1]!.cuda, '9.0');
    assert.deepEqual(imageChoices('aliyun-ecs'), []);
  });
  it('the card list says the free cards the stock read gives for a Pro spec, nothing where none was read', () => {
    const row = (proSpec: string | undefined, free: number | undefined, status: 'free' | 'soldOut' | 'unknown') => ({ card: 'vGPU-48GB', ...(proSpec ? { proSpec } : {}), region: 'westDC2', ...(free !== undefined ? { free } : {}), status, readAt: 1 }) as never;
    const readings = [{ account: 'web', kind: 'autodl-web' as const, ok: true as const, rows: [row('v-48g', 2, 'free'), row('v-48g', 1, 'free'), row(undefined, 9, 'free')] }, { account: 'x', kind: 'autodl-web' as const, ok: false as const }];
    assert.equal(stockWords(specStock(readings, 'v-48g'), l10n), '3 free now');
    assert.equal(stockWords(specStock([{ account: 'web', kind: 'autodl-web', ok: true, rows: [row('h800', 0, 'soldOut')] }], 'h800'), l10n), 'sold out now');
    assert.equal(stockWords(specStock([{ account: 'web', kind: 'autodl-web', ok: true, rows: [row('h800', undefined, 'unknown')] }], 'h800'), l10n), 'free: ?');
    assert.equal(stockWords(specStock(readings, '5090-p'), l10n), '');
  });
});

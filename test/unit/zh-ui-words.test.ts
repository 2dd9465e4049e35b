// Issue 41 bug 10 (the parts outside the launch): the add-price step's source, the price
// provenance and New Instance's price line say the catalog's source in Chinese under zh-CN.
import { strict as assert } from 'node:assert';
import { builtinCatalog } from '../../src/core/catalog';
import { createPriceLine, catalogPrice } from '../../src/extension/createConfirm';
import { catalogSourceText } from '../../src/extension/words/sourceWords';
import { stillBillingModal } from '../../src/extension/words/stillBillingText';
import { inZh } from '../support/l10n';

describe('catalog sources and new dialogs in Chinese (issue 41 bug 10)', () => {
  it('every source the built-in catalog names has Chinese words, with no English left', () => {
    const sources = new Set(builtinCatalog().platforms.flatMap((p) => p.prices.map((x) => x.source)));
    assert.ok(sources.size >= 5);
    for (const s of sources) {
      const zh = catalogSourceText(s, inZh);
      assert.doesNotMatch(zh, /field report|text|weekly|monthly|price table|about|free/, `${s} → ${zh}`);
      assert.match(zh, /实测报告/);
    }
    assert.equal(catalogSourceText('my own catalog', inZh), 'my own catalog', 'a user catalog’s source as written');
  });
  it('New Instance’s catalog price line in Chinese names the source in Chinese', () => {
    const line = createPriceLine(undefined, catalogPrice(builtinCatalog(), 'autodl-web', 'RTX 4090', 1), inZh);
    assert.match(line, /约 ¥3\.60\/小时/);
    assert.match(line, /实测报告 §3（AutoDL 4090）/);
  });
  it('the refused power-off modal in Chinese', () => {
    const m = stillBillingModal({ job: 'j', name: '甲', rate: '¥2.10/小时', action: 'powerOff', cause: { kind: 'boxRefused', user: 'ubuntu', exitCode: 1, output: '' }, next: ['releaseGuard', 'console'], linked: false, backupArmed: false }, inZh);
    assert.doesNotMatch(`${m.message}${m.detail}${m.buttons.map((b) => b.title).join('')}`, /\b(the|did|not|and|box|login)\b/i);
  });
});

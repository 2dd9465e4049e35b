import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { DEFAULT_INPUTS, parseHostMessage, parseWebviewMessage, restoreState, toLocale } from '../../src/webview/protocol';

const computed = { type: 'computed', inputs: DEFAULT_INPUTS, rows: 6, cheapest: 'autodl', cheapestTotalFen: 2970 };

describe('webview message protocol', () => {
  it('accepts the messages the calculator sends', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'ready', requestId: 1 }), { type: 'ready', requestId: 1 });
    assert.ok(parseWebviewMessage(computed));
    assert.ok(parseWebviewMessage({ type: 'openSettings', key: 'gpuRent.catalog.overrides' }));
    assert.ok(parseHostMessage({ type: 'init', requestId: 1, locale: 'zh-cn', catalogOverride: {}, now: 1_800_000_000 }));
    assert.ok(parseHostMessage({ type: 'setInputs', inputs: { gpus: 2 } }));
  });

  it('cards per instance are bounded like the CLI (8: the largest single rented machine)', () => {
    assert.ok(parseHostMessage({ type: 'setInputs', inputs: { gpus: 8 } }));
    assert.equal(parseHostMessage({ type: 'setInputs', inputs: { gpus: 9 } }), undefined);
    assert.equal(parseHostMessage({ type: 'setInputs', inputs: { gpus: 64 } }), undefined);
  });

  it('drops unknown types, wrong types, and non-objects', () => {
    for (const m of [undefined, null, 0, 'ready', [], [{ type: 'ready' }], { type: 'eval', code: '1' }, { type: 'ready' }, { type: 'ready', requestId: '1' }, { type: 'ready', requestId: -1 }, { type: 'ready', requestId: 1.5 }, { type: 'ready', requestId: Infinity }, { type: 'openSettings', key: 'terminal.integrated.shell.linux' }, { ...computed, rows: NaN }, { ...computed, inputs: { ...DEFAULT_INPUTS, gpus: '1' } }, { ...computed, inputs: { ...DEFAULT_INPUTS, gpus: 0 } }]) {
      assert.equal(parseWebviewMessage(m), undefined, JSON.stringify(m));
    }
  });

  it('drops messages with extra keys, at any depth', () => {
    assert.equal(parseWebviewMessage({ type: 'ready', requestId: 1, command: 'rm -rf /' }), undefined);
    assert.equal(parseWebviewMessage({ ...computed, inputs: { ...DEFAULT_INPUTS, extra: 1 } }), undefined);
    assert.equal(parseWebviewMessage({ ...computed, inputs: { ...DEFAULT_INPUTS, sort: { key: 'total', descending: true, x: 1 } } }), undefined);
    assert.equal(parseHostMessage({ type: 'setInputs', inputs: { gpus: 2, evil: true } }), undefined);
  });

  it('drops prototype-pollution keys and leaves Object.prototype alone', () => {
    for (const text of ['{"type":"ready","requestId":1,"__proto__":{"polluted":true}}', '{"type":"ready","requestId":1,"constructor":{"prototype":{"polluted":true}}}', `{"type":"computed","inputs":${JSON.stringify({ ...DEFAULT_INPUTS })},"rows":1,"__proto__":{"polluted":1}}`]) {
      assert.equal(parseWebviewMessage(JSON.parse(text)), undefined, text);
    }
    const host = parseHostMessage(JSON.parse('{"type":"init","requestId":1,"locale":"en","now":1,"catalogOverride":{"__proto__":{"polluted":true}}}'));
    if (host && host.type === 'init') assert.equal(Object.getPrototypeOf(host.catalogOverride), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('drops huge strings and huge arrays', () => {
    assert.equal(parseWebviewMessage({ type: 'error', message: 'x'.repeat(2001) }), undefined);
    assert.ok(parseWebviewMessage({ type: 'error', message: 'x'.repeat(2000) }));
    assert.equal(parseWebviewMessage({ ...computed, inputs: { ...DEFAULT_INPUTS, card: 'x'.repeat(10_000) } }), undefined);
    assert.equal(parseWebviewMessage({ ...computed, inputs: { ...DEFAULT_INPUTS, platforms: Array(51).fill('autodl') } }), undefined);
    assert.equal(parseHostMessage({ type: 'catalogChanged', catalogOverride: { big: 'x'.repeat(300_000) } }), undefined);
  });

  it('never throws on arbitrary input (property)', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBoxedValues: true, withMap: true, withSet: true, withBigInt: true, withTypedArray: true, withSparseArray: true }), (v) => {
        parseWebviewMessage(v);
        parseHostMessage(v);
        restoreState(v);
      }),
      { numRuns: 2000 },
    );
    const cyclic: Record<string, unknown> = { type: 'catalogChanged' };
    cyclic.catalogOverride = cyclic;
    assert.equal(parseHostMessage(cyclic), undefined);
  });

  it('restores saved state, and falls back to defaults on a stale or hostile one', () => {
    const saved = { version: 1, inputs: { ...DEFAULT_INPUTS, card: 'RTX 4090', gpus: 2 } };
    assert.deepEqual(restoreState(saved), saved);
    assert.deepEqual(restoreState({ version: 0, inputs: {} }).inputs, DEFAULT_INPUTS);
    assert.deepEqual(restoreState('{"version":1}').inputs, DEFAULT_INPUTS);
  });

  it('maps VS Code languages to calculator locales', () => {
    assert.equal(toLocale('zh-cn'), 'zh-cn');
    assert.equal(toLocale('zh-tw'), 'zh-cn');
    assert.equal(toLocale('en'), 'en');
    assert.equal(toLocale('de'), 'en');
    assert.equal(toLocale(undefined), 'en');
  });
});

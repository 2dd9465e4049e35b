// One table of limits (core/bounds.ts) and every place a number comes in: the calculator's
// form check (boundProblem over FIELD_BOUNDS, what calculator.ts shows inline), its message
// protocol, the extension's scripted arguments and input boxes, and the CLI's quote flags.
// For each shared fact a value at the bound is accepted by all of them and the next value
// past it refused by all of them; before this table they disagreed (64 cards in the
// extension, 8 in the calculator; ¥1,000,000 for any price in the extension, ¥100,000/h per
// card elsewhere).
import { strict as assert } from 'node:assert';
import { BOUNDS, boundProblem, boundSchema, withinBound, type Bound } from '../../src/core/bounds';
import { AddInstanceArgs, EditInstanceArgs, INSTANCE_PRICE_BOUNDS } from '../../src/extension/args';
import { parseCount, parseGb, parseYuan } from '../../src/extension/input';
import { CalculatorInputsSchema, DEFAULT_INPUTS, FIELD_BOUNDS, parseHostMessage, prefillInputs, type NumField } from '../../src/webview/protocol';
import { parseArgs } from '../../src/cli/args';
import { quoteSpecs } from '../../src/cli/commands/quote-flags';

/** The next number past the bound: +1 for whole numbers, one part in a million for the rest. */
const past = (b: Bound) => (b.integer ? b.max + 1 : b.max * (1 + 1e-6));
const under = (b: Bound) => (b.integer ? b.min - 1 : b.min - Math.max(1e-9, Math.abs(b.min) * 1e-6));

const form = (k: NumField, v: number) => ({
  check: boundProblem(v, FIELD_BOUNDS[k]) === undefined,
  posted: CalculatorInputsSchema.safeParse({ ...DEFAULT_INPUTS, [k]: v }).success,
  host: parseHostMessage({ type: 'setInputs', inputs: { [k]: v } }) !== undefined,
});
const add = (fields: Record<string, unknown>) => AddInstanceArgs.safeParse({ login: 'root@h', platform: 'autodl', card: 'RTX 4090', ...fields }).success;
const editArgs = (fields: Record<string, unknown>) => EditInstanceArgs.safeParse({ id: 'i1', ...fields }).success;
const cli = (flag: string, v: number) => {
  try {
    parseArgs([`--${flag}`, String(v)], quoteSpecs());
    return true;
  } catch {
    return false;
  }
};

describe('one table of input bounds', () => {
  it('boundSchema and boundProblem accept exactly what withinBound accepts, for every bound', () => {
    for (const [name, b] of Object.entries(BOUNDS) as [string, Bound][]) {
      for (const v of [b.min, b.max, past(b), under(b), (b.min + b.max) / 2, b.max - 0.5, NaN, Infinity]) {
        const want = withinBound(v, b);
        assert.equal(boundSchema(b).safeParse(v).success, want, `${name} schema at ${v}`);
        assert.equal(boundProblem(v, b) === undefined, want, `${name} problem at ${v}`);
      }
    }
  });

  it('cards per instance: 8 everywhere (form, protocol, addInstance, editInstance, the add/edit input box, gpu-rent quote --gpus)', () => {
    const b = BOUNDS.gpus;
    assert.equal(b.max, 8);
    for (const [v, ok] of [[b.max, true], [past(b), false], [b.min, true], [under(b), false]] as const) {
      assert.deepEqual(form('gpus', v), { check: ok, posted: ok, host: ok }, `form at ${v}`);
      assert.equal(add({ gpuCount: v }), ok, `addInstance at ${v}`);
      assert.equal(editArgs({ gpuCount: v }), ok, `editInstance at ${v}`);
      assert.equal(parseCount(String(v), b.min, b.max).ok, ok, `input box at ${v}`);
      assert.equal(cli('gpus', v), ok, `quote --gpus ${v}`);
    }
  });

  it('sizes, days and hours: the form and gpu-rent quote take the same largest value', () => {
    const pairs: [NumField, string][] = [['storageGb', 'storage-gb'], ['downloadGb', 'download-gb'], ['days', 'days'], ['idleHours', 'idle-hours'], ['vramGb', 'vram-gb'], ['gpuHours', 'gpu-hours'], ['steps', 'steps'], ['secondsPerStep', 'sec-per-step']];
    for (const [k, flag] of pairs) {
      const b = FIELD_BOUNDS[k];
      assert.deepEqual(form(k, b.max), { check: true, posted: true, host: true }, `${k} at ${b.max}`);
      assert.equal(cli(flag, b.max), true, `--${flag} ${b.max}`);
      assert.deepEqual(form(k, past(b)), { check: false, posted: false, host: false }, `${k} past ${b.max}`);
      assert.equal(cli(flag, past(b)), false, `--${flag} ${past(b)}`);
    }
  });

  it('a data disk: the same petabyte in the form, the scripted arguments and the input box', () => {
    const b = BOUNDS.gb;
    for (const [v, ok] of [[b.max, true], [past(b), false]] as const) {
      assert.equal(form('storageGb', v).posted, ok);
      assert.equal(add({ dataDiskGb: v }), ok, `addInstance dataDiskGb ${v}`);
      assert.equal(editArgs({ dataDiskGb: v }), ok, `editInstance dataDiskGb ${v}`);
      assert.equal(parseGb(String(v)).ok, ok, `input box ${v}`);
    }
  });

  it('prices: an instance rate is at most the dearest card price on the largest machine; no-GPU and disk rates their own bounds', () => {
    assert.equal(BOUNDS.instanceYuanPerHour.max, BOUNDS.yuanPerHour.max * BOUNDS.gpus.max);
    for (const [field, b] of Object.entries(INSTANCE_PRICE_BOUNDS)) {
      for (const [v, ok] of [[b.max, true], [past(b), false], [0, true], [-0.01, false]] as const) {
        assert.equal(add({ [field]: v }), ok, `addInstance ${field} ${v}`);
        assert.equal(editArgs({ [field]: v }), ok, `editInstance ${field} ${v}`);
        // The edit input box passes the field's own bound (edit.ts); the add box the instance rate's (the default).
        assert.equal(parseYuan(String(v), b.max).ok, ok, `input box ${field} ${v}`);
      }
    }
    assert.equal(parseYuan(String(BOUNDS.instanceYuanPerHour.max)).ok, true);
    assert.equal(parseYuan(String(BOUNDS.instanceYuanPerHour.max + 0.01)).ok, false);
  });
});

describe('a calculator prefill past the bounds', () => {
  it('an instance stored with 16 GPUs (allowed before one table) prefills its card and disk; the GPUs are left out, and the init message is still accepted', () => {
    const p = prefillInputs({ card: 'RTX 4090', gpus: 16, storageGb: 24, spot: false, evil: 'x' });
    assert.deepEqual(p, { card: 'RTX 4090', storageGb: 24, spot: false });
    assert.ok(parseHostMessage({ type: 'init', requestId: 1, locale: 'en', catalogOverride: {}, now: 1, inputs: { ...DEFAULT_INPUTS, ...p } }));
    // Unfiltered, the page would have dropped the whole message and stayed blank.
    assert.equal(parseHostMessage({ type: 'init', requestId: 1, locale: 'en', catalogOverride: {}, now: 1, inputs: { ...DEFAULT_INPUTS, gpus: 16 } }), undefined);
    for (const raw of [null, 'x', [1], 42]) assert.deepEqual(prefillInputs(raw), {});
    assert.deepEqual(prefillInputs({ gpus: BOUNDS.gpus.max }), { gpus: 8 });
  });
});

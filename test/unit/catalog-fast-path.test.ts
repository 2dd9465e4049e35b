// The merge's hand-written fast path (schema.ts fastPlatform) against zod: wherever it answers,
// zod accepts the same platform and gives the same values; wherever it is unsure, the merge is
// done by zod and reads exactly as before (messages and JSON paths are zod's).
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { builtinCatalog, fastPlatform, FAST_PLATFORM_FIELDS, mergeCatalog, platformJson } from '../../src/core/catalog';
import { builtinCatalogJson } from '../../src/core/catalog/data';

/** Top-level keys set to undefined are how fastPlatform writes an absent optional field. */
function definedOnly(o: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

function agrees(v: unknown): 'fast' | 'zod' {
  const fast = fastPlatform(v);
  const z = platformJson.safeParse(v);
  if (fast === undefined) return 'zod';
  assert.ok(z.success, `fast path accepted what zod refuses: ${JSON.stringify(v)} → ${JSON.stringify(z.error?.issues)}`);
  assert.deepStrictEqual(definedOnly(fast), z.data);
  assert.deepStrictEqual(Object.keys(fast.name), Object.keys(z.data.name));
  fast.prices.forEach((p, i) => assert.deepStrictEqual(Object.keys(p), Object.keys(z.data.prices[i]!)));
  return 'fast';
}

// Values near every check's edge, valid and not.
const anyValue = fc.oneof(
  fc.constantFrom(undefined, null, true, false, 0, -0, -1, 0.5, 1, 1e308, Number.NaN, Number.POSITIVE_INFINITY, '', 'x', 'hour', 'spot', 'month', '2026-11-01', '2026-1-01', '2026-05-01T14:03:00Z', 'RTX 4090', []),
  fc.tuple(fc.double(), fc.double()),
  fc.array(fc.constantFrom('hour', 'day', 'spot', 'x', 1), { maxLength: 3 }),
);
/** Mostly a good value, sometimes anything. */
const mostly = <T>(good: fc.Arbitrary<T>, ...bad: unknown[]) =>
  fc.oneof({ arbitrary: good, weight: 40 }, { arbitrary: bad.length ? fc.constantFrom(...bad) : anyValue, weight: 1 }, { arbitrary: anyValue, weight: 1 });
/** Sometimes a key that is not in the schema. */
const maybeBogus = <T extends object>(a: fc.Arbitrary<T>) => fc.tuple(a, fc.integer({ min: 0, max: 60 })).map(([o, n]) => (n === 0 ? { ...o, bogus: 1 } : o));
const price = maybeBogus(
  fc.record(
    {
      card: mostly(fc.constantFrom('RTX 4090', '4090', 'a100'), ''),
      mode: mostly(fc.constantFrom('hour', 'day', 'week', 'month', 'spot'), 'yearly'),
      yuan: mostly(fc.oneof(fc.constantFrom(null, 0, -0, 1.58, 100_000, 100_001, 2_400_000, 2_400_001, 72_000_000, 72_000_001, [1, 2], [0, 1e9]), fc.double({ min: -1, max: 1e8 })), [2, 1], [1, 2, 3], [-1, 1]),
      source: mostly(fc.constant('user'), ''),
      asOf: mostly(fc.constantFrom('2026-11-01', null), '11/01/2026'),
      readAt: mostly(fc.constant('2026-05-01T14:03:00+08:00'), '2026-05-01 14:03'),
      note: mostly(fc.constantFrom('n', '')),
    },
    { requiredKeys: ['card', 'mode'] },
  ),
);
const platform = maybeBogus(
  fc.record(
    {
      id: mostly(fc.constantFrom('p1', 'my-cloud'), 'P1', '1p', ''),
      name: mostly(fc.constantFrom({ zh: '平台', en: 'P' }, { en: 'P', zh: '平台' }), { zh: '', en: 'P' }, { zh: 'a' }, { zh: 'a', en: 'b', fr: 'c' }),
      kind: mostly(fc.constantFrom('personal', 'bigCloud'), 'other'),
      billingModes: mostly(fc.array(fc.constantFrom('hour', 'day', 'week', 'month', 'spot'), { maxLength: 5 }), ['yearly'], 'hour'),
      prices: mostly(fc.array(price, { maxLength: 3 })),
      systemDisk: mostly(fc.constantFrom('free', 'paid'), 'nope'),
      stoppedBills: mostly(fc.constant('storageOnly'), 'nope'),
      rootAccess: mostly(fc.constantFrom(true, false, null), 'yes'),
      warnings: mostly(fc.constantFrom(['noSla', 'spotReclaim'], []), ['nope']),
      dataDisk: mostly(fc.constantFrom({ yuanPerGbDay: 0.01 }, { yuanPerGbDay: [0.01, 0.02], bundled: true, source: 's' }), { bundled: true }, { yuanPerGbDay: 1001 }),
      noGpuMode: mostly(fc.constant({ support: 'yes', yuanPerHour: 0.1 }), { support: 'maybe' }),
      bandwidthMbps: mostly(fc.constantFrom({ value: [2, 10] }, { value: null, yuanPerMonth: 100 }), { value: 0.01 }),
      queue: mostly(fc.constant({ level: 'severe', waitMinutes: [5, 30], peakHours: '19-23' }), { level: 'x' }),
      access: mostly(fc.constantFrom({ enterpriseVerification: true }, { minRentalDays: 7 }), { minRentalDays: -1 }),
      image: mostly(fc.constant({ quality: 'good' }), { quality: 'bad' }),
      releaseAfterStoppedDays: mostly(fc.constant({ value: 15 }), { value: 4000 }),
      spot: mostly(fc.constantFrom({ discount: 0.5 }, null), { discount: 0.99 }),
      freeQuotaHours: mostly(fc.constantFrom({ value: 10 }, { value: null, note: 'n' })),
      source: mostly(fc.constant('user'), ''),
      asOf: mostly(fc.constantFrom('2026-11-01', null), '2026-11'),
      readAt: mostly(fc.constant('2026-05-01T14:03:00Z'), 'yesterday'),
      note: mostly(fc.constant('n')),
    },
    { requiredKeys: ['id', 'name', 'billingModes', 'prices'] },
  ),
);

describe('catalog merge: the fast path agrees with zod', () => {
  it('on generated platforms, valid and not: whatever it accepts, zod accepts with the same values', () => {
    let fast = 0;
    let valid = 0;
    fc.assert(
      fc.property(platform, (p) => {
        const answer = agrees(p);
        if (answer === 'fast') fast++;
        if (platformJson.safeParse(p).success && !JSON.stringify(p, (_k, v: unknown) => (v === undefined ? '~undefined~' : v)).includes('~undefined~')) {
          valid++;
          assert.equal(answer, 'fast', JSON.stringify(p));
        }
      }),
      { numRuns: 2000 },
    );
    // Of valid platforms only a key set to undefined is left to zod, so it answers for all others.
    assert.equal(fast, valid);
    assert.ok(fast > 100, `the fast path answered ${fast} times`);
  });

  it('answers for every built-in platform and for the common shape of a new one, and covers every field of the schema', () => {
    for (const p of builtinCatalogJson.platforms) assert.equal(agrees(p), 'fast', p.id);
    assert.equal(agrees({ source: 'u', asOf: null, id: 'p1', name: { zh: '平台', en: 'P' }, billingModes: ['hour'], prices: [{ source: 'u', asOf: null, card: 'RTX 4090', mode: 'hour', yuan: 1 }] }), 'fast');
    assert.deepStrictEqual([...FAST_PLATFORM_FIELDS].sort(), Object.keys(platformJson.shape).sort());
    // The last good date is remembered; nothing else passes for it.
    const dated = (asOf: unknown) => fastPlatform({ id: 'p1', name: { zh: '平台', en: 'P' }, billingModes: [], prices: [], asOf });
    assert.ok(dated('2026-11-01'));
    for (const bad of ['', '2026-11-1', 20261101, '2026-11-01 ']) assert.equal(dated(bad), undefined, String(bad));
    assert.ok(dated('2026-11-01'));
  });

  it('leaves to zod what is not plain JSON: class instances, inherited keys, keys set to undefined', () => {
    const base = { id: 'p1', name: { zh: '平台', en: 'P' }, billingModes: ['hour'], prices: [] };
    class Box {
      id = 'p1';
      name = { zh: '平台', en: 'P' };
      billingModes = ['hour'];
      prices = [];
    }
    for (const v of [new Box(), Object.assign(Object.create({ inherited: 1 }) as object, base), { ...base, note: undefined }]) assert.equal(fastPlatform(v), undefined);
    // Through the merge: an override that is not plain JSON gets zod's answer, as before.
    const inherited = Object.assign(Object.create({ bogus: 1 }) as object, base);
    const r = mergeCatalog(builtinCatalog(), { platforms: [inherited] });
    assert.ok(!r.ok);
    assert.deepStrictEqual(r.errors, [{ path: 'platforms[0]', message: 'Unrecognized key: "bogus"' }]);
    const ok = mergeCatalog(builtinCatalog(), { platforms: [new Box()] });
    assert.ok(ok.ok);
    assert.equal(ok.catalog.platforms.at(-1)!.id, 'p1');
  });

  it('a merge that takes the fast path gives the same catalog as one that zod does', () => {
    const platforms = [
      { id: 'p1', name: { en: 'P', zh: '平台' }, billingModes: ['hour', 'spot'], prices: [{ card: 'RTX 4090', mode: 'hour', yuan: [1, 2], note: 'n' }], dataDisk: { yuanPerGbDay: 0.01 }, spot: { discount: 0.5 } },
      { id: 'autodl', prices: [{ card: '4090', mode: 'hour', yuan: 3 }] },
    ];
    const fast = mergeCatalog(builtinCatalog(), { asOf: '2026-11-01', platforms });
    // A key set to undefined at the top sends the whole merge to zod.
    const slow = mergeCatalog(builtinCatalog(), { asOf: '2026-11-01', source: undefined, platforms });
    assert.ok(fast.ok && slow.ok);
    assert.deepStrictEqual(fast.catalog, slow.catalog);
    assert.equal(JSON.stringify(fast.catalog), JSON.stringify(slow.catalog));
  });

  it('a catalog merged from new platforms merges again: its platforms are parsed again from its JSON where needed', () => {
    const once = mergeCatalog(builtinCatalog(), { asOf: '2026-11-01', platforms: [{ id: 'p1', name: { zh: '平台', en: 'P' }, billingModes: ['hour', 'day'], prices: [{ card: 'RTX 4090', mode: 'hour', yuan: 2 }] }] });
    assert.ok(once.ok);
    const twice = mergeCatalog(once.catalog, { platforms: [{ id: 'p1', prices: [{ card: '4090', mode: 'day', yuan: 40 }] }, { id: 'p2', name: { zh: '二', en: 'Two' }, billingModes: ['hour'], prices: [] }] });
    assert.ok(twice.ok);
    const direct = mergeCatalog(builtinCatalog(), { asOf: '2026-11-01', platforms: [{ id: 'p1', name: { zh: '平台', en: 'P' }, billingModes: ['hour', 'day'], prices: [{ card: 'RTX 4090', mode: 'hour', yuan: 2 }] }] });
    assert.ok(direct.ok);
    const p1 = twice.catalog.platforms.find((p) => p.id === 'p1')!;
    assert.deepStrictEqual(p1.prices.map((p) => [p.card, p.mode, p.price?.min, p.asOf]), [['rtx4090', 'hour', 200, '2026-11-01'], ['rtx4090', 'day', 4000, null]]);
    assert.deepStrictEqual(twice.catalog.platforms.slice(0, -2), direct.catalog.platforms.slice(0, -1));
    // And a patch that breaks a kept price is still refused with its path.
    const bad = mergeCatalog(once.catalog, { platforms: [{ id: 'p1', billingModes: ['day'] }] });
    assert.ok(!bad.ok);
    assert.equal(bad.errors[0]!.path, 'platforms[0].billingModes');
  });
});

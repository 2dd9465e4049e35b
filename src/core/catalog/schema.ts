// The catalog's JSON shape (what the built-in data and a user's `--catalog FILE` are written
// in: yuan, as people quote them) and its zod schemas. index.ts turns it into fen.
import { z } from 'zod';
import { BOUNDS, formatBoundNumber, maxYuanPerPeriod, type Bound } from '../bounds';

export const BILLING_MODES = ['hour', 'day', 'week', 'month', 'spot'] as const;
export type BillingMode = (typeof BILLING_MODES)[number];

export const PLATFORM_KINDS = ['personal', 'bigCloud', 'aigc', 'free', 'reseller'] as const;
export const NO_GPU_SUPPORT = ['yes', 'partial', 'no', 'notApplicable', 'unknown'] as const;
/** What a stopped (not released) instance still bills. `dataLost`: stopping wipes the disk. */
export const STOPPED_BILLS = ['storageOnly', 'everything', 'dataLost', 'unknown'] as const;
export const SYSTEM_DISK = ['free', 'bundled', 'paid', 'unknown'] as const;
export const QUEUE_LEVELS = ['none', 'low', 'moderate', 'severe', 'unstable', 'unknown'] as const;
export const IMAGE_QUALITY = ['excellent', 'good', 'fair', 'standard', 'unfriendly', 'closed', 'unknown'] as const;

export const WARNING_CODES = [
  'dataDiskAddsUp',
  'spotReclaim',
  'releaseAfterStopped',
  'diskUnencrypted',
  'eveningQueue',
  'noRoot',
  'storageExtra',
  'dataLostOnShutdown',
  'slowDownload',
  'cardSupplyUnstable',
  'imageCudaMismatch',
  'bundledResources',
  'billsWhileStopped',
  'bandwidthExtra',
  'imageUnfriendly',
  'minRentalWeek',
  'priceRoughlyDouble',
  'enterpriseVerification',
  'closedEnvironment',
  'freeQuotaUnstable',
  'freeQuotaShort',
  'vramTooSmallFor7B',
  'noSla',
  'dataInsecure',
] as const;
export type WarningCode = (typeof WARNING_CODES)[number];

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const PLATFORM_ID = /^[a-z][a-z0-9-]*$/;
const isoDate = z.string().regex(ISO_DATE, 'expected an ISO date YYYY-MM-DD');
/** When a platform's API gave the figure: an ISO date-time with a zone. */
const isoDateTime = z.string().regex(ISO_DATE_TIME, 'expected an ISO date-time like 2026-05-01T14:03:00Z');

/** Hours in one period of each billing mode (a month is 30 days). */
export const PERIOD_HOURS: Record<BillingMode, number> = { hour: 1, spot: 1, day: 24, week: 168, month: 720 };

const AMOUNT_ERROR = 'expected a number ≥ 0 (yuan) or a [min, max] pair';
const finite = z.number().finite();

/**
 * A figure: one value, or the report's [min, max] range, within `b` (core/bounds.ts). Beyond
 * the bound it is refused with the bound in the message: a price of 1e308 is a typo, and
 * would otherwise print as ¥0.00 and win.
 */
function amount(b: Bound, label = b.unit) {
  return z.union([finite, z.tuple([finite, finite])], { error: AMOUNT_ERROR }).superRefine((v, ctx) => {
    const [lo, hi] = typeof v === 'number' ? [v, v] : v;
    if (lo < 0 || hi < 0) ctx.addIssue({ code: 'custom', message: AMOUNT_ERROR });
    else if (lo > hi) ctx.addIssue({ code: 'custom', message: 'range must be [min, max] with min ≤ max' });
    else if (hi > b.max || !Number.isFinite(hi)) ctx.addIssue({ code: 'custom', message: `expected at most ${formatBoundNumber(b.max)} ${label}, got ${String(hi)}` });
    else if (lo < b.min || (b.exclusiveMin && lo <= b.min)) ctx.addIssue({ code: 'custom', message: `expected at least ${formatBoundNumber(b.min)} ${label}, got ${String(lo)}` });
  });
}
/** Any price amount; its per-mode bound (¥100,000/h × the period's hours) is checked on the price object. */
export const amountJson = amount({ min: 0, max: Number.POSITIVE_INFINITY, unit: 'yuan', why: 'per mode' });
export type AmountJson = number | [number, number];

const provenance = {
  source: z.string().min(1).optional(),
  /** null: the figure's date is not known (the field report gives none). */
  asOf: isoDate.nullable().optional(),
  /** Read from a platform's API at this time (connectors). */
  readAt: isoDateTime.optional(),
  note: z.string().optional(),
};

export const priceJson = z
  .strictObject({
    card: z.string().min(1),
    mode: z.enum(BILLING_MODES),
    /** Yuan per GPU for one period of `mode`; null = the report names the option but gives no number. */
    yuan: amountJson.nullable(),
    ...provenance,
  })
  .superRefine((p, ctx) => {
    if (p.yuan === null) return;
    const hi = typeof p.yuan === 'number' ? p.yuan : p.yuan[1];
    const max = maxYuanPerPeriod(PERIOD_HOURS[p.mode]);
    if (hi > max) ctx.addIssue({ code: 'custom', path: ['yuan'], message: `expected at most ${formatBoundNumber(max)} yuan per ${p.mode === 'spot' ? 'hour' : p.mode} (¥${formatBoundNumber(BOUNDS.yuanPerHour.max)}/h), got ${String(hi)}` });
  });

const sourced = (b: Bound) => z.strictObject({ value: amount(b).nullable(), ...provenance });
const sourcedHours = sourced(BOUNDS.hours);
const sourcedDays = sourced(BOUNDS.days);

export const platformJson = z.strictObject({
  id: z.string().regex(PLATFORM_ID, 'expected a lowercase ascii id like "autodl"'),
  name: z.strictObject({ zh: z.string().min(1), en: z.string().min(1) }),
  kind: z.enum(PLATFORM_KINDS).default('personal'),
  billingModes: z.array(z.enum(BILLING_MODES)),
  prices: z.array(priceJson),
  dataDisk: z
    .strictObject({ yuanPerGbDay: amount(BOUNDS.yuanPerGbDay).nullable(), bundled: z.boolean().default(false), ...provenance })
    .default({ yuanPerGbDay: null, bundled: false }),
  systemDisk: z.enum(SYSTEM_DISK).default('unknown'),
  noGpuMode: z
    .strictObject({ support: z.enum(NO_GPU_SUPPORT), yuanPerHour: amount(BOUNDS.noGpuYuanPerHour).nullable().default(null), ...provenance })
    .default({ support: 'unknown', yuanPerHour: null }),
  stoppedBills: z.enum(STOPPED_BILLS).default('unknown'),
  /** `yuanPerMonth`: what that bandwidth costs where it is bought separately (big clouds). */
  bandwidthMbps: z
    .strictObject({ value: amount(BOUNDS.mbps).nullable(), yuanPerMonth: amount(BOUNDS.bandwidthYuanPerMonth).optional(), ...provenance })
    .default({ value: null }),
  rootAccess: z.boolean().nullable().default(null),
  queue: z
    .strictObject({
      level: z.enum(QUEUE_LEVELS),
      peakHours: z.string().optional(),
      waitMinutes: amount(BOUNDS.minutes).optional(),
      worstMinutes: z.number().finite().min(0).max(BOUNDS.minutes.max).optional(),
      ...provenance,
    })
    .default({ level: 'unknown' }),
  access: z
    .strictObject({ enterpriseVerification: z.boolean().default(false), minRentalDays: z.number().finite().min(0).max(BOUNDS.days.max).nullable().default(null), ...provenance })
    .default({ enterpriseVerification: false, minRentalDays: null }),
  image: z.strictObject({ quality: z.enum(IMAGE_QUALITY), customImageSave: z.boolean().nullable().default(null), ...provenance }).default({ quality: 'unknown', customImageSave: null }),
  releaseAfterStoppedDays: sourcedDays.optional(),
  spot: z.strictObject({ discount: z.number().finite().min(0).max(0.95), reclaimable: z.boolean().default(true), ...provenance }).nullable().default(null),
  freeQuotaHours: sourcedHours.optional(),
  warnings: z.array(z.enum(WARNING_CODES)).default([]),
  ...provenance,
});
export type PlatformJson = z.input<typeof platformJson>;

export const catalogJson = z.strictObject({
  asOf: isoDate.optional(),
  source: z.string().min(1).optional(),
  platforms: z.array(platformJson),
});
export type CatalogJson = z.input<typeof catalogJson>;

/** A user's override file: platforms to patch (by id) or add; every field but id optional. */
export const platformPatchJson = platformJson.partial().extend({ id: platformJson.shape.id });
export const overrideJson = z.strictObject({
  asOf: isoDate.optional(),
  source: z.string().min(1).optional(),
  platforms: z.array(platformPatchJson).default([]),
});

// ---------------------------------------------------------------------------------------------
// A fast path for checking one platform: a merge of 80,000 new platforms spent most of its time
// in zod. `fastPlatform` checks the common shape by hand and returns what `platformJson.parse`
// would, or undefined whenever it is unsure; then the caller asks zod, whose messages and paths
// the user sees. It may only be stricter than zod, never looser: a field it does not check by
// hand goes to that field's own zod schema, and test/unit/catalog-fast-path.test.ts compares the
// two on generated input.

type PlatformOut = z.output<typeof platformJson>;
type Plain = Record<string, unknown>;
const FAIL = Symbol('fail');
type Checked<T> = T | typeof FAIL;

/** A plain object (what JSON.parse makes), only `known` keys, none set to undefined; else undefined (zod decides). */
function plainWith(v: unknown, known: ReadonlySet<string>): Plain | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return undefined;
  const o = v as Plain;
  for (const k in o) if (o[k] === undefined || !known.has(k)) return undefined;
  return o;
}

const str1 = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** `amount(…)` with the per-mode bound left to the price (every price amount is ≥ 0 and finite). */
function fastPriceAmount(v: unknown): Checked<AmountJson> {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v : FAIL;
  if (!Array.isArray(v) || v.length !== 2) return FAIL;
  const [lo, hi] = v as unknown[];
  if (typeof lo !== 'number' || typeof hi !== 'number' || !Number.isFinite(lo) || !Number.isFinite(hi) || lo < 0 || lo > hi) return FAIL;
  return [lo, hi];
}

const checkSource = (v: unknown): Checked<string> => (str1(v) ? v : FAIL);
/** The last date that passed: a merge stamps one date on every figure of a file. */
let lastDate: string | undefined;
const checkAsOf = (v: unknown): Checked<string | null> => {
  if (v === null || (lastDate !== undefined && v === lastDate)) return v as string | null;
  if (typeof v !== 'string' || !ISO_DATE.test(v)) return FAIL;
  lastDate = v;
  return v;
};
const checkReadAt = (v: unknown): Checked<string> => (typeof v === 'string' && ISO_DATE_TIME.test(v) ? v : FAIL);
const checkNote = (v: unknown): Checked<string> => (typeof v === 'string' ? v : FAIL);

const PRICE_KEYS: ReadonlySet<string> = new Set(Object.keys(priceJson.shape));
const MODES: ReadonlySet<string> = new Set(BILLING_MODES);

function fastPrice(v: unknown): Checked<Plain> {
  const o = plainWith(v, PRICE_KEYS);
  if (!o) return FAIL;
  const { card, mode, yuan: y } = o;
  if (!str1(card) || typeof mode !== 'string' || !MODES.has(mode) || y === undefined) return FAIL;
  const yuan = y === null ? null : fastPriceAmount(y);
  if (yuan === FAIL) return FAIL;
  if (yuan !== null && (typeof yuan === 'number' ? yuan : yuan[1]) > maxYuanPerPeriod(PERIOD_HOURS[mode as BillingMode])) return FAIL;
  const out: Plain = { card, mode, yuan };
  if (o.source !== undefined) if ((out.source = checkSource(o.source)) === FAIL) return FAIL;
  if (o.asOf !== undefined) if ((out.asOf = checkAsOf(o.asOf)) === FAIL) return FAIL;
  if (o.readAt !== undefined) if ((out.readAt = checkReadAt(o.readAt)) === FAIL) return FAIL;
  if (o.note !== undefined) if ((out.note = checkNote(o.note)) === FAIL) return FAIL;
  return out;
}

function fastArray<T>(v: unknown, item: (x: unknown) => Checked<T>): Checked<T[]> {
  if (!Array.isArray(v)) return FAIL;
  const out: T[] = new Array<T>(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = item(v[i]);
    if (x === FAIL) return FAIL;
    out[i] = x;
  }
  return out;
}

const oneOf = <T extends string>(values: readonly T[]) => {
  const set: ReadonlySet<string> = new Set(values);
  return (v: unknown): Checked<T> => (typeof v === 'string' && set.has(v) ? (v as T) : FAIL);
};
const checkKind = oneOf(PLATFORM_KINDS);
const checkMode = oneOf(BILLING_MODES);
const checkSystemDisk = oneOf(SYSTEM_DISK);
const checkStoppedBills = oneOf(STOPPED_BILLS);
const checkWarning = oneOf(WARNING_CODES);
const NAME_KEYS: ReadonlySet<string> = new Set(['zh', 'en']);
function checkName(v: unknown): Checked<{ zh: string; en: string }> {
  const o = plainWith(v, NAME_KEYS);
  return o && str1(o.zh) && str1(o.en) ? { zh: o.zh, en: o.en } : FAIL;
}

type Shape = typeof platformJson.shape;
const shape: Shape = platformJson.shape;
/** Each field's own zod schema, for the fields not checked by hand. */
function byZod<K extends keyof Shape>(key: K): (v: unknown) => Checked<PlatformOut[K]> {
  const schema = shape[key] as z.ZodType;
  return (v) => {
    const r = schema.safeParse(v);
    return r.success ? (r.data as PlatformOut[K]) : FAIL;
  };
}
const zod = {
  dataDisk: byZod('dataDisk'),
  noGpuMode: byZod('noGpuMode'),
  bandwidthMbps: byZod('bandwidthMbps'),
  queue: byZod('queue'),
  access: byZod('access'),
  image: byZod('image'),
  releaseAfterStoppedDays: byZod('releaseAfterStoppedDays'),
  spot: byZod('spot'),
  freeQuotaHours: byZod('freeQuotaHours'),
};

/**
 * What zod gives for each absent field, read from the schema: FAIL (required), undefined, or its
 * default. A default object is frozen and shared by every platform: a parsed platform is only
 * read (resolvePlatform copies what it keeps), and 80,000 fresh copies of six defaults were a
 * good part of a merge's garbage.
 */
const ABSENT = Object.fromEntries(
  Object.entries(shape).map(([key, schema]) => {
    const r = (schema as z.ZodType).safeParse(undefined);
    const v: unknown = !r.success ? FAIL : typeof r.data === 'object' && r.data !== null ? Object.freeze(r.data) : r.data;
    return [key, v];
  }),
) as { [K in keyof Shape]: Checked<PlatformOut[K]> };

const PLATFORM_KEYS: ReadonlySet<string> = new Set(Object.keys(shape));

/**
 * `platformJson.parse(v)` for the shapes it knows (undefined: not sure, ask zod for the
 * message): the same values and defaults, in one object literal; an absent optional field is
 * there as undefined, which nothing that reads a parsed platform tells apart from no key.
 */
export function fastPlatform(v: unknown): PlatformOut | undefined {
  const o = plainWith(v, PLATFORM_KEYS);
  if (!o) return undefined;
  const A = ABSENT;
  const id = o.id === undefined ? A.id : typeof o.id === 'string' && PLATFORM_ID.test(o.id) ? o.id : FAIL;
  const name = o.name === undefined ? A.name : checkName(o.name);
  const kind = o.kind === undefined ? A.kind : checkKind(o.kind);
  const billingModes = o.billingModes === undefined ? A.billingModes : fastArray(o.billingModes, checkMode);
  const prices = o.prices === undefined ? A.prices : fastArray(o.prices, fastPrice);
  const dataDisk = o.dataDisk === undefined ? A.dataDisk : zod.dataDisk(o.dataDisk);
  const systemDisk = o.systemDisk === undefined ? A.systemDisk : checkSystemDisk(o.systemDisk);
  const noGpuMode = o.noGpuMode === undefined ? A.noGpuMode : zod.noGpuMode(o.noGpuMode);
  const stoppedBills = o.stoppedBills === undefined ? A.stoppedBills : checkStoppedBills(o.stoppedBills);
  const bandwidthMbps = o.bandwidthMbps === undefined ? A.bandwidthMbps : zod.bandwidthMbps(o.bandwidthMbps);
  const rootAccess = o.rootAccess === undefined ? A.rootAccess : o.rootAccess === null || typeof o.rootAccess === 'boolean' ? o.rootAccess : FAIL;
  const queue = o.queue === undefined ? A.queue : zod.queue(o.queue);
  const access = o.access === undefined ? A.access : zod.access(o.access);
  const image = o.image === undefined ? A.image : zod.image(o.image);
  const releaseAfterStoppedDays = o.releaseAfterStoppedDays === undefined ? A.releaseAfterStoppedDays : zod.releaseAfterStoppedDays(o.releaseAfterStoppedDays);
  const spot = o.spot === undefined ? A.spot : zod.spot(o.spot);
  const freeQuotaHours = o.freeQuotaHours === undefined ? A.freeQuotaHours : zod.freeQuotaHours(o.freeQuotaHours);
  const warnings = o.warnings === undefined ? A.warnings : fastArray(o.warnings, checkWarning);
  const source = o.source === undefined ? A.source : checkSource(o.source);
  const asOf = o.asOf === undefined ? A.asOf : checkAsOf(o.asOf);
  const readAt = o.readAt === undefined ? A.readAt : checkReadAt(o.readAt);
  const note = o.note === undefined ? A.note : checkNote(o.note);
  const out = { id, name, kind, billingModes, prices, dataDisk, systemDisk, noGpuMode, stoppedBills, bandwidthMbps, rootAccess, queue, access, image, releaseAfterStoppedDays, spot, freeQuotaHours, warnings, source, asOf, readAt, note } satisfies {
    [K in keyof Shape]-?: unknown;
  };
  // prettier-ignore
  if (id === FAIL || name === FAIL || kind === FAIL || billingModes === FAIL || prices === FAIL || dataDisk === FAIL || systemDisk === FAIL || noGpuMode === FAIL || stoppedBills === FAIL || bandwidthMbps === FAIL || rootAccess === FAIL || queue === FAIL || access === FAIL || image === FAIL || releaseAfterStoppedDays === FAIL || spot === FAIL || freeQuotaHours === FAIL || warnings === FAIL || source === FAIL || asOf === FAIL || readAt === FAIL || note === FAIL) return undefined;
  return out as PlatformOut;
}

/** fastPlatform names every field of the schema (checked by the type above and by the test). */
export const FAST_PLATFORM_FIELDS: readonly string[] = Object.keys(fastPlatform({ id: 'a', name: { zh: 'a', en: 'a' }, billingModes: [], prices: [] }) ?? {});

const OVERRIDE_KEYS: ReadonlySet<string> = new Set(Object.keys(overrideJson.shape));

/** An override's top level as `overrideJson` checks it, bar its platforms (each checked on its own); undefined: ask zod. */
export function fastOverrideTop(v: unknown): { source?: string; asOf?: string } | undefined {
  const o = plainWith(v, OVERRIDE_KEYS);
  if (!o) return undefined;
  const { source, asOf, platforms } = o;
  if (platforms !== undefined && !Array.isArray(platforms)) return undefined;
  if (asOf !== undefined && !(typeof asOf === 'string' && ISO_DATE.test(asOf))) return undefined;
  if (source !== undefined && !str1(source)) return undefined;
  const out: { source?: string; asOf?: string } = {};
  if (source !== undefined) out.source = source as string;
  if (asOf !== undefined) out.asOf = asOf;
  return out;
}

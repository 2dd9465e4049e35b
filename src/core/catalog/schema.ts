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

/**
 * What the guards need to know about a platform beyond the fields above (core/guards/facts.ts
 * reads it; a platform without it gets the cautious default, refined by its other fields).
 */
export const guardFactsJson = z.strictObject({
  /** AutoDL-style no-GPU mode: the box keeps running (and reachable) without a card at a low rate. */
  noGpuMode: z.boolean(),
  /** Stopping ends the compute charge. False on the big clouds' pay-as-you-go instances. */
  stopEndsComputeBilling: z.boolean(),
  /** The data disk survives a stop. False on 秘塔智算, where a shutdown clears it. */
  stopKeepsData: z.boolean(),
  releaseRules: z
    .array(
      z.discriminatedUnion('kind', [
        /** Released, data and all, after this many consecutive days shut down (AutoDL: 15). */
        z.strictObject({ kind: z.literal('releaseAfterStoppedDays'), days: z.number().int().min(1).max(BOUNDS.days.max), warnFromDay: z.number().int().min(1).max(BOUNDS.days.max) }),
        /** Stopping keeps a free snapshot for this many hours only (矩池云: 24). */
        z.strictObject({ kind: z.literal('freeSnapshotHours'), hours: z.number().int().min(1).max(BOUNDS.hours.max) }),
      ]),
    )
    .max(4),
  /** Beijing hours [fromHour, toHour) and the typical wait for a card then, seconds [min, max]. */
  eveningQueue: z.strictObject({ fromHour: z.number().int().min(0).max(23), toHour: z.number().int().min(0).max(23), waitSeconds: z.tuple([z.number().min(0).max(BOUNDS.minutes.max * 60), z.number().min(0).max(BOUNDS.minutes.max * 60)]) }).nullable(),
  /** How the platform tells a spot instance it is about to be reclaimed, if it does. */
  spotReclaimNotice: z.enum(['aliyunMetadata']).nullable(),
  /** Seconds between the reclaim notice and the reclaim (阿里云: about 5 minutes). */
  spotNoticeSeconds: z.number().int().min(0).max(86_400).nullable(),
});
export type GuardFactsJson = z.output<typeof guardFactsJson>;

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
  /** Other names users write for it (揽睿星舟, 秘塔, …); the guards' facts are found by them too. */
  aliases: z.array(z.string().min(1).max(40)).max(20).optional(),
  guardFacts: guardFactsJson.optional(),
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

// The catalog's JSON shape (what the built-in data and a user's `--catalog FILE` are written
// in: yuan, as people quote them) and its zod schemas. index.ts turns it into fen.
import { z } from 'zod';

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

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected an ISO date YYYY-MM-DD');
const nonNeg = z.number().finite().nonnegative();
/** A price or figure: one value, or the report's [min, max] range. */
export const amountJson = z.union(
  [nonNeg, z.tuple([nonNeg, nonNeg]).refine(([a, b]) => a <= b, 'range must be [min, max] with min ≤ max')],
  { error: 'expected a number ≥ 0 (yuan) or a [min, max] pair' },
);
export type AmountJson = z.infer<typeof amountJson>;

const provenance = {
  source: z.string().min(1).optional(),
  /** null: the figure's date is not known (a user entry without a date). */
  asOf: isoDate.nullable().optional(),
  note: z.string().optional(),
};

export const priceJson = z.strictObject({
  card: z.string().min(1),
  mode: z.enum(BILLING_MODES),
  /** Yuan per GPU for one period of `mode`; null = the report names the option but gives no number. */
  yuan: amountJson.nullable(),
  ...provenance,
});

const sourcedAmount = z.strictObject({ value: amountJson.nullable(), ...provenance });

export const platformJson = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'expected a lowercase ascii id like "autodl"'),
  name: z.strictObject({ zh: z.string().min(1), en: z.string().min(1) }),
  kind: z.enum(PLATFORM_KINDS).default('personal'),
  billingModes: z.array(z.enum(BILLING_MODES)),
  prices: z.array(priceJson),
  dataDisk: z
    .strictObject({ yuanPerGbDay: amountJson.nullable(), bundled: z.boolean().default(false), ...provenance })
    .default({ yuanPerGbDay: null, bundled: false }),
  systemDisk: z.enum(SYSTEM_DISK).default('unknown'),
  noGpuMode: z
    .strictObject({ support: z.enum(NO_GPU_SUPPORT), yuanPerHour: amountJson.nullable().default(null), ...provenance })
    .default({ support: 'unknown', yuanPerHour: null }),
  stoppedBills: z.enum(STOPPED_BILLS).default('unknown'),
  bandwidthMbps: sourcedAmount.default({ value: null }),
  rootAccess: z.boolean().nullable().default(null),
  queue: z
    .strictObject({
      level: z.enum(QUEUE_LEVELS),
      peakHours: z.string().optional(),
      waitMinutes: amountJson.optional(),
      worstMinutes: nonNeg.optional(),
      ...provenance,
    })
    .default({ level: 'unknown' }),
  access: z
    .strictObject({ enterpriseVerification: z.boolean().default(false), minRentalDays: nonNeg.nullable().default(null), ...provenance })
    .default({ enterpriseVerification: false, minRentalDays: null }),
  image: z.strictObject({ quality: z.enum(IMAGE_QUALITY), customImageSave: z.boolean().nullable().default(null), ...provenance }).default({ quality: 'unknown', customImageSave: null }),
  releaseAfterStoppedDays: sourcedAmount.optional(),
  spot: z.strictObject({ discount: z.number().finite().min(0).max(0.95), reclaimable: z.boolean().default(true), ...provenance }).nullable().default(null),
  freeQuotaHours: sourcedAmount.optional(),
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

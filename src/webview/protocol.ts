// The calculator's message protocol, both directions. Every message is a strict zod object:
// the host safeParses what the webview posts and drops what fails, and the webview does the
// same with what the host posts. Requests carry an id that the reply echoes.
import { z } from 'zod';
import { BOUNDS, boundSchema, orZero, type Bound } from '../core/bounds';
import { DEFAULT_JOB } from '../core/job-defaults';
import { MAX_PLACES } from '../core/startNow';

const MAX_TEXT = 200;
const name = z.string().min(1).max(MAX_TEXT);
const requestId = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const LOCALES = ['en', 'zh-cn'] as const;
export type Locale = (typeof LOCALES)[number];

/** Maps VS Code's `env.language` to a locale the calculator has strings for. */
export function toLocale(language: string | undefined): Locale {
  return typeof language === 'string' && language.toLowerCase().startsWith('zh') ? 'zh-cn' : 'en';
}

export const SORT_KEYS = ['platform', 'total', 'gpu', 'storage', 'other', 'hours'] as const;

/**
 * The form's number fields, each one of core's bounds (the CLI's quote flags read the same).
 * The form checks them inline and the protocol below is built from them, so the two agree.
 * Steps and seconds per step hold 0 while the job is given in hours.
 */
export const FIELD_BOUNDS = {
  gpuHours: BOUNDS.hours,
  steps: orZero(BOUNDS.steps),
  secondsPerStep: orZero(BOUNDS.secPerStep),
  gpus: BOUNDS.gpus,
  storageGb: BOUNDS.gb,
  vramGb: BOUNDS.vramGb,
  days: BOUNDS.days,
  idleHours: BOUNDS.hours,
  downloadGb: BOUNDS.gb,
} as const satisfies Record<string, Bound>;
export type NumField = keyof typeof FIELD_BOUNDS;

const field = (k: NumField) => boundSchema(FIELD_BOUNDS[k]);

/** The quote form. */
export const CalculatorInputsSchema = z.strictObject({
  card: z.string().max(MAX_TEXT),
  workMode: z.enum(['hours', 'steps']),
  gpuHours: field('gpuHours'),
  steps: field('steps'),
  secondsPerStep: field('secondsPerStep'),
  gpus: field('gpus'),
  storageGb: field('storageGb'),
  days: field('days'),
  idleHours: field('idleHours'),
  downloadGb: field('downloadGb'),
  /** VRAM the job needs per card, GB (absent in state saved before it existed: the default job's). */
  vramGb: field('vramGb').optional(),
  spot: z.boolean(),
  platforms: z.array(name).max(50),
  sort: z.strictObject({ key: z.enum(SORT_KEYS), descending: z.boolean() }),
  /** From my runs (issue 42): the job one of the user's runs did, its hours measured on its card (other cards estimated). Dropped when the job is edited. */
  measured: z.strictObject({ run: name, at: z.number().int().min(0).max(1e11), card: name, gpuHours: boundSchema(BOUNDS.jobHours) }).optional(),
});
export type CalculatorInputs = z.infer<typeof CalculatorInputsSchema>;

/** One of the user's finished runs as the calculator offers it (core/ledger/compare.ts calculatorRuns). */
export const MyRunSchema = z.strictObject({
  id: z.string().regex(/^r-\d{8}-\d{6}-[0-9a-f]{4,16}$/),
  name,
  card: name,
  gpus: boundSchema(BOUNDS.gpus),
  steps: boundSchema(BOUNDS.steps),
  secondsPerStep: boundSchema(BOUNDS.secPerStep),
  /** GPU hours the whole job took on its card (the measured wall hours × the multi-GPU speed-up). */
  gpuHours: boundSchema(BOUNDS.jobHours),
  endedAt: z.number().int().min(0).max(1e11),
});
export type MyRun = z.infer<typeof MyRunSchema>;
export const MAX_MY_RUNS = 50;

/**
 * A prefill (an instance's card, GPUs and disk; a scripted openCalculator argument) as fields
 * the form accepts: each field outside its bound, or not a field, is left out, so one stored
 * value past BOUNDS (an older instance with 16 GPUs) does not make the page drop the message.
 */
export function prefillInputs(raw: unknown): Partial<CalculatorInputs> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, schema] of Object.entries(CalculatorInputsSchema.shape)) {
    if (!Object.prototype.hasOwnProperty.call(raw, k)) continue;
    const r = (schema as z.ZodType).safeParse((raw as Record<string, unknown>)[k]);
    if (r.success) out[k] = r.data;
  }
  return out as Partial<CalculatorInputs>;
}

/** What the panel serializer keeps across reloads. */
export const CalculatorStateSchema = z.strictObject({ version: z.literal(1), inputs: CalculatorInputsSchema });
export type CalculatorState = z.infer<typeof CalculatorStateSchema>;

export const DEFAULT_INPUTS: CalculatorInputs = {
  card: 'RTX 3090',
  workMode: 'hours',
  gpuHours: DEFAULT_JOB.gpuHours,
  steps: 0,
  secondsPerStep: 0,
  gpus: 1,
  storageGb: DEFAULT_JOB.storageGb,
  days: 1,
  idleHours: 0,
  downloadGb: 0,
  vramGb: DEFAULT_JOB.vramGb,
  spot: false,
  platforms: [],
  sort: { key: 'total', descending: false },
};

// Catalog overrides are user settings (JSON); keep them JSON-shaped and bounded in size.
const MAX_OVERRIDE_CHARS = 256 * 1024;
const jsonObject = z
  .record(z.string().max(MAX_TEXT), z.unknown())
  .refine((v) => {
    try {
      return JSON.stringify(v).length <= MAX_OVERRIDE_CHARS;
    } catch {
      return false;
    }
  }, 'catalog override too large or not JSON');

/** The most rows one stock question names (platform × card × GPUs the table shows). */
export const MAX_STOCK_KEYS = 200;

const StockKeySchema = z.strictObject({ platform: name, card: name, gpus: z.number().int().min(BOUNDS.gpus.min).max(BOUNDS.gpus.max) });
export type StockKey = z.infer<typeof StockKeySchema>;

const fen = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const FreePlaceSchema = z.strictObject({
  account: name,
  region: name,
  zone: name.optional(),
  instanceType: name.optional(),
  free: z.number().int().min(0).max(1_000_000).optional(),
  priceFenPerHour: fen.optional(),
});
const StartNowSchema = z.discriminatedUnion('state', [
  z.strictObject({ state: z.literal('free'), places: z.array(FreePlaceSchema).min(1).max(MAX_PLACES) }),
  z.strictObject({ state: z.literal('none') }),
  z.strictObject({ state: z.literal('unknown'), reason: z.enum(['noAccount', 'readFailed', 'notListed']) }),
]);
const StartNowMarkSchema = z.strictObject({ key: StockKeySchema, mark: StartNowSchema });
export type StartNowMark = z.infer<typeof StartNowMarkSchema>;

/** Host → webview. */
export const HostMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('init'),
    /** Echoes the `ready` request's id. */
    requestId,
    locale: z.enum(LOCALES),
    catalogOverride: jsonObject,
    /** Inputs to show: the restored state, or a prefill from a command. */
    inputs: CalculatorInputsSchema.optional(),
    /** Epoch seconds; for price-age warnings. */
    now: z.number().int().min(0),
  }),
  z.strictObject({ type: z.literal('setInputs'), inputs: CalculatorInputsSchema.partial() }),
  z.strictObject({ type: z.literal('catalogChanged'), catalogOverride: jsonObject }),
  /** The answer to `stockWanted` (same id): core/startNow's result per row, nothing else of the accounts. */
  z.strictObject({ type: z.literal('startNow'), requestId, marks: z.array(StartNowMarkSchema).max(MAX_STOCK_KEYS) }),
  /** Whether the extension has accounts whose free cards it can read (the page asks only then). */
  z.strictObject({ type: z.literal('stockAvailable'), available: z.boolean() }),
  /** The user's finished runs the calculator can price (From my runs), newest first. */
  z.strictObject({ type: z.literal('myRuns'), runs: z.array(MyRunSchema).max(MAX_MY_RUNS) }),
]);
export type HostMessage = z.infer<typeof HostMessageSchema>;

/** Webview → host. */
export const WebviewMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready'), requestId }),
  /** After every recompute: what the e2e test and the log see (no secrets exist here). */
  z.strictObject({
    type: z.literal('computed'),
    inputs: CalculatorInputsSchema,
    rows: z.number().int().min(0).max(1000),
    cheapest: z.string().max(MAX_TEXT).optional(),
    cheapestTotalFen: z.number().int().min(0).optional(),
  }),
  z.strictObject({ type: z.literal('openSettings'), key: z.enum(['gpuRent.catalog.overrides']) }),
  /** Which rows can start now? Asked while the page is shown, again each minute; the host reads each account at most once a minute. */
  z.strictObject({ type: z.literal('stockWanted'), requestId, rows: z.array(StockKeySchema).min(1).max(MAX_STOCK_KEYS) }),
  z.strictObject({ type: z.literal('error'), message: z.string().max(2000) }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessageSchema>;

/** Drops anything that is not exactly a known message; never throws. */
export function parseWebviewMessage(raw: unknown): WebviewMessage | undefined {
  const r = WebviewMessageSchema.safeParse(raw);
  return r.success ? r.data : undefined;
}

export function parseHostMessage(raw: unknown): HostMessage | undefined {
  const r = HostMessageSchema.safeParse(raw);
  return r.success ? r.data : undefined;
}

/** Restored panel state, or the defaults when it is missing or from an older shape. */
export function restoreState(raw: unknown): CalculatorState {
  const r = CalculatorStateSchema.safeParse(raw);
  return r.success ? r.data : { version: 1, inputs: DEFAULT_INPUTS };
}

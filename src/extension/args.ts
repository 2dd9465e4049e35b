// Arguments for driving commands without UI (`executeCommand(id, args)`): tests and other
// extensions pass the answers the prompts would ask for. Strict zod objects: unknown keys and
// wrong types are refused with a message naming the field. Money is in yuan here, as users
// type it; it becomes fen at once.
import { z } from 'zod';
import { BOUNDS, boundSchema } from '../core/bounds';
import { DESCRIPTORS, PLATFORM_KINDS } from '../core/platforms/descriptors';

/** Every descriptor's secret field, bounded by the longest any kind allows (the kind's own schema checks it after). */
function secretArgs(): Record<string, z.ZodOptional<z.ZodString>> {
  const max = new Map<string, number>();
  for (const f of DESCRIPTORS.flatMap((d) => d.secrets)) max.set(f.field, Math.max(max.get(f.field) ?? 0, f.maxLength));
  return Object.fromEntries([...max].map(([f, n]) => [f, z.string().min(1).max(n).optional()]));
}
import { BILLING_MODES, INSTANCE_STATES, normalizeBillingMode, type BillingMode, type InstanceState } from '../core/spend';

// Prices and sizes take core's bounds (the calculator and the CLI read the same): a rate is for the whole instance.
export const INSTANCE_PRICE_BOUNDS = { hourlyRate: BOUNDS.instanceYuanPerHour, spotRate: BOUNDS.instanceYuanPerHour, noGpuModeRate: BOUNDS.noGpuYuanPerHour, storageGbDay: BOUNDS.yuanPerGbDay } as const;
const price = (k: keyof typeof INSTANCE_PRICE_BOUNDS) => boundSchema(INSTANCE_PRICE_BOUNDS[k]);
const gpuCount = boundSchema(BOUNDS.gpus);
const dataDiskGb = boundSchema(BOUNDS.gb);
const id = z.string().min(1).max(64);

export const AddInstanceArgs = z.strictObject({
  name: z.string().min(1).max(120).optional(),
  /** The platform's login command (`ssh -p 12345 root@host`), `user@host:port`, or a ~/.ssh/config Host. */
  login: z.string().min(1).max(2000),
  password: z.string().max(1000).optional(),
  keyPath: z.string().min(1).max(4096).optional(),
  platform: z.string().min(1).max(64),
  card: z.string().min(1).max(120),
  gpuCount: gpuCount.default(1),
  /** hour | day | week | month (the older hourly | daily | weekly | monthly still read). */
  billingMode: z.preprocess(normalizeBillingMode, z.enum(BILLING_MODES as [BillingMode, ...BillingMode[]])).default('hour'),
  /** Yuan per hour for the whole instance; default from the catalog. */
  hourlyRate: price('hourlyRate').optional(),
  spotRate: price('spotRate').optional(),
  noGpuModeRate: price('noGpuModeRate').optional(),
  storageGbDay: price('storageGbDay').optional(),
  dataDiskGb: dataDiskGb.default(0),
  state: z.enum(INSTANCE_STATES as [InstanceState, ...InstanceState[]]).default('running'),
});
export type AddInstanceArgs = z.infer<typeof AddInstanceArgs>;

export const EditInstanceArgs = z.strictObject({
  id,
  name: z.string().min(1).max(120).optional(),
  platform: z.string().min(1).max(64).optional(),
  card: z.string().min(1).max(120).optional(),
  gpuCount: gpuCount.optional(),
  billingMode: z.preprocess(normalizeBillingMode, z.enum(BILLING_MODES as [BillingMode, ...BillingMode[]])).optional(),
  hourlyRate: price('hourlyRate').optional(),
  spotRate: price('spotRate').optional(),
  noGpuModeRate: price('noGpuModeRate').optional(),
  storageGbDay: price('storageGbDay').optional(),
  dataDiskGb: dataDiskGb.optional(),
  /** The checkpoint folder on the box and the local folder it syncs into (relative to the workspace, or absolute). */
  syncRemoteDir: z.string().min(2).max(4096).regex(/^\/[^\n\0]*$/, 'must be an absolute path on the box').refine((d) => !d.split('/').includes('..'), 'may not contain ".."').optional(),
  syncLocalDir: z.string().min(1).max(4096).regex(/^[^\n\0]*$/, 'must be one line').optional(),
});

export const UpdateLoginArgs = z.strictObject({ id, login: z.string().min(1).max(2000), password: z.string().max(1000).optional() });
export const SwitchStateArgs = z.strictObject({ id, state: z.enum(INSTANCE_STATES as [InstanceState, ...InstanceState[]]) });
export const ReleaseArgs = z.strictObject({ id, /** Proceed even when checkpoints on the box are not yet synced. */ discardUnsynced: z.boolean().default(false), skipCheck: z.boolean().default(false), acceptNewHostKey: z.boolean().optional() });
export const RemoveArgs = z.strictObject({ id, confirm: z.literal(true) });
export const PathArgs = z.strictObject({ path: z.string().min(1).max(4096) });
export const StartTrainingArgs = z.strictObject({
  id,
  command: z.string().min(1).max(4000),
  cwd: z.string().max(4096).optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).max(128), z.string().max(4000)).optional(),
  /** Expected hours; used for the spot warning. */
  expectedHours: boundSchema(BOUNDS.hours).optional(),
  /** Confirms a long job on a spot instance without a dialog. */
  acceptSpotRisk: z.boolean().default(false),
  acceptNewHostKey: z.boolean().optional(),
  /** What happens when it ends (default: the gpuRent.training.endAction setting). */
  then: z.enum(['nothing', 'sync', 'sync-then-no-gpu', 'sync-then-power-off']).optional(),
});
export const SyncArgs = z.strictObject({
  id,
  remoteDir: z.string().min(2).max(4096).regex(/^\/[^\n\0]*$/, 'must be an absolute path on the box').refine((d) => !d.split('/').includes('..'), 'may not contain ".."').optional(),
  localDir: z.string().min(1).max(4096).regex(/^[^\n\0]*$/, 'must be one line').optional(),
  /** Add the local folder to the work tree's .gitignore when it is inside one (scripts say it; the UI asks). */
  addToGitignore: z.boolean().optional(),
  acceptNewHostKey: z.boolean().optional(),
});
export const WatchArgs = z.strictObject({ id, acceptNewHostKey: z.boolean().optional() });
export const JobsArgs = z.strictObject({ id, jobId: z.string().min(1).max(200).optional(), follow: z.boolean().default(false), acceptNewHostKey: z.boolean().optional() });
export const InstanceArgs = z.strictObject({ id, acceptNewHostKey: z.boolean().optional() });
export const RemoteSshArgs = z.strictObject({ id, /** Write the Host block without asking (scripts). */ confirm: z.literal(true), open: z.boolean().default(true), acceptNewHostKey: z.boolean().optional() });
export const CheckGpuArgs = z.strictObject({ id, quiet: z.boolean().optional(), acceptNewHostKey: z.boolean().optional() });

export const AddPlatformAccountArgs = z.strictObject({
  /** Not `kind`: an argument with `kind` is taken for a tree node. */
  platform: z.enum(PLATFORM_KINDS),
  label: z.string().min(1).max(120).optional(),
  region: z.string().regex(/^[a-z0-9-]{2,40}$/).optional(),
  /** Each descriptor's secret fields (token, accessKeyId, secretKey, …), read by field name. */
  ...(secretArgs() as Record<never, z.ZodOptional<z.ZodString>>),
  /** Accepts the experimental console-token connector. */
  experimental: z.boolean().optional(),
});
export const RemovePlatformAccountArgs = z.strictObject({ account: z.string().min(1).max(64), confirm: z.literal(true) });
export const PlatformPowerArgs = z.strictObject({
  id,
  mode: z.enum(['gpu', 'noGpu', 'keep', 'stopCharging']).optional(),
  /** Confirms the price per hour without a dialog (scripts). */
  confirm: z.literal(true),
  /** Release: proceed even when checkpoints on the box are not synced. */
  discardUnsynced: z.boolean().optional(),
  acceptNewHostKey: z.boolean().optional(),
  /** How long to wait for the platform to report the new state (default 300 s). */
  waitSeconds: z.number().int().min(1).max(1800).optional(),
});

/** A tree node, a bare id, or `{ id }`: every instance command accepts any of these. */
export function instanceIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object' && 'id' in arg && typeof (arg as { id: unknown }).id === 'string') return (arg as { id: string }).id;
  if (arg && typeof arg === 'object' && 'instanceId' in arg && typeof (arg as { instanceId: unknown }).instanceId === 'string') return (arg as { instanceId: string }).instanceId;
  return undefined;
}

/** "field: problem" for the first zod issue. */
export function describeArgsError(e: z.ZodError): string {
  const i = e.issues[0];
  return i ? `${i.path.join('.') || '(arguments)'}: ${i.message}` : 'invalid arguments';
}

const boxDir = z
  .string()
  .min(2)
  .max(4096)
  .regex(/^\/[^\n\0]*$/, 'must be an absolute path on the box')
  .refine((d) => !d.split('/').includes('..'), 'may not contain ".."');

/** Upload to memory only: local files or folders into a RAM folder on the box. */
export const UploadToMemoryArgs = z.strictObject({
  id,
  paths: z.array(z.string().min(1).max(4096)).min(1).max(1000),
  dir: boxDir.optional(),
  acceptNewHostKey: z.boolean().optional(),
});
export const WipeMemoryArgs = z.strictObject({ id, dir: boxDir.optional(), acceptNewHostKey: z.boolean().optional() });
export const ScanSecretsArgs = z.strictObject({ path: z.string().min(1).max(4096) });
export const CaptureEnvironmentArgs = z.strictObject({ id, acceptNewHostKey: z.boolean().optional() });
export const RebuildEnvironmentArgs = z.strictObject({
  id,
  /** A capture folder (gpu-rent-env.json, from either front end), or its JSON file; `snapshotPath` is the older name. */
  capturePath: z.string().min(1).max(4096).optional(),
  snapshotPath: z.string().min(1).max(4096).optional(),
  /** The user agreed to pip option lines (e.g. --extra-index-url) in the requirements. */
  allowPipOptions: z.boolean().optional(),
  envName: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, ".", "_" and "-", starting with a letter or digit, at most 64'),
  acceptNewHostKey: z.boolean().optional(),
});
export const InstallWatchdogArgs = z.strictObject({
  id,
  /** none: hook only (logged); shutdown: power off from inside the box; command: actionCommand. */
  action: z.enum(['none', 'shutdown', 'command']),
  actionCommand: z.string().min(1).max(4000).optional(),
  /** Final checkpoint sync on the box, run before the action. */
  hookCommand: z.string().min(1).max(4000).optional(),
  hookTimeoutSeconds: z.number().int().min(1).max(86_400).default(1800),
  windowSeconds: z.number().int().min(0).max(7 * 86_400).optional(),
  thresholdPct: z.number().int().min(1).max(100).optional(),
  pollSeconds: z.number().int().min(1).max(3600).default(60),
  actionIfHookFails: z.boolean().default(false),
  /** Watch 阿里云's spot termination notice and run the hook when a reclaim is announced. */
  spot: z.boolean().optional(),
  acceptNewHostKey: z.boolean().optional(),
});
export const WatchdogArgs = z.strictObject({ id, acceptNewHostKey: z.boolean().optional() });

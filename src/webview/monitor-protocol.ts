// The GPU monitor's message protocol, both directions, as strict zod objects (the calculator's
// rules: the host safeParses what the page posts, the page what the host posts; the page posts
// `ready` first and the host's `init` echoes its request id).
import { z } from 'zod';
import { LOCALES } from './protocol';
import { GPU_VALUE_RANGES, MAX_GPUS } from '../core/progress/gpu';

const requestId = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const n = z.number().finite();
const ranged = (r: { min: number; max: number }) => z.number().finite().min(r.min).max(r.max).nullable();
const R = GPU_VALUE_RANGES;
/** [gpu index, t (epoch s), util %, mem used MiB, mem total MiB, power W, temp °C], each in its physical range. */
export const SampleTuple = z.tuple([z.number().int().min(0).max(MAX_GPUS - 1), n, ranged(R.util), ranged(R.memUsed), ranged(R.memTotal), ranged(R.power), ranged(R.temp)]);
/** The longest window the page draws, and so the most samples it is ever sent: one per GPU per second. */
export const MAX_MONITOR_WINDOW_SECONDS = 3600;
export const MAX_MONITOR_SAMPLES = MAX_GPUS * (MAX_MONITOR_WINDOW_SECONDS + 1);
/** One `samples` message: a stream chunk's kept samples (one per GPU and second), with room for a few seconds' backlog. */
export const MAX_SAMPLES_PER_MESSAGE = MAX_GPUS * 64;
export type SampleTuple = z.infer<typeof SampleTuple>;
const LossPoint = z.strictObject({ step: n, loss: n });
/** Where the loss was NaN/±Inf (from the first such step to the latest): the page marks it on the curve. */
const DivergedSpan = z.strictObject({ from: n, to: n, value: z.enum(['nan', 'inf', '-inf']), readings: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER), current: z.boolean() });
export const MAX_DIVERGED_SPANS_SENT = 50;
export type DivergedSpanMessage = z.infer<typeof DivergedSpan>;

export const MonitorHostMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('init'),
    requestId,
    locale: z.enum(LOCALES),
    instanceId: z.string().max(64),
    instanceName: z.string().max(200),
    windowSeconds: z.number().int().min(60).max(MAX_MONITOR_WINDOW_SECONDS),
    computeFenPerHour: z.number().min(0).max(1e9),
    samples: z.array(SampleTuple).max(MAX_MONITOR_SAMPLES),
    loss: z.array(LossPoint).max(5000),
    idleSeconds: z.number().finite().min(0),
    state: z.enum(['streaming', 'reconnecting', 'stopped']),
    now: n,
  }),
  z.strictObject({ type: z.literal('samples'), samples: z.array(SampleTuple).max(MAX_SAMPLES_PER_MESSAGE), idleSeconds: z.number().finite().min(0), now: n }),
  z.strictObject({ type: z.literal('loss'), loss: z.array(LossPoint).max(5000), job: z.string().max(200), diverged: z.array(DivergedSpan).max(MAX_DIVERGED_SPANS_SENT).optional() }),
  z.strictObject({ type: z.literal('state'), state: z.enum(['streaming', 'reconnecting', 'stopped']), reason: z.string().max(500).optional() }),
]);
export type MonitorHostMessage = z.infer<typeof MonitorHostMessageSchema>;

export const MonitorWebviewMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready'), requestId }),
  z.strictObject({ type: z.literal('error'), message: z.string().max(2000) }),
]);
export type MonitorWebviewMessage = z.infer<typeof MonitorWebviewMessageSchema>;

export function parseMonitorWebviewMessage(raw: unknown): MonitorWebviewMessage | undefined {
  const r = MonitorWebviewMessageSchema.safeParse(raw);
  return r.success ? r.data : undefined;
}

export function parseMonitorHostMessage(raw: unknown): MonitorHostMessage | undefined {
  const r = MonitorHostMessageSchema.safeParse(raw);
  return r.success ? r.data : undefined;
}

/**
 * The run's NaN/Inf stretches for the page: by step where the log gave steps, else placed after
 * the last finite point (the curve does not just stop; the page draws the stretch beside it).
 */
export function divergedSpansOf(
  spans: readonly { value: DivergedSpanMessage['value']; from: number | null; to: number | null; readings: number; since: number }[],
  current: { since: number; step: number | null } | null,
  lastCurveStep: number | null,
): DivergedSpanMessage[] {
  const out: DivergedSpanMessage[] = [];
  for (const s of spans.slice(-MAX_DIVERGED_SPANS_SENT)) {
    const from = s.from ?? s.to ?? lastCurveStep ?? 0;
    const to = Math.max(from, s.to ?? from);
    if (!Number.isFinite(from) || !Number.isFinite(to)) continue;
    const isCurrent = current !== null && current.since === s.since && current.step === s.from;
    out.push({ from, to, value: s.value, readings: Math.max(1, Math.floor(s.readings)), current: isCurrent });
  }
  return out;
}

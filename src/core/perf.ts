// Performance model: how long a job takes on another card, multi-GPU scaling, whether a model
// fits in VRAM, and the memory-bandwidth ceiling on generation speed. Sizes in bytes
// (decimal GB = 1e9 bytes, as the report counts "7B fp16 ≈ 14GB"); card VRAM is GiB.
import { findCard, type CardSpec } from './cards';

/** The report's benchmark card: every default job is stated in 3090 hours. */
export const REFERENCE_CARD = 'rtx3090';

/**
 * The report's one multi-GPU measurement: 2×4090 with DeepSpeed ZeRO-2 over PCIe ran about
 * 1.6× one card (§3). As a linear rule that is 0.6 of a card per extra card; kept for callers
 * that pass their own per-card efficiency.
 */
export const MULTI_GPU_EFFICIENCY = 0.6;
/** The measured speed-up of two cards over one (§3). */
export const MEASURED_TWO_GPU_SPEEDUP = 1.6;
/** Card counts up to this are the report's measurement; beyond it the speed-up is an estimate. */
export const MEASURED_MAX_GPUS = 2;
/**
 * Beyond two cards: each doubling of cards multiplies speed by the measured 1.6 (speed-up =
 * n^log2(1.6) = n^0.678): 4 cards 2.56×, 8 cards 4.1×. Over PCIe the all-reduce traffic per
 * step stays the same while each card's compute share shrinks, so every doubling pays the same
 * communication toll again; the report's 4-card PCIe instances "lose badly" (性能损失严重, §5).
 * The efficiency per extra card falls: 0.6 (2), 0.52 (4), 0.44 (8).
 */
export const MULTI_GPU_EXPONENT = Math.log2(MEASURED_TWO_GPU_SPEEDUP);

export const GB = 1e9;
export const GIB = 1024 ** 3;

/**
 * Speed of `to` relative to `from` from dense FP16 TFLOPS (an estimate). For the report's
 * cards this is 82.6 / 35.6 = 2.32×, which matches its per-step times (3090 ~20 s/step,
 * 4090 ~9 s/step = 2.2×). The report's wall-clock 15 h vs "under 5 h" (3×) is faster than
 * both; estimates stay with the TFLOPS ratio rather than promise that. Null when a card has
 * no comparable FP16 figure (Ascend).
 */
export function relativeSpeed(from: CardSpec, to: CardSpec): number | null {
  if (from.id === to.id) return 1;
  if (from.fp16Tflops === null || to.fp16Tflops === null || from.fp16Tflops <= 0) return null;
  return to.fp16Tflops / from.fp16Tflops;
}

/**
 * Speed of `gpus` cards relative to one. Without `efficiency`: the report's 1.6× for two
 * cards, n^log2(1.6) beyond (see MULTI_GPU_EXPONENT). With an explicit per-card
 * `efficiency`: 1 + (gpus − 1) × efficiency (the renter's own measurement).
 */
export function multiGpuSpeedup(gpus: number, efficiency?: number): number {
  const n = Math.max(1, Math.floor(Number.isFinite(gpus) ? gpus : 1));
  if (efficiency === undefined) return n === 2 ? MEASURED_TWO_GPU_SPEEDUP : n ** MULTI_GPU_EXPONENT;
  const e = Number.isFinite(efficiency) ? Math.min(1, Math.max(0, efficiency)) : MULTI_GPU_EFFICIENCY;
  return 1 + (n - 1) * e;
}

/** Whether `gpus` cards go beyond what the report measured (the speed-up is then an estimate). */
export function beyondMeasuredGpus(gpus: number): boolean {
  return gpus > MEASURED_MAX_GPUS;
}

export interface WallTime {
  /** Wall-clock hours on `gpus` cards of `card`. */
  hours: number;
  /** True when derived from specs rather than the hours the user gave for that card. */
  estimated: boolean;
}

/** Wall-clock hours for a job that takes `refHours` on one `refCard`, run on `gpus` × `card`. */
export function jobWallHours(refHours: number, refCard: CardSpec, card: CardSpec, gpus = 1, efficiency?: number): WallTime | null {
  const speed = relativeSpeed(refCard, card);
  if (speed === null || speed <= 0) return null;
  const hours = refHours / speed / multiGpuSpeedup(gpus, efficiency);
  return { hours: Number.isFinite(hours) && hours > 0 ? hours : 0, estimated: refCard.id !== card.id || gpus > 1 };
}

/** The report's one job measured on two cards (ChatGLM3-6B LoRA, 3 epochs): hours on one card. */
export const REPORT_MEASURED_HOURS: Readonly<Record<string, number>> = { rtx3090: 15, rtx4090: 5 };

/**
 * The same job's hours on another card, as `gpu-rent quote` counts them: the report's job (its
 * measured hours on `from`) takes its measured hours on `to` (15 h on a 3090 is 5 h on a 4090,
 * 3×); any other job is scaled by the FP16 estimate (relativeSpeed, 2.32× for 3090 → 4090).
 * Null when no estimate exists (a card without an FP16 figure).
 */
export function hoursOnCard(hours: number, from: CardSpec, to: CardSpec, measured: Readonly<Record<string, number>> = REPORT_MEASURED_HOURS): { hours: number; speed: number; measured: boolean } | null {
  if (!(hours >= 0) || !Number.isFinite(hours)) return null;
  if (from.id === to.id) return { hours, speed: 1, measured: true };
  const a = measured[from.id];
  const b = measured[to.id];
  const isMeasuredJob = a !== undefined && b !== undefined && a > 0 && b > 0 && Math.abs(hours - a) < 1e-9;
  const speed = isMeasuredJob ? a / b : relativeSpeed(from, to);
  if (speed === null || !(speed > 0)) return null;
  return { hours: isMeasuredJob ? b : hours / speed, speed, measured: isMeasuredJob };
}

/** Hours from a step count and measured seconds per step. */
export function hoursFromSteps(steps: number, secPerStep: number): number {
  const h = (steps * secPerStep) / 3600;
  return Number.isFinite(h) && h > 0 ? h : 0;
}

export type Precision = 'fp32' | 'fp16' | 'bf16' | 'int8' | 'int4';
export const BYTES_PER_PARAM: Record<Precision, number> = { fp32: 4, fp16: 2, bf16: 2, int8: 1, int4: 0.5 };

/** Parameter counts outside (0, 1e6 billion] are not models: treated as 0. */
function paramCount(paramsBillions: number): number {
  return Number.isFinite(paramsBillions) && paramsBillions > 0 && paramsBillions <= 1e6 ? paramsBillions * 1e9 : 0;
}

/** Weights only: 7B in fp16 ≈ 14 GB. */
export function weightsBytes(paramsBillions: number, precision: Precision): number {
  return paramCount(paramsBillions) * BYTES_PER_PARAM[precision];
}

export type TrainMethod = 'inference' | 'lora' | 'qlora' | 'full';

/**
 * Bytes per parameter by method. full: mixed-precision Adam (fp16 weights 2 + grads 2 + fp32
 * master 4 + two Adam moments 8 = 16). lora: fp16 frozen base + ~0.1 B/param for adapters and
 * their optimizer state. qlora: 4-bit base (0.5) + quantization constants and adapters (~0.1).
 */
const METHOD_BYTES: Record<TrainMethod, (p: Precision) => number> = {
  inference: (p) => BYTES_PER_PARAM[p],
  lora: (p) => BYTES_PER_PARAM[p] + 0.1,
  qlora: () => BYTES_PER_PARAM.int4 + 0.1,
  full: () => 16,
};

export interface VramNeed {
  weightsBytes: number;
  /** Gradients, optimizer state, adapters: the method's overhead beyond the weights. */
  trainingStateBytes: number;
  activationBytes: number;
  /** CUDA context and allocator slack. */
  runtimeBytes: number;
  totalBytes: number;
}

export interface VramNeedInput {
  paramsBillions: number;
  method: TrainMethod;
  /** Weights' precision (qlora is always 4-bit). Default fp16. */
  precision?: Precision;
  /**
   * Activations depend on batch and sequence length; give them when known. The report's
   * ChatGLM3-6B 4-bit LoRA at batch 4, sequence 2048 used 20–22 GB in all on a 3090 (§3).
   */
  activationGb?: number;
  /** Default 1 GB. */
  runtimeGb?: number;
}

export function vramNeed(input: VramNeedInput): VramNeed {
  const precision = input.method === 'qlora' ? 'int4' : (input.precision ?? 'fp16');
  const params = paramCount(input.paramsBillions);
  const w = params * BYTES_PER_PARAM[precision];
  const all = params * METHOD_BYTES[input.method](precision);
  const gb = (x: number | undefined, dflt: number) => (x !== undefined && Number.isFinite(x) && x >= 0 && x <= 1e9 ? x : dflt) * GB;
  const act = gb(input.activationGb, 0);
  const rt = gb(input.runtimeGb, 1);
  return { weightsBytes: w, trainingStateBytes: all - w, activationBytes: act, runtimeBytes: rt, totalBytes: all + act + rt };
}

export interface VramFit {
  fits: boolean;
  needBytes: number;
  haveBytes: number;
  /** have − need (negative when it does not fit). */
  headroomBytes: number;
}

/** Whether `need` fits on one card (data-parallel GPUs each hold a full copy). */
export function vramFit(card: CardSpec, needBytes: number): VramFit {
  const have = card.vramGb * GIB;
  return { fits: needBytes <= have, needBytes, haveBytes: have, headroomBytes: have - needBytes };
}

/**
 * Upper bound on batch-1 generation speed: each token reads every weight once, so tokens/s ≤
 * memory bandwidth / weight bytes. Real speed is lower (the report measured ChatGLM3-6B fp16
 * at 12–15 tok/s on a 3090 and 25–30 on a 4090).
 */
export function tokensPerSecondCeiling(card: CardSpec, paramsBillions: number, precision: Precision = 'fp16'): number {
  const bytes = weightsBytes(paramsBillions, precision);
  if (bytes <= 0) return 0;
  const t = (card.memoryBandwidthGBs * GB) / bytes;
  return Number.isFinite(t) ? t : 0;
}

/** Convenience for callers holding a name: resolves it with findCard. */
export function cardOrThrow(name: string): CardSpec {
  const c = findCard(name);
  if (!c) throw new Error(`unknown card "${name}"`);
  return c;
}

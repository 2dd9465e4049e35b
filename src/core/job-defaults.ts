// The job priced when nobody says otherwise: `gpu-rent quote` with no flags and the calculator's
// first form. One place, so both front ends quote the same job and warn on the same VRAM.
import { REFERENCE_CARD, REPORT_MEASURED_HOURS } from './perf';

/** The report's LoRA job (§3): ChatGLM3-6B, 3 epochs on a 3090 ≈ 15 h, 20–22 GB VRAM, 24 GB of files (§2). */
export const DEFAULT_JOB = { gpuHours: 15, refCard: REFERENCE_CARD, storageGb: 24, vramGb: 22 } as const;

/** The report measured this job on two cards: 15 h on a 3090, 5 h on a 4090 (§3). */
export const DEFAULT_JOB_MEASURED_HOURS: Readonly<Record<string, number>> = REPORT_MEASURED_HOURS;

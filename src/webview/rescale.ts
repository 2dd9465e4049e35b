// When the calculator's card changes, the job stays the same job: its GPU hours (or seconds per
// step) are rescaled by the new card's speed, as `gpu-rent quote` counts it (core/perf
// hoursOnCard: the report's job by its measured hours, 15 h on a 3090 = 5 h on a 4090; any
// other job by the FP16 estimate). Pure, so the rule is unit-tested outside the page.
import { findCard, type CardSpec } from '../core/cards';
import { hoursFromSteps, hoursOnCard } from '../core/perf';
import type { CalculatorInputs } from './protocol';

export interface Rescale {
  fromCard: string;
  toCard: string;
  fromHours: number;
  toHours: number;
  /** By the report's measured hours (else the FP16 estimate). */
  measured: boolean;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The inputs for `toCard`, with the job's size moved to it; `rescale` says what changed (absent: nothing could be scaled). */
export function inputsForCard(inputs: CalculatorInputs, toCard: string, cards: readonly CardSpec[]): { inputs: CalculatorInputs; rescale?: Rescale } {
  const from = findCard(inputs.card, cards);
  const to = findCard(toCard, cards);
  const next = { ...inputs, card: toCard };
  if (!from || !to || from.id === to.id) return { inputs: next };
  const hours = inputs.workMode === 'hours' ? inputs.gpuHours : hoursFromSteps(inputs.steps, inputs.secondsPerStep);
  if (!(hours > 0)) return { inputs: next };
  const r = hoursOnCard(hours, from, to);
  if (!r) return { inputs: next };
  const rescale = { fromCard: from.id, toCard: to.id, fromHours: hours, toHours: r.hours, measured: r.measured };
  if (inputs.workMode === 'hours') return { inputs: { ...next, gpuHours: round2(r.hours) }, rescale };
  return { inputs: { ...next, secondsPerStep: round2((inputs.secondsPerStep * r.hours) / hours) }, rescale };
}

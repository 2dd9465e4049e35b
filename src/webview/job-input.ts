// The calculator form as core's JobInput: the same job `gpu-rent quote` prices, with the VRAM it
// needs per card (so a card with less is noted "vramShort", as the CLI notes it). Pure, unit-tested.
import type { JobInput } from '../core/cost';
import { DEFAULT_JOB } from '../core/job-defaults';
import { hoursFromSteps } from '../core/perf';
import type { CalculatorInputs } from './protocol';

export function jobInputFor(inputs: CalculatorInputs): JobInput {
  // From my runs: the job is the one measured on the run's card; another card picked is that job scaled by relative speed (estimated).
  const m = inputs.measured;
  return {
    gpuHours: m ? m.gpuHours : inputs.workMode === 'hours' ? inputs.gpuHours : hoursFromSteps(inputs.steps, inputs.secondsPerStep),
    refCard: m ? m.card : inputs.card,
    cards: [inputs.card],
    ...(inputs.platforms.length ? { platforms: inputs.platforms } : {}),
    gpus: inputs.gpus,
    storageGb: inputs.storageGb,
    days: inputs.days,
    idleHours: inputs.idleHours,
    downloadGb: inputs.downloadGb,
    includeSpot: inputs.spot,
    vramNeededGb: inputs.vramGb ?? DEFAULT_JOB.vramGb,
    // From my runs: the run's card prices its measured hours; the others scale by relative speed.
    ...(inputs.measured ? { measuredHours: { [inputs.measured.card]: inputs.measured.gpuHours } } : {}),
  };
}

// The GPU monitor's latest reading of each GPU, per instance: written by the monitor's stream
// (one nvidia-smi channel, while its panel shows), read by the Instances view's GPU rows, which
// show it instead of the last Check GPU's figure when it is newer (a 0 % from the check while
// the run is at 95 % would mislead). Owned by activate(); no event: the rows of a billing
// instance are redrawn by the figures tick every few seconds anyway.
import { MAX_GPUS, type TimedSample } from '../../core/progress/gpu';

export class LiveGpus {
  private readonly byInstance = new Map<string, Map<number, TimedSample>>();

  /** Keeps the newest sample of each GPU (at most MAX_GPUS per instance). */
  record(instanceId: string, samples: readonly TimedSample[]): void {
    let m = this.byInstance.get(instanceId);
    for (const s of samples) {
      if (!m) this.byInstance.set(instanceId, (m = new Map()));
      const cur = m.get(s.index);
      if (cur && cur.t >= s.t) continue;
      if (!cur && m.size >= MAX_GPUS) continue;
      m.set(s.index, s);
    }
  }

  latest(instanceId: string): ReadonlyMap<number, TimedSample> | undefined {
    return this.byInstance.get(instanceId);
  }

  forget(instanceId: string): void {
    this.byInstance.delete(instanceId);
  }
}

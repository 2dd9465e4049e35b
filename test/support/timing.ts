// CPU time of a synchronous call, best of `runs`: what the code itself costs. Wall-clock bounds
// in tests measure the neighbours on a loaded machine (CI runs beside other jobs); this does not.
export function bestCpuMs(fn: () => unknown, runs = 3): number {
  let best = Number.POSITIVE_INFINITY;
  for (let k = 0; k < runs; k++) {
    const c0 = process.cpuUsage();
    fn();
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1000);
  }
  return best;
}

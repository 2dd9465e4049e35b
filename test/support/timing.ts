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

/**
 * Waits until `ok()` holds, polling every `everyMs`; fails naming `what` after `ms`. For a
 * negative check, wait for the event that ends the window (a log line, a close), never a
 * fixed sleep.
 */
export async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 20000, everyMs = 20): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

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
 * Waits until `ok()` holds, polling every `everyMs`; fails naming `what` after `ms`, with
 * `detail()` (what was last seen: a process's output, a state) when given. For a negative
 * check, wait for the event that ends the window (a log line, a close), never a fixed sleep.
 * The one polling loop of the tests: build on it (`untilValue`) rather than writing another.
 */
export async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 20000, everyMs = 20, detail?: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${detail ? `: ${detail()}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Reads `get()` until `ok(value)` holds and returns that value (read first at once, then every
 * `everyMs`); fails naming `what` and the last value read (`show`, JSON by default) after `ms`.
 */
export async function untilValue<T>(
  what: string,
  get: () => T | Promise<T>,
  ok: (v: T) => boolean,
  opts: { ms?: number; everyMs?: number; show?: (v: T) => string } = {},
): Promise<T> {
  let last: { v: T } | undefined;
  const show = opts.show ?? ((v: T) => JSON.stringify(v) ?? String(v));
  await until(what, async () => ok((last = { v: await get() }).v), opts.ms ?? 20000, opts.everyMs ?? 20, () => (last ? show(last.v) : 'nothing read'));
  return last!.v;
}

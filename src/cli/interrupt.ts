// Ctrl-C for the commands that must stop cleanly (push, sync, launch, power-on --wait-for-gpu):
// the first signal says what stops and aborts the work's signal; where asked, a second one leaves
// at once with exit 130. While one is armed, main.ts's own SIGINT handler steps aside. Exit 130
// for the interrupted run stays the command's return value, so main prints its --json error.

export interface Interrupt {
  signal: AbortSignal;
  /** Aborts the work without a signal (e.g. a scan no longer wanted after a failed login). */
  abort: () => void;
  /** Takes the handlers off: call it in a `finally`. */
  done: () => void;
}

export function onInterrupt(opts: { onFirst?: () => void; secondExits?: boolean; sigterm?: boolean } = {}): Interrupt {
  const ac = new AbortController();
  const handler = () => {
    if (ac.signal.aborted && opts.secondExits) process.exit(130);
    opts.onFirst?.();
    ac.abort();
  };
  process.on('SIGINT', handler);
  if (opts.sigterm) process.on('SIGTERM', handler);
  return {
    signal: ac.signal,
    abort: () => ac.abort(),
    done: () => {
      process.off('SIGINT', handler);
      if (opts.sigterm) process.off('SIGTERM', handler);
    },
  };
}

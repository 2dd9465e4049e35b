// The one sleep of the remote layer. It never rejects: it resolves true when the time has
// passed and false when the signal aborted first, so each caller decides what a cancel means
// (the connection throws 'aborted', the sync loops simply stop).

export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, Math.max(0, ms));
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

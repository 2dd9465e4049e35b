// Waiting for the first of several events, each listener removed whichever comes.

interface Emitter {
  once(event: string, fn: () => void): unknown;
  off(event: string, fn: () => void): unknown;
}

/** Resolves on the first of `events` that `emitter` emits ('drain' or 'close'; SIGINT or SIGTERM), all its listeners removed. */
export function firstOf(emitter: Emitter, events: readonly string[]): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      for (const e of events) emitter.off(e, done);
      resolve();
    };
    for (const e of events) emitter.once(e, done);
  });
}

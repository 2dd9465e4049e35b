// One bounded worker pool for every "this many at once" in the code (SFTP listings, platform
// regions, accounts, a sync's or a push's files): `fn` on each item, at most `limit` at a time,
// started in item order. After the first failure, or once `stop()` says so, no new item
// starts; the ones in flight finish, then that failure is thrown (so nothing runs on after the
// caller has moved on).

/**
 * Runs `fn` on each item, at most `limit` at once. `stop` is asked before each start; once it
 * is true nothing new starts. Resolves with how many items were started (fewer than
 * `items.length` when stopped); rejects with the first failure once the others in flight end.
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>, stop?: () => boolean): Promise<{ started: number }> {
  let next = 0;
  let failure: { e: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length && !stop?.()) {
      const k = next++;
      try {
        await fn(items[k]!, k);
      } catch (e) {
        failure ??= { e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(Math.floor(limit), items.length)) }, worker));
  if (failure) throw failure.e;
  return { started: next };
}

/** `fn` on each item, at most `limit` at a time, results in item order (see forEachLimited). */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  await forEachLimited(items, limit, async (item, k) => {
    out[k] = await fn(item);
  });
  return out;
}

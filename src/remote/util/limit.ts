// One bounded worker pool for every "this many at once" in the code (SFTP listings, platform
// regions, accounts): `fn` on each item, at most `limit` at a time, results in item order.
// After the first failure no new item starts; the ones in flight finish, then that failure is
// thrown (so nothing runs on after the caller has moved on).

export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failure: { e: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const k = next++;
      try {
        out[k] = await fn(items[k]!);
      } catch (e) {
        failure ??= { e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(Math.floor(limit), items.length)) }, worker));
  if (failure) throw failure.e;
  return out;
}

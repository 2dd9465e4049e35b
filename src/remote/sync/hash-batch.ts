// SHA-256 on the box. Whole-file hashes are batched: requests made while an exec is running
// join the next one, so pulling a thousand small files costs a handful of commands, not a
// thousand. Prefix hashes (to trust a resumed .part) go one at a time.
import { batchHashScript, hashScript, parseBatchHashOutput, parseHashOutput, type HashAnswer } from './remote-hash';
import type { SyncRemote } from './types';

/** Hashing reads the whole file on the box: allow a slow data disk (50 MB/s) plus a minute. */
const hashTimeoutMs = (bytes: number) => 60_000 + Math.ceil(bytes / 50_000);

/** The hash of the first `prefix` bytes (or the whole file); both undefined when the box could not say. */
export async function remoteHash(remote: SyncRemote, path: string, size: number, prefix?: number): Promise<HashAnswer> {
  const req = prefix === undefined ? { path } : { path, prefix };
  try {
    const r = await remote.exec(hashScript(req), { timeoutMs: hashTimeoutMs(size), login: false });
    return parseHashOutput(r.stdout, req);
  } catch {
    return { full: undefined, prefix: undefined };
  }
}

export class HashBatcher {
  private queue: Array<{ path: string; size: number; resolve: (a: HashAnswer) => void }> = [];
  private running = 0;
  private scheduled = false;
  constructor(
    private readonly remote: SyncRemote,
    private readonly maxRunning = 2,
    private readonly maxBatch = 256,
  ) {}

  full(path: string, size: number): Promise<HashAnswer> {
    return new Promise((resolve) => {
      this.queue.push({ path, size, resolve });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump(): void {
    while (this.running < this.maxRunning && this.queue.length) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.running++;
      const bytes = batch.reduce((n, r) => n + r.size, 0);
      this.remote
        .exec(batchHashScript(batch.map((r) => r.path)), { timeoutMs: hashTimeoutMs(bytes), login: false })
        .then(
          (r) => parseBatchHashOutput(r.stdout, batch.length),
          () => batch.map(() => undefined),
        )
        .then((answers) => {
          batch.forEach((req, i) => req.resolve({ full: answers[i], prefix: undefined }));
          this.running--;
          this.pump();
        });
    }
  }
}

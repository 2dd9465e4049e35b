// Reads a training log incrementally: only the bytes after the last offset, at most
// `maxBytesPerRead` per read, in one exec that also reports the file's size, mtime and the box's
// clock. The first read of a long log starts near its end. A log that shrank (rotated, or the
// job restarted under the same name) is read again from its start.
import { ProgressTracker, type Progress } from '../../core/progress';
import type { RemoteConnection } from '../../remote/connection';
import { shQuote } from '../../remote/shell';

export interface TailChunk {
  /** Bytes read, as UTF-8 (an incomplete last character waits for the next read). */
  text: string;
  /** Byte offset the chunk started at. */
  from: number;
  /** Byte offset after the chunk (the next read starts here). */
  to: number;
  /** Log size on the box when read; -1 when the file is missing. */
  size: number;
  /** The log's mtime and the box's clock, epoch seconds. */
  mtime: number | null;
  boxNow: number | null;
  /** The file was shorter than the offset: read again from the start. */
  reset: boolean;
}

const HEADER = 'GR_TAIL';
export const DEFAULT_MAX_BYTES_PER_READ = 1024 * 1024;
/** The first look at a log reads at most this much of its end. */
export const DEFAULT_FIRST_READ_BYTES = 2 * 1024 * 1024;

/** The length of the longest prefix of `b` that ends on a whole UTF-8 character. */
export function completeUtf8Length(b: Buffer): number {
  let i = b.length - 1;
  let back = 0;
  while (i >= 0 && back < 4 && (b[i]! & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return b.length;
  const lead = b[i]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > back + 1 ? i : b.length;
}

/** One bounded read of `path` from byte `offset` (negative: the last -offset bytes). */
export async function readTail(conn: RemoteConnection, path: string, offset: number, maxBytes = DEFAULT_MAX_BYTES_PER_READ, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<TailChunk> {
  const max = Math.max(1, Math.floor(maxBytes));
  const off = Math.floor(offset);
  const script = [
    `f=${shQuote(path)}`,
    's=$(stat -c %s "$f" 2>/dev/null || echo -1); m=$(stat -c %Y "$f" 2>/dev/null || echo -)',
    `o=${off}; r=0`,
    'if [ "$o" -lt 0 ]; then o=$((s + o)); [ "$o" -lt 0 ] && o=0; fi',
    'if [ "$s" -ge 0 ] && [ "$s" -lt "$o" ]; then o=0; r=1; fi',
    `n=$((s - o)); [ "$n" -gt ${max} ] && n=${max}; [ "$n" -lt 0 ] && n=0`,
    `printf '${HEADER} %s %s %s %s %s %s\\n' "$s" "$m" "$(date +%s)" "$o" "$n" "$r"`,
    '[ "$n" -gt 0 ] && tail -c +$((o + 1)) "$f" 2>/dev/null | head -c "$n"',
    'exit 0',
  ].join('\n');
  const parts: Buffer[] = [];
  let bytes = 0;
  await conn.execStream(script, {
    login: false,
    signal: opts.signal,
    timeoutMs: opts.timeoutMs ?? 30000,
    onStdout: (c) => {
      // Never more than the header plus max bytes, whatever the box sends.
      if (bytes > max + 256) return;
      parts.push(c);
      bytes += c.length;
    },
  });
  const all = Buffer.concat(parts);
  const nl = all.indexOf(10);
  const head = (nl < 0 ? all.toString('utf8') : all.subarray(0, nl).toString('utf8')).split(' ');
  if (head[0] !== HEADER) return { text: '', from: Math.max(0, off), to: Math.max(0, off), size: -1, mtime: null, boxNow: null, reset: false };
  const num = (s: string | undefined) => (s !== undefined && /^-?\d+$/.test(s) ? Number(s) : null);
  const size = num(head[1]) ?? -1;
  const from = num(head[4]) ?? 0;
  const n = num(head[5]) ?? 0;
  const body = nl < 0 ? Buffer.alloc(0) : all.subarray(nl + 1, nl + 1 + n);
  const keep = body.length < n ? body.length : completeUtf8Length(body);
  return { text: body.subarray(0, keep).toString('utf8'), from, to: from + keep, size, mtime: num(head[2]), boxNow: num(head[3]), reset: head[6] === '1' };
}

export interface TailUpdate {
  progress: Progress;
  chunk: TailChunk;
  changed: boolean;
}

/** A log followed by offset, with the progress read from it so far. */
export class LogTail {
  private offset: number | null = null;
  private tracker: ProgressTracker;
  /** Bytes read over this tail's life (the benchmark checks only new bytes are read). */
  bytesRead = 0;
  boxNow: number | null = null;

  constructor(
    readonly path: string,
    /** pattern: the task file's `progress:` (checked by core/progress/userPattern), read on every line first. */
    private readonly opts: { maxBytesPerRead?: number; firstReadBytes?: number; pattern?: RegExp | null } = {},
  ) {
    this.tracker = new ProgressTracker({ pattern: opts.pattern ?? null });
  }

  get progress(): Progress {
    return this.tracker.progress;
  }

  /** Reads what was appended since the last call (up to `maxReads` bounded reads) and folds it in. */
  async update(conn: RemoteConnection, opts: { maxReads?: number; signal?: AbortSignal } = {}): Promise<TailUpdate> {
    const max = this.opts.maxBytesPerRead ?? DEFAULT_MAX_BYTES_PER_READ;
    let changed = false;
    let chunk: TailChunk | undefined;
    for (let i = 0; i < (opts.maxReads ?? 4); i++) {
      chunk = await readTail(conn, this.path, this.offset ?? -(this.opts.firstReadBytes ?? DEFAULT_FIRST_READ_BYTES), max, { signal: opts.signal });
      this.boxNow = chunk.boxNow;
      if (chunk.reset) this.tracker = new ProgressTracker({ pattern: this.opts.pattern ?? null });
      this.offset = chunk.to;
      this.bytesRead += Buffer.byteLength(chunk.text);
      if (chunk.text && this.tracker.feed(chunk.text, chunk.mtime ?? chunk.boxNow ?? 0)) changed = true;
      if (chunk.size < 0 || chunk.to >= chunk.size || chunk.text === '') break;
    }
    return { progress: this.tracker.progress, chunk: chunk!, changed };
  }

  /** Feeds text read some other way (a follow stream) and moves the offset past it. */
  feed(text: string, now: number): boolean {
    this.offset = (this.offset ?? 0) + Buffer.byteLength(text);
    this.bytesRead += Buffer.byteLength(text);
    return this.tracker.feed(text, now);
  }

  get nextOffset(): number | null {
    return this.offset;
  }
}

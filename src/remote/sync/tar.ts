// A streaming reader for the tar stream the box's own `tar -c` writes (GNU and POSIX ustar,
// GNU long names, pax headers), for pulling many small files in one stream instead of a few
// SFTP round trips each. The box is not trusted: every header is checksummed, every size and
// name is bounded before anything is kept, and anything this reader does not know ends the
// stream with an error (the caller then pulls the rest file by file). Names are only ever
// compared with the names the caller asked for; none is used as a path.

export interface TarMember {
  /** Member name as tar wrote it (leading "/" already stripped by tar). */
  name: string;
  /** Typeflag: '0' regular file, '1' hard link, '2' symlink, '5' folder, … */
  type: string;
  size: number;
  /** Whole seconds. */
  mtime: number;
  /** The file's bytes (regular files only; empty otherwise). */
  data: Buffer;
}

export class TarError extends Error {
  constructor(message: string) {
    super(`the box's tar stream: ${message}`);
    this.name = 'TarError';
  }
}

export interface TarLimits {
  /** Largest member the caller will take (bigger: an error). */
  maxMemberBytes: number;
  /** Longest name (GNU long-name and pax records included). */
  maxNameBytes?: number;
}

const BLOCK = 512;

/** An octal (or GNU base-256) number field; undefined when it is neither. */
export function num(field: Buffer): number | undefined {
  if (field.length && (field[0]! & 0x80) !== 0) {
    if (field[0] !== 0x80) return undefined; // negative or too big for us
    let v = 0;
    for (let i = 1; i < field.length; i++) v = v * 256 + field[i]!;
    return Number.isSafeInteger(v) ? v : undefined;
  }
  // Octal digits, spaces before them, NULs or spaces after: read off the bytes (three fields a
  // header; through a string and two patterns this was a tenth of a 2000-file pull's parsing).
  let end = field.length;
  while (end > 0 && (field[end - 1] === 0 || field[end - 1] === 0x20)) end--;
  let i = 0;
  while (i < end && field[i] === 0x20) i++;
  if (i === end) return 0;
  if (end - i > 22) return undefined;
  let v = 0;
  for (; i < end; i++) {
    const d = field[i]! - 0x30;
    if (d < 0 || d > 7) return undefined;
    v = v * 8 + d;
  }
  return Number.isSafeInteger(v) ? v : undefined;
}

function str(field: Buffer): string {
  const nul = field.indexOf(0);
  return field.subarray(0, nul === -1 ? field.length : nul).toString('utf8');
}

function checksumOk(h: Buffer): boolean {
  const want = num(h.subarray(148, 156));
  if (want === undefined) return false;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return sum === want;
}

/** pax records: "LEN key=value\n" … ; only path, size and mtime are read. */
function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let off = 0;
  while (off < data.length) {
    const sp = data.indexOf(0x20, off);
    if (sp === -1 || sp - off > 12) throw new TarError('a pax header that does not parse');
    const len = Number(data.toString('latin1', off, sp));
    if (!Number.isSafeInteger(len) || len <= sp - off + 1 || off + len > data.length || data[off + len - 1] !== 0x0a) throw new TarError('a pax header that does not parse');
    const rec = data.toString('utf8', sp + 1, off + len - 1);
    const eq = rec.indexOf('=');
    if (eq > 0) out.set(rec.slice(0, eq), rec.slice(eq + 1));
    off += len;
  }
  return out;
}

/**
 * Feed it the stream with push(); it calls `onMember` for each member in order and throws a
 * TarError at the first thing it does not trust. end() checks the stream ended where a member
 * ended.
 */
export class TarReader {
  private pending: Buffer = Buffer.alloc(0);
  private header: { name: string; type: string; size: number; mtime: number } | undefined;
  private longName: string | undefined;
  private pax: Map<string, string> | undefined;
  private ended = false;
  private readonly maxName: number;

  constructor(
    private readonly onMember: (m: TarMember) => void,
    private readonly limits: TarLimits,
  ) {
    this.maxName = limits.maxNameBytes ?? 8192;
  }

  push(chunk: Buffer): void {
    if (this.ended) return; // after the end-of-archive blocks: padding, ignored
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let off = 0;
    for (;;) {
      if (!this.header) {
        if (this.pending.length - off < BLOCK) break;
        const h = this.pending.subarray(off, off + BLOCK);
        off += BLOCK;
        if (h.every((b) => b === 0)) {
          this.ended = true; // the end-of-archive block: what follows is padding
          this.pending = Buffer.alloc(0);
          return;
        }
        this.header = this.readHeader(h);
      }
      const need = Math.ceil(this.header.size / BLOCK) * BLOCK;
      if (this.pending.length - off < need) break;
      const data = this.pending.subarray(off, off + this.header.size);
      off += need;
      const hd = this.header;
      this.header = undefined;
      this.take(hd, data);
    }
    this.pending = off >= this.pending.length ? Buffer.alloc(0) : Buffer.from(this.pending.subarray(off));
  }

  end(): void {
    if (this.ended) return;
    if (this.header || this.pending.length) throw new TarError('it stopped in the middle of a member');
  }

  private readHeader(h: Buffer): { name: string; type: string; size: number; mtime: number } {
    if (!checksumOk(h)) throw new TarError('a header with a wrong checksum');
    const magic = h.toString('latin1', 257, 263);
    if (magic !== 'ustar\0' && magic !== 'ustar ') throw new TarError('not a ustar or GNU tar header');
    const type = String.fromCharCode(h[156]!) === '\0' ? '0' : String.fromCharCode(h[156]!);
    const size = num(h.subarray(124, 136));
    const mtime = num(h.subarray(136, 148));
    if (size === undefined || mtime === undefined) throw new TarError('a header whose size or time does not parse');
    const meta = type === 'L' || type === 'K' || type === 'x' || type === 'g';
    if (meta ? size > this.maxName : size > this.limits.maxMemberBytes) throw new TarError(`a member of ${size} bytes, more than asked for`);
    let name = str(h.subarray(0, 100));
    const prefix = magic === 'ustar\0' ? str(h.subarray(345, 500)) : '';
    if (prefix) name = `${prefix}/${name}`;
    return { name, type, size, mtime };
  }

  private take(h: { name: string; type: string; size: number; mtime: number }, data: Buffer): void {
    if (h.type === 'L') {
      this.longName = str(data);
      return;
    }
    if (h.type === 'x') {
      this.pax = paxRecords(data);
      return;
    }
    if (h.type === 'K' || h.type === 'g') return; // a link's long target, global pax: nothing we use
    const size = h.size;
    let { name, mtime } = h;
    if (this.longName !== undefined) name = this.longName;
    const pax = this.pax;
    if (pax) {
      const p = pax.get('path');
      if (p !== undefined) name = p;
      const s = pax.get('size');
      if (s !== undefined) {
        if (!/^\d{1,15}$/.test(s) || Number(s) !== size) throw new TarError('a pax size that differs from its header');
      }
      const m = pax.get('mtime');
      if (m !== undefined) {
        if (!/^\d{1,15}(\.\d+)?$/.test(m)) throw new TarError('a pax mtime that does not parse');
        mtime = Math.floor(Number(m));
      }
    }
    this.longName = undefined;
    this.pax = undefined;
    if (Buffer.byteLength(name) > this.maxName) throw new TarError('a name longer than any asked for');
    const regular = h.type === '0' || h.type === '7';
    this.onMember({ name, type: h.type, size, mtime, data: regular ? Buffer.from(data) : Buffer.alloc(0) });
  }
}

// `--catalog FILE`: reads a user's JSON overrides and merges them into the built-in catalog.
// Any problem is a UsageError (exit 2) naming the file and the JSON path. The file is read
// up to a size cap (BOUNDS.catalogFileBytes): a price list is kilobytes, and reading stops at
// the cap even for files that do not know their size (a pipe, /dev/zero).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { BOUNDS } from '../core/bounds';
import { builtinCatalog, mergeCatalog, type Catalog } from '../core/catalog';
import { UsageError } from './args';

const MAX_BYTES = BOUNDS.catalogFileBytes.max;

function whyUnreadable(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
}

/** The file's text, or a UsageError when it cannot be read or passes the size cap. */
export function readCatalogText(file: string, maxBytes = MAX_BYTES): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw new UsageError(`--catalog expects a readable JSON file: cannot read "${file}" (${whyUnreadable(err)})`);
  }
  const tooBig = () => new UsageError(`--catalog ${file}: larger than ${maxBytes / (1024 * 1024)} MiB; a price catalog is a few KB (split it, or keep only the platforms you use)`);
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new UsageError(`--catalog expects a readable JSON file: cannot read "${file}" (is a directory)`);
    if (st.isFile() && st.size > maxBytes) throw tooBig();
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.alloc(64 * 1024);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        throw new UsageError(`--catalog expects a readable JSON file: cannot read "${file}" (${whyUnreadable(err)})`);
      }
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw tooBig();
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export function loadCatalog(file: string | undefined): Catalog {
  const base = builtinCatalog();
  if (file === undefined) return base;
  const text = readCatalogText(file);
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new UsageError(`--catalog ${file}: not valid JSON (${msg.slice(0, 200)})`);
  }
  const r = mergeCatalog(base, json);
  if (!r.ok) {
    const first = r.errors[0]!;
    const more = r.errors.length > 1 ? ` (and ${r.errors.length - 1} more)` : '';
    throw new UsageError(`--catalog ${file}: ${first.path}: ${first.message}${more}`);
  }
  return r.catalog;
}

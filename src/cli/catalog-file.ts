// `--catalog FILE`: reads a user's JSON overrides and merges them into the built-in catalog.
// Any problem is a UsageError (exit 2) naming the file and the JSON path.
import { readFileSync } from 'node:fs';
import { builtinCatalog, mergeCatalog, type Catalog } from '../core/catalog';
import { UsageError } from './args';

export function loadCatalog(file: string | undefined): Catalog {
  const base = builtinCatalog();
  if (file === undefined) return base;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
    throw new UsageError(`--catalog expects a readable JSON file: cannot read "${file}" (${why})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new UsageError(`--catalog ${file}: not valid JSON (${msg})`);
  }
  const r = mergeCatalog(base, json);
  if (!r.ok) {
    const first = r.errors[0]!;
    const more = r.errors.length > 1 ? ` (and ${r.errors.length - 1} more)` : '';
    throw new UsageError(`--catalog ${file}: ${first.path}: ${first.message}${more}`);
  }
  return r.catalog;
}

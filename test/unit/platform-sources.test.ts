// Every platform fixture names its source: a JSON file in test/fixtures/platforms without a row
// in SOURCES.md's table (or a row whose source cell is empty) fails here, and so does a row for a
// file that no longer exists.
import * as assert from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(__dirname, '..', 'fixtures', 'platforms');

/** The table rows of SOURCES.md: file name → its source cell. */
export function sourceRows(markdown: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of markdown.split('\n')) {
    const m = /^\| `([^`|]+)` \|([^|]*)\|([^|]*)\|/.exec(line);
    if (m) rows.set(m[1]!, m[3]!.trim());
  }
  return rows;
}

describe('platform fixtures name their sources', () => {
  const md = readFileSync(join(DIR, 'SOURCES.md'), 'utf8');
  const rows = sourceRows(md);
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

  it('every fixture file has a SOURCES.md row with a source', () => {
    assert.ok(files.length >= 8, `fixtures found: ${files.join(', ')}`);
    const missing = files.filter((f) => !rows.has(f));
    assert.deepStrictEqual(missing, [], `fixtures without a SOURCES.md entry: ${missing.join(', ')}`);
    const empty = files.filter((f) => (rows.get(f) ?? '').length < 20);
    assert.deepStrictEqual(empty, [], `SOURCES.md rows without a source: ${empty.join(', ')}`);
  });

  it('no SOURCES.md row names a file that is not there', () => {
    const stale = [...rows.keys()].filter((f) => !files.includes(f));
    assert.deepStrictEqual(stale, []);
  });

  it('the check itself fails for a file with no row and for a row with no source', () => {
    const r = sourceRows('| `a.json` | AutoDL | the page, autodl.com/docs/x, shows it | y |\n| `b.json` | X |  | z |\n');
    assert.ok(r.has('a.json') && !r.has('c.json'));
    assert.strictEqual(r.get('b.json'), '');
  });

  it('the AutoDL Pro fixture is the documented example, byte for byte in meaning', () => {
    const shared = join(__dirname, '..', '..', '..', 'shared', 'platform-apis', 'autodl-pro-doc-examples.json');
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(shared, 'utf8'));
    } catch {
      return; // outside this workspace the shared copy is not there; the fixture stands alone
    }
    assert.deepStrictEqual(JSON.parse(readFileSync(join(DIR, 'autodl-pro-doc-examples.json'), 'utf8')), doc);
  });
});

// Every training-log fixture names its source in the SOURCES.md of test/fixtures/training-logs:
// the hand-written excerpts beside it by a row (they say they are imitations), the real
// captures under real/ by an index row whose URL is the one their own folder's table gives, and
// a file that is no capture at all (a hand-written expectation such as truth.json) only by a row
// of the "Expectations, not captures" table that gives its reason. Any other file fails.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', 'fixtures', 'training-logs');
const TOP = readFileSync(join(ROOT, 'SOURCES.md'), 'utf8');

/** What the top SOURCES.md says a fixture file is; `undocumented` fails. */
export type FixtureRole = { role: 'index' } | { role: 'excerpt' } | { role: 'capture'; url: string } | { role: 'expectation'; reason: string } | { role: 'undocumented' };

/** The expectation rows: file → reason (a row with a reason too short to say anything is none). */
export function expectationRows(markdown: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of markdown.split('\n')) {
    const m = /^\| ([^|\s]+) \| expectation \| ([^|]*) \|$/.exec(line);
    if (m && m[2]!.trim().length >= 20) rows.set(m[1]!, m[2]!.trim());
  }
  return rows;
}

/** The role of one file (its path relative to the training-logs folder, with /). */
export function fixtureRole(rel: string, markdown: string): FixtureRole {
  if (rel === 'SOURCES.md' || /^(?:real\/[^/]+|heldout5)\/SOURCES\.md$/.test(rel)) return { role: 'index' };
  const reason = expectationRows(markdown).get(rel);
  if (reason) return { role: 'expectation', reason };
  if (!rel.endsWith('.log')) return { role: 'undocumented' };
  const url = markdown.split('\n').find((l) => l.startsWith(`| ${rel} | https://`))?.split(' | ')[1];
  if (url) return { role: 'capture', url };
  const named = new Set([...markdown.matchAll(/^\| ([^|\n]+) \|/gm)].flatMap((m) => m[1]!.split(',').map((n) => n.trim())));
  return !rel.includes('/') && named.has(rel) ? { role: 'excerpt' } : { role: 'undocumented' };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [relative(ROOT, join(dir, e.name)).split('\\').join('/')]));
}

describe('training-log fixtures: sources', () => {
  it('each hand-written excerpt has a row in the top SOURCES.md', () => {
    // A row's first cell names one file or several (`generic-epoch-step.log, generic-step.log`).
    const named = new Set([...TOP.matchAll(/^\| ([^|\n]+) \|/gm)].flatMap((m) => m[1]!.split(',').map((n) => n.trim())));
    for (const f of readdirSync(ROOT).filter((n) => n.endsWith('.log'))) assert.ok(named.has(f), `${f} has no row`);
  });

  for (const sub of ['real/progress', 'real/failures']) {
    it(`each file in ${sub} is indexed in the top SOURCES.md with the URL its folder's table gives`, () => {
      const own = readFileSync(join(ROOT, sub, 'SOURCES.md'), 'utf8');
      const files = readdirSync(join(ROOT, sub)).filter((n) => n.endsWith('.log'));
      assert.ok(files.length >= 40, `${files.length} files`);
      for (const f of files) {
        const url = new RegExp(`^\\| ${f.replace(/\./g, '\\.')} \\|[^\\n]*?(https://\\S+)`, 'm').exec(own)?.[1];
        assert.ok(url, `${sub}/${f} has no row with a URL in ${sub}/SOURCES.md`);
        assert.ok(TOP.includes(`| ${sub}/${f} | ${url} |`), `${sub}/${f} is not indexed with ${url}`);
      }
    });
  }

  describe('every file is documented: a capture, an excerpt, an index, or an expectation with its reason', () => {
    const files = filesUnder(ROOT);
    it('no file is undocumented', () => {
      const undocumented = files.filter((f) => fixtureRole(f, TOP).role === 'undocumented');
      assert.deepStrictEqual(undocumented, [], `files in test/fixtures/training-logs with no row in its SOURCES.md: ${undocumented.join(', ')}`);
    });
    for (const f of files) {
      const r = fixtureRole(f, TOP);
      if (r.role === 'expectation') it(`${f} is allowed as an expectation, not a capture: ${r.reason}`, () => assert.ok(r.reason.length >= 20));
    }

    it('the rule fails an undocumented file, an expectation row without a reason, and a .log named nowhere', () => {
      const md = '| real/progress/truth.json | expectation | hand-written expected results, read from the text |\n| real/x/other.json | expectation |  |\n| real/progress/a.log | https://github.com/o/r/issues/1 |\n| generic.log | hand-written |\n';
      assert.deepStrictEqual(fixtureRole('real/progress/truth.json', md), { role: 'expectation', reason: 'hand-written expected results, read from the text' });
      assert.deepStrictEqual(['real/failures/truth.json', 'real/x/other.json', 'real/progress/b.log', 'real/progress/notes.txt', 'other.log'].map((f) => fixtureRole(f, md).role), ['undocumented', 'undocumented', 'undocumented', 'undocumented', 'undocumented']);
      assert.deepStrictEqual(['real/progress/a.log', 'generic.log', 'SOURCES.md', 'real/failures/SOURCES.md'].map((f) => fixtureRole(f, md).role), ['capture', 'excerpt', 'index', 'index']);
    });
  });
});

// Every training-log fixture names its source in the SOURCES.md of test/fixtures/training-logs:
// the hand-written excerpts beside it by a row (they say they are imitations), the real
// captures under real/ by an index row whose URL is the one their own folder's table gives.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', 'fixtures', 'training-logs');
const TOP = readFileSync(join(ROOT, 'SOURCES.md'), 'utf8');

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
});

// The general reader on held-out set 5 (test/fixtures/training-logs/heldout5, issue 40): real excerpts
// from threads the reader was not written from. `dev/` was read while the reader was generalised and
// is read right in every field; `aside/` was set aside before and is scored, not tuned to
// (test/support/scoreHeldout.ts prints both scores and, with VERBOSE=1, each miss).
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { HELDOUT5, scoreFolder, scoreLine } from '../support/scoreHeldout';

describe('progress on held-out set 5', () => {
  it('every excerpt has a SOURCES.md row with its URL (or the issue it quotes) and a truth', () => {
    const sources = readFileSync(join(HELDOUT5, 'SOURCES.md'), 'utf8');
    let n = 0;
    for (const sub of ['aside', 'dev']) {
      const truth = JSON.parse(readFileSync(join(HELDOUT5, sub, 'truth.json'), 'utf8')) as Record<string, unknown>;
      const files = readdirSync(join(HELDOUT5, sub)).filter((f) => f.endsWith('.log'));
      assert.deepEqual(Object.keys(truth).sort(), files.sort(), `${sub}: truth.json names exactly the files`);
      for (const f of files) {
        assert.match(sources, new RegExp(`\\| ${sub}/${f.replace(/\./g, '\\.')} \\| (?:https://github\\.com/\\S+/(?:issues|pull)/\\d+|gpu-rent issue 40) \\|`), `${sub}/${f}`);
        n++;
      }
    }
    assert.ok(n >= 60, `${n} excerpts`);
  });

  it('dev: every step, total, loss and epoch read as a careful reader reads it, none invented', () => {
    const s = scoreFolder(join(HELDOUT5, 'dev'));
    for (const k of ['step', 'total', 'loss', 'epoch'] as const) {
      assert.deepEqual(s[k].misses, [], `${k}: ${scoreLine(s)}`);
      assert.equal(s[k].right, s[k].of);
    }
  });

  it('dev: the end causes (Paddle OOM, CPU-only torch, an NCCL tail of C++ frames)', () => {
    const s = scoreFolder(join(HELDOUT5, 'dev'));
    assert.deepEqual(s.causes.misses, []);
  });
});

// Progress on real training output (test/fixtures/training-logs/real/progress: excerpts pasted in
// public issue threads, each with its source in SOURCES.md): every file, fed whole and fed in
// random chunk sizes, gives the step, total, epoch and loss a careful reader gets at its end
// (truth.json, written by reading the text). A file without a SOURCES.md row or a truth entry fails.
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ProgressTracker, progressOf, type Progress } from '../../src/core/progress';

const DIR = resolve(__dirname, '..', 'fixtures', 'training-logs', 'real', 'progress');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.log')).sort();
const SOURCES = readFileSync(join(DIR, 'SOURCES.md'), 'utf8');

interface Truth {
  step: number | null;
  total: number | null;
  epoch: number | null;
  epochTotal: number | null;
  /** A number, "nan" for a diverged run at the end, or null where no loss is printed. */
  loss: number | 'nan' | null;
  scope?: 'run' | 'epoch';
}
const TRUTH = JSON.parse(readFileSync(join(DIR, 'truth.json'), 'utf8')) as Record<string, Truth>;

function check(p: Progress, t: Truth, what: string): void {
  const got = { step: p.step, total: p.total, epoch: p.epoch, epochTotal: p.epochTotal };
  assert.deepEqual(got, { step: t.step, total: t.total, epoch: t.epoch, epochTotal: t.epochTotal }, what);
  if (t.loss === 'nan') {
    assert.equal(p.diverged?.value, 'nan', `${what}: diverged`);
  } else {
    assert.equal(p.diverged, null, `${what}: not diverged`);
    assert.equal(p.loss, t.loss, `${what}: loss`);
  }
  if (t.scope) assert.equal(p.scope, t.scope, `${what}: scope`);
}

/** A seeded generator, so a failure names chunk sizes that reproduce it. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('progress on real training output', () => {
  it('the collection: at least 60 excerpts from at least 15 repositories, each with a source row and a truth', () => {
    assert.ok(FILES.length >= 60, `${FILES.length} excerpts`);
    for (const f of FILES) {
      assert.ok(SOURCES.includes(`| ${f} | https://github.com/`), `${f} has no SOURCES.md row with its URL`);
      assert.ok(TRUTH[f], `${f} has no truth.json entry`);
    }
    for (const f of Object.keys(TRUTH)) assert.ok(FILES.includes(f), `truth.json names ${f}, which is not here`);
    const repos = new Set([...SOURCES.matchAll(/\| https:\/\/github\.com\/([^/\s]+\/[^/\s]+)\//g)].map((m) => m[1]));
    assert.ok(repos.size >= 15, `${repos.size} repositories`);
  });

  for (const f of FILES) {
    it(`${f}: whole and in random chunks`, () => {
      const t = TRUTH[f]!;
      const text = readFileSync(join(DIR, f), 'utf8');
      check(progressOf(text, 1000), t, `${f} whole`);
      const next = rng(f.length * 7919 + text.length);
      for (let round = 0; round < 4; round++) {
        const tracker = new ProgressTracker();
        const sizes: number[] = [];
        for (let i = 0; i < text.length; ) {
          const n = 1 + Math.floor(next() * (round === 0 ? 8 : 400));
          sizes.push(n);
          tracker.feed(text.slice(i, i + n), 1000);
          i += n;
        }
        check(tracker.progress, t, `${f} in chunks ${sizes.slice(0, 12).join(',')}…`);
      }
    });
  }

  it('a bar redrawn in place (the unfinished line read again when it ends) is one loss reading, not two', () => {
    const t = new ProgressTracker();
    const bar = 'steps:   1%|▋         | 41/3280 [00:50<1:06:54,  1.24s/it, avr_loss=nan]';
    t.feed(bar.slice(0, 30), 1);
    t.feed(bar.slice(30), 2);
    assert.equal(t.progress.diverged?.readings, 1);
    t.feed('\n', 3);
    assert.equal(t.progress.diverged?.readings, 1, 'the line end re-reads the same bar');
    t.feed(bar.replace('41/3280', '42/3280') + '\n', 4);
    assert.equal(t.progress.diverged?.readings, 2);
  });
});

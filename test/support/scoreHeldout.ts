// Scores the reader on a held-out folder of real excerpts (test/fixtures/training-logs/heldout5/{aside,dev,fresh,fresh2,fresh3,fresh4,fresh5/aside,fresh5/dev,fresh6}):
// per field, how many excerpts whose truth names a value get exactly that value, and how many
// invent one where the truth says the log prints none. `npx tsx test/support/scoreHeldout.ts [aside|dev|fresh|…|fresh5]`
// (a folder without its own truth.json, like fresh5, is scored part by part).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { detectCause, progressOf, type Progress } from '../../src/core/progress';

export interface HeldoutTruth {
  step?: number | null;
  total?: number | null;
  loss?: number | 'nan' | null;
  epoch?: number | null;
  epochTotal?: number | null;
  cause?: string;
}

export interface FieldScore {
  right: number;
  of: number;
  /** A value given where the truth says none is printed. */
  invented: number;
  misses: string[];
}

export type Score = Record<'step' | 'total' | 'loss' | 'epoch' | 'causes', FieldScore>;

export const HELDOUT5 = resolve(__dirname, '..', 'fixtures', 'training-logs', 'heldout5');

const near = (a: number, b: number): boolean => a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

function lossOf(p: Progress): number | 'nan' | null {
  if (p.diverged) return p.diverged.value === 'nan' ? 'nan' : null;
  return p.loss;
}

export function scoreFolder(dir: string): Score {
  const truth = JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')) as Record<string, HeldoutTruth>;
  const fresh = (): FieldScore => ({ right: 0, of: 0, invented: 0, misses: [] });
  const s: Score = { step: fresh(), total: fresh(), loss: fresh(), epoch: fresh(), causes: fresh() };
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.log')).sort()) {
    const t = truth[f];
    if (!t) throw new Error(`${f} has no truth`);
    const text = readFileSync(join(dir, f), 'utf8');
    if (t.cause !== undefined) {
      const c = detectCause(text, 1);
      s.causes.of++;
      if (c?.kind === t.cause) s.causes.right++;
      else s.causes.misses.push(`${f}: ${c?.kind ?? 'none'} (want ${t.cause})`);
      if (t.step === undefined && t.loss === undefined) continue;
    }
    const p = progressOf(text, 1000);
    const field = (name: 'step' | 'total' | 'epoch', got: number | null, want: number | null | undefined): void => {
      if (want === undefined) return;
      if (want === null) {
        if (got !== null) {
          s[name].invented++;
          s[name].misses.push(`${f}: ${got} (want none)`);
        }
        return;
      }
      s[name].of++;
      if (got !== null && near(got, want)) s[name].right++;
      else s[name].misses.push(`${f}: ${got} (want ${want})`);
    };
    field('step', p.step, t.step);
    field('total', p.total, t.total);
    if (t.epoch !== undefined) field('epoch', p.epoch, t.epoch);
    if (t.loss !== undefined) {
      const got = lossOf(p);
      if (t.loss === null) {
        if (got !== null) {
          s.loss.invented++;
          s.loss.misses.push(`${f}: ${got} (want none)`);
        }
      } else {
        s.loss.of++;
        if (got === t.loss || (typeof got === 'number' && typeof t.loss === 'number' && near(got, t.loss))) s.loss.right++;
        else s.loss.misses.push(`${f}: ${got} (want ${t.loss})`);
      }
    }
  }
  return s;
}

export function scoreLine(s: Score): string {
  return (['step', 'total', 'loss', 'epoch', 'causes'] as const).map((k) => `${k} ${s[k].right}/${s[k].of}${s[k].invented ? ` (+${s[k].invented} invented)` : ''}`).join(', ');
}

if (require.main === module) {
  const args = process.argv.slice(2).length ? process.argv.slice(2) : ['aside', 'dev', 'fresh', 'fresh2', 'fresh3', 'fresh4', 'fresh5', 'fresh6'];
  const subs = args.flatMap((a) => (existsSync(join(HELDOUT5, a, 'truth.json')) ? [a] : readdirSync(join(HELDOUT5, a)).sort().map((c) => `${a}/${c}`)));
  for (const sub of subs) {
    const s = scoreFolder(join(HELDOUT5, sub));
    console.log(`${sub}: ${scoreLine(s)}`);
    if (process.env.VERBOSE) for (const k of Object.keys(s) as (keyof Score)[]) for (const m of s[k].misses) console.log(`  ${k} ${m}`);
  }
}

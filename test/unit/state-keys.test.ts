// The extension's state keys live in src/extension/stateKeys.ts with a zod schema each (issue 45
// deliver 2): no other source file writes a `gpuRent.*` state key as a literal, and a value that
// fails its key's schema is read back as absent.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { readState, STATE_KEY_PREFIXES, StateKeys, StateKeysFor, writeState } from '../../src/extension/stateKeys';

const STATE_KEYS_TS = join('src', 'extension', 'stateKeys.ts');
const keys = new Set<string>(Object.values(StateKeys).map((k) => k.key));
/** The Instances view's id happens to be the instance list's key: commandIds.ts names it as the view. */
const ALLOWED = new Set([`${join('src', 'extension', 'commandIds.ts')}:gpuRent.instances`]);

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Literals (string, template head/middle/tail) that are a state key or begin a per-instance key. */
export function stateKeyLiterals(sf: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) {
      const text = n.text;
      const hit = keys.has(text) || STATE_KEY_PREFIXES.some((p) => text.startsWith(p));
      const file = sf.fileName;
      if (hit && !ALLOWED.has(`${file}:${text}`)) found.push(`${relative('.', file).split(sep).join('/')}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: '${text}'`);
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return found;
}

function memento(initial: Record<string, unknown> = {}) {
  const m = new Map<string, unknown>(Object.entries(initial));
  return {
    get: <T>(k: string) => m.get(k) as T | undefined,
    update: (k: string, v: unknown) => {
      if (v === undefined) m.delete(k);
      else m.set(k, v);
      return Promise.resolve();
    },
    raw: m,
  };
}

describe('state keys (issue 45: one module, with zod)', () => {
  it('no source file but stateKeys.ts names a gpuRent.* state key literally', () => {
    const found = tsFiles('src')
      .filter((f) => f !== STATE_KEYS_TS)
      .flatMap((f) => {
        const text = readFileSync(f, 'utf8');
        return text.includes('gpuRent.') ? stateKeyLiterals(ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true)) : [];
      });
    assert.deepEqual(found, [], 'use StateKeys / StateKeysFor from src/extension/stateKeys.ts');
  });

  it('the check sees literals and template heads', () => {
    const sf = ts.createSourceFile('x.ts', "get('gpuRent.budgetNotice'); get(`gpuRent.cardWarning.${id}`); run('gpuRent.refresh'); log(`under gpuRent.instances.unreadable`);", ts.ScriptTarget.Latest, true);
    assert.deepEqual(stateKeyLiterals(sf).map((h) => h.replace(/^[^ ]* /, '')), ["'gpuRent.budgetNotice'", "'gpuRent.cardWarning.'"]);
  });

  it('reads back what passes the schema and drops what fails it', async () => {
    const m = memento({ 'gpuRent.budgetNotice': { month: '2026-12', level: 'loud' }, 'gpuRent.gitignoreAsked': ['/a', '/b'] });
    assert.equal(readState(m, StateKeys.budgetNotice), undefined);
    assert.deepEqual(readState(m, StateKeys.gitignoreAsked), ['/a', '/b']);
    await writeState(m, StateKeys.budgetNotice, { month: '2026-12', level: 'warning' });
    assert.deepEqual(readState(m, StateKeys.budgetNotice), { month: '2026-12', level: 'warning' });
    await m.update('gpuRent.launch.awayAnnounced', 'not a list');
    assert.equal(readState(m, StateKeys.launchAwayAnnounced), undefined);
    const stop = StateKeysFor.divergedStop('i1', 'j1');
    assert.equal(stop.key, 'gpuRent.run.divergedStop.i1.j1');
    await writeState(m, stop, { value: 'nan', readings: 3, step: 120 });
    assert.deepEqual(readState(m, stop), { value: 'nan', readings: 3, step: 120 });
    await m.update(stop.key, { value: 'big', readings: 3 });
    assert.equal(readState(m, stop), undefined);
    await writeState(m, StateKeysFor.endAction('i1', 'j1'), undefined);
    assert.equal(m.raw.has('gpuRent.run.endAction.i1.j1'), false);
  });
});

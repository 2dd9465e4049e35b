// Issue 45: a connector kind is named in at most three source files: its descriptor
// (core/platforms/descriptors.ts), its adapter (app/platforms/<name>.ts) and the registry
// (app/platforms/registry.ts). Everything else (create's preview, request and reply, the key
// rule, the spot reclaim, the zone check …) reads the descriptor's traits or the adapter's
// create hooks. A comment naming a kind counts too. The kinds are the descriptors' keys.
import * as assert from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PLATFORM_DESCRIPTORS } from '../../src/core/platforms/descriptors';

const MAX_FILES = 3;

function tsFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
    });
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('platform kinds named in source files', () => {
  const files = tsFiles('src').map((f) => ({ f, text: readFileSync(f, 'utf8') }));
  const kinds = Object.keys(PLATFORM_DESCRIPTORS);

  it('reads the kinds from the descriptors and the files from src', () => {
    assert.ok(kinds.length >= 4, `kinds: ${kinds.join(', ')}`);
    assert.ok(files.length > 50, `files under src: ${files.length}`);
  });

  for (const kind of kinds) {
    it(`${kind} is named (as a string literal, comments included) in at most ${MAX_FILES} files`, () => {
      const literal = new RegExp(`['"\`]${escape(kind)}['"\`]`);
      const naming = files.filter((x) => literal.test(x.text)).map((x) => x.f);
      // The scan sees the descriptor and the registry (else it would pass by reading nothing).
      assert.ok(naming.includes(join('src/core/platforms/descriptors.ts')) && naming.includes(join('src/app/platforms/registry.ts')), `${kind} found in: ${naming.join(', ')}`);
      assert.ok(naming.length <= MAX_FILES, `${kind} is named in ${naming.length} files (at most ${MAX_FILES}: its descriptor, its adapter, the registry):\n  ${naming.join('\n  ')}`);
    });
  }
});

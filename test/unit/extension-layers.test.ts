// The extension's commands are leaves (issue 45 item 2): only activate() (src/extension/extension.ts)
// imports a module under src/extension/commands/, to register the handlers (through
// commands/registry.ts). What monitors, views and services share lives beside them: the
// CommandContext and shared logic in src/extension/services/, the words in src/extension/words/.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const EXTENSION = resolve(__dirname, '..', '..', 'src', 'extension');
const COMMANDS = join(EXTENSION, 'commands');
/** The composition root: it registers the commands, so it imports them. */
const ALLOWED = [join(EXTENSION, 'extension.ts')];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

// Static imports and re-exports, import('…') (also as a type), require('…') and bare imports.
const importRe = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function importsOf(source: string): string[] {
  return [...source.matchAll(importRe)].map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4])!);
}

const inCommands = (file: string): boolean => file === COMMANDS || file.startsWith(COMMANDS + sep);

/** The imports of `file` (given its source) that reach into src/extension/commands/. */
function commandImports(file: string, source: string): string[] {
  return importsOf(source).filter((spec) => spec.startsWith('.') && inCommands(resolve(dirname(file), spec)));
}

describe('extension layers: commands are leaves', () => {
  it('finds an import of commands/ in every form, and only those', () => {
    const file = join(EXTENSION, 'monitors', 'x.ts');
    const src = [
      "import { a } from '../commands/pick';",
      "import type { B } from \"../commands/runs/compareRuns\";",
      "export { c } from '../commands/registry';",
      "const d = await import('../commands/sync/syncNow');",
      "let e: import('../commands/remote/ports').PortForwards;",
      "const f = require('../commands/view/view');",
      "import '../commands';",
      "import { Commands } from '../commandIds';",
      "import { g } from '../services/context';",
      "import { h } from './commands/thing';",
      "import * as vscode from 'vscode';",
    ].join('\n');
    assert.deepEqual(commandImports(file, src), ['../commands/pick', '../commands/runs/compareRuns', '../commands/registry', '../commands/sync/syncNow', '../commands/remote/ports', '../commands/view/view', '../commands']);
    assert.deepEqual(commandImports(join(EXTENSION, 'tree.ts'), "import { x } from './commands/pick';\nimport { y } from './commandIds';"), ['./commands/pick']);
  });

  it('no module outside src/extension/commands/ but extension.ts imports one under it', () => {
    const files = tsFiles(EXTENSION);
    assert.ok(files.some(inCommands) && files.length > 50, 'the extension sources should be found');
    const offenders = files
      .filter((f) => !inCommands(f) && !ALLOWED.includes(f))
      .flatMap((f) => commandImports(f, readFileSync(f, 'utf8')).map((spec) => `${relative(EXTENSION, f)}: ${spec}`));
    assert.deepEqual(offenders, [], 'move what they share out of commands/ (services/ for logic and the CommandContext, words/ for words)');
  });

  it('activate() registers the commands through commands/registry.ts', () => {
    const root = ALLOWED[0]!;
    assert.ok(commandImports(root, readFileSync(root, 'utf8')).includes('./commands/registry'));
  });
});

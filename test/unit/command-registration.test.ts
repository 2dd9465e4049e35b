// Every contributed command is registered by activate(), every registered one is contributed,
// and a command id is written only in src/extension/commandIds.ts (as vscode-pull-request-github's
// check-commands does). activate() needs a real VS Code, so this reads the source with the
// TypeScript parser: the `command(Commands.x, …)` calls of extension.ts and any other
// registerCommand in src/extension, and every string and template literal under src.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { Commands } from '../../src/extension/commandIds';

const EXTENSION_TS = join('src', 'extension', 'extension.ts');
const COMMAND_IDS_TS = join('src', 'extension', 'commandIds.ts');
/** The one wrapper of vscode.commands.registerCommand, and the helper activate() registers through. */
const WRAPPERS = new Set([join('src', 'extension', 'commands', 'registry.ts'), EXTENSION_TS]);

const ids = new Set<string>(Object.values(Commands));
const keyOf = new Map<string, string>(Object.entries(Commands).map(([k, v]) => [v, k]));

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  node.forEachChild((c) => walk(c, visit));
}

const where = (sf: ts.SourceFile, n: ts.Node) => `${relative('.', sf.fileName).split(sep).join('/')}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;

/** `Commands.x` → its id; anything else → undefined. */
function commandsMember(arg: ts.Expression | undefined): string | undefined {
  if (!arg || !ts.isPropertyAccessExpression(arg) || !ts.isIdentifier(arg.expression) || arg.expression.text !== 'Commands') return undefined;
  return (Commands as Record<string, string>)[arg.name.text];
}

interface Registrations {
  /** Each registered id, once per registration, with where. */
  registered: { id: string; at: string }[];
  /** Registrations whose id is not `Commands.x` outside the wrappers, or not known. */
  problems: string[];
}

export function registrations(files: string[]): Registrations {
  const registered: Registrations['registered'] = [];
  const problems: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const isExtension = file === EXTENSION_TS;
    if (!isExtension && !/register(TextEditor)?Command/.test(text)) continue;
    const sf = parse(file);
    walk(sf, (n) => {
      if (!ts.isCallExpression(n)) return;
      const callee = n.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      const isRegister = name === 'registerCommand' || name === 'registerTextEditorCommand';
      const isHelper = isExtension && ts.isIdentifier(callee) && callee.text === 'command';
      if (!isRegister && !isHelper) return;
      const arg = n.arguments[0];
      const id = commandsMember(arg);
      if (id) registered.push({ id, at: where(sf, n) });
      else if (isRegister && WRAPPERS.has(file) && arg && ts.isIdentifier(arg)) return; // the wrapper passing its own parameter on
      else problems.push(`${where(sf, n)}: ${name}(${arg ? arg.getText(sf) : ''}, …) does not name Commands.x`);
    });
  }
  return { registered, problems };
}

/** Every command id written as (or inside) a string or template literal, e.g. `command:gpuRent.x` in Markdown. */
export function idLiterals(file: string): string[] {
  return readFileSync(file, 'utf8').includes('gpuRent.') ? idLiteralsIn(parse(file)) : [];
}

function idLiteralsIn(sf: ts.SourceFile): string[] {
  const found: string[] = [];
  walk(sf, (n) => {
    if (!ts.isStringLiteral(n) && !ts.isNoSubstitutionTemplateLiteral(n) && !ts.isTemplateHead(n) && !ts.isTemplateMiddle(n) && !ts.isTemplateTail(n)) return;
    for (const m of n.text.matchAll(/gpuRent\.[A-Za-z0-9_]+/g)) if (ids.has(m[0])) found.push(`${where(sf, n)}: '${m[0]}' (use Commands.${keyOf.get(m[0])})`);
  });
  return found;
}

describe('command registration', () => {
  const extensionFiles = tsFiles(join('src', 'extension'));

  it('activate() registers every contributed command, once each, and nothing else', () => {
    const { registered, problems } = registrations(extensionFiles);
    assert.deepEqual(problems, []);
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const r of registered) {
      if (seen.has(r.id)) twice.push(`${r.id} at ${seen.get(r.id)} and ${r.at}`);
      seen.set(r.id, r.at);
    }
    assert.deepEqual(twice, [], 'a second registration throws in VS Code');
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { commands: { command: string }[] } };
    const contributed = new Set(pkg.contributes.commands.map((c) => c.command));
    assert.deepEqual([...contributed].filter((c) => !seen.has(c)).sort(), [], 'contributed but never registered');
    assert.deepEqual([...seen.keys()].filter((c) => !contributed.has(c)).sort(), [], 'registered but not contributed');
    assert.deepEqual([...ids].filter((c) => !seen.has(c)).sort(), [], 'in commandIds.ts but never registered');
  });

  it('registrations sit in extension.ts, through the registry wrapper', () => {
    const { registered } = registrations(extensionFiles);
    const elsewhere = registered.filter((r) => !r.at.startsWith('src/extension/extension.ts:'));
    assert.deepEqual(elsewhere, [], 'register through command(Commands.x, …) in activate()');
    const direct = extensionFiles.filter((f) => f !== join('src', 'extension', 'commands', 'registry.ts') && /\bcommands\.register(TextEditor)?Command\(/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(direct, [], 'vscode.commands.registerCommand outside commands/registry.ts skips its error handling');
  });

  it('no command id is written as a literal outside src/extension/commandIds.ts', () => {
    const found = tsFiles('src').filter((f) => f !== COMMAND_IDS_TS).flatMap(idLiterals);
    assert.deepEqual(found, []);
  });

  it('the checks see what they look for', () => {
    // The parser finds the calls and literals this test relies on, so an empty result above means something.
    const { registered } = registrations([EXTENSION_TS]);
    assert.ok(registered.length >= ids.size, `only ${registered.length} command(Commands.x) calls found in extension.ts`);
    const sf = ts.createSourceFile('x.ts', "run('gpuRent.refresh'); md(`[${a}](command:gpuRent.showLog)`); ok(`gpuRent.${'x'}`); // 'gpuRent.getState'", ts.ScriptTarget.Latest, true);
    assert.deepEqual(idLiteralsIn(sf).map((h) => h.replace(/^[^ ]* /, '')), ["'gpuRent.refresh' (use Commands.refresh)", "'gpuRent.showLog' (use Commands.showLog)"]);
  });
});

// Lists the functions (declarations, methods, arrows, function expressions) longer than a number
// of lines, longest first, with file, lines and name: how issue 45 found the long functions to cut
// into named steps. test/unit/function-length.test.ts keeps the cut ones under the limit.
//   npx tsx scripts/long-functions.ts [--min 80] [PATH …]   (default: src)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export interface LongFunction {
  file: string;
  name: string;
  /** 1-based, inclusive. */
  from: number;
  to: number;
  lines: number;
}

function tsFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  return readdirSync(path).flatMap((n) => tsFiles(join(path, n)));
}

function nameOf(n: ts.FunctionLikeDeclaration, src: ts.SourceFile): string {
  if (n.name) return n.name.getText(src);
  const p = n.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p))) return p.name.getText(src);
  if (ts.isConstructorDeclaration(n)) return 'constructor';
  return '<anonymous>';
}

/** Every function in `paths` (files or folders) over `min` lines, longest first. */
export function longFunctions(paths: readonly string[], min: number): LongFunction[] {
  const out: LongFunction[] = [];
  for (const file of paths.flatMap(tsFiles)) {
    const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const visit = (n: ts.Node) => {
      if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n) || ts.isAccessor(n)) && n.body) {
        const from = src.getLineAndCharacterOfPosition(n.getStart(src)).line + 1;
        const to = src.getLineAndCharacterOfPosition(n.end).line + 1;
        if (to - from + 1 > min) out.push({ file, name: nameOf(n, src), from, to, lines: to - from + 1 });
      }
      ts.forEachChild(n, visit);
    };
    visit(src);
  }
  return out.sort((a, b) => b.lines - a.lines);
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--min');
  const min = at >= 0 ? Number(args.splice(at, 2)[1]) : 80;
  for (const f of longFunctions(args.length ? args : ['src'], min)) console.log(`${f.lines}\t${f.file}:${f.from}-${f.to}\t${f.name}`);
}

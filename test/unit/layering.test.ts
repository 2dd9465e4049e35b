// src/core and src/webview must run unchanged in Node and in the browser: no vscode, no
// ssh2, no Node built-ins, no adapter code. The eslint rule says the same; this test fails
// even when lint is skipped.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const importRe = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

export function importsOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(importRe)) out.push((m[1] ?? m[2] ?? m[3] ?? m[4])!);
  return out;
}

const forbidden = (spec: string): string | undefined => {
  const bare = spec.replace(/^node:/, '').split('/')[0]!;
  if (spec === 'vscode') return 'vscode';
  if (spec === 'ssh2' || spec.startsWith('ssh2/')) return 'ssh2';
  if (spec.startsWith('node:') || builtinModules.includes(bare)) return `Node built-in ${spec}`;
  if (/(^|\/)(remote|extension|cli|app)(\/|$)/.test(spec) && spec.startsWith('.')) return `adapter or app service ${spec}`;
  return undefined;
};

describe('layering', () => {
  it('finds imports of every form', () => {
    const src = `import a from 'fs';\nimport { b } from "vscode";\nexport * from 'node:path';\nconst c = require('ssh2');\nawait import('net');\nimport 'child_process';`;
    assert.deepEqual(importsOf(src), ['fs', 'vscode', 'node:path', 'ssh2', 'net', 'child_process']);
    assert.deepEqual(importsOf(src).map(forbidden).filter(Boolean).length, 6);
  });

  for (const dir of ['src/core', 'src/webview']) {
    it(`${dir} imports no vscode, ssh2, Node built-ins, adapters or app services`, () => {
      const offenders: string[] = [];
      for (const file of tsFiles(dir)) {
        for (const spec of importsOf(readFileSync(file, 'utf8'))) {
          const why = forbidden(spec);
          if (why) offenders.push(`${file}: ${why}`);
        }
      }
      assert.deepEqual(offenders, []);
    });
  }

  // The features both front ends offer: core and remote below, never vscode or a front end.
  it('src/app imports no vscode and no front end (extension, cli)', () => {
    const offenders: string[] = [];
    for (const file of tsFiles('src/app')) {
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (spec === 'vscode' || (spec.startsWith('.') && /(^|\/)(extension|cli|webview)(\/|$)/.test(spec))) offenders.push(`${file}: ${spec}`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it('src/remote imports no vscode and nothing above it (app, extension, cli)', () => {
    const offenders: string[] = [];
    for (const file of tsFiles('src/remote')) {
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (spec === 'vscode' || (spec.startsWith('.') && /(^|\/)(app|extension|cli|webview)(\/|$)/.test(spec))) offenders.push(`${file}: ${spec}`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it('the CLI never imports the extension, and the extension never the CLI', () => {
    const offenders: string[] = [];
    for (const [dir, other] of [['src/cli', 'extension'], ['src/extension', 'cli']] as const) {
      for (const file of tsFiles(dir)) for (const spec of importsOf(readFileSync(file, 'utf8'))) if (spec.startsWith('.') && new RegExp(`(^|/)${other}(/|$)`).test(spec)) offenders.push(`${file}: ${spec}`);
    }
    assert.deepEqual(offenders, []);
  });
});

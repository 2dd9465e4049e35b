// Builds the three bundles: the extension (Node, cjs, vscode external), the calculator
// webview (browser, iife) and the CLI (Node). Type-checking is `npm run typecheck`.
import * as esbuild from 'esbuild';
import { chmodSync, existsSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

// ssh2's optional native add-ons: keep them out so its pure-JS path is used.
const nodeExternals = ['vscode', 'cpu-features', '*.node'];

// `node esbuild.mjs cli` (or extension, webview) builds only the named bundles.
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));

const builds = [
  { name: 'extension', ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node18', external: nodeExternals },
  { name: 'cli', ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', target: 'node18', external: nodeExternals, banner: { js: '#!/usr/bin/env node' } },
  { name: 'webview', ...common, entryPoints: ['src/webview/calculator.ts'], outfile: 'dist/webview/calculator.js', platform: 'browser', format: 'iife', target: 'es2020' },
]
  .filter((b) => existsSync(b.entryPoints[0]) && (only.length === 0 || only.includes(b.name)))
  .map(({ name: _name, ...options }) => options);

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  if (existsSync('dist/cli.js')) chmodSync('dist/cli.js', 0o755);
}

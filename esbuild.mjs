// Builds the three bundles: the extension (Node, cjs, vscode external), the calculator
// webview (browser, iife) and the CLI (Node). Type-checking is `npm run typecheck`.
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, resolve } from 'node:path';
import { Script } from 'node:vm';

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

// The CLI pulls checkpoints over SSH, where ssh2's own pure-JS AES-GCM (a new decipher per
// packet) was the bottleneck: 1.35x scp's time for a 1 GiB pull. ssh2 builds an optional
// native crypto binding when it is installed; the bundled copy of ssh2 looks for it next to
// the bundle, so point that one require at the installed package instead. Where the binding
// was not built (no compiler at install time) the require fails and ssh2 uses pure JS, as before.
const ssh2NativeCrypto = {
  name: 'ssh2-native-crypto',
  setup(build) {
    build.onResolve({ filter: /^\.\/crypto\/build\/Release\/sshcrypto\.node$/ }, (args) =>
      /[\\/]ssh2[\\/]lib[\\/]protocol$/.test(args.resolveDir) ? { path: 'ssh2/lib/protocol/crypto/build/Release/sshcrypto.node', external: true } : undefined,
    );
  },
};

// The CLI leaves the platforms' SDKs (src/app/platforms/sdks.ts) to a bundle of their own,
// dist/platform-sdks.js, loaded by the first platform call: they were 4.5 MB of its 6.7 MB,
// read and set up by every command's start (~50 ms of a `gpu-rent sync`).
const platformSdksApart = {
  name: 'platform-sdks-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/sdks$/ }, (args) => (/[\\/]app[\\/]platforms$/.test(args.resolveDir) ? { path: './platform-sdks.js', external: true } : undefined));
  },
};

// `node esbuild.mjs cli` (or extension, webview) builds only the named bundles.
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));

const builds = [
  { name: 'extension', ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node18', external: nodeExternals },
  // Minified (names kept): a new process reads and compiles the whole bundle on every run.
  { name: 'cli', ...common, minify: true, keepNames: true, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli-main.js', platform: 'node', format: 'cjs', target: 'node18', external: nodeExternals, plugins: [ssh2NativeCrypto, platformSdksApart] },
  { name: 'cli', ...common, minify: true, entryPoints: ['src/app/platforms/sdks.ts'], outfile: 'dist/platform-sdks.js', platform: 'node', format: 'cjs', target: 'node18', external: nodeExternals },
  { name: 'webview', ...common, entryPoints: ['src/webview/calculator.ts'], outfile: 'dist/webview/calculator.js', platform: 'browser', format: 'iife', target: 'es2020' },
  { name: 'monitor', ...common, entryPoints: ['src/webview/monitor.ts'], outfile: 'dist/webview/monitor.js', platform: 'browser', format: 'iife', target: 'es2020' },
]
  .filter((b) => existsSync(b.entryPoints[0]) && (only.length === 0 || only.includes(b.name)))
  .map(({ name: _name, ...options }) => options);

// Commands whose start the CLI's code cache is warmed with (see writeCliLauncher).
const CLI_WARMUP = ['sync', 'quote', 'probe', 'jobs', 'run', 'smi'];
const buildsCli = builds.some((b) => b.outfile === 'dist/cli-main.js');
if (watch) {
  // No code cache while watching: the launcher compiles each rebuilt bundle as usual.
  if (buildsCli) await writeCliLauncher({ cache: false });
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  for (const b of builds) if (b.outfile === 'dist/cli-main.js' || b.outfile === 'dist/platform-sdks.js') asciiOnly(b.outfile);
  if (buildsCli) await writeCliLauncher({ cache: true });
}

/**
 * esbuild escapes non-ASCII in strings but leaves it in regex literals (/空闲GPU不足/), and one such
 * character makes Node decode the whole 2 MB bundle into a two-byte string: ~30 ms of every CLI
 * start in readFileSync alone, more to hash it. A \uXXXX escape matches the same in a regex
 * (with or without the u flag: a surrogate pair escaped is one code point there too); one after
 * a backslash would change meaning, so such a bundle is left as it is.
 */
function asciiOnly(file) {
  const source = readFileSync(file, 'utf8');
  if (!/[^\x00-\x7f]/.test(source)) return;
  if (/\\[^\x00-\x7f]/.test(source)) {
    console.warn(`${file}: a non-ASCII character after a backslash; left as UTF-8 (the CLI starts slower)`);
    return;
  }
  writeFileSync(file, source.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`));
}

/**
 * dist/cli.js: a small launcher that runs dist/cli-main.js from V8's code cache, made here at
 * build time (compiling the 1 MB bundle took ~50 ms of every command's start; with the cache
 * ~8 ms, plus the lazily compiled functions of a command's start, warmed by running a few
 * commands' --help into a silent sink before the cache is taken). The cache is used only for the exact bundle it was made from (SHA-256 checked: V8
 * itself checks only the length) and by a V8 that accepts it; otherwise the bundle is
 * compiled as usual. `require.main === module` still holds inside the bundle.
 */
async function writeCliLauncher({ cache }) {
  mkdirSync('dist', { recursive: true });
  rmSync('dist/cli-main.cache', { force: true });
  if (cache) {
    try {
      const bytes = readFileSync('dist/cli-main.js');
      const source = bytes.toString('utf8');
      const digest = createHash('sha256').update(bytes).digest();
      const file = resolve('dist/cli-main.js');
      const script = new Script(Module.wrap(source), { filename: file });
      // Warm it first: the cache then also holds the functions a command's start runs
      // (argument parsing, loading the command modules, help), which V8 compiles lazily.
      const mod = { exports: {} };
      script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, dirname(file));
      const quiet = { stdout: () => undefined, stderr: () => undefined, readStdin: async () => '', env: {}, isTTY: false };
      for (const argv of [['--help'], ...CLI_WARMUP.map((c) => [c, '--help'])]) await mod.exports.main?.(argv, quiet);
      writeFileSync('dist/cli-main.cache', Buffer.concat([digest, script.createCachedData()]));
    } catch (e) {
      // No cache: the launcher compiles the bundle as usual.
      console.warn(`dist/cli-main.cache not built (${e instanceof Error ? e.message : String(e)}); the CLI works, only starts slower`);
    }
  }
  const launcher = `#!/usr/bin/env node
'use strict';
// Runs cli-main.js (the CLI bundle) from the code cache built beside it; see esbuild.mjs.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const file = join(__dirname, 'cli-main.js');
const bytes = readFileSync(file);
const source = bytes.toString('utf8');
let cachedData;
try {
  const c = readFileSync(join(__dirname, 'cli-main.cache'));
  if (c.length > 32 && require('node:crypto').createHash('sha256').update(bytes).digest().equals(c.subarray(0, 32))) cachedData = c.subarray(32);
} catch {}
const { Script } = require('node:vm');
const script = new Script(require('node:module').wrap(source), { filename: file, cachedData });
script.runInThisContext()(module.exports, require, module, file, __dirname);
`;
  writeFileSync('dist/cli.js', launcher);
  rmSync('dist/cli.js.map', { force: true }); // the launcher has none; the bundle's is cli-main.js.map
  chmodSync('dist/cli.js', 0o755);
}

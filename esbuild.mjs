// Builds the three bundles: the extension (Node, cjs, vscode external), the calculator
// webview (browser, iife) and the CLI (Node). Type-checking is `npm run typecheck`.
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, resolve } from 'node:path';
import { Script } from 'node:vm';
import v8 from 'node:v8';

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

// ssh2 and its dependencies require Node built-ins at load that a CLI command seldom uses:
// http, https and tls for ssh2's HTTP agents, child_process for Windows agents and ssh-config's
// `Match exec`, assert for argument checks, dns where the host is a name. Loading them took
// ~25 ms of CPU of every `gpu-rent sync` start here. Each is required at its first use instead.
// A rewrite whose text is not found (ssh2 changed) is skipped with a warning: the bundle is
// then as before, only slower to start.
const lazy = (id) => `new Proxy({}, { get: (_, k) => require('${id}')[k] })`;
const LAZY_REQUIRES = [
  [/[\\/]ssh2[\\/]lib[\\/]index\.js$/, [
    ["const {\n  SSHTTPAgent: HTTPAgent,\n  SSHTTPSAgent: HTTPSAgent,\n} = require('./http-agents.js');\n", ''],
    ['  HTTPAgent,\n  HTTPSAgent,\n', "  get HTTPAgent() { return require('./http-agents.js').SSHTTPAgent; },\n  get HTTPSAgent() { return require('./http-agents.js').SSHTTPSAgent; },\n"],
    ["  Server: require('./server.js'),\n", "  get Server() { return require('./server.js'); },\n"],
  ]],
  [/[\\/]ssh2[\\/]lib[\\/]agent\.js$/, [["const { execFile, spawn } = require('child_process');", "const execFile = (...a) => require('child_process').execFile(...a);\nconst spawn = (...a) => require('child_process').spawn(...a);"]]],
  [/[\\/]ssh2[\\/]lib[\\/]client\.js$/, [["const { lookup: dnsLookup } = require('dns');", "const dnsLookup = (...a) => require('dns').lookup(...a);"]]],
  [/[\\/]ssh2[\\/]lib[\\/]protocol[\\/]node-fs-compat\.js$/, [["const assert = require('assert');", "const assert = (...a) => require('assert')(...a);"]]],
  [/[\\/]asn1[\\/]lib[\\/]ber[\\/](reader|writer)\.js$/, [["var assert = require('assert');", `var assert = ${lazy('assert')};`]]],
  [/[\\/]ssh-config[\\/]lib[\\/]ssh-config\.js$/, [["import { spawnSync } from 'node:child_process';", "const spawnSync = (...a) => require('node:child_process').spawnSync(...a);"]]],
];
const lazyRequires = {
  name: 'lazy-requires',
  setup(build) {
    for (const [filter, edits] of LAZY_REQUIRES)
      build.onLoad({ filter }, (args) => {
        let text = readFileSync(args.path, 'utf8');
        for (const [from, to] of edits) {
          if (!text.includes(from)) return { contents: readFileSync(args.path, 'utf8'), loader: 'default', warnings: [{ text: `lazy-requires: ${JSON.stringify(from.slice(0, 60))} not found; left as it is` }] };
          text = text.replace(from, to);
        }
        return { contents: text, loader: 'default' };
      });
  },
};

// The commands run most (a pull, a push, a quote, a run and its logs) start from a bundle of
// their own: dist/cli-sync.js is main.ts with only `sync` in the command table, a third of the
// whole CLI's 2 MB, so a start reads, hashes and deserializes (code cache) a third as much.
// dist/cli.js picks the bundle by the command's name; every other command, the top help and an
// unknown name run dist/cli-main.js, which holds them all. Each module still exists once per
// process: one bundle runs.
const CLI_OWN_BUNDLE = ['sync', 'push', 'quote', 'run', 'logs', 'jobs', 'probe'];
const oneCommand = (name) => ({
  name: 'one-command',
  setup(build) {
    build.onResolve({ filter: /^\.\/commands$/ }, (args) => (/[\\/]src[\\/]cli$/.test(args.resolveDir) ? { path: resolve(args.resolveDir, 'commands.ts'), namespace: 'one-command' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'one-command' }, (args) => {
      // The table's own line for the command, so a renamed module or export fails the build here.
      const table = readFileSync(args.path, 'utf8');
      if (!table.includes(`  ${name}: async () => (await import('./commands/${name}')).command,`)) throw new Error(`src/cli/commands.ts has no "${name}" row loading ./commands/${name}'s command`);
      return {
        resolveDir: dirname(args.path),
        loader: 'ts',
        contents: `import { command } from './commands/${name}';
export async function findCommand(name: string) { return name === ${JSON.stringify(name)} ? command : undefined; }
export async function allCommands() { return [command]; }
`,
      };
    });
  },
});

// `node esbuild.mjs cli` (or extension, webview) builds only the named bundles.
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));

const builds = [
  { name: 'extension', ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node18', external: nodeExternals },
  // Minified (names kept): a new process reads and compiles the whole bundle on every run.
  { name: 'cli', ...common, minify: true, keepNames: true, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli-main.js', platform: 'node', format: 'cjs', target: 'node18', external: nodeExternals, plugins: [ssh2NativeCrypto, platformSdksApart, lazyRequires] },
  { name: 'cli', ...common, minify: true, entryPoints: ['src/app/platforms/sdks.ts'], outfile: 'dist/platform-sdks.js', platform: 'node', format: 'cjs', target: 'node18', external: nodeExternals },
  ...CLI_OWN_BUNDLE.map((c) => ({ name: 'cli', ...common, minify: true, keepNames: true, entryPoints: ['src/cli/main.ts'], outfile: `dist/cli-${c}.js`, platform: 'node', format: 'cjs', target: 'node18', external: nodeExternals, plugins: [ssh2NativeCrypto, platformSdksApart, lazyRequires, oneCommand(c)] })),
  { name: 'webview', ...common, entryPoints: ['src/webview/calculator.ts'], outfile: 'dist/webview/calculator.js', platform: 'browser', format: 'iife', target: 'es2020' },
  { name: 'monitor', ...common, entryPoints: ['src/webview/monitor.ts'], outfile: 'dist/webview/monitor.js', platform: 'browser', format: 'iife', target: 'es2020' },
]
  .filter((b) => existsSync(b.entryPoints[0]) && (only.length === 0 || only.includes(b.name)))
  .map(({ name: _name, ...options }) => options);

// Commands whose start the CLI's code cache is warmed with (see writeCliLauncher).
const CLI_WARMUP = ['sync', 'quote', 'probe', 'jobs', 'run', 'smi'];
// V8 flags a command's bundle runs under, set by the launcher before it compiles (the code cache is
// made under the same flags: V8 refuses a cache made under others). A pull of 2000 small files
// spent ~0.2 s of CPU in TurboFan's background compiles of code run a few thousand times (perf:
// 18% of the process's samples); with a 4x interrupt budget only code that stays hot is
// optimized: 0.92 -> 0.69 s of CPU for that pull, a 256 MiB pull unchanged (its hot path is
// native: cipher, hash, writes).
const CLI_V8_FLAGS = { sync: '--interrupt-budget=270336' };
const buildsCli = builds.some((b) => b.outfile === 'dist/cli-main.js');
if (watch) {
  // No code cache while watching: the launcher compiles each rebuilt bundle as usual.
  if (buildsCli) await writeCliLauncher({ cache: false });
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  for (const b of builds) if (/^dist\/(cli-[a-z]+|platform-sdks)\.js$/.test(b.outfile)) asciiOnly(b.outfile);
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
 * dist/cli.js: a small launcher that runs dist/cli-main.js (or the command's own bundle) from V8's code cache, made here at
 * build time (compiling the 1 MB bundle took ~50 ms of every command's start; with the cache
 * ~8 ms, plus the lazily compiled functions of a command's start, warmed by running a few
 * commands' --help into a silent sink before the cache is taken). The cache is used only for the exact bundle it was made from (SHA-256 checked: V8
 * itself checks only the length) and by a V8 that accepts it; otherwise the bundle is
 * compiled as usual. `require.main === module` still holds inside the bundle.
 */
async function writeCliLauncher({ cache }) {
  mkdirSync('dist', { recursive: true });
  // The caches of bundles that run under V8's defaults first: a flag set for a bundle's cache
  // cannot be put back (its default differs between Node versions), so those come last.
  const names = ['main', ...CLI_OWN_BUNDLE].sort((a, b) => Number(Object.hasOwn(CLI_V8_FLAGS, a)) - Number(Object.hasOwn(CLI_V8_FLAGS, b)));
  for (const name of names) {
    rmSync(`dist/cli-${name}.cache`, { force: true });
    if (cache && existsSync(`dist/cli-${name}.js`)) await writeCodeCache(name);
  }
  const launcher = `#!/usr/bin/env node
'use strict';
// Runs the CLI bundle for the command from the code cache built beside it; see esbuild.mjs.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
// The commands with a bundle of their own (see esbuild.mjs); any other runs cli-main.js.
const own = ${JSON.stringify(CLI_OWN_BUNDLE)};
const name = process.argv[2];
let base = own.includes(name) ? \`cli-\${name}\` : 'cli-main';
let bytes;
try {
  bytes = readFileSync(join(__dirname, \`\${base}.js\`));
} catch {
  base = 'cli-main';
  bytes = readFileSync(join(__dirname, 'cli-main.js'));
}
// The command bundle's V8 flags (CLI_V8_FLAGS in esbuild.mjs), before any of it compiles.
const v8Flags = ${JSON.stringify(CLI_V8_FLAGS)};
if (base !== 'cli-main' && Object.hasOwn(v8Flags, name)) require('node:v8').setFlagsFromString(v8Flags[name]);
const file = join(__dirname, \`\${base}.js\`);
// The build makes the bundle ASCII: read as latin1 it is the same string, without utf8's decoding pass.
const source = require('node:buffer').isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
let cachedData;
try {
  const c = readFileSync(join(__dirname, \`\${base}.cache\`));
  if (c.length > 32 && require('node:crypto').createHash('sha256').update(bytes).digest().equals(c.subarray(0, 32))) cachedData = c.subarray(32);
} catch {}
const { Script } = require('node:vm');
// Module.wrap's own wrapper, written out: loading node:module for it cost ~1 ms of every start.
const script = new Script('(function (exports, require, module, __filename, __dirname) { ' + source + '\\n});', { filename: file, cachedData });
script.runInThisContext()(module.exports, require, module, file, __dirname);
`;
  writeFileSync('dist/cli.js', launcher);
  rmSync('dist/cli.js.map', { force: true }); // the launcher has none; each bundle has its own
  chmodSync('dist/cli.js', 0o755);
}

/** dist/cli-NAME.cache: V8's code cache of dist/cli-NAME.js after warming it (see writeCliLauncher). */
async function writeCodeCache(name) {
  const out = `dist/cli-${name}.cache`;
  const flags = CLI_V8_FLAGS[name];
  if (flags) v8.setFlagsFromString(flags);
  try {
    const bytes = readFileSync(`dist/cli-${name}.js`);
    const digest = createHash('sha256').update(bytes).digest();
    const file = resolve(`dist/cli-${name}.js`);
    const script = new Script(Module.wrap(bytes.toString('utf8')), { filename: file });
    // Warm it first: the cache then also holds the functions a command's start runs
    // (argument parsing, loading the command modules, help), which V8 compiles lazily.
    const mod = { exports: {} };
    script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, dirname(file));
    const quiet = { stdout: () => undefined, stderr: () => undefined, readStdin: async () => '', env: {}, isTTY: false };
    const warmup = name === 'main' ? [['--help'], ...CLI_WARMUP.map((c) => [c, '--help'])] : [[name, '--help']];
    for (const argv of warmup) await mod.exports.main?.(argv, quiet);
    writeFileSync(out, Buffer.concat([digest, script.createCachedData()]));
  } catch (e) {
    // No cache: the launcher compiles the bundle as usual.
    console.warn(`${out} not built (${e instanceof Error ? e.message : String(e)}); the CLI works, only starts slower`);
  }
}

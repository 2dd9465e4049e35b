// `npm run test:vscode`: the in-host suites (test/vscode/suite) inside a desktop VS Code, through
// @vscode/test-electron, against the real loopback sshd. The same suites also run inside
// code-server (scripts/e2e.sh); both set up through test/e2e/host-env.ts and bundle-host.ts.
// Prints one closing line "N passed, N failed, N skipped"; exits 1 on any failure, 2 on bad usage.
// Everything started here (sshd, temp folders) is stopped here on every path out.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { HostResults } from './support';
import { bundleHostSuites } from '../e2e/bundle-host';
import { followLog, prepareHostEnv, ROOT, type Cleanup } from '../e2e/host-env';

const USAGE = `Usage: npm run test:vscode -- [options]

Runs the in-host suites (test/vscode/suite) inside a desktop VS Code with
@vscode/test-electron, against a real OpenSSH server on loopback (needs root,
like the integration tests). The extension is built first (dist/extension.js).

Options:
  --vscode-executable PATH  the VS Code to run (the Electron binary, e.g.
                            /usr/share/code/code, or on macOS
                            ".../Visual Studio Code.app/Contents/MacOS/Electron");
                            default: env VSCODE_EXECUTABLE, else download one
  --vscode-version V        the version to download when no executable is given
                            (stable, insiders or e.g. 1.85.0; default stable);
                            downloads are kept in .vscode-test/
  --grep REGEX              run only the in-host tests whose title matches
  --keep-tmp                keep the temp workspace and user-data dir
  --out DIR                 put the bundle and host-suites.log in DIR, a folder
                            inside the checkout (the bundle loads mocha from its
                            node_modules); default: out/test-electron and
                            test-output/vscode
  --no-build                do not rebuild dist/extension.js first
  --prepare-only            bundle the suites, start sshd, write the info file,
                            print the VS Code command line, stop (no VS Code)
  -h, --help                this text

Without a display (Linux servers, CI) run it under a virtual one:
  xvfb-run -a npm run test:vscode -- --vscode-executable /usr/share/code/code
Results: test-output/vscode/host-suites.log.`;

const DEFAULT_OUT_DIR = path.join(ROOT, 'test-output', 'vscode');
const DEFAULT_BUNDLE_DIR = path.join(ROOT, 'out', 'test-electron');
const CACHE_DIR = path.join(ROOT, '.vscode-test');
const DOWNLOAD_IDLE_TIMEOUT_MS = 20_000;

class UsageError extends Error {}

export interface RunnerOptions {
  help: boolean;
  vscodeExecutable?: string;
  vscodeVersion: string;
  grep?: string;
  keepTmp: boolean;
  build: boolean;
  prepareOnly: boolean;
  /** Where host-suites.log goes. */
  outDir: string;
  /** Where the bundled runner and suites go. */
  bundleDir: string;
}

export function parseRunnerArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): RunnerOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv, allowPositionals: false, strict: true,
      options: {
        help: { type: 'boolean', short: 'h' }, 'vscode-executable': { type: 'string' }, 'vscode-version': { type: 'string' },
        grep: { type: 'string' }, out: { type: 'string' }, 'keep-tmp': { type: 'boolean' }, 'no-build': { type: 'boolean' }, 'prepare-only': { type: 'boolean' },
      },
    }));
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  if (values.grep !== undefined) {
    try { new RegExp(values.grep); } catch { throw new UsageError(`--grep ${JSON.stringify(values.grep)} is not a valid regular expression`); }
  }
  const out = values.out !== undefined ? path.resolve(values.out) : undefined;
  if (out !== undefined && (path.relative(ROOT, out).startsWith('..') || path.isAbsolute(path.relative(ROOT, out)))) throw new UsageError(`--out ${out} is outside the checkout ${ROOT}`);
  const exe = values['vscode-executable'] ?? (env.VSCODE_EXECUTABLE || undefined);
  return {
    help: values.help ?? false,
    ...(exe !== undefined ? { vscodeExecutable: path.resolve(exe) } : {}),
    vscodeVersion: values['vscode-version'] ?? 'stable',
    ...(values.grep !== undefined ? { grep: values.grep } : {}),
    keepTmp: values['keep-tmp'] ?? false,
    build: !(values['no-build'] ?? false),
    prepareOnly: values['prepare-only'] ?? false,
    outDir: out ?? DEFAULT_OUT_DIR,
    bundleDir: out !== undefined ? path.join(out, 'bundle') : DEFAULT_BUNDLE_DIR,
  };
}

function say(s: string): void { process.stdout.write(s + '\n'); }

/** The given executable, checked; else a downloaded one; else a clear error naming both ways out. */
async function resolveExecutable(o: RunnerOptions): Promise<string> {
  if (o.vscodeExecutable !== undefined) {
    const exe = o.vscodeExecutable;
    let st: fs.Stats;
    try { st = fs.statSync(exe); } catch { throw new UsageError(`VS Code executable not found: ${exe} (from --vscode-executable or VSCODE_EXECUTABLE)`); }
    if (!st.isFile()) throw new UsageError(`VS Code executable is not a file: ${exe}`);
    try { fs.accessSync(exe, fs.constants.X_OK); } catch { throw new UsageError(`VS Code executable is not executable: ${exe}`); }
    return exe;
  }
  say(`no VS Code executable given: downloading VS Code ${o.vscodeVersion} into ${path.relative(ROOT, CACHE_DIR)}/ ...`);
  const { downloadAndUnzipVSCode } = await import('@vscode/test-electron');
  try {
    return await downloadAndUnzipVSCode({ version: o.vscodeVersion, cachePath: CACHE_DIR, extensionDevelopmentPath: ROOT, timeout: DOWNLOAD_IDLE_TIMEOUT_MS });
  } catch (e) {
    const why = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    throw new Error(`no VS Code to run the tests in: none was given and downloading VS Code ${o.vscodeVersion} failed (${why}). ` +
      'Pass --vscode-executable PATH (or set VSCODE_EXECUTABLE) to a local VS Code, or run where the download can reach the network.');
  }
}

/** The VS Code arguments besides --extensionDevelopmentPath/--extensionTestsPath (runTests adds those). */
export function launchArgs(ws: string, userDataDir: string, extDir: string, platform: NodeJS.Platform = process.platform): string[] {
  return [
    ws,
    `--user-data-dir=${userDataDir}`,
    `--extensions-dir=${extDir}`,
    '--disable-extensions', // every other extension; the one under development still loads
    '--disable-telemetry',
    '--new-window',
    // No keyring on a bare Linux desktop or under xvfb: VS Code's own encrypted store, so
    // SecretStorage works and the suites' scan of the user-data dir still finds no plain password.
    ...(platform === 'linux' ? ['--password-store=basic'] : []),
  ];
}

async function main(o: RunnerOptions, cleanups: Cleanup[]): Promise<HostResults> {
  // First the VS Code: without one, nothing else is worth starting.
  const exe = o.prepareOnly ? o.vscodeExecutable ?? '<VS Code executable>' : await resolveExecutable(o);
  if (o.build) {
    say('building dist/extension.js ...');
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, [path.join(ROOT, 'esbuild.mjs'), 'extension'], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`building the extension failed (node esbuild.mjs extension: exit ${r.status ?? r.signal})`);
  }
  const bundle = await bundleHostSuites(o.bundleDir);
  say(`bundled ${path.relative(ROOT, bundle.indexJs)} and ${bundle.suites.length} suites: ${bundle.suites.map((s) => path.basename(s)).join(', ')}`);
  fs.rmSync(path.join(o.outDir, 'host-suites.log'), { force: true });
  fs.mkdirSync(o.outDir, { recursive: true });
  const env = await prepareHostEnv({
    tmpPrefix: 'gpu-rent-vscode-', logPath: path.join(o.outDir, 'host-suites.log'), cleanups, say, keepTmp: o.keepTmp,
    ...(o.grep !== undefined ? { grep: o.grep } : {}),
  });
  const args = launchArgs(env.ws, env.userDataDir, env.extDir);
  if (o.prepareOnly) {
    say(`GPU_RENT_E2E_INFO=${env.infoPath} ${exe} ${args.join(' ')} --extensionDevelopmentPath=${ROOT} --extensionTestsPath=${bundle.indexJs}`);
    return { passed: 0, failed: 0, skipped: 0, failures: [] };
  }

  const { runTests } = await import('@vscode/test-electron');
  const stopTail = followLog(env.info.logPath);
  let exitNote = '';
  try {
    await runTests({
      vscodeExecutablePath: exe, extensionDevelopmentPath: ROOT, extensionTestsPath: bundle.indexJs,
      extensionTestsEnv: { GPU_RENT_E2E_INFO: env.infoPath }, launchArgs: args,
    });
  } catch (e) {
    exitNote = e instanceof Error ? e.message : String(e); // a failing suite also exits non-zero; the results say which
  } finally {
    stopTail();
  }
  if (!fs.existsSync(env.info.resultsPath)) {
    return { passed: 0, failed: 1, skipped: 0, failures: [{ title: 'runner', error: `VS Code ran but the in-host runner wrote no results${exitNote ? ` (${exitNote})` : ''}; see the output above` }] };
  }
  return JSON.parse(fs.readFileSync(env.info.resultsPath, 'utf8')) as HostResults;
}

async function cli(): Promise<number> {
  let o: RunnerOptions;
  try {
    o = parseRunnerArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`test:vscode: ${e instanceof Error ? e.message : String(e)}\nRun "npm run test:vscode -- --help" for usage.\n`);
    return 2;
  }
  if (o.help) { say(USAGE); return 0; }
  if (process.platform === 'linux' && !o.prepareOnly && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    say('note: no DISPLAY is set; VS Code needs one (run under "xvfb-run -a" on a server)');
  }
  const cleanups: Cleanup[] = [];
  const cleanup = async (): Promise<void> => {
    for (const c of cleanups.splice(0).reverse()) { try { await c(); } catch (e) { say(`(cleanup: ${String(e)})`); } }
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => { void cleanup().then(() => process.exit(130)); });
  let res: HostResults;
  let code = 0;
  try {
    res = await main(o, cleanups);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    if (e instanceof UsageError) code = 2;
    process.stderr.write(`test:vscode: ${msg}\n`);
    res = { passed: 0, failed: 1, skipped: 0, failures: [{ title: 'harness', error: msg }] };
  }
  await cleanup();
  say('');
  for (const f of res.failures) say(`FAILED ${f.title}: ${f.error.split('\n')[0]}`);
  say(`${res.passed} passed, ${res.failed} failed, ${res.skipped} skipped`);
  return code || (res.failed > 0 ? 1 : 0);
}

if (require.main === module) void cli().then((code) => process.exit(code));

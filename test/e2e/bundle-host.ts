// The in-host runner and suites bundled for the extension host, as scripts/e2e.sh does with
// the esbuild CLI: CommonJS; vscode and mocha come from the host and the repository's
// node_modules; ssh2's optional native parts stay out. <outDir>/index.js is the
// extensionTestsPath; it runs every <outDir>/suite/*.test.js (test/vscode/index.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { ROOT } from './host-env';

const COMMON: BuildOptions = {
  bundle: true, platform: 'node', format: 'cjs', target: 'node18', sourcemap: true, logLevel: 'warning',
  external: ['vscode', 'mocha', 'cpu-features', '*.node'],
};

export interface HostBundle {
  /** The extensionTestsPath. */
  indexJs: string;
  /** The bundled suites, in the order the runner loads them. */
  suites: string[];
}

/** Bundles test/vscode/index.ts and test/vscode/suite/*.test.ts into outDir (emptied first). */
export async function bundleHostSuites(outDir: string): Promise<HostBundle> {
  fs.rmSync(outDir, { recursive: true, force: true });
  const suiteSrc = path.join(ROOT, 'test', 'vscode', 'suite');
  const indexJs = path.join(outDir, 'index.js');
  await build({ ...COMMON, entryPoints: [path.join(ROOT, 'test', 'vscode', 'index.ts')], outfile: indexJs });
  const entries = fs.existsSync(suiteSrc) ? fs.readdirSync(suiteSrc).filter((f) => f.endsWith('.test.ts')).sort().map((f) => path.join(suiteSrc, f)) : [];
  const suiteOut = path.join(outDir, 'suite');
  if (entries.length > 0) await build({ ...COMMON, entryPoints: entries, outbase: suiteSrc, outdir: suiteOut });
  else fs.mkdirSync(suiteOut, { recursive: true });
  const suites = fs.readdirSync(suiteOut).filter((f) => f.endsWith('.test.js')).sort().map((f) => path.join(suiteOut, f));
  return { indexJs, suites };
}

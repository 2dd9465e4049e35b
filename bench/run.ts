// `npm run bench`: runs every benchmark suite in bench/ (files named *.bench.ts) in one
// process and prints their ratios. Each suite exports `run(): Promise<void>`.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const suites = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
    .sort();
  for (const file of suites) {
    console.log(`\n## ${file.replace(/\.bench\.ts$/, '')}`);
    const mod = (await import(join(__dirname, file))) as { run: () => Promise<void> };
    await mod.run();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});

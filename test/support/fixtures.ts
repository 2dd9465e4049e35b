// Where the real captured fixtures live: test/fixtures/shared inside the checkout, copied
// byte-for-byte (with their SOURCES files) from the shared fixtures folder the project was
// started from. A clone needs nothing beside it. ../shared/fixtures, when a checkout happens to
// have it beside it, is only ever compared with the in-repo copy (test/unit/fixtures.test.ts).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..', '..');

/** test/fixtures/shared: holds compat/ and nvidia-smi/. */
export const FIXTURES_DIR = join(REPO_ROOT, 'test', 'fixtures', 'shared');
/** The CUDA/driver/PyTorch tables and the real mismatch cases (Markdown). */
export const COMPAT_DIR = join(FIXTURES_DIR, 'compat');
/** Real nvidia-smi outputs, one file each, and their SOURCES.md. */
export const NVIDIA_SMI_DIR = join(FIXTURES_DIR, 'nvidia-smi');

/** The in-repo fixtures folder (compat/, nvidia-smi/). */
export function fixturesDir(): string {
  return FIXTURES_DIR;
}

/** ../shared/fixtures beside the checkout when it exists (the original of the copy), else undefined. Never required. */
export function upstreamFixturesDir(): string | undefined {
  const dir = resolve(REPO_ROOT, '..', 'shared', 'fixtures');
  return existsSync(dir) ? dir : undefined;
}

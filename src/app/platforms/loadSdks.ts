// Loads the platforms' SDKs (./sdks) at the first platform call, not at start. A plain require:
// the tests' TypeScript loader resolves a relative import() through Node's ESM loader, which
// cannot find a .ts file; the CLI's build turns this require into one of dist/platform-sdks.js.
import type * as Sdks from './sdks';

export type PlatformSdks = typeof Sdks;

export function loadSdks(): PlatformSdks {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./sdks') as PlatformSdks;
}

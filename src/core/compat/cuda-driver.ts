// NVIDIA's CUDA → driver tables, transcribed from the CUDA Toolkit release notes (Table 2,
// minor-version compatibility; Table 3, toolkit → driver) and the CUDA Compatibility guide,
// as collected in shared/fixtures/compat/cuda-driver-table.md (2026-11-29). Core has no
// file access: the numbers live here, and a unit test checks them against that file.
import { atLeast, compareVersions, cudaMinor, versionParts } from './version';

export type DriverPlatform = 'linux' | 'windows';

/** Minimum driver for a CUDA minor release (GA row of Table 3), Linux x86_64 and Windows. */
export const CUDA_TOOLKIT_DRIVERS: readonly { cuda: string; linux: string; windows: string | null }[] = [
  { cuda: '13.3', linux: '610.43.02', windows: null },
  { cuda: '13.2', linux: '595.45.04', windows: null },
  { cuda: '13.1', linux: '590.44.01', windows: null },
  { cuda: '13.0', linux: '580.65.06', windows: null },
  { cuda: '12.9', linux: '575.51.03', windows: '576.02' },
  { cuda: '12.8', linux: '570.26', windows: '570.65' },
  { cuda: '12.6', linux: '560.28.03', windows: '560.76' },
  { cuda: '12.5', linux: '555.42.02', windows: '555.85' },
  { cuda: '12.4', linux: '550.54.14', windows: '551.61' },
  { cuda: '12.3', linux: '545.23.06', windows: '545.84' },
  { cuda: '12.2', linux: '535.54.03', windows: '536.25' },
  { cuda: '12.1', linux: '530.30.02', windows: '531.14' },
  { cuda: '12.0', linux: '525.60.13', windows: '527.41' },
  { cuda: '11.8', linux: '520.61.05', windows: '520.06' },
  { cuda: '11.7', linux: '515.43.04', windows: '516.01' },
  { cuda: '11.6', linux: '510.39.01', windows: '511.23' },
  { cuda: '11.5', linux: '495.29.05', windows: '496.04' },
  { cuda: '11.4', linux: '470.42.01', windows: '471.11' },
  { cuda: '11.3', linux: '465.19.01', windows: '465.89' },
  { cuda: '11.2', linux: '460.27.03', windows: '460.82' },
  { cuda: '11.1', linux: '455.23', windows: '456.38' },
  { cuda: '11.0', linux: '450.36.06', windows: '451.22' },
  { cuda: '10.2', linux: '440.33', windows: '441.22' },
  { cuda: '10.1', linux: '418.39', windows: '418.96' },
  { cuda: '10.0', linux: '410.48', windows: '411.31' },
  { cuda: '9.2', linux: '396.26', windows: '397.44' },
  { cuda: '9.1', linux: '390.46', windows: '391.29' },
  { cuda: '9.0', linux: '384.81', windows: '385.54' },
  { cuda: '8.0', linux: '367.48', windows: '369.30' },
];

/**
 * Minor-version compatibility (CUDA ≥ 11): anything built with a toolkit of the family runs on
 * any driver at or above the family minimum. Table 2 and its footnote; 13.x: "≥ 580", the
 * first 13.x driver being 580.65.06.
 */
export const MINOR_VERSION_COMPAT: Readonly<Record<number, { linux: string; windows: string }>> = {
  11: { linux: '450.80.02', windows: '452.39' },
  12: { linux: '525.60.13', windows: '528.33' },
  13: { linux: '580.65.06', windows: '580' },
};

/** The lowest driver that runs code built with this CUDA (e.g. a torch wheel's CUDA). */
export function minDriverFor(cuda: string, platform: DriverPlatform = 'linux'): string | null {
  const p = versionParts(cuda);
  if (!p || p.length < 2) return null;
  const family = MINOR_VERSION_COMPAT[p[0]!];
  if (family) return family[platform];
  const row = CUDA_TOOLKIT_DRIVERS.find((r) => r.cuda === `${p[0]}.${p[1]}`);
  if (!row) return null;
  return platform === 'windows' ? row.windows : row.linux;
}

/** The newest CUDA a driver supports (what nvidia-smi's header shows), from Table 3. */
export function driverMaxCudaFor(driver: string, platform: DriverPlatform = 'linux'): string | null {
  if (!versionParts(driver)) return null;
  for (const row of CUDA_TOOLKIT_DRIVERS) {
    // Windows drivers are no longer bundled from 13.x; their numbers track the Linux branch.
    const need = platform === 'windows' ? (row.windows ?? row.linux) : row.linux;
    if (need && atLeast(driver, need)) return row.cuda;
  }
  return null;
}

export type Fit = { fits: true; via: 'same-or-newer' | 'minor-version-compat' } | { fits: false; needDriver: string | null };

/**
 * Does code built with `buildCuda` run on this driver? Decided by the driver number when known,
 * else by the driver's max CUDA as nvidia-smi prints it.
 */
export function cudaFitsDriver(buildCuda: string, driver: { version?: string | null; maxCuda?: string | null }, platform: DriverPlatform = 'linux'): Fit {
  const build = cudaMinor(buildCuda);
  const need = build ? minDriverFor(build, platform) : null;
  if (!build) return { fits: false, needDriver: null };
  if (driver.version && versionParts(driver.version)) {
    if (need && atLeast(driver.version, need)) {
      const max = driverMaxCudaFor(driver.version, platform);
      return { fits: true, via: max && compareVersions(max, build) < 0 ? 'minor-version-compat' : 'same-or-newer' };
    }
    return { fits: false, needDriver: need };
  }
  const max = driver.maxCuda ? cudaMinor(driver.maxCuda) : null;
  if (!max) return { fits: false, needDriver: need };
  if (compareVersions(max, build) >= 0) return { fits: true, via: 'same-or-newer' };
  const bMajor = versionParts(build)![0]!;
  const dMajor = versionParts(max)![0]!;
  // Same ≥ 11 family: the family minimum (e.g. 450.80.02) is met by every driver reporting
  // 11.1 or later; an 11.0 driver may be older than 450.80.02, so it is not assumed.
  if (bMajor >= 11 && bMajor === dMajor && compareVersions(max, `${dMajor}.0`) > 0) return { fits: true, via: 'minor-version-compat' };
  if (bMajor >= 13 && bMajor === dMajor) return { fits: true, via: 'minor-version-compat' };
  return { fits: false, needDriver: need };
}

/** PyTorch's "found version 11040" → "11.4". */
export function cudaFromDriverCode(code: number): string | null {
  if (!Number.isInteger(code) || code < 1000 || code > 99999) return null;
  return `${Math.floor(code / 1000)}.${Math.floor((code % 1000) / 10)}`;
}

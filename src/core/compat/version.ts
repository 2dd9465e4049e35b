// Dotted version numbers and CUDA tags, compared as numbers ("525.147.05" > "525.60.13").

export function versionParts(v: string): number[] | null {
  const m = /^\s*(\d+(?:\.\d+)*)/.exec(v);
  if (!m) return null;
  return m[1]!.split('.').map(Number);
}

/** <0, 0, >0 like a comparator; missing components count as 0. Unparseable sorts first. */
export function compareVersions(a: string, b: string): number {
  const pa = versionParts(a) ?? [];
  const pb = versionParts(b) ?? [];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export const atLeast = (v: string, min: string): boolean => compareVersions(v, min) >= 0;

/** "cu121" → "12.1", "cu92" → "9.2", "cu100" → "10.0", "cu130" → "13.0"; else null. */
export function cudaFromTag(tag: string): string | null {
  const m = /^cu(\d{2,4})$/.exec(tag.trim().toLowerCase());
  if (!m) return null;
  const d = m[1]!;
  return `${Number(d.slice(0, -1))}.${d.slice(-1)}`;
}

/** "12.1.105" → "12.1". */
export function cudaMinor(cuda: string): string | null {
  const p = versionParts(cuda);
  return p && p.length >= 2 ? `${p[0]}.${p[1]}` : null;
}

export interface TorchVersion {
  /** "2.1.0" (a release; "2.1" is read as "2.1.0"). */
  release: string;
  /** "cu121" | "cpu" | "rocm5.6" … the local tag after '+', or null for a plain PyPI version. */
  local: string | null;
  /** True for nightlies / pre-releases (2.5.0.dev20240801, 2.1.0a0). */
  prerelease: boolean;
}

export function parseTorchVersion(raw: string): TorchVersion | null {
  const m = /^\s*v?(\d+)\.(\d+)(?:\.(\d+))?((?:a|b|rc|\.dev|\.post|dev)[0-9a-z.]*)?(?:\+([0-9A-Za-z.]+))?\s*$/.exec(raw);
  if (!m) return null;
  return { release: `${m[1]}.${m[2]}.${m[3] ?? '0'}`, local: m[5] ? m[5].toLowerCase() : null, prerelease: Boolean(m[4]) && !/^\.post/.test(m[4]!) };
}

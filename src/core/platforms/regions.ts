// Which regions of a cloud account are read. An account's `region` was one region id; it may
// now also be "all" (the regions DescribeRegions names) or a list the user chose. Absent means
// all: instances in a region nobody named are not silently invisible. Pure.

export const REGION_ID = /^[a-z0-9-]{2,40}$/;
/** The most regions one account reads (阿里云 and 腾讯云 each have about 30). */
export const MAX_REGIONS = 50;
/** Regions read at once for one account. */
export const REGION_PARALLEL = 4;

/** What the account stores: one region (the old form), "all", or a list. */
export type StoredRegion = string | string[] | undefined;
/** 'all', or the regions to read (at least one, no duplicates). */
export type RegionChoice = 'all' | string[];

export function regionChoice(region: StoredRegion): RegionChoice {
  if (region === undefined || region === 'all') return 'all';
  const list = typeof region === 'string' ? [region] : region;
  const ok = [...new Set(list.filter((r) => REGION_ID.test(r) && r !== 'all'))].slice(0, MAX_REGIONS);
  return ok.length ? ok : 'all';
}

/** "all", "cn-hangzhou" or "cn-hangzhou, cn-beijing" (as typed in the CLI or the extension) → what the account stores. */
export function parseRegionText(text: string): { ok: true; region: string | string[] } | { ok: false; message: string } {
  const t = text.trim().toLowerCase();
  if (t === '' || t === 'all') return { ok: true, region: 'all' };
  const parts = t.split(/[\s,]+/).filter(Boolean);
  const bad = parts.find((p) => !REGION_ID.test(p) || p === 'all');
  if (bad !== undefined) return { ok: false, message: `"${bad.slice(0, 40)}" is not a region id (letters, digits and dashes, e.g. cn-hangzhou)` };
  const list = [...new Set(parts)];
  if (list.length > MAX_REGIONS) return { ok: false, message: `at most ${MAX_REGIONS} regions` };
  return { ok: true, region: list.length === 1 ? list[0]! : list };
}

/** The account's regions in words: "all regions" or the list. */
export function regionText(region: StoredRegion): string {
  const c = regionChoice(region);
  return c === 'all' ? 'all' : c.join(',');
}

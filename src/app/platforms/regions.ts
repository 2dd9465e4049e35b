// Reading a cloud account region by region: at most REGION_PARALLEL at once, each read through
// the connector's own bounded SDK wrapper. A region that fails is never dropped silently (it
// would hide its instances and their bills): the read fails with RegionsFailed, which names the
// failing regions and carries the instances of the regions that answered, for a front end that
// can show them beside the failure (gpu-rent instances). A caller that does not know it sees a
// failed read, as before: nothing is reconciled against a partial list.
import { MAX_REGIONS, REGION_PARALLEL, type RegionChoice } from '../../core/platforms/regions';
import { mapLimited } from '../../remote/util/limit';
import { MAX_INSTANCES_PER_ACCOUNT, type PlatformInstance, type PlatformKind } from '../../core/platforms/types';
import { PlatformError } from './errors';

/** A region's failure names the region. */
export function inRegion(region: string, e: unknown): unknown {
  if (e instanceof PlatformError) return new PlatformError({ ...e.failure, message: `${region}: ${e.failure.message}`.slice(0, 500) });
  return e;
}

/** Some regions of a cloud account failed: named here, with the other regions' instances. */
export class RegionsFailed extends PlatformError {
  constructor(
    failure: PlatformError['failure'],
    readonly instances: PlatformInstance[],
    readonly failed: { region: string; message: string }[],
  ) {
    super(failure);
    this.name = 'RegionsFailed';
  }
}

/** One region's instances, page by page, until the platform's total or MAX_INSTANCES_PER_ACCOUNT. */
export async function allPages(page: (n: number) => Promise<{ instances: PlatformInstance[]; total: number }>, first: number): Promise<PlatformInstance[]> {
  const out: PlatformInstance[] = [];
  for (let n = first; out.length < MAX_INSTANCES_PER_ACCOUNT; n++) {
    const p = await page(n);
    out.push(...p.instances);
    if (out.length >= p.total || p.instances.length === 0) break;
  }
  return out.slice(0, MAX_INSTANCES_PER_ACCOUNT);
}

/** Where each instance of a cloud account lives, learnt from the lists; an instance not listed yet is looked for in each region. */
/**
 * The regions a cloud connector reads: the user's list (at most MAX_REGIONS), or, for 'all', the
 * cloud's own region list asked once per connector (a failed ask is asked again next time); the
 * home region alone when the answer names none.
 */
export class RegionList {
  private asked: Promise<string[]> | undefined;
  constructor(
    private readonly choice: RegionChoice | undefined,
    private readonly home: string,
    private readonly ask: () => Promise<string[]>,
  ) {}

  get(): Promise<string[]> {
    const choice = this.choice ?? [this.home];
    if (choice !== 'all') return Promise.resolve(choice.slice(0, MAX_REGIONS));
    return (this.asked ??= this.ask()
      .then((all) => {
        const ids = all.slice(0, MAX_REGIONS);
        return ids.length ? ids : [this.home];
      })
      .catch((e: unknown) => {
        this.asked = undefined;
        throw e;
      }));
  }
}

export class RegionIndex {
  private readonly regionOf = new Map<string, string>();

  constructor(
    private readonly kind: PlatformKind,
    private readonly regions: () => Promise<string[]>,
    /** Keep a row's own region where the parser found one (阿里云's RegionId); else the region it was listed in. */
    private readonly rowRegionFirst: boolean,
  ) {}

  /** Every region's instances, at most REGION_PARALLEL regions at once, each row with its region. */
  async listAll(listRegion: (region: string) => Promise<PlatformInstance[]>): Promise<PlatformInstance[]> {
    const regions = await this.regions();
    const per = await mapLimited(regions, REGION_PARALLEL, (r) => listRegion(r).then((list) => ({ list }), (e: unknown) => ({ error: regions.length > 1 ? inRegion(r, e) : e })));
    const errors = per.flatMap((x, k) => ('error' in x ? [{ region: regions[k]!, error: x.error }] : []));
    // Every region failed (or the only one): the first failure, as it is.
    if (errors.length === regions.length && errors.length) throw errors[0]!.error;
    const out: PlatformInstance[] = [];
    for (const [k, x] of per.entries()) {
      if (!('list' in x)) continue;
      for (const p of x.list) {
        if (out.length >= MAX_INSTANCES_PER_ACCOUNT) break;
        this.regionOf.set(p.ref, regions[k]!);
        out.push({ ...p, region: (this.rowRegionFirst ? p.region : undefined) ?? regions[k]! });
      }
    }
    if (errors.length) {
      const first = errors[0]!.error;
      const failed = errors.map((e) => ({ region: e.region, message: e.error instanceof Error ? e.error.message.slice(0, 300) : String(e.error).slice(0, 300) }));
      const base = first instanceof PlatformError ? first.failure : { platform: this.kind, kind: 'other' as const, code: 'RegionFailed', message: failed[0]!.message };
      throw new RegionsFailed({ ...base, message: `${base.message}${failed.length > 1 ? ` (${failed.slice(1).map((f) => f.region).join(', ')} failed too)` : ''}; the other ${regions.length - errors.length} region(s) listed`.slice(0, 500) }, out, failed);
    }
    return out;
  }

  /** The region of an instance: where the last list saw it, else the first region (in order) that has it. */
  async find(ref: string, rowIn: (region: string, ref: string) => Promise<Record<string, unknown> | undefined>): Promise<{ region: string; row?: Record<string, unknown> }> {
    const known = this.regionOf.get(ref);
    if (known) return { region: known };
    const regions = await this.regions();
    if (regions.length === 1) return { region: regions[0]! };
    const found = await mapLimited(regions, REGION_PARALLEL, (r) => rowIn(r, ref).catch((e: unknown) => Promise.reject(inRegion(r, e))));
    const k = found.findIndex((x) => x !== undefined);
    if (k < 0) throw new PlatformError({ platform: this.kind, kind: 'notFound', code: 'InvalidInstanceId.NotFound', message: `${ref} (not in ${regions.join(', ').slice(0, 300)})` });
    this.regionOf.set(ref, regions[k]!);
    return { region: regions[k]!, row: found[k]! };
  }
}

// The raw rows of a connector's last list, by instance id: each answers one later read in the
// same refresh (a cloud's price needs the row's type and zone, the AutoDL console's login is in
// its row) instead of another Describe or list request. Taken once, so a row never stands in
// for the platform beyond the refresh it was read in.
import { MAX_INSTANCES_PER_ACCOUNT } from '../../core/platforms/types';

export class ListedRows {
  private readonly rows = new Map<string, Record<string, unknown>>();

  constructor(private readonly idKey: string) {}

  /** A new list begins: the last one's rows no longer hold. */
  clear(): void {
    this.rows.clear();
  }

  /** One page's rows (bounded like the list itself). */
  put(rows: unknown): void {
    if (!Array.isArray(rows)) return;
    for (const r of rows.slice(0, MAX_INSTANCES_PER_ACCOUNT)) {
      if (this.rows.size >= MAX_INSTANCES_PER_ACCOUNT) return;
      if (!r || typeof r !== 'object' || Array.isArray(r)) continue;
      const id = (r as Record<string, unknown>)[this.idKey];
      if (typeof id === 'string' && !this.rows.has(id)) this.rows.set(id, r as Record<string, unknown>);
    }
  }

  take(ref: string): Record<string, unknown> | undefined {
    const r = this.rows.get(ref);
    this.rows.delete(ref);
    return r;
  }
}

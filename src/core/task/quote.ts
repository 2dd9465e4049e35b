// The task's resources against the price catalog: every platform × card × hourly or spot price
// that fits (the cards accepted, the platforms allowed, the VRAM, the ¥/h cap, spot only when
// allowed), cheapest first, each with its source and date. What a launch shows before it rents.
import type { Catalog, Provenance } from '../catalog';
import { cardById } from '../cards';
import type { Fen } from '../money';
import type { Task } from './types';

export interface TaskQuoteRow {
  platform: string;
  platformName: { zh: string; en: string };
  card: string;
  mode: 'hour' | 'spot';
  gpus: number;
  /** All GPUs together, per hour; the catalog's range (min = max when it names one figure). */
  fenPerHour: { min: Fen; max: Fen };
  source: Provenance['source'];
  asOf: Provenance['asOf'];
  readAt?: Provenance['readAt'];
  derived: boolean;
}

export interface TaskQuote {
  rows: TaskQuoteRow[];
  /** Why nothing fits, when nothing does. */
  empty?: 'noCard' | 'overCap' | 'noPlatform';
}

export function quoteTask(catalog: Catalog, task: Pick<Task, 'resources'>): TaskQuote {
  const r = task.resources;
  const wantCards = new Set(r.cards);
  const rows: TaskQuoteRow[] = [];
  let seenCard = false;
  let seenPlatform = false;
  for (const p of catalog.platforms) {
    if (r.platforms.length && !r.platforms.includes(p.id)) continue;
    // A free quota (AI Studio's V100, Colab's T4) is not a box a launch rents: quoted only when the task names that platform (issue 41 friction).
    if (p.kind === 'free' && !r.platforms.includes(p.id)) continue;
    seenPlatform = true;
    for (const price of p.prices) {
      if (price.mode !== 'hour' && !(price.mode === 'spot' && r.spot)) continue;
      if (wantCards.size && !wantCards.has(price.card)) continue;
      const spec = cardById(price.card);
      if (r.minVramGb !== undefined && (!spec || spec.vramGb < r.minVramGb)) continue;
      if (!price.price) continue;
      seenCard = true;
      const fenPerHour = { min: price.price.min * r.gpus, max: price.price.max * r.gpus };
      if (r.maxFenPerHour !== undefined && fenPerHour.min > r.maxFenPerHour) continue;
      rows.push({ platform: p.id, platformName: p.name, card: price.card, mode: price.mode, gpus: r.gpus, fenPerHour, source: price.source, asOf: price.asOf, ...(price.readAt ? { readAt: price.readAt } : {}), derived: price.derived === true });
    }
  }
  rows.sort((a, b) => a.fenPerHour.min - b.fenPerHour.min || a.fenPerHour.max - b.fenPerHour.max || a.platform.localeCompare(b.platform) || a.card.localeCompare(b.card));
  return rows.length ? { rows } : { rows, empty: !seenPlatform ? 'noPlatform' : seenCard ? 'overCap' : 'noCard' };
}

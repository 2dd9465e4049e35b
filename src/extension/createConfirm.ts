// New Instance's words that decide what the renter sees before a billing create (issue 41 bug 7),
// built as data so they are testable: the card by its name (AutoDL Pro's `v-48g` is a 4090-48G),
// a price per hour in every confirmation (the platform's quote, else the catalog's figure marked
// as the catalog's with its source and date, else `?` said plainly), Cancel first and the close
// affordance (Enter never creates), and step titles that say where the user is.
import { findCard } from '../core/cards';
import type { Catalog } from '../core/catalog';
import { formatCny } from '../core/money';
import { AUTODL_BASE_IMAGE_CUDA, AUTODL_SPEC_CARDS } from '../core/platforms/autodl';
import { CATALOG_PLATFORM, type PlatformKind } from '../core/platforms/types';
import { PLATFORM_DESCRIPTORS } from '../core/platforms/descriptors';
import type { L10n } from '../core/l10n';
import { compareVersions } from '../core/compat/version';
import type { StockReading } from '../core/startNow';
import { datingText } from './view/present';
import { prefillPricing } from './prefill';
import { catalogSourceText } from './words/sourceWords';

/** A create that picks from the platform's spec list (AutoDL Pro's `gpu_spec_uuid`s, as its descriptor says), whose page also lists the public images. */
const specCards = (kind: PlatformKind): boolean => PLATFORM_DESCRIPTORS[kind].create?.spec === 'cardList';

/** The card as people name it: AutoDL Pro's spec id mapped to its card (`v-48g` → `4090-48G (v-48g)`); others as given. */
export function cardLabel(kind: PlatformKind, card: string): string {
  const name = specCards(kind) ? AUTODL_SPEC_CARDS[card] : undefined;
  return name && name !== card ? `${name} (${card})` : card;
}

/** The catalog's price per hour for `gpus` of a card on the account's platform, with where it comes from; undefined when the catalog has none. */
export function catalogPrice(catalog: Catalog, kind: PlatformKind, card: string, gpus: number): { fenPerHour: number; source: string; dating: NonNullable<ReturnType<typeof prefillPricing>['priceSource']>['dating'] } | undefined {
  const name = (specCards(kind) ? AUTODL_SPEC_CARDS[card] : undefined) ?? card;
  if (!findCard(name, catalog.cards)) return undefined;
  const pre = prefillPricing(catalog, CATALOG_PLATFORM[kind], name, gpus, 'hour', 0);
  return pre.priceSource && pre.pricing.hourlyRate > 0 ? { fenPerHour: pre.pricing.hourlyRate, source: pre.priceSource.source, dating: pre.priceSource.dating } : undefined;
}

/** The price line of the confirmation: the platform's quote, else the catalog's (marked, with source and date), else `?`. */
export function createPriceLine(platformFen: number | undefined, catalog: ReturnType<typeof catalogPrice>, l10n: L10n): string {
  if (platformFen !== undefined) return l10n.t('Price: {0}/h (the platform’s quote)', formatCny(platformFen));
  if (catalog) return l10n.t('Price: about {0}/h — the catalog’s figure ({1}, {2}), not the platform’s quote: the platform quotes none before a create; the tree shows its own price once the instance exists.', formatCny(catalog.fenPerHour), catalogSourceText(catalog.source, l10n), datingText(catalog.dating, l10n));
  return l10n.t('Price: ?/h — the platform quotes none before a create and the catalog has none for this card: look it up in the platform’s console before you create; the tree shows the price once the instance exists.');
}

/** The confirmation's buttons: Cancel first and the close affordance, so Enter or Escape never creates. */
export function createButtons(existing: boolean, l10n: L10n): { title: string; go: boolean; isCloseAffordance?: boolean }[] {
  return [
    { title: l10n.t('Cancel'), go: false, isCloseAffordance: true },
    { title: existing ? l10n.t('Show It') : l10n.t('Create (Starts Billing)'), go: true },
  ];
}

/** A step's title: "New Instance on <account> (2/7): card". */
export function stepTitle(account: string, n: number, total: number, what: string, l10n: L10n): string {
  return l10n.t('New Instance on {0} ({1}/{2}): {3}', account, n, total, what);
}

/** The public images the platform's page lists, newest CUDA first (AutoDL Pro's appendix); none elsewhere (typed there). */
export function imageChoices(kind: PlatformKind): { id: string; cuda: string }[] {
  if (!specCards(kind)) return [];
  return Object.entries(AUTODL_BASE_IMAGE_CUDA)
    .map(([id, cuda]) => ({ id, cuda }))
    .sort((x, y) => compareVersions(y.cuda, x.cuda) || x.id.localeCompare(y.id));
}

/**
 * Free cards of an AutoDL Pro spec now, from the stock readings (AutoDL's pool rows a source maps
 * to that spec): summed over regions; undefined where no reading names it (shown as nothing, not 0).
 */
export function specStock(readings: readonly StockReading[], spec: string): { free: number; known: boolean } | undefined {
  let free = 0;
  let seen = false;
  let known = true;
  for (const r of readings) {
    if (!r.ok) continue;
    for (const row of r.rows) {
      if (row.proSpec !== spec) continue;
      seen = true;
      if (row.free !== undefined) free += row.free;
      else if (row.status !== 'soldOut') known = false;
    }
  }
  return seen ? { free, known } : undefined;
}

/** The card row's stock words: "3 free now", "sold out now", "free: ?" where a row gave no count; '' where none read. */
export function stockWords(s: ReturnType<typeof specStock>, l10n: L10n): string {
  if (!s) return '';
  if (s.free > 0) return l10n.t('{0} free now', s.free);
  return s.known ? l10n.t('sold out now') : l10n.t('free: ?');
}

// Start now: asked only when the host has accounts, for the rows shown, again each minute while
// the page exists (it is dropped when the panel is hidden); the host answers through its cache.
import type { QuoteRow } from '../core/cost';
import { startNowText } from '../core/quote-notes';
import { MAX_STOCK_KEYS, type HostMessage, type StartNowMark, type StockKey } from './protocol';
import { fill } from './strings';
import { h, page, post } from './calculator-page';

export const STOCK_EVERY_MS = 60_000;
let stockAvailable = false;
let marks = new Map<string, StartNowMark['mark']>();
let marksAt: number | undefined;
let stockAsked = { keys: '', at: 0, id: 100 };
let shownKeys: StockKey[] = [];
const stockKey = (k: { platform: string; card: string; gpus: number }) => `${k.platform}\u0000${k.card}\u0000${k.gpus}`;

export function askStock(rows: readonly QuoteRow[]): void {
  const keys = [...new Map(rows.map((r) => [stockKey(r), { platform: r.platform, card: r.card, gpus: r.gpus }])).values()].slice(0, MAX_STOCK_KEYS);
  shownKeys = keys;
  if (!stockAvailable || !keys.length) return;
  const sig = keys.map(stockKey).join('\u0001');
  if (sig === stockAsked.keys && Date.now() - stockAsked.at < STOCK_EVERY_MS) return;
  stockAsked = { keys: sig, at: Date.now(), id: stockAsked.id + 1 };
  post({ type: 'stockWanted', requestId: stockAsked.id, rows: keys });
}

/** The row's mark under its platform: can start now (where) / none free now / not checked; nothing without an account. */
export function startNowNode(r: QuoteRow): HTMLElement | undefined {
  const m = marks.get(stockKey(r));
  const text = m ? startNowText(m, page.locale, 1) : undefined;
  if (!m || !text) return undefined;
  return h('div', { class: `startnow startnow-${m.state}`, 'data-startnow': m.state === 'unknown' ? m.reason : m.state, title: marksAt ? fill(page.S.startNowTitle, { 0: new Date(marksAt).toLocaleTimeString() }) : undefined }, text);
}

/** The host says whether it has accounts to ask. */
export function stockAvailability(available: boolean): void {
  stockAvailable = available;
  // Accounts changed: ask afresh (the host's cache still reads each account at most once a minute).
  stockAsked = { ...stockAsked, at: 0 };
  if (!stockAvailable) marks = new Map();
}

/** Takes the host's marks; false for an answer to an older question (stale, dropped). */
export function takeMarks(msg: Extract<HostMessage, { type: 'startNow' }>): boolean {
  // Only the answer to the last question; an older one is stale.
  if (msg.requestId !== stockAsked.id) return false;
  marks = new Map(msg.marks.map((m) => [stockKey(m.key), m.mark]));
  marksAt = Date.now();
  return true;
}

/** Each minute: true when the rows shown should be asked about again (the page is visible and the host has accounts). */
export function stockDue(): boolean {
  if (stockAvailable && document.visibilityState === 'visible' && shownKeys.length) {
    stockAsked = { ...stockAsked, at: 0 };
    return true;
  }
  return false;
}

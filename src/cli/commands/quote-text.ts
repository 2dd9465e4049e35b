// `gpu-rent quote` as text: the job line, the table and the notes under it, in en or zh-cn.
import { cardById } from '../../core/cards';
import { dating, findPlatform, formatDating, WARNING_TEXT, type Catalog, type FenRange, type WarningCode } from '../../core/catalog';
import { breakEvenHours, midpoint, SPOT_LIMIT_HOURS, starExclusion, type QuoteResult, type QuoteRow, type Skipped } from '../../core/cost';
import { formatFenRange, formatHours, formatHoursRange, formatNumRange, renderTable } from '../../core/format';
import { beyondMeasuredGpus, MEASURED_TWO_GPU_SPEEDUP, multiGpuSpeedup, relativeSpeed } from '../../core/perf';
import { QUOTE_NOTE_TEXT, quoteNoteText, startNowText, type QuoteLang, type QuoteNoteCode } from '../../core/quote-notes';
import { forTerminal } from '../../core/text';
import type { Built } from './quote-flags';
import type { QuoteStockMarks } from './quote-stock';
import { quoteWords, type QuoteWords } from './quote-words';

/** The notes `gpu-rent quote` lists under Warnings (the others have a footnote of their own). */
const LISTED_NOTES: readonly QuoteNoteCode[] = ['vramShort', 'noCuda', 'exceedsFreeQuota', 'spotLongJob', 'idleKeptRunning', 'storageBundledUnpriced', 'bandwidthBundledUnpriced', 'multiGpuPcie', 'multiGpuEstimate', 'priceDerived'];

export function cardLabel(id: string): string {
  const name = cardById(id)?.name ?? id;
  // "RTX 4090 24GB" reads as "RTX 4090"; keep the size where it tells variants apart (A100 40/80GB).
  return /^(rtx|t4)/.test(id) ? name.replace(/ \d+GB$/, '') : name;
}

function platformLabel(catalog: Catalog, id: string): string {
  return findPlatform(catalog, id)?.name.zh ?? id;
}

function cell(r: FenRange, unpriced: boolean): string {
  if (unpriced) return '?';
  if (r.max === 0) return '-';
  return formatFenRange(r);
}

/** A note's words as the CLI prints them (the VRAM note names its flag). */
export function noteLine(code: QuoteNoteCode, lang: QuoteLang): string {
  const text = quoteNoteText(code, lang) ?? code;
  return code === 'vramShort' ? text + quoteWords(lang).vramFlagHint : text;
}

class QuoteText {
  readonly w: QuoteWords;
  constructor(
    readonly catalog: Catalog,
    readonly b: Built,
    readonly lang: QuoteLang,
    readonly stock?: QuoteStockMarks,
  ) {
    this.w = quoteWords(lang);
  }

  hours(h: number): string {
    return this.w.hours(formatHours(h));
  }

  dated(p: Parameters<typeof dating>[0]): string {
    const d = dating(p);
    return this.w.dating(d, formatDating(d));
  }

  header(): string {
    const { w, b } = this;
    const i = b.input;
    const card = cardLabel(b.refCard.id);
    const job =
      b.measured === 'default'
        ? w.jobDefault(this.hours(i.gpuHours), card) + (b.explicitCard && b.explicitCard.id !== b.refCard.id ? w.quotedOn(cardLabel(b.explicitCard.id)) : '')
        : b.measured === 'steps'
          ? w.jobSteps(this.hours(i.gpuHours), card)
          : w.jobHours(this.hours(i.gpuHours), card);
    const gpus = i.gpus ?? 1;
    const parts = [w.job(job), w.gpusPerInstance(gpus), w.dataDisk(i.storageGb ?? 0, i.days ?? 0), w.idleHours(i.idleHours ?? 0), w.download(i.downloadGb ?? 0), w.needsVram(i.vramNeededGb ?? 0)];
    if (i.includeSpot) parts.push(w.spot(i.reclaimRatePerHour ?? 0, this.hours(i.checkpointIntervalHours ?? 1)));
    if (gpus > 1) parts[1] += beyondMeasuredGpus(gpus) ? w.gpusEstimate(multiGpuSpeedup(gpus).toFixed(2)) : w.gpusMeasured(MEASURED_TWO_GPU_SPEEDUP);
    const dates = [...new Set(this.catalog.platforms.flatMap((p) => p.prices.map((x) => this.dated(x))))].sort();
    return `${parts.join(w.sep)}${w.end}\n${w.prices(dates.join(w.listSep))}\n\n`;
  }

  idleCell(r: QuoteRow): string {
    switch (r.idleBasis) {
      case 'none':
        return '-';
      case 'unpriced':
        return '?';
      case 'inPlan':
        return this.w.inPlan;
      case 'storageOnly':
        return this.w.diskOnly;
      default:
        return `${formatFenRange(r.breakdown.idle)} ${this.w.idleTag[r.idleBasis]}`;
    }
  }

  table(rows: QuoteRow[], cheapest: QuoteRow | undefined): string {
    const { w, catalog } = this;
    const showRework = Boolean(this.b.input.includeSpot);
    const H = w.head;
    const head = ['', H.platform, H.card, H.billing, H.hours, H.gpu, H.disk, H.idle, H.download, ...(showRework ? [H.rework] : []), H.total, H.price, ...(this.stock ? [H.startNow] : [])];
    const body = rows.map((r) => [
      r === cheapest ? '*' : '',
      platformLabel(catalog, r.platform),
      `${r.gpus > 1 ? `${r.gpus}×` : ''}${cardLabel(r.card)}`,
      r.periods !== null ? `${w.mode(r.mode)} ×${r.periods}` : w.mode(r.mode),
      `${r.hoursEstimated ? '~' : ''}${this.hours(r.wallHours)}`,
      cell(r.breakdown.gpu, false),
      cell(r.breakdown.storage, r.unpriced.includes('storage')),
      this.idleCell(r),
      cell(r.breakdown.download, r.unpriced.includes('download')),
      ...(showRework ? [cell(r.breakdown.spotRework, false)] : []),
      `${formatFenRange(r.total)}${r.unpriced.length ? ' +?' : ''}`,
      w.aside(`${formatFenRange(r.price.perPeriod)}${w.period[r.mode]}`, this.dated(r.price)),
      ...(this.stock ? [this.startNowCell(r)] : []),
    ]);
    const align: ('l' | 'r')[] = ['l', 'l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', ...(showRework ? ['r' as const] : []), 'r', 'l', ...(this.stock ? ['l' as const] : [])];
    return renderTable([head, ...body], align);
  }

  /** The row's start-now mark (its first place): the platform's region words made safe for a terminal. */
  startNowCell(r: QuoteRow): string {
    const s = this.stock?.marks.get(r);
    return s ? forTerminal(startNowText(s, this.lang, 1) ?? '') : '';
  }

  stockLines(): string[] {
    const st = this.stock?.stock;
    if (!st) return [];
    if (!st.accounts.length) return [this.w.stockNoAccounts];
    const time = new Date(st.readAt * 1000).toISOString().slice(11, 19);
    return [this.w.stockRead(time, st.accounts.filter((a) => a.ok).length, st.accounts.length), ...st.accounts.filter((a) => !a.ok).map((a) => this.w.stockFailed(forTerminal(a.account), a.error ?? '?'))];
  }

  skipText(s: Skipped): string {
    const { w } = this;
    const name = platformLabel(this.catalog, s.platform);
    const card = s.card ? ` ${cardLabel(s.card)}` : '';
    const mode = s.mode ? w.mode(s.mode) : String(s.mode);
    switch (s.reason) {
      case 'noPrices':
        return w.skipNoPrices(name);
      case 'noFigure':
        return w.skipNoFigure(name, card, mode);
      case 'vramShort':
        return w.skipVramShort(name, card, String(cardById(s.card ?? '')?.vramGb ?? '?'), this.b.input.vramNeededGb ?? 0);
      case 'cardNotPriced':
        return w.skipCardNotPriced(name, card);
      case 'noSpeedEstimate':
        return w.skipNoSpeed(name, card);
      case 'beyondBounds':
        return w.skipBeyondBounds(name, card, mode);
    }
  }

  rowName(r: QuoteRow): string {
    return `${platformLabel(this.catalog, r.platform)} ${cardLabel(r.card)} ${this.w.mode(r.mode)}`;
  }

  footnotes(result: QuoteResult, cheapest: QuoteRow | undefined): string {
    const { w, b, catalog } = this;
    const out: string[] = [];
    const rows = result.rows;
    if (cheapest) out.push(w.cheapest(this.rowName(cheapest), formatFenRange(cheapest.total)));
    const passedOver = rows.filter((r) => (cheapest ? midpoint(r.total) < midpoint(cheapest.total) : true) && starExclusion(r) !== null);
    if (passedOver.length) {
      const why = (r: QuoteRow) => (starExclusion(r) === 'spotOverLimit' ? w.whySpot(this.hours(r.wallHours), SPOT_LIMIT_HOURS) : w.whyUnpriced(r.unpriced.map((u) => w.unpricedPart(u))));
      out.push(w.notStarred(passedOver.map((r) => w.aside(this.rowName(r), why(r))).join(w.listSep)));
    }
    if (rows.some((r) => r.hoursEstimated)) out.push(w.estimated(cardLabel(b.refCard.id), relativeSpeed(cardById('rtx3090')!, cardById('rtx4090')!)!.toFixed(2)));
    const bases = new Set(rows.map((r) => r.idleBasis));
    if ([...bases].some((x) => x !== 'none')) out.push(w.idleFoot([...bases].flatMap((x) => (w.idleText[x] ? [w.idleText[x]] : [])).join(w.listSep)));
    if (rows.some((r) => r.unpriced.length)) out.push(w.unpricedFoot);
    if (rows.some((r) => r.mode === 'spot')) out.push(w.spotFoot);
    if (rows.some((r) => r.total.min !== r.total.max)) out.push(w.rangesFoot);
    if (b.input.downloadGb) {
      const dl = [...new Map(rows.filter((r) => r.downloadHours).map((r) => [r.platform, `${platformLabel(catalog, r.platform)} ${this.hoursRange(r)}`])).values()];
      if (dl.length) out.push(w.downloading(b.input.downloadGb, dl.join(w.itemSep), !b.input.downloadInNoGpuMode));
    }
    if (b.explicitCard) {
      for (const id of [...new Set(rows.map((r) => r.platform))]) {
        const p = findPlatform(catalog, id)!;
        const be = breakEvenHours(p, b.explicitCard.id);
        if (!be.length) continue;
        const parts = be.map((x) => w.breakEvenPart(w.mode(x.longer), w.mode(x.shorter), formatNumRange(x.units, x.shorter === 'hour' ? 0 : 1), w.breakEvenUnit[x.shorter] ?? x.shorter));
        out.push(w.breakEven(p.name.zh, cardLabel(b.explicitCard.id), parts.join(w.listSep)));
      }
    }
    if (result.skipped.length) out.push(w.notQuoted(result.skipped.map((s) => this.skipText(s)).join(w.listSep)));
    out.push(...this.stockLines());
    const warnings = this.warnings(rows);
    if (warnings.length) out.push([w.warnings, ...warnings].join('\n'));
    return out.length ? '\n' + out.join('\n') + '\n' : '';
  }

  hoursRange(r: QuoteRow): string {
    const d = r.downloadHours!;
    if (this.lang === 'en') return formatHoursRange(d);
    const [a, b] = [this.hours(d.min), this.hours(d.max)];
    return a === b ? a : `${a}–${b}`;
  }

  /** One line per row note, then one line per catalog warning naming every platform in the table it applies to. */
  warnings(rows: QuoteRow[]): string[] {
    const { catalog, w } = this;
    const notes: string[] = [];
    for (const r of rows) {
      for (const n of r.notes) {
        if (!(LISTED_NOTES as readonly string[]).includes(n) || !(n in QUOTE_NOTE_TEXT)) continue;
        const code = n as QuoteNoteCode;
        const who = `${platformLabel(catalog, r.platform)}${code === 'storageBundledUnpriced' || code === 'bandwidthBundledUnpriced' ? '' : ` ${cardLabel(r.card)}`}${code === 'spotLongJob' || code === 'priceDerived' ? w.spotWord : ''}`;
        const line = `  ${who}${w.colon}${noteLine(code, this.lang)}`;
        if (!notes.includes(line)) notes.push(line);
      }
    }
    const byCode = new Map<WarningCode, string[]>();
    for (const id of [...new Set(rows.map((r) => r.platform))]) {
      const p = findPlatform(catalog, id)!;
      for (const c of p.warnings) byCode.set(c, [...(byCode.get(c) ?? []), p.name.zh]);
    }
    const warned = [...byCode].map(([c, names]) => {
      const t = WARNING_TEXT[c];
      return `  ${names.join(w.itemSep)}${w.colon}${w.aside(this.lang === 'zh-cn' ? t.zh : t.en, w.ref(t.ref))}`;
    });
    return [...notes, ...warned];
  }

  noRows(): string {
    const c = this.b.explicitCard;
    let text = this.w.noRows(c ? cardLabel(c.id) : undefined) + '\n';
    if (c && !c.cuda) text += `${cardLabel(c.id)}${this.w.colon}${noteLine('noCuda', this.lang)}${this.w.end}\n`;
    return text;
  }
}

/** The whole text output of one quote. */
export function quoteText(catalog: Catalog, b: Built, result: QuoteResult, cheapest: QuoteRow | undefined, lang: QuoteLang, stock?: QuoteStockMarks): string {
  const t = new QuoteText(catalog, b, lang, stock);
  if (result.rows.length === 0) return t.header() + t.noRows() + t.footnotes(result, undefined);
  return t.header() + t.table(result.rows, cheapest) + t.footnotes(result, cheapest);
}

// `gpu-rent quote`: the cost of a completed job on every platform × card × billing mode.
// Flags and the job: quote-flags.ts; text: quote-text.ts (words in quote-words.ts); JSON: quote-json.ts.
import { cheapestPricedRow, quoteCatalog } from '../../core/cost';
import { loadCatalog } from '../catalog-file';
import type { CliCommand } from '../command';
import type { CliLang } from '../lang';
import { defineCommand } from '../define';
import { buildInput, quoteSpecs } from './quote-flags';
import { quoteJson } from './quote-json';
import { quoteText } from './quote-text';
import type { CliIO } from '../command';
import type { Catalog } from '../../core/catalog';
import type { QuoteRow } from '../../core/cost';
import type { QuoteStockMarks } from './quote-stock';

async function startNowMarks(io: CliIO, platforms: readonly string[] | undefined, rows: readonly QuoteRow[], catalog: Catalog): Promise<QuoteStockMarks> {
  const { readQuoteStock, marksFor } = await import('./quote-stock');
  return marksFor(await readQuoteStock(io, platforms), rows, catalog.cards);
}

const USAGE = 'gpu-rent quote [--card C] [--gpu-hours H | --steps N --sec-per-step S] [--gpus N] [--storage-gb G] [--days D] [--idle-hours H] [--download-gb X] [--spot] [--platform P ...] [--catalog FILE] [--stock] [--like RUN] [--json] [--lang en|zh-cn]';

const ABOUT: Record<CliLang, string> = {
  en: [
    'Prices a completed job, not an hour: GPU time + data disk per GB per day (stopped days',
    'included) + idle hours + hours spent downloading + spot rework. With no flags it prices',
    "the field report's LoRA job (15 h on a 3090, 24 GB of data) on every card and platform.",
    'Without --card, other cards get their hours from FP16 TFLOPS (marked ~, an estimate).',
    'JSON: total is the midpoint of a range; totalMin/totalMax are given beside it.',
    'Text is in Chinese under a zh locale (LC_ALL / LC_MESSAGES / LANG) or with --lang zh-cn.',
    'Offline unless --stock: then each configured account (gpu-rent accounts) is asked which cards',
    'are free now, and each row says can start now (where, how many) / none free now / not checked.',
  ].join('\n'),
  'zh-cn': [
    '为完成一个任务报价，而不是为一小时报价：GPU 时长 + 数据盘按 GB/天计费（含关机的天数）',
    '+ 停机保留时长 + 下载所花的时间 + 竞价返工。不带参数时，为实测报告的 LoRA 任务',
    '（3090 上 15 小时，24 GB 数据）在所有显卡和平台上报价。',
    '不给 --card 时，其他卡的时长按 FP16 TFLOPS 折算（标 ~，为估算）。',
    'JSON：total 是区间的中点，旁边给出 totalMin/totalMax；JSON 在任何语言下都相同。',
    '中文环境（LC_ALL / LC_MESSAGES / LANG 以 zh 开头）或 --lang zh-cn 时输出中文；--lang en 输出英文。',
    '除非加 --stock，否则不联网：加上后会询问每个已配置的账号（gpu-rent accounts）现在哪些卡空闲，',
    '每行标出 可立即开机（在哪、几张）/ 暂无空闲卡 / 未检查。',
  ].join('\n'),
};

/** The quote as its JSON document (under --json) or its text. */
type Quoted = { doc: unknown; text?: undefined } | { doc?: undefined; text: string };

export const command: CliCommand = defineCommand({
  name: 'quote',
  summary: 'price a completed job across platforms, cards and billing modes (CNY)',
  summaryZh: '按平台、显卡和计费方式比较完成一个任务的总价（人民币）',
  usage: USAGE,
  about: ABOUT.en,
  aboutZh: ABOUT['zh-cn'],
  flags: quoteSpecs(),
  positionals: { max: 0 },
  run: async (flags, { io, lang, json }): Promise<Quoted> => {
    const catalog = loadCatalog(flags.catalog);
    const built = buildInput(flags.like !== undefined ? { ...flags, card: undefined, 'gpu-hours': undefined, steps: undefined, 'sec-per-step': undefined, gpus: undefined } : flags, catalog);
    // --like RUN: the job a run in the ledger did, its card at the measured speed (quote-like.ts).
    const like = flags.like !== undefined ? await (await import('./quote-like')).likeBuilt(io, flags, built, catalog) : undefined;
    const result = quoteCatalog(catalog, built.input);
    const cheapest = cheapestPricedRow(result.rows);
    // --stock only: the one network read of quote, loaded only then.
    const stock = flags.stock ? await startNowMarks(io, built.input.platforms, result.rows, catalog) : undefined;
    if (json) {
      // The platforms' text (regions, errors) in the document: raw controls and bidi marks escaped (the one printer's jsonForTerminal).
      const doc = quoteJson(catalog, built, result, cheapest, stock);
      return { doc: like ? (await import('./quote-like')).likeJson(like, result.rows, doc) : doc };
    }
    return { text: (like ? (await import('./quote-like')).likeText(like, result.rows, lang) : '') + quoteText(catalog, built, result, cheapest, lang, stock) };
  },
  json: (q) => q.doc,
  text: (q) => q.text ?? '',
});

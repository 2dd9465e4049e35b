// `gpu-rent spot-check`: before a job on a spot instance, the expected cost of redone work for
// its length and sync interval, a better sync cadence, and a confirmation for jobs over 1 h.
import { unitPrice, midpoint } from '../../../core/cost';
import { findCard } from '../../../core/cards';
import { spotCheck } from '../../../core/guards/spot';
import { formatCny, yuanToFen } from '../../../core/money';
import { bounded, formatHelp, parseArgs, UsageError } from '../../args';
import { BOUNDS } from '../../../core/bounds';
import { helpLang, t } from '../../words';
import { cliLang, LANG_FLAG_SPEC } from '../../lang';
import { loadCatalog } from '../../catalog-file';
import type { CliCommand } from '../../command';
import { promptLine } from '../../remote-common';
import { durationText, factsOf, platformFromFlag } from './pricing';

const specs = {
  hours: { type: 'number', valueName: 'H', ...bounded(BOUNDS.jobHours), minHint: '(one GPU-second)', minHintZh: '即一 GPU 秒', description: 'estimated job length in hours', zh: '任务预计时长（小时）' },
  'sync-minutes': { type: 'number', valueName: 'MIN', ...bounded(BOUNDS.minutes), exclusiveMin: true, description: 'minutes between checkpoint syncs you plan', zh: '你计划的检查点同步间隔（分钟）' },
  rate: { type: 'number', valueName: 'YUAN', ...bounded(BOUNDS.instanceYuanPerHour), exclusiveMin: true, description: 'spot price of the instance per hour, yuan (default: the catalog for --platform/--card)', zh: '实例每小时的竞价价格，元（默认：按 --platform/--card 取价格表）' },
  platform: { type: 'string', valueName: 'ID', description: 'platform id or name', zh: '平台 id 或名称' },
  card: { type: 'string', valueName: 'CARD', description: 'card, for the catalog spot price', zh: '显卡，用于取价格表中的竞价价格' },
  gpus: { type: 'number', valueName: 'N', ...bounded(BOUNDS.gpus), description: 'cards (default 1)', zh: '卡数（默认 1）' },
  'checkpoint-seconds': { type: 'number', valueName: 'S', min: 0, exclusiveMin: true, max: 86400, description: 'seconds one checkpoint save and sync takes (default 60)', zh: '保存并同步一次检查点所需的秒数（默认 60）' },
  'reclaim-rate': { type: 'number', valueName: 'PER_HOUR', ...bounded(BOUNDS.reclaimRatePerHour), exclusiveMin: true, description: 'expected reclaims per hour (default 0.1, an assumption)', zh: '预计每小时被回收的次数（默认 0.1，假设值）' },
  yes: { type: 'boolean', description: 'confirm a spot job over an hour without asking', zh: '超过一小时的竞价任务不再询问，直接确认' },
  lang: LANG_FLAG_SPEC,
  catalog: { type: 'string', valueName: 'FILE', description: 'JSON file of price overrides', zh: '价格覆盖的 JSON 文件' },
  json: { type: 'boolean', description: 'print the check as JSON (a long job not confirmed: exit 1, and error {code: "not-confirmed", message} beside it)', zh: '以 JSON 输出检查结果（长任务未确认时退出码为 1，旁边多一个 error {code: "not-confirmed", message}）' },
} as const;

const USAGE = 'gpu-rent spot-check --hours H --sync-minutes MIN (--rate YUAN | --platform ID --card CARD) [--yes]';
const SUMMARY =
  'Before a job on a spot instance: expected cost of work redone after reclaims, a sync cadence that keeps it small, and an explicit confirmation for jobs over an hour (the field report lost hour 2 of an 8-hour spot run). Exit 1 when a long job is not confirmed.';

const SUMMARY_ZH = '在抢占式实例上跑任务之前：被回收后重做工作的预计花费、能让它保持很小的同步间隔，以及超过一小时的任务需要明确确认（实测报告在一次 8 小时的抢占式运行中丢了第 2 个小时）。长任务未确认时退出码为 1。';

export const command: CliCommand = {
  name: 'spot-check',
  summary: 'Expected rework cost of a spot job, the sync cadence to use, confirmation over 1 h.',
  summaryZh: '抢占式任务预计的返工花费、建议的同步间隔，超过 1 小时需确认。',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags } = parseArgs(argv, specs, { maxPositionals: 0 });
    const lang = cliLang(flags.lang, io.env);
    const zh = lang === 'zh-cn';
    if (flags.hours === undefined) throw new UsageError('--hours is required (estimated job length)', '必须给出 --hours（预计任务时长）');
    if (flags['sync-minutes'] === undefined) throw new UsageError('--sync-minutes is required (how often checkpoints are synced)', '必须给出 --sync-minutes（多久同步一次检查点）');
    const catalog = loadCatalog(flags.catalog);
    const platform = platformFromFlag(catalog, flags.platform);
    let spotRate = flags.rate !== undefined ? yuanToFen(flags.rate) : null;
    if (spotRate === null) {
      if (!platform || !flags.card) throw new UsageError('give --rate YUAN, or --platform and --card for the catalog spot price', '请给出 --rate YUAN，或用 --platform 和 --card 取价格目录中的抢占式价格');
      const card = findCard(flags.card, catalog.cards);
      if (!card) throw new UsageError(`--card: unknown card "${flags.card}"`, `--card：未知显卡 "${flags.card}"`);
      const price = unitPrice(platform, card.id, 'spot');
      if (!price) throw new UsageError(`${platform.id} has no spot price for ${card.id} in the catalog; give --rate`, `价格目录里没有 ${platform.id} 上 ${card.id} 的抢占式价格；请给出 --rate`);
      spotRate = Math.round(midpoint(price.perPeriod) * (flags.gpus ?? 1));
    }
    const r = spotCheck(
      { spotRate, jobSeconds: flags.hours * 3600, syncIntervalSeconds: flags['sync-minutes'] * 60, checkpointSeconds: flags['checkpoint-seconds'], reclaimRatePerHour: flags['reclaim-rate'] },
      platform ? factsOf(platform) : undefined,
    );
    if (!r.ok) throw new UsageError(`bad ${r.error.field}: ${r.error.problem}`, `${r.error.field} 不对：${r.error.problem === 'notANumber' ? '不是数字' : '必须是正数'}`);
    const c = r.check;
    // Under --json the check is printed once the outcome is known: a long job left unconfirmed (exit 1) carries `error` beside it, as every failed --json run does.
    if (!flags.json) {
      const lines = zh
        ? [
            `抢占式任务 ${durationText(flags.hours * 3600, lang)}，每小时 ${formatCny(spotRate)}，每 ${durationText(flags['sync-minutes'] * 60, lang)} 同步一次：`,
            `  预计被回收 ${c.expectedReclaims.toFixed(2)} 次，重做约 ${durationText(c.expectedReworkSeconds, lang)} 的工作，花费约 ${formatCny(c.expectedReworkFen)}`,
            ...(c.syncTooSparse ? [`  同步间隔太稀：每 ${durationText(c.recommendedSyncIntervalSeconds, lang)} 同步一次，可降到约 ${formatCny(c.reworkAtRecommendedFen)}`] : []),
          ]
        : [
            `Spot job of ${durationText(flags.hours * 3600)} at ${formatCny(spotRate)}/h, syncing every ${durationText(flags['sync-minutes'] * 60)}:`,
            `  expected reclaims ${c.expectedReclaims.toFixed(2)}, work redone about ${durationText(c.expectedReworkSeconds)}, costing about ${formatCny(c.expectedReworkFen)}`,
            // A cadence only where it lowers the figure (the extension's Start Training says the same).
            ...(c.syncTooSparse ? [`  your interval is too sparse: sync every ${durationText(c.recommendedSyncIntervalSeconds)} to bring it near ${formatCny(c.reworkAtRecommendedFen)}`] : []),
          ];
      if (c.reclaimNotice === 'aliyunMetadata') lines.push(t(lang, '  阿里云 announces reclaims: "gpu-rent watchdog install TARGET --spot --hook CMD --action none" syncs on the notice.', '  阿里云会提前通知回收："gpu-rent watchdog install TARGET --spot --hook CMD --action none" 会在收到通知时同步。'));
      if (c.needsConfirmation) lines.push(t(lang, '  The field report: a spot run was reclaimed at hour 2 of 8; run only short jobs (≤ 1 h) on spot.', '  实测报告：一次 8 小时的抢占式运行在第 2 小时被回收；抢占式实例上只跑短任务（≤ 1 小时）。'));
      io.stdout(lines.join('\n') + '\n');
    }
    const printJson = (refused: boolean) => {
      if (flags.json) io.stdout(JSON.stringify({ spotRate, ...c, confirmed: !c.needsConfirmation || flags.yes === true, ...(refused ? { error: { code: 'not-confirmed', message: 'a spot job over an hour needs confirmation (--yes)' } } : {}) }, null, 2) + '\n');
    };
    if (!c.needsConfirmation || flags.yes) {
      printJson(false);
      return 0;
    }
    const answer = io.isTTY ? await promptLine(t(lang, 'Run a job over an hour on spot anyway? (yes/no) ', '仍要在抢占式实例上跑超过一小时的任务吗？(yes/no) '), false) : null;
    const confirmed = answer !== null && /^y(es)?$/i.test(answer.trim());
    printJson(!confirmed);
    if (confirmed) return 0;
    io.stderr(`gpu-rent spot-check: ${t(lang, 'a spot job over an hour needs confirmation (--yes)', '超过一小时的抢占式任务需要确认（--yes）')}\n`);
    return 1;
  },
};

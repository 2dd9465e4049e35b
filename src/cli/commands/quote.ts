// `gpu-rent quote`: the cost of a completed job on every platform × card × billing mode.
import { cardById, findCard, type CardSpec } from '../../core/cards';
import { BOUNDS, formatBoundNumber } from '../../core/bounds';
import { dating, findPlatform, formatDating, WARNING_TEXT, type BillingMode, type Catalog, type FenRange, type WarningCode } from '../../core/catalog';
import {
  breakEvenHours,
  cheapestPricedRow,
  DEFAULT_CHECKPOINT_INTERVAL_HOURS,
  DEFAULT_RECLAIM_RATE_PER_HOUR,
  midpoint,
  quoteCatalog,
  SPOT_LIMIT_HOURS,
  starExclusion,
  type IdleBasis,
  type JobInput,
  type QuoteRow,
  type RowNote,
  type Skipped,
} from '../../core/cost';
import { formatFenRange, formatHours, formatHoursRange, formatNumRange, renderTable } from '../../core/format';
import { fenToYuan } from '../../core/money';
import { beyondMeasuredGpus, hoursFromSteps, MEASURED_TWO_GPU_SPEEDUP, multiGpuSpeedup, REFERENCE_CARD, relativeSpeed, REPORT_MEASURED_HOURS } from '../../core/perf';
import { formatHelp, parseArgs, UsageError, type FlagSpecs } from '../args';
import { loadCatalog } from '../catalog-file';
import type { CliCommand } from '../command';

/** The report's LoRA job (§3): ChatGLM3-6B, 3 epochs on a 3090 ≈ 15 h, 20–22 GB VRAM, 24 GB of files (§2). */
export const DEFAULT_JOB = { gpuHours: 15, refCard: REFERENCE_CARD, storageGb: 24, vramGb: 22 } as const;
/** The report measured this job on two cards: 15 h on a 3090, 5 h on a 4090 (§3). */
export const DEFAULT_JOB_MEASURED_HOURS: Readonly<Record<string, number>> = REPORT_MEASURED_HOURS;

const B = BOUNDS;
const specs = {
  card: { type: 'string', valueName: 'CARD', description: 'card to quote (3090, rtx4090, "RTX 4090", A100-80G, T4 …); the job hours are on this card. Default: every card, hours scaled from a 3090' },
  'gpu-hours': { type: 'number', valueName: 'H', min: B.jobHours.min, minHint: '(one GPU-second)', max: B.jobHours.max, description: `hours the job takes on one card (default ${DEFAULT_JOB.gpuHours}: the report's LoRA job on a 3090)` },
  steps: { type: 'number', valueName: 'N', min: B.steps.min, max: B.steps.max, integer: true, description: 'training steps (with --sec-per-step, instead of --gpu-hours)' },
  'sec-per-step': { type: 'number', valueName: 'S', min: 0, exclusiveMin: true, max: B.secPerStep.max, description: 'measured seconds per step on --card (or a 3090)' },
  gpus: { type: 'number', valueName: 'N', min: 1, max: B.gpus.max, integer: true, description: `cards per instance (default 1; the report measured 2 cards at ${MEASURED_TWO_GPU_SPEEDUP}×; more is an estimate, 4 ≈ ${multiGpuSpeedup(4).toFixed(2)}×)` },
  'storage-gb': { type: 'number', valueName: 'G', min: 0, max: B.gb.max, description: `data disk in GB (default ${DEFAULT_JOB.storageGb}: 14 GB fp16 7B weights + 10 GB data)` },
  days: { type: 'number', valueName: 'D', min: 0, max: B.days.max, description: 'days the instance and data are kept, stopped days included (default: as long as the job runs)' },
  'idle-hours': { type: 'number', valueName: 'H', min: 0, max: B.hours.max, description: 'hours the instance sits stopped but kept (no-GPU mode where there is one; default 0)' },
  'download-gb': { type: 'number', valueName: 'X', min: 0, max: B.gb.max, description: "GB to download onto the box at the platform's bandwidth (default 0)" },
  'download-no-gpu': { type: 'boolean', description: 'download in no-GPU mode where the platform has one (billed at that rate)' },
  spot: { type: 'boolean', description: `also quote spot instances, with expected rework after reclaims (never starred for a job over ${SPOT_LIMIT_HOURS} h)` },
  'reclaim-rate': { type: 'number', valueName: 'R', min: 0, max: B.reclaimRatePerHour.max, description: `spot reclaims per hour (default ${DEFAULT_RECLAIM_RATE_PER_HOUR}; an assumption)` },
  'checkpoint-hours': { type: 'number', valueName: 'H', min: B.checkpointHours.min, minHint: '(one minute)', max: B.checkpointHours.max, description: `hours between checkpoints (default ${DEFAULT_CHECKPOINT_INTERVAL_HOURS}); a reclaim loses the work since the last one` },
  'vram-gb': { type: 'number', valueName: 'G', min: 0, max: B.vramGb.max, description: `VRAM the job needs per card (default ${DEFAULT_JOB.vramGb}: the report's LoRA job peaked at 22 GB)` },
  platform: { type: 'string', valueName: 'P', repeat: true, description: 'only this platform id (repeatable; see gpu-rent platforms)' },
  catalog: { type: 'string', valueName: 'FILE', description: 'JSON file of price overrides and extra platforms, merged over the built-in catalog' },
  json: { type: 'boolean', description: 'print JSON (yuan as numbers) instead of a table' },
} satisfies FlagSpecs;

const PERIOD: Record<BillingMode, string> = { hour: '/h', spot: '/h spot', day: '/day', week: '/week', month: '/month' };

const NOTE_TEXT: Partial<Record<RowNote, string>> = {
  vramShort: 'has less VRAM than the job needs (--vram-gb)',
  noCuda: 'cannot run CUDA code: PyTorch needs an Ascend-adapted container and custom CUDA ops fail (report §3)',
  exceedsFreeQuota: 'the job runs longer than the free quota',
  spotLongJob: 'runs over 1 h on spot, never starred: the report only uses spot for jobs of 1 h or less ("正式训练绝不用"); its one 8 h spot run was reclaimed at hour 2 and lost everything',
  idleKeptRunning: 'idle hours billed at the full rate: stopping wipes the data disk here, so the instance stays running',
  storageBundledUnpriced: 'data disk bundled with the instance (the report: CPU, RAM, system disk, data disk and bandwidth are paid with the GPU) and the catalog has no figure: ?, never starred',
  bandwidthBundledUnpriced: 'bandwidth is bought separately by the month (the report: even 1 Mbps costs tens of yuan) and the catalog has no figure: ?, never starred',
  multiGpuPcie: 'multi-GPU over PCIe: the report measured 2×4090 at 1.6× one card',
  multiGpuEstimate: "more cards than the report measured: the speed-up is an estimate beyond the report's measurement (each doubling ×1.6; its 4-card PCIe instances lose badly)",
  priceDerived: 'spot price derived as hourly minus the ~20% spot discount',
};

const IDLE_TAG: Record<IdleBasis, string> = {
  noGpuMode: 'no-GPU',
  fullRate: 'full rate',
  keptRunning: 'kept running',
  storageOnly: 'disk only',
  inPlan: 'in plan',
  unpriced: '?',
  none: '',
};

function idleCell(r: QuoteRow): string {
  switch (r.idleBasis) {
    case 'none':
      return '-';
    case 'unpriced':
      return '?';
    case 'inPlan':
      return 'in plan';
    case 'storageOnly':
      return '¥0 disk only';
    default:
      return `${formatFenRange(r.breakdown.idle)} ${IDLE_TAG[r.idleBasis]}`;
  }
}

function cardLabel(id: string): string {
  const name = cardById(id)?.name ?? id;
  // "RTX 4090 24GB" reads as "RTX 4090"; keep the size where it tells variants apart (A100 40/80GB).
  return /^(rtx|t4)/.test(id) ? name.replace(/ \d+GB$/, '') : name;
}

function platformLabel(catalog: Catalog, id: string): string {
  return findPlatform(catalog, id)?.name.zh ?? id;
}

function yuan(r: FenRange): number {
  return fenToYuan(midpoint(r));
}

function cell(r: FenRange, unpriced: boolean): string {
  if (unpriced) return '?';
  if (r.max === 0) return '-';
  return formatFenRange(r);
}

function skipText(catalog: Catalog, s: Skipped, vramGb: number): string {
  const name = platformLabel(catalog, s.platform);
  const card = s.card ? ` ${cardLabel(s.card)}` : '';
  switch (s.reason) {
    case 'noPrices':
      return `${name}: no price in the report`;
    case 'noFigure':
      return `${name}${card} ${s.mode}: offered, but the report gives no figure`;
    case 'vramShort':
      return `${name}${card}: ${cardById(s.card ?? '')?.vramGb ?? '?'} GB VRAM < ${vramGb} GB needed`;
    case 'cardNotPriced':
      return `${name}: no${card} price in the catalog`;
    case 'noSpeedEstimate':
      return `${name}${card}: no FP16 figure to estimate its speed`;
    case 'beyondBounds':
      return `${name}${card} ${s.mode}: the total would pass ¥10,000,000,000 (check the inputs)`;
  }
}

interface Built {
  input: JobInput;
  refCard: CardSpec;
  explicitCard: CardSpec | null;
  measured: 'default' | 'gpu-hours' | 'steps';
}

type QuoteFlags = ReturnType<typeof parseArgs<typeof specs>>['flags'];

function buildInput(f: QuoteFlags, catalog: Catalog): Built {
  let explicitCard: CardSpec | null = null;
  if (f.card !== undefined) {
    explicitCard = findCard(f.card, catalog.cards) ?? null;
    if (!explicitCard) throw new UsageError(`--card expects a known card such as 3090, rtx4090, "RTX 4090", A100-80G (known: ${catalog.cards.map((c) => c.id).join(', ')}), got "${f.card}"`);
  }
  // The default job is stated in 3090 hours; hours the user gives are on their --card.
  const userHours = f['gpu-hours'] !== undefined || f.steps !== undefined || f['sec-per-step'] !== undefined;
  const refCard = (userHours ? explicitCard : null) ?? cardById(REFERENCE_CARD)!;
  if (f['gpu-hours'] !== undefined && (f.steps !== undefined || f['sec-per-step'] !== undefined)) {
    throw new UsageError('--gpu-hours and --steps/--sec-per-step are alternatives: give one or the other');
  }
  if ((f.steps === undefined) !== (f['sec-per-step'] === undefined)) {
    throw new UsageError(f.steps === undefined ? '--sec-per-step needs --steps N (the number of training steps)' : '--steps needs --sec-per-step S (measured seconds per step)');
  }
  let gpuHours: number = DEFAULT_JOB.gpuHours;
  let measured: Built['measured'] = 'default';
  if (f['gpu-hours'] !== undefined) {
    gpuHours = f['gpu-hours'];
    measured = 'gpu-hours';
  } else if (f.steps !== undefined && f['sec-per-step'] !== undefined) {
    gpuHours = hoursFromSteps(f.steps, f['sec-per-step']);
    measured = 'steps';
  }
  if (!(gpuHours >= B.jobHours.min) || gpuHours > B.jobHours.max) {
    throw new UsageError(`--steps × --sec-per-step is ${formatHours(gpuHours)} of GPU time: expected one GPU-second to ${formatBoundNumber(B.jobHours.max)} h`);
  }
  const platforms = f.platform ?? [];
  for (const p of platforms) {
    if (!findPlatform(catalog, p)) throw new UsageError(`--platform expects one of ${catalog.platforms.map((x) => x.id).join(', ')}, got "${p}"`);
  }
  const input: JobInput = {
    gpuHours,
    refCard: refCard.id,
    gpus: f.gpus ?? 1,
    storageGb: f['storage-gb'] ?? DEFAULT_JOB.storageGb,
    days: f.days ?? 0,
    idleHours: f['idle-hours'] ?? 0,
    downloadGb: f['download-gb'] ?? 0,
    downloadInNoGpuMode: Boolean(f['download-no-gpu']),
    includeSpot: Boolean(f.spot),
    reclaimRatePerHour: f['reclaim-rate'] ?? DEFAULT_RECLAIM_RATE_PER_HOUR,
    checkpointIntervalHours: f['checkpoint-hours'] ?? DEFAULT_CHECKPOINT_INTERVAL_HOURS,
    vramNeededGb: f['vram-gb'] ?? DEFAULT_JOB.vramGb,
  };
  if (measured === 'default') input.measuredHours = { ...DEFAULT_JOB_MEASURED_HOURS };
  if (explicitCard) input.cards = [explicitCard.id];
  if (platforms.length) input.platforms = platforms.map((p) => findPlatform(catalog, p)!.id);
  return { input, refCard, explicitCard, measured };
}

function header(b: Built, catalog: Catalog): string {
  const i = b.input;
  const job =
    b.measured === 'default'
      ? `${formatHours(i.gpuHours)} on one ${cardLabel(b.refCard.id)}, 5 h on one RTX 4090 (the report's ChatGLM3-6B LoRA, 3 epochs, both measured)${b.explicitCard && b.explicitCard.id !== b.refCard.id ? `, quoted on ${cardLabel(b.explicitCard.id)}` : ''}`
      : b.measured === 'steps'
        ? `${formatHours(i.gpuHours)} on one ${cardLabel(b.refCard.id)} (measured steps × seconds per step)`
        : `${formatHours(i.gpuHours)} on one ${cardLabel(b.refCard.id)}`;
  const parts = [
    `Job: ${job}`,
    `${i.gpus} GPU${i.gpus === 1 ? '' : 's'} per instance`,
    `data disk ${i.storageGb} GB${i.days ? ` kept ${i.days} day${i.days === 1 ? '' : 's'}` : ' (kept while the job runs)'}`,
    `${i.idleHours} idle h`,
    `${i.downloadGb} GB download`,
    `needs ${i.vramNeededGb} GB VRAM`,
  ];
  if (i.includeSpot) parts.push(`spot: ${i.reclaimRatePerHour} reclaims/h, checkpoint every ${formatHours(i.checkpointIntervalHours ?? 1)}`);
  const gpus = i.gpus ?? 1;
  if (gpus > 1) parts[1] += beyondMeasuredGpus(gpus) ? ` (~${multiGpuSpeedup(gpus).toFixed(2)}× one card: estimate beyond the report's measurement of 2 cards = 1.6×)` : ` (${MEASURED_TWO_GPU_SPEEDUP}× one card, as the report measured)`;
  const dates = [...new Set(catalog.platforms.flatMap((p) => p.prices.map((x) => formatDating(dating(x)))))].sort();
  return `${parts.join(', ')}.\nPrices: ${dates.join('; ')}. Change any of this with flags; see --help.\n\n`;
}

function table(rows: QuoteRow[], catalog: Catalog, showRework: boolean, cheapest: QuoteRow | undefined): string {
  const head = ['', 'Platform', 'Card', 'Billing', 'Hours', 'GPU', 'Disk', 'Idle', 'Download', ...(showRework ? ['Rework'] : []), 'Total', 'Price (dated)'];
  const body = rows.map((r) => {
    const billing = r.periods !== null ? `${r.mode} ×${r.periods}` : r.mode;
    const hours = `${r.hoursEstimated ? '~' : ''}${formatHours(r.wallHours)}`;
    const price = `${formatFenRange(r.price.perPeriod)}${PERIOD[r.mode]} (${formatDating(dating(r.price))})`;
    return [
      r === cheapest ? '*' : '',
      platformLabel(catalog, r.platform),
      `${r.gpus > 1 ? `${r.gpus}×` : ''}${cardLabel(r.card)}`,
      billing,
      hours,
      cell(r.breakdown.gpu, false),
      cell(r.breakdown.storage, r.unpriced.includes('storage')),
      idleCell(r),
      cell(r.breakdown.download, r.unpriced.includes('download')),
      ...(showRework ? [cell(r.breakdown.spotRework, false)] : []),
      `${formatFenRange(r.total)}${r.unpriced.length ? ' +?' : ''}`,
      price,
    ];
  });
  const align: ('l' | 'r')[] = ['l', 'l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', ...(showRework ? ['r' as const] : []), 'r', 'l'];
  return renderTable([head, ...body], align);
}

function footnotes(result: ReturnType<typeof quoteCatalog>, b: Built, catalog: Catalog, cheapest: QuoteRow | undefined): string {
  const out: string[] = [];
  const rows = result.rows;
  if (cheapest) out.push(`* cheapest completed job: ${platformLabel(catalog, cheapest.platform)} ${cardLabel(cheapest.card)} ${cheapest.mode}, ${formatFenRange(cheapest.total)}.`);
  const passedOver = rows.filter((r) => (cheapest ? midpoint(r.total) < midpoint(cheapest.total) : true) && starExclusion(r) !== null);
  if (passedOver.length) {
    const why = (r: QuoteRow) => (starExclusion(r) === 'spotOverLimit' ? `spot for a ${formatHours(r.wallHours)} job (the report: spot only for ≤ ${SPOT_LIMIT_HOURS} h)` : `a cost without a figure (${r.unpriced.join(', ')})`);
    out.push(`  Not starred although cheaper: ${passedOver.map((r) => `${platformLabel(catalog, r.platform)} ${cardLabel(r.card)} ${r.mode} (${why(r)})`).join('; ')}.`);
  }
  if (rows.some((r) => r.hoursEstimated)) {
    const to4090 = relativeSpeed(cardById('rtx3090')!, cardById('rtx4090')!)!;
    out.push(
      `~ hours estimated: other cards from FP16 TFLOPS relative to the ${cardLabel(b.refCard.id)} (4090 vs 3090: ${to4090.toFixed(2)}×; the report measured 2.2× per step, 3× wall-clock); 2 cards = 1.6× one (measured), more cards ×1.6 per doubling (estimate). Give --card with --gpu-hours or --sec-per-step for a measured time.`,
    );
  }
  const bases = new Set(rows.map((r) => r.idleBasis));
  if ([...bases].some((x) => x !== 'none')) {
    const idleText: Partial<Record<IdleBasis, string>> = {
      noGpuMode: 'no-GPU = the no-GPU-mode rate, billed on top of the data disk per day',
      fullRate: 'full rate = the whole instance bills while it exists, stopped or not',
      keptRunning: 'kept running = stopping wipes the data disk there, so the instance runs at the GPU rate',
      storageOnly: 'disk only = a stopped instance bills only its data disk',
      inPlan: 'in plan = the day/week/month plan already holds the card',
      unpriced: '? = the platform has a stopped mode but no figure',
    };
    out.push(`Idle hours: ${[...bases].flatMap((x) => (idleText[x] ? [idleText[x]] : [])).join('; ')}.`);
  }
  if (rows.some((r) => r.unpriced.length)) out.push('? the report gives no figure for that cost: it is left out of the total (+?), and the row is never starred.');
  if (rows.some((r) => r.mode === 'spot')) {
    out.push('Spot rework: each reclaim loses the work since the last checkpoint, never more than the work done so far (on average half an interval, or half the job when the interval is longer); the report lost hour 2 of an 8 h run with no checkpoint.');
  }
  if (rows.some((r) => r.total.min !== r.total.max)) out.push('Ranges are the report\'s price ranges; rows sort by the midpoint.');
  if (b.input.downloadGb) {
    const dl = [...new Map(rows.filter((r) => r.downloadHours).map((r) => [r.platform, `${platformLabel(catalog, r.platform)} ${formatHoursRange(r.downloadHours!)}`])).values()];
    if (dl.length) out.push(`Downloading ${b.input.downloadGb} GB takes: ${dl.join(', ')}${b.input.downloadInNoGpuMode ? '' : ' (billed at the GPU rate; --download-no-gpu for no-GPU mode)'}.`);
  }
  if (b.explicitCard) {
    const unit: Record<string, string> = { hour: 'h', day: 'days', week: 'weeks' };
    for (const id of [...new Set(rows.map((r) => r.platform))]) {
      const p = findPlatform(catalog, id)!;
      const be = breakEvenHours(p, b.explicitCard.id);
      if (!be.length) continue;
      const parts = be.map((x) => `${x.longer} beats ${x.shorter} above ${formatNumRange(x.units, x.shorter === 'hour' ? 0 : 1)} ${unit[x.shorter] ?? x.shorter} per ${x.longer}`);
      out.push(`Break-even on ${p.name.zh} ${cardLabel(b.explicitCard.id)}: ${parts.join('; ')}.`);
    }
  }
  if (result.skipped.length) out.push(`Not quoted: ${result.skipped.map((s) => skipText(catalog, s, b.input.vramNeededGb ?? 0)).join('; ')}.`);

  const notes: string[] = [];
  for (const r of rows) {
    for (const n of r.notes) {
      const text = NOTE_TEXT[n];
      if (!text) continue;
      const line = `  ${platformLabel(catalog, r.platform)}${n === 'storageBundledUnpriced' || n === 'bandwidthBundledUnpriced' ? '' : ` ${cardLabel(r.card)}`}${n === 'spotLongJob' || n === 'priceDerived' ? ' spot' : ''}: ${text}`;
      if (!notes.includes(line)) notes.push(line);
    }
  }
  // One line per warning, naming every platform in the table it applies to.
  const byCode = new Map<WarningCode, string[]>();
  for (const id of [...new Set(rows.map((r) => r.platform))]) {
    const p = findPlatform(catalog, id)!;
    for (const w of p.warnings) byCode.set(w, [...(byCode.get(w) ?? []), p.name.zh]);
  }
  const warned = [...byCode].map(([w, names]) => {
    const t = WARNING_TEXT[w];
    return `  ${names.join(', ')}: ${t.en} (${t.ref.startsWith('§') ? `report ${t.ref}` : t.ref})`;
  });
  if (notes.length || warned.length) out.push(['Warnings:', ...notes, ...warned].join('\n'));
  return out.length ? '\n' + out.join('\n') + '\n' : '';
}

function rowJson(r: QuoteRow, cheapest: QuoteRow | undefined): Record<string, unknown> {
  const range = r.total.min !== r.total.max;
  const breakdown = {
    gpu: yuan(r.breakdown.gpu),
    storage: r.unpriced.includes('storage') ? null : yuan(r.breakdown.storage),
    idle: r.unpriced.includes('idle') ? null : yuan(r.breakdown.idle),
    download: r.unpriced.includes('download') ? null : yuan(r.breakdown.download),
    spotRework: yuan(r.breakdown.spotRework),
  };
  const dated = dating(r.price);
  const out: Record<string, unknown> = {
    platform: r.platform,
    platformName: r.platformName.zh,
    platformNameEn: r.platformName.en,
    card: r.card,
    cardName: cardById(r.card)?.name ?? r.card,
    billing: r.mode,
    gpus: r.gpus,
    hours: Math.round(r.wallHours * 100) / 100,
    hoursEstimated: r.hoursEstimated,
    periods: r.periods,
    total: yuan(r.total),
  };
  if (range) {
    out.totalMin = fenToYuan(r.total.min);
    out.totalMax = fenToYuan(r.total.max);
  }
  out.breakdown = breakdown;
  if (range) {
    out.breakdownRange = Object.fromEntries(Object.entries(r.breakdown).map(([k, v]) => [k, [fenToYuan(v.min), fenToYuan(v.max)]]));
  }
  out.unpriced = r.unpriced;
  out.downloadHours = r.downloadHours ? [Math.round(r.downloadHours.min * 100) / 100, Math.round(r.downloadHours.max * 100) / 100] : null;
  const pp = r.price.perPeriod;
  out.price = {
    yuan: fenToYuan(midpoint(pp)),
    ...(pp.min !== pp.max ? { yuanMin: fenToYuan(Math.round(pp.min)), yuanMax: fenToYuan(Math.round(pp.max)) } : {}),
    per: r.mode === 'spot' ? 'hour' : r.mode,
    source: r.price.source,
    asOf: r.price.asOf,
    ...(r.price.readAt ? { readAt: r.price.readAt } : {}),
    dated: formatDating(dated),
    derived: r.price.derived,
  };
  out.idleBasis = r.idleBasis;
  if (r.spot) out.spot = { reclaims: Math.round(r.spot.reclaims * 1000) / 1000, reworkHours: Math.round(r.spot.reworkHours * 1000) / 1000 };
  out.notes = r.notes;
  out.cheapest = r === cheapest;
  const excluded = starExclusion(r);
  if (excluded) out.neverCheapest = excluded;
  return out;
}

export const command: CliCommand = {
  name: 'quote',
  summary: 'price a completed job across platforms, cards and billing modes (CNY)',
  help: () =>
    formatHelp(
      'gpu-rent quote [--card C] [--gpu-hours H | --steps N --sec-per-step S] [--gpus N] [--storage-gb G] [--days D] [--idle-hours H] [--download-gb X] [--spot] [--platform P ...] [--catalog FILE] [--json]',
      [
        'Prices a completed job, not an hour: GPU time + data disk per GB per day (stopped days',
        'included) + idle hours + hours spent downloading + spot rework. With no flags it prices',
        "the field report's LoRA job (15 h on a 3090, 24 GB of data) on every card and platform.",
        'Without --card, other cards get their hours from FP16 TFLOPS (marked ~, an estimate).',
        'JSON: total is the midpoint of a range; totalMin/totalMax are given beside it.',
      ].join('\n'),
      specs,
    ),
  run: async (argv, io) => {
    const { flags } = parseArgs(argv, specs, { maxPositionals: 0 });
    const catalog = loadCatalog(flags.catalog);
    const built = buildInput(flags, catalog);
    const result = quoteCatalog(catalog, built.input);
    const cheapest = cheapestPricedRow(result.rows);
    if (flags.json) {
      const i = built.input;
      io.stdout(
        JSON.stringify(
          {
            currency: 'CNY',
            input: {
              card: built.explicitCard?.id ?? null,
              refCard: built.refCard.id,
              gpuHours: Math.round(i.gpuHours * 1000) / 1000,
              gpus: i.gpus,
              storageGb: i.storageGb,
              days: i.days,
              idleHours: i.idleHours,
              downloadGb: i.downloadGb,
              spot: i.includeSpot,
              reclaimRatePerHour: i.reclaimRatePerHour,
              checkpointIntervalHours: i.checkpointIntervalHours,
              vramGb: i.vramNeededGb,
              platforms: i.platforms ?? null,
            },
            totalIs: 'midpoint of totalMin and totalMax when prices are ranges',
            rows: result.rows.map((r) => rowJson(r, cheapest)),
            skipped: result.skipped,
            warnings: Object.fromEntries(
              [...new Set(result.rows.map((r) => r.platform))].map((id) => [
                id,
                findPlatform(catalog, id)!.warnings.map((w) => ({ code: w, en: WARNING_TEXT[w].en, zh: WARNING_TEXT[w].zh, ref: WARNING_TEXT[w].ref })),
              ]),
            ),
          },
          null,
          2,
        ) + '\n',
      );
      return 0;
    }
    let text = header(built, catalog);
    if (result.rows.length === 0) {
      text += `No platform in the catalog has a price for this selection${built.explicitCard ? ` (the field report gives no ${cardLabel(built.explicitCard.id)} price)` : ''}; add one with --catalog FILE.\n`;
      if (built.explicitCard && !built.explicitCard.cuda) text += `${cardLabel(built.explicitCard.id)}: ${NOTE_TEXT.noCuda}.\n`;
      text += footnotes(result, built, catalog, undefined);
      io.stdout(text);
      return 0;
    }
    text += table(result.rows, catalog, Boolean(built.input.includeSpot), cheapest);
    text += footnotes(result, built, catalog, cheapest);
    io.stdout(text);
    return 0;
  },
};


// `gpu-rent quote`'s flags (their help in English and Chinese) and the job they describe.
import { BOUNDS, formatBoundNumber } from '../../core/bounds';
import { cardById, findCard, type CardSpec } from '../../core/cards';
import { findPlatform, type Catalog } from '../../core/catalog';
import { DEFAULT_CHECKPOINT_INTERVAL_HOURS, DEFAULT_RECLAIM_RATE_PER_HOUR, SPOT_LIMIT_HOURS, type JobInput } from '../../core/cost';
import { formatHours } from '../../core/format';
import { DEFAULT_JOB, DEFAULT_JOB_MEASURED_HOURS } from '../../core/job-defaults';
import { hoursFromSteps, MEASURED_TWO_GPU_SPEEDUP, multiGpuSpeedup, REFERENCE_CARD } from '../../core/perf';
import { UsageError, type FlagSpecs, type ParsedFlags } from '../args';
import { LANG_FLAG_SPEC } from '../lang';

const B = BOUNDS;
const speedup4 = multiGpuSpeedup(4).toFixed(2);

/** The flags, each with its help in English and Chinese. */
export function quoteSpecs() {
  const d = (en: string, cn: string) => ({ description: en, zh: cn });
  return {
    card: { type: 'string', valueName: 'CARD', ...d('card to quote (3090, rtx4090, "RTX 4090", A100-80G, T4 …); the job hours are on this card. Default: every card, hours scaled from a 3090', '要报价的显卡（3090、rtx4090、"RTX 4090"、A100-80G、T4 …）；任务时长按这张卡计。默认：所有卡，时长从 3090 折算') },
    'gpu-hours': { type: 'number', valueName: 'H', min: B.jobHours.min, minHint: '(one GPU-second)', minHintZh: '即一 GPU 秒', max: B.jobHours.max, ...d(`hours the job takes on one card (default ${DEFAULT_JOB.gpuHours}: the report's LoRA job on a 3090)`, `任务在一张卡上的小时数（默认 ${DEFAULT_JOB.gpuHours}：报告中 3090 上的 LoRA 任务）`) },
    steps: { type: 'number', valueName: 'N', min: B.steps.min, max: B.steps.max, integer: true, ...d('training steps (with --sec-per-step, instead of --gpu-hours)', '训练步数（与 --sec-per-step 一起用，代替 --gpu-hours）') },
    'sec-per-step': { type: 'number', valueName: 'S', min: 0, exclusiveMin: true, max: B.secPerStep.max, ...d('measured seconds per step on --card (or a 3090)', '在 --card（或 3090）上实测的每步秒数') },
    gpus: { type: 'number', valueName: 'N', min: 1, max: B.gpus.max, integer: true, ...d(`cards per instance (default 1; the report measured 2 cards at ${MEASURED_TWO_GPU_SPEEDUP}×; more is an estimate, 4 ≈ ${speedup4}×)`, `每个实例的卡数（默认 1；报告实测 2 卡为 ${MEASURED_TWO_GPU_SPEEDUP} 倍；更多卡为估算，4 卡 ≈ ${speedup4} 倍）`) },
    'storage-gb': { type: 'number', valueName: 'G', min: 0, max: B.gb.max, ...d(`data disk in GB (default ${DEFAULT_JOB.storageGb}: 14 GB fp16 7B weights + 10 GB data)`, `数据盘 GB 数（默认 ${DEFAULT_JOB.storageGb}：14 GB fp16 7B 权重 + 10 GB 数据）`) },
    days: { type: 'number', valueName: 'D', min: 0, max: B.days.max, ...d('days the instance and data are kept, stopped days included (default: as long as the job runs)', '实例和数据保留的天数，含关机的天数（默认：与任务运行时间相同）') },
    'idle-hours': { type: 'number', valueName: 'H', min: 0, max: B.hours.max, ...d('hours the instance sits stopped but kept (no-GPU mode where there is one; default 0)', '实例关机但保留的小时数（有无卡模式的平台按无卡模式；默认 0）') },
    'download-gb': { type: 'number', valueName: 'X', min: 0, max: B.gb.max, ...d("GB to download onto the box at the platform's bandwidth (default 0)", '按平台带宽下载到机器上的 GB 数（默认 0）') },
    'download-no-gpu': { type: 'boolean', ...d('download in no-GPU mode where the platform has one (billed at that rate)', '在有无卡模式的平台上用无卡模式下载（按该价格计费）') },
    spot: { type: 'boolean', ...d(`also quote spot instances, with expected rework after reclaims (never starred for a job over ${SPOT_LIMIT_HOURS} h)`, `同时报价竞价实例，含回收后的预期返工（超过 ${SPOT_LIMIT_HOURS} 小时的任务不标星）`) },
    'reclaim-rate': { type: 'number', valueName: 'R', min: 0, max: B.reclaimRatePerHour.max, ...d(`spot reclaims per hour (default ${DEFAULT_RECLAIM_RATE_PER_HOUR}; an assumption)`, `竞价实例每小时被回收的次数（默认 ${DEFAULT_RECLAIM_RATE_PER_HOUR}；假设值）`) },
    'checkpoint-hours': { type: 'number', valueName: 'H', min: B.checkpointHours.min, minHint: '(one minute)', minHintZh: '即一分钟', max: B.checkpointHours.max, ...d(`hours between checkpoints (default ${DEFAULT_CHECKPOINT_INTERVAL_HOURS}); a reclaim loses the work since the last one`, `两次检查点之间的小时数（默认 ${DEFAULT_CHECKPOINT_INTERVAL_HOURS}）；一次回收丢失自上次检查点以来的工作`) },
    'vram-gb': { type: 'number', valueName: 'G', min: 0, max: B.vramGb.max, ...d(`VRAM the job needs per card (default ${DEFAULT_JOB.vramGb}: the report's LoRA job peaked at 22 GB)`, `任务每张卡需要的显存（默认 ${DEFAULT_JOB.vramGb}：报告中的 LoRA 任务峰值 22 GB）`) },
    platform: { type: 'string', valueName: 'P', repeat: true, ...d('only this platform id (repeatable; see gpu-rent platforms)', '只报价这个平台 id（可重复；见 gpu-rent platforms）') },
    catalog: { type: 'string', valueName: 'FILE', ...d('JSON file of price overrides and extra platforms, merged over the built-in catalog', '价格覆盖和额外平台的 JSON 文件，合并到内置价格表之上') },
    stock: { type: 'boolean', ...d('also read which cards are free now on your platform accounts (gpu-rent accounts; network, each account at most once a minute) and mark each row: can start now / none free now', '同时读取已配置平台账号（gpu-rent accounts）上现在空闲的卡（联网，每个账号每分钟最多读一次），并在每行标出：可立即开机 / 暂无空闲卡') },
    like: { type: 'string', valueName: 'RUN', ...d("price the job a finished run did (gpu-rent runs: an id, a unique prefix or a name): its card at the measured speed (measured), other cards scaled by relative speed (estimated); replaces --card, --gpu-hours, --steps, --sec-per-step and --gpus", '为一次已结束运行所做的任务报价（gpu-rent runs：id、唯一前缀或名字）：它所用的显卡按实测速度（实测），其他显卡按相对速度折算（估算）；代替 --card、--gpu-hours、--steps、--sec-per-step 和 --gpus') },
    json: { type: 'boolean', ...d('print JSON (yuan as numbers) instead of a table', '输出 JSON（元为数字），而不是表格') },
    lang: { ...LANG_FLAG_SPEC, ...d(LANG_FLAG_SPEC.description, '文字输出的语言（en、zh-cn；默认取自 LC_ALL / LC_MESSAGES / LANG）') },
  } satisfies FlagSpecs;
}

export type QuoteSpecs = ReturnType<typeof quoteSpecs>;
export type QuoteFlags = ParsedFlags<QuoteSpecs>;

export interface Built {
  input: JobInput;
  refCard: CardSpec;
  explicitCard: CardSpec | null;
  measured: 'default' | 'gpu-hours' | 'steps';
}

/** The job the flags describe, on the built-in defaults where a flag is missing. */
export function buildInput(f: QuoteFlags, catalog: Catalog): Built {
  let explicitCard: CardSpec | null = null;
  if (f.card !== undefined) {
    explicitCard = findCard(f.card, catalog.cards) ?? null;
    if (!explicitCard) {
      const known = catalog.cards.map((c) => c.id).join(', ');
      throw new UsageError(
        `--card expects a known card such as 3090, rtx4090, "RTX 4090", A100-80G (known: ${known}), got "${f.card}"`,
        `--card 需要一种已知的显卡，如 3090、rtx4090、"RTX 4090"、A100-80G（已知：${known}），收到的是 "${f.card}"`,
      );
    }
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

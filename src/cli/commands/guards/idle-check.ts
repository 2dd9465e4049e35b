// `gpu-rent idle-check TARGET`: probes the box a few times and says whether its GPU is idle
// (utilisation under the threshold, no compute process, job logs not growing, for the whole
// span), and the cheapest safe action for the platform with what it saves per hour.
import { forTerminalLines } from '../../../core/text';
import { idleAdvice, type IdleActionOption } from '../../../core/guards/actions';
import { judgeIdle, type IdleSample, type IdleVerdict } from '../../../core/guards/idle';
import { DEFAULT_JOB_DIRS, probeIdle } from '../../../remote/guards/probe';
import { UsageError } from '../../args';
import { loadCatalog } from '../../catalog-file';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../../remote-common';
import { defineCommand } from '../../define';
import type { CliLang } from '../../lang';
import { t } from '../../words';
import { durationText, factsOf, perHour, platformFromFlag, pricingFromFlags, PRICING_FLAGS } from './pricing';

const specs = {
  for: { type: 'number', valueName: 'SECONDS', min: 0, max: 86400, description: 'how long to watch; the box must stay quiet this long to count as idle (default 60)', zh: '观察多久；机器要安静这么久才算闲置（默认 60 秒）' },
  every: { type: 'number', valueName: 'SECONDS', min: 1, max: 3600, description: 'seconds between probes (default 15)', zh: '两次探测之间的秒数（默认 15）' },
  threshold: { type: 'number', valueName: 'PCT', min: 1, max: 100, description: 'a GPU at or above this utilisation is working (default 10)', zh: '利用率达到或超过这个值的 GPU 算在工作（默认 10）' },
  'watch-dir': { type: 'string', valueName: 'DIR', repeat: true, description: `folder on the box whose files count as job progress (default ${DEFAULT_JOB_DIRS.join(', ')}; repeatable)`, zh: `机器上的目录，其中文件的变化算作任务进度（默认 ${DEFAULT_JOB_DIRS.join(', ')}；可重复）` },
  json: { type: 'boolean', description: 'print the verdict and advice as JSON', zh: '以 JSON 输出结论和建议' },
  ...PRICING_FLAGS,
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent idle-check TARGET [--for SECONDS] [--every SECONDS] [--platform ID --card CARD | --rate YUAN]';
const SUMMARY = `Is the rented GPU idle? Probes nvidia-smi and the job logs, then names the cheapest safe action and its saving per hour. ${TARGET_HELP}`;

const SUMMARY_ZH = `租的 GPU 是否闲置？探测 nvidia-smi 和任务日志，然后给出最省钱的安全操作及每小时能省多少。${TARGET_HELP_ZH}`;

const ACTION_ZH: Record<IdleActionOption['action'], string> = {
  noGpuMode: '切换到无卡模式（机器仍可连接，可做最后一次同步）',
  stop: '最后同步一次检查点后关机',
  release: '最后同步一次检查点后释放实例（其磁盘会被删除）',
};

/** verdictText in Chinese. */
function verdictTextZh(v: IdleVerdict, threshold: number): string {
  switch (v.kind) {
    case 'busy': {
      const why: string[] = [];
      if (v.signals.includes('gpuUtilization')) why.push(`GPU 利用率 ${v.maxUtilizationPct}%（阈值 ${threshold}%）`);
      if (v.signals.includes('gpuProcesses')) why.push(`GPU 上有 ${v.computeProcesses} 个计算进程`);
      if (v.signals.includes('logGrowing')) why.push('任务输出在增长');
      return `忙碌：${why.join('，')}`;
    }
    case 'quiet':
      return `已安静 ${durationText(v.quietSeconds)}（每块 GPU 都低于 ${threshold}%，没有计算进程，没有任务输出），还不到整个观察时长`;
    case 'idle':
      return `闲置 ${durationText(v.quietSeconds)}：每块 GPU 都低于 ${threshold}%，没有计算进程，没有任务输出`;
    case 'cannotTell':
      return {
        noSamples: '无法判断：没有一次探测有回应',
        probeFailed: '无法判断：nvidia-smi 没有给出 GPU 读数（驱动问题，或无卡模式的实例）',
        utilizationUnavailable: '无法判断：nvidia-smi 不显示这块 GPU 的利用率（MIG 或旧显卡）；从不判为闲置',
        logsUnreadable: '无法判断：读不了任务目录',
      }[v.reason];
  }
}

const ACTION_TEXT: Record<IdleActionOption['action'], string> = {
  noGpuMode: 'switch to no-GPU mode (the box stays reachable for a final sync)',
  stop: 'stop the instance after a final checkpoint sync',
  release: 'release the instance after a final checkpoint sync (its disk is deleted)',
};

export function verdictText(v: IdleVerdict, threshold: number, lang: CliLang = 'en'): string {
  if (lang === 'zh-cn') return verdictTextZh(v, threshold);
  switch (v.kind) {
    case 'busy': {
      const why: string[] = [];
      if (v.signals.includes('gpuUtilization')) why.push(`GPU utilisation ${v.maxUtilizationPct}% (threshold ${threshold}%)`);
      if (v.signals.includes('gpuProcesses')) why.push(`${v.computeProcesses} compute process${v.computeProcesses === 1 ? '' : 'es'} on the GPU`);
      if (v.signals.includes('logGrowing')) why.push('job output is growing');
      return `busy: ${why.join(', ')}`;
    }
    case 'quiet':
      return `quiet for ${durationText(v.quietSeconds)} (every GPU under ${threshold}%, no compute process, no job output), not yet the whole window`;
    case 'idle':
      return `IDLE for ${durationText(v.quietSeconds)}: every GPU under ${threshold}%, no compute process, no job output`;
    case 'cannotTell':
      return {
        noSamples: 'cannot tell: no probe came back',
        probeFailed: 'cannot tell: nvidia-smi gave no GPU reading (driver problem, or a no-GPU-mode instance)',
        utilizationUnavailable: 'cannot tell: nvidia-smi shows no utilisation for this GPU (MIG or an old card); never called idle',
        logsUnreadable: 'cannot tell: the job folders could not be read',
      }[v.reason];
  }
}

type IdleChecked = { verdict: IdleVerdict; probes: number; seconds: number; threshold: number; facts: ReturnType<typeof factsOf>; advice: ReturnType<typeof idleAdvice> | null; platform: ReturnType<typeof platformFromFlag> };

export const command: CliCommand = defineCommand({
  name: 'idle-check',
  summary: 'Is the rented GPU idle? Verdict plus the cheapest safe action and its saving per hour.',
  summaryZh: '租的 GPU 是否闲置？给出结论、最省钱的安全操作及每小时能省多少。',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 1, names: 'TARGET' },
  run: async (flags, { io, positionals }): Promise<IdleChecked> => {
    const span = flags.for ?? 60;
    const every = flags.every ?? 15;
    if (every > span && span > 0) throw new UsageError(`--every (${every}) must not exceed --for (${span})`, `--every（${every}）不能超过 --for（${span}）`);
    const threshold = flags.threshold ?? 10;
    const catalog = loadCatalog(flags.catalog);
    const platform = platformFromFlag(catalog, flags.platform);
    const pricing = pricingFromFlags(flags, platform, catalog);
    const facts = factsOf(platform, flags.platform);
    return withRemote(positionals[0], flags, io, async (conn) => {
      const samples: IdleSample[] = [];
      const started = Date.now();
      for (;;) {
        samples.push(await probeIdle(conn, { watchDirs: flags['watch-dir'] ?? DEFAULT_JOB_DIRS }));
        const elapsed = (Date.now() - started) / 1000;
        if (elapsed >= span || samples.length > 10000) break;
        const verdictSoFar = judgeIdle(samples, { utilizationThresholdPct: threshold, windowSeconds: span });
        if (verdictSoFar.kind === 'busy' && samples.length >= 2) break; // one busy reading settles it
        await new Promise((r) => setTimeout(r, Math.min(every, span - elapsed) * 1000));
      }
      // Probes land a little after each tick: judge over the span they actually cover.
      const covered = samples.length >= 2 ? samples[samples.length - 1]!.at - samples[0]!.at : 0;
      const verdict = judgeIdle(samples, { utilizationThresholdPct: threshold, windowSeconds: Math.min(span, covered) });
      const advice = pricing ? idleAdvice(pricing, facts) : null;
      return { verdict, probes: samples.length, seconds: covered, threshold, facts, advice, platform };
    });
  },
  json: ({ verdict, probes, seconds, threshold, facts, advice }) => ({ verdict, probes, seconds, thresholdPct: threshold, platform: facts.platform, advice }),
  text: ({ verdict, probes, seconds: covered, threshold, advice, platform }, lang) => {
    const zh = lang === 'zh-cn';
    const lines = [zh ? `${verdictText(verdict, threshold, lang)}（${durationText(covered)} 内探测 ${probes} 次）` : `${verdictText(verdict, threshold)} (${probes} probe${probes === 1 ? '' : 's'} over ${durationText(covered)})`];
    if (verdict.kind === 'idle' || verdict.kind === 'quiet') {
      if (!advice) lines.push(t(lang, 'Give --platform and --card (or --rate) to see what acting would save.', '给出 --platform 和 --card（或 --rate）即可看到处理后能省多少。'));
      else if (!advice.recommended) lines.push(advice.reason === 'prepaidPackage' ? t(lang, 'Prepaid package: stopping saves nothing; use the card or let the package run out.', '包月/包年套餐：关机省不了钱；用起这张卡，或让套餐到期。') : t(lang, 'Nothing is billing.', '没有在计费的项目。'));
      else {
        const r = advice.recommended;
        if (zh) {
          lines.push(`${platform ? `${platform.name.zh} 上` : ''}最省钱的安全操作：${ACTION_ZH[r.action]}；每小时 ${perHour(r.burnRateAfter)}，而不是 ${perHour(advice.burnRateNow)}，省 ${perHour(r.savingPerHour)}（12 小时的一夜省 ${perHour(r.savingPerHour * 12).replace('/h', '')}）。`);
          for (const o of advice.options.filter((x) => x !== r && x.savingPerHour > 0)) lines.push(`  或${ACTION_ZH[o.action]}：省 ${perHour(o.savingPerHour)}`);
        } else {
          lines.push(`Cheapest safe action${platform ? ` on ${platform.name.zh}` : ''}: ${ACTION_TEXT[r.action]}; costs ${perHour(r.burnRateAfter)} instead of ${perHour(advice.burnRateNow)}, saving ${perHour(r.savingPerHour)} (${perHour(r.savingPerHour * 12).replace('/h', '')} over a 12-hour night).`);
          for (const o of advice.options.filter((x) => x !== r && x.savingPerHour > 0)) lines.push(`  or ${ACTION_TEXT[o.action]}: saves ${perHour(o.savingPerHour)}`);
        }
      }
    }
    return forTerminalLines(lines.join('\n') + '\n');
  },
});

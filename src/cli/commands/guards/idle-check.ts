// `gpu-rent idle-check TARGET`: probes the box a few times and says whether its GPU is idle
// (utilisation under the threshold, no compute process, job logs not growing, for the whole
// span), and the cheapest safe action for the platform with what it saves per hour.
import { forTerminalLines } from '../../../core/text';
import { idleAdvice, type IdleActionOption } from '../../../core/guards/actions';
import { judgeIdle, type IdleSample, type IdleVerdict } from '../../../core/guards/idle';
import { DEFAULT_JOB_DIRS, probeIdle } from '../../../remote/guards/probe';
import { formatHelp, parseArgs, UsageError } from '../../args';
import { loadCatalog } from '../../catalog-file';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, withRemote } from '../../remote-common';
import { durationText, factsOf, perHour, platformFromFlag, pricingFromFlags, PRICING_FLAGS } from './pricing';

const specs = {
  for: { type: 'number', valueName: 'SECONDS', min: 0, max: 86400, description: 'how long to watch; the box must stay quiet this long to count as idle (default 60)' },
  every: { type: 'number', valueName: 'SECONDS', min: 1, max: 3600, description: 'seconds between probes (default 15)' },
  threshold: { type: 'number', valueName: 'PCT', min: 1, max: 100, description: 'a GPU at or above this utilisation is working (default 10)' },
  'watch-dir': { type: 'string', valueName: 'DIR', repeat: true, description: `folder on the box whose files count as job progress (default ${DEFAULT_JOB_DIRS.join(', ')}; repeatable)` },
  json: { type: 'boolean', description: 'print the verdict and advice as JSON' },
  ...PRICING_FLAGS,
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent idle-check TARGET [--for SECONDS] [--every SECONDS] [--platform ID --card CARD | --rate YUAN]';
const SUMMARY = `Is the rented GPU idle? Probes nvidia-smi and the job logs, then names the cheapest safe action and its saving per hour. ${TARGET_HELP}`;

const ACTION_TEXT: Record<IdleActionOption['action'], string> = {
  noGpuMode: 'switch to no-GPU mode (the box stays reachable for a final sync)',
  stop: 'stop the instance after a final checkpoint sync',
  release: 'release the instance after a final checkpoint sync (its disk is deleted)',
};

export function verdictText(v: IdleVerdict, threshold: number): string {
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

export const command: CliCommand = {
  name: 'idle-check',
  summary: 'Is the rented GPU idle? Verdict plus the cheapest safe action and its saving per hour.',
  summaryZh: '租的 GPU 是否闲置？给出结论、最省钱的安全操作及每小时能省多少。',
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'TARGET' });
    const span = flags.for ?? 60;
    const every = flags.every ?? 15;
    if (every > span && span > 0) throw new UsageError(`--every (${every}) must not exceed --for (${span})`);
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
      if (flags.json) {
        io.stdout(JSON.stringify({ verdict, probes: samples.length, seconds: covered, thresholdPct: threshold, platform: facts.platform, advice }, null, 2) + '\n');
        return 0;
      }
      const lines = [`${verdictText(verdict, threshold)} (${samples.length} probe${samples.length === 1 ? '' : 's'} over ${durationText(covered)})`];
      if (verdict.kind === 'idle' || verdict.kind === 'quiet') {
        if (!advice) lines.push('Give --platform and --card (or --rate) to see what acting would save.');
        else if (!advice.recommended) lines.push(advice.reason === 'prepaidPackage' ? 'Prepaid package: stopping saves nothing; use the card or let the package run out.' : 'Nothing is billing.');
        else {
          const r = advice.recommended;
          lines.push(`Cheapest safe action${platform ? ` on ${platform.name.zh}` : ''}: ${ACTION_TEXT[r.action]}; costs ${perHour(r.burnRateAfter)} instead of ${perHour(advice.burnRateNow)}, saving ${perHour(r.savingPerHour)} (${perHour(r.savingPerHour * 12).replace('/h', '')} over a 12-hour night).`);
          for (const o of advice.options.filter((x) => x !== r && x.savingPerHour > 0)) lines.push(`  or ${ACTION_TEXT[o.action]}: saves ${perHour(o.savingPerHour)}`);
        }
      }
      io.stdout(forTerminalLines(lines.join('\n') + '\n'));
      return 0;
    });
  },
};

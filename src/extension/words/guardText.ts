// Words for the guards' notices. Pure: `l10n` is passed in (vscode.l10n in the extension, a
// plain formatter in unit tests). Every message is a literal so the zh-CN bundle covers it.
import type { IdleActionKind } from '../../core/guards/actions';
import type { RamUploadRefusal } from '../../core/guards/ramdisk';
import { beijingDate, type PeakCheck } from '../../core/guards/peak';
import type { ReleaseWatch } from '../../core/guards/release';
import type { SecretFinding } from '../../core/guards/secrets';
import type { SpotCheck, SpotInputError } from '../../core/guards/spot';
import type { IdleSettingsError } from '../../core/guards/idle';
import { formatBytes } from '../../core/format';
import { formatCny } from '../../core/money';
import type { ReleaseRisk } from '../../app/release';
import type { IdleNotice } from '../guardDecisions';
import { formatDuration, formatRate, type L10n } from '../view/present';

/** "2026-12-11 20:30" on the Beijing clock. */
export function beijingText(t: number): string {
  const d = beijingDate(t);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.year}-${p(d.month)}-${p(d.day)} ${p(d.hour)}:${p(d.minute)}`;
}

export function idleActionLabel(action: IdleActionKind, l10n: L10n): string {
  switch (action) {
    case 'noGpuMode':
      return l10n.t('Switch to No-GPU Mode');
    case 'stop':
      return l10n.t('Sync, Then Stop');
    case 'release':
      return l10n.t('Sync, Then Release');
  }
}

export function idleMessage(name: string, notice: IdleNotice, thresholdPct: number, l10n: L10n): string {
  const quiet = formatDuration(notice.verdict.quietSeconds, l10n);
  const head = l10n.t('{0}: the GPU has been idle for {1} (under {2}% utilisation, no GPU process, no job output).', name, quiet, thresholdPct);
  const a = notice.advice;
  if (!a.recommended || notice.offered.length === 0) {
    return a.reason === 'prepaidPackage' ? `${head} ${l10n.t('It is on a prepaid package, so idling costs nothing extra: use the time or let it run out.')}` : head;
  }
  const best = notice.offered[0]!;
  const cost = l10n.t('It costs {0} now.', formatRate(a.burnRateNow, l10n));
  const save = l10n.t('{0} saves {1} ({2} afterwards).', idleActionLabel(best.action, l10n), formatRate(best.savingPerHour, l10n), formatRate(best.burnRateAfter, l10n));
  return `${head} ${cost} ${save}`;
}

export function idleSettingsErrorText(e: IdleSettingsError, l10n: L10n): string {
  return e.field === 'utilizationThresholdPct'
    ? l10n.t('The idle threshold (gpuRent.idle.utilizationThresholdPct) must be a number from {0} to {1}.', e.min, e.max)
    : l10n.t('The idle window (gpuRent.idle.windowMinutes) must be between {0} and {1} minutes.', e.min / 60, e.max / 60);
}

export function releaseWatchMessage(name: string, w: ReleaseWatch, l10n: L10n): string | undefined {
  switch (w.kind) {
    case 'releaseSoon':
      return l10n.t(
        '{0} has been stopped since {1}. The platform releases an instance that stays shut down {2} days, data disk and all: on {3} (Beijing time), {4} from now. Start it before then, or sync what you need.',
        name,
        beijingText(w.stoppedSince),
        w.rule.kind === 'releaseAfterStoppedDays' ? w.rule.days : 0,
        beijingText(w.releaseAt),
        formatDuration(w.secondsLeft, l10n),
      );
    case 'probablyReleased':
      return l10n.t('{0} has been stopped since {1}: past the platform’s limit ({2}, Beijing time) it has probably been released with its data. Check the console, and release it here too if it is gone.', name, beijingText(w.stoppedSince), beijingText(w.releaseAt));
    case 'snapshotExpires':
      return l10n.t('{0} was stopped at {1}. The platform keeps its free snapshot only until {2} (Beijing time), {3} from now; after that the data is gone.', name, beijingText(w.stoppedSince), beijingText(w.expiresAt), formatDuration(w.secondsLeft, l10n));
    case 'snapshotExpired':
      return l10n.t('{0} was stopped at {1}; the platform’s free snapshot ran out at {2} (Beijing time). Its data may be gone.', name, beijingText(w.stoppedSince), beijingText(w.expiresAt));
    default:
      return undefined;
  }
}

export function peakMessage(name: string, platformLabel: string, c: PeakCheck & { kind: 'peak' }, l10n: L10n): { message: string; detail: string } {
  const hours = `${String(c.queue.fromHour).padStart(2, '0')}:00–${String(c.queue.toHour).padStart(2, '0')}:00`;
  const message = l10n.t('{0}: it is the evening peak on {1} ({2} Beijing time); a card typically takes {3} to {4} to get until {5}.', name, platformLabel, hours, formatDuration(c.waitSeconds[0], l10n), formatDuration(c.waitSeconds[1], l10n), beijingText(c.peakEnds));
  const advice = c.advice.map((a) => {
    switch (a) {
      case 'startInDaytime':
        return l10n.t('Start cards during the day and run your batches then.');
      case 'keepOvernightInNoGpuMode':
        return l10n.t('When you are done tonight, switch the box to no-GPU mode instead of releasing it: tomorrow you keep your disk and skip the queue.');
      case 'keepOvernightStopped':
        return l10n.t('When you are done tonight, stop the box rather than release it, so its data disk survives.');
      case 'syncBeforeStopping':
        return l10n.t('A stop clears the disk on this platform: sync your checkpoints home before stopping.');
    }
  });
  const o = c.overnight;
  const lines = [...advice];
  if (o) {
    const parts = [
      ...(o.noGpuModeFen !== null ? [l10n.t('no-GPU mode {0}', formatCny(o.noGpuModeFen))] : []),
      l10n.t('stopped {0}', formatCny(o.stopFen)),
      l10n.t('released {0} (data disk gone; tomorrow starts on a new box)', formatCny(o.releaseFen)),
    ];
    lines.push(l10n.t('Overnight until {0}: {1}.', beijingText(o.until), parts.join(' · ')));
  }
  return { message, detail: lines.join('\n') };
}

export function spotDetail(check: SpotCheck, l10n: L10n): string {
  // The same figures as `gpu-rent spot-check` for the same inputs (core/guards/spot over core/spot-model).
  const lines = [l10n.t('Syncing checkpoints every {0} (gpuRent.sync.watchIntervalSeconds): {1} expected reclaims, about {2} of work redone, costing about {3}.', formatDuration(check.syncIntervalSeconds, l10n), check.expectedReclaims.toFixed(2), formatDuration(check.expectedReworkSeconds, l10n), formatCny(check.expectedReworkFen))];
  // A cadence is suggested only where it lowers the figure (a longer one would raise it).
  if (check.syncTooSparse) lines.push(l10n.t('Sync every {0} to bring it near {1}: shorten gpuRent.sync.watchIntervalSeconds or save checkpoints more often.', formatDuration(check.recommendedSyncIntervalSeconds, l10n), formatCny(check.reworkAtRecommendedFen)));
  if (check.reclaimNotice === 'aliyunMetadata') lines.push(l10n.t('This platform announces reclaims: the on-box watchdog (with a final sync hook) can save a checkpoint when one is announced.'));
  return lines.join('\n');
}

export function spotInputErrorText(e: SpotInputError, l10n: L10n): string {
  return l10n.t('Cannot size the spot risk: {0} is {1}.', e.field, e.problem === 'notANumber' ? l10n.t('not a number') : l10n.t('not positive'));
}

const mib = (b: number) => `${(b / 1024 ** 2).toFixed(b < 10 * 1024 ** 2 ? 1 : 0)} MiB`;

export function ramRefusalText(r: RamUploadRefusal, where: string, l10n: L10n): string {
  switch (r.kind) {
    case 'notRamBacked':
      return l10n.t('Refused: {0} is on a {1} file system, not in RAM (tmpfs), so the files would reach the box’s disk. Choose /dev/shm or another tmpfs folder (gpuRent.guards.ramDir).', where, r.fsType);
    case 'mountTooSmall':
      return l10n.t('Refused: the files need {0} but the RAM folder has only {1} free (containers often limit /dev/shm to 64 MiB).', mib(r.needBytes), mib(r.availableBytes));
    case 'ramShort':
      return l10n.t('Refused: the files need {0} and {1} must stay free for the job, but the box has only {2} of RAM available.', mib(r.needBytes), mib(r.reserveBytes), mib(r.memAvailableBytes));
    case 'memoryUnknown':
      return l10n.t('Refused: could not read the free memory of the box (/proc/meminfo).');
  }
}

export function secretsWarning(findings: readonly SecretFinding[], folder: string, l10n: L10n): string {
  const files = new Set(findings.map((f) => f.path)).size;
  return l10n.t('{0} holds {1} likely secrets in {2} files (keys, .env, tokens). A platform’s disk is not encrypted: upload them to memory only, or leave them out.', folder, findings.length, files);
}

export function findingLine(f: SecretFinding): string {
  return `${f.path}${f.line ? `:${f.line}` : ''}  ${f.kind}  ${f.hint}`;
}

/** The release/remove dialog's detail: what would be lost, biggest first. */
export function riskDetail(risk: ReleaseRisk | undefined, l10n: L10n): string {
  if (!risk) return l10n.t('Could not check the checkpoint folder on the box. Everything on its disks is deleted when it is released.');
  const lines: string[] = [];
  if (risk.files.length === 0) lines.push(l10n.t('Every checkpoint on the box is in the local copy.'));
  else {
    const shown = risk.files.slice(0, 20).map((f) => `${f.rel}  ${formatBytes(f.size)}${f.reason === 'differs' ? ` (${l10n.t('local copy differs')})` : ''}`);
    lines.push(l10n.t('These files on the box are not in the local copy and will be lost:\n{0}', shown.join('\n') + (risk.files.length > 20 ? `\n… (+${risk.files.length - 20})` : '')));
    lines.push(l10n.t('{0} files, {1} in all, in {2}.', risk.files.length, formatBytes(risk.bytes), risk.remoteDir));
  }
  if (risk.unlisted > 0) lines.push(l10n.t('{0} folders on the box could not be listed; their files were not compared.', risk.unlisted));
  return lines.join('\n');
}

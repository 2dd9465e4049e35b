// What keeps billing after a power action, for the power and release dialogs (issue 22.4): the
// data disk per day after a power-off, compute as if it ran where the platform keeps charging,
// the day a platform releases a stopped instance (AutoDL: 15 days after shutdown), and that
// nothing bills after a release. Pure: `l10n` is passed in.
import { beijingDate, storageRateFor, type Pricing } from '../../core/spend';
import type { ReleaseRule } from '../../core/guards/facts';
import { formatCny } from '../../core/money';
import { formatRate, type L10n } from '../view/present';

export type PowerChoice = 'powerOn:gpu' | 'powerOn:noGpu' | 'powerOff:keep' | 'powerOff:stopCharging' | 'release';

export interface AfterPowerInput {
  choice: PowerChoice;
  pricing: Pricing;
  /** The platform's power-off keeps charging compute ('powerOff:keep' where economical mode exists: 阿里云, 腾讯云). */
  keepChargesCompute: boolean;
  releaseRules: readonly ReleaseRule[];
  /** Epoch seconds: the release day is counted from now. */
  now: number;
}


/** One line per fact: what bills once the action is done, and when the platform deletes a stopped instance. */
export function afterPowerLines(i: AfterPowerInput, l10n: L10n): string[] {
  const disk = storageRateFor(i.pricing, 'stopped');
  const diskText = disk > 0 ? l10n.t('{0}/day ({1} GB)', formatCny(disk), i.pricing.dataDiskGb) : '';
  const lines: string[] = [];
  switch (i.choice) {
    case 'powerOn:gpu':
      lines.push(l10n.t('From the power-on it bills {0} with its GPU.', formatRate(i.pricing.hourlyRate + disk / 24, l10n)));
      break;
    case 'powerOn:noGpu':
      lines.push(l10n.t('From the power-on it bills {0} in no-GPU mode.', formatRate(i.pricing.noGpuModeRate + disk / 24, l10n)));
      break;
    case 'powerOff:keep':
      if (i.keepChargesCompute) lines.push(l10n.t('After this power-off compute keeps billing {0} as if it ran{1}.', formatRate(i.pricing.hourlyRate, l10n), diskText ? l10n.t(', and the disks {0}', diskText) : ''));
      else lines.push(diskText ? l10n.t('After the power-off the GPU stops billing; the data disk keeps billing {0}.', diskText) : l10n.t('After the power-off the GPU stops billing; a data disk keeps billing per day (no disk size is set here).'));
      break;
    case 'powerOff:stopCharging':
      lines.push(diskText ? l10n.t('After the power-off compute stops billing; the disks keep billing {0} (a public IP may bill too).', diskText) : l10n.t('After the power-off compute stops billing; the disks keep billing per day (no disk size is set here; a public IP may bill too).'));
      break;
    case 'release':
      lines.push(l10n.t('After the release nothing bills: the instance and its disks are deleted.'));
      return lines;
  }
  if (i.choice === 'powerOff:keep' || i.choice === 'powerOff:stopCharging') {
    for (const r of i.releaseRules) {
      if (r.kind === 'releaseAfterStoppedDays') lines.push(l10n.t('A stopped instance is released with its data after {0} days: about {1} (Beijing) if it stays off.', r.days, beijingDate(i.now + r.days * 86400)));
      else lines.push(l10n.t('Stopping keeps a free snapshot for {0} hours only.', r.hours));
    }
  }
  return lines;
}

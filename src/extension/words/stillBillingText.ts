// The modal after an end-of-run power action that did not happen (issue 41 bug 8), built as data
// so it is testable: each fact said once (the message says that it bills and at what rate; the
// detail says why, in words, and what can still be done), the cause named (a non-root login's
// `shutdown` needs root or password-less `sudo -n`), and only the actions this box has: a box
// with no platform account is never sent to "power it off through the account".
import type { L10n } from '../../core/l10n';

export type StillBillingAction = 'powerOffThroughAccount' | 'releaseGuard' | 'console';

export interface StillBillingInput {
  job: string;
  name: string;
  /** The rate it keeps billing, already in words (¥2.10/h). */
  rate: string;
  /** What was asked: a power-off or a switch to no-GPU mode. */
  action: 'powerOff' | 'noGpu';
  /** Why it did not happen. */
  cause:
    | { kind: 'syncFailed'; detail: string }
    | { kind: 'noWayToPower' }
    /** The box's own power-off command failed (`user` the login; `output` what it printed, maybe empty). */
    | { kind: 'boxRefused'; user: string; exitCode: number; output: string }
    | { kind: 'boxStillAnswering'; seconds: number }
    | { kind: 'other'; detail: string };
  /** What can still be done (core/guards/powerOffer's nextBestActions). */
  next: readonly StillBillingAction[];
  /** A platform account is linked (else: a manual SSH box). */
  linked: boolean;
  /** The box's own power-off stays armed and tries again. */
  backupArmed: boolean;
}

export interface StillBillingModal {
  message: string;
  detail: string;
  buttons: { title: string; action: 'powerOffThroughAccount' | 'release' }[];
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function causeText(c: StillBillingInput['cause'], l10n: L10n): string {
  switch (c.kind) {
    case 'syncFailed':
      return capital(l10n.t('the final sync failed ({0}), so no power action ran', c.detail)) + '.';
    case 'noWayToPower':
      return l10n.t('Nothing here can do it: no platform account with power actions is linked, and this login cannot power the box off.');
    case 'boxRefused': {
      const said = c.output ? ' ' + l10n.t('The box said: {0}', c.output) : '';
      return c.user !== 'root'
        ? l10n.t('The login {0} is not root: `shutdown` needs root or password-less sudo (`sudo -n`), and the box refused it (exit {1}).', c.user, c.exitCode) + said
        : l10n.t('The box refused the power-off command (exit {0}).', c.exitCode) + said;
    }
    case 'boxStillAnswering':
      return l10n.t('The box still answers SSH {0} s after its power-off command: it did not go down.', c.seconds);
    case 'other':
      return c.detail;
  }
}

export function stillBillingModal(i: StillBillingInput, l10n: L10n): StillBillingModal {
  const message = i.action === 'noGpu' ? l10n.t('{0}: {1} did NOT switch to no-GPU mode and keeps billing {2}.', i.job, i.name, i.rate) : l10n.t('{0}: {1} did NOT power off and keeps billing {2}.', i.job, i.name, i.rate);
  const can = i.next.includes('powerOffThroughAccount');
  const what = can
    ? l10n.t('Power it off through the platform account, release it (its checkpoints are checked first), or stop it in the platform’s console.')
    : i.linked
      ? l10n.t('Release it (its checkpoints are checked first), or stop it in the platform’s console.')
      : l10n.t('Stop it in the platform’s console (this box has no platform account here), or log in as root and power it off; then mark it stopped or released here.');
  const detail = [causeText(i.cause, l10n), i.backupArmed ? l10n.t('The box’s own power-off stays armed and tries again 15 minutes after the run’s end.') : '', what].filter(Boolean).join('\n\n');
  const buttons: StillBillingModal['buttons'] = [...(can ? [{ title: l10n.t('Power Off Through Account'), action: 'powerOffThroughAccount' as const }] : []), { title: i.linked ? l10n.t('Release…') : l10n.t('Mark Released…'), action: 'release' as const }];
  return { message, detail, buttons };
}

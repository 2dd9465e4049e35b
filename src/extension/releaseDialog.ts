// The release question, built as data so its safety is testable: what it says, and which
// buttons in which order. Unsynced work is never lost by pressing Enter: where the box's
// checkpoints could not be checked the dialog says plainly that unsynced work may be lost and
// Cancel comes first (the close affordance, the default); where files would be lost Sync First
// comes first; the destructive button is never first, and Sync First is always offered.
import type { ReleaseRisk } from '../app/release';
import { riskDetail } from './guardText';
import type { L10n } from './present';

export type ReleaseChoice = 'syncFirst' | 'release' | 'cancel';

export interface ReleaseDialog {
  message: string;
  detail: string;
  buttons: { title: string; choice: ReleaseChoice; isCloseAffordance?: boolean }[];
}

export interface ReleaseDialogInput {
  name: string;
  /** 'list': the instance is released here (and in the console by hand); 'platform': through the account's API. */
  where: 'list' | 'platform';
  accountLabel?: string;
  /** The checkpoint comparison, or why there is none. */
  check: { kind: 'checked'; risk: ReleaseRisk } | { kind: 'notChecked'; reason: 'unreachable' | 'notRunning' };
  /** Extra lines (what keeps billing, the platform's steps). */
  extra?: string[];
}

export function releaseDialog(i: ReleaseDialogInput, l10n: L10n): ReleaseDialog {
  const message = i.where === 'platform' ? l10n.t('Release {0} on {1}? Its disks and everything on them are deleted.', i.name, i.accountLabel ?? '') : l10n.t('Release {0}? Release it in the platform’s console too; its data disk is deleted.', i.name);
  const cancel = { title: l10n.t('Cancel'), choice: 'cancel' as const, isCloseAffordance: true };
  const syncFirst = { title: l10n.t('Sync First'), choice: 'syncFirst' as const };
  if (i.check.kind === 'notChecked') {
    const why = i.check.reason === 'unreachable' ? l10n.t('The box could not be reached, so its checkpoint folders were NOT checked: unsynced work on it may be lost.') : l10n.t('The box is not running, so its checkpoint folders were NOT checked: unsynced work on it may be lost.');
    return { message, detail: [why, l10n.t('Everything on its disks is deleted when it is released.'), ...(i.extra ?? [])].join('\n\n'), buttons: [cancel, syncFirst, { title: l10n.t('Release Anyway'), choice: 'release' }] };
  }
  const detail = [riskDetail(i.check.risk, l10n), ...(i.extra ?? [])].join('\n\n');
  const atRisk = i.check.risk.files.length > 0 || i.check.risk.unlisted > 0;
  if (atRisk) return { message, detail, buttons: [syncFirst, { title: l10n.t('Release Anyway'), choice: 'release' }, cancel] };
  return { message, detail, buttons: [syncFirst, { title: l10n.t('Release'), choice: 'release' }, cancel] };
}

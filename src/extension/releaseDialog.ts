// The release question, built as data so its safety is testable: what it says, and which
// buttons in which order. Unsynced work is never lost by pressing Enter: where the box's
// checkpoints could not be checked the dialog says plainly that unsynced work may be lost and
// Cancel comes first (the close affordance, the default); where files would be lost Sync First
// comes first; the destructive button is never first, and Sync First is offered wherever a sync can run (a
// stopped box offers Power On (Platform) instead, where its account can). A folder the login
// cannot read is named apart from a box that cannot be reached (issue 41 bug 4).
import type { ReleaseRisk } from '../app/release';
import type { UnreadableFolder } from '../app/releaseCheck';
import { riskDetail } from './words/guardText';
import type { L10n } from './view/present';

export type ReleaseChoice = 'syncFirst' | 'powerOn' | 'release' | 'cancel';

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
  check: { kind: 'checked'; risk: ReleaseRisk; unreadable?: UnreadableFolder[] } | { kind: 'notChecked'; reason: 'unreachable' | 'notRunning'; detail?: string };
  /** Extra lines (what keeps billing, the platform's steps). */
  extra?: string[];
  /** A stopped box the account can power on: *Power On (Platform)* is offered in place of *Sync First* (a sync needs it running). */
  canPowerOn?: boolean;
}

/**
 * VS Code's modal focuses its first button that is not the close affordance, whatever comes
 * first in the list: where that would be the destructive one, a safe *Keep It* goes before it,
 * so Enter never releases.
 */
export function safeDefault(d: ReleaseDialog, l10n: L10n): ReleaseDialog {
  const first = d.buttons.find((b) => !b.isCloseAffordance);
  if (first?.choice !== 'release') return d;
  return { ...d, buttons: [{ title: l10n.t('Keep It'), choice: 'cancel' }, ...d.buttons] };
}

export function releaseDialog(i: ReleaseDialogInput, l10n: L10n): ReleaseDialog {
  return safeDefault(releaseDialogButtons(i, l10n), l10n);
}

function releaseDialogButtons(i: ReleaseDialogInput, l10n: L10n): ReleaseDialog {
  const message = i.where === 'platform' ? l10n.t('Release {0} on {1}? Its disks and everything on them are deleted.', i.name, i.accountLabel ?? '') : l10n.t('Release {0}? Release it in the platform’s console too; its data disk is deleted.', i.name);
  const cancel = { title: l10n.t('Cancel'), choice: 'cancel' as const, isCloseAffordance: true };
  const syncFirst = { title: l10n.t('Sync First'), choice: 'syncFirst' as const };
  const anyway = { title: l10n.t('Release Anyway'), choice: 'release' as const };
  if (i.check.kind === 'notChecked') {
    const why =
      i.check.reason === 'unreachable'
        ? l10n.t('The box could not be reached, so its checkpoint folders were NOT checked: unsynced work on it may be lost.') + (i.check.detail ? `\n${i.check.detail}` : '')
        : l10n.t('The box is not running, so its checkpoint folders were NOT checked: unsynced work on it may be lost.');
    // A stopped box cannot be synced: power it on first where the account can (never a Sync First that can only fail).
    const first = i.check.reason === 'notRunning' ? (i.canPowerOn ? [{ title: l10n.t('Power On (Platform)'), choice: 'powerOn' as const }] : []) : [syncFirst];
    return { message, detail: [why, l10n.t('Everything on its disks is deleted when it is released.'), ...(i.extra ?? [])].join('\n\n'), buttons: [cancel, ...first, anyway] };
  }
  const unreadable = i.check.unreadable ?? [];
  // A folder the login may not read is not an unreachable box: it is named, with the box's own words.
  const cannotRead = unreadable.map((u) => l10n.t('{0} could not be read by this login, so its checkpoints were NOT checked: unsynced work in it may be lost ({1}).', u.remoteDir, u.detail));
  const detail = [...cannotRead, riskDetail(i.check.risk, l10n), ...(i.extra ?? [])].join('\n\n');
  if (unreadable.length) return { message, detail, buttons: [cancel, syncFirst, anyway] };
  const atRisk = i.check.risk.files.length > 0 || i.check.risk.unlisted > 0;
  if (atRisk) return { message, detail, buttons: [syncFirst, anyway, cancel] };
  return { message, detail, buttons: [syncFirst, { title: l10n.t('Release'), choice: 'release' }, cancel] };
}

/**
 * *Release Anyway* while checkpoints on the box are not in the local copy: asked once more, by
 * name, Cancel first (the default); undefined when nothing unsynced was found.
 */
export function releaseAnywayQuestion(name: string, unsynced: readonly string[], l10n: L10n): ReleaseDialog | undefined {
  if (unsynced.length === 0) return undefined;
  const shown = unsynced.slice(0, 10).join('\n') + (unsynced.length > 10 ? `\n… (+${unsynced.length - 10})` : '');
  return safeDefault({
    message: l10n.t('Delete {0} unsynced checkpoint(s) with {1}?', unsynced.length, name),
    detail: l10n.t('These are on the box and not in the local copy; releasing deletes them for good:\n{0}', shown),
    buttons: [
      { title: l10n.t('Cancel'), choice: 'cancel', isCloseAffordance: true },
      { title: l10n.t('Delete Them and Release'), choice: 'release' },
    ],
  }, l10n);
}

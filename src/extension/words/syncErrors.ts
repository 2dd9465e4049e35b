// A failed sync or upload in the user's words: one sentence per sync error code with the file or
// folder it names, in the UI's language, instead of the remote layer's English message inside a
// Chinese sentence. The English message (with the OS's or SSH's own words) goes to the log. Pure
// (l10n passed in).
import type { SyncError } from '../../remote/sync';
import { formatBytes } from '../../core/format';
import type { L10n } from '../view/present';

export function syncErrorText(e: Pick<SyncError, 'code' | 'detail'>, dirs: { remoteDir: string; localDir: string }, l10n: L10n): string {
  const name = e.detail.name;
  switch (e.code) {
    case 'remote-missing':
      return l10n.t('The folder {0} does not exist on the box (yet): check the path, or start the training that writes it.', dirs.remoteDir);
    case 'remote-not-directory':
      return l10n.t('{0} on the box is a file, not a folder.', dirs.remoteDir);
    case 'remote-unreadable':
      return l10n.t('The folder {0} on the box cannot be read by this login.', dirs.remoteDir);
    case 'connection-lost':
      return name ? l10n.t('The connection to the box dropped while copying {0}. Run it again: what was verified is kept and the rest resumes.', name) : l10n.t('The connection to the box dropped. Run it again: what was verified is kept and the rest resumes.');
    case 'local-disk-full': {
      const figures = e.detail.needBytes !== undefined && e.detail.freeBytes !== undefined ? l10n.t(' ({0} more needed, {1} free)', formatBytes(e.detail.needBytes), formatBytes(e.detail.freeBytes)) : '';
      const published = e.detail.published?.length ? l10n.t(' {0} files before it were saved and verified.', e.detail.published.length) : '';
      return l10n.t('This computer’s disk is full{0}: {1} was not saved.{2} Free some space and run it again to resume.', figures, name ?? dirs.localDir, published);
    }
    case 'local-not-directory':
      return l10n.t('The local folder {0} is not a folder or cannot be created or read.', dirs.localDir);
    case 'local-in-git':
      return l10n.t('The local folder {0} is a .git folder or inside one: refused, as files from the box there could run commands through git. Choose another folder.', dirs.localDir);
    case 'local-outside':
      return l10n.t('The local folder {0} leads (through a link) outside the project folder: refused, so the box cannot write there. Choose a real folder inside the project.', dirs.localDir);
    case 'local-io':
      return name ? l10n.t('{0} could not be written on this computer (the details are in the GPU Rent output).', name) : l10n.t('A file could not be written in {0} on this computer (the details are in the GPU Rent output).', dirs.localDir);
  }
}

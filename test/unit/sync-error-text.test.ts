// A failed sync in the user's words (issue 23.6: "remote errors localized instead of English
// inside Chinese sentences"): the SyncErrors the remote layer makes (its own constructors), put
// into words through the zh bundle as VS Code would, hold no English sentence; each code has words
// of its own, naming the file or folder.
import { strict as assert } from 'node:assert';
import { SyncError } from '../../src/remote/sync';
import { diskFull, toSyncError } from '../../src/remote/sync/errors';
import { RemoteFolderError } from '../../src/remote/sync/list';
import { syncErrorText } from '../../src/extension/words/syncErrors';
import { en, inZh } from '../support/l10n';

const dirs = { remoteDir: '/root/autodl-tmp/checkpoints', localDir: '/home/me/ckpt' };

describe('sync errors in the user’s words (words/syncErrors)', () => {
  const errors: SyncError[] = [
    toSyncError(new RemoteFolderError('remote-missing', dirs.remoteDir)) as SyncError,
    toSyncError(new RemoteFolderError('remote-not-directory', dirs.remoteDir)) as SyncError,
    toSyncError(new RemoteFolderError('remote-unreadable', dirs.remoteDir, 'Permission denied')) as SyncError,
    toSyncError(new Error('No response from server')) as SyncError,
    new SyncError('connection-lost', 'connection lost while pulling step_1000.pt: No response from server', { name: 'step_1000.pt' }),
    diskFull('step_1000.pt', 2_000_000_000, 1_000_000, ['a.pt', 'b.pt']),
    new SyncError('local-not-directory', `local path ${dirs.localDir} is not a folder`),
    new SyncError('local-io', 'cannot write step_1000.pt.part: EACCES: permission denied', { name: 'step_1000.pt' }),
  ];

  it('every code the remote layer sends has its own words in Chinese, with no English sentence inside', () => {
    assert.ok(errors.every((e) => e instanceof SyncError));
    const texts = errors.map((e) => syncErrorText(e, dirs, inZh));
    assert.equal(new Set(texts).size, texts.length);
    for (const [i, t] of texts.entries()) {
      // What is left after the paths and file names: Chinese words and figures, no English message.
      const rest = t.replaceAll(dirs.remoteDir, '').replaceAll(dirs.localDir, '').replace(/step_1000\.pt|GPU Rent/g, '').replace(/[\d.]+ ?[KMG]?i?B/g, '');
      assert.doesNotMatch(rest, /[A-Za-z]{3,}/, `${errors[i]!.code}: ${t}`);
    }
  });

  it('the words name what failed: the box folder, the file, the figures of a full disk', () => {
    assert.match(syncErrorText(errors[0]!, dirs, en), /^The folder \/root\/autodl-tmp\/checkpoints does not exist on the box/);
    assert.match(syncErrorText(errors[4]!, dirs, en), /while copying step_1000\.pt/);
    const full = syncErrorText(errors[5]!, dirs, en);
    assert.match(full, /step_1000\.pt was not saved/);
    assert.match(full, /2 files before it were saved and verified/);
  });
});

// Keep Syncing Checkpoints / Stop Syncing / Change Sync Folders.
import * as vscode from 'vscode';
import { showInfo } from '../../notify';
import { WatchArgs } from '../../args';
import type { CommandContext } from '../../services/context';
import { requireTrust } from '../../words/errors';
import { openOptions, parseArgs, pickInstance, powered } from '../pick';
import { instanceIdOf } from '../../args';
import { isScripted } from '../registry';
import { askSyncFolders, rememberSyncFolders, syncFoldersOf } from './folders';

export async function watchCheckpoints(ctx: CommandContext, arg: unknown): Promise<boolean> {
  requireTrust();
  const a = isScripted(arg) ? parseArgs(WatchArgs, arg) : undefined;
  const picked = await pickInstance(ctx, a ?? arg, powered);
  if (!picked) return false;
  const inst = ctx.sessions.powered(picked.id);
  if (ctx.watches.has(inst.id)) return true;
  const cur = syncFoldersOf(ctx, inst);
  const folders = cur.chosen && cur.localDir ? { remoteDir: cur.remoteDir, localDir: cur.localDir } : a ? { remoteDir: cur.remoteDir, localDir: cur.localDir ?? cur.resolveLocal(ctx.settings().syncLocalDir) } : await askSyncFolders(ctx, inst);
  if (!folders) return false;
  await rememberSyncFolders(ctx, inst, folders);
  // Connected first, here, where a trust or password question can be asked; the loop asks nothing.
  await ctx.sessions.open(inst.id, openOptions(a));
  const seconds = ctx.settings().syncWatchIntervalSeconds;
  await ctx.watches.start({ id: inst.id, ...folders, intervalSeconds: seconds, ...(a?.acceptNewHostKey ? { acceptNewHostKey: true } : {}) });
  if (!a) void showInfo(vscode.l10n.t('Syncing {0} from {1} into {2} every {3} s.', folders.remoteDir, inst.name, folders.localDir, seconds));
  return true;
}

export function stopWatching(ctx: CommandContext, arg: unknown): string[] {
  const id = instanceIdOf(arg);
  const stopped = ctx.watches.stop(id);
  if (!isScripted(arg)) {
    const name = id ? (ctx.store.get(id)?.name ?? id) : undefined;
    void showInfo(
      stopped.length === 0
        ? name
          ? vscode.l10n.t('{0} is not being synced.', name)
          : vscode.l10n.t('Nothing is being synced.')
        : vscode.l10n.t('Stopped syncing checkpoints from {0}.', stopped.map((i) => ctx.store.get(i)?.name ?? i).join(', ')),
    );
  }
  return stopped;
}

export async function editSyncFolders(ctx: CommandContext, arg: unknown): Promise<{ remoteDir: string; localDir: string } | undefined> {
  const inst = await pickInstance(ctx, arg);
  if (!inst) return undefined;
  const folders = await askSyncFolders(ctx, inst);
  if (!folders) return undefined;
  await rememberSyncFolders(ctx, inst, folders);
  return folders;
}

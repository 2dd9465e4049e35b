// Sync Checkpoints Now: the folders are asked the first time (and remembered, editable), the
// progress shows files, bytes and speed, the result says what was pulled, and a local folder
// inside a git work tree gets a one-time offer to add it to .gitignore.
import * as vscode from 'vscode';
import { showInfo, withNotificationProgress } from '../../notify';
import { addToGitignore, gitignoreAdvice, summarize, syncRemote, TransferMeter, type SyncSummary } from '../../../app/sync';
import { formatBytes } from '../../../core/format';
import { SyncArgs } from '../../args';
import type { CommandContext } from '../../services/context';
import { requireTrust, shownError, UserError } from '../../words/errors';
import { parseArgs, pickInstance, powered } from '../pick';
import { isScripted } from '../registry';
import { askSyncFolders, rememberSyncFolders, syncFoldersOf } from './folders';
import { syncErrorText } from '../../words/syncErrors';
import { readState, StateKeys, writeState } from '../../stateKeys';


/**
 * `durable` (default on here): each file flushed to disk before it is published, so a copy the
 * notification calls synced survives a crash of this computer even if the instance is released
 * next (Release's "Sync First", the idle guard, end actions). The CLI leaves it to `--fsync`.
 */
export async function syncCheckpoints(ctx: CommandContext, arg: unknown, opts: { durable?: boolean } = {}): Promise<SyncSummary | undefined> {
  requireTrust();
  const a = isScripted(arg) ? parseArgs(SyncArgs, arg) : undefined;
  const picked = await pickInstance(ctx, a ?? arg, powered);
  if (!picked) return undefined;
  const inst = ctx.sessions.powered(picked.id);
  const cur = syncFoldersOf(ctx, inst);
  let folders: { remoteDir: string; localDir: string } | undefined;
  if (a) folders = { remoteDir: a.remoteDir ?? cur.remoteDir, localDir: a.localDir !== undefined ? cur.resolveLocal(a.localDir) : (cur.localDir ?? cur.resolveLocal(ctx.settings().syncLocalDir)) };
  else if (cur.chosen && cur.localDir) folders = { remoteDir: cur.remoteDir, localDir: cur.localDir };
  else folders = await askSyncFolders(ctx, inst);
  if (!folders) return undefined;
  await rememberSyncFolders(ctx, inst, folders);
  const { remoteDir, localDir } = folders;
  const summary = await withNotificationProgress({ title: vscode.l10n.t('Syncing checkpoints from {0}', inst.name), cancellable: true }, async (progress, token) => {
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    const { syncOnce, SyncError } = await import('../../../remote/sync');
    const meter = new TransferMeter();
    let lastPct = 0;
    let lastDraw = 0;
    try {
      const conn = await ctx.sessions.connect(inst, a?.acceptNewHostKey ? { acceptNewHostKey: true } : {});
      const report = await syncOnce(syncRemote(conn), { remoteDir, localDir, source: `${inst.login.user}@${inst.login.host}:${inst.login.port}`, signal: abort.signal, durable: opts.durable ?? true, log: (line: string) => ctx.log.info(`[${inst.id}] sync: ${line}`) }, (p) => {
        meter.observe(p);
        const s = meter.snapshot();
        if (p.kind === 'listed') progress.report({ message: s.filesTotal === 1 ? vscode.l10n.t('1 file to copy') : vscode.l10n.t('{0} files to copy', s.filesTotal ?? 0) });
        else if ((p.kind === 'bytes' && Date.now() - lastDraw > 500) || p.kind === 'file-done') {
          lastDraw = Date.now();
          const pct = s.filesTotal ? Math.min(100, (s.filesDone / s.filesTotal) * 100) : 0;
          progress.report({
            increment: Math.max(0, pct - lastPct),
            message: vscode.l10n.t('{0}/{1} files · {2} · {3}/s', s.filesDone, s.filesTotal ?? '?', formatBytes(s.bytesDone), formatBytes(s.bytesPerSecond)),
          });
          lastPct = Math.max(lastPct, pct);
        }
      });
      const unsynced = report.interrupted ? Math.max(0, (meter.snapshot().filesTotal ?? 0) - meter.snapshot().filesDone) : 0;
      await ctx.store.update(inst.id, { sync: { remoteDir, localDir, lastSyncAt: ctx.now(), unsynced } });
      ctx.log.info(`[${inst.id}] sync ${remoteDir} → ${localDir}: ${report.files} files, ${report.bytes} bytes in ${report.seconds.toFixed(1)} s${report.interrupted ? ' (cancelled)' : ''}`);
      return summarize(report);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      const latest = ctx.store.get(inst.id);
      // The Checkpoints row shows lastError as stored: in the UI's language, as the watch stores it; the English goes to the log.
      const words = e instanceof SyncError ? syncErrorText(e, { remoteDir, localDir }, vscode.l10n) : shownError(e).message;
      await ctx.store.update(inst.id, { sync: { remoteDir, localDir, ...(latest?.sync?.lastSyncAt ? { lastSyncAt: latest.sync.lastSyncAt } : {}), lastError: words.slice(0, 500) } });
      if (e instanceof SyncError) {
        ctx.log.warn(`[${inst.id}] sync ${remoteDir} → ${localDir} failed (${e.code}): ${msg}`);
        throw new UserError(vscode.l10n.t('Checkpoint sync failed: {0}', words));
      }
      throw e;
    }
  });
  if (!a) {
    const result = summary.interrupted
      ? vscode.l10n.t('Sync from {0} stopped: {1} files ({2}) copied; the rest resumes next time.', inst.name, summary.files, formatBytes(summary.bytes))
      : summary.files === 1 && summary.byIdentity === 1
        ? vscode.l10n.t('Synced 1 file ({0}) from {1} in {2} s ({3}/s), verified: unchanged on the instance from its first byte to its last, its SHA-256 recorded.', formatBytes(summary.bytes), inst.name, summary.seconds.toFixed(1), formatBytes(summary.bytesPerSecond))
      : summary.files === 1
        ? vscode.l10n.t('Synced 1 file ({0}) from {1} in {2} s ({3}/s), verified by SHA-256.', formatBytes(summary.bytes), inst.name, summary.seconds.toFixed(1), formatBytes(summary.bytesPerSecond))
        : summary.files && summary.byIdentity
        ? vscode.l10n.t('Synced {0} files ({1}) from {2} in {3} s ({4}/s), each verified: by SHA-256 against the instance, or for the {5} large ones, unchanged there from first byte to last.', summary.files, formatBytes(summary.bytes), inst.name, summary.seconds.toFixed(1), formatBytes(summary.bytesPerSecond), summary.byIdentity)
        : summary.files
        ? vscode.l10n.t('Synced {0} files ({1}) from {2} in {3} s ({4}/s), each verified by SHA-256.', summary.files, formatBytes(summary.bytes), inst.name, summary.seconds.toFixed(1), formatBytes(summary.bytesPerSecond))
        : summary.kept.length
        ? vscode.l10n.t('Nothing new was copied from {0}.', inst.name)
        : vscode.l10n.t('Checkpoints from {0} are up to date ({1} unchanged).', inst.name, summary.unchanged + summary.verified);
    const skipped = summary.skipped.length ? ' ' + vscode.l10n.t('{0} skipped (see the log).', summary.skipped.length) : '';
    for (const s of summary.skipped) ctx.log.warn(`[${inst.id}] sync skipped ${JSON.stringify(s.name)}: ${s.reason}`);
    for (const k of summary.kept) ctx.log.warn(`[${inst.id}] sync kept ${JSON.stringify(k.name)} (changed locally); the instance's version saved as ${JSON.stringify(k.boxCopy)}`);
    const keptNames = summary.kept.slice(0, 3).map((k) => vscode.l10n.t('{0} (the instance\'s version: {1})', k.name, k.boxCopy)).join(', ') + (summary.kept.length > 3 ? ', …' : '');
    const kept =
      summary.kept.length === 1
        ? ' ' + vscode.l10n.t('A local file you changed since the last sync was kept, the instance\'s version saved beside it: {0}.', keptNames)
        : summary.kept.length
          ? ' ' + vscode.l10n.t('{0} local files you changed since the last sync were kept, the instance\'s versions saved beside them: {1}.', summary.kept.length, keptNames)
          : '';
    for (const k of summary.replaced) ctx.log.info(`[${inst.id}] sync replaced ${JSON.stringify(k.name)} with the instance's newer version; the earlier synced copy moved to ${JSON.stringify(k.previous)}`);
    const replacedNames = summary.replaced.slice(0, 3).map((k) => k.name).join(', ') + (summary.replaced.length > 3 ? ', …' : '');
    const replaced = summary.replaced.length ? ' ' + vscode.l10n.t("{0} file(s) synced earlier were replaced by the instance's newer version, the earlier ones moved to .gpu-rent-previous/: {1}.", summary.replaced.length, replacedNames) : '';
    const open = vscode.l10n.t('Open Folder');
    void showInfo(result + kept + replaced + skipped, open).then((p) => p && vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(localDir)));
  }
  await offerGitignore(ctx, localDir, a?.addToGitignore);
  return summary;
}

/** Once per folder: a checkpoint folder inside a git work tree fills Source Control; offer to ignore it. */
async function offerGitignore(ctx: CommandContext, localDir: string, scripted: boolean | undefined): Promise<void> {
  const advice = await gitignoreAdvice(localDir).catch(() => undefined);
  if (!advice) return;
  const asked = readState(ctx.memento, StateKeys.gitignoreAsked) ?? [];
  if (scripted === undefined && asked.includes(localDir)) return;
  let yes = scripted === true;
  if (scripted === undefined) {
    await writeState(ctx.memento, StateKeys.gitignoreAsked, [...asked, localDir].slice(-100));
    const add = vscode.l10n.t('Add to .gitignore');
    yes = (await showInfo(vscode.l10n.t('{0} is inside the git work tree {1}: checkpoints would show up as changes. Add /{2}/ to its .gitignore?', localDir, advice.repoRoot, advice.entry), add)) === add;
  }
  if (!yes) return;
  const path = await addToGitignore(advice);
  ctx.log.info(`added /${advice.entry}/ to ${path}`);
}

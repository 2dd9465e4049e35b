// Upload to Memory Only / Wipe Memory Upload: files for the box that must never touch its
// unencrypted disk go into a RAM folder (checked to be RAM, with memory left free), and are
// wiped on request or when the instance is released or removed (the release hook).
import * as vscode from 'vscode';
import { showInfo, showWarning, withNotificationProgress } from '../../notify';
import { forLabel } from '../../../core/text';
import { isAbsolute } from 'node:path';
import { formatBytes } from '../../../core/format';
import type { Instance } from '../../../core/instances';
import type { WillRelease } from '../../../app/release';
import { UploadToMemoryArgs, WipeMemoryArgs } from '../../args';
import { ramMemoOf, withoutRamDir, withRamDir } from '../../guardDecisions';
import { ramRefusalText } from '../../words/guardText';
import type { CommandContext } from '../../services/context';
import { requireTrust, UserError } from '../../words/errors';
import { openOptions, parseArgs, pickInstance, powered } from '../pick';
import { isScripted } from '../registry';
import { readState, StateKeys, writeState } from '../../stateKeys';

const ramMemo = (ctx: CommandContext) => ramMemoOf(readState(ctx.memento, StateKeys.ramUploads));

export async function uploadToMemory(ctx: CommandContext, arg: unknown): Promise<{ dir: string; files: number; bytes: number; skipped: number } | undefined> {
  requireTrust();
  let a: { id: string; paths: string[]; dir?: string | undefined; acceptNewHostKey?: boolean | undefined };
  if (isScripted(arg) && 'paths' in arg) a = parseArgs(UploadToMemoryArgs, arg);
  else {
    const inst = await pickInstance(ctx, arg, powered);
    if (!inst) return undefined;
    const picked = await vscode.window.showOpenDialog({ canSelectFiles: true, canSelectFolders: true, canSelectMany: true, openLabel: vscode.l10n.t('Upload to Memory Only'), title: vscode.l10n.t('Files or folders to keep in RAM on {0}', inst.name) });
    if (!picked?.length) return undefined;
    a = { id: inst.id, paths: picked.map((u) => u.fsPath) };
  }
  for (const p of a.paths) if (!isAbsolute(p)) throw new UserError(vscode.l10n.t('Use an absolute local path: {0}', p));
  const dir = a.dir ?? ctx.settings().ramDir;
  const { inst, conn } = await ctx.sessions.open(a.id, openOptions(a));
  const { secureUpload, RamUploadRefused } = await import('../../../remote/guards/ramdisk');
  const result = await withNotificationProgress({ title: vscode.l10n.t('Uploading to RAM on {0}…', inst.name) }, (progress) => secureUpload(conn, a.paths, dir, { onFile: (rel) => progress.report({ message: rel }) }))
    .then(undefined, (e: unknown) => {
      if (e instanceof RamUploadRefused) throw new UserError(ramRefusalText(e.refusal, e.target.resolved || dir, vscode.l10n));
      throw e;
    });
  await writeState(ctx.memento, StateKeys.ramUploads, withRamDir(ramMemo(ctx), inst.id, result.dir));
  ctx.log.info(`[${inst.id}] memory-only upload: ${result.files.length} files, ${result.bytes} bytes into ${result.dir}`);
  const skipped = result.skipped.length ? ' ' + vscode.l10n.t('Skipped {0} (links or special files).', result.skipped.length) : '';
  void showInfo(vscode.l10n.t('{0} files ({1}) are in RAM at {2} on {3}, never on its disk. They are wiped when you release the instance here, or with “Wipe Memory Upload”.', result.files.length, formatBytes(result.bytes), result.dir, inst.name) + skipped);
  return { dir: result.dir, files: result.files.length, bytes: result.bytes, skipped: result.skipped.length };
}

export async function wipeMemoryUpload(ctx: CommandContext, arg: unknown): Promise<string | undefined> {
  requireTrust();
  let a: { id: string; dir?: string | undefined; acceptNewHostKey?: boolean | undefined };
  if (isScripted(arg)) a = parseArgs(WipeMemoryArgs, arg);
  else {
    const inst = await pickInstance(ctx, arg, powered);
    if (!inst) return undefined;
    const dirs = ramMemo(ctx)[inst.id] ?? [];
    if (dirs.length === 0) {
      void showInfo(vscode.l10n.t('Nothing was uploaded to memory on {0} from here.', inst.name));
      return 'none';
    }
    const dir = dirs.length === 1 ? dirs[0] : (await vscode.window.showQuickPick(dirs.map((d) => ({ label: forLabel(d, 300), d })), { placeHolder: vscode.l10n.t('Which RAM folder on {0}?', inst.name) }))?.d;
    if (!dir) return undefined;
    a = { id: inst.id, dir };
  }
  const dir = a.dir ?? ramMemo(ctx)[a.id]?.[0];
  const name = ctx.store.get(a.id)?.name ?? a.id;
  if (!dir) throw new UserError(vscode.l10n.t('Nothing was uploaded to memory on {0} from here.', name));
  const { inst, conn } = await ctx.sessions.open(a.id, openOptions(a));
  const { wipeRamDir } = await import('../../../remote/guards/ramdisk');
  const r = await wipeRamDir(conn, dir);
  if (r.kind === 'wiped' || r.kind === 'absent') await writeState(ctx.memento, StateKeys.ramUploads, withoutRamDir(ramMemo(ctx), inst.id, dir));
  const msg =
    r.kind === 'wiped'
      ? vscode.l10n.t('Wiped {0} ({1}) from RAM on {2}.', r.resolved, formatBytes(r.bytes), inst.name)
      : r.kind === 'absent'
        ? vscode.l10n.t('{0} does not exist on {1}: nothing to wipe (a restart clears RAM).', dir, inst.name)
        : r.kind === 'notOurs'
          ? vscode.l10n.t('Not wiped: {0} was not made by “Upload to Memory Only”.', r.resolved || dir)
          : r.kind === 'notRam'
            ? vscode.l10n.t('Not wiped: {0} is on a {1} file system, not a RAM folder.', r.resolved || dir, r.fsType)
            : vscode.l10n.t('Not wiped: {0} is a home, top-level or mount folder.', r.resolved || dir);
  ctx.log.info(`[${inst.id}] wipe ${dir}: ${r.kind}`);
  (r.kind === 'wiped' || r.kind === 'absent' ? showInfo : showWarning)(msg);
  return r.kind;
}

/** The release hook: wipes every memory-only upload made for the instance (failures logged). */
export function wipeBeforeRelease(ctx: CommandContext): (e: WillRelease) => Promise<void> {
  return async ({ inst, acceptNewHostKey }) => {
    const dirs = ramMemo(ctx)[inst.id];
    if (!dirs?.length) return;
    if (powered(inst) && vscode.workspace.isTrusted) await wipeAll(ctx, inst, dirs, acceptNewHostKey);
    await writeState(ctx.memento, StateKeys.ramUploads, withoutRamDir(ramMemo(ctx), inst.id));
  };
}

async function wipeAll(ctx: CommandContext, inst: Instance, dirs: string[], acceptNewHostKey: boolean): Promise<void> {
  try {
    const conn = await ctx.sessions.connect(inst, acceptNewHostKey ? { acceptNewHostKey: true } : {});
    const { wipeRamDir } = await import('../../../remote/guards/ramdisk');
    for (const d of dirs) ctx.log.info(`[${inst.id}] wipe ${d} before release: ${(await wipeRamDir(conn, d)).kind}`);
  } catch (e) {
    ctx.log.warn(`[${inst.id}] could not wipe RAM uploads: ${e instanceof Error ? e.message : String(e)}`);
  }
}

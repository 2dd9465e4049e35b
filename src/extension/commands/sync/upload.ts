// Upload Folder to Instance…: asks for the local folder and the folder on the box, scans the
// files the push will send for likely secrets first (a finding asks, naming each one, before
// anything is sent: Upload Without These Files, Upload Anyway or Cancel; a scan cut off at its
// cap asks too: Scan Everything, Upload Unchecked Files or Cancel), then pushes exactly them (src/app/push.ts: .part on the box, verified by the box's SHA-256, renamed into
// place, resumable, never over a newer file there) with files, bytes and speed shown.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { showInfo, showWarning, withNotificationProgress } from '../../notify';
import { z } from 'zod';
import { pushFolder, type PushProgress } from '../../../app/push';
import { syncRemote, TransferMeter } from '../../../app/sync';
import { formatBytes } from '../../../core/format';
import type { CommandContext } from '../../services/context';
import { secretsDialog, unscannedDialog } from '../../words/uploadText';
import { requireTrust, UserError } from '../../words/errors';
import { parseArgs, pickInstance, powered } from '../pick';
import { isScripted } from '../registry';
import { boxDir, remoteDirProblem } from './folders';
import { syncErrorText } from '../../words/syncErrors';

/** Scripted form: the answers the prompts would ask for. */
export const UploadArgs = z.strictObject({
  id: z.string().min(1).max(64),
  localDir: z.string().min(1).max(4096).regex(/^[^\n\0]*$/, 'must be one line'),
  remoteDir: z.string().min(2).max(4096).regex(/^\/[^\n\0]*$/, 'must be an absolute path on the box').refine((d) => !d.split('/').includes('..'), 'may not contain ".."'),
  force: z.boolean().optional(),
  /** Upload even when the secret scan finds something (the UI asks instead). */
  allowSecrets: z.boolean().optional(),
  /** Upload without the files the scan flags (the UI's Upload Without These Files). */
  skipFlagged: z.boolean().optional(),
  /** Upload even when the scan stopped at its cap before reading every file. */
  allowUnscanned: z.boolean().optional(),
  acceptNewHostKey: z.boolean().optional(),
});

export type UploadResult =
  | { kind: 'pushed'; files: number; bytes: number; seconds: number; bytesPerSecond: number; unchanged: number; skipped: Array<{ name: string; reason: string }>; interrupted: boolean }
  | { kind: 'secrets-found'; findings: Array<{ path: string; kind: string }> }
  | { kind: 'scan-incomplete'; reason: 'maxFiles' | 'maxBytes'; limit: number; unscanned: number };

export async function uploadFolder(ctx: CommandContext, arg: unknown): Promise<UploadResult | undefined> {
  requireTrust();
  const a = isScripted(arg) ? parseArgs(UploadArgs, arg) : undefined;
  const picked = await pickInstance(ctx, a ?? arg, powered);
  if (!picked) return undefined;
  const inst = ctx.sessions.powered(picked.id);
  let localDir = a?.localDir;
  if (!localDir) {
    const chosen = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: vscode.l10n.t('Upload This Folder'), title: vscode.l10n.t('Folder to upload to {0}', inst.name) });
    localDir = chosen?.[0]?.fsPath;
    if (!localDir) return undefined;
  }
  let remoteDir = a?.remoteDir;
  if (!remoteDir) {
    const base = inst.sync?.remoteDir ? inst.sync.remoteDir.replace(/\/[^/]*\/?$/, '') || '/root' : (inst.lastProbe?.dataDir?.path ?? '/root/autodl-tmp');
    remoteDir = await vscode.window.showInputBox({
      title: vscode.l10n.t('Folder on {0} to upload into', inst.name),
      prompt: vscode.l10n.t('An absolute path on the box; created if missing. Files there that are newer are kept.'),
      value: `${base}/${basename(localDir)}`,
      validateInput: (v) => remoteDirProblem(inst, v) ?? (UploadArgs.shape.remoteDir.safeParse(boxDir(inst, v)).success ? undefined : vscode.l10n.t('An absolute path on the box, without ".."')),
    });
    if (!remoteDir) return undefined;
    remoteDir = boxDir(inst, remoteDir);
    if (!remoteDir) return undefined;
  }
  const dirs = { localDir, remoteDir };
  let allowSecrets = a?.allowSecrets === true;
  let allowUnscanned = a?.allowUnscanned === true;
  let exclude: string[] = [];
  let scanLimits: { maxFiles: number; maxBytes: number } | undefined;
  for (;;) {
    const result = await withNotificationProgress({ title: vscode.l10n.t('Uploading to {0}', inst.name), cancellable: true }, async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      const meter = new TransferMeter();
      let lastDraw = 0;
      let lastPct = 0;
      const onProgress = (p: PushProgress) => {
        if (p.kind === 'skipped') return;
        meter.observe(p);
        const s = meter.snapshot();
        if (p.kind === 'listed') progress.report({ message: s.filesTotal === 1 ? vscode.l10n.t('1 file to upload') : vscode.l10n.t('{0} files to upload', s.filesTotal ?? 0) });
        else if ((p.kind === 'bytes' && Date.now() - lastDraw > 500) || p.kind === 'file-done') {
          lastDraw = Date.now();
          const pct = s.filesTotal ? Math.min(100, (s.filesDone / s.filesTotal) * 100) : 0;
          progress.report({ increment: Math.max(0, pct - lastPct), message: vscode.l10n.t('{0}/{1} files · {2} · {3}/s', s.filesDone, s.filesTotal ?? '?', formatBytes(s.bytesDone), formatBytes(s.bytesPerSecond)) });
          lastPct = Math.max(lastPct, pct);
        }
      };
      progress.report({ message: vscode.l10n.t('Checking {0} for secrets…', basename(dirs.localDir)) });
      const { SyncError } = await import('../../../remote/sync');
      try {
        const conn = await ctx.sessions.connect(inst, a?.acceptNewHostKey ? { acceptNewHostKey: true } : {});
        const onScanProgress = (n: number) => progress.report({ message: vscode.l10n.t('Checking {0} for secrets… {1} files', basename(dirs.localDir), n) });
        return await pushFolder(syncRemote(conn), { ...dirs, force: a?.force === true, allowSecrets, allowUnscanned, exclude, ...(scanLimits ? { scanLimits } : {}), onScanProgress, signal: abort.signal, log: (line: string) => ctx.log.info(`[${inst.id}] upload: ${line}`) }, onProgress);
      } catch (e) {
        if (e instanceof SyncError) {
          ctx.log.warn(`[${inst.id}] upload ${dirs.localDir} → ${dirs.remoteDir} failed (${e.code}): ${e.message}`);
          throw new UserError(vscode.l10n.t('Upload failed: {0}', syncErrorText(e, dirs, vscode.l10n)));
        }
        throw e;
      }
    });
    if (result.kind === 'secrets-found') {
      const findings = result.findings.map((f) => ({ path: f.path, kind: f.kind }));
      for (const f of result.findings) ctx.log.warn(`[${inst.id}] upload: likely secret in ${JSON.stringify(f.path)}${f.line ? `:${f.line}` : ''} (${f.kind})`);
      const d = secretsDialog(result.findings, basename(dirs.localDir), vscode.l10n);
      if (a) {
        if (!a.skipFlagged) return { kind: 'secrets-found', findings };
        exclude = [...exclude, ...d.files];
        continue;
      }
      const without: vscode.MessageItem = { title: d.buttons.without };
      const anyway: vscode.MessageItem = { title: d.buttons.anyway };
      const cancel: vscode.MessageItem = { title: d.buttons.cancel, isCloseAffordance: true };
      const pick = await showWarning(d.message, { modal: true, detail: d.detail }, without, anyway, cancel);
      if (pick === without) {
        exclude = [...exclude, ...d.files];
        ctx.log.info(`[${inst.id}] upload: leaving out ${d.files.length} flagged files`);
        continue;
      }
      if (pick !== anyway) return { kind: 'secrets-found', findings };
      allowSecrets = true;
      continue;
    }
    if (result.kind === 'scan-incomplete') {
      const t = result.scan.truncated;
      ctx.log.warn(`[${inst.id}] upload: the secret scan stopped at its ${t.reason} limit (${t.limit}) after ${t.filesSeen} files; ${result.scan.unscanned} files not checked`);
      const stopped: UploadResult = { kind: 'scan-incomplete', reason: t.reason, limit: t.limit, unscanned: result.scan.unscanned };
      if (a) return stopped;
      const d = unscannedDialog(result.scan, basename(dirs.localDir), vscode.l10n);
      const scanAll: vscode.MessageItem = { title: d.buttons.scanAll };
      const anyway: vscode.MessageItem = { title: d.buttons.anyway };
      const cancel: vscode.MessageItem = { title: d.buttons.cancel, isCloseAffordance: true };
      const pick = await showWarning(d.message, { modal: true, detail: d.detail }, scanAll, anyway, cancel);
      if (pick === scanAll) scanLimits = { maxFiles: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER };
      else if (pick === anyway) allowUnscanned = true;
      else return stopped;
      continue;
    }
    const r = result.report;
    ctx.log.info(`[${inst.id}] upload ${dirs.localDir} → ${dirs.remoteDir}: ${r.files} files, ${r.bytes} bytes in ${r.seconds.toFixed(1)} s${r.interrupted ? ' (cancelled)' : ''}`);
    for (const s of r.skipped) ctx.log.warn(`[${inst.id}] upload skipped ${JSON.stringify(s.name)}: ${s.reason}`);
    const out: UploadResult = { kind: 'pushed', files: r.files, bytes: r.bytes, seconds: r.seconds, bytesPerSecond: r.seconds > 0 ? r.bytes / r.seconds : 0, unchanged: r.unchanged, skipped: r.skipped, interrupted: r.interrupted };
    if (!a) {
      const text = r.interrupted
        ? vscode.l10n.t('Upload to {0} stopped: {1} files ({2}) sent; the rest resumes next time.', inst.name, r.files, formatBytes(r.bytes))
        : r.files
          ? vscode.l10n.t('Uploaded {0} files ({1}) to {2} in {3} s ({4}/s), each verified on the box by SHA-256.', r.files, formatBytes(r.bytes), inst.name, r.seconds.toFixed(1), formatBytes(out.bytesPerSecond))
          : vscode.l10n.t('{0} on {1} is up to date ({2} unchanged).', dirs.remoteDir, inst.name, r.unchanged);
      const newer = r.skipped.filter((s) => s.reason === 'remote-newer').length;
      const extra = r.skipped.length ? ' ' + vscode.l10n.t('{0} skipped (see the log).', r.skipped.length) + (newer ? ' ' + vscode.l10n.t('{0} are newer on the box and were kept.', newer) : '') : '';
      void showInfo(text + extra);
    }
    return out;
  }
}

// Capture Environment / Rebuild Environment Here: one folder format with the CLI
// (`.gpu-rent/env/<instance>/gpu-rent-env.json` + requirements.txt + environment.yml), read in
// either direction; an edited requirements.txt is what the rebuild installs. Pip options in
// the requirements need the user's yes; values from the box are checked before they are used.
import * as vscode from 'vscode';
import { showInfo, showWarning, withNotificationProgress } from '../../notify';
import { lstat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { ASKABLE_PROBLEMS, checkRequirements, safeEnvName, type RequirementProblemKind } from '../../../core/guards/environment';
import {
  CAPTURE_FILE,
  capture,
  CaptureReadError,
  checkRebuild,
  LEGACY_SNAPSHOT_FILE,
  listCaptures,
  readCapture,
  RebuildRefused,
  rebuild,
  writeCapture,
  type ReadCapture,
} from '../../../app/environment';
import { rebuildProblemText } from '../../../app/remoteWords';
import { CaptureEnvironmentArgs, RebuildEnvironmentArgs } from '../../args';
import { Commands } from '../../commandIds';
import { envFolderName } from '../../guardDecisions';
import type { CommandContext } from '../../services/context';
import { requireTrust, UserError } from '../../words/errors';
import { openOptions, parseArgs, pickInstance, powered } from '../pick';
import { isScripted } from '../registry';

export const ENV_FOLDER = '.gpu-rent/env';

function workspaceRoot(): string {
  const ws = vscode.workspace.workspaceFolders?.[0];
  if (!ws || ws.uri.scheme !== 'file') throw new UserError(vscode.l10n.t('Open a folder: the environment is saved in the workspace.'));
  return ws.uri.fsPath;
}

export async function captureEnvironment(ctx: CommandContext, arg: unknown): Promise<{ dir: string; python: string | null; torch: string | null; packages: number; conda: boolean } | undefined> {
  requireTrust();
  const root = workspaceRoot();
  const a = isScripted(arg) ? parseArgs(CaptureEnvironmentArgs, arg) : undefined;
  const picked = await pickInstance(ctx, a ?? arg, powered);
  if (!picked) return undefined;
  const { inst, conn } = await ctx.sessions.open(picked.id, openOptions(a));
  const c = await withNotificationProgress({ title: vscode.l10n.t('Capturing the environment of {0}…', inst.name) }, () => capture(conn, { source: `${inst.name} (${inst.platform}, ${inst.card})`, now: ctx.now }));
  const dir = join(root, ...ENV_FOLDER.split('/'), envFolderName(inst));
  await writeCapture(dir, c);
  const packages = checkRequirements(c.requirements, { allowPipOptions: true }).kept;
  ctx.log.info(`[${inst.id}] captured environment into ${dir}: python ${c.pythonVersion ?? '?'}, torch ${c.torch ?? 'none'}, ${packages} pip packages`);
  const rebuildHere = vscode.l10n.t('Rebuild on Another Instance');
  if (!a)
    void showInfo(vscode.l10n.t('Saved the environment of {0} in {1}: Python {2}, torch {3}, {4} pip packages{5}. Edit requirements.txt there to change what a rebuild installs.', inst.name, relative(root, dir).split(sep).join('/'), c.pythonVersion ?? '?', c.torch ?? '—', packages, c.environmentYml ? ' + conda' : ''), rebuildHere)
      .then((p) => p && vscode.commands.executeCommand(Commands.rebuildEnvironment));
  return { dir, python: c.pythonVersion, torch: c.torch, packages, conda: c.environmentYml !== null };
}

/** A capture folder, or its JSON file, read in any format; errors in the user's words. */
async function readCaptureAt(path: string): Promise<ReadCapture> {
  const st = await lstat(path).catch(() => undefined);
  if (!st) throw new UserError(vscode.l10n.t('Cannot read {0}: {1}', path, 'ENOENT'));
  let dir = path;
  if (!st.isDirectory()) {
    if (basename(path) !== CAPTURE_FILE && basename(path) !== LEGACY_SNAPSHOT_FILE) throw new UserError(vscode.l10n.t('{0} is not an environment capture: choose the folder Capture Environment wrote (with {1}).', path, CAPTURE_FILE));
    dir = dirname(path);
  }
  try {
    return await readCapture(dir);
  } catch (e) {
    if (e instanceof CaptureReadError) throw new UserError(e.code === 'invalid' ? vscode.l10n.t('{0} is not an environment capture: {1}', e.path, e.problems.map((p) => `${p.path || '(file)'} ${p.problem}`).join(', ')) : e.message);
    throw e;
  }
}

export async function rebuildEnvironment(ctx: CommandContext, arg: unknown): Promise<{ jobId: string; torch: string; dir: string } | undefined> {
  requireTrust();
  let a: { id: string; path: string; envName: string; allowPipOptions?: boolean | undefined; acceptNewHostKey?: boolean | undefined };
  if (isScripted(arg)) {
    const s = parseArgs(RebuildEnvironmentArgs, arg);
    const path = s.capturePath ?? s.snapshotPath;
    if (!path) throw new UserError(vscode.l10n.t('Invalid arguments: {0}', 'capturePath: required'));
    a = { id: s.id, path, envName: s.envName, allowPipOptions: s.allowPipOptions, acceptNewHostKey: s.acceptNewHostKey };
  } else {
    const base = join(workspaceRoot(), ...ENV_FOLDER.split('/'));
    const found = await listCaptures(base);
    if (!found.length) throw new UserError(vscode.l10n.t('No captured environment in {0}: run “Capture Environment” on the old instance first (or `gpu-rent env capture` into that folder).', ENV_FOLDER));
    const pick = found.length === 1 ? found[0] : await vscode.window.showQuickPick(found.map((f) => ({ label: f.name, description: f.dir, ...f })), { placeHolder: vscode.l10n.t('Which captured environment?') });
    if (!pick) return undefined;
    const cap = await readCaptureAt(pick.dir);
    const inst = await pickInstance(ctx, undefined, powered, vscode.l10n.t('Rebuild it on which instance?'));
    if (!inst) return undefined;
    const envName = await vscode.window.showInputBox({
      title: vscode.l10n.t('Name of the new environment on {0}', inst.name),
      value: safeEnvName(`${cap.capture.condaEnv && cap.capture.condaEnv !== 'base' ? cap.capture.condaEnv : 'train'}-rebuilt`) ?? 'train-rebuilt',
      ignoreFocusOut: true,
      validateInput: (v) => (safeEnvName(v) === v ? undefined : vscode.l10n.t('Letters, digits, “.”, “_” and “-”, starting with a letter or digit, at most 64.')),
    });
    if (!envName) return undefined;
    a = { id: inst.id, path: pick.dir, envName };
  }
  const cap = await readCaptureAt(a.path);
  // Checked before connecting: pip options (another package index), URLs with credentials and
  // lines pip would read as more than a package need the user's yes; a bad probed value never passes.
  let allowPipOptions = a.allowPipOptions === true;
  const check = checkRebuild(cap.capture, { envName: a.envName, allowPipOptions });
  if (check.problems.length) {
    const lines = check.problems.slice(0, 10).map((p) => rebuildProblemText(p, vscode.l10n)).join('\n');
    const askable = check.problems.every((p) => ASKABLE_PROBLEMS.has(p.kind as RequirementProblemKind));
    if (isScripted(arg) || !askable) throw new UserError(vscode.l10n.t('The rebuild was refused: {0}', lines));
    const go = vscode.l10n.t('Use Them');
    const ok = await showWarning(vscode.l10n.t('The requirements of this capture pass options to pip, name conda channels that are not well-known ones, or set environment variables. They can point pip or conda at another package index: use them only if you wrote them.'), { modal: true, detail: lines }, go);
    if (ok !== go) return undefined;
    allowPipOptions = true;
  }
  const { inst, conn } = await ctx.sessions.open(a.id, openOptions(a));
  const r = await rebuild(conn, cap, { envName: a.envName, allowPipOptions }).catch((e: unknown) => {
    if (e instanceof RebuildRefused) throw new UserError(vscode.l10n.t('The rebuild was refused: {0}', e.problems.slice(0, 10).map((p) => rebuildProblemText(p, vscode.l10n)).join('\n')));
    throw e;
  });
  const cur = ctx.store.get(inst.id) ?? inst;
  const jobs = [...(cur.jobs ?? []), { id: r.job.name, command: `rebuild environment ${a.envName}`, startedAt: r.job.startedAt ?? ctx.now(), logPath: r.job.logPath.slice(0, 4096), state: 'running' as const }].slice(-50);
  await ctx.store.update(inst.id, { jobs });
  const torch =
    r.torch.kind === 'install'
      ? r.torch.sameBuild
        ? vscode.l10n.t('torch with the same CUDA build ({0})', r.torch.cuda)
        : vscode.l10n.t('torch for CUDA {0}, which this driver runs', r.torch.cuda)
      : r.torch.kind === 'cpuOnly'
        ? vscode.l10n.t('torch without CUDA: this driver runs none of its CUDA builds')
        : r.torch.kind === 'unknownRelease'
          ? vscode.l10n.t('torch {0} is not in the wheel table: install it yourself', r.torch.torch)
          : vscode.l10n.t('no torch');
  ctx.log.info(`[${inst.id}] rebuild ${a.envName} from ${cap.file} (${cap.format}) started as ${r.job.name} (${r.torch.kind}), ${r.requirements.kept} requirements`);
  const follow = vscode.l10n.t('Follow Log');
  if (!isScripted(arg))
    void showInfo(vscode.l10n.t('Rebuilding {0} on {1} in a fresh environment ({2}); it keeps running if you disconnect.', a.envName, inst.name, torch), follow).then((p) => {
      if (p) void vscode.commands.executeCommand(Commands.showJobs, { id: inst.id, jobId: r.job.name, follow: true });
    });
  return { jobId: r.job.name, torch: r.torch.kind, dir: r.dir };
}

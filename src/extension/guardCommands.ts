// The guards' prompts: idle-GPU notices from the view's polls, stopped-instance release
// warnings, the evening-peak notice, memory-only uploads and their wipe, the secret scan,
// environment capture and rebuild, and the on-box watchdog. The decisions are core's
// (core/guards) through guardDecisions.ts; the remote work is src/remote/guards, loaded on use.
import * as vscode from 'vscode';
import { lstat, mkdir, open, readdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { formatBytes } from '../core/format';
import type { IdleActionKind } from '../core/guards/actions';
import { MAX_SCAN_CHARS, scanForSecrets, shouldReadContent, type ScanInput, type SecretFinding } from '../core/guards/secrets';
import { parseEnvSnapshot, safeEnvName, type EnvSnapshot } from '../core/guards/environment';
import type { Instance } from '../core/instances';
import { currentState } from '../core/spend';
import {
  CaptureEnvironmentArgs,
  describeArgsError,
  InstallWatchdogArgs,
  RebuildEnvironmentArgs,
  ScanSecretsArgs,
  UploadToMemoryArgs,
  WatchdogArgs,
  WipeMemoryArgs,
} from './args';
import { Commands } from './commandIds';
import { guardFacts, IdleWatch, idleSettingsOf, envFolderName, peakNotice, ramMemoOf, releaseNotices, withoutRamDir, withRamDir, type IdleNotice, type ReleaseMemo } from './guardDecisions';
import { findingLine, idleActionLabel, idleMessage, idleSettingsErrorText, peakMessage, ramRefusalText, releaseWatchMessage, secretsWarning } from './guardText';
import { CommandInputError, wrap, type InstanceCommandContext, type InstanceCommands } from './instanceCommands';
import { formatDuration, stateLabel } from './present';
import type { RemoteCommands } from './remoteCommands';

const RAM_MEMO_KEY = 'gpuRent.ramUploads';
const RELEASE_MEMO_KEY = 'gpuRent.releaseWarnings';
const RELEASE_CHECK_MS = 10 * 60 * 1000;
const ENV_FOLDER = '.gpu-rent/env';
const SHUTDOWN = 'shutdown -h now 2>/dev/null || poweroff 2>/dev/null || halt';
const MAX_SCAN_FILES = 20_000;
const SCAN_SKIP_DIRS = new Set(['node_modules', '.git', '__pycache__', '.venv', 'venv', '.mypy_cache', '.pytest_cache']);

/** What a guard said, for getState (tests and scripts see the notices without reading toasts). */
export interface GuardNoticeRecord {
  kind: 'idle' | 'release' | 'peak' | 'spot';
  instanceId: string;
  at: number;
  detail: string;
}

const isReachable = (i: Instance) => ['running', 'spot', 'noGpu'].includes(currentState(i.intervals) ?? '');
const isArgsObject = (arg: unknown): arg is Record<string, unknown> => !!arg && typeof arg === 'object' && !('kind' in arg);

export class GuardCommands implements vscode.Disposable {
  private readonly idle = new IdleWatch();
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly subs: vscode.Disposable[] = [];
  private idleSettingsWarned = false;
  /** The latest notices, newest last. */
  readonly recent: GuardNoticeRecord[] = [];

  constructor(
    private readonly ctx: InstanceCommandContext,
    private readonly instances: InstanceCommands,
    private readonly remote: RemoteCommands,
    private readonly memento: vscode.Memento,
  ) {
    this.timer = setInterval(() => this.checkReleases(), RELEASE_CHECK_MS);
    this.subs.push(ctx.store.onDidChange(() => this.checkReleases()));
    this.checkReleases();
  }

  private note(kind: GuardNoticeRecord['kind'], instanceId: string, detail: string): void {
    this.recent.push({ kind, instanceId, at: this.ctx.now(), detail });
    if (this.recent.length > 50) this.recent.splice(0, this.recent.length - 50);
    this.ctx.log.info(`[${instanceId}] guard ${kind}: ${detail}`);
  }

  private requireTrust(): void {
    if (!vscode.workspace.isTrusted) throw new CommandInputError(vscode.l10n.t('Connecting to instances is disabled in Restricted Mode. Trust this workspace to use it.'));
  }

  private parse<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: import('zod').ZodError } }, arg: unknown): T {
    const r = schema.safeParse(arg);
    if (!r.success) throw new CommandInputError(vscode.l10n.t('Invalid arguments: {0}', describeArgsError(r.error)));
    return r.data;
  }

  /** The instance, which must be powered (the box answers SSH). */
  private powered(id: string): Instance {
    const inst = this.ctx.store.get(id);
    if (!inst) throw new CommandInputError(vscode.l10n.t('No instance with id {0}.', id));
    if (!isReachable(inst)) throw new CommandInputError(vscode.l10n.t('{0} is {1}: start it in the platform’s console and switch its state here first.', inst.name, stateLabel(currentState(inst.intervals), vscode.l10n)));
    return inst;
  }

  private opts(a: { acceptNewHostKey?: boolean | undefined }): { acceptNewHostKey?: boolean } {
    return a.acceptNewHostKey ? { acceptNewHostKey: true } : {};
  }

  // ── Idle GPU (called by the poller while the view is visible) ──────────────────────────

  /** One idle probe of a billing instance; notifies once per idle stretch. Failures are only logged. */
  async idleTick(instance: Instance): Promise<void> {
    const settings = this.ctx.settings();
    const state = currentState(instance.intervals);
    if (!settings.idleEnabled || (state !== 'running' && state !== 'spot')) {
      this.idle.forget(instance.id);
      return;
    }
    const s = idleSettingsOf(settings);
    if (!s.ok) {
      if (!this.idleSettingsWarned) void vscode.window.showWarningMessage(idleSettingsErrorText(s.error, vscode.l10n));
      this.idleSettingsWarned = true;
      return;
    }
    try {
      const conn = await this.remote.connect(instance);
      const { probeIdle, DEFAULT_JOB_DIRS } = await import('../remote/guards/probe');
      const sample = await probeIdle(conn, { watchDirs: [...DEFAULT_JOB_DIRS, instance.sync?.remoteDir ?? settings.syncRemoteDir], now: this.ctx.now });
      const cur = this.ctx.store.get(instance.id);
      if (!cur) return;
      const r = this.idle.observe(cur, sample, s.settings, guardFacts(this.ctx.catalog(), cur.platform), settings.idleAction);
      this.ctx.log.debug(`[${cur.id}] idle check: ${r.verdict.kind}`);
      if (r.notice) this.showIdle(cur, r.notice, s.settings.utilizationThresholdPct);
    } catch (e) {
      this.ctx.log.debug(`[${instance.id}] idle probe failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private showIdle(inst: Instance, notice: IdleNotice, thresholdPct: number): void {
    const msg = idleMessage(inst.name, notice, thresholdPct, vscode.l10n);
    this.note('idle', inst.id, `${notice.offered.map((o) => `${o.action} saves ${o.savingPerHour} fen/h`).join(', ') || notice.advice.reason || 'no saving'}`);
    const buttons = notice.offered.map((o) => ({ title: idleActionLabel(o.action, vscode.l10n), action: o.action }));
    void vscode.window.showWarningMessage(msg, ...buttons).then(async (pick) => {
      if (!pick) return;
      try {
        await this.runIdleAction(inst.id, pick.action);
      } catch (e) {
        void vscode.window.showErrorMessage(e instanceof Error ? e.message : String(e));
      }
    });
  }

  /** What the idle notice's buttons do. The platforms have no API: the state change is recorded, and the user repeats it in the console. */
  private async runIdleAction(id: string, action: IdleActionKind): Promise<void> {
    const inst = this.ctx.store.get(id);
    if (!inst) return;
    if (action === 'release') {
      await this.remote.syncCheckpoints(id);
      await this.remote.release(id);
      return;
    }
    if (action === 'stop') await this.remote.syncCheckpoints(id);
    const state = action === 'noGpuMode' ? 'noGpu' : 'stopped';
    await this.instances.switchState({ id, state });
    this.idle.forget(id);
    void vscode.window.showInformationMessage(vscode.l10n.t('Recorded {0} as {1}. Do the same in the platform’s console: it has no API for this.', inst.name, stateLabel(state, vscode.l10n)));
  }

  // ── Stopped instances and the platforms' release rules ───────────────────────────────

  checkReleases(): void {
    if (!this.ctx.settings().releaseWarnings) return;
    const memo = this.memento.get<ReleaseMemo>(RELEASE_MEMO_KEY) ?? {};
    const catalog = this.ctx.catalog();
    const r = releaseNotices(this.ctx.store.list(), (p) => guardFacts(catalog, p), this.ctx.now(), typeof memo === 'object' && memo ? memo : {});
    if (JSON.stringify(r.memo) !== JSON.stringify(memo)) void this.memento.update(RELEASE_MEMO_KEY, r.memo);
    for (const n of r.notices) {
      const inst = this.ctx.store.get(n.instanceId);
      const msg = inst && releaseWatchMessage(inst.name, n.watch, vscode.l10n);
      if (!inst || !msg) continue;
      this.note('release', inst.id, n.watch.kind);
      const show = vscode.l10n.t('Show Instances');
      void vscode.window.showWarningMessage(msg, show).then((p) => {
        if (p) void vscode.commands.executeCommand('gpuRent.instances.focus');
      });
    }
  }

  // ── Evening peak (after adding or starting an instance) ──────────────────────────────

  afterStart(inst: Instance): void {
    if (!this.ctx.settings().peakHoursNotice) return;
    const c = peakNotice(inst, guardFacts(this.ctx.catalog(), inst.platform), this.ctx.now());
    if (!c) return;
    const { message, detail } = peakMessage(inst.name, this.instances.platformLabel(inst.platform), c, vscode.l10n);
    this.note('peak', inst.id, `${c.advice.join(',')}${c.overnight ? ` overnight noGpu=${c.overnight.noGpuModeFen} stop=${c.overnight.stopFen}` : ''}`);
    const more = vscode.l10n.t('Compare Overnight Costs');
    void vscode.window.showInformationMessage(message, more).then((p) => {
      if (p) void vscode.window.showInformationMessage(message, { modal: true, detail });
    });
  }

  // ── Memory-only uploads ───────────────────────────────────────────────────────────────

  private ramMemo() {
    return ramMemoOf(this.memento.get(RAM_MEMO_KEY));
  }

  async uploadToMemory(arg: unknown): Promise<{ dir: string; files: number; bytes: number; skipped: number } | undefined> {
    this.requireTrust();
    let a: { id: string; paths: string[]; dir?: string | undefined; acceptNewHostKey?: boolean | undefined };
    if (isArgsObject(arg) && 'paths' in arg) a = this.parse(UploadToMemoryArgs, arg);
    else {
      const inst = await this.instances.resolve(arg, isReachable);
      if (!inst) return undefined;
      const picked = await vscode.window.showOpenDialog({ canSelectFiles: true, canSelectFolders: true, canSelectMany: true, openLabel: vscode.l10n.t('Upload to Memory Only'), title: vscode.l10n.t('Files or folders to keep in RAM on {0}', inst.name) });
      if (!picked?.length) return undefined;
      a = { id: inst.id, paths: picked.map((u) => u.fsPath) };
    }
    for (const p of a.paths) if (!isAbsolute(p)) throw new CommandInputError(vscode.l10n.t('Use an absolute local path: {0}', p));
    const inst = this.powered(a.id);
    const dir = a.dir ?? this.ctx.settings().ramDir;
    const conn = await this.remote.connect(inst, this.opts(a));
    const { secureUpload, RamUploadRefused } = await import('../remote/guards/ramdisk');
    const result = await vscode.window
      .withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Uploading to RAM on {0}…', inst.name) }, (progress) => secureUpload(conn, a.paths, dir, { onFile: (rel) => progress.report({ message: rel }) }))
      .then(undefined, (e: unknown) => {
        if (e instanceof RamUploadRefused) throw new CommandInputError(ramRefusalText(e.refusal, e.target.resolved || dir, vscode.l10n));
        throw e;
      });
    await this.memento.update(RAM_MEMO_KEY, withRamDir(this.ramMemo(), inst.id, result.dir));
    this.ctx.log.info(`[${inst.id}] memory-only upload: ${result.files.length} files, ${result.bytes} bytes into ${result.dir}`);
    const skipped = result.skipped.length ? ' ' + vscode.l10n.t('Skipped {0} (links or special files).', result.skipped.length) : '';
    void vscode.window.showInformationMessage(vscode.l10n.t('{0} files ({1}) are in RAM at {2} on {3}, never on its disk. They are wiped when you release the instance here, or with “Wipe Memory Upload”.', result.files.length, formatBytes(result.bytes), result.dir, inst.name) + skipped);
    return { dir: result.dir, files: result.files.length, bytes: result.bytes, skipped: result.skipped.length };
  }

  async wipeMemoryUpload(arg: unknown): Promise<string | undefined> {
    this.requireTrust();
    let a: { id: string; dir?: string | undefined; acceptNewHostKey?: boolean | undefined };
    if (isArgsObject(arg)) a = this.parse(WipeMemoryArgs, arg);
    else {
      const inst = await this.instances.resolve(arg, isReachable);
      if (!inst) return undefined;
      const dirs = this.ramMemo()[inst.id] ?? [this.ctx.settings().ramDir];
      const dir = dirs.length === 1 ? dirs[0] : (await vscode.window.showQuickPick(dirs, { placeHolder: vscode.l10n.t('Which RAM folder on {0}?', inst.name) }));
      if (!dir) return undefined;
      a = { id: inst.id, dir };
    }
    const inst = this.powered(a.id);
    const dir = a.dir ?? this.ramMemo()[inst.id]?.[0] ?? this.ctx.settings().ramDir;
    const conn = await this.remote.connect(inst, this.opts(a));
    const { wipeRamDir } = await import('../remote/guards/ramdisk');
    const r = await wipeRamDir(conn, dir);
    if (r.kind === 'wiped' || r.kind === 'absent') await this.memento.update(RAM_MEMO_KEY, withoutRamDir(this.ramMemo(), inst.id, dir));
    const msg =
      r.kind === 'wiped'
        ? vscode.l10n.t('Wiped {0} ({1}) from RAM on {2}.', r.resolved, formatBytes(r.bytes), inst.name)
        : r.kind === 'absent'
          ? vscode.l10n.t('{0} does not exist on {1}: nothing to wipe (a restart clears RAM).', dir, inst.name)
          : r.kind === 'notOurs'
            ? vscode.l10n.t('Not wiped: {0} was not made by “Upload to Memory Only”.', r.resolved)
            : r.kind === 'notRam'
              ? vscode.l10n.t('Not wiped: {0} is on a {1} file system, not a RAM folder.', r.resolved, r.fsType)
              : vscode.l10n.t('Not wiped: {0} is a home, top-level or mount folder.', r.resolved);
    this.ctx.log.info(`[${inst.id}] wipe ${dir}: ${r.kind}`);
    (r.kind === 'wiped' || r.kind === 'absent' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage)(msg);
    return r.kind;
  }

  /** Before a release or removal: wipes every memory-only upload made for the instance (failures logged). */
  async wipeAllFor(inst: Instance, opts: { acceptNewHostKey?: boolean } = {}): Promise<void> {
    const dirs = this.ramMemo()[inst.id];
    if (!dirs?.length) return;
    if (isReachable(inst) && vscode.workspace.isTrusted) {
      try {
        const conn = await this.remote.connect(inst, opts);
        const { wipeRamDir } = await import('../remote/guards/ramdisk');
        for (const d of dirs) this.ctx.log.info(`[${inst.id}] wipe ${d} before release: ${(await wipeRamDir(conn, d)).kind}`);
      } catch (e) {
        this.ctx.log.warn(`[${inst.id}] could not wipe RAM uploads: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    await this.memento.update(RAM_MEMO_KEY, withoutRamDir(this.ramMemo(), inst.id));
  }

  // ── Secret scan (local; works in Restricted Mode) ─────────────────────────────────────

  async scanSecrets(arg: unknown): Promise<{ files: number; findings: SecretFinding[] } | undefined> {
    let path: string;
    if (isArgsObject(arg) && 'path' in arg) path = this.parse(ScanSecretsArgs, arg).path;
    else if (arg instanceof vscode.Uri) path = arg.fsPath;
    else {
      const f = await vscode.window.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: vscode.l10n.t('Scan for Secrets') });
      if (!f?.[0]) return undefined;
      path = f[0].fsPath;
    }
    const st = await lstat(path).catch(() => undefined);
    if (!st) throw new CommandInputError(vscode.l10n.t('Cannot read {0}: {1}', path, 'ENOENT'));
    const inputs = await collectScanInputs(path, st.isDirectory());
    const findings = scanForSecrets(inputs);
    this.ctx.log.info(`secret scan of ${path}: ${inputs.length} files, ${findings.length} findings`);
    if (findings.length === 0) void vscode.window.showInformationMessage(vscode.l10n.t('No likely secrets in {0} ({1} files checked).', path, inputs.length));
    else {
      for (const f of findings) this.ctx.log.warn(`secret: ${findingLine(f)}`);
      const show = vscode.l10n.t('Show Findings');
      void vscode.window.showWarningMessage(secretsWarning(findings, path, vscode.l10n), show).then((p) => p && this.ctx.log.show());
    }
    return { files: inputs.length, findings };
  }

  // ── Portable environment ──────────────────────────────────────────────────────────────

  private workspaceRoot(): string {
    const ws = vscode.workspace.workspaceFolders?.[0];
    if (!ws || ws.uri.scheme !== 'file') throw new CommandInputError(vscode.l10n.t('Open a folder: the environment is saved in the workspace.'));
    return ws.uri.fsPath;
  }

  async captureEnvironment(arg: unknown): Promise<{ dir: string; python: string | null; torch: string | null; packages: number; conda: boolean } | undefined> {
    this.requireTrust();
    const root = this.workspaceRoot();
    const target = await this.connectedInstance(arg, CaptureEnvironmentArgs);
    if (!target) return undefined;
    const { inst, conn } = target;
    const { captureEnvironment } = await import('../remote/guards/environment');
    const snap = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Capturing the environment of {0}…', inst.name) }, () =>
      captureEnvironment(conn, `${inst.name} (${inst.platform}, ${inst.card})`, { now: this.ctx.now }),
    );
    const dir = join(root, ...ENV_FOLDER.split('/'), envFolderName(inst));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify(snap, null, 2) + '\n', 'utf8');
    await writeFile(join(dir, 'requirements.txt'), snap.requirements, 'utf8');
    if (snap.environmentYml) await writeFile(join(dir, 'environment.yml'), snap.environmentYml, 'utf8');
    const packages = snap.requirements.split('\n').filter((l) => l.trim() && !l.startsWith('#')).length;
    this.ctx.log.info(`[${inst.id}] captured environment into ${dir}: python ${snap.pythonVersion ?? '?'}, torch ${snap.torch ?? 'none'}, ${packages} pip packages`);
    const rebuild = vscode.l10n.t('Rebuild on Another Instance');
    void vscode.window
      .showInformationMessage(vscode.l10n.t('Saved the environment of {0} in {1}: Python {2}, torch {3}, {4} pip packages{5}.', inst.name, relative(root, dir).split(sep).join('/'), snap.pythonVersion ?? '?', snap.torch ?? '—', packages, snap.environmentYml ? ' + conda' : ''), rebuild)
      .then((p) => p && vscode.commands.executeCommand(Commands.rebuildEnvironment));
    return { dir, python: snap.pythonVersion, torch: snap.torch, packages, conda: snap.environmentYml !== null };
  }

  private async readSnapshot(path: string): Promise<EnvSnapshot> {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(path, 'utf8'));
    } catch (e) {
      throw new CommandInputError(vscode.l10n.t('Cannot read {0}: {1}', path, e instanceof SyntaxError ? vscode.l10n.t('not JSON') : ((e as NodeJS.ErrnoException).code ?? String(e))));
    }
    const r = parseEnvSnapshot(json);
    if (!r.ok) throw new CommandInputError(vscode.l10n.t('{0} is not an environment snapshot: {1}', path, r.problems.map((p) => `${p.path || '(file)'} ${p.problem}`).join(', ')));
    return r.snapshot;
  }

  async rebuildEnvironment(arg: unknown): Promise<{ jobId: string; torch: string; dir: string } | undefined> {
    this.requireTrust();
    let a: { id: string; snapshotPath: string; envName: string; acceptNewHostKey?: boolean | undefined };
    if (isArgsObject(arg) && 'snapshotPath' in arg) a = this.parse(RebuildEnvironmentArgs, arg);
    else {
      const root = this.workspaceRoot();
      const base = join(root, ...ENV_FOLDER.split('/'));
      const names = await readdir(base).catch(() => [] as string[]);
      const snaps = names.map((n) => join(base, n, 'snapshot.json'));
      const present = (await Promise.all(snaps.map(async (p) => ((await lstat(p).catch(() => undefined))?.isFile() ? p : undefined)))).filter((p): p is string => !!p);
      if (!present.length) throw new CommandInputError(vscode.l10n.t('No captured environment in {0}: run “Capture Environment” on the old instance first.', ENV_FOLDER));
      const snapPick = await vscode.window.showQuickPick(
        present.map((p) => ({ label: relative(base, p).split(sep)[0] ?? p, description: p, p })),
        { placeHolder: vscode.l10n.t('Which captured environment?') },
      );
      if (!snapPick) return undefined;
      const snap = await this.readSnapshot(snapPick.p);
      const inst = await this.instances.resolve(undefined, (i) => ['running', 'spot', 'noGpu'].includes(currentState(i.intervals) ?? ''));
      if (!inst) return undefined;
      const envName = await vscode.window.showInputBox({
        title: vscode.l10n.t('Name of the new environment on {0}', inst.name),
        value: safeEnvName(`${snap.condaEnv && snap.condaEnv !== 'base' ? snap.condaEnv : 'train'}-rebuilt`) ?? 'train-rebuilt',
        ignoreFocusOut: true,
        validateInput: (v) => (safeEnvName(v) === v ? undefined : vscode.l10n.t('Letters, digits, “.”, “_” and “-”, starting with a letter or digit, at most 64.')),
      });
      if (!envName) return undefined;
      a = { id: inst.id, snapshotPath: snapPick.p, envName };
    }
    const inst = this.powered(a.id);
    const snapshot = await this.readSnapshot(a.snapshotPath);
    const conn = await this.remote.connect(inst, this.opts(a));
    const { startRebuild } = await import('../remote/guards/environment');
    const r = await startRebuild(conn, snapshot, a.envName);
    const jobs = [...(inst.jobs ?? []), { id: r.job.name, command: `rebuild environment ${a.envName}`, startedAt: r.job.startedAt ?? this.ctx.now(), logPath: r.job.logPath.slice(0, 4096) }].slice(-50);
    await this.ctx.store.update(inst.id, { jobs });
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
    this.ctx.log.info(`[${inst.id}] rebuild ${a.envName} started as ${r.job.name} (${r.torch.kind})`);
    const follow = vscode.l10n.t('Follow Log');
    void vscode.window.showInformationMessage(vscode.l10n.t('Rebuilding {0} on {1} in a fresh environment ({2}); it keeps running if you disconnect.', a.envName, inst.name, torch), follow).then((p) => {
      if (p) void vscode.commands.executeCommand(Commands.showJobs, { id: inst.id, jobId: r.job.name, follow: true });
    });
    return { jobId: r.job.name, torch: r.torch.kind, dir: r.dir };
  }

  // ── On-box watchdog ───────────────────────────────────────────────────────────────────

  async installWatchdog(arg: unknown): Promise<{ armed: boolean; pid: number | null } | undefined> {
    this.requireTrust();
    const settings = this.ctx.settings();
    let a: ReturnType<typeof InstallWatchdogArgs.parse>;
    if (isArgsObject(arg) && 'action' in arg) a = this.parse(InstallWatchdogArgs, arg);
    else {
      const inst = await this.instances.resolve(arg, isReachable);
      if (!inst) return undefined;
      const pick = await vscode.window.showQuickPick(
        [
          { label: vscode.l10n.t('Run the final sync, then power off from inside the box'), description: vscode.l10n.t('AutoDL counts this as a stop: the GPU stops billing, the disk keeps billing'), action: 'shutdown' as const },
          { label: vscode.l10n.t('Run the final sync only, and log it'), description: vscode.l10n.t('you switch or release it in the console'), action: 'none' as const },
        ],
        { title: vscode.l10n.t('Watchdog on {0}: when the GPU has been idle for {1}…', inst.name, formatDuration(settings.idleWindowMinutes * 60, vscode.l10n)), ignoreFocusOut: true },
      );
      if (!pick) return undefined;
      const hook = await vscode.window.showInputBox({
        title: vscode.l10n.t('Final checkpoint sync, run on the box first (optional)'),
        prompt: vscode.l10n.t('Your sleeping laptop cannot pull checkpoints: push them somewhere, e.g. rclone copy /root/autodl-tmp/checkpoints remote:bucket'),
        value: settings.watchdogHookCommand,
        ignoreFocusOut: true,
      });
      if (hook === undefined) return undefined;
      a = InstallWatchdogArgs.parse({ id: inst.id, action: pick.action, ...(hook.trim() ? { hookCommand: hook.trim() } : {}) });
    }
    if (a.action === 'command' && !a.actionCommand) throw new CommandInputError(vscode.l10n.t('Invalid arguments: {0}', 'actionCommand: required when action is "command"'));
    if (a.action !== 'command' && a.actionCommand) throw new CommandInputError(vscode.l10n.t('Invalid arguments: {0}', 'actionCommand: only with action "command"'));
    const inst = this.powered(a.id);
    const facts = guardFacts(this.ctx.catalog(), inst.platform);
    const spot = a.spot ?? (currentState(inst.intervals) === 'spot' && facts.spotReclaimNotice === 'aliyunMetadata');
    const windowSeconds = a.windowSeconds ?? settings.idleWindowMinutes * 60;
    if (windowSeconds === 0 && !spot) throw new CommandInputError(vscode.l10n.t('Invalid arguments: {0}', 'windowSeconds: 0 turns the idle watch off; without spot the watchdog would do nothing'));
    const { DEFAULT_JOB_DIRS } = await import('../remote/guards/probe');
    const { installWatchdog } = await import('../remote/guards/watchdog');
    const { spotTerminationUrl } = await import('../remote/guards/watchdog-script');
    const hookCommand = a.hookCommand ?? (settings.watchdogHookCommand || null);
    const config = {
      pollSeconds: a.pollSeconds,
      utilizationThresholdPct: a.thresholdPct ?? settings.idleUtilizationThresholdPct,
      idleWindowSeconds: windowSeconds,
      watchDirs: [...DEFAULT_JOB_DIRS, inst.sync?.remoteDir ?? settings.syncRemoteDir],
      hookCommand,
      hookTimeoutSeconds: a.hookTimeoutSeconds,
      actionCommand: a.action === 'shutdown' ? SHUTDOWN : a.action === 'command' ? a.actionCommand! : null,
      actionIfHookFails: a.actionIfHookFails,
      spotUrl: spot ? spotTerminationUrl() : null,
    };
    const conn = await this.remote.connect(inst, this.opts(a));
    const status = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Installing the watchdog on {0}…', inst.name) }, () => installWatchdog(conn, config));
    this.ctx.log.info(`[${inst.id}] watchdog armed (pid ${status.pid ?? '?'}), window ${windowSeconds} s, action ${a.action}, hook ${hookCommand ? 'set' : 'none'}, spot ${spot}`);
    const what = a.action === 'shutdown' ? vscode.l10n.t('powers the box off') : a.action === 'command' ? vscode.l10n.t('runs your command') : vscode.l10n.t('logs it');
    const msg = vscode.l10n.t('The watchdog on {0} is armed: after {1} of idle GPU it runs the final sync, then {2}.', inst.name, formatDuration(windowSeconds, vscode.l10n), what);
    void vscode.window.showInformationMessage(hookCommand ? msg : `${msg} ${vscode.l10n.t('No final sync hook is set: nothing saves your checkpoints first.')}`);
    return { armed: status.armed, pid: status.pid };
  }

  /**
   * The instance a command that needs only its id is about (args `{ id, acceptNewHostKey? }`,
   * or picked by the user), connected; undefined when the user cancelled.
   */
  private async connectedInstance(arg: unknown, schema: typeof WatchdogArgs | typeof CaptureEnvironmentArgs) {
    this.requireTrust();
    let a: { id: string; acceptNewHostKey?: boolean | undefined };
    if (isArgsObject(arg)) a = this.parse(schema, arg);
    else {
      const picked = await this.instances.resolve(arg, isReachable);
      if (!picked) return undefined;
      a = { id: picked.id };
    }
    const inst = this.powered(a.id);
    return { inst, conn: await this.remote.connect(inst, this.opts(a)) };
  }

  async watchdogStatus(arg: unknown): Promise<import('../remote/guards/watchdog').WatchdogStatus | undefined> {
    const target = await this.connectedInstance(arg, WatchdogArgs);
    if (!target) return undefined;
    const { inst, conn } = target;
    const { watchdogStatus } = await import('../remote/guards/watchdog');
    const s = await watchdogStatus(conn);
    const last = s.events[s.events.length - 1];
    const msg = !s.installed
      ? vscode.l10n.t('No watchdog on {0}.', inst.name)
      : s.armed
        ? vscode.l10n.t('The watchdog on {0} is armed (last heartbeat {1} ago).', inst.name, formatDuration(s.heartbeatAgeSeconds ?? 0, vscode.l10n))
        : s.state?.kind === 'fired'
          ? vscode.l10n.t('The watchdog on {0} acted and exited.', inst.name)
          : vscode.l10n.t('The watchdog on {0} is installed but not running.', inst.name);
    for (const e of s.events.slice(-10)) this.ctx.log.info(`[${inst.id}] watchdog event ${new Date(e.at * 1000).toISOString()} ${e.kind} ${e.detail}`);
    (s.installed && !s.armed && s.state?.kind !== 'fired' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage)(last ? `${msg} ${vscode.l10n.t('Last event: {0}.', last.kind)}` : msg);
    return s;
  }

  async removeWatchdog(arg: unknown): Promise<{ wasInstalled: boolean; wasRunning: boolean } | undefined> {
    const target = await this.connectedInstance(arg, WatchdogArgs);
    if (!target) return undefined;
    const { inst, conn } = target;
    const { removeWatchdog } = await import('../remote/guards/watchdog');
    const r = await removeWatchdog(conn);
    void vscode.window.showInformationMessage(r.wasInstalled ? vscode.l10n.t('Removed the watchdog from {0}.', inst.name) : vscode.l10n.t('No watchdog on {0}.', inst.name));
    return r;
  }

  register(): vscode.Disposable[] {
    const log = this.ctx.log;
    return [
      wrap(Commands.uploadToMemory, (a) => this.uploadToMemory(a), log),
      wrap(Commands.wipeMemoryUpload, (a) => this.wipeMemoryUpload(a), log),
      wrap(Commands.scanSecrets, (a) => this.scanSecrets(a), log),
      wrap(Commands.captureEnvironment, (a) => this.captureEnvironment(a), log),
      wrap(Commands.rebuildEnvironment, (a) => this.rebuildEnvironment(a), log),
      wrap(Commands.installWatchdog, (a) => this.installWatchdog(a), log),
      wrap(Commands.watchdogStatus, (a) => this.watchdogStatus(a), log),
      wrap(Commands.removeWatchdog, (a) => this.removeWatchdog(a), log),
    ];
  }

  dispose(): void {
    clearInterval(this.timer);
    this.subs.forEach((d) => d.dispose());
  }
}

/** Files under `root` (or the file itself) for the secret scan: no links, capped, big binaries by name only. */
async function collectScanInputs(root: string, isDir: boolean): Promise<ScanInput[]> {
  const out: ScanInput[] = [];
  const readHead = async (abs: string, size: number): Promise<string | undefined> => {
    const fh = await open(abs, 'r').catch(() => undefined);
    if (!fh) return undefined;
    try {
      const buf = Buffer.alloc(Math.min(size, MAX_SCAN_CHARS));
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      return buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await fh.close();
    }
  };
  const visit = async (abs: string, rel: string): Promise<void> => {
    if (out.length >= MAX_SCAN_FILES) return;
    const st = await lstat(abs).catch(() => undefined);
    if (!st || st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      const names = (await readdir(abs).catch(() => [] as string[])).sort();
      for (const n of names) if (!SCAN_SKIP_DIRS.has(n)) await visit(join(abs, n), rel ? `${rel}/${n}` : n);
      return;
    }
    if (!st.isFile()) return;
    const content = shouldReadContent(rel, st.size) ? await readHead(abs, st.size) : undefined;
    out.push(content === undefined ? { path: rel } : { path: rel, content });
  };
  if (isDir) await visit(root, '');
  else await visit(root, root.split(/[\\/]/).pop() ?? root);
  return out;
}

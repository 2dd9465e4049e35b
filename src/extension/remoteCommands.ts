// Commands that talk to the box, through src/remote. ssh2 is loaded on first use
// (`await import`), never at activation. Refused in Restricted Mode.
import * as vscode from 'vscode';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Diagnosis } from '../core/doctor';
import type { Instance, ProbeGpu } from '../core/instances';
import { currentState } from '../core/spend';
import type { RemoteConnection } from '../remote/connection';
import type { RemoteError } from '../remote/errors';
import type { SshTarget } from '../remote/target';
import { instanceIdOf, ReleaseArgs, SyncArgs } from './args';
import { Commands } from './commandIds';
import { CommandInputError, wrap, type InstanceCommandContext, type InstanceCommands } from './instanceCommands';
import { isSyncScratch, type ReleaseRisk } from './guardDecisions';
import { riskDetail } from './guardText';
import { stateLabel } from './present';
import type { InstancesTree } from './tree';

const MIB = 1024 * 1024;

/** Options a script may add to any remote command's argument object. */
interface RemoteOpts {
  /** Pin a first-contact host key without asking (tests on a fresh loopback sshd). */
  acceptNewHostKey?: boolean;
}

function remoteOptsOf(arg: unknown): RemoteOpts {
  return arg && typeof arg === 'object' && (arg as RemoteOpts).acceptNewHostKey === true ? { acceptNewHostKey: true } : {};
}

export function targetOf(inst: Instance): SshTarget {
  return { host: inst.login.host, port: inst.login.port, user: inst.login.user, identityFiles: inst.login.keyPath ? [inst.login.keyPath] : [], source: 'address', ignored: [] };
}

export class RemoteCommands implements vscode.Disposable {
  private readonly watches = new Map<string, AbortController>();
  private readonly doctorDocs = new Map<string, string>();
  private readonly docChanged = new vscode.EventEmitter<vscode.Uri>();
  private jobsChannel: vscode.OutputChannel | undefined;

  constructor(
    private readonly ctx: InstanceCommandContext,
    private readonly instances: InstanceCommands,
    private readonly tree: InstancesTree,
  ) {}

  private requireTrust(): void {
    if (!vscode.workspace.isTrusted) throw new CommandInputError(vscode.l10n.t('Connecting to instances is disabled in Restricted Mode. Trust this workspace to use it.'));
  }

  private async instance(arg: unknown, needPower = true): Promise<Instance | undefined> {
    this.requireTrust();
    const inst = await this.instances.resolve(arg, (i) => !needPower || ['running', 'spot', 'noGpu'].includes(currentState(i.intervals) ?? ''));
    if (!inst) return undefined;
    const state = currentState(inst.intervals);
    if (needPower && state !== 'running' && state !== 'spot' && state !== 'noGpu') throw new CommandInputError(vscode.l10n.t('{0} is {1}: start it in the platform’s console and switch its state here first.', inst.name, stateLabel(state, vscode.l10n)));
    return inst;
  }

  /** The pooled connection for an instance: password from the secret store, host keys pinned on first use. */
  async connect(inst: Instance, opts: RemoteOpts = {}): Promise<RemoteConnection> {
    const { getConnection } = await import('../remote/pool');
    const settings = this.ctx.settings();
    const password = inst.login.auth === 'password' ? await this.ctx.store.getPassword(inst.id) : undefined;
    return getConnection(targetOf(inst), {
      ...(password ? { password } : {}),
      ...(inst.login.keyPath ? { identityFiles: [inst.login.keyPath] } : {}),
      agent: inst.login.auth === 'agent' ? undefined : false,
      useDefaultKeys: inst.login.auth !== 'password',
      keepaliveIntervalMs: settings.keepaliveSeconds * 1000 || 0,
      connectTimeoutMs: settings.readyTimeoutSeconds * 1000,
      acceptNew: opts.acceptNewHostKey === true,
      confirmNewKey: async (q) => {
        const trust = vscode.l10n.t('Trust and Connect');
        const pick = await vscode.window.showWarningMessage(
          vscode.l10n.t('First connection to {0}:{1}. Its {2} host key fingerprint is {3}. Trust it?', q.host, q.port, q.keyType, q.fingerprint),
          { modal: true, detail: vscode.l10n.t('Compare it with the fingerprint the platform shows, if it shows one. It is remembered; a later change is refused.') },
          trust,
        );
        return pick === trust;
      },
      askPassword: async (q) => {
        const pw = await vscode.window.showInputBox({ title: vscode.l10n.t('Password for {0}@{1}:{2}', q.user, q.host, q.port), password: true, ignoreFocusOut: true });
        if (pw) await this.ctx.store.setLogin(inst.id, { ...inst.login, auth: 'password' }, pw);
        return pw ?? null;
      },
      log: (m) => this.ctx.log.debug(`[${inst.id}] ${m}`),
    });
  }

  /** Words for a remote failure, with "Update Login" when a restart may have changed it. */
  private async explain(inst: Instance, e: unknown): Promise<never> {
    const { isRemoteError } = await import('../remote/errors');
    if (!isRemoteError(e)) throw e;
    const msg = remoteErrorText(e);
    this.ctx.log.error(`[${inst.id}] ${e.code}: ${e.message}`);
    if (e.hint === 'paste-new-login-command' || e.code === 'connect-refused' || e.code === 'auth-failed') {
      const update = vscode.l10n.t('Update Login');
      void vscode.window.showErrorMessage(msg, update).then((p) => {
        if (p) void vscode.commands.executeCommand(Commands.updateLogin, inst.id);
      });
      const err = new Error(msg);
      (err as { shown?: boolean }).shown = true;
      throw err;
    }
    throw new Error(msg);
  }

  async checkGpu(arg: unknown): Promise<{ verdict: Diagnosis['verdict']; gpus: ProbeGpu[]; driverVersion: string | null } | undefined> {
    const inst = await this.instance(arg);
    if (!inst) return undefined;
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Checking the GPU on {0}…', inst.name), cancellable: true }, async (_p, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      try {
        return await this.probe(inst, remoteOptsOf(arg), abort.signal);
      } catch (e) {
        return this.explain(inst, e);
      }
    });
    if (!(arg && typeof arg === 'object' && (arg as { quiet?: unknown }).quiet === true)) await this.showDoctor(inst, result.diagnosis);
    return { verdict: result.diagnosis.verdict, gpus: result.gpus, driverVersion: result.diagnosis.driverVersion };
  }

  /** Background refresh while the view is visible: no dialogs, failures only logged. */
  async probeQuietly(inst: Instance): Promise<void> {
    try {
      await this.probe(inst, {});
    } catch (e) {
      this.ctx.log.debug(`[${inst.id}] background probe failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private async probe(inst: Instance, opts: RemoteOpts, signal?: AbortSignal): Promise<{ diagnosis: Diagnosis; gpus: ProbeGpu[] }> {
    const conn = await this.connect(inst, opts);
    const { probeBox } = await import('../remote/probe');
    const result = await probeBox(conn, signal ? { signal } : {});
    const gpus: ProbeGpu[] = result.smi.ok
      ? result.smi.report.gpus.map((g, i) => ({
          index: g.index ?? i,
          name: (g.name ?? '?').slice(0, 200),
          ...(g.memoryTotalMiB !== null ? { memoryTotalBytes: g.memoryTotalMiB * MIB } : {}),
          ...(g.memoryUsedMiB !== null ? { memoryUsedBytes: g.memoryUsedMiB * MIB } : {}),
          ...(g.utilizationGpuPct !== null ? { utilizationPct: Math.min(100, Math.max(0, g.utilizationGpuPct)) } : {}),
        }))
      : [];
    const d = result.diagnosis;
    const verdict = d.verdict === 'ok' ? 'ok' : d.verdict === 'unknown' || d.verdict === 'no-torch' ? 'warning' : 'error';
    await this.ctx.store.update(inst.id, {
      lastProbe: {
        at: this.ctx.now(),
        gpus: gpus.slice(0, 64),
        ...(d.driverVersion ? { driverVersion: d.driverVersion.slice(0, 40) } : {}),
        ...(d.driverMaxCuda ? { driverMaxCuda: d.driverMaxCuda.slice(0, 20) } : {}),
        verdict,
      },
    });
    this.ctx.log.info(`[${inst.id}] probe: ${gpus.length} GPU(s), verdict ${d.verdict}`);
    return { diagnosis: d, gpus };
  }

  /** The doctor's verdict as a Markdown document, with the fix to copy or run. */
  private async showDoctor(inst: Instance, d: Diagnosis): Promise<void> {
    const { describeDiagnosis } = await import('../core/doctor-text');
    const lang = vscode.env.language.startsWith('zh') ? 'zh-cn' : 'en';
    const text = describeDiagnosis(d, lang);
    const fix = d.fix.pip;
    const md = [`# ${vscode.l10n.t('GPU check: {0}', inst.name)}`, '', '```text', text, '```', ...(fix ? ['', `## ${vscode.l10n.t('Fix')}`, '', '```sh', fix, '```'] : [])].join('\n');
    const uri = vscode.Uri.from({ scheme: DOCTOR_SCHEME, path: `/${inst.id}.md` });
    this.doctorDocs.set(uri.toString(), md);
    this.docChanged.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    void vscode.commands.executeCommand('markdown.showPreview', uri).then(undefined, () => undefined);
    if (fix) {
      const copy = vscode.l10n.t('Copy Fix');
      const run = vscode.l10n.t('Run in Terminal');
      void vscode.window.showWarningMessage(vscode.l10n.t('{0}: the GPU check found a problem with a fix.', inst.name), copy, run).then(async (p) => {
        if (p === copy) await vscode.env.clipboard.writeText(fix);
        if (p === run) {
          const term = await this.openTerminal(inst.id);
          term?.sendText(fix, false);
        }
      });
    }
  }

  docProvider(): vscode.TextDocumentContentProvider {
    return { onDidChange: this.docChanged.event, provideTextDocumentContent: (uri) => this.doctorDocs.get(uri.toString()) ?? '' };
  }

  private localDirFor(dir: string | undefined): string {
    const d = dir ?? this.ctx.settings().syncLocalDir;
    if (isAbsolute(d)) return d;
    const ws = vscode.workspace.workspaceFolders?.[0];
    if (!ws || ws.uri.scheme !== 'file') throw new CommandInputError(vscode.l10n.t('Open a folder (or set an absolute local folder) to sync checkpoints into.'));
    return join(ws.uri.fsPath, d);
  }

  async syncCheckpoints(arg: unknown): Promise<{ files: number; bytes: number; pulled: string[] } | undefined> {
    const inst = await this.instance(arg);
    if (!inst) return undefined;
    const a = arg && typeof arg === 'object' && !('kind' in arg) ? SyncArgs.safeParse(arg) : undefined;
    if (a && !a.success) throw new CommandInputError(vscode.l10n.t('Invalid arguments: {0}', a.error.issues[0]?.message ?? ''));
    const remoteDir = a?.data.remoteDir ?? inst.sync?.remoteDir ?? this.ctx.settings().syncRemoteDir;
    const localDir = a?.data.localDir ? this.localDirFor(a.data.localDir) : inst.sync?.localDir ?? this.localDirFor(undefined);
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Syncing checkpoints from {0}', inst.name), cancellable: true }, async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      const { syncOnce, SyncError } = await import('../remote/sync');
      let total = 0;
      let done = 0;
      try {
        const conn = await this.connect(inst, remoteOptsOf(arg));
        const report = await syncOnce(conn, { remoteDir, localDir, source: `${inst.login.user}@${inst.login.host}:${inst.login.port}`, signal: abort.signal }, (p) => {
          if (p.kind === 'listed') {
            total = p.toPull;
            progress.report({ message: vscode.l10n.t('{0} files to copy', total) });
          } else if (p.kind === 'file-done') {
            done++;
            progress.report({ increment: total ? 100 / total : 0, message: `${done}/${total} ${p.name}` });
          }
        });
        await this.ctx.store.update(inst.id, { sync: { remoteDir, localDir, lastSyncAt: this.ctx.now(), unsynced: report.interrupted ? Math.max(0, total - done) : 0 } });
        this.ctx.log.info(`[${inst.id}] sync: ${report.files} files, ${report.bytes} bytes${report.interrupted ? ' (cancelled)' : ''}`);
        return { files: report.files, bytes: report.bytes, pulled: report.pulled };
      } catch (e) {
        const msg = e instanceof SyncError ? e.message : e instanceof Error ? e.message : String(e);
        await this.ctx.store.update(inst.id, { sync: { remoteDir, localDir, ...(inst.sync?.lastSyncAt ? { lastSyncAt: inst.sync.lastSyncAt } : {}), lastError: msg.slice(0, 500) } });
        if (e instanceof SyncError) throw new Error(vscode.l10n.t('Checkpoint sync failed: {0}', msg));
        return this.explain(inst, e);
      }
    });
  }

  async watchCheckpoints(arg: unknown): Promise<boolean> {
    const inst = await this.instance(arg);
    if (!inst) return false;
    if (this.watches.has(inst.id)) return true;
    const remoteDir = inst.sync?.remoteDir ?? this.ctx.settings().syncRemoteDir;
    const localDir = inst.sync?.localDir ?? this.localDirFor(undefined);
    const abort = new AbortController();
    this.watches.set(inst.id, abort);
    this.tree.watching.add(inst.id);
    await this.ctx.store.update(inst.id, { sync: { ...(inst.sync ?? {}), remoteDir, localDir } });
    const { watchSync } = await import('../remote/sync');
    const { isRemoteError } = await import('../remote/errors');
    const opts = remoteOptsOf(arg);
    void watchSync(
      () => this.connect(this.ctx.store.get(inst.id) ?? inst, opts),
      { remoteDir, localDir, source: `${inst.login.user}@${inst.login.host}:${inst.login.port}`, intervalSeconds: this.ctx.settings().syncWatchIntervalSeconds, signal: abort.signal, isFatal: (e) => isRemoteError(e) && e.fatal },
      (ev) => {
        const cur = this.ctx.store.get(inst.id);
        if (!cur) return;
        if (ev.kind === 'round') {
          if (ev.report.files) this.ctx.log.info(`[${inst.id}] watch: ${ev.report.files} new files`);
          void this.ctx.store.update(inst.id, { sync: { remoteDir, localDir, lastSyncAt: this.ctx.now(), unsynced: 0 } });
        } else {
          this.ctx.log.warn(`[${inst.id}] watch: ${ev.error.message}; retry in ${Math.round(ev.retryInMs / 1000)} s`);
          void this.ctx.store.update(inst.id, { sync: { remoteDir, localDir, ...(cur.sync?.lastSyncAt ? { lastSyncAt: cur.sync.lastSyncAt } : {}), lastError: ev.error.message.slice(0, 500) } });
        }
      },
    )
      .catch((e: unknown) => {
        const msg = e instanceof Error ? e.message : String(e);
        this.ctx.log.error(`[${inst.id}] watch stopped: ${msg}`);
        void vscode.window.showErrorMessage(vscode.l10n.t('Stopped syncing checkpoints from {0}: {1}', inst.name, msg));
      })
      .finally(() => {
        this.watches.delete(inst.id);
        this.tree.watching.delete(inst.id);
        this.tree.refresh(inst.id);
      });
    this.tree.refresh(inst.id);
    return true;
  }

  stopWatching(arg: unknown): boolean {
    const id = instanceIdOf(arg);
    const ids = id ? [id] : [...this.watches.keys()];
    for (const i of ids) this.watches.get(i)?.abort();
    return ids.length > 0;
  }

  /** What releasing the box would lose: its checkpoint folder against the local copy (remote release guard). */
  async releaseRisk(inst: Instance, opts: RemoteOpts = {}): Promise<ReleaseRisk> {
    const remoteDir = inst.sync?.remoteDir ?? this.ctx.settings().syncRemoteDir;
    const localDir = inst.sync?.localDir ?? (vscode.workspace.workspaceFolders?.[0]?.uri.scheme === 'file' ? this.localDirFor(undefined) : undefined);
    const conn = await this.connect(inst, opts);
    const { releaseGuard } = await import('../remote/guards/release-guard');
    const { RemoteFolderError } = await import('../remote/sync/list');
    // Without a local copy every file is at risk: compare against an empty folder.
    const empty = localDir ? undefined : await mkdtemp(join(tmpdir(), 'gpu-rent-nolocal-'));
    try {
      const r = await releaseGuard(conn, remoteDir, localDir ?? empty!);
      const files = r.atRisk.filter((f) => !isSyncScratch(f.rel)).map((f) => ({ rel: f.rel, size: f.size, reason: f.reason }));
      return { remoteDir, files, bytes: files.reduce((a, f) => a + f.size, 0), unlisted: r.unlisted.length };
    } catch (e) {
      if (e instanceof RemoteFolderError && e.code === 'remote-missing') return { remoteDir, files: [], bytes: 0, unlisted: 0 };
      throw e;
    } finally {
      if (empty) await rm(empty, { recursive: true, force: true });
    }
  }

  /** Set by activate(): wipes the instance's memory-only uploads before it is released. */
  beforeRelease: ((inst: Instance, opts: RemoteOpts) => Promise<void>) | undefined;

  async release(arg: unknown): Promise<boolean> {
    const inst = await this.instances.resolve(arg, (i) => currentState(i.intervals) !== 'released');
    if (!inst) return false;
    const scripted = arg && typeof arg === 'object' && !('kind' in arg) ? ReleaseArgs.safeParse(arg) : undefined;
    if (scripted && !scripted.success) throw new CommandInputError(vscode.l10n.t('Invalid arguments: {0}', scripted.error.issues[0]?.message ?? ''));
    const reachable = ['running', 'spot', 'noGpu'].includes(currentState(inst.intervals) ?? '');
    let risk: ReleaseRisk | undefined;
    if (reachable && vscode.workspace.isTrusted && !scripted?.data.skipCheck) {
      try {
        risk = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Comparing checkpoints on {0} with the local copy…', inst.name), cancellable: false }, () => this.releaseRisk(inst, remoteOptsOf(arg)));
      } catch (e) {
        this.ctx.log.warn(`[${inst.id}] release check failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const lost = risk?.files.map((f) => f.rel) ?? [];
    if (scripted?.success) {
      if (lost.length > 0 && !scripted.data.discardUnsynced) throw new CommandInputError(vscode.l10n.t('{0} checkpoint files on {1} are not synced: {2}', lost.length, inst.name, lost.slice(0, 10).join(', ')));
    } else {
      const release = vscode.l10n.t('Release');
      const syncFirst = vscode.l10n.t('Sync First');
      const buttons = lost.length > 0 ? [syncFirst, release] : [release];
      const detail = reachable && vscode.workspace.isTrusted ? riskDetail(risk, vscode.l10n) : vscode.l10n.t('Could not check the checkpoint folder on the box. Everything on its disks is deleted when it is released.');
      const pick = await vscode.window.showWarningMessage(vscode.l10n.t('Release {0}? Release it in the platform’s console too; its data disk is deleted.', inst.name), { modal: true, detail }, ...buttons);
      if (pick === syncFirst) {
        await this.syncCheckpoints(inst.id);
        return this.release(inst.id);
      }
      if (pick !== release) return false;
    }
    if (lost.length) this.ctx.log.warn(`[${inst.id}] released with ${lost.length} unsynced checkpoint files`);
    this.stopWatching(inst.id);
    await this.beforeRelease?.(inst, remoteOptsOf(arg));
    await this.instances.switchState({ id: inst.id, state: 'released' });
    return true;
  }

  /** An interactive shell on the box in a VS Code terminal (ssh2 shell behind a Pseudoterminal). */
  async openTerminal(arg: unknown): Promise<vscode.Terminal | undefined> {
    const inst = await this.instance(arg);
    if (!inst) return undefined;
    const conn = await this.connect(inst, remoteOptsOf(arg)).catch((e: unknown) => this.explain(inst, e));
    const write = new vscode.EventEmitter<string>();
    const close = new vscode.EventEmitter<number | void>();
    let stream: import('ssh2').ClientChannel | undefined;
    let dims = { columns: 120, rows: 30 };
    const pty: vscode.Pseudoterminal = {
      onDidWrite: write.event,
      onDidClose: close.event,
      open: (initial) => {
        if (initial) dims = initial;
        void conn
          .withChannel(
            (client) =>
              new Promise<void>((resolve, reject) => {
                client.shell({ term: 'xterm-256color', cols: dims.columns, rows: dims.rows }, (err, s) => {
                  if (err) return reject(err);
                  stream = s;
                  s.on('data', (d: Buffer) => write.fire(d.toString('utf8')));
                  s.stderr.on('data', (d: Buffer) => write.fire(d.toString('utf8')));
                  s.on('close', () => {
                    close.fire();
                    resolve();
                  });
                });
              }),
            { timeoutMs: 30_000 },
          )
          .catch((e: unknown) => {
            write.fire(`\r\n${e instanceof Error ? e.message : String(e)}\r\n`);
            close.fire(1);
          });
      },
      close: () => stream?.close(),
      handleInput: (data) => stream?.write(data),
      setDimensions: (d) => {
        dims = d;
        stream?.setWindow(d.rows, d.columns, 0, 0);
      },
    };
    const term = vscode.window.createTerminal({ name: `GPU: ${inst.name}`, pty, iconPath: new vscode.ThemeIcon('terminal') });
    term.show();
    return term;
  }

  /** Writes a Host entry to ~/.ssh/config and opens it with Remote-SSH, when that extension is installed. */
  async openInRemoteSsh(arg: unknown): Promise<string | undefined> {
    const inst = await this.instance(arg);
    if (!inst) return undefined;
    const remoteSsh = vscode.extensions.getExtension('ms-vscode-remote.remote-ssh');
    const { upsertHostEntry, hostAlias } = await import('./sshConfigEntry');
    const { readFile, writeFile, mkdir } = await import('node:fs/promises');
    const { homedir } = await import('node:os');
    const path = this.ctx.settings().sshConfigPath || join(homedir(), '.ssh', 'config');
    const old = await readFile(path, 'utf8').catch(() => '');
    const alias = hostAlias(inst);
    await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
    await writeFile(path, upsertHostEntry(old, alias, inst.login), { mode: 0o600 });
    this.ctx.log.info(`[${inst.id}] wrote Host ${alias} to ${path}`);
    if (!remoteSsh) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Wrote “Host {0}” to {1}. Install the Remote - SSH extension (or your editor’s equivalent) to open it.', alias, path));
      return alias;
    }
    if (inst.login.auth === 'password') {
      const pw = await this.ctx.store.getPassword(inst.id);
      if (pw) await vscode.env.clipboard.writeText(pw);
      void vscode.window.showInformationMessage(vscode.l10n.t('The password is on the clipboard for Remote-SSH’s prompt.'));
    }
    await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.parse(`vscode-remote://ssh-remote+${alias}/root`), { forceNewWindow: true });
    return alias;
  }

  register(): vscode.Disposable[] {
    const log = this.ctx.log;
    return [
      vscode.workspace.registerTextDocumentContentProvider(DOCTOR_SCHEME, this.docProvider()),
      wrap(Commands.checkGpu, (a) => this.checkGpu(a), log),
      wrap(Commands.syncCheckpoints, (a) => this.syncCheckpoints(a), log),
      wrap(Commands.watchCheckpoints, (a) => this.watchCheckpoints(a), log),
      wrap(Commands.stopWatching, async (a) => this.stopWatching(a), log),
      wrap(Commands.releaseInstance, (a) => this.release(a), log),
      wrap(Commands.openTerminal, (a) => this.openTerminal(a), log),
      wrap(Commands.openInRemoteSsh, (a) => this.openInRemoteSsh(a), log),
    ];
  }

  dispose(): void {
    for (const w of this.watches.values()) w.abort();
    this.docChanged.dispose();
    this.jobsChannel?.dispose();
  }
}

const DOCTOR_SCHEME = 'gpu-rent-doctor';

export function remoteErrorText(e: RemoteError): string {
  const where = String(e.detail.host ?? '');
  switch (e.code) {
    case 'bad-target':
      return vscode.l10n.t('The login cannot be used: {0}', e.message);
    case 'host-key-changed':
      return vscode.l10n.t('The host key of {0} changed since the last connection. Refused before sending any password. If the platform moved your instance, remove its old entry from gpu-rent’s known_hosts.', where);
    case 'host-key-unknown':
      return vscode.l10n.t('The host key was not trusted, so nothing was sent.');
    case 'auth-failed':
      return vscode.l10n.t('Login refused. After a restart the platform may show a new password: paste the new login command.');
    case 'no-credentials':
      return vscode.l10n.t('No password or key to log in with.');
    case 'connect-refused':
      return vscode.l10n.t('Nothing answers at that address and port. The instance may be stopped, or its SSH port changed after a restart: paste the new login command.');
    case 'host-not-found':
      return vscode.l10n.t('The host name cannot be resolved.');
    case 'timeout':
      return vscode.l10n.t('The instance did not answer in time.');
    case 'session-limit':
      return vscode.l10n.t('The server refused another session (too many open at once).');
    case 'disconnected':
      return vscode.l10n.t('The connection dropped.');
    case 'aborted':
      return vscode.l10n.t('Cancelled.');
    case 'protocol':
    case 'remote-failed':
      return vscode.l10n.t('SSH failed: {0}', e.message);
  }
}

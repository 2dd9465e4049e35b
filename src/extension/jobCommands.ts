// Start training (detached, survives the laptop) and read or follow a job's log, through
// src/remote/jobs. A long run on a spot instance needs an explicit yes, with the expected
// cost of rework and a sync cadence (core/guards/spot).
import * as vscode from 'vscode';
import type { Instance } from '../core/instances';
import { currentState } from '../core/spend';
import { describeArgsError, JobsArgs, StartTrainingArgs } from './args';
import { Commands } from './commandIds';
import { CommandInputError, wrap, type InstanceCommandContext, type InstanceCommands } from './instanceCommands';
import { guardFacts, spotDecision } from './guardDecisions';
import { spotDetail, spotInputErrorText } from './guardText';
import { stateLabel } from './present';
import type { RemoteCommands } from './remoteCommands';

const MAX_JOBS_KEPT = 50;

export class JobCommands implements vscode.Disposable {
  private channel: vscode.OutputChannel | undefined;
  private follows = new Set<AbortController>();

  constructor(
    private readonly ctx: InstanceCommandContext,
    private readonly instances: InstanceCommands,
    private readonly remote: RemoteCommands,
  ) {}

  private output(): vscode.OutputChannel {
    return (this.channel ??= vscode.window.createOutputChannel(vscode.l10n.t('GPU Rent: Job Logs')));
  }

  private requireTrust(): void {
    if (!vscode.workspace.isTrusted) throw new CommandInputError(vscode.l10n.t('Connecting to instances is disabled in Restricted Mode. Trust this workspace to use it.'));
  }

  async startTraining(arg: unknown): Promise<string | undefined> {
    this.requireTrust();
    const scripted = arg && typeof arg === 'object' && 'command' in arg;
    let a;
    if (scripted) {
      const r = StartTrainingArgs.safeParse(arg);
      if (!r.success) throw new CommandInputError(vscode.l10n.t('Invalid arguments: {0}', describeArgsError(r.error)));
      a = r.data;
    } else {
      const inst = await this.instances.resolve(arg, (i) => ['running', 'spot'].includes(currentState(i.intervals) ?? ''));
      if (!inst) return undefined;
      const command = await vscode.window.showInputBox({ title: vscode.l10n.t('Start training on {0}', inst.name), prompt: vscode.l10n.t('Command to run on the instance (detached; it keeps running if you disconnect)'), placeHolder: 'python train.py --config configs/lora.yaml', ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('Enter a value.')) });
      if (!command) return undefined;
      const cwd = await vscode.window.showInputBox({ title: vscode.l10n.t('Working folder on the instance'), value: inst.sync?.remoteDir ? inst.sync.remoteDir.replace(/\/[^/]*$/, '') || '/' : '', placeHolder: '/root/autodl-tmp/project', prompt: vscode.l10n.t('Empty: the home folder'), ignoreFocusOut: true });
      if (cwd === undefined) return undefined;
      const envText = await vscode.window.showInputBox({ title: vscode.l10n.t('Environment variables (optional)'), placeHolder: 'CUDA_VISIBLE_DEVICES=0 HF_ENDPOINT=…', ignoreFocusOut: true, validateInput: (v) => (v.trim() === '' || v.trim().split(/\s+/).every((p) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(p)) ? undefined : vscode.l10n.t('Use NAME=value pairs separated by spaces.')) });
      if (envText === undefined) return undefined;
      const env = Object.fromEntries(envText.trim() ? envText.trim().split(/\s+/).map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]) : []);
      let expectedHours: number | undefined;
      if (currentState(inst.intervals) === 'spot') {
        const h = await vscode.window.showInputBox({ title: vscode.l10n.t('About how many hours will it run?'), prompt: vscode.l10n.t('Spot instances can be reclaimed at any time; the estimate sizes the risk.'), value: '1', ignoreFocusOut: true, validateInput: (v) => (Number.isFinite(Number(v)) && Number(v) >= 0 ? undefined : vscode.l10n.t('Enter a number, for example 1.98.')) });
        if (h === undefined) return undefined;
        expectedHours = Number(h);
      }
      a = { id: inst.id, command, ...(cwd ? { cwd } : {}), env, ...(expectedHours !== undefined ? { expectedHours } : {}), acceptSpotRisk: false };
    }
    const inst = this.ctx.store.get(a.id);
    if (!inst) throw new CommandInputError(vscode.l10n.t('No instance with id {0}.', a.id));
    const state = currentState(inst.intervals);
    if (state !== 'running' && state !== 'spot') throw new CommandInputError(vscode.l10n.t('{0} is {1}: start it in the platform’s console and switch its state here first.', inst.name, stateLabel(state, vscode.l10n)));
    if (state === 'spot' && !(await this.spotOk(inst, a.expectedHours, a.acceptSpotRisk, !!scripted))) return undefined;
    const conn = await this.remote.connect(inst, arg && typeof arg === 'object' && (arg as { acceptNewHostKey?: unknown }).acceptNewHostKey === true ? { acceptNewHostKey: true } : {});
    const { startJob } = await import('../remote/jobs');
    const stamp = new Date(this.ctx.now() * 1000).toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
    const job = await startJob(conn, { name: `train-${stamp}`, command: [a.command], ...(a.cwd ? { cwd: a.cwd } : {}), ...(a.env ? { env: a.env } : {}) });
    const jobs = [...(inst.jobs ?? []), { id: job.name, command: a.command.slice(0, 4000), startedAt: job.startedAt ?? this.ctx.now(), logPath: job.logPath.slice(0, 4096) }].slice(-MAX_JOBS_KEPT);
    await this.ctx.store.update(inst.id, { jobs });
    this.ctx.log.info(`[${inst.id}] started job ${job.name}`);
    if (!scripted) {
      const show = vscode.l10n.t('Follow Log');
      void vscode.window.showInformationMessage(vscode.l10n.t('Started {0} on {1}. It keeps running if you disconnect.', job.name, inst.name), show).then((p) => {
        if (p) void vscode.commands.executeCommand(Commands.showJobs, { id: inst.id, jobId: job.name, follow: true });
      });
    }
    return job.name;
  }

  /** Spot: core's spotCheck sizes the rework; a long job (or one of unknown length) needs an explicit yes. */
  private async spotOk(inst: Instance, expectedHours: number | undefined, accepted: boolean, scripted: boolean): Promise<boolean> {
    const settings = this.ctx.settings();
    const d = spotDecision(
      { spotRate: inst.pricing.spotRate ?? inst.pricing.hourlyRate, expectedHours, syncIntervalSeconds: settings.syncWatchIntervalSeconds, warnHours: settings.spotWarnHours, accepted },
      guardFacts(this.ctx.catalog(), inst.platform),
    );
    if (d.kind === 'badInput') throw new CommandInputError(spotInputErrorText(d.error, vscode.l10n));
    const detail = d.check ? spotDetail(d.check, vscode.l10n) : vscode.l10n.t('The run length is unknown.');
    if (d.kind === 'go') {
      if (d.check) {
        this.ctx.log.info(`[${inst.id}] spot job: expected rework ${d.check.expectedReworkFen} fen, sync every ${d.check.recommendedSyncIntervalSeconds} s recommended`);
        if (!scripted) void vscode.window.showInformationMessage(`${inst.name}: ${detail}`);
      }
      return true;
    }
    const msg = vscode.l10n.t('{0} is a spot instance: it can be reclaimed at any time and a long run may be lost. The report’s advice: only short (≤1 h) or exploratory runs on spot.', inst.name);
    if (scripted) throw new CommandInputError(`${msg} ${detail}`);
    const go = vscode.l10n.t('Start Anyway');
    return (await vscode.window.showWarningMessage(msg, { modal: true, detail }, go)) === go;
  }

  async showJobs(arg: unknown): Promise<{ jobs: { name: string; state: string; exitCode: number | null }[]; text?: string } | undefined> {
    this.requireTrust();
    let a: { id: string; jobId?: string | undefined; follow: boolean };
    if (arg && typeof arg === 'object' && 'jobId' in arg) {
      const r = JobsArgs.safeParse(arg);
      if (!r.success) throw new CommandInputError(vscode.l10n.t('Invalid arguments: {0}', describeArgsError(r.error)));
      a = r.data;
    } else {
      const inst = await this.instances.resolve(arg, (i) => ['running', 'spot', 'noGpu'].includes(currentState(i.intervals) ?? ''));
      if (!inst) return undefined;
      a = { id: inst.id, follow: true };
    }
    const inst = this.ctx.store.get(a.id);
    if (!inst) throw new CommandInputError(vscode.l10n.t('No instance with id {0}.', a.id));
    const conn = await this.remote.connect(inst);
    const { listJobs, readLog, followLog } = await import('../remote/jobs');
    const jobs = await listJobs(conn);
    const summary = jobs.map((j) => ({ name: j.name, state: j.state, exitCode: j.exitCode }));
    let jobId = a.jobId;
    if (!jobId) {
      if (jobs.length === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t('No jobs on {0}.', inst.name));
        return { jobs: summary };
      }
      const pick = await vscode.window.showQuickPick(
        jobs.map((j) => ({ label: j.name, description: j.state === 'exited' ? vscode.l10n.t('exited with {0}', String(j.exitCode ?? '?')) : j.state, detail: j.command ?? '', name: j.name })),
        { placeHolder: vscode.l10n.t('Which job’s log?') },
      );
      if (!pick) return { jobs: summary };
      jobId = pick.name;
    }
    const out = this.output();
    out.show(true);
    out.appendLine(`──── ${inst.name} · ${jobId} ────`);
    if (!a.follow) {
      const r = await readLog(conn, jobId, { lines: 500 });
      out.append(r.text);
      return { jobs: summary, text: r.text };
    }
    const abort = new AbortController();
    this.follows.add(abort);
    void vscode.window
      .withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Following the log of {0}', jobId), cancellable: true }, async (_p, token) => {
        token.onCancellationRequested(() => abort.abort());
        const end = await followLog(conn, jobId, { lines: 200, onData: (c) => out.append(c.toString('utf8')), signal: abort.signal });
        if (end.state === 'exited') out.appendLine(`\n──── ${vscode.l10n.t('exited with {0}', String(end.exitCode ?? '?'))} ────`);
      })
      .then(
        () => this.follows.delete(abort),
        (e: unknown) => {
          this.follows.delete(abort);
          this.ctx.log.warn(`[${inst.id}] follow ${jobId}: ${e instanceof Error ? e.message : String(e)}`);
        },
      );
    return { jobs: summary };
  }

  register(): vscode.Disposable[] {
    return [wrap(Commands.startTraining, (a) => this.startTraining(a), this.ctx.log), wrap(Commands.showJobs, (a) => this.showJobs(a), this.ctx.log)];
  }

  dispose(): void {
    for (const f of this.follows) f.abort();
    this.channel?.dispose();
  }
}

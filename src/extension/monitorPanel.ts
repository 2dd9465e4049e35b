// The GPU monitor panel: one at a time, for one instance, restored after a reload by a
// serializer. It streams from ONE long-lived nvidia-smi channel (app/runs/gpuStream) only while
// the panel is visible; hidden, the channel is closed; shown again, it resumes. It also posts
// the loss curve of the instance's running job, read by the poll into the runs model: it listens
// to the model's events for its instance while it streams.
import * as vscode from 'vscode';
import { currentInterval } from '../core/spend';
import type { Instance } from '../core/instances';
import { GpuStream } from '../app/runs/gpuStream';
import type { InstanceSessions } from '../app/session';
import type { RunWatch } from '../app/runs/watch';
import type { LiveGpus } from '../app/runs/liveGpus';
import { buildCalculatorHtml, makeNonce } from '../webview/html';
import { divergedSpansOf, parseMonitorWebviewMessage, type MonitorHostMessage, type SampleTuple } from '../webview/monitor-protocol';
import { toLocale } from '../webview/protocol';
import type { InstanceStore } from './store';

export const MONITOR_VIEW_TYPE = 'gpuRent.gpuMonitor';

export interface MonitorDeps {
  store: InstanceStore;
  sessions: InstanceSessions;
  runs: RunWatch;
  log: vscode.LogOutputChannel;
  /** Where the stream's latest readings go for the tree's GPU rows. */
  live?: LiveGpus;
}

export class MonitorPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private instanceId: string | undefined;
  private stream: GpuStream | undefined;
  /** Listening to the runs model (while the panel is visible). */
  private lossSub: { dispose(): void } | undefined;
  private lastLossKey = '';
  private state: 'streaming' | 'reconnecting' | 'stopped' = 'stopped';
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly deps: MonitorDeps,
  ) {
    this.subs.push(
      vscode.window.registerWebviewPanelSerializer(MONITOR_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state) => {
          const id = state && typeof state === 'object' && typeof (state as { instanceId?: unknown }).instanceId === 'string' ? (state as { instanceId: string }).instanceId : undefined;
          const inst = id ? deps.store.get(id) : undefined;
          if (!inst) return panel.dispose();
          this.attach(panel, inst);
        },
      }),
    );
  }

  /** The channels the current stream opened (tests: stays 1 while the stream lives). */
  get channelsOpened(): number {
    return this.stream?.channelsOpened ?? 0;
  }

  get streaming(): boolean {
    return this.stream?.running ?? false;
  }

  private get webviewRoot(): vscode.Uri {
    return vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
  }

  show(inst: Instance): void {
    if (this.panel && this.instanceId === inst.id) return this.panel.reveal();
    if (this.panel) {
      void this.stopStream();
      this.panel.dispose();
    }
    const panel = vscode.window.createWebviewPanel(MONITOR_VIEW_TYPE, vscode.l10n.t('GPU Monitor: {0}', inst.name), vscode.ViewColumn.Active, { enableScripts: true, retainContextWhenHidden: false, localResourceRoots: [this.webviewRoot] });
    this.attach(panel, inst);
  }

  private attach(panel: vscode.WebviewPanel, inst: Instance): void {
    this.panel = panel;
    this.instanceId = inst.id;
    panel.title = vscode.l10n.t('GPU Monitor: {0}', inst.name);
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'activity.svg');
    panel.webview.options = { enableScripts: true, localResourceRoots: [this.webviewRoot] };
    panel.webview.html = buildCalculatorHtml({
      cspSource: panel.webview.cspSource,
      nonce: makeNonce(),
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(this.webviewRoot, 'monitor.js')).toString(),
      styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(this.webviewRoot, 'monitor.css')).toString(),
      lang: vscode.env.language,
      title: vscode.l10n.t('GPU Monitor: {0}', inst.name),
    });
    const subs = [
      panel.webview.onDidReceiveMessage((raw: unknown) => {
        const m = parseMonitorWebviewMessage(raw);
        if (!m) return this.deps.log.warn('monitor: dropped a message that does not match the protocol');
        if (m.type === 'error') return this.deps.log.warn(`monitor: ${m.message}`);
        this.init(m.requestId);
      }),
      // Hidden: close the channel; visible again: resume (the page reloads and says ready).
      panel.onDidChangeViewState((e) => (e.webviewPanel.visible ? this.startStream() : void this.stopStream())),
    ];
    panel.onDidDispose(() => {
      subs.forEach((d) => d.dispose());
      if (this.panel === panel) {
        this.panel = undefined;
        void this.stopStream();
      }
    });
    this.startStream();
  }

  private instance(): Instance | undefined {
    return this.instanceId ? this.deps.store.get(this.instanceId) : undefined;
  }

  private startStream(): void {
    const inst = this.instance();
    if (!inst) return;
    if (!this.stream) {
      this.stream = new GpuStream(async () => this.deps.sessions.connect(this.instance() ?? inst), {
        intervalMs: 1000,
        onSamples: (b) => {
          this.deps.live?.record(inst.id, b);
          this.post({ type: 'samples', samples: b.map(tuple), idleSeconds: this.stream?.window.idleSeconds ?? 0, now: Date.now() / 1000 });
        },
        onState: (state, reason) => {
          this.state = state;
          if (reason) this.deps.log.debug(`[${inst.id}] monitor stream ${state}: ${reason}`);
          this.post({ type: 'state', state, ...(reason ? { reason: reason.slice(0, 500) } : {}) });
        },
      });
    }
    this.stream.start();
    this.lossSub ??= this.deps.runs.onDidChange((id) => id === this.instanceId && this.postLoss());
  }

  private async stopStream(): Promise<void> {
    this.lossSub?.dispose();
    this.lossSub = undefined;
    await this.stream?.stop();
  }

  private init(requestId: number): void {
    const inst = this.instance();
    if (!inst || !this.stream) return;
    const w = this.stream.window;
    const samples = w.gpus().flatMap((g) => w.samples(g).map(tuple));
    this.post({
      type: 'init',
      requestId,
      locale: toLocale(vscode.env.language),
      instanceId: inst.id,
      instanceName: inst.name,
      windowSeconds: w.windowSeconds,
      computeFenPerHour: currentInterval(inst.intervals)?.computeRate ?? 0,
      samples,
      loss: [],
      idleSeconds: w.idleSeconds,
      state: this.state,
      now: Date.now() / 1000,
    });
    this.lastLossKey = '';
    this.postLoss();
  }

  private postLoss(): void {
    const inst = this.instance();
    const run = inst?.jobs?.filter((j) => j.state !== 'exited').map((j) => this.deps.runs.get(inst.id, j.id)).find(Boolean);
    if (!run) return;
    const curve = run.progress.lossCurve;
    const diverged = divergedSpansOf(this.deps.runs.divergedSpans(run.instanceId, run.jobId), run.progress.diverged, curve.at(-1)?.step ?? null);
    const key = `${run.jobId}:${curve.length}:${curve.at(-1)?.step ?? ''}:${diverged.map((d) => `${d.from}-${d.to}-${d.readings}-${d.current}`).join(',')}`;
    if (key === this.lastLossKey) return;
    this.lastLossKey = key;
    this.post({ type: 'loss', job: run.jobId, loss: curve.slice(-5000).map((p) => ({ step: p.step, loss: p.loss })), ...(diverged.length ? { diverged } : {}) });
  }

  private post(m: MonitorHostMessage): void {
    void this.panel?.webview.postMessage(m);
  }

  dispose(): void {
    void this.stopStream();
    this.panel?.dispose();
    this.subs.forEach((d) => d.dispose());
  }
}

function tuple(s: { index: number; t: number; util: number | null; memUsed: number | null; memTotal: number | null; power: number | null; temp: number | null }): SampleTuple {
  return [s.index, s.t, s.util, s.memUsed, s.memTotal, s.power, s.temp];
}

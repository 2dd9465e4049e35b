// The calculator panel: one at a time, restored after a reload by a serializer. The page runs
// core's cost model itself; the host only hands it the locale, the catalog override and the
// inputs, and validates everything the page posts.
import * as vscode from 'vscode';
import { buildCalculatorHtml, makeNonce } from '../webview/html';
import { DEFAULT_INPUTS, parseWebviewMessage, restoreState, toLocale, type CalculatorInputs, type HostMessage, type WebviewMessage } from '../webview/protocol';
import { CALCULATOR_VIEW_TYPE } from './commandIds';
import type { Settings } from './settings';

export class CalculatorPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private inputs: CalculatorInputs = DEFAULT_INPUTS;
  private readonly subs: vscode.Disposable[] = [];
  /** The page's last `computed` message (for getState and the log). */
  lastComputed: (WebviewMessage & { type: 'computed' }) | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly settings: () => Settings,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subs.push(
      vscode.window.registerWebviewPanelSerializer(CALCULATOR_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state) => {
          this.inputs = restoreState(state).inputs;
          this.attach(panel);
        },
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('gpuRent.catalog.overrides')) this.post({ type: 'catalogChanged', catalogOverride: this.settings().catalogOverride });
      }),
    );
  }

  /** The form's inputs as the host last set them (the page may have changed them since: see lastComputed). */
  get currentInputs(): CalculatorInputs {
    return this.inputs;
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  private get webviewRoot(): vscode.Uri {
    return vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
  }

  show(prefill?: Partial<CalculatorInputs>): void {
    if (prefill) this.inputs = { ...this.inputs, ...prefill };
    if (this.panel) {
      this.panel.reveal();
      if (prefill) this.post({ type: 'setInputs', inputs: prefill });
      return;
    }
    const panel = vscode.window.createWebviewPanel(CALCULATOR_VIEW_TYPE, vscode.l10n.t('GPU Cost Calculator'), vscode.ViewColumn.Active, {
      enableScripts: true,
      retainContextWhenHidden: false,
      localResourceRoots: [this.webviewRoot],
    });
    this.attach(panel);
  }

  private attach(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    // A panel restored after a reload keeps its old title, possibly in another display language.
    panel.title = vscode.l10n.t('GPU Cost Calculator');
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'activity.svg');
    panel.webview.options = { enableScripts: true, localResourceRoots: [this.webviewRoot] };
    const webview = panel.webview;
    webview.html = buildCalculatorHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.webviewRoot, 'calculator.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.webviewRoot, 'calculator.css')).toString(),
      lang: vscode.env.language,
      title: vscode.l10n.t('GPU Cost Calculator'),
    });
    const subs: vscode.Disposable[] = [];
    subs.push(
      webview.onDidReceiveMessage((raw: unknown) => {
        const msg = parseWebviewMessage(raw);
        if (!msg) {
          this.log.warn('calculator: dropped a message that does not match the protocol');
          return;
        }
        this.onMessage(msg);
      }),
    );
    panel.onDidDispose(() => {
      subs.forEach((d) => d.dispose());
      if (this.panel === panel) this.panel = undefined;
    });
  }

  private onMessage(msg: WebviewMessage): void {
    switch (msg.type) {
      case 'ready':
        this.post({ type: 'init', requestId: msg.requestId, locale: toLocale(vscode.env.language), catalogOverride: this.settings().catalogOverride, inputs: this.inputs, now: Math.floor(Date.now() / 1000) });
        return;
      case 'computed':
        this.inputs = msg.inputs;
        this.lastComputed = msg;
        this.log.debug(`calculator: ${msg.rows} rows, cheapest ${msg.cheapest ?? '-'}`);
        return;
      case 'openSettings':
        void vscode.commands.executeCommand('workbench.action.openSettings', msg.key);
        return;
      case 'error':
        this.log.warn(`calculator: ${msg.message}`);
        return;
    }
  }

  private post(msg: HostMessage): void {
    void this.panel?.webview.postMessage(msg);
  }

  dispose(): void {
    this.panel?.dispose();
    this.subs.forEach((d) => d.dispose());
  }
}

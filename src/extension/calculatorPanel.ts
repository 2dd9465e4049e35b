// The calculator panel: one at a time, restored after a reload by a serializer. The page runs
// core's cost model itself; the host only hands it the locale, the catalog override and the
// inputs, and validates everything the page posts.
import * as vscode from 'vscode';
import { buildCalculatorHtml, makeNonce } from '../webview/html';
import { startNowFor, type StockReading } from '../core/startNow';
import { DEFAULT_INPUTS, parseHostMessage, parseWebviewMessage, prefillInputs, restoreState, toLocale, type CalculatorInputs, type HostMessage, type MyRun, type StartNowMark, type WebviewMessage } from '../webview/protocol';
import { CALCULATOR_VIEW_TYPE } from './commandIds';
import type { Settings } from './settings';

export class CalculatorPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private inputs: CalculatorInputs = DEFAULT_INPUTS;
  private readonly subs: vscode.Disposable[] = [];
  /** The page's last `computed` message (for getState and the log). */
  lastComputed: (WebviewMessage & { type: 'computed' }) | undefined;
  /** The start-now marks last sent to the page (for getState). */
  lastStartNow: StartNowMark[] | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly settings: () => Settings,
    private readonly log: vscode.LogOutputChannel,
    /** The accounts' free cards (StockView: its once-a-minute cache per account). */
    private readonly stock?: { hasAccounts(): boolean; readings(): Promise<StockReading[]>; onAccountsChanged(l: () => void): vscode.Disposable },
    /** The user's finished runs the page offers under From my runs (both ledgers). */
    private readonly runs?: () => Promise<MyRun[]>,
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
    if (stock) this.subs.push(stock.onAccountsChanged(() => this.post({ type: 'stockAvailable', available: stock.hasAccounts() })));
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

  show(raw?: Partial<CalculatorInputs>): void {
    const prefill = raw ? prefillInputs(raw) : undefined;
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
        this.post({ type: 'stockAvailable', available: this.stock?.hasAccounts() ?? false });
        void this.sendRuns();
        return;
      case 'stockWanted':
        void this.answerStock(msg);
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

  /** Only while the panel is shown; the page asks again each minute and the cache reads an account at most once a minute. */
  private async answerStock(msg: WebviewMessage & { type: 'stockWanted' }): Promise<void> {
    if (!this.stock || !this.panel?.visible || !this.stock.hasAccounts()) return;
    try {
      const marks = startNowFor(msg.rows, await this.stock.readings());
      // What the page gets is the matcher's result only, checked against the page's own schema.
      const out = parseHostMessage({ type: 'startNow', requestId: msg.requestId, marks });
      if (!out) {
        this.log.warn('calculator: start-now marks did not match the protocol; not sent');
        return;
      }
      this.lastStartNow = marks;
      this.post(out);
    } catch (e) {
      this.log.warn(`calculator: free cards not read: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** From my runs: what the page gets is checked against its own schema; a ledger that cannot be read offers none. */
  private async sendRuns(): Promise<void> {
    if (!this.runs) return;
    try {
      const out = parseHostMessage({ type: 'myRuns', runs: await this.runs() });
      if (out) this.post(out);
      else this.log.warn('calculator: the runs did not match the protocol; not sent');
    } catch (e) {
      this.log.warn(`calculator: runs not read: ${e instanceof Error ? e.message : String(e)}`);
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

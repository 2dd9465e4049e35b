// Composition root: builds the objects and wires them together; nothing else happens here.
import * as vscode from 'vscode';
import { builtinCatalog, mergeCatalog, type Catalog } from '../core/catalog';
import { summarizeSpend } from '../core/spend';
import { CalculatorPanel } from './calculatorPanel';
import { Commands, HAS_INSTANCES_KEY, INSTANCES_VIEW_ID } from './commandIds';
import { GuardCommands } from './guardCommands';
import { InstanceCommands, wrap } from './instanceCommands';
import { JobCommands } from './jobCommands';
import { Poller } from './poller';
import { RemoteCommands } from './remoteCommands';
import { readSettings, SETTINGS_SECTION, type Settings } from './settings';
import { SpendStatusBar } from './statusBar';
import { InstanceStore } from './store';
import { InstancesTree } from './tree';
import type { CalculatorInputs } from '../webview/protocol';

const now = (): number => Math.floor(Date.now() / 1000);

export function activate(context: vscode.ExtensionContext): void {
  const subs = context.subscriptions;
  const log = vscode.window.createOutputChannel('GPU Rent', { log: true });
  subs.push(log);

  const settings = (): Settings => {
    const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    return readSettings((k) => cfg.get(k));
  };
  const catalogs = new CatalogSource(settings, log);
  subs.push(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('gpuRent.catalog.overrides') && catalogs.reset()));

  const store = new InstanceStore(context.globalState, context.secrets, now);
  if (store.loadProblem) {
    log.error(`saved instances could not be read (${store.loadProblem.kind}); kept aside under gpuRent.instances.unreadable`);
    void vscode.window.showErrorMessage(vscode.l10n.t('GPU Rent could not read its saved instances; they were kept aside and the list starts empty.'));
  }
  const setHasInstances = () => void vscode.commands.executeCommand('setContext', HAS_INSTANCES_KEY, store.list().length > 0);
  setHasInstances();

  const tree = new InstancesTree(store, () => catalogs.get(), now, vscode.env.language);
  const view = vscode.window.createTreeView(INSTANCES_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  const updateBadge = () => {
    const s = summarizeSpend(store.list(), now());
    const billing = s.perInstance.filter((p) => p.burnRate > 0).length;
    view.badge = billing ? { value: billing, tooltip: vscode.l10n.t('{0} instances billing', billing) } : undefined;
  };
  subs.push(
    tree,
    view,
    store.onDidChange((ids) => {
      setHasInstances();
      updateBadge();
      if (ids && ids.length === 1) tree.refresh(ids[0]);
      else tree.refresh();
    }),
  );
  updateBadge();

  const statusBar = new SpendStatusBar(store, settings, now, context.globalState, (id) => tree.platformName(id));
  const calculator = new CalculatorPanel(context.extensionUri, settings, log);
  const ctx = { store, catalog: () => catalogs.get(), settings, log, now, language: vscode.env.language };
  const instances = new InstanceCommands(ctx);
  const remote = new RemoteCommands(ctx, instances, tree);
  const jobs = new JobCommands(ctx, instances, remote);
  const guards = new GuardCommands(ctx, instances, remote, context.globalState);
  instances.guards = { afterStart: (i) => guards.afterStart(i), removalRisk: (i) => remote.releaseRisk(i), beforeForget: (i) => guards.wipeAllFor(i) };
  remote.beforeRelease = (i, o) => guards.wipeAllFor(i, o);
  const poller = new Poller(view, tree, store, remote, settings, guards);
  subs.push(statusBar, calculator, remote, jobs, guards, poller, ...instances.register(), ...remote.register(), ...jobs.register(), ...guards.register());
  subs.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('gpuRent')) {
        statusBar.update();
        poller.restart();
        guards.checkReleases();
      }
    }),
    wrap(Commands.openCalculator, async (a) => calculator.show(a && typeof a === 'object' && 'inputs' in a ? ((a as { inputs: Partial<CalculatorInputs> }).inputs ?? undefined) : undefined), log),
    wrap(Commands.refresh, async () => {
      tree.refresh();
      statusBar.update();
      await poller.probeNow();
    }, log),
    wrap(Commands.showLog, async () => log.show(), log),
    // For tests and other extensions: what the user sees, as data. No secrets exist in it.
    wrap(Commands.getState, async () => ({
      instances: store.list(),
      spend: summarizeSpend(store.list(), now(), settings().monthlyBudgetFen),
      statusBar: { text: statusBar.text, visible: statusBar.visible },
      calculator: { open: calculator.isOpen, lastComputed: calculator.lastComputed },
      watching: [...tree.watching],
      guardNotices: [...guards.recent],
      catalogAsOf: catalogs.get().asOf,
    }), log),
  );
  log.info(`activated; ${store.list().length} instances`);
}

export function deactivate(): void {
  // Pooled SSH connections close with the extension host; nothing is kept open on purpose.
}

/** The built-in catalog with the user's overrides merged in; an invalid override is reported once and ignored. */
class CatalogSource {
  private cached: Catalog | undefined;
  constructor(
    private readonly settings: () => Settings,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  reset(): void {
    this.cached = undefined;
  }

  get(): Catalog {
    if (this.cached) return this.cached;
    const base = builtinCatalog();
    const override = this.settings().catalogOverride;
    if (Object.keys(override).length === 0) return (this.cached = base);
    const r = mergeCatalog(base, override);
    if (r.ok) return (this.cached = r.catalog);
    const first = r.errors[0];
    this.log.warn(`catalog override ignored: ${r.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
    void vscode.window.showWarningMessage(vscode.l10n.t('Your price overrides (gpuRent.catalog.overrides) are ignored: {0}', first ? `${first.path}: ${first.message}` : ''));
    return (this.cached = base);
  }
}

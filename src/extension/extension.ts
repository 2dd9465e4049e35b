// Composition root: builds the objects, wires them together and registers the commands;
// nothing else happens here. Everything it makes is disposed with the extension.
import { join } from 'node:path';
import * as vscode from 'vscode';
import { showError, showInfo, showWarning } from './notify';
import { builtinCatalog, mergeCatalog, type Catalog } from '../core/catalog';
import { summarizeSpend } from '../core/spend';
import { SshPool } from '../app/pool';
import { ReleaseEvents } from '../app/release';
import { InstanceSessions } from '../app/session';
import { CalculatorPanel } from './calculatorPanel';
import { Commands, HAS_INSTANCES_KEY, INSTANCES_VIEW_ID } from './commandIds';
import { platformLabel, type CommandContext } from './services/context';
import { pickInstance } from './commands/pick';
import { registerCommand } from './commands/registry';
import { addInstance } from './commands/instances/add';
import { editInstance } from './commands/instances/edit';
import { exportInstancesTo, importInstances } from './commands/instances/importExport';
import { removeInstance } from './commands/instances/remove';
import { switchState } from './commands/instances/switchState';
import { updateLogin } from './commands/instances/updateLogin';
import { checkGpu } from './commands/remote/checkGpu';
import { DoctorView } from './doctorView';
import { releaseInstance } from './commands/remote/release';
import { openInRemoteSsh } from './commands/remote/remoteSsh';
import { forwardPort, openJupyter, openTensorBoard, PortForwards } from './commands/remote/ports';
import { openTerminal } from './commands/remote/terminal';
import { syncCheckpoints } from './commands/sync/syncNow';
import { uploadFolder } from './commands/sync/upload';
import { editSyncFolders, stopWatching, watchCheckpoints } from './commands/sync/watch';
import { showJobs } from './commands/jobs/showJobs';
import { startTraining } from './commands/jobs/startTraining';
import { divergedCount, runLines } from './view/runText';
import { DivergedMonitor } from './monitors/diverged';
import { watchProgressSetting } from './progressSetting';
import { showGpuMonitor } from './commands/runs/monitor';
import { startDistributedTraining } from './commands/runs/distributed';
import { MonitorPanel } from './monitorPanel';
import { LiveGpus } from '../app/runs/liveGpus';
import { captureEnvironment, rebuildEnvironment } from './commands/guards/environment';
import { uploadToMemory, wipeBeforeRelease, wipeMemoryUpload } from './commands/guards/memory';
import { scanSecrets } from './commands/guards/secrets';
import { installWatchdog, removeWatchdog, watchdogStatus } from './commands/guards/watchdog';
import { getState, openCalculator, refresh, showLog } from './commands/view/view';
import { addPlatformAccount, removePlatformAccount } from './commands/platforms/accounts';
import { addNotifyChannel, removeNotifyChannel } from './commands/notify/addChannel';
import { NotifyChannels } from './notifyChannels';
import { addStorage, removeStorage } from './commands/storage/addStorage';
import { StoreList } from './storeList';
import { createInstanceCommand } from './commands/platforms/create';
import { cloneInstanceCommand } from './commands/platforms/clone';
import { PlatformAccounts } from './services/accountStore';
import { keepAlive, platformAction } from './commands/platforms/power';
import { setTimedShutdown } from './commands/platforms/timedShutdown';
import { powerOnWhenFree } from './commands/platforms/powerOnWhenFree';
import { grabCard } from './commands/platforms/grab';
import { StockView } from './stockView';
import { LaunchReportView, showLaunchStatus } from './commands/launch/report';
import { runTask } from './commands/launch/runTask';
import { watchLaunchRows } from './commands/launch/watchRows';
import { awayWatch } from './commands/launch/awayNotice';
import { platformAccountFacts, platformPowerActions } from './services/endOfRunPower';
import { PlatformFacts, PlatformMonitor } from './monitors/platforms';
import { hostKeyPrompts } from './hostKeyPrompts';
import { IdleMonitor } from './monitors/idle';
import { GuardNotices } from './monitors/notices';
import { Poller } from './monitors/poller';
import { ReleaseWarnings } from './monitors/releaseWarnings';
import { ScheduleMonitor } from './monitors/schedules';
import { SyncWatches } from './monitors/syncWatches';
import { agentBudgetFen, readSettings, SETTINGS_SECTION, type Settings } from './settings';
import { bundledCli, lmToolApi, registerAgentTools } from './lmTools';
import { SpendStatusBar } from './statusBar';
import { InstanceStore } from './store';
import { InstancesTree } from './tree';
import { RunWatch } from '../app/runs/watch';
import { SyncWatching } from '../app/syncWatching';
import { LaunchRows } from '../app/launch/rows';
import { followLaunchEnds, instancesToStop } from './monitors/launchEnds';
import { ViewVisibility } from './view/visibility';
import { openState } from './stateHome';
import { registerTaskDiagnostics } from './taskDiagnostics';

const now = (): number => Math.floor(Date.now() / 1000);

type Subs = vscode.ExtensionContext['subscriptions'];
type Log = vscode.LogOutputChannel;
type Register = (id: (typeof Commands)[keyof typeof Commands], handler: (arg: unknown) => unknown) => void;

// activate() in named steps, in the order they run; each pushes what it makes onto context.subscriptions.
export function activate(context: vscode.ExtensionContext): void {
  const subs = context.subscriptions;
  const log = vscode.window.createOutputChannel('GPU Rent', { log: true });
  subs.push(log);

  const settings = (): Settings => readSettings((k) => vscode.workspace.getConfiguration(SETTINGS_SECTION).get(k));
  const stores = openStores(context, log, settings);
  const conn = openConnections(subs, stores.store, log, settings);
  const models = openModels(context, stores, conn, log, settings);
  const views = openViews(context, stores, conn, models, log);
  const ctx = commandContext(stores, conn, models, views, log, settings);
  subs.push(conn.releases.onWillRelease(wipeBeforeRelease(ctx)));
  const monitors = startMonitors(context, ctx, models, views, log, settings);
  watchStoreAndSettings(subs, stores, conn, views, monitors, log);

  const reg = { log };
  const command: Register = (id, handler) => subs.push(registerCommand(id, handler, reg));
  registerInstanceCommands(command, ctx, monitors);
  registerViewAndGuardCommands(command, subs, ctx, stores.store, conn.releases, monitors);
  const notifyChannels = registerPlatformCommands(command, context, ctx, models, views);
  registerLaunchCommands(command, context, ctx, stores.store, models, views, notifyChannels, log);
  registerAgentToolsIfAny(context);
  log.info(`activated; ${stores.store.list().length} instances`);
}

/** The task file's diagnostics, the catalog, the state files and the instance store. */
function openStores(context: vscode.ExtensionContext, log: Log, settings: () => Settings) {
  const subs = context.subscriptions;
  // gpu-rent.yaml checked as it is typed (no YAML extension needed).
  registerTaskDiagnostics(subs);
  const catalogs = new CatalogSource(settings, log);

  // Instances, accounts, history: files on the machine the extension runs on (moved once from globalState).
  const state = openState(context, log);
  // The ledger of finished runs (issue 42) beside the state: <globalStorageUri>/runs.jsonl.
  void import('./services/ledger').then((l) => l.setLedgerHome(context.globalStorageUri.fsPath));
  subs.push({ dispose: () => void state.flush() });
  const store = new InstanceStore(state, context.secrets, now);
  if (store.loadProblem) {
    log.error(`saved instances could not be read (${store.loadProblem.kind}); kept aside under gpuRent.instances.unreadable`);
    void showError(vscode.l10n.t('GPU Rent could not read its saved instances; they were kept aside and the list starts empty.'));
  }
  return { catalogs, state, store };
}
type Stores = ReturnType<typeof openStores>;

/** The SSH pool, the sessions over it and the release events. */
function openConnections(subs: Subs, store: InstanceStore, log: Log, settings: () => Settings) {
  const pool = new SshPool();
  subs.push({ dispose: () => pool.dispose() });
  const sessions = new InstanceSessions({
    pool,
    instance: (id) => store.get(id),
    credentials: { getPassword: (id) => store.getPassword(id), savePassword: (id, pw) => store.setPassword(id, pw) },
    prompts: hostKeyPrompts(),
    settings: () => settings(),
    log: (m) => log.debug(m),
    onHostKey: (inst, e) => {
      if (e.kind === 'same-key-new-port' && e.previous) {
        log.info(`[${inst.id}] same host key as at ${e.previous.host}:${e.previous.port}, now at ${e.host}:${e.port}: pinned there too`);
        void showInfo(vscode.l10n.t('{0} answered at its new port {1} with the same host key as before ({2}): the same machine, so no need to trust it again.', inst.name, String(e.port), e.fingerprint));
      }
    },
  });
  const releases = new ReleaseEvents((m) => log.warn(m));
  subs.push(releases);
  return { pool, sessions, releases };
}
type Connections = ReturnType<typeof openConnections>;

/** The platform accounts and the models the monitors and commands write and the views read. */
function openModels(context: vscode.ExtensionContext, { catalogs, state, store }: Stores, { sessions }: Connections, log: Log, settings: () => Settings) {
  const subs = context.subscriptions;
  const accounts = new PlatformAccounts(state, context.secrets);
  if (accounts.unreadable) {
    log.error('saved platform accounts could not be read; kept aside under gpuRent.platformAccounts.unreadable');
    void showError(vscode.l10n.t('GPU Rent could not read its saved platform accounts; they were kept aside. Add them again (their secrets are still in the secret store).'));
  }
  // The models: owned here, written by the monitors and commands, read by the views, which listen to their events.
  const platformFacts = new PlatformFacts(accounts, () => store.list(), now);
  const runs = new RunWatch();
  const watching = new SyncWatching();
  const launches = new LaunchRows();
  // The GPU monitor's latest readings: the tree's GPU rows show them when newer than the last check.
  const liveGpus = new LiveGpus();
  const visibility = new ViewVisibility();
  subs.push(runs, watching, launches, visibility);
  // gpuRent.progress.pattern: the user's `progress:` pattern for plain runs, checked as the task file's is.
  subs.push(watchProgressSetting(runs));
  // Reads the accounts only while the Instances view shows (the visibility model follows the view once it exists).
  const platformMonitor = new PlatformMonitor(visibility, { store, sessions, settings, now, catalog: () => catalogs.get(), log }, platformFacts);
  subs.push(platformMonitor, vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('gpuRent.platforms') && platformMonitor.restart()));
  return { accounts, platformFacts, runs, watching, launches, liveGpus, visibility, platformMonitor };
}
type Models = ReturnType<typeof openModels>;

/** The Instances view (its tree, stock rows and stores), the guard notices, the sync watches, the doctor and the job log. */
function openViews(context: vscode.ExtensionContext, { catalogs, state, store }: Stores, { pool, sessions }: Connections, m: Models, log: Log) {
  const subs = context.subscriptions;
  // "Available now" per account: connectors from the platform monitor, read only while expanded.
  const stockView = new StockView(m.accounts, async (a) => m.platformMonitor.connector(a), now);
  const storeList = new StoreList(state, context.secrets);
  const tree = new InstancesTree({ store, catalog: () => catalogs.get(), now, language: vscode.env.language, runs: m.runs, watching: m.watching, launches: m.launches, visibility: m.visibility, connections: pool, platforms: m.platformFacts, stock: stockView, live: m.liveGpus, stores: storeList, log: (msg) => log.debug(msg) });
  const view = vscode.window.createTreeView(INSTANCES_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true, canSelectMany: true });
  subs.push(stockView, stockView.attach(view as vscode.TreeView<unknown>, (n) => ((n as { kind?: string }).kind === 'stock' ? (n as { accountId?: string }).accountId : undefined)));
  const notices = new GuardNotices(log, now);
  const watches = new SyncWatches(store, sessions, m.watching, log, now);
  const doctor = new DoctorView();
  let jobOutput: vscode.OutputChannel | undefined;
  subs.push(tree, view, m.visibility.track(view), watches, doctor, { dispose: () => jobOutput?.dispose() });
  const jobLog = () => (jobOutput ??= vscode.window.createOutputChannel(vscode.l10n.t('GPU Rent: Job Logs')));
  return { stockView, storeList, tree, view, notices, watches, doctor, jobLog };
}
type Views = ReturnType<typeof openViews>;

/** What every command gets. */
function commandContext({ catalogs, state, store }: Stores, { pool, sessions, releases }: Connections, m: Models, v: Views, log: Log, settings: () => Settings): CommandContext {
  const ctx: CommandContext = {
    store,
    pool,
    sessions,
    releases,
    catalog: () => catalogs.get(),
    settings,
    log,
    now,
    language: vscode.env.language,
    memento: state,
    runs: m.runs,
    watching: m.watching,
    platformFacts: m.platformFacts,
    launches: m.launches,
    refresh: (reason, id) => v.tree.refresh(reason, id),
    notices: v.notices,
    watches: v.watches,
    doctor: v.doctor,
    jobOutput: v.jobLog,
    platformPower: (inst) => platformPowerActions(m.platformMonitor, inst),
    platformAccount: (inst) => platformAccountFacts(m.platformMonitor, inst),
    syncCheckpoints: (arg) => syncCheckpoints(ctx, arg),
  };
  return ctx;
}

/** The status bar, the calculator and GPU monitor panels, and the monitors that poll and warn. */
function startMonitors(context: vscode.ExtensionContext, ctx: CommandContext, m: Models, v: Views, log: Log, settings: () => Settings) {
  const subs = context.subscriptions;
  const { store, sessions, memento: state } = ctx;
  const statusBar = new SpendStatusBar(store, settings, now, state, (id) => platformLabel(ctx, id), { lines: () => runLines(m.runs, now(), vscode.l10n), diverged: () => divergedCount(m.runs), onDidChange: m.runs.onDidChange });
  const calculator = new CalculatorPanel(context.extensionUri, settings, log, v.stockView, async () => (await import('./services/myRuns')).myRuns());
  const monitor = new MonitorPanel(context.extensionUri, { store, sessions, runs: m.runs, log, live: m.liveGpus });
  subs.push(monitor);
  const idle = new IdleMonitor(ctx);
  const poller = new Poller(m.visibility, ctx, idle, () => v.tree.tickFigures());
  subs.push(new DivergedMonitor(ctx, () => poller.probeNow()));
  const releaseWarnings = new ReleaseWarnings(ctx, m.platformFacts);
  subs.push(statusBar, calculator, poller, releaseWarnings);
  subs.push(new ScheduleMonitor(m.platformMonitor, log));
  return { statusBar, calculator, monitor, poller, releaseWarnings };
}
type Monitors = ReturnType<typeof startMonitors>;

/** The view's badge and context key follow the store; settings changes reach the catalog, the pool and the monitors. */
function watchStoreAndSettings(subs: Subs, { catalogs, store }: Stores, { pool }: Connections, { view }: { view: Pick<vscode.TreeView<unknown>, 'badge'> }, { statusBar, poller, releaseWarnings }: Monitors, log: Log): void {
  const setHasInstances = () => void vscode.commands.executeCommand('setContext', HAS_INSTANCES_KEY, store.list().length > 0);
  const updateBadge = () => {
    const s = summarizeSpend(store.list(), now());
    const billing = s.perInstance.filter((p) => p.burnRate > 0).length;
    view.badge = billing ? { value: billing, tooltip: vscode.l10n.t('{0} instances billing', billing) } : undefined;
  };
  setHasInstances();
  updateBadge();
  subs.push(
    // The tree listens to the store and the pool itself (tree.ts); here the view's badge and context key.
    store.onDidChange(() => {
      setHasInstances();
      updateBadge();
    }),
    pool.onDidChangeState((e) => log.debug(`[${e.key}] connection ${e.state}${e.reason ? `: ${e.reason}` : ''}`)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('gpuRent.catalog.overrides')) catalogs.reset();
      // New keepalive or timeouts apply to the next connection; a different ssh config to the next login.
      if (e.affectsConfiguration('gpuRent.connection')) pool.invalidateAll();
      if (e.affectsConfiguration('gpuRent')) {
        statusBar.update();
        poller.restart();
        releaseWarnings.check();
      }
    }),
  );
}

/** Instances, jobs and runs, sync, terminals and Remote-SSH. */
function registerInstanceCommands(command: Register, ctx: CommandContext, { monitor }: Monitors): void {
  command(Commands.addInstance, (a) => addInstance(ctx, a));
  command(Commands.editInstance, (a) => editInstance(ctx, a));
  command(Commands.removeInstance, (a) => removeInstance(ctx, a));
  command(Commands.updateLogin, (a) => updateLogin(ctx, a));
  command(Commands.importInstances, (a) => importInstances(ctx, a));
  command(Commands.exportInstances, (a) => exportInstancesTo(ctx, a));
  command(Commands.switchState, (a) => switchState(ctx, a));
  command(Commands.releaseInstance, (a) => releaseInstance(ctx, a));
  command(Commands.checkGpu, (a) => checkGpu(ctx, a));
  command(Commands.startTraining, (a) => startTraining(ctx, a));
  command(Commands.showJobs, (a) => showJobs(ctx, a));
  command(Commands.compareRuns, async () => (await import('./commands/runs/compareRuns')).compareRunsCommand(ctx));
  command(Commands.showGpuMonitor, (a) => showGpuMonitor(ctx, monitor, a));
  command(Commands.startDistributedTraining, (a, selected?: unknown) => startDistributedTraining(ctx, a, selected));
  command(Commands.syncCheckpoints, (a) => syncCheckpoints(ctx, a));
  command(Commands.uploadFolder, (a) => uploadFolder(ctx, a));
  command(Commands.watchCheckpoints, (a) => watchCheckpoints(ctx, a));
  command(Commands.stopWatching, (a) => stopWatching(ctx, a).length > 0);
  command(Commands.editSyncFolders, (a) => editSyncFolders(ctx, a));
  command(Commands.openTerminal, (a) => openTerminal(ctx, a));
  command(Commands.openInRemoteSsh, (a) => openInRemoteSsh(ctx, a));
}

/** Port forwards, the view's own commands, and the guards. */
function registerViewAndGuardCommands(command: Register, subs: Subs, ctx: CommandContext, store: InstanceStore, releases: ReleaseEvents, { statusBar, calculator, poller }: Monitors): void {
  // Forwards close with their instance (released, removed, stopped) and with the window.
  const forwards = new PortForwards(ctx, store);
  subs.push(forwards, releases.onWillRelease((e) => forwards.closeFor(e.inst.id)));
  command(Commands.openTensorBoard, (a) => openTensorBoard(ctx, forwards, a));
  command(Commands.openJupyter, (a) => openJupyter(ctx, forwards, a));
  command(Commands.forwardPort, (a) => forwardPort(ctx, forwards, a));
  command(Commands.openCalculator, (a) => openCalculator(ctx, calculator, a));
  command(Commands.refresh, () => refresh(ctx, statusBar, poller));
  command(Commands.showLog, () => showLog(ctx));
  command(Commands.getState, () => getState(ctx, statusBar, calculator));
  command(Commands.uploadToMemory, (a) => uploadToMemory(ctx, a));
  command(Commands.wipeMemoryUpload, (a) => wipeMemoryUpload(ctx, a));
  command(Commands.scanSecrets, (a) => scanSecrets(ctx, a));
  command(Commands.captureEnvironment, (a) => captureEnvironment(ctx, a));
  command(Commands.rebuildEnvironment, (a) => rebuildEnvironment(ctx, a));
  command(Commands.installWatchdog, (a) => installWatchdog(ctx, a));
  command(Commands.watchdogStatus, (a) => watchdogStatus(ctx, a));
  command(Commands.removeWatchdog, (a) => removeWatchdog(ctx, a));
}

/** Platform accounts, notify channels, storage, and the platform's power, create and clone; returns the notify channels. */
function registerPlatformCommands(command: Register, context: vscode.ExtensionContext, ctx: CommandContext, { platformFacts, platformMonitor }: Models, { stockView, storeList }: Views): NotifyChannels {
  command(Commands.addPlatformAccount, (a) => addPlatformAccount(ctx, platformMonitor, a));
  command(Commands.removePlatformAccount, (a) => removePlatformAccount(ctx, platformMonitor, a));
  const notifyChannels = new NotifyChannels(ctx.memento, context.secrets);
  command(Commands.addNotifyChannel, (a) => addNotifyChannel(notifyChannels, a));
  command(Commands.removeNotifyChannel, (a) => removeNotifyChannel(notifyChannels, a));
  command(Commands.addStorage, (a) => addStorage(storeList, a));
  command(Commands.removeStorage, (a) => removeStorage(storeList, a));
  command(Commands.refreshPlatforms, () => platformMonitor.pollNow(true).then(() => true));
  command(Commands.reviewPlatformLogin, async (a) => {
    const inst = await pickInstance(ctx, a, (i) => platformFacts.pendingLogins.has(i.id));
    if (!inst) return false;
    return platformMonitor.reviewLogin(inst.id);
  });
  command(Commands.powerOn, (a) => platformAction(ctx, platformMonitor, 'powerOn', a));
  command(Commands.powerOff, (a) => platformAction(ctx, platformMonitor, 'powerOff', a));
  command(Commands.releaseOnPlatform, (a) => platformAction(ctx, platformMonitor, 'release', a));
  command(Commands.keepAliveOnPlatform, (a) => keepAlive(ctx, platformMonitor, a));
  command(Commands.setTimedShutdown, (a) => setTimedShutdown(ctx, platformMonitor, a));
  command(Commands.powerOnWhenFree, (a) => powerOnWhenFree(ctx, platformMonitor, a));
  command(Commands.grabCard, (a) => grabCard(ctx, platformMonitor, { channels: notifyChannels, sentJournal: join(context.globalStorageUri.fsPath, 'notify-sent.jsonl'), lang: vscode.env.language.toLowerCase().startsWith('zh') ? 'zh-cn' : 'en' }, a));
  command(Commands.createInstance, (a) => createInstanceCommand(ctx, platformMonitor, a, () => stockView.readings()));
  command(Commands.cloneInstance, (a) => cloneInstanceCommand(ctx, platformMonitor, a));
  return notifyChannels;
}

/** Run Task and its report, and what follows a launch's rows and ends. */
function registerLaunchCommands(command: Register, context: vscode.ExtensionContext, ctx: CommandContext, store: InstanceStore, { launches, platformMonitor }: Models, { storeList }: Views, notifyChannels: NotifyChannels, log: Log): void {
  const subs = context.subscriptions;
  const launchReports = new LaunchReportView();
  subs.push(launchReports);
  command(Commands.runTask, (a) =>
    runTask(ctx, platformMonitor, a, {
      stores: () => storeList.stored(),
      channels: () => notifyChannels.stored(),
      sentJournal: join(context.globalStorageUri.fsPath, 'notify-sent.jsonl'),
      lang: vscode.env.language.toLowerCase().startsWith('zh') ? 'zh-cn' : 'en',
    }, context.globalStorageUri.fsPath),
  );
  command(Commands.launchStatus, (a) => showLaunchStatus(launchReports, now, a));
  subs.push(watchLaunchRows(launches, () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, awayWatch(ctx, platformMonitor, () => storeList.stored())));
  // A launch that ended or left a box changed what bills: the accounts are read again now (and once more after a poll already on its way).
  subs.push(
    followLaunchEnds(launches, (off) => {
      void platformMonitor.pollNow(true).then(() => platformMonitor.pollNow(true));
      // A manual box the launch powered off (verified: its SSH port went quiet) is recorded stopped now.
      for (const i of instancesToStop(off, store.list())) void store.switchState(i.id, 'stopped').then((r) => r.ok && log.info(`[${i.id}] recorded stopped: the launch powered it off`));
    }),
  );
}

/** Agent tools (VS Code 1.95+; nothing on an older one): gpu-rent mcp's tools, run by the bundled CLI. */
function registerAgentToolsIfAny(context: vscode.ExtensionContext): void {
  const lmApi = lmToolApi(vscode);
  if (lmApi) context.subscriptions.push(...registerAgentTools({ ...lmApi, run: bundledCli(context.asAbsolutePath('dist/cli.js'), () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath), budgetFen: () => agentBudgetFen((k) => vscode.workspace.getConfiguration(SETTINGS_SECTION).get(k)), l10n: vscode.l10n, markdown: () => new vscode.MarkdownString() }));
}

export function deactivate(): void {
  // Everything (the SSH pool included) is disposed through context.subscriptions.
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
    void showWarning(vscode.l10n.t('Your price overrides (gpuRent.catalog.overrides) are ignored: {0}', first ? `${first.path}: ${first.message}` : ''));
    return (this.cached = base);
  }
}

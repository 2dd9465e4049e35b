// The Instances view: platforms → instances → the last probe's GPUs, jobs and sync status.
// Nodes are cached by id so one instance can be refreshed without rebuilding the tree. The view
// holds no state of its own: it reads the models activate() owns (the store, the runs, the sync
// watches, the platform facts, the launch rows) and listens to their events, each turned into a
// request to its refresh scheduler (view/refresh.ts) with the reason and the element it touches.
import * as vscode from 'vscode';
import { forLabel, forMarkdown, forTerminal } from '../core/text';
import type { Catalog } from '../core/catalog';
import { contextValueOf, groupByPlatform, type Instance } from '../core/instances';
import { formatCny } from '../core/money';
import { currentState, storageUnknown, summarizeSpend } from '../core/spend';
import type { ConnectionState, SshPool } from '../app/pool';
import type { LiveGpus } from '../app/runs/liveGpus';
import type { Disposable } from '../app/events';
import { AUTODL_FS_ROOT, type Store } from '../core/storage/names';
import type { RunWatch } from '../app/runs/watch';
import type { SyncWatching } from '../app/syncWatching';
import type { LaunchRows } from '../app/launch/rows';
import { Commands } from './commandIds';
import { formatDuration, formatRateOf, instanceDescription, priceProvenance, stateLabel, stillBillingText, STATE_COLORS, STATE_ICONS } from './view/present';
import type { InstanceStore } from './store';
import type { PlatformFacts } from './monitors/platforms';
import { platformContext, platformGroupText, platformInstanceText } from './view/platformRows';
import type { StockNodeInfo, StockView } from './stockView';
import { launchRowText } from './view/launchRows';
import { connectionText, detailRows } from './view/instanceRows';
import { platformLabel } from './services/context';
import { launchKey, platformKey, RefreshScheduler, stockKey, type ElementKey, type RefreshReason } from './view/refresh';
import type { ViewVisibility } from './view/visibility';

export type Node =
  | { kind: 'platform'; platform: string }
  | { kind: 'instance'; id: string }
  | { kind: 'detail'; key: string; instanceId: string; label: string; description?: string; icon: string; tooltip?: string; command?: vscode.Command }
  /** An account's "Available now": the cards free per region (stockView.ts), read only while expanded. */
  | { kind: 'stock'; platform: string; accountId: string }
  | ({ kind: 'stockRow'; accountId: string } & StockNodeInfo)
  /** A launch this window drives (Run Task on a Rented GPU…), at the top while it runs. */
  | { kind: 'launch'; key: string }
  /** The stores (Add Storage…), at the bottom once there is one; a row each (never a key). */
  | { kind: 'stores' }
  | { kind: 'storeRow'; name: string };

/** What the tree shows, owned by activate(); the tree only reads them and listens. */
export interface TreeModels {
  store: InstanceStore;
  catalog: () => Catalog;
  now: () => number;
  language: string;
  /** Running jobs' progress read from their logs (updated by the poll in services/probe.ts). */
  runs: RunWatch;
  /** Instances whose checkpoint folder is being watched (monitors/syncWatches.ts). */
  watching: SyncWatching;
  /** Launches in progress (commands/launch). */
  launches: LaunchRows;
  /** The Instances view's visibility: refreshes are delivered only while it shows. */
  visibility: ViewVisibility;
  connections?: Pick<SshPool, 'state' | 'onDidChangeState'>;
  platforms?: PlatformFacts;
  stock?: StockView;
  /** The GPU monitor's latest readings (the GPU rows show them when newer than the last check). */
  live?: LiveGpus;
  /** Debug log of each refresh and its reasons. */
  log?: (line: string) => void;
  /** The stores a task names in checkpoints.store / data.from (extension/storeList.ts). */
  stores?: { list(): readonly Store[]; onDidChange: (listener: () => void) => Disposable };
}

export class InstancesTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | Node[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly instanceNodes = new Map<string, Node & { kind: 'instance' }>();
  private readonly platformNodes = new Map<string, Node & { kind: 'platform' }>();
  /** The one way this view is refreshed: debounced, coalesced, only while visible, each with its reason. */
  readonly refresher: RefreshScheduler;
  /** Each platform group's description as last drawn: the figures tick redraws a group only when it changed. */
  private readonly platformText = new Map<string, string>();
  private readonly subs: Disposable[] = [];
  private readonly store: InstanceStore;
  private readonly catalog: () => Catalog;
  private readonly now: () => number;
  private readonly language: string;
  private readonly runs: RunWatch;
  private readonly watching: SyncWatching;
  private readonly launches: LaunchRows;
  private readonly platforms: PlatformFacts | undefined;
  private readonly stock: StockView | undefined;
  private readonly live: LiveGpus | undefined;
  private readonly stores: TreeModels['stores'];
  private readonly storesNode: Node & { kind: 'stores' } = { kind: 'stores' };
  private readonly connection: (id: string) => ConnectionState | undefined;

  constructor(m: TreeModels) {
    this.store = m.store;
    this.catalog = m.catalog;
    this.now = m.now;
    this.language = m.language;
    this.runs = m.runs;
    this.watching = m.watching;
    this.launches = m.launches;
    this.platforms = m.platforms;
    this.stock = m.stock;
    this.live = m.live;
    this.stores = m.stores;
    const pool = m.connections;
    this.connection = pool ? (id) => pool.state(id) : () => undefined;
    const refresher = (this.refresher = new RefreshScheduler({ fire: (keys) => this.deliver(keys), visible: m.visibility.visible, ...(m.log ? { log: m.log } : {}) }));
    const request = (reason: RefreshReason, key?: ElementKey) => refresher.request(reason, key);
    this.subs.push(
      m.visibility.onDidChangeVisibility((v) => refresher.setVisible(v)),
      // One instance changed → its node; several → those nodes; added or removed → the whole tree.
      this.store.onDidChange((ids) => (ids && ids.length ? ids.forEach((id) => request('store', id)) : request('store'))),
      m.runs.onDidChange((id) => request('runs', id)),
      m.watching.onDidChange((id) => request('sync-watch', id)),
      m.launches.onDidChange((c) => request('launch', c.kind === 'updated' ? launchKey(c.key) : undefined)),
      ...(pool ? [pool.onDidChangeState((e) => request('connection', e.key))] : []),
      ...(m.platforms ? [m.platforms.onDidChange((id) => request('platforms', id))] : []),
      ...(m.stores ? [m.stores.onDidChange(() => request('stores'))] : []),
      // An account's rows read while its node is not shown need no redraw.
      ...(m.stock ? [m.stock.onDidChange((accountId) => this.stockNodes.has(accountId) && request('stock', stockKey(accountId)))] : []),
    );
  }

  /** Asks for a refresh (commands with no model to change: the user's Refresh, a power action's end). */
  refresh(reason: RefreshReason, id?: string): void {
    this.refresher.request(reason, id);
  }

  /**
   * The periodic figures refresh (while the view shows): only the rows whose figures move on their
   * own, billing instances (spend, countdowns) and launch rows (spent so far), and a platform
   * group only when its total's text changed, never the whole tree.
   */
  tickFigures(): void {
    const now = this.now();
    const spend = summarizeSpend(this.store.list(), now);
    const billingPlatforms = new Set<string>();
    // Rows never drawn (under a group never expanded) have nothing to redraw.
    for (const p of spend.perInstance) {
      if (p.burnRate <= 0) continue;
      billingPlatforms.add(p.platform);
      if (this.instanceNodes.has(p.id)) this.refresher.request('figures', p.id);
    }
    for (const key of this.launches.keys()) if (this.launchNodes.has(key)) this.refresher.request('figures', launchKey(key));
    for (const platform of billingPlatforms) {
      const drawn = this.platformText.get(platform);
      if (drawn !== undefined && drawn !== this.platformDescription(platform, now)) this.refresher.request('figures', platformKey(platform));
    }
  }

  /** The scheduler's delivery: the nodes of these keys, or the whole tree (also when a key has no node yet). */
  private deliver(keys: readonly ElementKey[] | undefined): void {
    if (!keys) return this.changed.fire(undefined);
    const nodes: Node[] = [];
    for (const k of keys) {
      const n = this.nodeOf(k);
      if (!n) return this.changed.fire(undefined);
      nodes.push(n);
    }
    this.changed.fire(nodes.length === 1 ? nodes[0] : nodes);
  }

  private nodeOf(key: ElementKey): Node | undefined {
    const colon = key.indexOf(':');
    if (colon < 0) return this.instanceNodes.get(key);
    const kind = key.slice(0, colon);
    const rest = key.slice(colon + 1);
    if (kind === 'platform') return this.platformNodes.get(rest);
    if (kind === 'launch') return this.launchNodes.get(rest);
    if (kind === 'stock') return this.stockNodes.get(rest);
    return undefined;
  }

  private readonly stockNodes = new Map<string, Node & { kind: 'stock' }>();

  private stockNode(platform: string, accountId: string): Node & { kind: 'stock' } {
    let n = this.stockNodes.get(accountId);
    if (!n || n.platform !== platform) this.stockNodes.set(accountId, (n = { kind: 'stock', platform, accountId }));
    return n;
  }

  private readonly launchNodes = new Map<string, Node & { kind: 'launch' }>();

  private launchNode(key: string): Node & { kind: 'launch' } {
    let n = this.launchNodes.get(key);
    if (!n) this.launchNodes.set(key, (n = { kind: 'launch', key }));
    return n;
  }

  platformName(id: string): string {
    return platformLabel({ catalog: this.catalog, language: this.language }, id);
  }

  private instanceNode(id: string): Node & { kind: 'instance' } {
    let n = this.instanceNodes.get(id);
    if (!n) this.instanceNodes.set(id, (n = { kind: 'instance', id }));
    return n;
  }

  private platformNode(platform: string): Node & { kind: 'platform' } {
    let n = this.platformNodes.get(platform);
    if (!n) this.platformNodes.set(platform, (n = { kind: 'platform', platform }));
    return n;
  }

  getChildren(node?: Node): Node[] | Promise<Node[]> {
    const instances = this.store.list();
    if (!node) {
      const keys = this.launches.keys();
      for (const k of [...this.launchNodes.keys()]) if (!keys.includes(k)) this.launchNodes.delete(k);
      return [...keys.map((k) => this.launchNode(k)), ...groupByPlatform(instances).map((g) => this.platformNode(g.platform)), ...(this.stores?.list().length ? [this.storesNode] : [])];
    }
    if (node.kind === 'platform') return [...instances.filter((i) => i.platform === node.platform).map((i) => this.instanceNode(i.id)), ...(this.stock?.accountsOf(node.platform) ?? []).map((a) => this.stockNode(node.platform, a.id))];
    if (node.kind === 'stock') return this.stock ? this.stock.children(node.accountId).then((rows) => rows.map((r) => ({ kind: 'stockRow' as const, accountId: node.accountId, ...r }))) : [];
    if (node.kind === 'instance') {
      const inst = this.store.get(node.id);
      return inst ? this.details(inst) : [];
    }
    if (node.kind === 'stores') return (this.stores?.list() ?? []).map((s) => ({ kind: 'storeRow' as const, name: s.name }));
    return [];
  }

  getParent(node: Node): Node | undefined {
    if (node.kind === 'instance') {
      const inst = this.store.get(node.id);
      return inst ? this.platformNode(inst.platform) : undefined;
    }
    if (node.kind === 'detail') return this.instanceNode(node.instanceId);
    if (node.kind === 'stock') return this.platformNode(node.platform);
    if (node.kind === 'stockRow') return this.stockNodes.get(node.accountId);
    if (node.kind === 'storeRow') return this.storesNode;
    return undefined;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'stores') {
      const item = new vscode.TreeItem(vscode.l10n.t('Storage'), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = 'stores';
      item.contextValue = 'stores';
      item.iconPath = new vscode.ThemeIcon('database');
      item.tooltip = vscode.l10n.t('Stores for checkpoints and data: a task names one as NAME/PREFIX in checkpoints.store or data.from. The box gets a grant for its run, never the key.');
      return item;
    }
    if (node.kind === 'storeRow') {
      const s = this.stores?.list().find((x) => x.name === node.name);
      const item = new vscode.TreeItem(forLabel(node.name), vscode.TreeItemCollapsibleState.None);
      item.id = `store:${node.name}`;
      item.contextValue = `store:${s?.kind ?? 'gone'}`;
      item.iconPath = new vscode.ThemeIcon(s?.kind === 'autodl-fs' ? 'folder' : 'database');
      item.description = forLabel(s ? (s.kind === 's3' ? `${s.bucket} · ${s.endpoint.replace(/^https?:\/\//, '')}` : AUTODL_FS_ROOT) : '', 300);
      return item;
    }
    if (node.kind === 'platform') {
      const now = this.now();
      const item = new vscode.TreeItem(this.platformName(node.platform), vscode.TreeItemCollapsibleState.Expanded);
      item.id = platformKey(node.platform);
      item.contextValue = 'platform';
      item.iconPath = new vscode.ThemeIcon('server-environment');
      const description = this.platformDescription(node.platform, now);
      item.description = description;
      this.platformText.set(node.platform, description);
      const pf = this.platforms && platformGroupText(this.platforms, node.platform, now);
      if (pf) {
        item.tooltip = pf.tooltip;
        if (pf.warning) item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
      }
      return item;
    }
    if (node.kind === 'instance') {
      const inst = this.store.get(node.id);
      if (!inst) return new vscode.TreeItem(node.id);
      const spend = summarizeSpend([inst], this.now()).perInstance[0]!;
      const state = spend.state ?? 'released';
      const item = new vscode.TreeItem(forLabel(inst.name), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `instance:${inst.id}`;
      item.contextValue = contextValueOf(inst) + (this.watching.has(inst.id) ? ':watching' : '') + (this.platforms ? platformContext(this.platforms, inst) : '');
      const pi = this.platforms && platformInstanceText(this.platforms, inst, this.now());
      item.iconPath = new vscode.ThemeIcon(STATE_ICONS[state], new vscode.ThemeColor(STATE_COLORS[state]));
      const conn = this.connection(inst.id);
      const link = connectionText(conn, vscode.l10n);
      const billing = stillBillingText(inst, this.now(), vscode.l10n);
      if (billing) item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.errorForeground'));
      else if ((inst.jobs ?? []).some((j) => j.state !== 'exited' && this.runs.get(inst.id, j.id)?.progress.diverged)) item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
      item.description = forLabel([billing?.description, instanceDescription(inst, spend, vscode.l10n), link, pi?.description].filter(Boolean).join(' · '), 300);
      const tip = new vscode.MarkdownString(undefined, true);
      tip.appendMarkdown(`**${forMarkdown(inst.name)}** — ${forMarkdown(this.platformName(inst.platform))}\n\n`);
      tip.appendMarkdown(`${stateLabel(state, vscode.l10n)} · ${vscode.l10n.t('for {0}', formatDuration(spend.secondsInState, vscode.l10n))}\n\n`);
      tip.appendMarkdown(`${forMarkdown(inst.card)} ×${inst.gpuCount} · ${forMarkdown(formatRateOf(spend.burnRate, storageUnknown(inst.pricing, currentState(inst.intervals)), vscode.l10n))}\n\n`);
      if (billing) tip.appendText(`⚠ ${billing.tooltip}\n\n`);
      if (link) tip.appendMarkdown(`${link}\n\n`);
      if (pi) tip.appendText(`${pi.tooltip}\n\n`);
      const seen = this.platforms?.observations.get(inst.id);
      tip.appendText(priceProvenance(inst, this.catalog(), vscode.l10n, seen?.priceFenPerHour !== undefined && seen.priceReadAt !== undefined ? { fenPerHour: seen.priceFenPerHour, readAt: seen.priceReadAt } : undefined));
      tip.appendMarkdown('\n\n');
      tip.appendMarkdown(vscode.l10n.t('Accrued: {0} (today {1}, this month {2})', formatCny(spend.totalFen), formatCny(spend.todayFen), formatCny(spend.monthFen)) + '\n\n');
      // As code, so user@host is not turned into a mail link; backticks cannot occur in a login but are dropped anyway.
      tip.appendMarkdown('`' + `ssh -p ${inst.login.port} ${inst.login.user}@${inst.login.host}`.replace(/`/g, '') + '`');
      item.tooltip = tip;
      item.accessibilityInformation = { label: `${inst.name}, ${stateLabel(state, vscode.l10n)}, ${item.description}` };
      return item;
    }
    if (node.kind === 'launch') {
      const state = this.launches.get(node.key);
      const t = state ? launchRowText(state, this.now(), vscode.l10n, this.launches.away(node.key)) : { label: node.key, description: '', tooltip: '' };
      const item = new vscode.TreeItem(forLabel(t.label), vscode.TreeItemCollapsibleState.None);
      item.id = launchKey(node.key);
      item.contextValue = 'launch';
      item.iconPath = new vscode.ThemeIcon('rocket');
      item.description = forLabel(t.description, 300);
      item.tooltip = forTerminal(t.tooltip.slice(0, 2000), { keep: '\n' });
      item.command = { command: Commands.launchStatus, title: vscode.l10n.t('Launch Status'), arguments: state ? [vscode.Uri.file(state.file)] : [] };
      return item;
    }
    if (node.kind === 'stock') {
      const item = new vscode.TreeItem(vscode.l10n.t('Available now'), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = stockKey(node.accountId);
      item.contextValue = 'stock';
      item.iconPath = new vscode.ThemeIcon('pulse');
      item.description = forLabel(this.platforms?.accounts.get(node.accountId)?.label ?? node.accountId);
      item.tooltip = vscode.l10n.t('Free cards per region with the price per hour, read from the platform only while this is open, at most once a minute.');
      return item;
    }
    if (node.kind === 'stockRow') {
      // Platform text (card and region names, error messages): plain labels, one line each.
      const item = new vscode.TreeItem(forLabel(node.label), vscode.TreeItemCollapsibleState.None);
      item.id = `stock:${node.accountId}:${node.key}`;
      item.contextValue = 'stockRow';
      item.iconPath = new vscode.ThemeIcon(node.icon, node.iconColor ? new vscode.ThemeColor(node.iconColor) : undefined);
      if (node.description) item.description = forLabel(node.description, 300);
      if (node.tooltip) item.tooltip = forTerminal(node.tooltip.slice(0, 2000));
      return item;
    }
    // Detail rows carry box text (GPU names, job ids and commands, sync errors): plain labels, one line each.
    const item = new vscode.TreeItem(forLabel(node.label), vscode.TreeItemCollapsibleState.None);
    item.id = `detail:${node.instanceId}:${node.key}`;
    item.contextValue = `detail:${node.key.split(':')[0]}${node.key === 'sync' && this.watching.has(node.instanceId) ? ':watching' : ''}`;
    item.iconPath = new vscode.ThemeIcon(node.icon);
    if (node.description) item.description = forLabel(node.description, 300);
    if (node.tooltip) item.tooltip = forTerminal(node.tooltip.slice(0, 4000), { keep: '\n' });
    if (node.command) item.command = node.command;
    return item;
  }

  private details(inst: Instance): Node[] {
    return detailRows(inst, { now: this.now(), runs: this.runs, watching: this.watching.has(inst.id), ...(this.live ? { live: this.live } : {}) }, vscode.l10n).map((r) => {
      const { command, ...row } = r;
      const node: Node & { kind: 'detail' } = { ...row, kind: 'detail', instanceId: inst.id };
      if (command) node.command = { command: Commands[command.command], title: command.title, arguments: [command.onRow ? node : { kind: 'instance', id: inst.id }] };
      return node;
    });
  }

  /** A platform group's description: this month's spend and the burn rate, then what the platform says. */
  private platformDescription(platform: string, now: number): string {
    const mine = this.store.list().filter((i) => i.platform === platform);
    const s = summarizeSpend(mine, now);
    const pf = this.platforms && platformGroupText(this.platforms, platform, now);
    // A disk of unknown size in the group: its rate says `?` (issue 41 bug 5).
    const unknown = mine.some((i) => storageUnknown(i.pricing, currentState(i.intervals)));
    return vscode.l10n.t('{0} this month · {1}', formatCny(s.monthFen), formatRateOf(s.burnRate, unknown, vscode.l10n)) + (pf ? ` · ${pf.description}` : '');
  }

  dispose(): void {
    this.refresher.dispose();
    this.subs.forEach((d) => d.dispose());
    this.changed.dispose();
  }
}

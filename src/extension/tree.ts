// The Instances view: platforms → instances → the last probe's GPUs, jobs and sync status.
// Nodes are cached by id so one instance can be refreshed without rebuilding the tree.
import * as vscode from 'vscode';
import { forLabel, forMarkdown, forTerminal } from '../core/text';
import { findPlatform, type Catalog } from '../core/catalog';
import { contextValueOf, groupByPlatform, type Instance } from '../core/instances';
import { formatCny } from '../core/money';
import { burnRateFenPerHour, summarizeSpend } from '../core/spend';
import type { ConnectionState } from '../app/pool';
import { RunWatch } from '../app/runs/watch';
import { progressText } from './commands/runs/text';
import { Commands } from './commandIds';
import { formatDuration, formatRate, instanceDescription, priceProvenance, stateLabel, stillBillingText, STATE_COLORS, STATE_ICONS } from './present';
import type { InstanceStore } from './store';
import type { PlatformFacts } from './monitors/platforms';
import { platformContext, platformGroupText, platformInstanceText } from './commands/platforms/treeText';
import type { StockNodeInfo, StockView } from './stockView';
import type { LaunchState } from '../core/task/launch';
import { launchRowText } from './commands/launch/treeText';

export type Node =
  | { kind: 'platform'; platform: string }
  | { kind: 'instance'; id: string }
  | { kind: 'detail'; key: string; instanceId: string; label: string; description?: string; icon: string; tooltip?: string; command?: vscode.Command }
  /** An account's "Available now": the cards free per region (stockView.ts), read only while expanded. */
  | { kind: 'stock'; platform: string; accountId: string }
  | ({ kind: 'stockRow'; accountId: string } & StockNodeInfo)
  /** A launch this window drives (Run Task on a Rented GPU…), at the top while it runs. */
  | { kind: 'launch'; key: string };

const GIB = 1024 ** 3;

export class InstancesTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly instanceNodes = new Map<string, Node & { kind: 'instance' }>();
  private readonly platformNodes = new Map<string, Node & { kind: 'platform' }>();
  /** Instance ids whose checkpoint folder is being watched (set by the sync commands). */
  readonly watching = new Set<string>();
  /** Running jobs' progress read from their logs (updated by the poll in commands/remote/probe.ts). */
  readonly runs = new RunWatch();

  constructor(
    private readonly store: InstanceStore,
    private readonly catalog: () => Catalog,
    private readonly now: () => number,
    private readonly language: string,
    private readonly connection: (id: string) => ConnectionState | undefined = () => undefined,
    private readonly platforms?: PlatformFacts,
    private readonly stock?: StockView,
  ) {
    stock?.onDidChange((accountId) => {
      const n = this.stockNodes.get(accountId);
      if (n) this.changed.fire(n);
    });
  }

  private readonly stockNodes = new Map<string, Node & { kind: 'stock' }>();

  private stockNode(platform: string, accountId: string): Node & { kind: 'stock' } {
    let n = this.stockNodes.get(accountId);
    if (!n || n.platform !== platform) this.stockNodes.set(accountId, (n = { kind: 'stock', platform, accountId }));
    return n;
  }

  private readonly launchNodes = new Map<string, { node: Node & { kind: 'launch' }; state: LaunchState }>();

  /** The launch's row: shown (or updated) with its state, removed with undefined. */
  setLaunch(key: string, state: LaunchState | undefined): void {
    const had = this.launchNodes.get(key);
    if (state) this.launchNodes.set(key, { node: had?.node ?? { kind: 'launch', key }, state });
    else this.launchNodes.delete(key);
    this.changed.fire(had && state ? had.node : undefined);
  }

  /** Refresh one instance (its node and children), or everything. */
  refresh(id?: string): void {
    const node = id ? this.instanceNodes.get(id) : undefined;
    this.changed.fire(node);
  }

  platformName(id: string): string {
    const p = findPlatform(this.catalog(), id);
    if (!p) return id;
    return this.language.startsWith('zh') ? p.name.zh : p.name.en;
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
    if (!node) return [...[...this.launchNodes.values()].map((l) => l.node), ...groupByPlatform(instances).map((g) => this.platformNode(g.platform))];
    if (node.kind === 'platform') return [...instances.filter((i) => i.platform === node.platform).map((i) => this.instanceNode(i.id)), ...(this.stock?.accountsOf(node.platform) ?? []).map((a) => this.stockNode(node.platform, a.id))];
    if (node.kind === 'stock') return this.stock ? this.stock.children(node.accountId).then((rows) => rows.map((r) => ({ kind: 'stockRow' as const, accountId: node.accountId, ...r }))) : [];
    if (node.kind === 'instance') {
      const inst = this.store.get(node.id);
      return inst ? this.details(inst) : [];
    }
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
    return undefined;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'platform') {
      const list = this.store.list().filter((i) => i.platform === node.platform);
      const s = summarizeSpend(list, this.now());
      const item = new vscode.TreeItem(this.platformName(node.platform), vscode.TreeItemCollapsibleState.Expanded);
      item.id = `platform:${node.platform}`;
      item.contextValue = 'platform';
      item.iconPath = new vscode.ThemeIcon('server-environment');
      item.description = vscode.l10n.t('{0} this month · {1}', formatCny(s.monthFen), formatRate(s.burnRate, vscode.l10n));
      const pf = this.platforms && platformGroupText(this.platforms, node.platform, this.now());
      if (pf) {
        item.description += ` · ${pf.description}`;
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
      const link = conn === 'reconnecting' ? vscode.l10n.t('reconnecting…') : conn === 'lost' ? vscode.l10n.t('connection lost') : conn === 'connecting' ? vscode.l10n.t('connecting…') : '';
      const billing = stillBillingText(inst, this.now(), vscode.l10n);
      if (billing) item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.errorForeground'));
      else if ((inst.jobs ?? []).some((j) => j.state !== 'exited' && this.runs.get(inst.id, j.id)?.progress.diverged)) item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
      item.description = forLabel([billing?.description, instanceDescription(inst, spend, vscode.l10n), link, pi?.description].filter(Boolean).join(' · '), 300);
      const tip = new vscode.MarkdownString(undefined, true);
      tip.appendMarkdown(`**${forMarkdown(inst.name)}** — ${forMarkdown(this.platformName(inst.platform))}\n\n`);
      tip.appendMarkdown(`${stateLabel(state, vscode.l10n)} · ${vscode.l10n.t('for {0}', formatDuration(spend.secondsInState, vscode.l10n))}\n\n`);
      tip.appendMarkdown(`${forMarkdown(inst.card)} ×${inst.gpuCount} · ${formatRate(spend.burnRate, vscode.l10n)}\n\n`);
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
      const l = this.launchNodes.get(node.key);
      const t = l ? launchRowText(l.state, this.now(), vscode.l10n) : { label: node.key, description: '', tooltip: '' };
      const item = new vscode.TreeItem(forLabel(t.label), vscode.TreeItemCollapsibleState.None);
      item.id = `launch:${node.key}`;
      item.contextValue = 'launch';
      item.iconPath = new vscode.ThemeIcon('rocket');
      item.description = forLabel(t.description, 300);
      item.tooltip = forTerminal(t.tooltip.slice(0, 2000), { keep: '\n' });
      item.command = { command: Commands.launchStatus, title: vscode.l10n.t('Launch Status'), arguments: l ? [vscode.Uri.file(l.state.file)] : [] };
      return item;
    }
    if (node.kind === 'stock') {
      const item = new vscode.TreeItem(vscode.l10n.t('Available now'), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `stock:${node.accountId}`;
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
    const out: Node[] = [];
    const base = { instanceId: inst.id };
    const probe = inst.lastProbe;
    if (probe && probe.gpus.length > 0) {
      const age = formatDuration(this.now() - probe.at, vscode.l10n);
      for (const g of probe.gpus) {
        const mem = g.memoryTotalBytes !== undefined ? `${((g.memoryUsedBytes ?? 0) / GIB).toFixed(1)} / ${(g.memoryTotalBytes / GIB).toFixed(1)} GiB` : '';
        const util = g.utilizationPct !== undefined ? `${Math.round(g.utilizationPct)}%` : '';
        out.push({ ...base, kind: 'detail', key: `gpu:${g.index}`, label: `GPU ${g.index}: ${g.name}`, description: [mem, util].filter(Boolean).join(' · '), icon: 'circuit-board', tooltip: vscode.l10n.t('Probed {0} ago', age) });
      }
    } else {
      out.push({ ...base, kind: 'detail', key: 'gpu:none', label: probe ? vscode.l10n.t('No GPU visible in the last probe') : vscode.l10n.t('Not checked yet'), icon: probe ? 'warning' : 'question', command: { command: Commands.checkGpu, title: vscode.l10n.t('Check GPU'), arguments: [{ kind: 'instance', id: inst.id }] } });
    }
    for (const j of inst.jobs ?? []) {
      const exited = j.state === 'exited';
      const status = exited ? (j.exitCode === 0 ? vscode.l10n.t('finished') : vscode.l10n.t('exited with {0}', String(j.exitCode ?? '?'))) : j.state === 'running' ? vscode.l10n.t('running') : '';
      const icon = exited ? (j.exitCode === 0 ? 'pass' : 'error') : 'run';
      const when = exited && j.endedAt ? vscode.l10n.t('ended {0} ago', formatDuration(Math.max(0, this.now() - j.endedAt), vscode.l10n)) : vscode.l10n.t('started {0} ago', formatDuration(Math.max(0, this.now() - j.startedAt), vscode.l10n));
      const run = !exited ? this.runs.get(inst.id, j.id) : undefined;
      // A diverged run burns the instance's whole rate (the spend code's burn rate) for nothing.
      const burning = run?.progress.diverged ? burnRateFenPerHour(inst.intervals) : null;
      const progress = run ? progressText(run.progress, this.runs.finish(run, this.now()), vscode.l10n, undefined, this.runs.lastSeen(run, this.now()), burning) : '';
      const diverged = !!run?.progress.diverged;
      const node: Node = { ...base, kind: 'detail', key: `job:${j.id}`, label: j.id, description: [progress || status, j.command].filter(Boolean).join(' · '), icon: diverged ? 'warning' : icon, tooltip: [j.command, when, progress, diverged ? vscode.l10n.t('The training loss is not a number: the run has diverged and every hour from here is paid for nothing.') : ''].filter(Boolean).join('\n') };
      node.command = { command: Commands.showJobs, title: vscode.l10n.t('Jobs and Logs'), arguments: [node] };
      out.push(node);
    }
    if (inst.sync) {
      const when = inst.sync.lastSyncAt ? vscode.l10n.t('synced {0} ago', formatDuration(this.now() - inst.sync.lastSyncAt, vscode.l10n)) : vscode.l10n.t('never synced');
      const pending = inst.sync.unsynced ? vscode.l10n.t('{0} not yet copied', inst.sync.unsynced) : '';
      out.push({ ...base, kind: 'detail', key: 'sync', label: vscode.l10n.t('Checkpoints'), description: [when, pending, this.watching.has(inst.id) ? vscode.l10n.t('watching') : ''].filter(Boolean).join(' · '), icon: inst.sync.lastError ? 'error' : 'sync', tooltip: [`${inst.sync.remoteDir} → ${inst.sync.localDir}`, inst.sync.lastError].filter(Boolean).join('\n') });
    }
    return out;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

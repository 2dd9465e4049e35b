// The tree's "Available now" node under each platform, one per connected account with a stock
// read: the cards free now per region with the price per hour (`?` where the platform sends
// none). Read only while the node is expanded and the view is visible, at most once a minute
// per account (app/platforms/stockCache.ts' StockCache over a memory store), and again each minute
// while it stays open.
import * as vscode from 'vscode';
import type { Account } from '../app/platforms/accounts';
import { hasStock } from '../app/platforms/stock';
import { MemoryStockStore, StockCache } from '../app/platforms/stockCache';
import { formatCny } from '../core/money';
import { freeText, sortStock, STOCK_TTL_S, type StockRow } from '../core/platforms/stock';
import { descriptorOf } from '../core/platforms/descriptors';
import { CATALOG_PLATFORM, type Connector } from '../core/platforms/types';
import { beijingDateTime } from '../core/spend';
import type { StockReading } from '../core/startNow';
import type { PlatformAccounts } from './services/accountStore';
import { platformErrorText } from './words/platforms';

/** The most rows one account's node shows (free first). */
const MAX_SHOWN = 60;

export interface StockNodeInfo {
  key: string;
  label: string;
  description?: string;
  icon: string;
  iconColor?: string;
  tooltip?: string;
}

export class StockView implements vscode.Disposable {
  private readonly cache: StockCache;
  private readonly open = new Set<string>();
  private readonly changed = new vscode.EventEmitter<string>();
  readonly onDidChange = this.changed.event;
  private timer: ReturnType<typeof setInterval> | undefined;
  private visible = true;

  constructor(
    private readonly accounts: PlatformAccounts,
    private readonly connector: (a: Account) => Promise<Connector | undefined>,
    now: () => number,
  ) {
    this.cache = new StockCache(new MemoryStockStore(), now);
  }

  /** The connected accounts of a catalog platform whose connector reads stock. */
  accountsOf(platform: string): Account[] {
    return this.accounts.list().filter((a) => CATALOG_PLATFORM[a.kind] === platform);
  }

  /** Tracks the view (call from the tree view's expand, collapse and visibility events). */
  attach(view: vscode.TreeView<unknown>, accountOf: (node: unknown) => string | undefined): vscode.Disposable {
    this.visible = view.visible;
    const subs = [
      view.onDidExpandElement((e) => {
        const id = accountOf(e.element);
        if (id) this.open.add(id);
        this.schedule();
      }),
      view.onDidCollapseElement((e) => {
        const id = accountOf(e.element);
        if (id) this.open.delete(id);
        this.schedule();
      }),
      view.onDidChangeVisibility((e) => {
        this.visible = e.visible;
        this.schedule();
      }),
    ];
    return { dispose: () => subs.forEach((s) => s.dispose()) };
  }

  private schedule(): void {
    const want = this.visible && this.open.size > 0;
    if (want && !this.timer) this.timer = setInterval(() => this.open.forEach((id) => this.changed.fire(id)), STOCK_TTL_S * 1000);
    if (!want && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Calls `l` when an account is added or removed (the calculator re-says whether it can ask). */
  onAccountsChanged(l: () => void): vscode.Disposable {
    const d = this.accounts.onDidChange(l);
    return { dispose: () => d.dispose() };
  }

  /** Whether any account is connected (every connector reads stock): the calculator asks only then. */
  hasAccounts(): boolean {
    return this.accounts.list().length > 0;
  }

  /**
   * Every connected account's stock through the same once-a-minute cache as the tree (the
   * calculator's start-now marks): a read that fails is a failed reading, not an error.
   */
  async readings(): Promise<StockReading[]> {
    const out = await Promise.all(
      this.accounts.list().map(async (a): Promise<StockReading | undefined> => {
        try {
          const c = await this.connector(a);
          if (!c || !hasStock(c)) return undefined;
          return { account: a.id, kind: a.kind, ok: true, rows: await this.cache.read(a, c) };
        } catch {
          return { account: a.id, kind: a.kind, ok: false };
        }
      }),
    );
    return out.filter((r): r is StockReading => r !== undefined);
  }

  /** The rows under an account's node: the free cards (then sold out), or one line saying why there are none. */
  async children(accountId: string): Promise<StockNodeInfo[]> {
    const a = this.accounts.get(accountId);
    if (!a) return [];
    this.open.add(accountId);
    this.schedule();
    let rows: StockRow[];
    try {
      const c = await this.connector(a);
      if (!c || !hasStock(c)) return [{ key: 'none', label: vscode.l10n.t('This platform does not say which cards are free'), icon: 'info' }];
      rows = sortStock(await this.cache.read(a, c));
    } catch (e) {
      return [{ key: 'error', label: vscode.l10n.t('Could not read the free cards'), description: platformErrorText(e), icon: 'warning', iconColor: 'list.warningForeground', tooltip: platformErrorText(e) }];
    }
    if (!rows.length) return [{ key: 'empty', label: descriptorOf(a.kind).stockRegionsFromInstances ? vscode.l10n.t('No stock read: no instance of this account names a region yet') : vscode.l10n.t('No GPU types listed'), icon: 'info' }];
    const shown = rows.slice(0, MAX_SHOWN).map((r, i): StockNodeInfo => {
      const price = r.priceFenPerHour !== undefined ? vscode.l10n.t('{0}/h', formatCny(r.priceFenPerHour)) : vscode.l10n.t('price ?');
      const free = r.status === 'free' ? (r.free !== undefined ? vscode.l10n.t('{0} free', freeText(r)) : vscode.l10n.t('available')) : r.status === 'soldOut' ? vscode.l10n.t('sold out') : vscode.l10n.t('free ?');
      const where = r.zone ? `${r.region} · ${r.zone}` : r.region;
      return {
        key: `${i}:${r.card}:${r.region}:${r.zone ?? ''}`,
        // The card as the platform names it; AutoDL's pool: its Pro spec where a source maps the name.
        label: r.proSpec ? `${r.card} (Pro ${r.proSpec})` : r.card,
        description: `${where} · ${free} · ${price}`,
        icon: r.status === 'free' ? 'pass' : r.status === 'soldOut' ? 'circle-slash' : 'question',
        ...(r.status === 'free' ? { iconColor: 'testing.iconPassed' } : {}),
        tooltip: vscode.l10n.t('{0} in {1}: {2}, {3}. Read {4} from the platform; read again at most once a minute while this is open.', r.card, where, free, price, vscode.l10n.t('{0} (Beijing time)', beijingDateTime(r.readAt).slice(11))),
      };
    });
    if (rows.length > MAX_SHOWN) shown.push({ key: 'more', label: vscode.l10n.t('{0} more (gpu-rent stock lists them all)', rows.length - MAX_SHOWN), icon: 'ellipsis' });
    return shown;
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.changed.dispose();
  }
}

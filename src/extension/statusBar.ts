// Live spend in the status bar: today, this month, the burn rate. Ticks every second while
// anything bills, otherwise only on change; hidden with no instances or by setting. Budget
// warnings (80 %, 100 %) pop up once per level per Beijing month. It listens to the store and to
// the runs model (a run's progress read, a run diverged or ended) and reads them; it owns nothing.
import * as vscode from 'vscode';
import { showError, showWarning } from './notify';
import { forMarkdown } from '../core/text';
import { formatCny } from '../core/money';
import { summarizeSpend, type SpendSummary } from '../core/spend';
import { Commands, STATUS_BAR_ID } from './commandIds';
import { budgetNotice, statusBarAccessibility, statusBarText, tooltipMarkdown, type BudgetMemo } from './view/present';
import type { Settings } from './settings';
import type { InstanceStore } from './store';
import type { Event } from '../app/events';
import { readState, StateKeys, writeState } from './stateKeys';

/** The running jobs as the status bar shows them (over the runs model, app/runs/watch.ts). */
export interface StatusBarRuns {
  /** Progress lines for the tooltip (`name: step 450/1500 · 2 h 10 min left (21:40) · ¥7.80 to finish`). */
  lines(): string[];
  /** Running jobs whose training loss is NaN/±Inf now: the item turns to a warning while any is. */
  diverged(): number;
  /** The runs changed (the item is updated then, besides its ticking). */
  onDidChange: Event<unknown>;
}


export class SpendStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly subs: vscode.Disposable[] = [];
  last: SpendSummary | undefined;
  /** The tooltip's Markdown and the background last set: the item is touched only when they change. */
  private tipText: string | undefined;
  private background: string | undefined;

  constructor(
    private readonly store: InstanceStore,
    private readonly settings: () => Settings,
    private readonly now: () => number,
    private readonly memento: vscode.Memento,
    private readonly platformName: (id: string) => string = (id) => id,
    private readonly runs?: StatusBarRuns,
  ) {
    this.item = vscode.window.createStatusBarItem(STATUS_BAR_ID, vscode.StatusBarAlignment.Right, 100);
    this.item.name = vscode.l10n.t('GPU Spend');
    this.item.command = Commands.openCalculator;
    this.subs.push(store.onDidChange(() => this.update()));
    if (runs) this.subs.push(runs.onDidChange(() => this.update()));
    this.update();
  }

  update(): void {
    const instances = this.store.list();
    const settings = this.settings();
    const s = summarizeSpend(instances, this.now(), settings.monthlyBudgetFen);
    this.last = s;
    if (instances.length === 0 || !settings.statusBarEnabled) {
      this.item.hide();
      this.stopTicking();
      return;
    }
    const stillBilling = instances.filter((i) => i.stillBilling).length;
    const diverged = this.runs?.diverged() ?? 0;
    const text = (diverged > 0 ? '$(warning) ' : '') + statusBarText(s, vscode.l10n, stillBilling, instances);
    if (text !== this.item.text) this.item.text = text;
    const label = statusBarAccessibility(s, vscode.l10n, instances) + (diverged > 0 ? `, ${vscode.l10n.t('{0} training run(s) diverged (loss NaN or Inf)', diverged)}` : '');
    if (label !== this.item.accessibilityInformation?.label) this.item.accessibilityInformation = { label, role: 'button' };
    const runs = this.runs?.lines() ?? [];
    const runsMd =
      (runs.length ? `\n\n**${vscode.l10n.t('Training runs')}**\n\n` + runs.map((l) => `- ${forMarkdown(l)}`).join('\n') : '') +
      (diverged > 0 ? `\n\n⚠ ${forMarkdown(vscode.l10n.t('{0} training run(s) diverged: the loss is NaN or Inf and the instance keeps billing. Stop the run or let gpuRent.training.onDiverged do it.', diverged))}` : '');
    // Rebuilt only when its text changes: a new MarkdownString every tick made an open tooltip flicker.
    const tipText = tooltipMarkdown(s, instances, vscode.l10n, this.platformName) + runsMd;
    if (tipText !== this.tipText) {
      this.tipText = tipText;
      const tip = new vscode.MarkdownString(tipText, true);
      tip.isTrusted = { enabledCommands: [Commands.openCalculator] };
      this.item.tooltip = tip;
    }
    const background = s.budget.level === 'exceeded' ? 'statusBarItem.errorBackground' : s.budget.level === 'warning' || stillBilling > 0 || diverged > 0 ? 'statusBarItem.warningBackground' : undefined;
    if (background !== this.background) {
      this.background = background;
      this.item.backgroundColor = background ? new vscode.ThemeColor(background) : undefined;
    }
    this.item.show();
    if (s.billing) this.startTicking();
    else this.stopTicking();
    this.checkBudget(s);
  }

  private checkBudget(s: SpendSummary): void {
    const memo: BudgetMemo | undefined = readState(this.memento, StateKeys.budgetNotice);
    const r = budgetNotice(memo, s);
    if (!memo || memo.month !== r.memo.month || memo.level !== r.memo.level) void writeState(this.memento, StateKeys.budgetNotice, r.memo);
    if (!r.show) return;
    const msg =
      r.show === 'exceeded'
        ? vscode.l10n.t('GPU spend this month ({0}) has passed your budget of {1}. Projected month-end: {2}.', formatCny(s.monthFen), formatCny(s.budget.budgetFen), formatCny(s.projectedMonthEndFen))
        : vscode.l10n.t('GPU spend this month ({0}) has reached 80% of your budget of {1}. Projected month-end: {2}.', formatCny(s.monthFen), formatCny(s.budget.budgetFen), formatCny(s.projectedMonthEndFen));
    const show = r.show === 'exceeded' ? showError : showWarning;
    void show(msg, vscode.l10n.t('Show Instances')).then((pick) => {
      if (pick) void vscode.commands.executeCommand('gpuRent.instances.focus');
    });
  }

  private startTicking(): void {
    if (!this.timer) this.timer = setInterval(() => this.update(), 1000);
  }

  private stopTicking(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  get text(): string | undefined {
    return this.item.text;
  }

  get visible(): boolean {
    return this.store.list().length > 0 && this.settings().statusBarEnabled;
  }

  dispose(): void {
    this.stopTicking();
    this.subs.forEach((d) => d.dispose());
    this.item.dispose();
  }
}

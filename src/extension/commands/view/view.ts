// The view's own commands: open the calculator (from the selected instance's card), refresh,
// show the log, and the state as data for tests and scripts (no secrets exist in it).
import type { Instance } from '../../../core/instances';
import { currentState, summarizeSpend } from '../../../core/spend';
import { instanceIdOf } from '../../args';
import type { CalculatorPanel } from '../../calculatorPanel';
import type { SpendStatusBar } from '../../statusBar';
import type { CalculatorInputs } from '../../../webview/protocol';
import type { Poller } from '../../monitors/poller';
import type { CommandContext } from '../../services/context';

/** The calculator's form for an instance: its card and GPU count, its disk, its platform first. */
export function inputsFor(inst: Instance): Partial<CalculatorInputs> {
  return { card: inst.card, gpus: inst.gpuCount, storageGb: inst.pricing.dataDiskGb, spot: currentState(inst.intervals) === 'spot' };
}

export function openCalculator(ctx: CommandContext, calculator: CalculatorPanel, arg: unknown): void {
  if (arg && typeof arg === 'object' && 'inputs' in arg) {
    calculator.show((arg as { inputs: Partial<CalculatorInputs> }).inputs ?? undefined);
    return;
  }
  const id = instanceIdOf(arg);
  const inst = id ? ctx.store.get(id) : undefined;
  calculator.show(inst ? inputsFor(inst) : undefined);
}

export async function refresh(ctx: CommandContext, statusBar: SpendStatusBar, poller: Poller): Promise<void> {
  ctx.refresh('user');
  statusBar.update();
  await poller.probeNow();
}

export function getState(ctx: CommandContext, statusBar: SpendStatusBar, calculator: CalculatorPanel) {
  return {
    instances: ctx.store.list(),
    spend: summarizeSpend(ctx.store.list(), ctx.now(), ctx.settings().monthlyBudgetFen),
    statusBar: { text: statusBar.text, visible: statusBar.visible },
    calculator: { open: calculator.isOpen, inputs: calculator.currentInputs, lastComputed: calculator.lastComputed, startNow: calculator.lastStartNow ?? null },
    watching: ctx.watches.ids(),
    connections: Object.fromEntries(ctx.store.list().map((i) => [i.id, ctx.pool.state(i.id) ?? null])),
    guardNotices: [...ctx.notices.recent],
    catalogAsOf: ctx.catalog().asOf,
  };
}

export function showLog(ctx: CommandContext): void {
  ctx.log.show();
}


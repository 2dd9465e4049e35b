// Compare Runs (issue 42 item 3, the editor's side): pick two or more runs from the ledger of
// runs (<globalStorageUri>/runs.jsonl, written at each run's end, and the CLI's under GPU_RENT_HOME) and read them side by side in a
// Markdown report: cost, speed, duration and final loss, which was best at each, and each run's
// loss against step, hours and yuan (core/ledger/compare.ts, the same as `gpu-rent runs compare`).
import * as vscode from 'vscode';
import { compareRuns } from '../../../core/ledger/compare';
import { comparisonMarkdown, day, num } from '../../view/compareRunsText';
import { formatCny } from '../../../core/money';
import { forLabel } from '../../../core/text';
import { MarkdownReportView } from '../../markdownReport';
import { showInfo } from '../../notify';
import type { CommandContext } from '../../services/context';
import { bothLedgersRuns, ledgerHome } from '../../services/ledger';

let view: MarkdownReportView | undefined;

export async function compareRunsCommand(ctx: CommandContext): Promise<void> {
  const home = ledgerHome();
  const runs = await bothLedgersRuns();
  if (runs.length < 2) {
    void showInfo(vscode.l10n.t('Compare Runs needs two runs in the ledger; a run is recorded when it ends (Start Training, launch). Runs so far: {0}', runs.length), { log: ctx.log });
    return;
  }
  const items = [...runs].reverse().map((r) => ({ label: forLabel(r.name), description: `${r.card ?? '?'} · ${day(r.startedAt)}`, detail: `${r.id} · ${r.costFen === null ? '?' : formatCny(r.costFen)} · loss ${num(r.finalLoss)}`, run: r }));
  const picked = await vscode.window.showQuickPick(items, { canPickMany: true, ignoreFocusOut: true, title: vscode.l10n.t('Compare Runs'), placeHolder: vscode.l10n.t('Pick two or more runs') });
  if (!picked || picked.length < 2) return;
  view ??= new MarkdownReportView('gpu-rent-runs');
  await view.open(`/compare/${picked.map((p) => p.run.id.slice(-8)).join('-')}.md`, comparisonMarkdown(compareRuns(picked.map((p) => p.run)), vscode.l10n, home ?? '?'));
}

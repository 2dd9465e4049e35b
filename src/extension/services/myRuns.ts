// The calculator's From my runs (issue 42 item 4): the runs of both ledgers (the extension's, in
// its globalStorageUri folder, and the CLI's, under GPU_RENT_HOME), as core/ledger/compare.ts's
// calculatorRuns offers them: the job each one did, priced on its card at its measured speed.
import { builtinCatalog } from '../../core/catalog';
import { calculatorRuns, type CalculatorRun } from '../../core/ledger/compare';
import { MAX_MY_RUNS } from '../../webview/protocol';
import { bothLedgersRuns } from './ledger';

export async function myRuns(): Promise<CalculatorRun[]> {
  return calculatorRuns(await bothLedgersRuns(), builtinCatalog().cards, MAX_MY_RUNS);
}

// A separate process that writes the ledger (test/unit/ledger-store.test.ts): `count` records
// through recordRun, then, with `tear`, half of one more line written raw and the process killed
// by SIGKILL (a writer dying mid-record). Run: node --require tsx/cjs ledger-writer.ts DIR COUNT TAG [tear]
import { openSync, writeSync } from 'node:fs';
import { ledgerPath, recordRun } from '../../src/app/ledger';
import { buildRecord } from '../../src/core/ledger/record';

const [dir, countText, tag, mode] = process.argv.slice(2) as [string, string, string, string | undefined];
const count = Number(countText);

const facts = (i: number) => ({
  kind: 'run' as const,
  name: `${tag}-${i}`,
  startedAt: 1_780_000_000 + i,
  endedAt: 1_780_000_100 + i,
  steps: 100,
  total: 100,
  card: 'rtx4090',
  gpus: 1,
  price: { fenPerHour: 200, source: 'user' as const },
  // a long line (a full curve): a torn write of it is easy to produce
  lossCurve: Array.from({ length: 200 }, (_, s) => ({ step: s, loss: 1 / (s + 1) })),
  end: { kind: 'finished' as const, exitCode: 0, cause: null },
});

void (async () => {
  for (let i = 0; i < count; i++) await recordRun(dir, facts(i));
  if (mode === 'tear') {
    const line = JSON.stringify(buildRecord(facts(count), 'ffff')) + '\n';
    const fd = openSync(ledgerPath(dir), 'a');
    writeSync(fd, line.slice(0, Math.floor(line.length / 2)));
    process.kill(process.pid, 'SIGKILL');
  }
})();

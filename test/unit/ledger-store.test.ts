// The ledger on disk (app/ledger): append-only JSON lines, fsync per record, every line checked
// on read. Crash safety on real files and real processes: a torn last line is skipped and the
// next record still lands on its own line; a writer killed (SIGKILL) while appending in a loop
// loses at most its unfinished line; two writers at once lose nothing and never interleave.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ledgerPath, READ_CAP, readRuns, recordRun } from '../../src/app/ledger';
import { buildRecord, type RunFacts } from '../../src/core/ledger/record';

const WRITER = join(__dirname, '..', 'support', 'ledger-writer.ts');
const facts = (name: string): RunFacts => ({ kind: 'run', name, startedAt: 1_780_000_000, endedAt: 1_780_000_600, steps: 60, card: 'rtx3090', gpus: 1, price: { fenPerHour: 150, source: 'user' }, lossCurve: [{ step: 1, loss: 2 }, { step: 60, loss: 1 }], end: { kind: 'finished', exitCode: 0, cause: null } });

function writer(dir: string, count: number, tag: string, mode?: string): { done: Promise<{ code: number | null; signal: string | null; stderr: string }>; kill: () => void } {
  const p = spawn(process.execPath, ['--require', 'tsx/cjs', WRITER, dir, String(count), tag, ...(mode ? [mode] : [])], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return { done: new Promise((res) => p.on('exit', (code, signal) => res({ code, signal, stderr }))), kill: () => p.kill('SIGKILL') };
}

describe('ledger store (real files, real processes)', function () {
  this.timeout(60000);
  let dir: string;
  beforeEach(() => (dir = join(mkdtempSync(join(tmpdir(), 'gpu-rent-ledger-')), 'home')));
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('a missing ledger is empty; a record round-trips; the folder is 0700 and the file 0600', async () => {
    assert.deepEqual(await readRuns(dir), { runs: [], skipped: [], truncated: false });
    const r = await recordRun(dir, facts('one'));
    const back = await readRuns(dir);
    assert.deepEqual(back.runs, [r]);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(ledgerPath(dir)).mode & 0o777, 0o600);
    assert.equal(readFileSync(ledgerPath(dir), 'utf8').split('\n').length, 2, 'one line and its newline');
  });

  it('refuses a record the schema refuses and writes nothing', async () => {
    const bad = { ...buildRecord(facts('x'), 'abcd'), costFen: -1 };
    await assert.rejects(recordRun(dir, bad), /run record: costFen/);
    assert.deepEqual((await readRuns(dir)).runs, []);
  });

  it('a torn last line is skipped, and the next record starts on a new line', async () => {
    const first = await recordRun(dir, facts('a'));
    const line = JSON.stringify(buildRecord(facts('torn'), 'beef'));
    appendFileSync(ledgerPath(dir), line.slice(0, 40));
    let back = await readRuns(dir);
    assert.deepEqual(back.runs.map((r) => r.id), [first.id]);
    assert.deepEqual(back.skipped, [{ line: 2, problem: 'not JSON (a torn write?)' }]);
    const next = await recordRun(dir, facts('b'));
    back = await readRuns(dir);
    assert.deepEqual(back.runs.map((r) => r.id), [first.id, next.id]);
    assert.equal(back.skipped.length, 1);
    // a hand-edited line that is JSON but not a record is skipped too, saying why
    appendFileSync(ledgerPath(dir), JSON.stringify({ ...next, id: 'r-x', name: 'edited' }) + '\n');
    back = await readRuns(dir);
    assert.equal(back.runs.length, 2);
    assert.match(back.skipped[1]!.problem, /^id: /);
  });

  it('a writer killed by SIGKILL mid-record leaves its finished records and a torn line; the next writer is unaffected', async () => {
    const w = writer(dir, 3, 'dies', 'tear');
    const r = await w.done;
    assert.equal(r.signal, 'SIGKILL', r.stderr);
    const text = readFileSync(ledgerPath(dir), 'utf8');
    assert.ok(!text.endsWith('\n'), 'the file ends in a torn line');
    let back = await readRuns(dir);
    assert.deepEqual(back.runs.map((x) => x.name), ['dies-0', 'dies-1', 'dies-2']);
    assert.equal(back.skipped.length, 1);
    await recordRun(dir, facts('after'));
    back = await readRuns(dir);
    assert.deepEqual(back.runs.map((x) => x.name), ['dies-0', 'dies-1', 'dies-2', 'after']);
  });

  it('a writer killed at a random moment of a loop of appends: every line read back is whole or skipped, none garbled into another', async () => {
    const w = writer(dir, 100000, 'loop');
    // kill it once it has written something
    for (let i = 0; i < 600; i++) {
      await new Promise((res) => setTimeout(res, 50));
      try {
        if (statSync(ledgerPath(dir)).size > 20000) break;
      } catch {
        /* not yet */
      }
    }
    w.kill();
    await w.done;
    const back = await readRuns(dir);
    assert.ok(back.runs.length >= 2, String(back.runs.length));
    assert.ok(back.skipped.length <= 1, JSON.stringify(back.skipped));
    back.runs.forEach((r, i) => assert.equal(r.name, `loop-${i}`));
  });

  it('two writers at once: every record of both, none interleaved', async () => {
    const [a, b] = [writer(dir, 60, 'a'), writer(dir, 60, 'b')];
    const [ra, rb] = await Promise.all([a.done, b.done]);
    assert.equal(ra.code, 0, ra.stderr);
    assert.equal(rb.code, 0, rb.stderr);
    const back = await readRuns(dir);
    assert.deepEqual(back.skipped, []);
    assert.equal(back.runs.length, 120);
    for (const tag of ['a', 'b']) assert.deepEqual(back.runs.filter((r) => r.name.startsWith(`${tag}-`)).map((r) => r.name), Array.from({ length: 60 }, (_, i) => `${tag}-${i}`));
  });

  it('a ledger over the read cap: only its end is read, the cut first line dropped', async () => {
    const r = await recordRun(dir, facts('late'));
    const line = readFileSync(ledgerPath(dir), 'utf8');
    writeFileSync(ledgerPath(dir), 'x'.repeat(READ_CAP) + '\n' + line);
    const back = await readRuns(dir);
    assert.equal(back.truncated, true);
    assert.deepEqual(back.runs.map((x) => x.id), [r.id]);
  });
});

// Box text cannot make a parser backtrack: long runs (24 KB, past the line cap) of spaces, tabs, digits, colons,
// brackets, dots, slashes, `=` and `|` after every keyword the parsers look for go through the
// progress, nvidia-smi, probe and listing parsers within a total budget that the old patterns
// exceeded by orders of magnitude (`step` + 3000 spaces + `x` alone took 14 s; a 100 KB run was
// cut to 8 KiB, and 8 KiB of spaces was cubic: hours). The budget is a bound on total work, far
// above what the linear code needs (~0.3 s here), so a loaded machine does not make it flaky.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { boxLines, capLine, capLines, MAX_BOX_LINE, slashPair, trimEndOf } from '../../src/core/boxLines';
import { detectCause, lastLines, ProgressTracker, readLine } from '../../src/core/progress';
import { parseNvidiaSmi } from '../../src/core/smi';
import { parseTorchProbe, PROBE_BEGIN, PROBE_END } from '../../src/core/probe';
import { parseDf } from '../../src/remote/probe';
import { sanitizeJobName } from '../../src/remote/jobs';
import { findCardWithMemory } from '../../src/core/cards';

const KEYWORDS = [
  'step', 'steps', 'Step [', 'global_step', 'global_step=1,', 'steps: 1 loss: ', 'iter', 'iteration', 'it', 'epoch', 'Epoch', 'Epoch 1',
  'loss', 'loss=', 'loss:', 'it/s', 's/it', '%|', ' 45%|', "{'", "{'loss': ", "{'global_step/max_steps': '", 'Total optimization steps', 'Num Epochs',
  'train_iters', 'max_steps', '[Rank 0] step=1, skipped=0, lr=[', 'remaining_time', 'CUDA out of memory', 'Killed',
  // nvidia-smi's table, query text, CSV and failure lines
  '| NVIDIA-SMI 535.104.05', '|   0  NVIDIA A100', 'Driver Version:', 'KMD Version', 'CUDA Version', 'Attached GPUs', 'Product Name', 'GPU 00000000:3B:00.0',
  'Unable to determine the device handle for GPU', 'No devices were found', 'utilization.gpu [%]', 'memory.used [MiB]', '+-----', '|=====',
  'NVIDIA-SMI version', 'DRIVER version', '0 N/A N/A 1234 C python', '64W', '1MiB', 'MiB', 'N/A',
];
const RUNS = [' ', '\t', '0', '9', ':', '[', ']', '.', '/', '=', '|', '-', ',', '+', "'", '\r'];
// Past the 16 KiB line cap (so the cap is exercised too); a few seconds for the whole set.
const RUN_LENGTH = 24_000;

function parseAll(line: string): void {
  readLine(line);
  parseNvidiaSmi(line);
  parseNvidiaSmi(`| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n${line}\n`);
  parseTorchProbe(`${PROBE_BEGIN}\n${line}\n${PROBE_END}`);
  detectCause(line, 1);
  lastLines(line);
  parseDf(line);
  findCardWithMemory(line.slice(0, 20_000), 81920);
  try {
    sanitizeJobName(line.slice(0, 20_000));
  } catch {
    // not a name: fine
  }
}

describe('box text parsers run in linear time', () => {
  it(`${KEYWORDS.length * RUNS.length * 2} lines of 24 KB runs after every keyword: well within a budget the old patterns exceeded by hours`, function () {
    this.timeout(120_000);
    const t0 = process.hrtime.bigint();
    let chars = 0;
    for (const kw of KEYWORDS) {
      for (const c of RUNS) {
        const run = c.repeat(RUN_LENGTH);
        for (const line of [kw + run + 'x', kw + run + kw + '1/2 x']) {
          parseAll(line);
          chars += line.length;
        }
      }
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    assert.ok(chars > 35e6, `${chars} characters parsed`);
    // Linear code: a few seconds here for 35+ MB through nine parsers. The old generic() needed 14 s for ONE 3 KB line.
    assert.ok(ms < 60_000, `${Math.round(ms)} ms for ${KEYWORDS.length * RUNS.length * 2} adversarial 24 KB lines`);
  });

  it('40 000 short lines (blank, separators, headers) after a keyword: linear in the line count', function () {
    this.timeout(120_000);
    const t0 = Date.now();
    for (const kw of ['utilization.gpu [%]', 'index, name', '+-----', "{'", 'step', 'Product Name']) for (const sep of ['\n', '\n---\n']) parseAll(kw + sep.repeat(40_000) + 'x');
    // ~1 s here; the CSV block splitter was quadratic on blank lines (20 000 of them: 29 s; 40 000: about 2 min).
    assert.ok(Date.now() - t0 < 30_000, `${Date.now() - t0} ms`);
  });

  it('random keyword / run / suffix mixes: a result, never a slow line', function () {
    this.timeout(120_000);
    const piece = fc.oneof(
      fc.constantFrom(...KEYWORDS),
      fc.tuple(fc.constantFrom(...RUNS, ' \t', ': ', '[ ', '1 ', '. ', '/ ', '= ', '| '), fc.integer({ min: 500, max: 5000 })).map(([c, n]) => c.repeat(Math.ceil(n / c.length))),
      fc.string({ maxLength: 12 }),
    );
    let worst = 0;
    const t0 = Date.now();
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), (pieces) => {
        const line = pieces.join('');
        const t = Date.now();
        parseAll(line);
        const tracker = new ProgressTracker();
        tracker.feed(line + '\n', 1);
        worst = Math.max(worst, Date.now() - t);
      }),
      { numRuns: 400 },
    );
    // One line of at most 40 KB: the old patterns took seconds to minutes on such runs.
    assert.ok(worst < 2000, `slowest line ${worst} ms`);
    assert.ok(Date.now() - t0 < 60_000);
  });
});

describe('the box text line cap', () => {
  it('no parser sees more than MAX_BOX_LINE characters of a line', () => {
    assert.equal(MAX_BOX_LINE, 16 * 1024);
    const long = 'y'.repeat(MAX_BOX_LINE * 3);
    assert.equal(capLine(long).length, MAX_BOX_LINE);
    assert.equal(capLine('short'), 'short');
    const lines = boxLines(`a\r\n${long}\nb`);
    assert.deepEqual(lines.map((l) => l.length), [1, MAX_BOX_LINE, 1]);
    assert.equal(capLines('a\nb\r\nc'), 'a\nb\r\nc', 'short lines pass untouched');
    assert.deepEqual(capLines(`a\n${long}\nb`).split('\n').map((l) => l.length), [1, MAX_BOX_LINE, 1]);
  });

  it('the progress parser reads a step at the start of a huge line and ignores one beyond the cap', () => {
    assert.equal(readLine(`step 5/10 ${'x'.repeat(1_000_000)}`)?.step, 5);
    assert.equal(readLine(`${' x'.repeat(MAX_BOX_LINE / 2)} step 5/10`), null);
    assert.equal(readLine(`${' x'.repeat(MAX_BOX_LINE / 2 - 10)} step 5/10`)?.step, 5);
  });

  it('the nvidia-smi parser caps lines too: a lost-GPU reason past the cap is cut', () => {
    const table = '| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n';
    const r = parseNvidiaSmi(`Unable to determine the device handle for GPU0: 0000:24:00.0: GPU is lost${' !'.repeat(MAX_BOX_LINE)}\n${table}`);
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.error.kind, 'gpu-lost');
  });

  it('the token helpers read what the old patterns read', () => {
    assert.deepEqual(slashPair('30%   34C    P0    64W / 400W', true), ['64W', '400W']);
    assert.deepEqual(slashPair('  1MiB / 81920MiB '), ['1MiB', '81920MiB']);
    assert.deepEqual(slashPair('N/A  N/A  P8  N/A / N/A', true), ['N/A', 'N/A']);
    assert.deepEqual(slashPair('a/b/c'), ['a/b', 'c']);
    assert.equal(slashPair('no slash here'), null);
    assert.equal(trimEndOf('name...', '.'), 'name');
    assert.equal(trimEndOf('dir///', '/'), 'dir');
  });
});

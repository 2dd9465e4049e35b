// Issue 40 deliver 2: a log the reader cannot read says so, with its last line; a pattern the user
// teaches it (task file `progress:`) with named groups step/total/loss/epoch reads it, checked for
// linear time by the analysis the project's lint runs over the built-in patterns (scslre).
import { strict as assert } from 'node:assert';
import { estimateFinish, progressOf, ProgressTracker } from '../../src/core/progress';
import { ENGLISH } from '../../src/core/l10n';
import { progressWords } from '../../src/app/runs/progress';
import { inZh } from '../support/l10n';
import { checkProgressPattern, patternProblem } from '../../src/core/progress/userPattern';
import { parseTaskFile } from '../../src/core/task/schema';

// A line no known format and not the general reader reads: a custom printer's `[ 40 | 500 ] 0.4123`.
const CUSTOM = ['[  39 |  500 ] 0.4190 0.88', '[  40 |  500 ] 0.4123 0.89'];

describe('a log the reader cannot read', () => {
  it('says how many lines it printed and shows the last one, until a line is read', () => {
    const t = new ProgressTracker();
    t.feed(CUSTOM.join('\n') + '\n', 1);
    assert.deepEqual(t.progress.unread, { lines: 2, lastLine: '[  40 |  500 ] 0.4123 0.89' });
    assert.equal(t.progress.step, null);
    t.feed('step 41/500 loss: 0.41\n', 2);
    assert.equal(t.progress.unread, null);
    assert.equal(progressOf('', 1).unread, null, 'nothing printed: nothing to say');
    const long = progressOf('\x1b[31m' + 'x'.repeat(5000) + '\x1b[0m\n', 1).unread!;
    assert.ok(long.lastLine.length <= 201 && !long.lastLine.includes('\x1b'), 'capped, ANSI removed');
  });

  it('a taught pattern reads it: step, total, loss, epoch by name', () => {
    const c = checkProgressPattern('^\\[ *(?<step>\\d+) \\| *(?<total>\\d+) \\] (?<loss>[-+.\\w]+)');
    assert.ok(c.ok, JSON.stringify(c));
    const p = progressOf(CUSTOM.join('\n') + '\n', 1, { pattern: c.re });
    assert.deepEqual([p.step, p.total, p.loss, p.unread], [40, 500, 0.4123, null]);
    const nan = progressOf('[  41 |  500 ] nan 0.1\n', 1, { pattern: c.re });
    assert.equal(nan.diverged?.value, 'nan');
  });

  it('a pattern is refused with a clear error when it could take super-linear time, names no group or an unknown one, or is not a regex', () => {
    const refused = (src: string) => {
      const c = checkProgressPattern(src);
      assert.ok(!c.ok, `${src} accepted`);
      return c;
    };
    const slow = refused('step (?<step>\\d+)/(?<total>\\d+).*loss (?<loss>[\\d.]+)');
    assert.equal(slow.code, 'super-linear');
    assert.match(patternProblem(slow), /super-linear time on a long line \(\\d\+ … \.\*\).*\[\^\|\]\*/);
    assert.match(patternProblem(slow, 'zh-cn'), /超线性/);
    assert.equal(refused('(?<step>(a+)+)$').code, 'super-linear');
    assert.equal(refused('\\s*:\\s*(?<loss>\\d)').code, 'super-linear');
    assert.equal(refused('loss (\\d+)').code, 'no-group');
    assert.equal(refused('(?<iteration>\\d+)').code, 'unknown-group');
    assert.equal(refused('(?<step>\\d)\\1').code, 'backreference');
    assert.equal(refused('(?<step>[0-9)').code, 'syntax');
    assert.equal(refused('x'.repeat(401)).code, 'too-long');
    // The same pattern made exclusive is accepted.
    assert.ok(checkProgressPattern('step (?<step>\\d+)/(?<total>\\d+)[^l]{0,200}loss (?<loss>[\\d.]+)').ok);
  });

  it('an accepted pattern stays linear on long lines of box output', () => {
    const c = checkProgressPattern('^\\[ *(?<step>\\d+) \\| *(?<total>\\d+) \\] (?<loss>[-+.\\w]+)');
    assert.ok(c.ok);
    const time = (n: number) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < 5; i++) for (const ch of ['[', ' ', '1', '|']) progressOf('[' + ch.repeat(n) + '\n', 1, { pattern: c.re });
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    time(2000);
    const short = Math.min(time(4000), time(4000), time(4000));
    const long = Math.min(time(16000), time(16000), time(16000));
    assert.ok(long / Math.max(short, 2) < 9, `${long} ms vs ${short} ms`);
  });
});

describe('the task file key progress:', () => {
  it('takes a pattern the reader may run and refuses one that could go super-linear, saying why', () => {
    const ok = parseTaskFile("name: a\nrun: python t.py\nprogress: '^\\[ *(?<step>\\d+) \\| *(?<total>\\d+) \\] (?<loss>\\S+)'\n");
    assert.ok(ok.ok, JSON.stringify(!ok.ok && ok.errors));
    assert.equal(ok.tasks[0]!.progressPattern, '^\\[ *(?<step>\\d+) \\| *(?<total>\\d+) \\] (?<loss>\\S+)');
    const bad = parseTaskFile("name: a\nrun: python t.py\nprogress: 'step (?<step>\\d+)/(?<total>\\d+).*loss (?<loss>[\\d.]+)'\n");
    assert.ok(!bad.ok);
    assert.equal(bad.errors.length, 1);
    assert.equal(bad.errors[0]!.problem.code, 'bad-progress-pattern');
    assert.match(bad.errors[0]!.message, /super-linear time on a long line/);
    assert.equal(bad.errors[0]!.line, 3);
    const unknown = parseTaskFile("name: a\nrun: python t.py\nprogress: '(?<iteration>\\d+)'\n");
    assert.ok(!unknown.ok && /only step, total, loss, epoch/.test(unknown.errors[0]!.message));
  });
});

describe('the words for a log that cannot be read', () => {
  it('the tree and CLI line say the lines were not read and show the last one, in en and zh', () => {
    const p = progressOf(CUSTOM.join('\n') + '\n', 1);
    const f = estimateFinish(p, null, { boxNow: 2, alive: true });
    const opts = { formatFen: (n: number) => `¥${n / 100}`, clockOf: () => '21:40' };
    assert.equal(progressWords(p, f, ENGLISH, opts), 'progress not read from 2 log lines (teach it with progress: in the task file); last: [  40 |  500 ] 0.4123 0.89');
    assert.match(progressWords(p, f, inZh, opts), /^日志已输出 2 行，但读不出进度.*最后一行：\[  40 \|  500 \] 0\.4123 0\.89$/);
    const read = progressOf('step 41/500 loss: 0.41\n', 1);
    assert.doesNotMatch(progressWords(read, estimateFinish(read, null, { boxNow: 2, alive: true }), ENGLISH, opts), /not read/);
  });
});

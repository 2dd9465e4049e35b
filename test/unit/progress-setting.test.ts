// gpuRent.progress.pattern (issue 40, Deliver 2: "a setting for plain runs"): the value is checked as a
// task file's `progress:` is (named groups step/total/loss/epoch, the lint's linear-time analysis), a
// refused one says why in English and Simplified Chinese, and an accepted one reads the lines the
// built-in reader cannot.
import { strict as assert } from 'node:assert';
import { progressSettingOf } from '../../src/app/runs/progressSetting';
import { ProgressTracker } from '../../src/core/progress';
import { RunWatch } from '../../src/app/runs/watch';

describe('gpuRent.progress.pattern', () => {
  it('empty or absent: no pattern and nothing to say', () => {
    for (const raw of [undefined, null, '', '   ']) assert.deepEqual(progressSettingOf(raw), { re: null, problem: null });
  });

  it('a linear pattern with named groups is used, and reads what the built-in reader does not', () => {
    const s = progressSettingOf('^\\[ *(?<step>\\d+) \\| *(?<total>\\d+) \\] (?<loss>\\S+)');
    assert.ok(s.re && s.problem === null);
    const line = '[  40 |  500 ] 0.4123 0.89\n';
    const plain = new ProgressTracker();
    plain.feed(line, 1);
    assert.equal(plain.progress.step, null, 'the built-in reader does not read this line');
    const taught = new ProgressTracker({ pattern: s.re });
    taught.feed(line, 1);
    assert.deepEqual([taught.progress.step, taught.progress.total, taught.progress.loss], [40, 500, 0.4123]);
  });

  it('a pattern that could run super-linear is refused with what to change, in both languages', () => {
    const en = progressSettingOf('(?<step>\\d+).*loss');
    assert.equal(en.re, null);
    assert.match(en.problem!, /^The setting gpuRent\.progress\.pattern is not used: progress can take super-linear time .*\[\^\|\]\*/);
    const zh = progressSettingOf('(?<step>\\d+).*loss', 'zh-cn');
    assert.match(zh.problem!, /^设置 gpuRent\.progress\.pattern 未启用：.*超线性/);
  });

  it('the other refusals: no named group, an unknown group, a backreference, bad syntax, too long, not a string', () => {
    assert.match(progressSettingOf('step (\\d+)').problem!, /at least one named group/);
    assert.match(progressSettingOf('(?<lr>\\d+)').problem!, /does not know: lr/);
    assert.match(progressSettingOf('(?<step>\\d)\\1').problem!, /backreference/);
    assert.match(progressSettingOf('(?<step>\\d+').problem!, /not a valid regular expression/);
    assert.match(progressSettingOf('(?<step>\\d+)' + 'x'.repeat(400)).problem!, /length/);
    assert.match(progressSettingOf(42).problem!, /must be a string/);
  });

  it('RunWatch takes the pattern; the same pattern again changes nothing', () => {
    const runs = new RunWatch();
    const re = progressSettingOf('step (?<step>\\d+)').re;
    runs.setPattern(re);
    runs.setPattern(new RegExp(re!.source));
    runs.setPattern(null);
  });
});

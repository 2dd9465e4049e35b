// The task file's marks for an editor (issue 41 deliver 4): the launch's own reader, each problem
// at its 0-based line and column over the word there, in English and Chinese; a good file has
// none; which names are task files.
import { strict as assert } from 'node:assert';
import { isTaskFileName, taskFileMarks } from '../../src/app/launch/taskDiagnostics';
import { inZh } from '../support/l10n';

describe('task file diagnostics', () => {
  const bad = 'name: diag\ninstance: new\nrun: python train.py\nbudget_yuan: -3\n';

  it('marks the problem where it is, in the UI language', () => {
    const [m, ...more] = taskFileMarks(bad);
    assert.deepEqual(more, []);
    assert.deepEqual([m!.line, m!.column, m!.endColumn, m!.field], [3, 13, 15, 'budget_yuan']);
    assert.equal(m!.message, 'budget_yuan must be more than ¥0');
    const zh = taskFileMarks(bad, inZh)[0]!;
    assert.match(zh.message, /budget_yuan/);
    assert.match(zh.message, /[\u4e00-\u9fff]/);
  });

  it('the attack round\'s checks too: a checkpoint folder in .git is marked on its value', () => {
    const marks = taskFileMarks('name: lora\nrun: python train.py\ncheckpoints: {remote: ckpt, local: ./.git, every: 10m}\n');
    assert.equal(marks.length, 1);
    assert.equal(marks[0]!.field, 'checkpoints.local');
    assert.equal(marks[0]!.line, 2);
  });

  it('a good file has no marks; a YAML error is marked at its line', () => {
    assert.deepEqual(taskFileMarks('name: ok\ninstance: new\nrun: python train.py\nbudget_yuan: 3\n'), []);
    const y = taskFileMarks('name: ok\nrun: [unclosed\n');
    assert.equal(y.length, 1);
    assert.ok(y[0]!.line >= 1);
  });

  it('gpu-rent.yaml / .yml and NAME.gpu-rent.yaml are task files; other YAML is not', () => {
    for (const p of ['/w/gpu-rent.yaml', 'C:\\w\\gpu-rent.yml', '/w/lora.gpu-rent.yaml', '/w/GPU-RENT.YAML']) assert.equal(isTaskFileName(p), true, p);
    for (const p of ['/w/compose.yaml', '/w/xgpu-rent.yaml', '/w/gpu-rent.yaml.bak', '/w/gpu-rent.json']) assert.equal(isTaskFileName(p), false, p);
  });
});

// Issue 41 friction: a task without cards was quoted on the free 16 GB V100 / T4 quota rows (AI
// Studio, Colab), which no launch can rent. They are quoted only where the task names that platform.
import { strict as assert } from 'node:assert';
import { builtinCatalog } from '../../src/core/catalog';
import { quoteTask } from '../../src/core/task/quote';
import { parseTaskFile } from '../../src/core/task/schema';

const task = (resources: string) => {
  const r = parseTaskFile(`name: t\nrun: python train.py\nresources: ${resources}\n`, { platformIds: builtinCatalog().platforms.map((p) => p.id) });
  assert.ok(r.ok, JSON.stringify(r));
  return r.tasks[0]!;
};

describe('task quote: free quotas are not offered to a launch (issue 41 friction)', () => {
  const free = builtinCatalog().platforms.filter((p) => p.kind === 'free').map((p) => p.id);
  it('the catalog has free platforms (the report’s V100 and T4 quotas)', () => assert.ok(free.length >= 1));
  it('no cards named: no free row, and the cheapest row costs something', () => {
    const q = quoteTask(builtinCatalog(), task('{gpus: 1}'));
    assert.ok(q.rows.length > 0);
    assert.ok(q.rows.every((r) => !free.includes(r.platform)), q.rows.filter((r) => free.includes(r.platform)).map((r) => `${r.platform} ${r.card}`).join(', '));
    assert.ok(q.rows[0]!.fenPerHour.min > 0);
  });
  it('a task that names a free platform still sees it', () => {
    const q = quoteTask(builtinCatalog(), task(`{platforms: [${free[0]}]}`));
    assert.ok(q.rows.some((r) => r.platform === free[0]));
  });
});

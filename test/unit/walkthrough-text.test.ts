// Issue 41 friction: the walkthrough showed literal backticks. VS Code's walkthrough step
// description supports ``preformatted`` (double backticks), __italic__ and **bold**, not Markdown's
// single-backtick code span (the contributes.walkthroughs schema text).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';

describe('walkthrough descriptions (issue 41 friction)', () => {
  for (const f of ['package.nls.json', 'package.nls.zh-cn.json']) {
    it(`${f}: code in a step description is ''double-backticked'', never a single backtick span`, () => {
      const nls = JSON.parse(readFileSync(f, 'utf8')) as Record<string, string>;
      const steps = Object.entries(nls).filter(([k]) => /^walkthrough\..+\.description$/.test(k));
      assert.ok(steps.length >= 5);
      for (const [k, v] of steps) assert.doesNotMatch(v.replace(/``[^`]+``/g, ''), /`/, k);
      assert.match(nls['walkthrough.addInstance.description']!, /``ssh -p 12345 root@connect\.westb\.seetacloud\.com``/);
    });
  }
});

// Add Platform Account's questions (issue 23.6: "a blank title; the typed token discarded on a
// failure"): every box has a numbered title naming the platform, and after a failed check the
// boxes come back holding what was typed, the failure said in the first prompt.
import { strict as assert } from 'node:assert';
import { PLATFORM_KINDS, descriptorOf } from '../../src/core/platforms/descriptors';
import type { L10n } from '../../src/extension/view/present';
import { accountStepTitle, accountSteps } from '../../src/extension/commands/platforms/accountSteps';

const l10n: L10n = { t: (m, ...a) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };

describe('Add Platform Account: titles and kept values', () => {
  it('every question of every platform has a numbered title with the platform’s name; the pick is titled too', () => {
    assert.equal(accountStepTitle(1, undefined, undefined, l10n), 'Add Platform Account');
    for (const kind of PLATFORM_KINDS) {
      const steps = accountSteps(kind, 'en', l10n);
      const d = descriptorOf(kind);
      assert.equal(steps.length, d.secrets.length + (d.regions ? 1 : 0), kind);
      steps.forEach((s, i) => assert.equal(s.title, `Add Platform Account (${i + 2}/${steps.length + 1}): ${d.name.en}`, kind));
      assert.ok(steps.every((s) => s.prompt.trim().length > 0 && s.value === (s.field === 'regions' ? 'all' : '')), kind);
    }
    assert.equal(accountSteps('aliyun-ecs', 'zh-cn', l10n)[0]!.prompt, 'RAM 用户的 AccessKey ID');
  });

  it('after a failed check the typed token and regions are offered again, and the first prompt says what failed', () => {
    const kept = { accessKeyId: 'LTAI5tExampleId', accessKeySecret: 'exampleSecret', regions: 'cn-hangzhou,cn-beijing' };
    const steps = accountSteps('aliyun-ecs', 'en', l10n, kept, 'Not saved: InvalidAccessKeyId.NotFound');
    assert.deepEqual(
      steps.map((s) => [s.field, s.value, s.password]),
      [
        ['accessKeyId', 'LTAI5tExampleId', true],
        ['accessKeySecret', 'exampleSecret', true],
        ['regions', 'cn-hangzhou,cn-beijing', false],
      ],
    );
    assert.match(steps[0]!.prompt, /Last try: Not saved: InvalidAccessKeyId\.NotFound$/);
    assert.doesNotMatch(steps[1]!.prompt, /Last try/);
  });
});

// `gpu-rent run --then …` in the CLI's language (issue 23.5): the power-off refusal before the
// job starts, each end step's line and the still-billing line. The English literals below are
// what the CLI always printed (the oracle); the Chinese literals are the new words. The steps
// come from the real runEndAction over a real sync report and real box power-off results.
import { strict as assert } from 'node:assert';
import type { Instance } from '../../src/core/instances';
import { runEndAction, stillBillingLine, syncOutcomeOf, type EndActionResult } from '../../src/app/runs/endAction';
import type { BoxPowerOffResult } from '../../src/app/runs/boxPower';
import { endLogLine, endStepLine, powerRefusalText, stillBillingText } from '../../src/cli/commands/run-words';
import type { EndLog } from '../../src/app/runs/endAction';
import { waitEnded } from '../../src/remote/errors';

const inst = { id: 'h.example', intervals: [] } as unknown as Instance;
const report = (o: Partial<{ files: number; skipped: unknown[]; interrupted: boolean; verified: number; unchanged: number }> = {}) => ({ files: 3, bytes: 30, skipped: [], interrupted: false, verified: 1, unchanged: 2, ...o });

async function end(sync: () => Promise<ReturnType<typeof syncOutcomeOf>>, box?: BoxPowerOffResult): Promise<EndActionResult> {
  return runEndAction('sync-then-power-off', inst, { sync, power: undefined, ...(box ? { powerOffFromBox: async () => box } : {}), log: () => undefined });
}

describe('gpu-rent run --then: the refusal and the end report in the CLI’s language', () => {
  it('the power-off refusal: the English as the CLI always printed it, and its Chinese', () => {
    assert.equal(
      powerRefusalText({ code: 'not-root-no-sudo', user: 'alice' }, 'en'),
      "--then sync-then-power-off: the box cannot power itself off: this login (alice) is not root and sudo -n is not allowed. Nothing was started. Log in as root, allow this user `sudo -n shutdown`, or use --then sync and power it off with gpu-rent power-off or in the platform's console",
    );
    assert.equal(
      powerRefusalText({ code: 'power-unknown' }, 'en'),
      "--then sync-then-power-off: the box cannot power itself off: could not find out whether this login may power the box off. Nothing was started. Log in as root, allow this user `sudo -n shutdown`, or use --then sync and power it off with gpu-rent power-off or in the platform's console",
    );
    assert.equal(
      powerRefusalText({ code: 'not-root-no-sudo', user: 'alice' }, 'zh-cn'),
      '--then sync-then-power-off：机器无法自己关机：这个登录用户（alice）不是 root，也不允许 sudo -n。什么都没有启动。请以 root 登录、允许这个用户执行 `sudo -n shutdown`，或者用 --then sync，再用 gpu-rent power-off 或在平台控制台关机',
    );
    assert.equal(
      powerRefusalText({ code: 'power-unknown' }, 'zh-cn'),
      '--then sync-then-power-off：机器无法自己关机：查不出这个登录用户能否让机器关机。什么都没有启动。请以 root 登录、允许这个用户执行 `sudo -n shutdown`，或者用 --then sync，再用 gpu-rent power-off 或在平台控制台关机',
    );
  });

  it('each end step: the English line as before (its detail word for word), and its Chinese', async () => {
    const done = await end(async () => syncOutcomeOf(report()), { ok: true, seconds: 7 });
    assert.deepEqual(
      done.steps.map((s) => endStepLine(s, 'en')),
      ['sync: ok — 3 file(s) pulled, 3 already here, all verified', 'powerOff: ok (box) — done: the box stopped answering SSH after 7 s'],
    );
    assert.deepEqual(
      done.steps.map((s) => endStepLine(s, 'zh-cn')),
      ['同步：成功 — 拉取了 3 个文件，本地已有 3 个，全部已校验', '关机：成功（机器） — 已完成：7 秒后机器不再应答 SSH'],
    );
    assert.equal(stillBillingText(done, '¥2.00/h', 'zh-cn'), null);

    const refused = await end(async () => syncOutcomeOf(report()), { ok: false, reason: 'refused', exitCode: 1, output: 'Failed to set wall message\n  Access denied', seconds: 3 });
    assert.equal(endStepLine(refused.steps[1]!, 'en'), 'powerOff: FAILED (box) — the power-off command failed on the box (exit 1): Failed to set wall message Access denied');
    assert.equal(endStepLine(refused.steps[1]!, 'zh-cn'), '关机：失败（机器） — 关机命令在机器上失败（退出码 1）：Failed to set wall message Access denied');
    assert.equal(stillBillingText(refused, '¥2.00/h', 'en'), 'end action sync-then-power-off: the box did NOT power off and keeps billing ¥2.00/h: the power-off command failed on the box (exit 1): Failed to set wall message Access denied');
    assert.equal(stillBillingText(refused, '¥2.00/h', 'zh-cn'), '结束动作 sync-then-power-off：机器没有关机，仍在计费 ¥2.00/h：关机命令在机器上失败（退出码 1）：Failed to set wall message Access denied');

    const answering = await end(async () => syncOutcomeOf(report()), { ok: false, reason: 'stillAnswering', seconds: 121 });
    assert.equal(endStepLine(answering.steps[1]!, 'en'), 'powerOff: FAILED (box) — the box still answers SSH 121 s after the power-off');
    assert.equal(endStepLine(answering.steps[1]!, 'zh-cn'), '关机：失败（机器） — 关机 121 秒后机器仍在应答 SSH');
    assert.equal(stillBillingText(answering, null, 'en'), 'end action sync-then-power-off: the box did NOT power off and keeps billing: the box still answers SSH 121 s after the power-off');

    const noWay = await end(async () => syncOutcomeOf(report()));
    assert.equal(endStepLine(noWay.steps[1]!, 'en'), 'powerOff: FAILED (none) — no platform connector for this instance');
    assert.equal(endStepLine(noWay.steps[1]!, 'zh-cn'), '关机：失败（无） — 这个实例没有平台连接器');

    const platform = await runEndAction('sync-then-no-gpu', inst, { sync: async () => syncOutcomeOf(report()), power: { powerOff: async () => undefined, noGpu: async () => undefined }, log: () => undefined });
    assert.equal(endStepLine(platform.steps[1]!, 'en'), 'noGpu: ok (connector) — done, the platform reports it');
    assert.equal(endStepLine(platform.steps[1]!, 'zh-cn'), '无卡模式：成功（平台） — 已完成，平台确认了');
  });

  it('the progress lines while it ends: the app layer’s English as it came, and all Chinese under zh', async () => {
    const lines: [string, EndLog | undefined][] = [];
    const log = (l: string, said?: EndLog) => lines.push([l, said]);
    await runEndAction('sync-then-power-off', inst, { sync: async () => syncOutcomeOf(report()), power: undefined, powerOffFromBox: async () => ({ ok: false, reason: 'stillAnswering', seconds: 121 }), log });
    await runEndAction('sync-then-power-off', inst, { sync: async () => syncOutcomeOf(report({ skipped: [1] })), power: undefined, log });
    await runEndAction('sync-then-no-gpu', inst, { sync: async () => syncOutcomeOf(report()), power: undefined, log });
    assert.deepEqual(
      lines.map(([l, said]) => endLogLine(l, said, 'en', inst.id)),
      [
        '[h.example] end action sync-then-power-off: final checkpoint sync',
        '[h.example] final sync verified: 3 file(s) pulled, 3 already here, all verified',
        '[h.example] powerOff via box',
        '[h.example] powerOff via box NOT done: the box still answers SSH 121 s after the power-off',
        '[h.example] end action sync-then-power-off: not completed; the box keeps billing',
        '[h.example] end action sync-then-power-off: final checkpoint sync',
        '[h.example] final sync FAILED: 1 file(s) skipped',
        '[h.example] end action sync-then-power-off: not completed (syncFailed); the box keeps billing',
        '[h.example] end action sync-then-no-gpu: final checkpoint sync',
        '[h.example] final sync verified: 3 file(s) pulled, 3 already here, all verified',
        '[h.example] noGpu: not possible without a platform connector',
        '[h.example] end action sync-then-no-gpu: not completed (noWayToPower); the box keeps billing',
      ],
    );
    assert.deepEqual(
      lines.map(([l, said]) => endLogLine(l, said, 'zh-cn', inst.id)),
      [
        '[h.example] 结束动作 sync-then-power-off：最后一次检查点同步',
        '[h.example] 最后一次同步已校验：拉取了 3 个文件，本地已有 3 个，全部已校验',
        '[h.example] 关机：通过机器',
        '[h.example] 关机没有完成：关机 121 秒后机器仍在应答 SSH',
        '[h.example] 结束动作 sync-then-power-off：没有完成；机器仍在计费',
        '[h.example] 结束动作 sync-then-power-off：最后一次检查点同步',
        '[h.example] 最后一次同步失败：跳过了 1 个文件',
        '[h.example] 结束动作 sync-then-power-off：没有完成（同步失败）；机器仍在计费',
        '[h.example] 结束动作 sync-then-no-gpu：最后一次检查点同步',
        '[h.example] 最后一次同步已校验：拉取了 3 个文件，本地已有 3 个，全部已校验',
        '[h.example] 无卡模式：没有平台连接器就做不到',
        '[h.example] 结束动作 sync-then-no-gpu：没有完成（没有办法执行电源操作）；机器仍在计费',
      ],
    );
    const sent = { code: 'power-off-sent', command: 'shutdown -h now', seconds: 120, host: '127.0.0.1', port: 2222 } as const;
    assert.equal(endLogLine('power-off sent (shutdown -h now); waiting up to 120 s for 127.0.0.1:2222 to stop answering', sent, 'en', inst.id), 'power-off sent (shutdown -h now); waiting up to 120 s for 127.0.0.1:2222 to stop answering');
    assert.equal(endLogLine('power-off sent (shutdown -h now); waiting up to 120 s for 127.0.0.1:2222 to stop answering', sent, 'zh-cn', inst.id), '已发送关机命令（shutdown -h now）；最多等待 120 秒，直到 127.0.0.1:2222 不再应答');
  });

  it('a failed sync: the still-billing line as before in English, all Chinese under zh, a thrown RemoteError in its Chinese words', async () => {
    const skipped = await end(async () => syncOutcomeOf(report({ skipped: [1, 2] })), { ok: true, seconds: 1 });
    assert.equal(endStepLine(skipped.steps[0]!, 'en'), 'sync: FAILED — 2 file(s) skipped');
    assert.equal(endStepLine(skipped.steps[0]!, 'zh-cn'), '同步：失败 — 跳过了 2 个文件');
    assert.equal(stillBillingText(skipped, '¥2.00/h', 'en'), 'end action sync-then-power-off: the box did NOT power off and keeps billing ¥2.00/h: the final sync failed (2 file(s) skipped), so no power action ran');
    assert.equal(stillBillingText(skipped, '¥2.00/h', 'zh-cn'), '结束动作 sync-then-power-off：机器没有关机，仍在计费 ¥2.00/h：最终同步失败（跳过了 2 个文件），因此没有执行开关机操作');
    const interrupted = await end(async () => syncOutcomeOf(report({ interrupted: true })));
    assert.equal(endStepLine(interrupted.steps[0]!, 'zh-cn'), '同步：失败 — 被中断');
    assert.equal(endStepLine(interrupted.steps[0]!, 'en'), 'sync: FAILED — interrupted');

    const thrown = await end(async () => {
      throw waitEnded({ code: 'connection-closed' }, { detail: { host: 'h.example', port: 2222 } });
    });
    assert.equal(endStepLine(thrown.steps[0]!, 'en'), 'sync: FAILED — the connection was closed');
    assert.equal(endStepLine(thrown.steps[0]!, 'zh-cn'), '同步：失败 — 连接已关闭（在 h.example:2222 上）');
    const plain = await end(async () => {
      throw new Error('EACCES: permission denied, open /x');
    });
    assert.equal(endStepLine(plain.steps[0]!, 'zh-cn'), '同步：失败 — EACCES: permission denied, open /x');
    // The app layer's own English line is the same words (launch and the log keep using it).
    for (const r of [skipped, thrown]) assert.equal(stillBillingText(r, '¥2.00/h', 'en'), stillBillingLine(r, '¥2.00/h'));
  });
});

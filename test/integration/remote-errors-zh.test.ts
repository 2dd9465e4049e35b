// The built CLI against a real sshd under a Chinese locale (issue 23.6): a failure on the box
// reaches the user as one Chinese sentence naming the job, not the remote layer's English message
// inside a Chinese frame; the English run prints the message it always printed.
import assert from 'node:assert/strict';
import { runCli } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { tempDir } from './remote-helpers';

describe('remote failures in Chinese from the CLI (real sshd)', function () {
  this.timeout(90000);
  let sshd: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  let target: string;

  before(async () => {
    sshd = await startSshd();
    home = tempDir('gpu-rent-zh-home-');
    env = { GPU_RENT_HOME: home.path, HOME: home.path, GPU_RENT_PASSWORD: sshd.password, SSH_AUTH_SOCK: '' };
    target = `ssh://${sshd.user}@127.0.0.1:${sshd.port}`;
  });
  after(async () => {
    if (sshd && target) runCli(['stop', target, 'zh-dup', '--grace', '1'], { env });
    await sshd?.stop();
    home?.remove();
  });

  it('no such job: the English message as before, the Chinese without it', () => {
    const enRun = runCli(['logs', target, 'zh-missing', '--accept-new'], { env });
    assert.equal(enRun.code, 1);
    assert.match(enRun.stderr, /no job named zh-missing on this box \(gpu-rent jobs TARGET lists them\)/);
    const zhRun = runCli(['logs', target, 'zh-missing'], { env: { ...env, LANG: 'zh_CN.UTF-8' } });
    assert.equal(zhRun.code, 1);
    assert.match(zhRun.stderr, /这台机器上没有名为 zh-missing 的任务（gpu-rent jobs TARGET 可列出全部）/);
    assert.doesNotMatch(zhRun.stderr, /no job named|lists them/);
  });

  it('a job of that name already running: said in Chinese, with the command that helps', () => {
    const first = runCli(['run', target, '--accept-new', '--name', 'zh-dup', '--', 'sleep', '60'], { env });
    assert.equal(first.code, 0, first.stderr);
    const again = runCli(['run', target, '--name', 'zh-dup', '--lang', 'zh-cn', '--', 'sleep', '60'], { env });
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /名为 zh-dup 的任务已在运行：请先停止它（gpu-rent stop TARGET zh-dup），或用 --name 换个名字/);
    assert.doesNotMatch(again.stderr, /already running|pick another/);
  });
});

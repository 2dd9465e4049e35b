// Every command of the CLI takes --lang and answers --help in Chinese under a Chinese locale
// (issue 23.5): each command module's own help and flag parser, and the built CLI's command list.
import { strict as assert } from 'node:assert';
import { UsageError } from '../../src/cli/args';
import type { CliCommand, CliIO } from '../../src/cli/command';
import { guardCommands } from '../../src/cli/guard-commands';
import { command as accounts } from '../../src/cli/commands/accounts';
import { command as advise } from '../../src/cli/commands/advise';
import { command as balance } from '../../src/cli/commands/balance';
import { command as clone } from '../../src/cli/commands/clone';
import { command as create } from '../../src/cli/commands/create';
import { command as diagnose } from '../../src/cli/commands/diagnose';
import { command as doctor } from '../../src/cli/commands/doctor';
import { command as instances } from '../../src/cli/commands/instances';
import { command as jobs } from '../../src/cli/commands/jobs';
import { command as launch } from '../../src/cli/commands/launch';
import { command as logs } from '../../src/cli/commands/logs';
import { command as notify } from '../../src/cli/commands/notify';
import { command as platforms } from '../../src/cli/commands/platforms';
import { powerOff, powerOn, release } from '../../src/cli/commands/power';
import { command as probe } from '../../src/cli/commands/probe';
import { command as push } from '../../src/cli/commands/push';
import { command as quote } from '../../src/cli/commands/quote';
import { command as run } from '../../src/cli/commands/run';
import { command as runs } from '../../src/cli/commands/runs';
import { command as schedule } from '../../src/cli/commands/schedule';
import { command as smi } from '../../src/cli/commands/smi';
import { command as stock } from '../../src/cli/commands/stock';
import { command as storage } from '../../src/cli/commands/storage';
import { command as forward } from '../../src/cli/commands/forward';
import { command as grab } from '../../src/cli/commands/grab';
import { command as shutdownTimer } from '../../src/cli/commands/shutdown-timer';
import { command as mcp } from '../../src/cli/commands/mcp';
import { command as stop } from '../../src/cli/commands/stop';
import { command as sync } from '../../src/cli/commands/sync';
import { runCli } from '../support/cli';

const CJK = /[\u4e00-\u9fff]/;
const ZH = { LC_ALL: '', LC_MESSAGES: '', LANG: 'zh_CN.UTF-8' };
const EN = { LC_ALL: '', LC_MESSAGES: '', LANG: 'C.UTF-8' };
const ALL: CliCommand[] = [platforms, quote, advise, smi, diagnose, doctor, probe, run, runs, jobs, logs, stop, sync, accounts, instances, powerOn, powerOff, release, balance, stock, push, create, schedule, shutdownTimer, launch, clone, grab, notify, storage, forward, mcp, ...guardCommands];

const io: CliIO = { stdout: () => undefined, stderr: () => undefined, readStdin: async () => '', env: EN, isTTY: false };

describe('gpu-rent COMMAND --help and --lang on every command', () => {
  it('the list here is every command the built CLI lists', () => {
    const names = runCli(['--help'], { env: EN })
      .stdout.split('\n')
      .map((l) => /^ {2}([a-z-]+) {2,}/.exec(l)?.[1])
      .filter((n): n is string => n !== undefined);
    assert.deepEqual([...names].sort(), ALL.map((c) => c.name).sort());
  });

  for (const c of ALL) {
    it(`${c.name}: Chinese summary and help under LANG=zh_CN, English with --lang en; --lang parsed beside a bad flag`, async () => {
      assert.match(c.summaryZh ?? '', CJK);
      const zh = c.help({ env: ZH, argv: [] });
      assert.match(zh, /^用法：gpu-rent /);
      assert.match(zh.split('\n\n')[1]!, CJK, 'the summary under the usage line');
      assert.match(zh, /--help +显示此帮助\n$/);
      const en = c.help({ env: ZH, argv: ['--lang', 'en'] });
      assert.match(en, /^Usage: gpu-rent /);
      assert.equal(en, c.help({ env: EN, argv: [] }));
      // --lang is one of its flags: the parser names the bad flag beside it, in both languages.
      const err = await c.run(['--lang', 'zh-cn', '--no-such-flag'], io).then(
        () => assert.fail('accepted --no-such-flag'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof UsageError, String(err));
      assert.match(err.message, /^unknown flag --no-such-flag \(accepts .*--lang/);
      assert.match(err.zh ?? '', /^未知选项 --no-such-flag（可用：.*--lang/);
    });
  }
});

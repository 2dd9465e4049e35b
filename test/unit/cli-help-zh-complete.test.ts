// The Chinese help is complete (issue 45): under a Chinese locale every command's --help has a
// Chinese description on every flag line, none left in English. FlagSpec's `zh` is required by
// the type; this catches a spec built around the type (a spread, a cast) and the help formatter.
import { strict as assert } from 'node:assert';
import type { CliCommand } from '../../src/cli/command';
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

const CJK = /[\u4e00-\u9fff]/;
// The same list as cli-lang-help.test.ts, which checks it against the built CLI's command list.
const ALL: CliCommand[] = [platforms, quote, advise, smi, diagnose, doctor, probe, run, runs, jobs, logs, stop, sync, accounts, instances, powerOn, powerOff, release, balance, stock, push, create, schedule, shutdownTimer, launch, clone, grab, notify, storage, forward, mcp, ...guardCommands];
const ZH = { LC_ALL: '', LC_MESSAGES: '', LANG: 'zh_CN.UTF-8' };
const EN = { LC_ALL: '', LC_MESSAGES: '', LANG: 'C.UTF-8' };

/** The flag lines of a help text: those under 选项： (two spaces, then -x or --flag). */
function flagLines(help: string): string[] {
  const at = help.indexOf('选项：');
  if (at === -1) return [];
  return help
    .slice(at)
    .split('\n')
    .filter((l) => /^ {2}(-[A-Za-z], )?--[a-z]/.test(l));
}

describe('gpu-rent COMMAND --help under zh-cn: no flag line in English', () => {
  it('every command, every flag: a Chinese description', () => {
    const left: string[] = [];
    for (const c of ALL) {
      const lines = flagLines(c.help({ env: ZH, argv: [] }));
      const en = c.help({ env: EN, argv: [] }).split('\n');
      assert.ok(lines.length > 0, `${c.name}: no flag lines under 选项：`);
      // Chinese words, and not the English line itself (an English description may name 阿里云).
      for (const l of lines) if (!CJK.test(l) || en.includes(l)) left.push(`${c.name}: ${l.trim()}`);
    }
    assert.deepEqual(left, [], `flag lines still in English:\n${left.join('\n')}`);
  });
});

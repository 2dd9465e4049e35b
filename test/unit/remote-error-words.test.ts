// Remote failures in the user's words (issue 23.6: "remote errors localized instead of English
// inside Chinese sentences"): every login problem, box failure and SSH failure the remote layer
// raises is a code with its facts; its English is the message it always had (the literal old
// strings below are the oracle), and through the zh bundle, as VS Code and the CLI read it, it
// holds no English sentence. What the box said stays data: inert, cut, never a link.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { badInput, boxFailed, boxFailureEnglish, boxOutput, inputProblemEnglish, protocolFailed, protocolFailureEnglish, RemoteError, waitEnded, waitProblemEnglish, type WaitProblem, type WaitProblemCode, type BoxFailure, type BoxFailureCode, type InputProblem, type InputProblemCode, type ProtocolFailure, type ProtocolFailureCode } from '../../src/remote/errors';
import { sanitizeJobName, startJob } from '../../src/remote/jobs';
import { wrapWithLauncher } from '../../src/remote/jobs-launcher';
import { shQuote } from '../../src/remote/shell';
import { boxPath, type BoxSession } from '../../src/remote/guards/session';
import { rebuildScript, startRebuild } from '../../src/remote/guards/environment';
import { secureUpload } from '../../src/remote/guards/ramdisk';
import { multiNodeArgv, startMultiNode } from '../../src/app/runs/multinode';
import type { RemoteConnection } from '../../src/remote/connection';
import { loginProblemEnglish, parseTarget, tryParseTarget, type LoginProblem, type LoginProblemCode } from '../../src/remote/target';
import { boxFailureText, inputProblemText, loginProblemText, protocolFailureText, waitProblemText } from '../../src/app/remoteWords';
import { ChannelBudget } from '../../src/remote/channel-budget';
import { abortedDuring } from '../../src/remote/exec-channel';

import { asCliError, targetFromArg } from '../../src/cli/remote-common';
import { messageIn } from '../../src/cli/words';
import type { CliIO } from '../../src/cli/command';
import { en, inZh } from '../support/l10n';


// Words a Chinese sentence keeps as they are: commands, flags, units, protocol and product names.
const KEPT = [
  'gpu-rent run TARGET --name train -- python train.py',
  'gpu-rent stop TARGET',
  'gpu-rent jobs TARGET',
  'ssh://user@host:port',
  'ssh -p 12345 root@host',
  '~/.ssh/config',
  'GPU_RENT_PASSWORD',
  'Key=Value',
  'HostName',
  'Host',
  'Port',
  'nvidia-smi',
  '--master-addr',
  '--gpus',
  '--name',
  '--port',
  'torch',
  'wipe',
  'VPC',
  'MiB',
  'KiB',
  'SSH',
  'GPU',
  'ssh',
  'pid',
  '--nodes',
  'python',
  'Python',
  'shell',
  'NUL',
];

/** What is left of a Chinese text once the facts it names and the kept words are taken out. */
function englishLeft(text: string, facts: readonly string[]): string {
  let rest = text;
  for (const f of [...facts].sort((a, b) => b.length - a.length)) if (f) rest = rest.replaceAll(f, ' ');
  for (const k of KEPT) rest = rest.replaceAll(k, ' ');
  return rest;
}

const factsOf = (o: object): string[] =>
  Object.values(o).flatMap((v) => (typeof v === 'string' ? [v] : typeof v === 'number' ? [String(v), String(v / 1024 / 1024)] : v && typeof v === 'object' ? factsOf(v) : []));

// One of each code, typed by code: a new code without a case here does not compile.
const BOX: { [C in BoxFailureCode]: [Extract<BoxFailure, { code: C }>, string] } = {
  'probe-output-too-big': [{ code: 'probe-output-too-big', limitBytes: 4 * 1024 * 1024 }, 'the probe printed more than 4 MiB on the box (a real one prints a few KiB); stopped it and read nothing of it'],
  'probe-unfinished': [{ code: 'probe-unfinished', exit: '137', output: 'Killed' }, 'the probe did not finish on the box (exit 137): Killed'],
  'jobs-output-too-big': [{ code: 'jobs-output-too-big', limitBytes: 1024 * 1024 }, 'the jobs listing printed more than 1 MiB on the box (a real one is a few KiB); not read'],
  'gpu-count-unreadable': [{ code: 'gpu-count-unreadable', output: 'notFound: nvidia-smi: command not found' }, 'could not read the GPU count from nvidia-smi (notFound: nvidia-smi: command not found); pass --gpus N'],
  'gpu-none-listed': [{ code: 'gpu-none-listed' }, 'nvidia-smi lists no GPU on this box; pass --gpus N'],
  'job-already-running': [{ code: 'job-already-running', name: 'train7' }, 'a job named train7 is already running: stop it first (gpu-rent stop TARGET train7) or pick another --name'],
  'job-start-failed': [{ code: 'job-start-failed', name: 'train7', exit: '5', output: 'tmux: need UTF-8 locale' }, 'could not start job train7 (exit 5): tmux: need UTF-8 locale'],
  'job-not-found': [{ code: 'job-not-found', name: 'train7' }, 'no job named train7 on this box (gpu-rent jobs TARGET lists them)'],
  'private-address-unknown': [{ code: 'private-address-unknown' }, 'could not find the first node’s private address: pass --master-addr'],
  'gpu-counts-differ': [{ code: 'gpu-counts-differ', counts: 'node0: 8, node1: 4' }, 'the nodes have different GPU counts (node0: 8, node1: 4): every node needs the same number'],
  'port-in-use': [{ code: 'port-in-use', port: 29500, node: 'node0' }, 'port 29500 on node0 is already in use: pick another --port'],
  'nodes-unreachable': [
    { code: 'nodes-unreachable', nodes: 'node1', first: 'node0', address: '172.16.0.8', port: 29500, output: 'Connection refused' },
    'node1 cannot reach node0 at 172.16.0.8:29500 (Connection refused): put the nodes in one VPC / security group that allows the port',
  ],
  'env-capture-unfinished': [{ code: 'env-capture-unfinished', exit: '1' }, 'capturing the environment did not finish on the box (exit 1)'],
  'torch-command-unexpected': [{ code: 'torch-command-unexpected', command: 'conda install torch' }, 'unexpected torch install command: conda install torch'],
  'torch-word-unexpected': [{ code: 'torch-word-unexpected', word: '$(id)' }, 'unexpected word in the torch install command: $(id)'],
  'step-failed': [{ code: 'step-failed', step: { step: 'watchdog-start' }, exit: '1', output: 'setsid: not found' }, 'starting the watchdog failed on the box (exit 1): setsid: not found'],
  'watchdog-not-armed': [{ code: 'watchdog-not-armed', pid: 'none', running: false, outputPath: '/root/.gpu-rent/watchdog/output.log' }, 'the watchdog did not arm on the box (pid none, not running, no heartbeat); see /root/.gpu-rent/watchdog/output.log'],
  'supervisor-not-armed': [{ code: 'supervisor-not-armed', pid: 'none', running: false, outputPath: '~/.gpu-rent/supervisor/lora/supervisor.out' }, "the run's supervisor did not arm on the box (not running, no heartbeat); see ~/.gpu-rent/supervisor/lora/supervisor.out"],
  'ram-upload-failed': [{ code: 'ram-upload-failed', file: 'keys/id_rsa', dir: '/dev/shm/gpu-rent', output: 'No such file' }, 'uploading keys/id_rsa failed: No such file. Files already in /dev/shm/gpu-rent stay in RAM; run wipe to remove them.'],
};

// Every step runSh names, with the English it always had.
const STEPS: [BoxFailure & { code: 'step-failed' }, string][] = (
  [
    [{ step: 'watchdog-status' }, 'reading the watchdog status'],
    [{ step: 'watchdog-start' }, 'starting the watchdog'],
    [{ step: 'watchdog-remove' }, 'removing the watchdog'],
    [{ step: 'watchdog-write', name: 'watchdog.sh' }, 'writing watchdog.sh'],
    [{ step: 'ram-check' }, 'checking the upload folder'],
    [{ step: 'ram-create' }, 'creating the RAM folder'],
    [{ step: 'ram-wipe' }, 'wiping the RAM folder'],
    [{ step: 'env-copy', name: 'environment.yml' }, 'copying environment.yml'],
    [{ step: 'supervisor-python' }, 'looking for python3'],
    [{ step: 'supervisor-status' }, 'reading the supervisor status'],
    [{ step: 'supervisor-mark' }, 'marking the laptop awake'],
    [{ step: 'supervisor-claim' }, 'taking the end over from the supervisor'],
    [{ step: 'supervisor-stop' }, 'stopping the supervisor'],
    [{ step: 'supervisor-start' }, 'starting the supervisor'],
    [{ step: 'supervisor-write', name: 'config.json' }, 'writing config.json'],
  ] as const
).map(([step, what]) => [{ code: 'step-failed', step, exit: 'signal', output: '' }, `${what} failed on the box (exit signal)`]);

const PROTOCOL: { [C in ProtocolFailureCode]: [Extract<ProtocolFailure, { code: C }>, string] } = {
  'ssh-setup': [{ code: 'ssh-setup', output: 'Invalid username' }, 'SSH setup failed: Invalid username'],
  'ssh-handshake': [{ code: 'ssh-handshake', label: 'root@h.example:22', output: 'no matching key exchange algorithm' }, 'SSH handshake with root@h.example:22 failed: no matching key exchange algorithm'],
  'ssh-channel': [{ code: 'ssh-channel', output: 'Channel open failure: open failed' }, 'SSH channel failed: Channel open failure: open failed'],
  'host-key-format': [{ code: 'host-key-format' }, 'the server sent a host key in an unknown format'],
  'ssh-other': [{ code: 'ssh-other', output: 'Error: write EPIPE' }, 'Error: write EPIPE'],
};

// A paste for each login problem, and the English the parser always gave for it.
const LOGIN: { [C in LoginProblemCode]: [input: unknown, english: string] } = {
  'login-not-text': [42, 'the target must be text'],
  'login-empty': ['', 'no target given (expected ssh://user@host:port, a pasted ssh login command, or a Host from ~/.ssh/config)'],
  'login-control-chars': ['a\u0000b', 'the target contains control characters'],
  'login-not-a-target': ['bad host name', '"bad host name" is not a target (expected ssh://user@host:port, a pasted ssh login command, or a Host from ~/.ssh/config)'],
  'login-quote-unbalanced': ["ssh 'root@h", "unbalanced ' quote in the login command"],
  'login-port-range': ['ssh -p 99999 root@h', '-p: the port must be a number from 1 to 65535, got "99999"'],
  'login-password-inside': ['root:pw@h', 'do not put a password in the target: set GPU_RENT_PASSWORD or answer the prompt'],
  'login-user-invalid': ['r!oot@h', 'target: "r!oot" is not a valid user name'],
  'login-host-empty': ['root@', 'target: the host name is empty'],
  'login-host-invalid': ['root@-bad-', 'target: "-bad-" is not a valid host name or address'],
  'login-url-invalid': ['ssh://[', '"ssh://[" is not a valid ssh:// address (expected ssh://user@host:port)'],
  'login-url-path': ['ssh://h:22/path', 'ssh:// address "ssh://h:22/path" has a path or query; expected ssh://user@host:port'],
  'login-url-user-encoding': ['ssh://%E0%A4%A@h', 'the user name in "ssh://%E0%A4%A@h" is not valid percent-encoding'],
  'login-option-form': ['ssh -o =yes root@h', '-o "=yes" is not an option of the form Key=Value'],
  'login-flag-unknown': ['ssh -Z root@h', 'unknown ssh option -Z in the login command'],
  'login-flag-value': ['ssh -p', 'ssh option -p needs a value'],
  'login-jump-host': ['ssh -J jump root@h', 'jump hosts (-J) are not supported yet: connect to the box directly'],
  'login-no-host': ['ssh -p 22', 'the login command names no host (expected e.g. ssh -p 12345 root@host)'],
};

// More places a problem can sit, with the English prefix each always had.
const MORE_LOGIN: [string, LoginProblemCode, string][] = [
  ['ssh -o Port=0 root@h', 'login-port-range', '-o Port: the port must be a number from 1 to 65535, got "0"'],
  ['root@h:70000', 'login-port-range', 'target: the port must be a number from 1 to 65535, got "70000"'],
  ['ssh r!oot@h', 'login-user-invalid', 'login command: "r!oot" is not a valid user name'],
  ['ssh -o HostName=-x- h', 'login-host-invalid', '-o HostName: "-x-" is not a valid host name or address'],
  ['ssh://-bad-:22', 'login-host-invalid', '"-bad-" is not a valid host name or address'],
  ['ssh -l r!oot h', 'login-user-invalid', '"r!oot" is not a valid user name'],
  ['ssh root@', 'login-host-empty', 'login command: the host name is empty'],
];

// Each argument that cannot be used: its facts, the English it always had, and its Chinese (literal oracles).
const INPUT: { [C in InputProblemCode]: [Extract<InputProblem, { code: C }>, english: string, chinese: string] } = {
  'job-name-invalid': [{ code: 'job-name-invalid', name: '///' }, '"///" is not usable as a job name: use letters, digits, - and _', '“///”不能用作任务名：只能用字母、数字、- 和 _'],
  'env-var-name-invalid': [{ code: 'env-var-name-invalid', name: '1A' }, '"1A" is not a valid environment variable name', '“1A”不是有效的环境变量名'],
  'job-command-missing': [{ code: 'job-command-missing' }, 'no command given: put it after --, e.g. gpu-rent run TARGET --name train -- python train.py', '没有给出命令：请把命令写在 -- 之后，例如 gpu-rent run TARGET --name train -- python train.py'],
  'launch-command-missing': [{ code: 'launch-command-missing' }, 'no command to launch', '没有要启动的命令'],
  'launch-script-missing': [{ code: 'launch-script-missing' }, 'the launcher needs a script after python', '启动器需要在 python 之后给出脚本'],
  'gpus-invalid': [{ code: 'gpus-invalid', gpus: 0 }, '--gpus must be a whole number ≥ 1, got 0', '--gpus 必须是不小于 1 的整数，收到的是 0'],
  'nodes-too-few': [{ code: 'nodes-too-few' }, '--nodes needs at least two nodes', '--nodes 至少需要两个节点'],
  'shell-arg-nul': [{ code: 'shell-arg-nul' }, 'a shell argument cannot contain a NUL byte', 'shell 参数不能包含 NUL 字节'],
  'box-path-invalid': [{ code: 'box-path-invalid' }, 'a path on the box cannot contain NUL or newline characters', '实例上的路径不能包含 NUL 或换行符'],
  'env-name-invalid': [
    { code: 'env-name-invalid', name: '../x', rule: true },
    `"../x" is not a usable env name: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64`,
    '“../x”不能用作环境名：只能用字母、数字、“.”、“_”和“-”，以字母或数字开头，最多 64 个字符',
  ],
  'python-version-invalid': [{ code: 'python-version-invalid' }, 'not a Python version', '不是有效的 Python 版本'],
  'ram-dir-relative': [{ code: 'ram-dir-relative', dir: 'shm/x' }, 'the RAM folder must be an absolute path on the box (got "shm/x")', '内存文件夹必须是实例上的绝对路径（收到的是“shm/x”）'],
  'ram-dir-dotdot': [{ code: 'ram-dir-dotdot', dir: '/dev/shm/../root' }, 'the RAM folder may not contain ".." (got "/dev/shm/../root")', '内存文件夹不能包含“..”（收到的是“/dev/shm/../root”）'],
  'upload-nothing': [
    { code: 'upload-nothing', skipped: [{ path: '/tmp/a/none', reason: 'does not exist' }, { path: '/tmp/a/link', reason: 'broken link' }] },
    'nothing to upload: /tmp/a/none (does not exist), /tmp/a/link (broken link)',
    '没有可上传的文件：/tmp/a/none（不存在），/tmp/a/link（链接已失效）',
  ],
};

// The other shapes a code's words take.
const MORE_INPUT: [InputProblem, english: string, chinese: string][] = [
  [{ code: 'env-name-invalid', name: '../x', rule: false }, '"../x" is not a usable env name', '“../x”不能用作环境名'],
  [{ code: 'upload-nothing', skipped: [] }, 'nothing to upload', '没有可上传的文件'],
  [
    { code: 'upload-nothing', skipped: [{ path: '/a', reason: 'cannot be read' }, { path: '/b', reason: 'link to something other than a file' }, { path: '/c', reason: 'symbolic link inside a folder' }, { path: '/d', reason: 'not a regular file' }] },
    'nothing to upload: /a (cannot be read), /b (link to something other than a file), /c (symbolic link inside a folder), /d (not a regular file)',
    '没有可上传的文件：/a（无法读取），/b（链接指向的不是文件），/c（文件夹内的符号链接），/d（不是普通文件）',
  ],
];

// Each wait that ended (a deadline, a cancel, a closed connection): its facts, the English the
// channel budget and exec channel always gave, and its Chinese (literal oracles).
const WAIT: { [C in WaitProblemCode]: [Extract<WaitProblem, { code: C }>, english: string, chinese: string] } = {
  'channel-wait': [{ code: 'channel-wait', inUse: 8, budget: 8 }, 'waited too long for a free SSH channel (8 in use, budget 8)', '等待空闲 SSH 通道的时间太长（8 个在用，上限 8）'],
  'command-timeout': [{ code: 'command-timeout', seconds: 2.5 }, 'the remote command did not finish within 2.5 s', '远程命令没有在 2.5 秒内结束'],
  'stage-timeout': [{ code: 'stage-timeout', stage: 'sftp-open' }, 'opening SFTP took longer than the deadline', '打开 SFTP 超过了时限'],
  cancelled: [{ code: 'cancelled' }, 'cancelled', '已取消'],
  'connection-closed': [{ code: 'connection-closed' }, 'the connection was closed', '连接已关闭'],
};
const MORE_WAIT: [WaitProblem, english: string, chinese: string][] = [
  [{ code: 'stage-timeout', stage: 'connect' }, 'connecting took longer than the deadline', '连接超过了时限'],
  [{ code: 'stage-timeout', stage: 'channel-open' }, 'opening an SSH channel took longer than the deadline', '打开 SSH 通道超过了时限'],
  [{ code: 'stage-timeout', stage: 'command' }, 'the remote command took longer than the deadline', '远程命令超过了时限'],
];

/** The RemoteError a call throws (synchronously or as a rejection). */
async function thrownBy(f: () => unknown): Promise<unknown> {
  try {
    await f();
  } catch (e) {
    return e;
  }
  assert.fail('no error was thrown');
}

describe('remote failures as codes, in the user’s words (app/remoteWords)', () => {
  it('each box failure and SSH failure keeps the English message it always had, and the English words are that message', () => {
    for (const [f, english] of [...Object.values(BOX), ...STEPS] as [BoxFailure, string][]) {
      assert.equal(boxFailureEnglish(f), english);
      const e = boxFailed(f);
      assert.ok(e instanceof RemoteError && e.is('remote-failed'));
      assert.equal(e.message, english);
      assert.deepEqual(e.detail.failure, f);
      assert.equal(boxFailureText(f, en), english);
    }
    for (const [f, english] of Object.values(PROTOCOL) as [ProtocolFailure, string][]) {
      assert.equal(protocolFailureEnglish(f), english);
      const e = protocolFailed(f, { detail: { host: 'h.example', port: 22 } });
      assert.ok(e.is('protocol') && e.detail.failure === f && e.detail.host === 'h.example');
      assert.equal(e.message, english);
      assert.equal(protocolFailureText(f, en), english);
    }
  });

  it('each login problem has its code, the English the parser always gave, and the same English in the words', () => {
    for (const [code, [input, english]] of Object.entries(LOGIN)) {
      const r = tryParseTarget(input as string);
      assert.ok(!r.ok, String(input));
      assert.equal(r.reason.code, code, String(input));
      assert.equal(r.problem, english);
      assert.equal(loginProblemEnglish(r.reason), english);
      assert.equal(loginProblemText(r.reason, en), english);
    }
    for (const [input, code, english] of MORE_LOGIN) {
      const r = tryParseTarget(input);
      assert.ok(!r.ok && r.reason.code === code, input);
      assert.equal(r.problem, english);
      assert.equal(loginProblemText(r.reason, en), english);
    }
    assert.throws(
      () => parseTarget('ssh -p 0 root@h'),
      (e: unknown) => e instanceof RemoteError && e.is('bad-target') && e.detail.login?.code === 'login-port-range' && e.detail.login.port === '0',
    );
  });

  it('each argument that cannot be used has its code, the English it always had, and its Chinese', () => {
    for (const [p, english, chinese] of [...Object.values(INPUT), ...MORE_INPUT] as [InputProblem, string, string][]) {
      assert.equal(inputProblemEnglish(p), english);
      const e = badInput(p);
      assert.ok(e instanceof RemoteError && e.is('bad-target') && e.fatal);
      assert.equal(e.message, english);
      assert.deepEqual(e.detail.input, p);
      assert.equal(inputProblemText(p, en), english);
      assert.equal(inputProblemText(p, inZh), chinese);
    }
  });

  it('each wait that ended has its code, the English it always had, and its Chinese', () => {
    for (const [w, english, chinese] of [...Object.values(WAIT), ...MORE_WAIT] as [WaitProblem, string, string][]) {
      assert.equal(waitProblemEnglish(w), english);
      assert.equal(waitProblemText(w, en), english);
      assert.equal(waitProblemText(w, inZh), chinese);
      const e = waitEnded(w as never);
      assert.equal(e.code, w.code === 'cancelled' || w.code === 'connection-closed' ? 'aborted' : 'timeout');
      assert.equal(e.message, english);
      assert.deepEqual((e.detail as { wait?: WaitProblem }).wait, w);
    }
  });

  it('the channel budget and the exec channel raise those codes, with the English they always gave', async () => {
    // A budget of one, held: the next caller waits under a 30 ms deadline, then under a cancel, then sees the connection close.
    const budget = new ChannelBudget(1);
    const held = await budget.acquire();
    const late = await thrownBy(() => budget.acquire(AbortSignal.timeout(30)));
    assert.ok(late instanceof RemoteError && late.is('timeout'));
    assert.equal(late.message, 'waited too long for a free SSH channel (1 in use, budget 1)');
    assert.deepEqual(late.detail.wait, { code: 'channel-wait', inUse: 1, budget: 1 });
    assert.equal(late.detail.stage, 'channel-wait');
    const ac = new AbortController();
    const cancelled = budget.acquire(ac.signal).catch((e: unknown) => e);
    ac.abort();
    const c = await cancelled;
    assert.ok(c instanceof RemoteError && c.is('aborted') && c.message === 'cancelled' && c.detail.wait?.code === 'cancelled');
    const waiting = budget.acquire().catch((e: unknown) => e);
    budget.close();
    const closed = await waiting;
    assert.ok(closed instanceof RemoteError && closed.is('aborted') && closed.message === 'the connection was closed');
    // No box named (a bare budget): the sentence alone, no "在 实例 上".
    assert.equal(messageIn('zh-cn', asCliError(closed)), '连接已关闭');
    const named = new RemoteError('aborted', closed.message, { detail: { ...closed.detail, host: 'connect.example', port: 2222 } });
    assert.equal(messageIn('zh-cn', asCliError(named)), '连接已关闭（在 connect.example:2222 上）');
    held();
    // The exec channel's deadline words, from the reason a deadline signal carries.
    const s = AbortSignal.timeout(1);
    await new Promise((r) => setTimeout(r, 20));
    const cmd = abortedDuring('command', s.reason, 2000);
    assert.ok(cmd.is('timeout') && cmd.message === 'the remote command did not finish within 2 s' && cmd.detail.timeoutMs === 2000);
    assert.deepEqual(cmd.detail.wait, { code: 'command-timeout', seconds: 2 });
    const open = abortedDuring('channel-open', s.reason);
    assert.equal(open.message, 'opening an SSH channel took longer than the deadline');
    assert.equal(abortedDuring('command', new Error('user')).message, 'cancelled');
    // The CLI under a Chinese locale: all Chinese, no English message beside it; English as before.
    const withWhere = waitEnded({ code: 'command-timeout', seconds: 2 }, { detail: { host: 'h.example', port: 2222, stage: 'command', timeoutMs: 2000 } });
    assert.equal(messageIn('zh-cn', asCliError(withWhere)), '远程命令没有在 2 秒内结束（在 h.example:2222 上）');
    assert.equal(messageIn('en', asCliError(withWhere)), 'the remote command did not finish within 2 s');
    assert.equal(messageIn('zh-cn', asCliError(waitEnded({ code: 'cancelled' }))), '已取消。');
  });

  it('the places that refuse an argument raise its code, with the English they always gave', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'remote-words-'));
    try {
      const noConn = {} as RemoteConnection;
      const noSession = {} as BoxSession;
      const rv = { nnodes: 2, nodeRank: 0, masterAddr: '10.0.0.1', masterPort: 29500, gpusPerNode: 1 };
      const missing = join(dir, 'missing.pt');
      const cases: [() => unknown, InputProblem][] = [
        [() => sanitizeJobName('///'), INPUT['job-name-invalid'][0]],
        [() => startJob(noConn, { name: 't', command: ['python', 'x.py'], env: { '1A': 'v' } }), INPUT['env-var-name-invalid'][0]],
        [() => startJob(noConn, { name: 't', command: [] }), INPUT['job-command-missing'][0]],
        [() => wrapWithLauncher('torchrun', 0, ['python', 'x.py']), INPUT['gpus-invalid'][0]],
        [() => wrapWithLauncher('torchrun', 1, []), INPUT['launch-command-missing'][0]],
        [() => wrapWithLauncher('deepspeed', 1, ['python3']), INPUT['launch-script-missing'][0]],
        [() => multiNodeArgv('torchrun', rv, []), INPUT['launch-command-missing'][0]],
        [() => multiNodeArgv('accelerate', rv, ['/usr/bin/python3.11']), INPUT['launch-script-missing'][0]],
        [() => startMultiNode([], { name: 't', command: ['python', 'x.py'], launcher: 'torchrun' }), INPUT['nodes-too-few'][0]],
        [() => shQuote('a\0b'), INPUT['shell-arg-nul'][0]],
        [() => boxPath('ckpt\nrm -rf ~'), INPUT['box-path-invalid'][0]],
        [() => rebuildScript({ envName: '../x', pythonMinor: null }, { kind: 'none' } as never, false, 'h'), { code: 'env-name-invalid', name: '../x', rule: false }],
        [() => rebuildScript({ envName: 'train', pythonMinor: '3.x' }, { kind: 'none' } as never, false, 'h'), INPUT['python-version-invalid'][0]],
        [() => startRebuild(noConn, {} as never, '../x'), INPUT['env-name-invalid'][0]],
        [() => secureUpload(noSession, [missing], 'shm/x'), INPUT['ram-dir-relative'][0]],
        [() => secureUpload(noSession, [missing], '/dev/shm/../root'), INPUT['ram-dir-dotdot'][0]],
        [() => secureUpload(noSession, [missing]), { code: 'upload-nothing', skipped: [{ path: missing, reason: 'does not exist' }] }],
      ];
      for (const [f, p] of cases) {
        const e = await thrownBy(f);
        assert.ok(e instanceof RemoteError && e.is('bad-target'), `${p.code}: ${String(e)}`);
        assert.deepEqual(e.detail.input, p);
        assert.equal(e.message, inputProblemEnglish(p));
      }
      // The literal English a user saw before, from the places themselves.
      assert.equal(((await thrownBy(() => secureUpload(noSession, [missing]))) as Error).message, `nothing to upload: ${missing} (does not exist)`);
      assert.equal(((await thrownBy(() => wrapWithLauncher('torchrun', 1.5, ['x.py']))) as Error).message, '--gpus must be a whole number ≥ 1, got 1.5');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('in Chinese every code has words of its own, with no English sentence inside', () => {
    const texts: string[] = [];
    const check = (text: string, facts: string[], what: string) => {
      assert.doesNotMatch(englishLeft(text, facts), /[A-Za-z]{3,}/, `${what}: ${text}`);
      assert.match(text, /[\u4e00-\u9fff]/, what);
      texts.push(text);
    };
    for (const [f] of [...Object.values(BOX), ...STEPS] as [BoxFailure, string][]) check(boxFailureText(f, inZh), factsOf(f), f.code);
    for (const [f] of Object.values(PROTOCOL) as [ProtocolFailure, string][]) if (f.code !== 'ssh-other') check(protocolFailureText(f, inZh), factsOf(f), f.code);
    const problems: LoginProblem[] = [...Object.values(LOGIN).map(([i]) => i), ...MORE_LOGIN.map(([i]) => i)].map((i) => {
      const r = tryParseTarget(i as string);
      assert.ok(!r.ok);
      return r.reason;
    });
    for (const p of problems) check(loginProblemText(p, inZh), factsOf(p).filter((v) => v !== p.code && !['target', 'login-command', 'url'].includes(v)), p.code);
    for (const [p] of [...Object.values(INPUT), ...MORE_INPUT.slice(0, 1)] as [InputProblem, string, string][]) check(inputProblemText(p, inZh), factsOf(p), p.code);
    assert.equal(new Set(texts).size, texts.length, 'two codes share their words');
    // The place a problem sits is said in Chinese too.
    assert.match(loginProblemText(problems.find((p) => p.code === 'login-host-empty')!, inZh), /^目标：/);
  });

  it('what the box said stays data: inert, on one line, cut, never a link', () => {
    const hostile = `\x1b]52;c;cHduZWQ=\x07[Update Login](command:workbench.action.terminal.sendSequence?%7B%7D)\n<img src=x>\u202e${'A'.repeat(5000)}`;
    const f: BoxFailure = { code: 'job-start-failed', name: 'train7', exit: '1', output: boxOutput(hostile) };
    assert.ok(f.output.length <= 1000);
    assert.doesNotMatch(f.output, /[\x00-\x1f\u202e]/);
    for (const l10n of [en, inZh]) {
      const text = boxFailureText(f, l10n);
      assert.doesNotMatch(text, /\]\(|[\x00-\x1f\u202e<>]/);
      assert.ok(text.length < 400, `${text.length} characters`);
    }
  });
});

describe('the CLI says remote failures in Chinese (cli/remote-common)', () => {
  const io: CliIO = { stdout: () => undefined, stderr: () => undefined, readStdin: async () => '', env: { HOME: '/nonexistent-home' }, isTTY: false };

  it('a bad TARGET: the English as before, the Chinese with no English sentence', () => {
    let err: unknown;
    try {
      targetFromArg('ssh -p 99999 root@h', io);
    } catch (e) {
      err = e;
    }
    assert.equal(messageIn('en', err), 'bad TARGET: -p: the port must be a number from 1 to 65535, got "99999"');
    assert.equal(messageIn('zh-cn', err), 'TARGET 无法使用：-p：端口必须是 1 到 65535 之间的数字，收到的是“99999”');
  });

  it('a coded box failure is all Chinese; one without a code keeps its English message inside the Chinese frame; the refusal from the box leads, not an SSH failure', () => {
    const coded = asCliError(boxFailed(BOX['job-already-running'][0], { detail: { host: 'h.example', port: 2222 } }));
    assert.equal(messageIn('en', coded), BOX['job-already-running'][1]);
    const z = messageIn('zh-cn', coded);
    assert.equal(z, '名为 train7 的任务已在运行：请先停止它（gpu-rent stop TARGET train7），或用 --name 换个名字（在 h.example:2222 上）');
    const plain = messageIn('zh-cn', asCliError(new RemoteError('remote-failed', 'something only English knows', { detail: { host: 'h.example', port: 2222 } })));
    assert.equal(plain, 'something only English knows（在 h.example:2222 上）');
    const login = asCliError(new RemoteError('bad-target', 'ssh option -p needs a value', { detail: { login: { code: 'login-flag-value', flag: 'p' } } }));
    assert.equal(messageIn('zh-cn', login), 'TARGET 无法使用：ssh 选项 -p 需要一个值');
  });

  it('an argument that is not TARGET: the English as before, the Chinese without “TARGET 无法使用”', () => {
    let err: unknown;
    try {
      sanitizeJobName('///');
    } catch (e) {
      err = asCliError(e);
    }
    assert.equal(messageIn('en', err), '"///" is not usable as a job name: use letters, digits, - and _');
    assert.equal(messageIn('zh-cn', err), '“///”不能用作任务名：只能用字母、数字、- 和 _');
    const gpus = asCliError(badInput({ code: 'gpus-invalid', gpus: -2 }));
    assert.equal(messageIn('en', gpus), '--gpus must be a whole number ≥ 1, got -2');
    assert.equal(messageIn('zh-cn', gpus), '--gpus 必须是不小于 1 的整数，收到的是 -2');
  });
});

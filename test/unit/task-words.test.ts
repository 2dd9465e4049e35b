// A task file's problems in the user's words (issue 23: "line 1, column 1 (run): run is required"
// was English inside Chinese). Every problem is a code with its facts; its English is the message
// it always had (the literal old strings below are the oracle), and through the zh bundle, as VS
// Code and the CLI read it, it is Chinese with the user's values and the key names kept as data.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { taskFileErrorLines, taskFileUnreadableText, readTaskFile } from '../../src/app/launch/taskFile';
import { KEYS_BY_OBJECT, TASK_KEYS } from '../../src/core/task/errors';
import { problemOf, asMessage, type TaskProblem, type TaskProblemCode } from '../../src/core/task/problems';
import { parseTaskFile } from '../../src/core/task/schema';
import { taskProblemText } from '../../src/core/task/words';
import { CLI, runCli } from '../support/cli';
import { inZh } from '../support/l10n';


// Each code once at least (tsc fails when a code is added without a row here).
const EVERY_CODE: Record<TaskProblemCode, true> = {
  'file-unreadable': true,
  'file-not-text': true,
  'file-too-large': true,
  'nested-too-deep': true,
  'too-many-aliases': true,
  'too-many-entries': true,
  'aliases-expanded': true,
  'yaml': true,
  'yaml-duplicate-key': true,
  'yaml-alias-no-anchor': true,
  'yaml-unreadable': true,
  'complex-key': true,
  'file-empty': true,
  'file-not-mapping': true,
  'required': true,
  'no-value': true,
  'wrong-type': true,
  'unknown-key': true,
  'zod': true,
  'not-yuan': true,
  'yuan-not-positive': true,
  'yuan-too-large': true,
  'yuan-decimals': true,
  'not-duration': true,
  'duration-too-long': true,
  'duration-too-short': true,
  'not-command': true,
  'empty': true,
  'longer-kib': true,
  'longer-chars': true,
  'control-char': true,
  'not-path': true,
  'path-outside': true,
  'path-in-git': true,
  'not-box-path': true,
  'box-path-dotdot': true,
  'box-path-relative': true,
  'box-path-tilde-user': true,
  'too-many': true,
  'not-command-list': true,
  'unknown-card': true,
  'not-card': true,
  'not-platform': true,
  'unknown-platform': true,
  'not-cards': true,
  'not-whole': true,
  'at-least': true,
  'at-most': true,
  'at-most-chars': true,
  'gpus-too-many': true,
  'not-gb': true,
  'not-number': true,
  'not-positive': true,
  'not-boolean': true,
  'not-string': true,
  'not-instance': true,
  'not-ssh-login': true,
  'not-instance-name': true,
  'instance-list-empty': true,
  'not-instances': true,
  'data-push-or-fetch': true,
  'bad-store-ref': true,
  'not-setup': true,
  'not-env-value': true,
  'env-value-nul': true,
  'env-name': true,
  'bad-name': true,
  'resume-no-placeholder': true,
  'bad-progress-pattern': true,
  'bad-checkpoint-pattern': true,
  'not-end': true,
  'smoke-steps-too-many': true,
  'smoke-minutes-too-many': true,
  'not-account': true,
  'bad-id-chars': true,
  'bad-image-chars': true,
  'not-public-key-path': true,
  'not-spot-reclaim': true,
  'spot-reclaim-needs-spot': true,
  'not-launcher': true,
  'bad-mirror': true,
  'not-address': true,
  'bad-address': true,
  'nodes-need-launcher': true,
  'nodes-spot': true,
  'resume-needs-checkpoints': true,
  'tasks-empty': true,
  'duplicate-task': true,
  'sweep-not-matrix': true,
  'sweep-key': true,
  'sweep-keys': true,
  'sweep-values': true,
  'sweep-value': true,
  'sweep-duplicate': true,
  'sweep-too-many': true,
  'sweep-unused': true,
  'sweep-too-long': true,
  'sweep-shared-checkpoints': true,
  'sweep-path': true,
  'sweep-needs-matrix': true,
  'sweep-name-too-long': true,
  'sweep-multinode': true,
  'sweep-gpus-per-run': true,
};

const CASES: [TaskProblem, string, string][] = [
  [{ code: 'file-unreadable', nested: true }, 'the task file could not be read (nested too deeply)', '无法读取任务文件（嵌套太深）'],
  [{ code: 'file-unreadable', nested: false }, 'the task file could not be read (unreadable)', '无法读取任务文件（内容无法解析）'],
  [{ code: 'file-not-text' }, 'the task file is not text', '任务文件不是文本'],
  [{ code: 'file-too-large', kib: 256 }, 'the task file is larger than 256 KiB', '任务文件超过 256 KiB'],
  [{ code: 'nested-too-deep', max: 64 }, 'lists or mappings nested more than 64 deep', '列表或映射嵌套超过 64 层'],
  [{ code: 'too-many-aliases', max: 100 }, 'more than 100 YAML aliases', 'YAML 别名超过 100 个'],
  [{ code: 'too-many-entries', max: 4096 }, 'more than 4096 list items and mapping keys', '列表项和映射键合计超过 4096 个'],
  [{ code: 'aliases-expanded', max: 100 }, 'more than 100 YAML aliases expanded', '展开的 YAML 别名超过 100 个'],
  [{ code: 'yaml', detail: 'Tabs are not allowed as indentation' }, 'YAML: Tabs are not allowed as indentation', 'YAML 格式错误：Tabs are not allowed as indentation'],
  [{ code: 'yaml-duplicate-key' }, 'YAML: a key appears twice in the same mapping', 'YAML 格式错误：同一个映射里有重复的键'],
  [{ code: 'yaml-alias-no-anchor' }, 'YAML: an alias (*name) with no anchor (&name) before it', 'YAML 格式错误：别名（*name）之前没有对应的锚点（&name）'],
  [{ code: 'yaml-unreadable' }, 'the YAML could not be read', '无法读取 YAML'],
  [{ code: 'complex-key' }, 'a key is a plain word, not a list or mapping', '键必须是普通单词，不能是列表或映射'],
  [{ code: 'file-empty' }, 'the task file is empty (write name: and run:, or tasks: [...])', '任务文件是空的（请写 name: 和 run:，或 tasks: [...]）'],
  [{ code: 'file-not-mapping' }, 'a task file is a mapping (name:, run: …) or tasks: [...]', '任务文件应为映射（name:、run: …）或 tasks: [...]'],
  [{ code: 'required', field: 'run' }, 'run is required', '缺少必填项 run'],
  [{ code: 'no-value', field: 'run' }, 'run has no value', 'run 没有填写值'],
  [{ code: 'wrong-type', field: 'resources', expected: 'object', got: { kind: 'text', value: '"x"' } }, 'resources: expected object, got the text "x"', 'resources：应为映射，实际是文本 "x"'],
  [{ code: 'wrong-type', field: 'tasks', expected: 'array', got: { kind: 'other', type: 'number', value: '"3"' } }, 'tasks: expected array, got number "3"', 'tasks：应为列表，实际是数字 "3"'],
  [{ code: 'wrong-type', field: 'env', expected: 'record', got: { kind: 'list' } }, 'env: expected record, got a list', 'env：应为映射，实际是一个列表'],
  [{ code: 'unknown-key', key: '"chekpoints"', suggest: 'checkpoints' }, 'unknown key "chekpoints"; did you mean checkpoints?', '未知的键 "chekpoints"；是不是想写 checkpoints？'],
  [{ code: 'unknown-key', key: '"zzz"' }, 'unknown key "zzz"', '未知的键 "zzz"'],
  [{ code: 'unknown-key', key: '"extra"', tasksOnly: true }, 'unknown key "extra"; a file with tasks: holds only tasks', '未知的键 "extra"；含 tasks: 的文件只能包含 tasks'],
  [{ code: 'zod', message: 'Too big: expected string to have <=64 characters' }, 'Too big: expected string to have <=64 characters', 'Too big: expected string to have <=64 characters'],
  [{ code: 'not-yuan', what: 'budget_yuan' }, 'budget_yuan is a number of yuan', 'budget_yuan 应为以元计的数字'],
  [{ code: 'yuan-not-positive', what: 'budget_yuan' }, 'budget_yuan must be more than ¥0', 'budget_yuan 必须大于 ¥0'],
  [{ code: 'yuan-too-large', what: 'max_yuan_per_hour', max: 100000 }, 'max_yuan_per_hour must be at most ¥100,000', 'max_yuan_per_hour 最多为 ¥100,000'],
  [{ code: 'yuan-decimals', what: 'max_yuan_per_hour' }, 'max_yuan_per_hour has at most 2 decimals (whole fen)', 'max_yuan_per_hour 最多两位小数（精确到分）'],
  [{ code: 'not-duration' }, 'expected a duration like 90s, 10m, 1h30m, 2h, or a number of seconds', '应为时长，如 90s、10m、1h30m、2h，或秒数'],
  [{ code: 'duration-too-long' }, 'a duration is at most a year', '时长最多一年'],
  [{ code: 'duration-too-short', min: 30 }, 'must be at least 30 s', '至少 30 秒'],
  [{ code: 'not-command', what: 'run' }, 'run is a shell command (a string)', 'run 应为一条 shell 命令（字符串）'],
  [{ code: 'empty', what: 'run' }, 'run is empty', 'run 为空'],
  [{ code: 'longer-kib', what: 'run', kib: 16 }, 'run is longer than 16 KiB', 'run 超过 16 KiB'],
  [{ code: 'longer-chars', what: 'workdir', max: 4096 }, 'workdir is longer than 4096 characters', 'workdir 超过 4096 个字符'],
  [{ code: 'control-char', what: 'run' }, 'run holds a control character', 'run 含有控制字符'],
  [{ code: 'not-path', what: 'workdir' }, 'workdir is a path (a string)', 'workdir 应为路径（字符串）'],
  [{ code: 'path-in-git', what: 'checkpoints.local' }, 'checkpoints.local must not be .git or inside it (files written there could run commands through git)', 'checkpoints.local 不能是 .git 或在其中（写在那里的文件可能通过 git 运行命令）'],
  [{ code: 'path-outside', what: 'checkpoints.local' }, "checkpoints.local must be inside the task file's folder (a relative path, no .. out of it, not absolute or ~)", 'checkpoints.local 必须在任务文件所在的文件夹内（相对路径，不能用 .. 跳出，不能是绝对路径或 ~）'],
  [{ code: 'not-box-path', what: 'remote_workdir' }, 'remote_workdir is a path on the box (a string)', 'remote_workdir 应为机器上的路径（字符串）'],
  [{ code: 'box-path-dotdot', what: 'remote_workdir' }, 'remote_workdir has a ".." segment', 'remote_workdir 含有 ".." 路径段'],
  [{ code: 'box-path-relative', what: 'remote_workdir' }, 'remote_workdir must be absolute (/…) or start with ~/', 'remote_workdir 必须是绝对路径（/…）或以 ~/ 开头'],
  [{ code: 'box-path-tilde-user', what: 'remote_workdir' }, 'remote_workdir may start with ~/ but not ~user', 'remote_workdir 可以以 ~/ 开头，但不能是 ~user'],
  [{ code: 'too-many', of: 'commands', max: 64, what: 'setup' }, 'at most 64 setup commands', '最多 64 条 setup 命令'],
  [{ code: 'too-many', of: 'cards', max: 16 }, 'at most 16 cards', '最多 16 种卡'],
  [{ code: 'too-many', of: 'platforms', max: 32 }, 'at most 32 platforms', '最多 32 个平台'],
  [{ code: 'too-many', of: 'instances', max: 16 }, 'at most 16 instances', '最多 16 个实例'],
  [{ code: 'too-many', of: 'data', max: 64 }, 'at most 64 data entries', '最多 64 条 data'],
  [{ code: 'too-many', of: 'env', max: 256 }, 'at most 256 environment variables', '最多 256 个环境变量'],
  [{ code: 'too-many', of: 'tasks', max: 32 }, 'at most 32 tasks in one file', '一个文件最多 32 个任务'],
  [{ code: 'not-command-list', what: 'setup' }, 'setup is a command or a list of commands', 'setup 应为一条命令或命令列表'],
  [{ code: 'unknown-card', card: '"4080"', near: ['rtx4090', 'rtx4090d', 'rtx3080'] }, 'unknown card "4080" (known: rtx4090, rtx4090d, rtx3080, …)', '未知的显卡 "4080"（已知：rtx4090, rtx4090d, rtx3080, …）'],
  [{ code: 'not-card' }, 'a card is a name or number such as 4090, rtx3090, a100-80g', '显卡应为名称或数字，如 4090、rtx3090、a100-80g'],
  [{ code: 'not-platform' }, 'a platform is its catalog id (a string)', '平台应为价格表中的 id（字符串）'],
  [{ code: 'unknown-platform', platform: '"vast"', known: ['autodl', 'aliyun'], more: false }, 'unknown platform "vast" (known: autodl, aliyun)', '未知的平台 "vast"（已知：autodl, aliyun）'],
  [{ code: 'not-cards' }, 'cards is a card or a list of cards', 'cards 应为一种显卡或显卡列表'],
  [{ code: 'not-whole', what: 'gpus' }, 'gpus is a whole number', 'gpus 应为整数'],
  [{ code: 'at-least', what: 'smoke.steps', min: 1 }, 'smoke.steps is at least 1', 'smoke.steps 至少为 1'],
  [{ code: 'at-most', what: 'nodes', max: 16 }, 'nodes is at most 16', 'nodes 最多为 16'],
  [{ code: 'at-most-chars', what: 'create.account', max: 64 }, 'create.account is at most 64 characters', 'create.account 最多 64 个字符'],
  [{ code: 'gpus-too-many', max: 8 }, 'gpus is at most 8 (the largest single rented machine has 8 cards)', 'gpus 最多为 8（可租到的最大单台机器有 8 张卡）'],
  [{ code: 'not-gb', what: 'min_vram_gb' }, 'min_vram_gb is a number of GB', 'min_vram_gb 应为以 GB 计的数字'],
  [{ code: 'not-number', what: 'smoke.minutes' }, 'smoke.minutes is a number', 'smoke.minutes 应为数字'],
  [{ code: 'not-positive', what: 'smoke.minutes' }, 'smoke.minutes must be more than 0', 'smoke.minutes 必须大于 0'],
  [{ code: 'not-boolean', what: 'spot' }, 'spot is true or false', 'spot 应为 true 或 false'],
  [{ code: 'not-string', what: 'name' }, 'name is a string', 'name 应为字符串'],
  [{ code: 'not-instance' }, 'an instance is "new", an instance name or platform id, or an ssh login', '实例应为 "new"、实例名称或平台 id，或 ssh 登录'],
  [{ code: 'not-ssh-login', login: '"ssh root@"' }, 'not an ssh login: "ssh root@" (write "ssh -p 2222 root@host", "root@host:2222" or "ssh://root@host:22")', '不是 ssh 登录："ssh root@"（请写成 "ssh -p 2222 root@host"、"root@host:2222" 或 "ssh://root@host:22"）'],
  [{ code: 'not-instance-name', name: '"a\\u001bb"' }, 'not an instance name or id: "a\\u001bb"', '不是实例名称或 id："a\\u001bb"'],
  [{ code: 'instance-list-empty' }, 'instance list is empty', 'instance 列表为空'],
  [{ code: 'not-instances' }, 'instance is "new", a name or platform id, an ssh login, or a list of those', 'instance 应为 "new"、名称或平台 id、ssh 登录，或由它们组成的列表'],
  [{ code: 'data-push-or-fetch' }, 'a data entry has one of push, fetch or from', '一条 data 只能有 push、fetch 或 from 其中之一'],
  [{ code: 'bad-store-ref', what: 'data.from', ref: '"../x"' }, 'data.from is NAME/PREFIX: a store from gpu-rent storage list, then a folder in it (relative, no . or ..); got "../x"', 'data.from 应为“存储名/前缀”：已添加的存储名，再加其中的文件夹（相对路径，不含 . 或 ..）；收到 "../x"'],
  [{ code: 'not-setup' }, 'setup is a command, a list of commands, or {environment, commands}', 'setup 应为一条命令、命令列表，或 {environment, commands}'],
  [{ code: 'not-env-value' }, 'an environment value is a string, number or boolean', '环境变量的值应为字符串、数字或布尔值'],
  [{ code: 'env-value-nul' }, 'an environment value holds a NUL character', '环境变量的值含有 NUL 字符'],
  [{ code: 'env-name' }, 'an environment variable name is letters, digits and _, not starting with a digit', '环境变量名只能由字母、数字和 _ 组成，且不能以数字开头'],
  [{ code: 'bad-name' }, 'name is 1–64 letters, digits, - or _', 'name 应为 1–64 个字母、数字、- 或 _'],
  [{ code: 'bad-progress-pattern', problem: 'super-linear', detail: '\\d+ … .*' }, 'progress can take super-linear time on a long line (\\d+ … .*): make neighbouring parts unable to match the same characters ([^|]* or .{0,200} instead of .*) or anchor it with ^', 'progress 在很长的一行上可能耗时超线性（\\d+ … .*）：让相邻的两段不能匹配同样的字符（用 [^|]* 或 .{0,200} 代替 .*），或用 ^ 锚定开头'],
  [{ code: 'bad-progress-pattern', problem: 'unknown-group', detail: 'iteration' }, 'progress names a group it does not know: iteration (only step, total, loss, epoch)', 'progress 里有不认识的命名分组：iteration（只能用 step、total、loss、epoch）'],
  [{ code: 'resume-no-placeholder' }, 'resume must contain {checkpoint} (the last verified checkpoint’s path on the box)', 'resume 必须包含 {checkpoint}（最后一个校验过的检查点在机器上的路径）'],
  [{ code: 'bad-checkpoint-pattern', problem: 'too-many', max: 16 }, 'checkpoints.pattern holds at most 16 globs', 'checkpoints.pattern 最多 16 个通配模式'],
  [{ code: 'bad-checkpoint-pattern', problem: 'too-long', max: 200 }, 'a checkpoints.pattern glob is at most 200 characters', 'checkpoints.pattern 的通配模式最多 200 个字符'],
  [{ code: 'bad-checkpoint-pattern', problem: 'dotdot' }, 'a checkpoints.pattern glob is relative to the checkpoint folder (no .., not absolute or ~)', 'checkpoints.pattern 的通配模式相对于检查点文件夹（不含 ..，不能是绝对路径或 ~）'],
  [{ code: 'bad-checkpoint-pattern', problem: 'too-many-wildcards' }, 'a checkpoints.pattern glob has at most 8 wildcards', 'checkpoints.pattern 的通配模式最多 8 个通配符'],
  [{ code: 'bad-checkpoint-pattern', problem: 'control-char' }, 'checkpoints.pattern is a glob (checkpoint-*, *.ckpt, weights/last.pt) or a list of them, without control characters', 'checkpoints.pattern 是一个通配模式（checkpoint-*、*.ckpt、weights/last.pt）或它们的列表，不含控制字符'],
  [{ code: 'sweep-value', value: '"1e-4; rm -rf ~"', problem: 'chars', max: 100 }, 'matrix value "1e-4; rm -rf ~" can only hold letters, digits and _ . + - / (it goes into a shell command: no spaces, quotes, $ or ..)', 'matrix 的取值 "1e-4; rm -rf ~" 只能包含字母、数字和 _ . + - /（它会被放进 shell 命令：不能有空格、引号、$ 或 ..）'],
  [{ code: 'sweep-unused', key: 'rank' }, 'matrix.rank is used nowhere: put {rank} in run, resume, env or a path', 'matrix.rank 没有被用到：请把 {rank} 写进 run、resume、env 或路径'],
  [{ code: 'sweep-not-matrix' }, 'matrix is a mapping of names to lists of values: {lr: [1e-4, 3e-4], rank: [8, 16]}', 'matrix 应为名称到取值列表的映射：{lr: [1e-4, 3e-4], rank: [8, 16]}'],
  [{ code: 'sweep-key' }, 'a matrix name is letters, digits and _ (at most 32, not starting with a digit; not checkpoint)', 'matrix 的名称只能由字母、数字和 _ 组成（最多 32 个，不能以数字开头；不能是 checkpoint）'],
  [{ code: 'sweep-keys', max: 8 }, 'matrix has 1 to 8 names', 'matrix 应有 1 到 8 个名称'],
  [{ code: 'sweep-values', max: 16 }, 'a matrix name has a list of 1 to 16 values', 'matrix 的每个名称应有 1 到 16 个取值的列表'],
  [{ code: 'sweep-value', value: '"aaaa…"', problem: 'long', max: 100 }, 'matrix value "aaaa…" is longer than 100 characters', 'matrix 的取值 "aaaa…" 超过 100 个字符'],
  [{ code: 'sweep-value', value: '"{}"', problem: 'type', max: 100 }, 'matrix value "{}" is not a number, true/false or a word', 'matrix 的取值 "{}" 不是数字、true/false 或单词'],
  [{ code: 'sweep-duplicate', key: 'lr' }, 'matrix.lr has the same value twice', 'matrix.lr 中有重复的取值'],
  [{ code: 'sweep-too-long', field: 'run', max: 16384 }, 'run is too long once the matrix values are put in (at most 16384 characters)', 'run 填入 matrix 的取值后太长（最多 16384 个字符）'],
  [{ code: 'sweep-shared-checkpoints' }, "the sweep's runs would share this checkpoint folder: keep it relative with remote_workdir left out (each run gets ~/gpu-rent/<task>-N), or put a matrix {name} in it", '扫参的各次运行会共用这个检查点文件夹：请用相对路径并且不写 remote_workdir（每次运行各得 ~/gpu-rent/<任务>-N），或在其中写入 matrix 的 {名称}'],
  [{ code: 'sweep-path', field: 'checkpoints.local' }, 'checkpoints.local leaves the task folder once the matrix values are put in', 'checkpoints.local 填入 matrix 的取值后会跑出任务文件夹'],
  [{ code: 'sweep-needs-matrix', what: 'fail_fast' }, 'fail_fast is for a sweep: it needs matrix', 'fail_fast 用于扫参：需要 matrix'],
  [{ code: 'sweep-name-too-long', max: 62 }, "a sweep's name is at most 62 characters (each run is named <name>-N)", '扫参任务的名称最多 62 个字符（每次运行命名为 <名称>-N）'],
  [{ code: 'sweep-multinode' }, 'a sweep runs single-node tasks: leave nodes out with matrix', '扫参只运行单节点任务：有 matrix 时不要写 nodes'],
  [{ code: 'sweep-gpus-per-run', gpus: 2 }, 'gpus_per_run is at most resources.gpus (2)', 'gpus_per_run 最多为 resources.gpus（2）'],
  [{ code: 'sweep-too-many', runs: 81, max: 64 }, 'matrix makes 81 runs; a sweep is at most 64', 'matrix 会产生 81 次运行；一次扫参最多 64 次'],
  [{ code: 'not-end', ends: ['none', 'no-gpu', 'power-off', 'release'] }, 'end is one of none, no-gpu, power-off, release', 'end 只能是 none, no-gpu, power-off, release 之一'],
  [{ code: 'smoke-steps-too-many' }, 'smoke.steps is at most a billion', 'smoke.steps 最多十亿'],
  [{ code: 'smoke-minutes-too-many' }, 'smoke.minutes is at most a day (1440)', 'smoke.minutes 最多一天（1440）'],
  [{ code: 'not-account' }, 'create.account is an account id (a string)', 'create.account 应为账号 id（字符串）'],
  [{ code: 'bad-id-chars', what: 'create.region' }, 'create.region is letters, digits, ., _ and -', 'create.region 只能由字母、数字、.、_ 和 - 组成'],
  [{ code: 'bad-image-chars' }, 'create.image is letters, digits, ., :, /, _ and -', 'create.image 只能由字母、数字、.、:、/、_ 和 - 组成'],
  [{ code: 'not-public-key-path' }, 'create.ssh_key is the path of an OpenSSH public key file ending in .pub (relative to the task file, or ~/…)', 'create.ssh_key 应为以 .pub 结尾的 OpenSSH 公钥文件路径（相对任务文件，或 ~/…）'],
  [{ code: 'not-spot-reclaim' }, 'create.spot_reclaim is stop or terminate', 'create.spot_reclaim 只能是 stop 或 terminate'],
  [{ code: 'spot-reclaim-needs-spot' }, 'create.spot_reclaim is for a spot create: it needs resources.spot: true and resources.max_yuan_per_hour (the most per hour the spot bid pays)', 'create.spot_reclaim 只用于抢占式创建：需要 resources.spot: true 和 resources.max_yuan_per_hour（抢占式出价每小时最多付多少）'],
  [{ code: 'not-launcher' }, 'launcher is torchrun, deepspeed or accelerate', 'launcher 只能是 torchrun、deepspeed 或 accelerate'],
  [{ code: 'bad-mirror', what: 'mirrors.pip_index', choices: ['auto', 'default'], url: true }, 'mirrors.pip_index is auto, default or an http(s) URL', 'mirrors.pip_index 只能是 auto, default 或 http(s) 网址'],
  [{ code: 'bad-mirror', what: 'mirrors', choices: ['auto', 'off'], url: false }, 'mirrors is one of auto, off', 'mirrors 只能是 auto, off 之一'],
  [{ code: 'not-address' }, 'master_addr is an address (a string)', 'master_addr 应为地址（字符串）'],
  [{ code: 'bad-address' }, 'master_addr is a host name or IP address', 'master_addr 应为主机名或 IP 地址'],
  [{ code: 'nodes-need-launcher' }, 'nodes > 1 needs launcher (torchrun, deepspeed or accelerate)', 'nodes > 1 时需要 launcher（torchrun、deepspeed 或 accelerate）'],
  [{ code: 'nodes-spot' }, 'a multi-node run on spot instances is not relaunched after a reclaim: use spot: false for nodes > 1', '抢占式实例上的多机训练被回收后不会重新启动：nodes > 1 时请用 spot: false'],
  [{ code: 'resume-needs-checkpoints' }, 'resume needs checkpoints (there is nothing to resume from)', 'resume 需要 checkpoints（否则没有可以恢复的检查点）'],
  [{ code: 'tasks-empty' }, 'tasks is empty', 'tasks 为空'],
  [{ code: 'duplicate-task', name: '"a"' }, 'duplicate task name "a"', '任务名 "a" 重复'],
];

/** Three English words in a row outside what the user or zod wrote: a sentence left untranslated. */
function englishRun(text: string): string | undefined {
  const prose = text.replace(/"[^"]*"/g, '').replace(/\b[\w.]+ (?:commands?)\b/g, '');
  return /\b[a-z]{2,}(?: [a-z]{2,}){2,}\b/i.exec(prose)?.[0];
}

/**
 * Whether a process's main thread waits in its event loop (Linux: /proc/PID/wchan): the CLI's
 * top level, which puts its SIGINT handler in place, has run by then.
 */
function inEventLoop(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/wchan`, 'utf8') === 'do_epoll_wait';
  } catch {
    return false;
  }
}

const tmp = mkdtempSync(join(tmpdir(), 'gpu-rent-task-words-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe('task file problems in words (en word for word, zh through the bundle)', () => {
  it('every code: its English is the old message, its Chinese the bundle’s', () => {
    const seen = new Set<string>();
    for (const [p, en, cn] of CASES) {
      seen.add(p.code);
      assert.equal(taskProblemText(p), en, p.code);
      assert.equal(taskProblemText(p, inZh), cn, p.code);
      if (p.code !== 'zod' && p.code !== 'yaml') assert.equal(englishRun(cn), undefined, `${p.code}: ${cn}`);
      // Through zod's message and back, the same problem.
      assert.deepEqual(problemOf(asMessage(p)), p);
    }
    assert.deepEqual([...seen].sort(), Object.keys(EVERY_CODE).sort());
  });

  it('zod’s own words (no mark) stay a zod problem, shown as they are', () => {
    assert.deepEqual(problemOf('Invalid input'), { code: 'zod', message: 'Invalid input' });
    assert.deepEqual(problemOf('\u0000gpu-rent-task:{not json'), { code: 'zod', message: '\u0000gpu-rent-task:{not json' });
  });

  it('a real file’s problems carry their codes, and the lines read in either language', () => {
    const r = parseTaskFile('name: a\nsetup: pip install x\nchekpoints: {}\nresources:\n  gpus: 9\n  max_yuan_per_hour: 1.234\nend: shutdown\n');
    assert.ok(!r.ok);
    assert.deepEqual(r.errors.map((e) => e.problem.code), ['required', 'unknown-key', 'gpus-too-many', 'yuan-decimals', 'not-end']);
    assert.deepEqual(taskFileErrorLines(r.errors), [
      'line 1, column 1 (run): run is required',
      'line 3, column 1 (chekpoints): unknown key "chekpoints"; did you mean checkpoints?',
      'line 5, column 9 (resources.gpus): gpus is at most 8 (the largest single rented machine has 8 cards)',
      'line 6, column 22 (resources.max_yuan_per_hour): max_yuan_per_hour has at most 2 decimals (whole fen)',
      'line 7, column 6 (end): end is one of none, no-gpu, power-off, release',
    ]);
    assert.deepEqual(taskFileErrorLines(r.errors, inZh), [
      '第 1 行第 1 列（run）：缺少必填项 run',
      '第 3 行第 1 列（chekpoints）：未知的键 "chekpoints"；是不是想写 checkpoints？',
      '第 5 行第 9 列（resources.gpus）：gpus 最多为 8（可租到的最大单台机器有 8 张卡）',
      '第 6 行第 22 列（resources.max_yuan_per_hour）：max_yuan_per_hour 最多两位小数（精确到分）',
      '第 7 行第 6 列（end）：end 只能是 none, no-gpu, power-off, release 之一',
    ]);
    const yaml = parseTaskFile('name: a\nrun: x\n\tgpus: 1\n');
    assert.ok(!yaml.ok);
    assert.deepEqual(taskFileErrorLines(yaml.errors, inZh), ['第 3 行第 1 列：YAML 格式错误：Tabs are not allowed as indentation']);
  });

  it('no check is left with zod’s own English: any value in any field reads in our words (fast-check)', function () {
    this.timeout(60_000);
    const value = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.integer({ min: -100_000, max: 100_000 }),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.oneof(fc.string({ maxLength: 70 }), fc.integer(), fc.constant({})), { maxLength: 3 }),
      fc.constant({}),
    );
    const field = (k: string) => {
      const keys = KEYS_BY_OBJECT[k];
      return keys ? fc.oneof(value, fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 4 }), fc.array(fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 3 }), { maxLength: 2 })) : value;
    };
    const task = fc.tuple(fc.constantFrom(...TASK_KEYS), fc.constantFrom(...TASK_KEYS)).chain(([a, b]) => fc.record({ a: fc.constant(a), b: fc.constant(b), va: field(a), vb: field(b), multi: fc.boolean() }));
    fc.assert(
      fc.property(task, ({ a, b, va, vb, multi }) => {
        const t = { name: 'a', run: 'x', [a]: va, [b]: vb };
        const r = parseTaskFile(stringify(multi ? { tasks: [t] } : t));
        return r.ok || r.errors.every((e) => e.problem.code !== 'zod');
      }),
      { numRuns: 500 },
    );
  });

  it('a file over the cap: the reason in either language', async () => {
    const big = join(tmp, 'big.yaml');
    writeFileSync(big, `name: a\nrun: ${'x'.repeat(300 * 1024)}\n`);
    const r = await readTaskFile(tmp, big);
    assert.ok(!r.ok && r.kind === 'unreadable');
    assert.equal(r.message, `${300 * 1024 + 14} bytes; a task file is at most 256 KiB`);
    assert.equal(taskFileUnreadableText(r), r.message);
    assert.equal(taskFileUnreadableText(r, inZh), `${300 * 1024 + 14} 字节；任务文件最多 256 KiB`);
  });
});

describe('the CLI in Chinese: launch, quote, Ctrl-C (dist/cli.js)', () => {
  const bad = join(tmp, 'gpu-rent.yaml');
  before(() => writeFileSync(bad, 'name: a\nsetup: pip install x\n'));

  it('launch with a bad task file names each problem in the locale’s language', () => {
    const cn = runCli(['launch'], { cwd: tmp, env: { LANG: 'zh_CN.UTF-8', GPU_RENT_HOME: join(tmp, 'home') } });
    assert.equal(cn.code, 2, cn.stderr);
    assert.match(cn.stderr, /有 1 处问题：\n {2}第 1 行第 1 列（run）：缺少必填项 run\n/);
    assert.doesNotMatch(cn.stderr, /is required|problem\(s\)/);
    const en = runCli(['launch'], { cwd: tmp, env: { GPU_RENT_HOME: join(tmp, 'home') } });
    assert.match(en.stderr, /has 1 problem\(s\):\n {2}line 1, column 1 \(run\): run is required\n/);
    const empty = mkdtempSync(join(tmp, 'empty-'));
    const none = runCli(['launch', '--lang', 'zh-cn'], { cwd: empty, env: { GPU_RENT_HOME: join(tmp, 'home') } });
    assert.match(none.stderr, /没有任务文件：找不到 .*gpu-rent\.yaml 或 .*gpu-rent\.yml/);
  });

  it('quote --card with an unknown card, and a too-small --gpu-hours, in Chinese', () => {
    const card = runCli(['quote', '--card', 'rtx9999', '--lang', 'zh-cn']);
    assert.notEqual(card.code, 0);
    assert.match(card.stderr, /--card 需要一种已知的显卡，如 3090、rtx4090、"RTX 4090"、A100-80G（已知：.*rtx4090.*），收到的是 "rtx9999"/);
    const hours = runCli(['quote', '--gpu-hours', '0', '--lang', 'zh-cn']);
    assert.match(hours.stderr, /即一 GPU 秒/);
    assert.doesNotMatch(hours.stderr, /one GPU-second/);
  });

  it('Ctrl-C during a wait says "interrupted" in the locale’s language', async () => {
    for (const [lang, word] of [['zh_CN.UTF-8', '已中断'], ['C.UTF-8', 'interrupted']] as const) {
      const p = spawn(process.execPath, [CLI, 'smi', '-'], { env: { PATH: process.env.PATH, LANG: lang, GPU_RENT_HOME: join(tmp, 'home') }, stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) => p.on('exit', (c) => resolve(c)));
      // The CLI waits on stdin; Ctrl-C once it waits (its handler is in place then).
      for (let i = 0; i < 800 && !inEventLoop(p.pid!); i++) await new Promise((r) => setTimeout(r, 10));
      p.kill('SIGINT');
      const code = await exited;
      assert.equal(code, 130, stderr);
      assert.equal(stderr, `\ngpu-rent smi: ${word}\n`);
    }
  });
});

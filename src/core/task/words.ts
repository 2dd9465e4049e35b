// A task file's problems in words: English as the messages always read (ENGLISH), or through the
// l10n passed in (vscode.l10n in the extension, the CLI's l10nIn(lang)); the zh-CN bundle holds
// the Chinese. Pure: key names, numbers and the user's quoted values are filled in as data.
import type { CountOf, TaskProblem, ValueKind } from './problems';
import { ENGLISH, type L10n } from '../l10n';

export type { L10n as TaskL10n } from '../l10n';
type TaskL10n = L10n;

export { ENGLISH } from '../l10n';

/** zod's type names (the English reads them as they are). */
function typeText(type: string, l10n: TaskL10n): string {
  switch (type) {
    case 'object':
      return l10n.t('object');
    case 'array':
      return l10n.t('array');
    case 'string':
      return l10n.t('string');
    case 'number':
      return l10n.t('number');
    case 'int':
      return l10n.t('int');
    case 'boolean':
      return l10n.t('boolean');
    case 'record':
      return l10n.t('record');
    default:
      return type;
  }
}

function kindText(k: ValueKind, l10n: TaskL10n): string {
  switch (k.kind) {
    case 'list':
      return l10n.t('a list');
    case 'nothing':
      return l10n.t('nothing');
    case 'mapping':
      return l10n.t('a mapping');
    case 'text':
      return l10n.t('the text {0}', k.value);
    case 'other':
      return `${typeText(k.type, l10n)} ${k.value}`;
  }
}

function tooManyText(of: CountOf, max: number, what: string | undefined, l10n: TaskL10n): string {
  switch (of) {
    case 'cards':
      return l10n.t('at most {0} cards', max);
    case 'platforms':
      return l10n.t('at most {0} platforms', max);
    case 'instances':
      return l10n.t('at most {0} instances', max);
    case 'data':
      return l10n.t('at most {0} data entries', max);
    case 'env':
      return l10n.t('at most {0} environment variables', max);
    case 'tasks':
      return l10n.t('at most {0} tasks in one file', max);
    case 'commands':
      return l10n.t('at most {0} {1} commands', max, what ?? '');
    case 'channels':
      return l10n.t('at most {0} message channels', max);
  }
}

/** One problem in words (no line, column or field: taskFileErrorLines adds them). */
export function taskProblemText(p: TaskProblem, l10n: TaskL10n = ENGLISH): string {
  switch (p.code) {
    case 'file-unreadable':
      return p.nested ? l10n.t('the task file could not be read (nested too deeply)') : l10n.t('the task file could not be read (unreadable)');
    case 'file-not-text':
      return l10n.t('the task file is not text');
    case 'file-too-large':
      return l10n.t('the task file is larger than {0} KiB', p.kib);
    case 'nested-too-deep':
      return l10n.t('lists or mappings nested more than {0} deep', p.max);
    case 'too-many-aliases':
      return l10n.t('more than {0} YAML aliases', p.max);
    case 'too-many-entries':
      return l10n.t('more than {0} list items and mapping keys', p.max);
    case 'aliases-expanded':
      return l10n.t('more than {0} YAML aliases expanded', p.max);
    case 'yaml':
      return l10n.t('YAML: {0}', p.detail);
    case 'yaml-duplicate-key':
      return l10n.t('YAML: a key appears twice in the same mapping');
    case 'yaml-alias-no-anchor':
      return l10n.t('YAML: an alias (*name) with no anchor (&name) before it');
    case 'yaml-unreadable':
      return l10n.t('the YAML could not be read');
    case 'complex-key':
      return l10n.t('a key is a plain word, not a list or mapping');
    case 'file-empty':
      return l10n.t('the task file is empty (write name: and run:, or tasks: [...])');
    case 'file-not-mapping':
      return l10n.t('a task file is a mapping (name:, run: …) or tasks: [...]');
    case 'required':
      return l10n.t('{0} is required', p.field);
    case 'no-value':
      return l10n.t('{0} has no value', p.field);
    case 'wrong-type':
      return l10n.t('{0}: expected {1}, got {2}', p.field, typeText(p.expected, l10n), kindText(p.got, l10n));
    case 'unknown-key':
      if (p.tasksOnly) return l10n.t('unknown key {0}; a file with tasks: holds only tasks', p.key);
      return p.suggest !== undefined ? l10n.t('unknown key {0}; did you mean {1}?', p.key, p.suggest) : l10n.t('unknown key {0}', p.key);
    case 'zod':
      return p.message;
    case 'not-yuan':
      return l10n.t('{0} is a number of yuan', p.what);
    case 'yuan-not-positive':
      return l10n.t('{0} must be more than ¥0', p.what);
    case 'yuan-too-large':
      return l10n.t('{0} must be at most ¥{1}', p.what, p.max.toLocaleString('en-US'));
    case 'yuan-decimals':
      return l10n.t('{0} has at most 2 decimals (whole fen)', p.what);
    case 'not-duration':
      return l10n.t('expected a duration like 90s, 10m, 1h30m, 2h, or a number of seconds');
    case 'duration-too-long':
      return l10n.t('a duration is at most a year');
    case 'duration-too-short':
      return l10n.t('must be at least {0} s', p.min);
    case 'not-command':
      return l10n.t('{0} is a shell command (a string)', p.what);
    case 'empty':
      return l10n.t('{0} is empty', p.what);
    case 'longer-kib':
      return l10n.t('{0} is longer than {1} KiB', p.what, p.kib);
    case 'longer-chars':
      return l10n.t('{0} is longer than {1} characters', p.what, p.max);
    case 'control-char':
      return l10n.t('{0} holds a control character', p.what);
    case 'not-path':
      return l10n.t('{0} is a path (a string)', p.what);
    case 'path-outside':
      return l10n.t("{0} must be inside the task file's folder (a relative path, no .. out of it, not absolute or ~)", p.what);
    case 'path-in-git':
      return l10n.t('{0} must not be .git or inside it (files written there could run commands through git)', p.what);
    case 'not-box-path':
      return l10n.t('{0} is a path on the box (a string)', p.what);
    case 'box-path-dotdot':
      return l10n.t('{0} has a ".." segment', p.what);
    case 'box-path-relative':
      return l10n.t('{0} must be absolute (/…) or start with ~/', p.what);
    case 'box-path-tilde-user':
      return l10n.t('{0} may start with ~/ but not ~user', p.what);
    case 'too-many':
      return tooManyText(p.of, p.max, p.what, l10n);
    case 'not-command-list':
      return l10n.t('{0} is a command or a list of commands', p.what);
    case 'unknown-card':
      return l10n.t('unknown card {0} (known: {1}, …)', p.card, p.near.join(', '));
    case 'not-card':
      return l10n.t('a card is a name or number such as 4090, rtx3090, a100-80g');
    case 'not-platform':
      return l10n.t('a platform is its catalog id (a string)');
    case 'unknown-platform':
      return l10n.t('unknown platform {0} (known: {1})', p.platform, `${p.known.join(', ')}${p.more ? ', …' : ''}`);
    case 'not-cards':
      return l10n.t('cards is a card or a list of cards');
    case 'not-whole':
      return l10n.t('{0} is a whole number', p.what);
    case 'at-least':
      return l10n.t('{0} is at least {1}', p.what, p.min);
    case 'at-most':
      return l10n.t('{0} is at most {1}', p.what, p.max);
    case 'at-most-chars':
      return l10n.t('{0} is at most {1} characters', p.what, p.max);
    case 'gpus-too-many':
      return l10n.t('gpus is at most {0} (the largest single rented machine has {0} cards)', p.max);
    case 'not-gb':
      return l10n.t('{0} is a number of GB', p.what);
    case 'not-number':
      return l10n.t('{0} is a number', p.what);
    case 'not-positive':
      return l10n.t('{0} must be more than 0', p.what);
    case 'not-boolean':
      return l10n.t('{0} is true or false', p.what);
    case 'not-string':
      return l10n.t('{0} is a string', p.what);
    case 'not-instance':
      return l10n.t('an instance is "new", an instance name or platform id, or an ssh login');
    case 'not-ssh-login':
      return l10n.t('not an ssh login: {0} (write "ssh -p 2222 root@host", "root@host:2222" or "ssh://root@host:22")', p.login);
    case 'not-instance-name':
      return l10n.t('not an instance name or id: {0}', p.name);
    case 'instance-list-empty':
      return l10n.t('instance list is empty');
    case 'not-instances':
      return l10n.t('instance is "new", a name or platform id, an ssh login, or a list of those');
    case 'data-push-or-fetch':
      return l10n.t('a data entry has one of push, fetch or from');
    case 'bad-store-ref':
      return l10n.t('{0} is NAME/PREFIX: a store from gpu-rent storage list, then a folder in it (relative, no . or ..); got {1}', p.what, p.ref);
    case 'not-setup':
      return l10n.t('setup is a command, a list of commands, or {environment, commands}');
    case 'not-env-value':
      return l10n.t('an environment value is a string, number or boolean');
    case 'env-value-nul':
      return l10n.t('an environment value holds a NUL character');
    case 'env-name':
      return l10n.t('an environment variable name is letters, digits and _, not starting with a digit');
    case 'bad-name':
      return l10n.t('name is 1–64 letters, digits, - or _');
    case 'bad-progress-pattern':
      switch (p.problem) {
        case 'super-linear':
          return l10n.t('progress can take super-linear time on a long line ({0}): make neighbouring parts unable to match the same characters ([^|]* or .{1} instead of .*) or anchor it with ^', p.detail, '{0,200}');
        case 'no-group':
          return l10n.t('progress needs a named group: step, total, loss or epoch, e.g. (?<step>\\d+)');
        case 'unknown-group':
          return l10n.t('progress names a group it does not know: {0} (only step, total, loss, epoch)', p.detail);
        case 'backreference':
          return l10n.t('progress may not use a backreference (it cannot be kept linear)');
        case 'too-long':
          return l10n.t('progress is 1 to 400 characters');
        case 'syntax':
          return l10n.t('progress is not a valid regular expression: {0}', p.detail);
      }
      break;
    case 'resume-no-placeholder':
      return l10n.t('resume must contain {0} (the last verified checkpoint’s path on the box)', '{checkpoint}');
    case 'bad-checkpoint-pattern':
      switch (p.problem) {
        case 'too-many':
          return l10n.t('checkpoints.pattern holds at most {0} globs', p.max ?? 16);
        case 'too-long':
          return l10n.t('a checkpoints.pattern glob is at most {0} characters', p.max ?? 200);
        case 'dotdot':
        case 'absolute':
          return l10n.t('a checkpoints.pattern glob is relative to the checkpoint folder (no .., not absolute or ~)');
        case 'too-many-wildcards':
          return l10n.t('a checkpoints.pattern glob has at most 8 wildcards');
        default:
          return l10n.t('checkpoints.pattern is a glob (checkpoint-*, *.ckpt, weights/last.pt) or a list of them, without control characters');
      }
    case 'not-end':
      return l10n.t('end is one of {0}', p.ends.join(', '));
    case 'smoke-steps-too-many':
      return l10n.t('smoke.steps is at most a billion');
    case 'smoke-minutes-too-many':
      return l10n.t('smoke.minutes is at most a day (1440)');
    case 'not-account':
      return l10n.t('create.account is an account id (a string)');
    case 'bad-id-chars':
      return l10n.t('{0} is letters, digits, ., _ and -', p.what);
    case 'bad-image-chars':
      return l10n.t('create.image is letters, digits, ., :, /, _ and -');
    case 'not-public-key-path':
      return l10n.t('create.ssh_key is the path of an OpenSSH public key file ending in .pub (relative to the task file, or ~/…)');
    case 'not-spot-reclaim':
      return l10n.t('create.spot_reclaim is stop or terminate');
    case 'spot-reclaim-needs-spot':
      return l10n.t('create.spot_reclaim is for a spot create: it needs resources.spot: true and resources.max_yuan_per_hour (the most per hour the spot bid pays)');
    case 'bad-mirror':
      return p.url ? l10n.t('{0} is {1} or an http(s) URL', p.what, p.choices.join(', ')) : l10n.t('{0} is one of {1}', p.what, p.choices.join(', '));
    case 'not-launcher':
      return l10n.t('launcher is torchrun, deepspeed or accelerate');
    case 'not-address':
      return l10n.t('master_addr is an address (a string)');
    case 'bad-address':
      return l10n.t('master_addr is a host name or IP address');
    case 'nodes-need-launcher':
      return l10n.t('nodes > 1 needs launcher (torchrun, deepspeed or accelerate)');
    case 'nodes-spot':
      return l10n.t('a multi-node run on spot instances is not relaunched after a reclaim: use spot: false for nodes > 1');
    case 'resume-needs-checkpoints':
      return l10n.t('resume needs checkpoints (there is nothing to resume from)');
    case 'tasks-empty':
      return l10n.t('tasks is empty');
    case 'duplicate-task':
      return l10n.t('duplicate task name {0}', p.name);
    case 'sweep-not-matrix':
      return l10n.t('matrix is a mapping of names to lists of values: {lr: [1e-4, 3e-4], rank: [8, 16]}');
    case 'sweep-key':
      return l10n.t('a matrix name is letters, digits and _ (at most 32, not starting with a digit; not checkpoint)');
    case 'sweep-keys':
      return l10n.t('matrix has 1 to {0} names', p.max);
    case 'sweep-values':
      return l10n.t('a matrix name has a list of 1 to {0} values', p.max);
    case 'sweep-value':
      return p.problem === 'long'
        ? l10n.t('matrix value {0} is longer than {1} characters', p.value, p.max)
        : p.problem === 'type'
          ? l10n.t('matrix value {0} is not a number, true/false or a word', p.value)
          : l10n.t('matrix value {0} can only hold letters, digits and _ . + - / (it goes into a shell command: no spaces, quotes, $ or ..)', p.value);
    case 'sweep-duplicate':
      return l10n.t('matrix.{0} has the same value twice', p.key);
    case 'sweep-too-many':
      return l10n.t('matrix makes {0} runs; a sweep is at most {1}', p.runs, p.max);
    case 'sweep-unused':
      return l10n.t('matrix.{0} is used nowhere: put {{0}} in run, resume, env or a path', p.key);
    case 'sweep-too-long':
      return l10n.t('{0} is too long once the matrix values are put in (at most {1} characters)', p.field, p.max);
    case 'sweep-shared-checkpoints':
      return l10n.t("the sweep's runs would share this checkpoint folder: keep it relative with remote_workdir left out (each run gets ~/gpu-rent/<task>-N), or put a matrix {name} in it");
    case 'sweep-path':
      return l10n.t('{0} leaves the task folder once the matrix values are put in', p.field);
    case 'sweep-needs-matrix':
      return l10n.t('{0} is for a sweep: it needs matrix', p.what);
    case 'sweep-name-too-long':
      return l10n.t('a sweep\'s name is at most {0} characters (each run is named <name>-N)', p.max);
    case 'sweep-multinode':
      return l10n.t('a sweep runs single-node tasks: leave nodes out with matrix');
    case 'sweep-gpus-per-run':
      return l10n.t('gpus_per_run is at most resources.gpus ({0})', p.gpus);
  }
}

// The remote layer's codes in the user's words, for both front ends: why a pasted login cannot
// be read, which other argument cannot be used, what the box could not do, which part of SSH failed,
// why a wait ended, why an environment rebuild is refused. The English templates are the
// remote layer's own messages, word for word; the extension passes vscode.l10n and the CLI its
// words.ts (both read the Chinese from l10n/bundle.l10n.zh-cn.json), so no English sentence sits
// inside a Chinese one. What the box or the paste said stays data: made inert and cut
// (forNotification), never part of a link. Pure: `l10n` is passed in.
import { forNotification } from '../core/text';
import type { BoxFailure, BoxStep, InputProblem, ProtocolFailure, WaitProblem } from '../remote/errors';
import type { LoginPlace, LoginProblem } from '../remote/target';
import type { RebuildProblem, YamlPart, YamlReason } from '../core/guards/environment';
import type { L10n } from '../core/l10n';

export type { L10n } from '../core/l10n';

/** The most of one piece of box or pasted text a sentence carries. */
const DATA_CHARS = 300;

/** Box or pasted text inside one of our sentences: inert, one line, cut. */
export function asData(s: string, max = DATA_CHARS): string {
  return forNotification(s, { max }).text;
}

function placeText(p: LoginPlace, l10n: L10n): string {
  switch (p) {
    case 'target':
      return l10n.t('target');
    case 'login-command':
      return l10n.t('login command');
    case 'url':
      return l10n.t('ssh:// address');
    case 'flag-p':
      return '-p';
    case 'option-port':
      return '-o Port';
    case 'option-hostname':
      return '-o HostName';
    case 'config':
      return '~/.ssh/config';
  }
}

/** Why a pasted login (or TARGET) cannot be read. */
export function loginProblemText(r: LoginProblem, l10n: L10n): string {
  switch (r.code) {
    case 'login-not-text':
      return l10n.t('the target must be text');
    case 'login-empty':
      return l10n.t('no target given (expected ssh://user@host:port, a pasted ssh login command, or a Host from ~/.ssh/config)');
    case 'login-control-chars':
      return l10n.t('the target contains control characters');
    case 'login-not-a-target':
      return l10n.t('"{0}" is not a target (expected ssh://user@host:port, a pasted ssh login command, or a Host from ~/.ssh/config)', asData(r.text));
    case 'login-quote-unbalanced':
      return l10n.t('unbalanced {0} quote in the login command', r.quote);
    case 'login-port-range':
      return l10n.t('{0}: the port must be a number from 1 to 65535, got "{1}"', placeText(r.place, l10n), asData(r.port));
    case 'login-password-inside':
      return l10n.t('do not put a password in the target: set GPU_RENT_PASSWORD or answer the prompt');
    case 'login-user-invalid':
      return r.place ? l10n.t('{0}: "{1}" is not a valid user name', placeText(r.place, l10n), asData(r.user)) : l10n.t('"{0}" is not a valid user name', asData(r.user));
    case 'login-host-empty':
      return r.place ? l10n.t('{0}: the host name is empty', placeText(r.place, l10n)) : l10n.t('the host name is empty');
    case 'login-host-invalid':
      return r.place ? l10n.t('{0}: "{1}" is not a valid host name or address', placeText(r.place, l10n), asData(r.host)) : l10n.t('"{0}" is not a valid host name or address', asData(r.host));
    case 'login-url-invalid':
      return l10n.t('"{0}" is not a valid ssh:// address (expected ssh://user@host:port)', asData(r.text));
    case 'login-url-path':
      return l10n.t('ssh:// address "{0}" has a path or query; expected ssh://user@host:port', asData(r.text));
    case 'login-url-user-encoding':
      return l10n.t('the user name in "{0}" is not valid percent-encoding', asData(r.text));
    case 'login-option-form':
      return l10n.t('-o "{0}" is not an option of the form Key=Value', asData(r.option));
    case 'login-flag-unknown':
      return l10n.t('unknown ssh option -{0} in the login command', asData(r.flag, 20));
    case 'login-flag-value':
      return l10n.t('ssh option -{0} needs a value', asData(r.flag, 20));
    case 'login-jump-host':
      return l10n.t('jump hosts (-J) are not supported yet: connect to the box directly');
    case 'login-no-host':
      return l10n.t('the login command names no host (expected e.g. ssh -p 12345 root@host)');
  }
}

function stepText(s: BoxStep, l10n: L10n): string {
  switch (s.step) {
    case 'watchdog-status':
      return l10n.t('reading the watchdog status');
    case 'watchdog-start':
      return l10n.t('starting the watchdog');
    case 'watchdog-remove':
      return l10n.t('removing the watchdog');
    case 'watchdog-write':
      return l10n.t('writing {0}', asData(s.name));
    case 'ram-check':
      return l10n.t('checking the upload folder');
    case 'ram-create':
      return l10n.t('creating the RAM folder');
    case 'ram-wipe':
      return l10n.t('wiping the RAM folder');
    case 'env-copy':
      return l10n.t('copying {0}', asData(s.name));
    case 'supervisor-python':
      return l10n.t('looking for python3');
    case 'supervisor-status':
      return l10n.t('reading the supervisor status');
    case 'supervisor-mark':
      return l10n.t('marking the laptop awake');
    case 'supervisor-claim':
      return l10n.t('taking the end over from the supervisor');
    case 'supervisor-stop':
      return l10n.t('stopping the supervisor');
    case 'supervisor-start':
      return l10n.t('starting the supervisor');
    case 'supervisor-write':
      return l10n.t('writing {0}', asData(s.name));
  }
}

const mib = (bytes: number) => bytes / 1024 / 1024;

/** What the box (or a helper run there) could not do. */
export function boxFailureText(f: BoxFailure, l10n: L10n): string {
  switch (f.code) {
    case 'probe-output-too-big':
      return l10n.t('the probe printed more than {0} MiB on the box (a real one prints a few KiB); stopped it and read nothing of it', mib(f.limitBytes));
    case 'probe-unfinished':
      return f.output ? l10n.t('the probe did not finish on the box (exit {0}): {1}', asData(f.exit, 20), asData(f.output)) : l10n.t('the probe did not finish on the box (exit {0})', asData(f.exit, 20));
    case 'jobs-output-too-big':
      return l10n.t('the jobs listing printed more than {0} MiB on the box (a real one is a few KiB); not read', mib(f.limitBytes));
    case 'gpu-count-unreadable':
      return l10n.t('could not read the GPU count from nvidia-smi ({0}); pass --gpus N', asData(f.output));
    case 'gpu-none-listed':
      return l10n.t('nvidia-smi lists no GPU on this box; pass --gpus N');
    case 'job-already-running':
      return l10n.t('a job named {0} is already running: stop it first (gpu-rent stop TARGET {0}) or pick another --name', asData(f.name));
    case 'job-start-failed':
      return l10n.t('could not start job {0} (exit {1}): {2}', asData(f.name), asData(f.exit, 20), asData(f.output));
    case 'job-not-found':
      return l10n.t('no job named {0} on this box (gpu-rent jobs TARGET lists them)', asData(f.name));
    case 'private-address-unknown':
      return l10n.t('could not find the first node’s private address: pass --master-addr');
    case 'gpu-counts-differ':
      return l10n.t('the nodes have different GPU counts ({0}): every node needs the same number', asData(f.counts));
    case 'port-in-use':
      return l10n.t('port {0} on {1} is already in use: pick another --port', f.port, asData(f.node));
    case 'nodes-unreachable':
      return l10n.t('{0} cannot reach {1} at {2}:{3} ({4}): put the nodes in one VPC / security group that allows the port', asData(f.nodes), asData(f.first), asData(f.address), f.port, asData(f.output));
    case 'env-capture-unfinished':
      return l10n.t('capturing the environment did not finish on the box (exit {0})', asData(f.exit, 20));
    case 'torch-command-unexpected':
      return l10n.t('unexpected torch install command: {0}', asData(f.command));
    case 'torch-word-unexpected':
      return l10n.t('unexpected word in the torch install command: {0}', asData(f.word));
    case 'step-failed':
      return f.output
        ? l10n.t('{0} failed on the box (exit {1}): {2}', stepText(f.step, l10n), asData(f.exit, 20), asData(f.output))
        : l10n.t('{0} failed on the box (exit {1})', stepText(f.step, l10n), asData(f.exit, 20));
    case 'supervisor-not-armed':
      return f.running
        ? l10n.t("the run's supervisor did not arm on the box (running, no heartbeat); see {0}", asData(f.outputPath))
        : l10n.t("the run's supervisor did not arm on the box (not running, no heartbeat); see {0}", asData(f.outputPath));
    case 'watchdog-not-armed':
      return f.running
        ? l10n.t('the watchdog did not arm on the box (pid {0}, running, no heartbeat); see {1}', asData(f.pid, 20), asData(f.outputPath))
        : l10n.t('the watchdog did not arm on the box (pid {0}, not running, no heartbeat); see {1}', asData(f.pid, 20), asData(f.outputPath));
    case 'ram-upload-failed':
      return l10n.t('uploading {0} failed: {1}. Files already in {2} stay in RAM; run wipe to remove them.', asData(f.file), asData(f.output), asData(f.dir));
  }
}

/** Which part of SSH failed; the library's own words stay beside ours as data. */
export function protocolFailureText(f: ProtocolFailure, l10n: L10n): string {
  switch (f.code) {
    case 'ssh-setup':
      return l10n.t('SSH setup failed: {0}', asData(f.output));
    case 'ssh-handshake':
      return l10n.t('SSH handshake with {0} failed: {1}', asData(f.label), asData(f.output));
    case 'ssh-channel':
      return l10n.t('SSH channel failed: {0}', asData(f.output));
    case 'host-key-format':
      return l10n.t('the server sent a host key in an unknown format');
    case 'ssh-other':
      return asData(f.output);
  }
}

/** Why a local path was left out of a RAM upload (ramdisk's reasons; another one stays as data). */
function skipReasonText(reason: string, l10n: L10n): string {
  switch (reason) {
    case 'does not exist':
      return l10n.t('does not exist');
    case 'cannot be read':
      return l10n.t('cannot be read');
    case 'link to something other than a file':
      return l10n.t('link to something other than a file');
    case 'broken link':
      return l10n.t('broken link');
    case 'symbolic link inside a folder':
      return l10n.t('symbolic link inside a folder');
    case 'not a regular file':
      return l10n.t('not a regular file');
    default:
      return asData(reason, 60);
  }
}

/** Which argument (a job name, --gpus, an env name, a folder on the box) cannot be used; what was given stays data. */
export function inputProblemText(p: InputProblem, l10n: L10n): string {
  switch (p.code) {
    case 'job-name-invalid':
      return l10n.t('"{0}" is not usable as a job name: use letters, digits, - and _', asData(p.name));
    case 'env-var-name-invalid':
      return l10n.t('"{0}" is not a valid environment variable name', asData(p.name));
    case 'job-command-missing':
      return l10n.t('no command given: put it after --, e.g. gpu-rent run TARGET --name train -- python train.py');
    case 'launch-command-missing':
      return l10n.t('no command to launch');
    case 'launch-script-missing':
      return l10n.t('the launcher needs a script after python');
    case 'gpus-invalid':
      return l10n.t('--gpus must be a whole number ≥ 1, got {0}', String(p.gpus));
    case 'nodes-too-few':
      return l10n.t('--nodes needs at least two nodes');
    case 'shell-arg-nul':
      return l10n.t('a shell argument cannot contain a NUL byte');
    case 'box-path-invalid':
      return l10n.t('a path on the box cannot contain NUL or newline characters');
    case 'env-name-invalid':
      return p.rule
        ? l10n.t('"{0}" is not a usable env name: letters, digits, \'.\', \'_\' and \'-\', starting with a letter or digit, at most 64', asData(p.name))
        : l10n.t('"{0}" is not a usable env name', asData(p.name));
    case 'python-version-invalid':
      return l10n.t('not a Python version');
    case 'ram-dir-relative':
      return l10n.t('the RAM folder must be an absolute path on the box (got "{0}")', asData(p.dir));
    case 'ram-dir-dotdot':
      return l10n.t('the RAM folder may not contain ".." (got "{0}")', asData(p.dir));
    case 'upload-nothing':
      return p.skipped.length
        ? l10n.t('nothing to upload: {0}', asData(p.skipped.map((x) => l10n.t('{0} ({1})', asData(x.path, 120), skipReasonText(x.reason, l10n))).reduce((list, one) => l10n.t('{0}, {1}', list, one))))
        : l10n.t('nothing to upload');
  }
}

function stageTimeoutText(stage: Extract<WaitProblem, { code: 'stage-timeout' }>['stage'], l10n: L10n): string {
  switch (stage) {
    case 'connect':
      return l10n.t('connecting took longer than the deadline');
    case 'channel-open':
      return l10n.t('opening an SSH channel took longer than the deadline');
    case 'sftp-open':
      return l10n.t('opening SFTP took longer than the deadline');
    case 'command':
      return l10n.t('the remote command took longer than the deadline');
  }
}

/** Why an operation stopped waiting (a deadline, a cancel, a closed connection). */
export function waitProblemText(w: WaitProblem, l10n: L10n): string {
  switch (w.code) {
    case 'channel-wait':
      return l10n.t('waited too long for a free SSH channel ({0} in use, budget {1})', w.inUse, w.budget);
    case 'command-timeout':
      return l10n.t('the remote command did not finish within {0} s', w.seconds);
    case 'stage-timeout':
      return stageTimeoutText(w.stage, l10n);
    case 'cancelled':
      return l10n.t('cancelled');
    case 'connection-closed':
      return l10n.t('the connection was closed');
  }
}

/**
 * Why an environment rebuild is refused or asks first (one line of the capture, or a value),
 * as remote/guards/environment's describeRebuildProblem always said it in English. The line
 * itself (`text`: printable, at most 200 characters, a credential masked) stays data.
 */
export function rebuildProblemText(p: RebuildProblem, l10n: L10n): string {
  switch (p.kind) {
    case 'badEnvName':
      return l10n.t('"{0}" is not a usable env name', asData(p.value));
    case 'badValue':
      return l10n.t('the captured {0} "{1}" is not a version', p.field, asData(p.value));
    case 'pipOption':
      return l10n.t('{0} line {1} is a pip option ({2})', p.file, p.line, asData(p.text));
    case 'credentialUrl':
      return l10n.t('{0} line {1} has a URL with a password or token ({2})', p.file, p.line, asData(p.text));
    case 'notARequirement':
      return l10n.t('{0} line {1} is not a plain requirement ({2})', p.file, p.line, asData(p.text));
    case 'tooLarge': {
      // `text` is the file's size as the checks wrote it ("N characters").
      const n = /^(\d{1,12}) characters$/.exec(p.text);
      return l10n.t('{0} is too large ({1})', p.file, n ? l10n.t('{0} characters', Number(n[1])) : asData(p.text));
    }
    case 'channel':
      return l10n.t('{0} line {1} uses a conda channel that is not a well-known one ({2})', p.file, p.line, asData(p.text));
    case 'envVariable':
      return l10n.t('{0} line {1} sets an environment variable in the new env ({2})', p.file, p.line, asData(p.text));
    case 'unsupportedYaml':
      return l10n.t('{0} line {1} cannot be checked: {2}; write it as plain YAML (as conda env export does)', p.file, p.line, p.reason ? yamlReasonText(p.reason, l10n) : asData(p.text));
    case 'wrongShape':
      return l10n.t('{0} line {1} is not what conda env export writes: {2}', p.file, p.line, p.reason ? yamlReasonText(p.reason, l10n) : asData(p.text));
    case 'unknownKey':
      return l10n.t('{0} line {1} has an unknown top-level key with a list or mapping ({2})', p.file, p.line, asData(p.text));
  }
}

function yamlPartText(w: YamlPart, l10n: L10n): string {
  switch (w.part) {
    case 'key':
      return asData(w.key, 80);
    case 'variable':
      return l10n.t('variable {0}', asData(w.key, 80));
    case 'channel':
      return l10n.t('a channel');
    case 'pip-requirement':
      return l10n.t('a pip requirement');
    case 'dependency':
      return l10n.t('a dependency');
  }
}

/** Why an environment.yml could not be checked or is not what conda env export writes; names and the YAML library's words stay data. */
export function yamlReasonText(r: YamlReason, l10n: L10n): string {
  switch (r.code) {
    case 'nesting-columns':
      return l10n.t('nesting deeper than {0} columns', r.max);
    case 'tab-indent':
      return l10n.t('a tab in the indentation');
    case 'flow-depth':
      return l10n.t('flow collections nested deeper than {0}', r.max);
    case 'directive':
      return l10n.t('a YAML directive (%)');
    case 'documents':
      return l10n.t('{0} YAML documents in one file', r.count);
    case 'yaml-error':
      return l10n.t('YAML error: {0}', asData(r.message, 200));
    case 'tree-depth':
      return l10n.t('nested deeper than {0}', r.max);
    case 'alias':
      return l10n.t('an alias (*{0})', asData(r.name, 80));
    case 'anchor':
      return l10n.t('an anchor (&{0})', asData(r.name, 80));
    case 'tag':
      return l10n.t('a tag ({0})', asData(r.tag, 80));
    case 'block-scalar':
      return l10n.t('a block scalar (| or >)');
    case 'control-value':
      return l10n.t('a value with a line break or control character');
    case 'key-not-string':
      return l10n.t('a key that is not a plain string');
    case 'key-anchor-tag':
      return l10n.t('an anchor or tag on a key');
    case 'merge-key':
      return l10n.t('a merge key (<<)');
    case 'key-control':
      return l10n.t('a key with a control character');
    case 'unknown-node':
      return l10n.t('a YAML node of an unknown kind');
    case 'not-string':
      return l10n.t('{0} is not a string', yamlPartText(r.what, l10n));
    case 'not-list':
      return l10n.t('{0} is not a list', yamlPartText(r.what, l10n));
    case 'root-not-mapping':
      return l10n.t('the file is not a mapping (name:, channels:, dependencies:)');
    case 'variables-not-mapping':
      return l10n.t('variables is not a mapping');
    case 'variable-name':
      return l10n.t('variable name {0}', asData(r.name, 80));
    case 'dependency-mapping':
      return l10n.t('a dependency mapping other than pip: ({0})', asData(r.keys, 200));
  }
}

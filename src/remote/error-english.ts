// The English of each coded remote failure, word for word as the remote layer always wrote it:
// a box's failure and its step, an SSH failure, an unusable argument, a wait that ended. It is
// each RemoteError's message (errors.ts builds them); app/remoteWords.ts words the same codes
// in the UI's language.
import type { BoxFailure, BoxStep, InputProblem, ProtocolFailure, WaitProblem } from './errors';

function stepEnglish(s: BoxStep): string {
  switch (s.step) {
    case 'watchdog-status':
      return 'reading the watchdog status';
    case 'watchdog-start':
      return 'starting the watchdog';
    case 'watchdog-remove':
      return 'removing the watchdog';
    case 'watchdog-write':
      return `writing ${s.name}`;
    case 'ram-check':
      return 'checking the upload folder';
    case 'ram-create':
      return 'creating the RAM folder';
    case 'ram-wipe':
      return 'wiping the RAM folder';
    case 'env-copy':
      return `copying ${s.name}`;
    case 'supervisor-python':
      return 'looking for python3';
    case 'supervisor-status':
      return 'reading the supervisor status';
    case 'supervisor-mark':
      return 'marking the laptop awake';
    case 'supervisor-claim':
      return 'taking the end over from the supervisor';
    case 'supervisor-stop':
      return 'stopping the supervisor';
    case 'supervisor-start':
      return 'starting the supervisor';
    case 'supervisor-write':
      return `writing ${s.name}`;
  }
}

const mib = (bytes: number) => bytes / 1024 / 1024;
const colon = (output: string) => (output ? `: ${output}` : '');

/** The English message of a box failure (the CLI's and the log's words), as the remote layer always wrote it. */
export function boxFailureEnglish(f: BoxFailure): string {
  switch (f.code) {
    case 'probe-output-too-big':
      return `the probe printed more than ${mib(f.limitBytes)} MiB on the box (a real one prints a few KiB); stopped it and read nothing of it`;
    case 'probe-unfinished':
      return `the probe did not finish on the box (exit ${f.exit})${colon(f.output)}`;
    case 'jobs-output-too-big':
      return `the jobs listing printed more than ${mib(f.limitBytes)} MiB on the box (a real one is a few KiB); not read`;
    case 'gpu-count-unreadable':
      return `could not read the GPU count from nvidia-smi (${f.output}); pass --gpus N`;
    case 'gpu-none-listed':
      return 'nvidia-smi lists no GPU on this box; pass --gpus N';
    case 'job-already-running':
      return `a job named ${f.name} is already running: stop it first (gpu-rent stop TARGET ${f.name}) or pick another --name`;
    case 'job-start-failed':
      return `could not start job ${f.name} (exit ${f.exit}): ${f.output}`;
    case 'job-not-found':
      return `no job named ${f.name} on this box (gpu-rent jobs TARGET lists them)`;
    case 'private-address-unknown':
      return 'could not find the first node’s private address: pass --master-addr';
    case 'gpu-counts-differ':
      return `the nodes have different GPU counts (${f.counts}): every node needs the same number`;
    case 'port-in-use':
      return `port ${f.port} on ${f.node} is already in use: pick another --port`;
    case 'nodes-unreachable':
      return `${f.nodes} cannot reach ${f.first} at ${f.address}:${f.port} (${f.output}): put the nodes in one VPC / security group that allows the port`;
    case 'env-capture-unfinished':
      return `capturing the environment did not finish on the box (exit ${f.exit})`;
    case 'torch-command-unexpected':
      return `unexpected torch install command: ${f.command}`;
    case 'torch-word-unexpected':
      return `unexpected word in the torch install command: ${f.word}`;
    case 'step-failed':
      return `${stepEnglish(f.step)} failed on the box (exit ${f.exit})${colon(f.output)}`;
    case 'supervisor-not-armed':
      return `the run's supervisor did not arm on the box (${f.running ? 'running' : 'not running'}, no heartbeat); see ${f.outputPath}`;
    case 'watchdog-not-armed':
      return `the watchdog did not arm on the box (pid ${f.pid}, ${f.running ? 'running' : 'not running'}, no heartbeat); see ${f.outputPath}`;
    case 'ram-upload-failed':
      return `uploading ${f.file} failed: ${f.output}. Files already in ${f.dir} stay in RAM; run wipe to remove them.`;
  }
}

/** The English message of an SSH protocol failure. */
export function protocolFailureEnglish(f: ProtocolFailure): string {
  switch (f.code) {
    case 'ssh-setup':
      return `SSH setup failed: ${f.output}`;
    case 'ssh-handshake':
      return `SSH handshake with ${f.label} failed: ${f.output}`;
    case 'ssh-channel':
      return `SSH channel failed: ${f.output}`;
    case 'host-key-format':
      return 'the server sent a host key in an unknown format';
    case 'ssh-other':
      return f.output;
  }
}

/** The English message of an argument that cannot be used, as the remote layer always wrote it. */
export function inputProblemEnglish(p: InputProblem): string {
  switch (p.code) {
    case 'job-name-invalid':
      return `"${p.name}" is not usable as a job name: use letters, digits, - and _`;
    case 'env-var-name-invalid':
      return `"${p.name}" is not a valid environment variable name`;
    case 'job-command-missing':
      return 'no command given: put it after --, e.g. gpu-rent run TARGET --name train -- python train.py';
    case 'launch-command-missing':
      return 'no command to launch';
    case 'launch-script-missing':
      return 'the launcher needs a script after python';
    case 'gpus-invalid':
      return `--gpus must be a whole number ≥ 1, got ${p.gpus}`;
    case 'nodes-too-few':
      return '--nodes needs at least two nodes';
    case 'shell-arg-nul':
      return 'a shell argument cannot contain a NUL byte';
    case 'box-path-invalid':
      return 'a path on the box cannot contain NUL or newline characters';
    case 'env-name-invalid':
      return p.rule ? `"${p.name}" is not a usable env name: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64` : `"${p.name}" is not a usable env name`;
    case 'python-version-invalid':
      return 'not a Python version';
    case 'ram-dir-relative':
      return `the RAM folder must be an absolute path on the box (got "${p.dir}")`;
    case 'ram-dir-dotdot':
      return `the RAM folder may not contain ".." (got "${p.dir}")`;
    case 'upload-nothing':
      return `nothing to upload${p.skipped.length ? `: ${p.skipped.map((s) => `${s.path} (${s.reason})`).join(', ')}` : ''}`;
  }
}

const STAGE_ENGLISH: Record<Extract<WaitProblem, { code: 'stage-timeout' }>['stage'], string> = {
  connect: 'connecting',
  'channel-open': 'opening an SSH channel',
  'sftp-open': 'opening SFTP',
  command: 'the remote command',
};

/** The English message of a wait that ended, as the channel budget and the exec channel always wrote it. */
export function waitProblemEnglish(w: WaitProblem): string {
  switch (w.code) {
    case 'channel-wait':
      return `waited too long for a free SSH channel (${w.inUse} in use, budget ${w.budget})`;
    case 'command-timeout':
      return `the remote command did not finish within ${w.seconds} s`;
    case 'stage-timeout':
      return `${STAGE_ENGLISH[w.stage]} took longer than the deadline`;
    case 'cancelled':
      return 'cancelled';
    case 'connection-closed':
      return 'the connection was closed';
  }
}

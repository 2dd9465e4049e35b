// `gpu-rent run TARGET --name NAME [--cwd DIR] [--env K=V ...] [--launcher L --gpus N|auto] -- COMMAND...`
// starts training detached on the box (tmux, else setsid), so it survives the laptop's SSH dropping.
import { forTerminal, jsonForTerminal } from '../../core/text';
import { LAUNCHERS, startJob, type Launcher } from '../../remote/jobs';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, withRemote } from '../remote-common';

const specs = {
  name: { type: 'string', valueName: 'NAME', description: 'job name (letters, digits, - and _; others become -)' },
  cwd: { type: 'string', valueName: 'DIR', description: "folder on the box to run in (default: the platform's data disk, e.g. /root/autodl-tmp, else ~)" },
  env: { type: 'string', valueName: 'K=V', repeat: true, description: 'environment variable for the job (repeatable)' },
  launcher: { type: 'string', valueName: 'L', choices: LAUNCHERS, description: 'wrap the command in torchrun, deepspeed or accelerate' },
  gpus: { type: 'string', valueName: 'N|auto', description: 'GPUs for the launcher (default auto: the count nvidia-smi lists)' },
  json: { type: 'boolean', description: 'print the started job as JSON' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent run TARGET --name NAME [--cwd DIR] [--env K=V ...] [--launcher torchrun|deepspeed|accelerate --gpus N|auto] -- COMMAND...';
const SUMMARY =
  'Start a command detached on the box (tmux when present, else setsid): it keeps running when the connection drops. ' +
  'Output goes to a log file; pid, start time and exit code are kept in ~/.gpu-rent/jobs/NAME/ on the box. ' +
  'Each argument after -- is passed as is; a single argument is run as a shell command line. ' +
  TARGET_HELP;

export function parseEnvPairs(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    const k = eq === -1 ? '' : p.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new UsageError(`--env expects K=V with K a variable name, got "${p}"`);
    env[k] = p.slice(eq + 1);
  }
  return env;
}

export function parseGpus(raw: string | undefined): number | 'auto' | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'auto') return 'auto';
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 1024) throw new UsageError(`--gpus expects a whole number ≥ 1 or auto, got "${raw}"`);
  return Number(raw);
}

const when = (s: number | null) => (s === null ? '-' : new Date(s * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));

export const command: CliCommand = {
  name: 'run',
  summary: 'Start training detached on the box (survives disconnects), with a log and exit code.',
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals, rest } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'TARGET' });
    if (!flags.name) throw new UsageError('--name is required (it names the job for jobs, logs and stop)');
    if (rest.length === 0) throw new UsageError('no command: put it after --, e.g. gpu-rent run TARGET --name train -- python train.py');
    const gpus = parseGpus(flags.gpus);
    if (gpus !== undefined && !flags.launcher) throw new UsageError('--gpus needs --launcher torchrun|deepspeed|accelerate');
    const env = parseEnvPairs(flags.env ?? []);
    return withRemote(positionals[0], flags, io, async (conn) => {
      const job = await startJob(conn, { name: flags.name!, command: rest, cwd: flags.cwd, env, launcher: flags.launcher as Launcher | undefined, gpus });
      if (flags.json) {
        io.stdout(jsonForTerminal({ name: job.name, state: job.state, pid: job.pid, runner: job.runner, logPath: job.logPath, cwd: job.cwd, startedAt: job.startedAt, commandLine: job.commandLine, gpus: job.gpus }, 2) + '\n');
      } else {
        io.stdout(
          [
            `started ${job.name} (${job.state}, pid ${job.pid ?? '?'}, via ${job.runner ?? '?'}) at ${when(job.startedAt)}`,
            `  command: ${forTerminal(job.commandLine)}`,
            `  folder:  ${forTerminal(job.cwd ?? '?')}`,
            `  log:     ${forTerminal(job.logPath)}`,
            ...(job.runner === 'tmux' ? [`  on the box: tmux attach -t ${job.name}`] : []),
            `  follow:  gpu-rent logs TARGET ${job.name} --follow`,
            '',
          ].join('\n'),
        );
      }
      return 0;
    });
  },
};

// `gpu-rent env capture TARGET [--out DIR]` and `gpu-rent env rebuild TARGET --from DIR --name NAME`:
// a portable environment, so a platform's image does not lock you in.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnvSnapshot, portableRequirements, safeEnvName, type EnvSnapshot } from '../../../core/guards/environment';
import { captureEnvironment, startRebuild } from '../../../remote/guards/environment';
import { followLog } from '../../../remote/jobs';
import { describeTarget } from '../../../remote/target';
import { formatHelp, parseArgs, UsageError } from '../../args';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, withRemote } from '../../remote-common';

const specs = {
  out: { type: 'string', valueName: 'DIR', description: 'capture: local folder to write (default ./gpu-rent-env)' },
  from: { type: 'string', valueName: 'DIR', description: 'rebuild: a folder written by env capture' },
  name: { type: 'string', valueName: 'NAME', description: 'rebuild: name of the fresh conda env (or venv) to create' },
  'no-follow': { type: 'boolean', description: 'rebuild: start it and return (follow with gpu-rent logs TARGET env-NAME)' },
  json: { type: 'boolean', description: 'print the result as JSON' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent env capture TARGET [--out DIR] | gpu-rent env rebuild TARGET --from DIR --name NAME';
const SUMMARY = `Capture a box's environment (conda env export, pip packages, Python, driver, CUDA, torch) into a local folder, and rebuild it in a fresh env on another box with one command. torch is reinstalled with the CUDA build the new box's driver runs. ${TARGET_HELP}`;

export const SNAPSHOT_FILE = 'gpu-rent-env.json';

function writeCapture(dir: string, s: EnvSnapshot): string[] {
  mkdirSync(dir, { recursive: true });
  const written = [SNAPSHOT_FILE, 'requirements.txt'];
  writeFileSync(join(dir, SNAPSHOT_FILE), JSON.stringify(s, null, 2) + '\n');
  writeFileSync(join(dir, 'requirements.txt'), s.requirements);
  if (s.environmentYml) {
    writeFileSync(join(dir, 'environment.yml'), s.environmentYml);
    written.push('environment.yml');
  }
  return written;
}

function readCapture(dir: string): EnvSnapshot {
  const file = join(dir, SNAPSHOT_FILE);
  if (!existsSync(file)) throw new UsageError(`--from: ${dir} has no ${SNAPSHOT_FILE} (make one with gpu-rent env capture TARGET --out ${dir})`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`--from: ${file} is not valid JSON (${(e as Error).message})`);
  }
  const r = parseEnvSnapshot(json);
  if (!r.ok) throw new UsageError(`--from: ${file}: ${r.problems.map((p) => `${p.path || 'file'} ${p.problem}`).join(', ')}`);
  // Edits the user made to the files beside it win over the copy inside the snapshot.
  const snap = { ...r.snapshot };
  if (existsSync(join(dir, 'requirements.txt'))) snap.requirements = readFileSync(join(dir, 'requirements.txt'), 'utf8');
  if (existsSync(join(dir, 'environment.yml'))) snap.environmentYml = readFileSync(join(dir, 'environment.yml'), 'utf8');
  return snap;
}

export const command: CliCommand = {
  name: 'env',
  summary: 'Capture a box’s environment, or rebuild it in a fresh env on another box.',
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 2, positionalNames: 'capture|rebuild TARGET' });
    const verb = positionals[0];
    if (verb === 'capture') {
      if (flags.from || flags.name || flags['no-follow']) throw new UsageError('--from, --name and --no-follow go with rebuild');
      const out = flags.out ?? 'gpu-rent-env';
      return withRemote(positionals[1], flags, io, async (conn, target) => {
        const snap = await captureEnvironment(conn, describeTarget({ ...target, user: conn.user }));
        const files = writeCapture(out, snap);
        if (flags.json) io.stdout(JSON.stringify({ dir: out, files, snapshot: snap }, null, 2) + '\n');
        else {
          const pkgs = portableRequirements(snap.requirements).split('\n').filter(Boolean).length;
          io.stdout(
            [
              `captured into ${out}/: ${files.join(', ')}`,
              `  python ${snap.pythonVersion ?? '?'}${snap.condaEnv ? `, conda env ${snap.condaEnv}` : ', no conda'}; torch ${snap.torch ?? 'not installed'}${snap.torchCuda ? ` (CUDA ${snap.torchCuda})` : ''}`,
              `  driver ${snap.driverVersion ?? '?'} (CUDA ≤ ${snap.driverMaxCuda ?? '?'}), ${snap.gpus.length ? snap.gpus.join(', ') : 'no GPU seen'}; ${pkgs} pip packages besides torch`,
              `rebuild elsewhere: gpu-rent env rebuild NEW_TARGET --from ${out} --name NAME`,
            ].join('\n') + '\n',
          );
        }
        return 0;
      });
    }
    if (verb === 'rebuild') {
      if (flags.out) throw new UsageError('--out goes with capture');
      if (!flags.from) throw new UsageError('rebuild needs --from DIR (a folder written by env capture)');
      if (!flags.name) throw new UsageError('rebuild needs --name NAME for the fresh env');
      if (safeEnvName(flags.name) !== flags.name) throw new UsageError(`--name expects letters, digits, '.', '_' or '-' (starting with a letter or digit, at most 64), got "${flags.name}"`);
      const snap = readCapture(flags.from);
      return withRemote(positionals[1], flags, io, async (conn) => {
        const r = await startRebuild(conn, snap, flags.name!);
        const torchNote =
          r.torch.kind === 'install'
            ? `torch ${snap.torch} for CUDA ${r.torch.cuda}${r.torch.sameBuild ? ' (same build)' : ` (the new driver ${r.targetDriver.version ?? '?'} cannot run CUDA ${snap.torchCuda}; using ${r.torch.cuda})`}`
            : r.torch.kind === 'cpuOnly'
              ? `torch ${snap.torch}: no CUDA build of it runs on driver ${r.targetDriver.version ?? '?'}; installing the plain wheel`
              : r.torch.kind === 'unknownRelease'
                ? `torch ${r.torch.torch} is not in the wheel table: install it yourself`
                : 'no torch in the capture';
        io.stderr(`rebuilding as job ${r.job.name} on the box (${r.dir}); ${torchNote}\n`);
        if (flags['no-follow']) {
          io.stdout(`started; follow with: gpu-rent logs TARGET ${r.job.name} --follow\n`);
          return 0;
        }
        const done = await followLog(conn, r.job.name, { lines: 0, onData: (c) => io.stdout(c.toString('utf8')) });
        if (done.exitCode === 0) return 0;
        io.stderr(`gpu-rent env: the rebuild ${done.state === 'exited' ? `exited with ${done.exitCode}` : `is ${done.state}`}\n`);
        return 1;
      });
    }
    throw new UsageError(`expects capture or rebuild first, got ${verb === undefined ? 'nothing' : `"${verb}"`}`);
  },
};

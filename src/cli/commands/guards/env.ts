// `gpu-rent env capture TARGET [--out DIR]` and `gpu-rent env rebuild TARGET --from DIR --name NAME`:
// a portable environment, so a platform's image does not lock you in. The folder format, the
// checks and the rebuild are src/app/environment.ts, the same the extension uses.
import { forTerminal, forTerminalLines } from '../../../core/text';
import { capture, CaptureReadError, checkRebuild, describeRebuildProblem, readCapture, rebuild, writeCapture, type EnvCapture } from '../../../app/environment';
import { ASKABLE_PROBLEMS, checkRequirements, safeEnvName, type RequirementProblemKind } from '../../../core/guards/environment';
import { followLog } from '../../../remote/jobs';
import { describeTarget } from '../../../remote/target';
import { formatHelp, parseArgs, UsageError } from '../../args';
import { helpLang } from '../../words';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../../remote-common';

const specs = {
  out: { type: 'string', valueName: 'DIR', description: 'capture: local folder to write (default ./gpu-rent-env)' },
  from: { type: 'string', valueName: 'DIR', description: 'rebuild: a folder written by env capture (or by the extension’s Capture Environment)' },
  name: { type: 'string', valueName: 'NAME', description: 'rebuild: name of the fresh conda env (or venv) to create' },
  'allow-pip-options': { type: 'boolean', description: 'rebuild: also pass on requirements lines that are pip options (--extra-index-url, -r, -e …) or URLs with credentials, and environment.yml channels that are not well-known ones or variables; refused without it' },
  'no-follow': { type: 'boolean', description: 'rebuild: start it and return (follow with gpu-rent logs TARGET env-NAME)' },
  json: { type: 'boolean', description: 'print the result as JSON' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent env capture TARGET [--out DIR] | gpu-rent env rebuild TARGET --from DIR --name NAME';
const SUMMARY = `Capture a box's environment (conda env export, pip packages, Python, driver, CUDA, torch) into a local folder, and rebuild it in a fresh env on another box with one command. Edit requirements.txt (or environment.yml) in the folder to change what is installed. torch is reinstalled with the CUDA build the new box's driver runs. ${TARGET_HELP}`;

export const SNAPSHOT_FILE = 'gpu-rent-env.json';

async function readFrom(dir: string) {
  try {
    return await readCapture(dir);
  } catch (e) {
    if (e instanceof CaptureReadError) throw new UsageError(`--from: ${e.message}${e.code === 'noCapture' ? ` (make one with gpu-rent env capture TARGET --out ${dir})` : ''}`);
    throw e;
  }
}

function captureLines(out: string, files: string[], snap: EnvCapture, pkgs: number): string {
  return (
    [
      `captured into ${out}/: ${files.join(', ')}`,
      `  python ${snap.pythonVersion ?? '?'}${snap.condaEnv ? `, conda env ${snap.condaEnv}` : ', no conda'}; torch ${snap.torch ?? 'not installed'}${snap.torchCuda ? ` (CUDA ${snap.torchCuda})` : ''}`,
      `  driver ${snap.driverVersion ?? '?'} (CUDA ≤ ${snap.driverMaxCuda ?? '?'}), ${snap.gpus.length ? snap.gpus.join(', ') : 'no GPU seen'}; ${pkgs} pip packages besides torch`,
      `edit ${out}/requirements.txt to change what a rebuild installs`,
      `rebuild elsewhere: gpu-rent env rebuild NEW_TARGET --from ${out} --name NAME`,
    ].join('\n') + '\n'
  );
}

const SUMMARY_ZH = `把一台机器的环境（conda env export、pip 包、Python、驱动、CUDA、torch）记录到本地目录，并用一条命令在另一台机器的新环境中重建。修改目录中的 requirements.txt（或 environment.yml）可以改变安装的内容。torch 会按新机器驱动能跑的 CUDA 版本重新安装。${TARGET_HELP_ZH}`;

export const command: CliCommand = {
  name: 'env',
  summary: 'Capture a box’s environment, or rebuild it in a fresh env on another box.',
  summaryZh: '记录一台机器的环境，或在另一台机器的新环境中重建它。',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 2, positionalNames: 'capture|rebuild TARGET' });
    const verb = positionals[0];
    if (verb === 'capture') {
      if (flags.from || flags.name || flags['no-follow'] || flags['allow-pip-options']) throw new UsageError('--from, --name, --allow-pip-options and --no-follow go with rebuild');
      const out = flags.out ?? 'gpu-rent-env';
      return withRemote(positionals[1], flags, io, async (conn, target) => {
        const snap = await capture(conn, { source: describeTarget({ ...target, user: conn.user }) });
        const { files } = await writeCapture(out, snap);
        // Counted the way a rebuild reads it (torch and local paths left out).
        const pkgs = checkRequirements(snap.requirements, { allowPipOptions: true }).kept;
        if (flags.json) io.stdout(JSON.stringify({ dir: out, files, snapshot: snap }, null, 2) + '\n');
        else io.stdout(forTerminalLines(captureLines(out, files, snap, pkgs)));
        for (const p of checkRequirements(snap.requirements).problems) io.stderr(forTerminalLines(`note: ${describeRebuildProblem(p)}: a rebuild refuses it until you edit it or pass --allow-pip-options\n`));
        return 0;
      });
    }
    if (verb === 'rebuild') {
      if (flags.out) throw new UsageError('--out goes with capture');
      if (!flags.from) throw new UsageError('rebuild needs --from DIR (a folder written by env capture)');
      if (!flags.name) throw new UsageError('rebuild needs --name NAME for the fresh env');
      if (safeEnvName(flags.name) !== flags.name) throw new UsageError(`--name expects letters, digits, '.', '_' or '-' (starting with a letter or digit, at most 64), got "${flags.name}"`);
      const read = await readFrom(flags.from);
      const snap = read.capture;
      // Checked before connecting: a refused line needs no box.
      const check = checkRebuild(snap, { envName: flags.name, allowPipOptions: flags['allow-pip-options'] === true });
      if (check.problems.length) {
        const optionLines = check.problems.some((p) => ASKABLE_PROBLEMS.has(p.kind as RequirementProblemKind));
        const refused = check.problems.some((p) => !ASKABLE_PROBLEMS.has(p.kind as RequirementProblemKind));
        throw new UsageError(
          `--from ${flags.from}: not rebuilt:\n${check.problems.map((p) => `  ${describeRebuildProblem(p)}`).join('\n')}` +
            (optionLines ? '\nedit the file to leave plain requirements (name==version), or pass --allow-pip-options if you trust those lines' : '') +
            (refused ? '\n--allow-pip-options does not pass the other lines: edit the file (environment.yml as conda env export writes it, or delete it)' : ''),
        );
      }
      return withRemote(positionals[1], flags, io, async (conn) => {
        const r = await rebuild(conn, read, { envName: flags.name!, allowPipOptions: flags['allow-pip-options'] === true });
        const torchNote =
          r.torch.kind === 'install'
            ? `torch ${snap.torch} for CUDA ${r.torch.cuda}${r.torch.sameBuild ? ' (same build)' : ` (the new driver ${r.targetDriver.version ?? '?'} cannot run CUDA ${snap.torchCuda}; using ${r.torch.cuda})`}`
            : r.torch.kind === 'cpuOnly'
              ? `torch ${snap.torch}: no CUDA build of it runs on driver ${r.targetDriver.version ?? '?'}; installing the plain wheel`
              : r.torch.kind === 'unknownRelease'
                ? `torch ${r.torch.torch} is not in the wheel table: install it yourself`
                : 'no torch in the capture';
        const left = r.requirements.dropped.filter((d) => d.reason === 'localPath');
        io.stderr(forTerminalLines(`rebuilding as job ${r.job.name} on the box (${r.dir}); ${r.requirements.kept} pip packages from ${read.from.requirements === 'file' ? 'requirements.txt' : 'the capture'}; ${torchNote}\n`));
        for (const d of left) io.stderr(forTerminalLines(`note: left out ${d.file} line ${d.line} (${d.text}): a path on the old box\n`));
        if (flags['no-follow']) {
          io.stdout(forTerminalLines(`started; follow with: gpu-rent logs TARGET ${r.job.name} --follow\n`));
          return 0;
        }
        const done = await followLog(conn, r.job.name, { lines: 0, onData: (c) => io.stdout(forTerminal(c.toString('utf8'), { keep: '\n\t\r' })) });
        if (done.exitCode === 0) return 0;
        io.stderr(forTerminalLines(`gpu-rent env: the rebuild ${done.state === 'exited' ? `exited with ${done.exitCode}` : `is ${done.state}`}\n`));
        return 1;
      });
    }
    throw new UsageError(`expects capture or rebuild first, got ${verb === undefined ? 'nothing' : `"${verb}"`}`);
  },
};

// `gpu-rent env capture TARGET [--out DIR]` and `gpu-rent env rebuild TARGET --from DIR --name NAME`:
// a portable environment, so a platform's image does not lock you in. The folder format, the
// checks and the rebuild are src/app/environment.ts, the same the extension uses.
import { forTerminal, forTerminalLines } from '../../../core/text';
import { capture, CaptureReadError, checkRebuild, readCapture, rebuild, RebuildRefused, writeCapture, type EnvCapture } from '../../../app/environment';
import { rebuildProblemText } from '../../../app/remoteWords';
import { ASKABLE_PROBLEMS, checkRequirements, safeEnvName, type RequirementProblemKind } from '../../../core/guards/environment';
import { followLog } from '../../../remote/jobs';
import { describeTarget } from '../../../remote/target';
import { UsageError } from '../../args';
import { CliError, l10nIn, t } from '../../words';
import { defineCommand } from '../../define';
import type { CliLang } from '../../lang';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../../remote-common';

const specs = {
  out: { type: 'string', valueName: 'DIR', description: 'capture: local folder to write (default ./gpu-rent-env)', zh: 'capture：要写入的本地文件夹（默认 ./gpu-rent-env）' },
  from: { type: 'string', valueName: 'DIR', description: 'rebuild: a folder written by env capture (or by the extension’s Capture Environment)', zh: 'rebuild：由 env capture（或扩展的“捕获环境”）写出的文件夹' },
  name: { type: 'string', valueName: 'NAME', description: 'rebuild: name of the fresh conda env (or venv) to create', zh: 'rebuild：要创建的新 conda 环境（或 venv）的名称' },
  'allow-pip-options': { type: 'boolean', description: 'rebuild: also pass on requirements lines that are pip options (--extra-index-url, -r, -e …) or URLs with credentials, and environment.yml channels that are not well-known ones or variables; refused without it', zh: 'rebuild：也传递 requirements 中属于 pip 选项的行（--extra-index-url、-r、-e …）或带凭据的 URL，以及 environment.yml 中非知名的或含变量的 channel；不加则拒绝' },
  'no-follow': { type: 'boolean', description: 'rebuild: start it and return (follow with gpu-rent logs TARGET env-NAME)', zh: 'rebuild：启动后即返回（用 gpu-rent logs TARGET env-NAME 跟踪）' },
  json: { type: 'boolean', description: 'print the result as JSON', zh: '以 JSON 输出结果' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent env capture TARGET [--out DIR] | gpu-rent env rebuild TARGET --from DIR --name NAME';
const SUMMARY = `Capture a box's environment (conda env export, pip packages, Python, driver, CUDA, torch) into a local folder, and rebuild it in a fresh env on another box with one command. Edit requirements.txt (or environment.yml) in the folder to change what is installed. torch is reinstalled with the CUDA build the new box's driver runs. ${TARGET_HELP}`;

export const SNAPSHOT_FILE = 'gpu-rent-env.json';

async function readFrom(dir: string) {
  try {
    return await readCapture(dir);
  } catch (e) {
    if (e instanceof CaptureReadError) throw new UsageError(`--from: ${e.message}${e.code === 'noCapture' ? ` (make one with gpu-rent env capture TARGET --out ${dir})` : ''}`, `--from：${e.message}${e.code === 'noCapture' ? `（用 gpu-rent env capture TARGET --out ${dir} 生成一个）` : ''}`);
    throw e;
  }
}

function captureLines(out: string, files: string[], snap: EnvCapture, pkgs: number, lang: CliLang = 'en'): string {
  if (lang === 'zh-cn')
    return (
      [
        `已记录到 ${out}/：${files.join(', ')}`,
        `  python ${snap.pythonVersion ?? '?'}${snap.condaEnv ? `，conda 环境 ${snap.condaEnv}` : '，没有 conda'}；torch ${snap.torch ?? '未安装'}${snap.torchCuda ? `（CUDA ${snap.torchCuda}）` : ''}`,
        `  驱动 ${snap.driverVersion ?? '?'}（CUDA ≤ ${snap.driverMaxCuda ?? '?'}），${snap.gpus.length ? snap.gpus.join(', ') : '没有看到 GPU'}；除 torch 外还有 ${pkgs} 个 pip 包`,
        `修改 ${out}/requirements.txt 可以改变重建时安装的内容`,
        `在别处重建：gpu-rent env rebuild NEW_TARGET --from ${out} --name NAME`,
      ].join('\n') + '\n'
    );
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

type EnvResult = { verb: 'capture'; out: string; files: string[]; snap: EnvCapture; pkgs: number } | { verb: 'rebuild'; line: string; exit: number };

export const command: CliCommand = defineCommand({
  name: 'env',
  summary: 'Capture a box’s environment, or rebuild it in a fresh env on another box.',
  summaryZh: '记录一台机器的环境，或在另一台机器的新环境中重建它。',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 2, names: 'capture|rebuild TARGET' },
  run: async (flags, { io, lang, positionals }): Promise<EnvResult> => {
    const verb = positionals[0];
    const zh = lang === 'zh-cn';
    const words = l10nIn(lang);
    if (verb === 'capture') {
      if (flags.from || flags.name || flags['no-follow'] || flags['allow-pip-options']) throw new UsageError('--from, --name, --allow-pip-options and --no-follow go with rebuild', '--from、--name、--allow-pip-options 和 --no-follow 只用于 rebuild');
      const out = flags.out ?? 'gpu-rent-env';
      return withRemote(positionals[1], flags, io, async (conn, target) => {
        const snap = await capture(conn, { source: describeTarget({ ...target, user: conn.user }) });
        const { files } = await writeCapture(out, snap);
        // Counted the way a rebuild reads it (torch and local paths left out).
        const pkgs = checkRequirements(snap.requirements, { allowPipOptions: true }).kept;
        for (const p of checkRequirements(snap.requirements).problems) io.stderr(forTerminalLines(zh ? `注意：${rebuildProblemText(p, words)}：在你修改它或加 --allow-pip-options 之前，重建会拒绝它\n` : `note: ${rebuildProblemText(p, words)}: a rebuild refuses it until you edit it or pass --allow-pip-options\n`));
        return { verb, out, files, snap, pkgs };
      });
    }
    if (verb === 'rebuild') {
      if (flags.out) throw new UsageError('--out goes with capture', '--out 只用于 capture');
      if (!flags.from) throw new UsageError('rebuild needs --from DIR (a folder written by env capture)', 'rebuild 需要 --from DIR（env capture 写出的文件夹）');
      if (!flags.name) throw new UsageError('rebuild needs --name NAME for the fresh env', 'rebuild 需要 --name NAME 作为新环境的名字');
      if (safeEnvName(flags.name) !== flags.name) throw new UsageError(`--name expects letters, digits, '.', '_' or '-' (starting with a letter or digit, at most 64), got "${flags.name}"`, `--name 只能用字母、数字、'.'、'_' 或 '-'（以字母或数字开头，最多 64 个），却是 "${flags.name}"`);
      const read = await readFrom(flags.from);
      const snap = read.capture;
      // Checked before connecting: a refused line needs no box.
      const check = checkRebuild(snap, { envName: flags.name, allowPipOptions: flags['allow-pip-options'] === true });
      if (check.problems.length) {
        const optionLines = check.problems.some((p) => ASKABLE_PROBLEMS.has(p.kind as RequirementProblemKind));
        const refused = check.problems.some((p) => !ASKABLE_PROBLEMS.has(p.kind as RequirementProblemKind));
        const problems = (l: CliLang) => check.problems.map((p) => `  ${rebuildProblemText(p, l10nIn(l))}`).join('\n');
        throw new UsageError(
          `--from ${flags.from}: not rebuilt:\n${problems('en')}` +
            (optionLines ? '\nedit the file to leave plain requirements (name==version), or pass --allow-pip-options if you trust those lines' : '') +
            (refused ? '\n--allow-pip-options does not pass the other lines: edit the file (environment.yml as conda env export writes it, or delete it)' : ''),
          `--from ${flags.from}：未重建：\n${problems('zh-cn')}` +
            (optionLines ? '\n请把文件改成只含普通依赖（name==version），或者在信任这些行时加 --allow-pip-options' : '') +
            (refused ? '\n--allow-pip-options 放不过其他行：请修改文件（environment.yml 要保持 conda env export 写出的样子，或删掉它）' : ''),
        );
      }
      return withRemote(positionals[1], flags, io, async (conn) => {
        const r = await rebuild(conn, read, { envName: flags.name!, allowPipOptions: flags['allow-pip-options'] === true }).catch((e: unknown) => {
          // The box's own check (its driver known): the same problem lines, in the CLI's language.
          if (e instanceof RebuildRefused) throw new CliError(e.message, `重建被拒绝：${e.problems.slice(0, 5).map((p) => rebuildProblemText(p, l10nIn('zh-cn'))).join('；')}${e.problems.length > 5 ? `；另有 ${e.problems.length - 5} 个` : ''}`);
          throw e;
        });
        const torchNote = zh
          ? r.torch.kind === 'install'
            ? `torch ${snap.torch}，CUDA ${r.torch.cuda}${r.torch.sameBuild ? '（同一构建）' : `（新驱动 ${r.targetDriver.version ?? '?'} 跑不了 CUDA ${snap.torchCuda}；改用 ${r.torch.cuda}）`}`
            : r.torch.kind === 'cpuOnly'
              ? `torch ${snap.torch}：没有能在驱动 ${r.targetDriver.version ?? '?'} 上运行的 CUDA 构建；安装普通 wheel`
              : r.torch.kind === 'unknownRelease'
                ? `torch ${r.torch.torch} 不在 wheel 表中：请自己安装`
                : '记录中没有 torch'
          : r.torch.kind === 'install'
            ? `torch ${snap.torch} for CUDA ${r.torch.cuda}${r.torch.sameBuild ? ' (same build)' : ` (the new driver ${r.targetDriver.version ?? '?'} cannot run CUDA ${snap.torchCuda}; using ${r.torch.cuda})`}`
            : r.torch.kind === 'cpuOnly'
              ? `torch ${snap.torch}: no CUDA build of it runs on driver ${r.targetDriver.version ?? '?'}; installing the plain wheel`
              : r.torch.kind === 'unknownRelease'
                ? `torch ${r.torch.torch} is not in the wheel table: install it yourself`
                : 'no torch in the capture';
        const left = r.requirements.dropped.filter((d) => d.reason === 'localPath');
        if (zh) io.stderr(forTerminalLines(`正在机器上以任务 ${r.job.name} 重建（${r.dir}）；${r.requirements.kept} 个 pip 包来自${read.from.requirements === 'file' ? ' requirements.txt' : '记录'}；${torchNote}\n`));
        else io.stderr(forTerminalLines(`rebuilding as job ${r.job.name} on the box (${r.dir}); ${r.requirements.kept} pip packages from ${read.from.requirements === 'file' ? 'requirements.txt' : 'the capture'}; ${torchNote}\n`));
        for (const d of left) io.stderr(forTerminalLines(zh ? `注意：略去了 ${d.file} 第 ${d.line} 行（${d.text}）：旧机器上的路径\n` : `note: left out ${d.file} line ${d.line} (${d.text}): a path on the old box\n`));
        if (flags['no-follow']) return { verb, line: forTerminalLines(t(lang, 'started; follow with: gpu-rent logs TARGET {0} --follow\n', '已开始；跟踪输出：gpu-rent logs TARGET {0} --follow\n', r.job.name)), exit: 0 };
        // The job's output is streamed as it comes; the rebuild's exit status is the command's.
        const done = await followLog(conn, r.job.name, { lines: 0, onData: (c) => io.stdout(forTerminal(c.toString('utf8'), { keep: '\n\t\r' })) });
        if (done.exitCode === 0) return { verb, line: '', exit: 0 };
        if (zh) io.stderr(forTerminalLines(`gpu-rent env: 重建${done.state === 'exited' ? `以 ${done.exitCode} 退出` : `的状态是 ${done.state}`}\n`));
        else io.stderr(forTerminalLines(`gpu-rent env: the rebuild ${done.state === 'exited' ? `exited with ${done.exitCode}` : `is ${done.state}`}\n`));
        return { verb, line: '', exit: 1 };
      });
    }
    throw new UsageError(`expects capture or rebuild first, got ${verb === undefined ? 'nothing' : `"${verb}"`}`, `第一个参数应为 capture 或 rebuild，却是${verb === undefined ? '空的' : ` "${verb}"`}`);
  },
  // rebuild has no JSON form: it prints its text under --json too.
  json: (r) => (r.verb === 'capture' ? { dir: r.out, files: r.files, snapshot: r.snap } : undefined),
  text: (r, lang) => (r.verb === 'capture' ? forTerminalLines(captureLines(r.out, r.files, r.snap, r.pkgs, lang)) : r.line),
  exit: (r) => (r.verb === 'capture' ? 0 : r.exit),
});

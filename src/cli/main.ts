// The `gpu-rent` command line: dispatches to one module per command. Bad input exits 2 with
// one line on stderr; other failures exit 1 with a message, never a stack trace.
import { version } from '../../package.json';
import { forTerminalLines } from '../core/text';
import { UsageError } from './args';
import type { CliCommand, CliIO } from './command';
import { wantsJson } from './json-error';
import { printFailure, printUnprinted } from './failure';
import { allCommands, findCommand } from './commands';
import { cliLang, langInArgv, type CliLang } from './lang';
import { t } from './words';

async function topHelp(lang: CliLang): Promise<string> {
  const commands = await allCommands();
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  const summary = (c: CliCommand) => (lang === 'zh-cn' && c.summaryZh ? c.summaryZh.replace(/。$/, '') : `${c.summary.charAt(0).toUpperCase()}${c.summary.slice(1).replace(/\.$/, '')}`);
  return [
    t(lang, 'Usage: gpu-rent COMMAND [options]', '用法：gpu-rent 命令 [选项]'),
    '',
    t(lang, 'Price GPU rentals as completed jobs (CNY), check a rented box, run and sync training.', '按完成整个任务的总价（人民币）比较 GPU 租用，检查租到的机器，运行并同步训练。'),
    '',
    t(lang, 'Commands:', '命令：'),
    ...commands.map((c) => `  ${c.name.padEnd(width)}${summary(c)}`),
    '',
    t(lang, "Run 'gpu-rent COMMAND --help' for a command's options.", "运行 'gpu-rent 命令 --help' 查看该命令的选项。"),
    '',
  ].join('\n');
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  const lang = cliLang(langInArgv(argv), io.env);
  if (name === undefined) {
    // No command is a usage error: the help goes to stderr with exit 2, so `gpu-rent | x` sees nothing.
    io.stderr(await topHelp(lang));
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(await topHelp(lang));
    return 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout(`${version}\n`);
    return 0;
  }
  const command: CliCommand | undefined = await findCommand(name);
  if (!command) {
    const names = (await allCommands()).map((c) => c.name);
    io.stderr(`gpu-rent: ${t(lang, 'unknown command "{0}" (commands: {1})', '未知命令 "{0}"（可用命令：{1}）', forTerminalLines(name), names.join(', '))}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    const dashdash = rest.indexOf('--');
    const helpAt = Math.max(rest.indexOf('--help'), rest.indexOf('-h'));
    if (dashdash === -1 || helpAt < dashdash) {
      io.stdout(command.help({ env: io.env, argv: rest }));
      return 0;
    }
  }
  const json = wantsJson(rest);
  // The JSON error contract's last line of defence: a --json run that fails (exit ≠ 0) having
  // printed nothing on stdout gets `{"error": {"code": "failed", "message": …}}` from what it said
  // on stderr, so no failure path leaves a script with an empty stdout.
  let printed = false;
  let said = '';
  const watched: CliIO = json
    ? {
        ...io,
        stdout: (text) => {
          printed ||= text.length > 0;
          io.stdout(text);
        },
        stderr: (text) => {
          said += text;
          if (said.length > 4096) said = said.slice(-4096);
          io.stderr(text);
        },
      }
    : io;
  try {
    const code = await command.run(rest, watched);
    if (json && code !== 0 && !printed) printUnprinted(io, name, code, said);
    return code;
  } catch (err) {
    // The one printer of a failure: stderr, the --json error document, the exit code.
    return printFailure(io, name, lang, json, err);
  }
}

/** Standard input, at most STDIN_MAX bytes (a pasted nvidia-smi output, not a flood). */
const STDIN_MAX = 16 * 1024 * 1024;

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    process.stdin.on('data', (c: Buffer) => {
      size += c.length;
      if (size > STDIN_MAX) {
        process.stdin.destroy();
        reject(new UsageError(`standard input is larger than ${STDIN_MAX / 1024 / 1024} MiB: not an nvidia-smi output`));
        return;
      }
      chunks.push(c);
    });
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

if (require.main === module) {
  // Creating thousands of small files (a first pull) waits on libuv's thread pool: 4 threads by default.
  process.env.UV_THREADPOOL_SIZE ??= '16';
  // A closed pipe (`gpu-rent quote | head`) is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
  });
  // Ctrl-C ends every wait at once. Commands that must stop cleanly (push, sync, logs --follow:
  // a partial file, a resumable transfer) add their own handler and say what they stopped; then
  // this one steps aside.
  process.on('SIGINT', () => {
    if (process.listenerCount('SIGINT') > 1) return;
    const name = process.argv[2];
    const lang = cliLang(langInArgv(process.argv.slice(2)), process.env);
    process.stderr.write(`\ngpu-rent${name && /^[a-z-]{1,30}$/.test(name) ? ` ${name}` : ''}: ${t(lang, 'interrupted', '已中断')}\n`);
    process.exit(130);
  });
  const io: CliIO = {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    readStdin,
    env: process.env,
    isTTY: Boolean(process.stdout.isTTY),
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`gpu-rent: ${forTerminalLines(err instanceof Error ? err.message : String(err))}\n`);
      process.exitCode = 1;
    },
  );
}

// `gpu-rent forward TARGET PORT[:LOCAL] [--tensorboard [--logdir DIR]] [--json]`: the box's port on
// 127.0.0.1 of this machine over the SSH connection until Ctrl-C; a dropped link is remade on the
// next request. The forwarder and TensorBoard's start live in app/forward.ts (the extension's too).
import { ensureTensorBoard, ForwardError, parsePortSpec, startForward, type ForwardEvent, type ForwardProblem } from '../../app/forward';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand } from '../command';
import { cliLang, type CliLang } from '../lang';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../remote-common';
import { CliError, helpLang, t } from '../words';

const specs = {
  tensorboard: { type: 'boolean', description: "start TensorBoard on the box's 127.0.0.1:PORT when nothing answers there (PORT defaults to 6006)", zh: '机器的 127.0.0.1:PORT 无应答时在机器上启动 TensorBoard（PORT 默认 6006）' },
  logdir: { type: 'string', valueName: 'DIR', description: "TensorBoard's log folder on the box (default: the one a running job's command names with --logdir or --logging_dir, else AutoDL's /root/tf-logs)", zh: 'TensorBoard 在机器上的日志目录（默认：正在运行的任务命令行里 --logdir 或 --logging_dir 指定的目录，否则为 AutoDL 的 /root/tf-logs）' },
  json: { type: 'boolean', description: 'one JSON line when the forward listens, then one per event', zh: '开始监听时输出一行 JSON，之后每个事件一行' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent forward TARGET PORT[:LOCAL] [--tensorboard [--logdir DIR]] [--json]';
const SUMMARY = `Bring the box's port PORT (on its 127.0.0.1) to 127.0.0.1:LOCAL of this machine through the SSH connection, until Ctrl-C. LOCAL defaults to PORT (any free port when that is taken). Only this machine's loopback listens. A dropped connection is remade on the next request. ${TARGET_HELP}`;
const SUMMARY_ZH = `通过 SSH 连接把机器上的端口 PORT（机器的 127.0.0.1）带到本机的 127.0.0.1:LOCAL，直到按 Ctrl-C。LOCAL 默认与 PORT 相同（被占用时任选一个空闲端口）。只在本机回环地址上监听。连接断开后，下一个请求会重新连接。${TARGET_HELP_ZH}`;

export function forwardProblemZh(p: ForwardProblem): string {
  switch (p.code) {
    case 'bad-port':
      return `端口 ${JSON.stringify(p.text)} 无效：请给出机器上的端口（1-65535），可加 :LOCAL 指定本机端口（如 6006 或 6006:16006）`;
    case 'local-port-busy':
      return `本机 127.0.0.1 的端口 ${p.port} 无法使用：请用 PORT:LOCAL 换一个`;
    case 'tensorboard-missing':
      return '机器上没有安装 TensorBoard（pip install tensorboard）';
    case 'tensorboard-not-answering':
      return `已在机器上启动 TensorBoard，但端口 ${p.port} 无应答；日志结尾：\n${p.log}`;
    case 'bad-logdir':
      return `TensorBoard 日志目录 ${JSON.stringify(p.text)} 无效：请给出机器上的绝对路径（或 ~/…）`;
    case 'no-jupyter':
      return '机器上没有运行中的 Jupyter（jupyter server list 为空）';
  }
}

function eventText(e: ForwardEvent, lang: CliLang): string | undefined {
  switch (e.kind) {
    case 'link-lost':
      return t(lang, 'connection lost ({0}); it is remade on the next request\n', '连接断开（{0}）；下一个请求时会重新连接\n', forTerminal(e.message));
    case 'link-restored':
      return t(lang, 'connection restored\n', '连接已恢复\n');
    case 'channel-failed':
      return t(lang, "the box's port did not take a connection: {0}\n", '机器的端口没有接受连接：{0}\n', forTerminal(e.message));
    default:
      return undefined;
  }
}

export const command: CliCommand = {
  name: 'forward',
  summary: "Bring a box's port (TensorBoard, Jupyter, a web UI) to 127.0.0.1 of this machine.",
  summaryZh: '把机器上的端口（TensorBoard、Jupyter、网页界面）带到本机 127.0.0.1。',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 2, positionalNames: 'TARGET PORT[:LOCAL]' });
    const lang = cliLang(flags.lang, io.env);
    const portText = positionals[1] ?? (flags.tensorboard ? '6006' : undefined);
    if (portText === undefined) throw new UsageError('expects TARGET PORT[:LOCAL] (e.g. gpu-rent forward TARGET 6006)', '需要 TARGET PORT[:LOCAL]（如 gpu-rent forward TARGET 6006）');
    if (flags.logdir !== undefined && !flags.tensorboard) throw new UsageError('--logdir goes with --tensorboard', '--logdir 需与 --tensorboard 一起使用');
    let port;
    try {
      port = parsePortSpec(portText);
    } catch (e) {
      if (e instanceof ForwardError) throw new UsageError(e.message, forwardProblemZh(e.problem));
      throw e;
    }
    return withRemote(positionals[0], flags, io, async (conn) => {
      try {
        if (flags.tensorboard) {
          const tb = await ensureTensorBoard(conn, { port: port.remote, ...(flags.logdir !== undefined ? { logdir: flags.logdir } : {}) });
          if (!flags.json) io.stderr(tb.started ? t(lang, 'started TensorBoard on the box (log folder {0})\n', '已在机器上启动 TensorBoard（日志目录 {0}）\n', forTerminal(tb.logdir ?? '')) : t(lang, 'TensorBoard already answers on the box\n', '机器上的 TensorBoard 已在应答\n'));
        }
        const onEvent = (e: ForwardEvent) => {
          if (flags.json) {
            if (e.kind !== 'open' && e.kind !== 'closed') io.stdout(jsonForTerminal({ event: e.kind, ...('message' in e ? { message: e.message } : {}) }) + '\n');
            return;
          }
          const text = eventText(e, lang);
          if (text) io.stderr(text);
        };
        const fwd = await startForward({ connection: () => Promise.resolve(conn), port, onEvent });
        if (flags.json) io.stdout(jsonForTerminal({ event: 'listening', local: `127.0.0.1:${fwd.localPort}`, remotePort: fwd.remotePort, url: fwd.url }) + '\n');
        else io.stdout(t(lang, "forwarding {0} → the box's 127.0.0.1:{1} (Ctrl-C ends it)\n", '转发 {0} → 机器的 127.0.0.1:{1}（按 Ctrl-C 结束）\n', fwd.url, fwd.remotePort));
        await new Promise<void>((resolve) => {
          const stop = () => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            resolve();
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
        await fwd.close();
        return 0;
      } catch (e) {
        if (e instanceof ForwardError) throw new CliError(e.message, forwardProblemZh(e.problem), { cause: e });
        throw e;
      }
    });
  },
};

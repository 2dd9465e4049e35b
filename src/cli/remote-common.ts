// What every command that talks to a rented box shares: the TARGET argument, the connection
// flags, the password and trust prompts (a terminal only; never a password flag), and turning
// RemoteErrors into one clear message.
import { isatty } from 'node:tty';
import { UsageError, type FlagSpecs } from './args';
import type { CliIO } from './command';
import type { ConnectOptions, RemoteConnection } from '../remote/connection';
import { describeRemoteError, RemoteError } from '../remote/errors';
import type { TrustQuestion } from '../remote/hostkeys';
import { SshPool } from '../app/pool';
import { readSshConfigSync } from '../app/sshConfig';
import { knownHostsName, tryParseTarget, type SshTarget } from '../remote/target';
import { cliLang, LANG_FLAG_SPEC, type CliLang } from './lang';
import { CliError, l10nIn, t } from './words';
import { boxFailureText, inputProblemText, loginProblemText, protocolFailureText, waitProblemText } from '../app/remoteWords';

export const TARGET_HELP =
  'TARGET is ssh://user@host:port, the login command the platform shows pasted whole in quotes ' +
  "('ssh -p 12345 root@connect.westb.seetacloud.com'), user@host[:port], or a Host from ~/.ssh/config. " +
  'The password comes from GPU_RENT_PASSWORD or a prompt, never a flag.';

export const TARGET_HELP_ZH =
  'TARGET 可以是 ssh://user@host:port、平台显示的登录命令（整条加引号粘贴：' +
  "'ssh -p 12345 root@connect.westb.seetacloud.com'）、user@host[:port]，或 ~/.ssh/config 里的 Host。" +
  '密码来自 GPU_RENT_PASSWORD 或提示输入，从不通过选项传入。';

export const REMOTE_FLAGS = {
  'accept-new': { type: 'boolean', description: 'trust and pin the host key on first contact without asking (scripts)', zh: '首次连接时不询问，直接信任并记住主机密钥（脚本用）' },
  identity: { type: 'string', short: 'i', valueName: 'FILE', repeat: true, description: 'private key file to try first (like ssh -i; repeatable)', zh: '先尝试的私钥文件（同 ssh -i；可重复）' },
  'connect-timeout': { type: 'number', valueName: 'SECONDS', min: 0, exclusiveMin: true, max: 600, description: 'SSH connect and handshake deadline (default 20)', zh: 'SSH 连接与握手的时限（默认 20 秒）' },
  lang: LANG_FLAG_SPEC,
} as const satisfies FlagSpecs;

export interface RemoteFlags {
  'accept-new'?: boolean;
  identity?: string[];
  'connect-timeout'?: number;
  lang?: string;
}

/** Parses TARGET or throws a UsageError that names what is wrong with it. */
export function targetFromArg(text: string | undefined, io: CliIO): SshTarget {
  if (text === undefined || text.trim() === '') throw new UsageError(`missing TARGET. ${TARGET_HELP}`, `缺少 TARGET。${TARGET_HELP_ZH}`);
  const r = tryParseTarget(text, { sshConfig: readSshConfigSync({ env: io.env }) });
  if (!r.ok) throw new UsageError(`bad TARGET: ${r.problem}`, `TARGET 无法使用：${loginProblemText(r.reason, l10nIn('zh-cn'))}`);
  return r.target;
}

/** Reads one line from the terminal; with `hidden` nothing is echoed (passwords). */
export function promptLine(question: string, hidden: boolean): Promise<string | null> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return Promise.resolve(null);
  return new Promise((resolve) => {
    process.stderr.write(question);
    let answer = '';
    const wasRaw = stdin.isRaw;
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const done = (value: string | null) => {
      stdin.setRawMode(wasRaw);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(answer);
        if (ch === '\u0003' || ch === '\u0004') return done(null); // Ctrl-C, Ctrl-D
        if (ch === '\u007f' || ch === '\b') {
          if (answer.length) {
            answer = answer.slice(0, -1);
            if (!hidden) process.stderr.write('\b \b');
          }
          continue;
        }
        answer += ch;
        if (!hidden) process.stderr.write(ch);
      }
    };
    stdin.on('data', onData);
  });
}

/** Connection options from the flags and the environment. */
export function connectOptions(flags: RemoteFlags, io: CliIO): ConnectOptions {
  const lang = cliLang(flags.lang, io.env);
  // isatty(0), not process.stdin.isTTY: making process.stdin loads fs streams and readline (~3 ms of a start).
  const interactive = isatty(0);
  const opts: ConnectOptions = {
    acceptNew: flags['accept-new'] === true,
    identityFiles: flags.identity ?? [],
    env: io.env,
    password: io.env.GPU_RENT_PASSWORD || undefined,
  };
  if (flags['connect-timeout'] !== undefined) opts.connectTimeoutMs = flags['connect-timeout'] * 1000;
  if (io.env.GPU_RENT_KNOWN_HOSTS) opts.knownHostsPath = io.env.GPU_RENT_KNOWN_HOSTS;
  if (interactive) {
    opts.confirmNewKey = async (q: TrustQuestion) => {
      const where = q.port === 22 ? q.host : `[${q.host}]:${q.port}`;
      io.stderr(t(lang, 'The host {0} is new to gpu-rent.\n{1} key fingerprint is {2}.\n', 'gpu-rent 第一次连接主机 {0}。\n{1} 密钥指纹为 {2}。\n', where, q.keyType, q.fingerprint));
      const a = await promptLine(t(lang, 'Trust it and remember it? (yes/no) ', '信任并记住它吗？(yes/no) '), false);
      return a !== null && /^y(es)?$/i.test(a.trim());
    };
    opts.askPassword = async (q) => promptLine(t(lang, "{0}@{1}'s password (port {2}): ", '{0}@{1} 的密码（端口 {2}）：', q.user, q.host, q.port), true);
  }
  return opts;
}

const zhWords = l10nIn('zh-cn');

/** A RemoteError whose code and facts say it all (no English message needed beside the Chinese). */
function coded(e: RemoteError): boolean {
  return (e.is('bad-target') && (!!e.detail.login || !!e.detail.input)) || (e.is('remote-failed') && !!e.detail.failure) || (e.is('protocol') && !!e.detail.failure) || ((e.is('timeout') || e.is('aborted')) && !!e.detail.wait);
}

function badTargetZh(e: RemoteError): string {
  if (e.is('bad-target') && e.detail.input) return inputProblemText(e.detail.input, zhWords);
  return e.is('bad-target') && e.detail.login ? loginProblemText(e.detail.login, zhWords) : e.message;
}

/** A box or SSH failure in Chinese (the extension's words), or the English message when it has no code. */
function failureZh(e: RemoteError): string {
  if (e.is('remote-failed') && e.detail.failure) return boxFailureText(e.detail.failure, zhWords);
  if (e.is('protocol') && e.detail.failure) return protocolFailureText(e.detail.failure, zhWords);
  return e.message;
}

/** What went wrong, in Chinese, with the extension's words for the same failure; the English detail follows. */
function remoteErrorZh(e: RemoteError): string {
  const d = e.detail as { host?: string; port?: number };
  const where = d.host ? `${d.host}${d.port ? `:${d.port}` : ''}` : '实例';
  const z = (en: string, zh: string) => t('zh-cn', en, zh, where, e.message);
  // "…（在 host:port 上）" only where the box is known: no "在 实例 上" for an unnamed one.
  const on = (text: string) => (d.host ? t('zh-cn', '{0} (on {1})', '{0}（在 {1} 上）', text, where) : text);
  const line = {
    'bad-target': () => t('zh-cn', 'The login cannot be used: {0}', '该登录信息无法使用：{0}', badTargetZh(e)),
    'host-key-changed': () => z('The host key of {0} changed since the last connection. Nothing was sent: no password, no command. If the platform really moved your instance, review the pinned entry; otherwise someone may be in between.', '{0} 的主机密钥自上次连接后变了。没有发送任何内容：没有密码，也没有命令。如果平台确实迁移了实例，请检查已记住的条目；否则可能有人在中间。'),
    'host-key-unknown': () => z('The host key of {0} was not trusted, so nothing was sent.', '{0} 的主机密钥未被信任，因此没有发送任何内容。'),
    'auth-failed': () => z('{0} refused the login. After a restart the platform may show a new password: paste the new login command.', '{0} 拒绝了登录。重启后平台可能显示新密码：请粘贴新的登录命令。'),
    'no-credentials': () => z('No password or key to log in to {0} with.', '没有可用于登录 {0} 的密码或密钥。'),
    'connect-refused': () => z('Nothing answers at {0}. The instance may be stopped, or its SSH port changed after a restart: paste the new login command.', '{0} 无应答。实例可能已关机，或重启后 SSH 端口变了：请粘贴新的登录命令。'),
    'host-not-found': () => z('The host name of {0} cannot be resolved.', '无法解析 {0} 的主机名。'),
    timeout: () => (e.is('timeout') && e.detail.wait ? on(waitProblemText(e.detail.wait, zhWords)) : z('{0} did not answer in time.', '{0} 未在时限内应答。')),
    'session-limit': () => z('{0} refused another session (too many open at once).', '{0} 拒绝再开会话（同时打开的太多）。'),
    disconnected: () => z('The connection to {0} dropped.', '到 {0} 的连接断开了。'),
    aborted: () => (e.is('aborted') && e.detail.wait?.code === 'connection-closed' ? on(waitProblemText(e.detail.wait, zhWords)) : t('zh-cn', 'Cancelled.', '已取消。')),
    protocol: () => t('zh-cn', 'SSH to {0} failed: {1}', 'SSH 连接 {0} 失败：{1}', where, failureZh(e)),
    'remote-failed': () => on(failureZh(e)),
  }[e.code]();
  const hint = e.hint === 'paste-new-login-command' ? '如果实例重启过，它的 SSH 端口和密码可能变了（AutoDL 每次开关机都会变）：请从控制台粘贴新的登录命令。' : e.hint === 'instance-may-be-starting' ? '控制台可能在 sshd 启动前就显示“运行中”：请等几秒再试。' : '';
  // A coded failure is all in Chinese; an uncoded one keeps its English message beside ours.
  const detail = coded(e) || line.includes(e.message) ? '' : `\n（${e.message}）`;
  return `${line}${detail}${hint ? `\n${hint}` : ''}`;
}

/** Turns a RemoteError into an Error whose message (English, or its `zh` under a Chinese locale) the dispatcher prints as is. */
export function asCliError(e: unknown): unknown {
  if (e instanceof RemoteError) {
    // An argument that is not TARGET (a job name, --gpus, a folder on the box) says only what is wrong with it, as in English.
    if (e.is('bad-target') && e.detail.input) return new UsageError(e.message, inputProblemText(e.detail.input, zhWords));
    if (e.code === 'bad-target') return new UsageError(e.message, `TARGET 无法使用：${badTargetZh(e)}`);
    return new CliError(describeRemoteError(e), remoteErrorZh(e), { cause: e });
  }
  return e;
}

/** This command's language from its parsed --lang and the locale. */
export function langOf(flags: { lang?: string }, io: CliIO): CliLang {
  return cliLang(flags.lang, io.env);
}

/**
 * Connects to TARGET through a pool owned by this command, runs `fn`, and always closes the
 * pool so the process can exit. RemoteErrors come out as one readable message (with the
 * platform hint).
 */
export async function withRemote<T>(targetText: string | undefined, flags: RemoteFlags, io: CliIO, fn: (conn: RemoteConnection, target: SshTarget) => Promise<T>): Promise<T> {
  const target = targetFromArg(targetText, io);
  for (const note of target.ignored) io.stderr(t(cliLang(flags.lang, io.env), 'note: ignoring {0} from the target\n', '注意：忽略 TARGET 中的 {0}\n', note));
  const pool = new SshPool();
  try {
    const conn = await pool.get(`${target.user ?? ''}@${knownHostsName(target.host, target.port)}`, target, connectOptions(flags, io));
    return await fn(conn, target);
  } catch (e) {
    throw asCliError(e);
  } finally {
    pool.dispose();
  }
}

// The CLI's words in English and Simplified Chinese. Where the extension's l10n bundle holds
// the same English string, its Chinese is used (bundled by esbuild), so a word reads the same
// in VS Code and in the terminal. Machine-readable output (JSON keys, codes) is never passed here.
import zhBundle from '../../l10n/bundle.l10n.zh-cn.json';
import type { PlatformFailure, PlatformState } from '../core/platforms/types';
// From core, not app/platforms/errors (which loads node:http and zlib): every command's start reads this file.
import { descriptorOf } from '../core/platforms/descriptors';
import { cliLang, langInArgv, type CliLang } from './lang';
import { fillTemplate } from '../core/l10n';

const BUNDLE: Readonly<Record<string, string>> = zhBundle;

/** The extension's Chinese for `en` when its bundle has that exact string, else `zh`. */
export function shared(en: string, zh: string): string {
  const t = Object.prototype.hasOwnProperty.call(BUNDLE, en) ? BUNDLE[en] : undefined;
  return typeof t === 'string' && t !== '' ? t : zh;
}

/** `{0}`-style placeholders, as in vscode.l10n.t. */
export function fill(template: string, ...values: (string | number)[]): string {
  return fillTemplate(template, values);
}

/** `en` or its Chinese (the extension's where it has the same English), with `{0}`… filled. */
export function t(lang: CliLang, en: string, zh: string, ...values: (string | number)[]): string {
  return fill(lang === 'zh-cn' ? shared(en, zh) : en, ...values);
}

/** vscode.l10n's shape for the words both front ends share (app/remoteWords.ts): the English template, or the bundle's Chinese for it. */
export function l10nIn(lang: CliLang): { t(message: string, ...args: (string | number | boolean)[]): string } {
  return { t: (message, ...args) => t(lang, message, message, ...args.map((a) => (typeof a === 'boolean' ? String(a) : a))) };
}

/** The language of `gpu-rent CMD --help` (answered before the flags are parsed). */
export function helpLang(ctx: { env: NodeJS.ProcessEnv; argv: readonly string[] } | undefined): CliLang {
  return ctx ? cliLang(langInArgv(ctx.argv), ctx.env) : 'en';
}

/** An error whose message has Chinese too: the dispatcher prints the one for the language; `--json` keeps the English. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly zh: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** A thrown error's message in `lang`: its `zh` when it carries one (CliError, UsageError). */
export function messageIn(lang: CliLang, err: unknown): string {
  if (lang === 'zh-cn' && typeof err === 'object' && err !== null) {
    const zh = (err as { zh?: unknown }).zh;
    if (typeof zh === 'string' && zh !== '') return zh;
  }
  return err instanceof Error ? err.message : String(err);
}

const STATE_EN: Record<PlatformState, string> = {
  starting: 'starting',
  running: 'running',
  noGpu: 'no-GPU mode',
  stopping: 'stopping',
  stopped: 'stopped',
  releasing: 'releasing',
  released: 'released',
  unknown: 'unknown',
};

/** Our state word for a platform state in Chinese (the extension's words); in English the code itself, as before. */
export function stateWord(lang: CliLang, state: PlatformState | string): string {
  if (lang !== 'zh-cn') return state;
  const en = Object.prototype.hasOwnProperty.call(STATE_EN, state) ? STATE_EN[state as PlatformState] : state;
  return shared(en, en === 'no-GPU mode' ? '无卡模式' : en);
}

export type { CliLang };

const FAILURE_ZH: Partial<Record<PlatformFailure['kind'], [en: string, zh: string]>> = {
  tokenExpired: ['the token was refused or has expired: paste a new console token', '令牌被拒绝或已过期：请粘贴新的令牌（gpu-rent accounts add）'],
  auth: ['the credentials were refused: check the key and its permissions', '凭据被拒绝：请检查密钥及其权限'],
  rateLimited: ['too many requests: try again in a minute', '请求太多：请一分钟后再试'],
  server: ['the platform had an internal error', '平台内部错误'],
  network: ['the platform could not be reached', '无法连接平台'],
  timeout: ['no answer within the deadline', '在时限内没有应答'],
  insufficientBalance: ['余额不足: top up the account first', '余额不足：请先充值'],
  noStock: ['库存不足: no free GPU there now; try later or another region', '库存不足：那里现在没有空闲 GPU；请稍后再试或换个地区'],
  noGpuOnHost: ["the instance's host has no free GPU now: wait and try again, start it in no-GPU mode to reach its data, or clone/migrate it to a host with free GPUs in the console", '该主机空闲GPU不足：请稍后再试，或以无卡模式开机访问数据，或在控制台克隆/迁移到有空闲GPU的主机'],
  realName: ['实名认证 required: finish real-name verification in the console', '需要实名认证：请先在控制台完成实名认证'],
  quota: ['an account quota is used up: raise it in the console, or release an instance you do not need', '账号配额已用完：请在控制台提高配额，或释放不需要的实例'],
  notFound: ['no such instance on this account', '该账号下没有这个实例'],
  invalidState: ['the instance is not in a state that allows this', '实例当前的状态不允许这样做'],
  notSupported: ['the platform offers no such action', '平台不提供这个操作'],
};

/** The extension's Chinese words for a platform failure's kind, or undefined for a kind without any. */
export function failureKindZh(kind: PlatformFailure['kind']): string | undefined {
  const pair = FAILURE_ZH[kind];
  return pair ? shared(pair[0], pair[1]) : undefined;
}

/** A platform failure in Chinese: the extension's words for its kind, the platform's own code and message kept beside them. */
export function platformFailureZh(f: PlatformFailure): string {
  const own = [f.code, f.message].filter(Boolean).join(' ');
  const pair = FAILURE_ZH[f.kind];
  const hint = pair ? shared(pair[0], pair[1]) : '';
  return `${descriptorOf(f.platform).name.en}：${hint ? `${hint}（${own}）` : own}`;
}

/** Table heads: English as given (upper case), Chinese the extension's word for the same head where it has one. */
export function heads(lang: CliLang, pairs: readonly (readonly [en: string, zh: string])[]): string[] {
  if (lang !== 'zh-cn') return pairs.map(([en]) => en);
  return pairs.map(([en, zh]) => shared(en.charAt(0) + en.slice(1).toLowerCase(), zh));
}

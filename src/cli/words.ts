// The CLI's words in English and Simplified Chinese. Where the extension's l10n bundle holds
// the same English string, its Chinese is used (bundled by esbuild), so a word reads the same
// in VS Code and in the terminal. Machine-readable output (JSON keys, codes) is never passed here.
import zhBundle from '../../l10n/bundle.l10n.zh-cn.json';
import type { PlatformState } from '../core/platforms/types';
import { cliLang, langInArgv, type CliLang } from './lang';

const BUNDLE: Readonly<Record<string, string>> = zhBundle;

/** The extension's Chinese for `en` when its bundle has that exact string, else `zh`. */
export function shared(en: string, zh: string): string {
  const t = Object.prototype.hasOwnProperty.call(BUNDLE, en) ? BUNDLE[en] : undefined;
  return typeof t === 'string' && t !== '' ? t : zh;
}

/** `{0}`-style placeholders, as in vscode.l10n.t. */
export function fill(template: string, ...values: (string | number)[]): string {
  return template.replace(/\{(\d)\}/g, (m, i: string) => (Number(i) < values.length ? String(values[Number(i)]) : m));
}

/** `en` or its Chinese (the extension's where it has the same English), with `{0}`… filled. */
export function t(lang: CliLang, en: string, zh: string, ...values: (string | number)[]): string {
  return fill(lang === 'zh-cn' ? shared(en, zh) : en, ...values);
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

/** Our state word for a platform state (the extension's Chinese in zh-cn). */
export function stateWord(lang: CliLang, state: PlatformState | string): string {
  const en = Object.prototype.hasOwnProperty.call(STATE_EN, state) ? STATE_EN[state as PlatformState] : state;
  return lang === 'zh-cn' ? shared(en, en === 'no-GPU mode' ? '无卡模式' : en) : en;
}

export type { CliLang };

// The platform commands' side of the one `--json` error contract (json-error.ts): a failure's
// stable code (no-account, not-found, read-only, unreachable, token-expired, …), its English
// message for the JSON, and its words in the output language for stderr, which stays as it was.
import type { CliIO } from '../command';
import { jsonError } from '../json-error';
import type { CliLang } from '../lang';
import { t } from '../words';

/** Why a command could not go on: `en` for the JSON (the same in every language), `text` for stderr. */
export interface Miss {
  miss: true;
  code: string;
  en: string;
  text: string;
}

/** A Miss from one t() template: the English and the `lang` words of the same sentence. */
export function miss(lang: CliLang, code: string, en: string, zh: string, ...values: (string | number)[]): Miss {
  return { miss: true, code, en: t('en', en, zh, ...values), text: t(lang, en, zh, ...values) };
}


/** Every account failed: their one code when they agree (unreachable, token-expired, …), else `failed`. */
export function allFailedCode(codes: readonly string[]): string {
  const one = new Set(codes);
  return one.size === 1 ? codes[0]! : 'failed';
}

/** Under --json, the failure's object on stdout; the caller writes its stderr line as before. */
export function printJsonFailure(io: CliIO, json: boolean | undefined, code: string, en: string, extra: Record<string, unknown> = {}): void {
  if (json) io.stdout(jsonError(code, en, extra));
}

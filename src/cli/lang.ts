// The CLI's language: `--lang en|zh-cn` wins, else the locale (LC_ALL, then LC_MESSAGES, then
// LANG, as gettext reads them) starting with `zh` gives zh-cn, else English.

export const CLI_LANGS = ['en', 'zh-cn'] as const;
export type CliLang = (typeof CLI_LANGS)[number];

export const LANG_FLAG_SPEC = { type: 'string', valueName: 'LANG', choices: CLI_LANGS, description: 'language of the text output (en, zh-cn; default from LC_ALL / LC_MESSAGES / LANG)', zh: '文字输出的语言（en、zh-cn；默认取 LC_ALL / LC_MESSAGES / LANG）' } as const;

/** The language for this run. `flag` is the parsed --lang value, if any. */
export function cliLang(flag: string | undefined, env: NodeJS.ProcessEnv): CliLang {
  if (flag === 'en' || flag === 'zh-cn') return flag;
  // The first locale variable that is set and not empty decides, as in gettext.
  const locale = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => typeof v === 'string' && v !== '') ?? '';
  return locale.toLowerCase().startsWith('zh') ? 'zh-cn' : 'en';
}

/** The --lang value in a raw argv (for --help, which is answered before the flags are parsed); the last one wins. */
export function langInArgv(argv: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--lang') found = argv[i + 1];
    else if (a.startsWith('--lang=')) found = a.slice('--lang='.length);
  }
  return found;
}

// The one skeleton of a CLI command: flags declared once (args.ts FlagSpecs, bounds from BOUNDS),
// `run` returning a result or throwing a CliFailure / UsageError, `text` and `json` printing the
// result, `exit` its exit code. Every failure is printed by main.ts's one printer (failure.ts):
// stderr in the output language, and under --json the `{"error": {code, message, …}}` document on
// stdout, with the same exit code in both formats.
import { jsonForTerminal } from '../core/text';
import { formatHelp, parseArgs, type FlagSpecs, type ParsedFlags } from './args';
import type { CliCommand, CliIO } from './command';
import { cliLang, type CliLang } from './lang';
import { helpLang } from './words';

export interface RunContext {
  io: CliIO;
  /** The output language (--lang, else the locale). */
  lang: CliLang;
  /** Whether --json was given (false for a command without the flag). */
  json: boolean;
  positionals: string[];
  /** Everything after a bare `--`. */
  rest: string[];
  /** A line on stderr headed `gpu-rent NAME: ` (a warning, one account's failure); `text` in the output language. */
  warn: (text: string) => void;
}

export interface CommandDef<S extends FlagSpecs, R> {
  name: string;
  /** One line for `gpu-rent --help`, and its Chinese. */
  summary: string;
  summaryZh: string;
  /** The usage line(s) and the paragraph of `gpu-rent NAME --help`, in English and Chinese. */
  usage: string;
  about: string;
  aboutZh: string;
  flags: S;
  /** At most this many positionals (default: any), and their names for the message. */
  positionals?: { max?: number; names?: string };
  /** A help of its own instead of formatHelp(usage, about, flags, …). */
  help?: CliCommand['help'];
  run: (flags: ParsedFlags<S>, ctx: RunContext) => Promise<R>;
  /** The result as text for stdout (nothing is printed for ''). */
  text: (result: R, lang: CliLang) => string;
  /**
   * The result's JSON document (printed with jsonForTerminal, indent 2); required when `flags` has
   * `json`. Undefined for a result without a JSON form (a subcommand that prints its text line under --json too).
   */
  json?: (result: R) => unknown;
  /** Whether the result's document is printed on one line (no indent). */
  jsonOneLine?: (result: R) => boolean;
  /** The exit code for a result (default 0): e.g. 1 when some accounts could not be read. Independent of the format. */
  exit?: (result: R) => number;
}

export function defineCommand<S extends FlagSpecs, R>(def: CommandDef<S, R>): CliCommand {
  return {
    name: def.name,
    summary: def.summary,
    summaryZh: def.summaryZh,
    flags: def.flags,
    help: def.help ?? ((ctx) => formatHelp(def.usage, def.about, def.flags, helpLang(ctx), def.aboutZh)),
    run: async (argv, io) => {
      const { flags, positionals, rest } = parseArgs(argv, def.flags, { ...(def.positionals?.max !== undefined ? { maxPositionals: def.positionals.max } : {}), ...(def.positionals?.names ? { positionalNames: def.positionals.names } : {}) });
      const f = flags as Record<string, unknown>;
      const lang = cliLang(typeof f.lang === 'string' ? f.lang : undefined, io.env);
      const json = f.json === true;
      const ctx: RunContext = { io, lang, json, positionals, rest, warn: (text) => io.stderr(`gpu-rent ${def.name}: ${text}\n`) };
      const result = await def.run(flags, ctx);
      const doc = json && def.json ? def.json(result) : undefined;
      if (doc !== undefined) io.stdout(jsonForTerminal(doc, def.jsonOneLine?.(result) ? undefined : 2) + '\n');
      else {
        const out = def.text(result, lang);
        if (out) io.stdout(out);
      }
      return def.exit?.(result) ?? 0;
    },
  };
}

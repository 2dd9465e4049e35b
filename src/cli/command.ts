// What every CLI command module exports. main.ts dispatches on `name`. A new command is made with
// defineCommand (define.ts): run returns a result or throws, one printer prints it.
import type { FlagSpecs } from './args';

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads all of standard input (for `FILE|-` arguments). */
  readStdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
}

export interface CliCommand {
  name: string;
  /** One line for `gpu-rent --help`. */
  summary: string;
  /** The same line in Chinese (shown under a Chinese locale or --lang zh-cn). */
  summaryZh?: string;
  /** Full help text for `gpu-rent NAME --help`; `ctx` (the environment and the command's arguments) lets it pick a language. */
  help: (ctx?: { env: NodeJS.ProcessEnv; argv: readonly string[] }) => string;
  /** The declared flags (a command made by defineCommand, define.ts). */
  flags?: FlagSpecs;
  /** Returns the exit code. Throw UsageError for bad input (exit 2), CliFailure (failure.ts) for a failure with its code. */
  run: (argv: string[], io: CliIO) => Promise<number>;
}

// What every CLI command module exports. main.ts dispatches on `name`.

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
  /** Returns the exit code. Throw UsageError for bad input (exit 2). */
  run: (argv: string[], io: CliIO) => Promise<number>;
}

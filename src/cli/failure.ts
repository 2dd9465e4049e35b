// The CLI's one printer for a run that fails: a typed failure (CliFailure), a usage mistake
// (UsageError, exit 2) or any other thrown error becomes `gpu-rent NAME: …` on stderr in the
// output language and, under --json, the `{"error": {code, message, …}}` document on stdout
// (json-error.ts; the English message). The exit code is the failure's, whatever the format.
import { forTerminalLines } from '../core/text';
import { UsageError } from './args';
import type { CliIO } from './command';
import { errorCode, jsonError } from './json-error';
import type { CliLang } from './lang';
import { messageIn } from './words';

/**
 * Why a command could not go on, thrown from its `run`: a stable `code` for scripts (no-account,
 * not-found, unreachable, …), the English `message` (the JSON's, the same in every language),
 * `zh` its Chinese for stderr, `exit` (1 unless given; never 0), `extra` fields beside code and
 * message in the JSON error object, and `say`: the stderr words when they are not the message's
 * (already in the output language and safe on a terminal), null when the command already said
 * why on stderr (each account's failure, one line each).
 */
export class CliFailure extends Error {
  readonly exit: number;
  readonly zh?: string;
  readonly extra: Record<string, unknown>;
  readonly say?: string | null;
  constructor(
    readonly code: string,
    message: string,
    opts: { zh?: string; exit?: number; extra?: Record<string, unknown>; say?: string | null; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'CliFailure';
    this.exit = opts.exit !== undefined && opts.exit !== 0 ? opts.exit : 1;
    if (opts.zh !== undefined) this.zh = opts.zh;
    this.extra = opts.extra ?? {};
    if (opts.say !== undefined) this.say = opts.say;
  }
}

/** Prints `err` for command `name` (stderr; under `json` the error document on stdout) and returns its exit code. */
export function printFailure(io: CliIO, name: string, lang: CliLang, json: boolean, err: unknown): number {
  if (err instanceof UsageError) {
    // JSON is the same in every language: the English message.
    if (json) io.stdout(jsonError('usage', err.message));
    io.stderr(`gpu-rent ${name}: ${messageIn(lang, err)}\n`);
    return 2;
  }
  if (err instanceof CliFailure) {
    if (json) io.stdout(jsonError(err.code, err.message, err.extra));
    if (err.say !== null) io.stderr(`gpu-rent ${name}: ${err.say ?? forTerminalLines(messageIn(lang, err))}\n`);
    return err.exit;
  }
  // Messages may quote what a box printed: escapes made visible, never written raw.
  const message = forTerminalLines(messageIn(lang, err));
  if (json) io.stdout(jsonError(errorCode(err), err instanceof Error ? err.message : String(err)));
  io.stderr(`gpu-rent ${name}: ${message}\n`);
  if (io.env.GPU_RENT_DEBUG && err instanceof Error && err.stack) io.stderr(err.stack + '\n');
  return 1;
}

/** The last thing a command said on stderr, without its `gpu-rent NAME: ` head. */
function lastMessage(stderr: string, name: string): string | undefined {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const last = lines.at(-1);
  return last === undefined ? undefined : last.replace(new RegExp(`^gpu-rent ${name.replace(/[^a-z-]/g, '')}: `), '');
}

/**
 * The JSON error contract's last line of defence, for a command that returns its exit code: a
 * --json run that fails having printed nothing on stdout gets `{"error": {"code": "failed" (or
 * "interrupted" for 130), "message": …}}` from what it last said on stderr.
 */
export function printUnprinted(io: CliIO, name: string, code: number, said: string): void {
  io.stdout(jsonError(code === 130 ? 'interrupted' : 'failed', lastMessage(said, name) ?? `gpu-rent ${name} failed (exit ${code})`));
}

// Quoting for POSIX sh: every argument we put in a remote command goes through shQuote, so a
// file or job name can never become shell syntax on the box.
import { badInput } from './errors';

/** Single-quotes `arg` for POSIX sh (bash, dash, zsh): the shell reads back exactly these bytes. */
export function shQuote(arg: string): string {
  if (arg.includes('\0')) throw badInput({ code: 'shell-arg-nul' });
  // Plain words stay readable; `NAME=…` is quoted so it can never become an assignment.
  if (arg !== '' && /^[A-Za-z0-9_./:@%+,=-]+$/.test(arg) && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Quotes each argument and joins them into one command line. */
export function shJoin(args: readonly string[]): string {
  return args.map(shQuote).join(' ');
}

/** Runs `command` under the user's login shell so conda and the platform's PATH are set. */
export function loginShell(command: string): string {
  return `bash -lc ${shQuote(command)}`;
}

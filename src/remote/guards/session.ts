// What the guards need from a connection to the box: RemoteConnection (src/remote/connection.ts)
// satisfies it as is; tests may hand in the same thing.
import type { SFTPWrapper } from 'ssh2';
import { badInput, boxFailed, boxOutput, type BoxStep } from '../errors';
import { shQuote } from '../shell';

export interface BoxExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface BoxSession {
  exec(command: string, opts?: { timeoutMs?: number; stdin?: string | Buffer; login?: boolean }): Promise<BoxExecResult>;
  sftp(opts?: { timeoutMs?: number }): Promise<SFTPWrapper>;
}

/**
 * Runs a POSIX sh script on the box. Not through the login shell: the user's shell may be zsh,
 * which splits words differently; `login` is for scripts that need conda or ~/bin on PATH.
 */
export async function runSh(session: BoxSession, script: string, opts: { timeoutMs?: number; stdin?: string | Buffer; login?: boolean; what: BoxStep }): Promise<BoxExecResult> {
  // The script runs in a subshell and its status is printed last: a channel that closes
  // without an exit-status message (seen under load) still tells us how the script ended.
  const wrapped = `(\n${script}\n)\necho "${RC_MARK}$?"`;
  const command = opts.login ? wrapped : `sh -c ${shQuote(wrapped)}`;
  const raw = await session.exec(command, { timeoutMs: opts.timeoutMs, stdin: opts.stdin, login: opts.login ?? false });
  const r = withMarkedStatus(raw);
  if (r.code !== 0) {
    const why = (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ');
    throw boxFailed({ code: 'step-failed', step: opts.what, exit: String(r.code ?? 'signal'), output: boxOutput(why) }, { detail: { exitCode: r.code } });
  }
  return r;
}

const RC_MARK = '@@gpu-rent-rc=';

/** Takes the status the wrapper printed (and removes its line) when the channel gave none. */
export function withMarkedStatus(r: BoxExecResult): BoxExecResult {
  const m = new RegExp(`(?:^|\\n)${RC_MARK}(\\d+)\\n?$`).exec(r.stdout);
  if (!m) return r;
  const stdout = r.stdout.slice(0, m.index + (r.stdout[m.index] === '\n' ? 1 : 0));
  return { ...r, stdout, code: r.code ?? Number(m[1]) };
}

/**
 * sh lines that set pid (from "$D/PIDFILE") and alive=1 only while that pid runs our script
 * (its /proc cmdline names SCRIPT): a pid the system reused for another program is not ours.
 */
export function pidCheckScript(pidFile: string, script: string): string {
  return `pid=$(cat "$D/${pidFile}" 2>/dev/null)
alive=0
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
  alive=1
  if [ -r "/proc/$pid/cmdline" ] && ! tr '\\000' ' ' < "/proc/$pid/cmdline" | grep -q ${script}; then alive=0; fi
fi`;
}

/** key=value lines (first '=' splits) into a map; later keys win. */
export function keyValues(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of text.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) m.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return m;
}

/** A folder on the box as a sh word: "~/x" and relative paths are under $HOME; the rest is quoted. */
export function boxPath(path: string): string {
  if (path.includes('\0') || path.includes('\n')) throw badInput({ code: 'box-path-invalid' });
  if (path === '~') return '"$HOME"';
  if (path.startsWith('~/')) return `"$HOME"/${shQuote(path.slice(2))}`;
  if (path.startsWith('/')) return shQuote(path);
  return `"$HOME"/${shQuote(path)}`;
}

// Runs the built CLI (dist/cli.js) as a user would: a new process, real argv, real stdio.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): CliResult {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
  const r = spawnSync(process.execPath, [CLI, ...args], {
    input: opts.input,
    // English unless a test asks otherwise: the CLI speaks Chinese under a zh locale.
    env: { ...process.env, LC_ALL: '', LC_MESSAGES: '', LANG: 'C.UTF-8', ...opts.env },
    cwd: opts.cwd,
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 30000,
  });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

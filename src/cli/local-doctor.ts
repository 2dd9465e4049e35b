// Runs nvidia-smi and the torch probe on this machine (what a user types on the rented box).
import { spawnSync } from 'node:child_process';
import { TORCH_PROBE_PY } from '../core/probe';

export interface LocalRun {
  smiOutput: string;
  probeOutput: string;
}

function run(cmd: string, args: string[], input: string | undefined, env: NodeJS.ProcessEnv, timeoutMs: number): string {
  const r = spawnSync(cmd, args, { input, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
  const err = r.error as NodeJS.ErrnoException | undefined;
  if (err?.code === 'ENOENT') return `${cmd}: command not found\n`;
  if (err?.code === 'ETIMEDOUT') return `${cmd}: timed out after ${Math.round(timeoutMs / 1000)} s\n`;
  if (err) return `${cmd}: ${err.message}\n`;
  return `${r.stdout ?? ''}${r.stderr ? `\n${r.stderr}` : ''}`;
}

export function runLocal(opts: { python: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): LocalRun {
  const t = opts.timeoutMs ?? 60_000;
  return {
    // -q -x carries the driver's CUDA version and everything else the model needs.
    smiOutput: run('nvidia-smi', ['-q', '-x'], undefined, opts.env, t),
    probeOutput: run(opts.python, ['-'], TORCH_PROBE_PY, opts.env, t),
  };
}

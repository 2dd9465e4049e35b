// Training that outlives the laptop's SSH connection. Each job is started detached (tmux when
// the box has it, else `setsid`), logs to a file, and keeps its record on the box in
// ~/.gpu-rent/jobs/NAME/: pid, start time, exit code, the command and where it runs. So the
// state survives reconnects and other clients (the extension, a second laptop) see the same jobs.
import { parseNvidiaSmi, SMI_QUERY_COMMAND } from '../core/smi';
import { forTerminal } from '../core/text';
import type { RemoteConnection } from './connection';
import { badInput, boxFailed, boxOutput } from './errors';
import { dataDirScript } from './platform';
import { shJoin, shQuote } from './shell';
import { boxLines, trimEndOf } from '../core/boxLines';
import { wrapWithLauncher, type Launcher } from './jobs-launcher';

export { LAUNCHERS, wrapWithLauncher, type Launcher } from './jobs-launcher';

/** What a jobs listing, nvidia-smi or a stop may print: real replies are a few KiB. */
const SMALL_REPLY_BYTES = 4 * 1024 * 1024;
/** The default and the most of a log `readLog` brings over (read by byte offset on the box). */
export const LOG_TAIL_BYTES = 1024 * 1024;
export const LOG_TAIL_MAX_BYTES = 64 * 1024 * 1024;

/** The last lines of a box's error output, made safe to print and short. */
function excerpt(text: string, lines = 2): string {
  return forTerminal(text.trim().split('\n').slice(-lines).join(' | ').slice(0, 500));
}

/** Where job records live on the box, relative to $HOME. */
export const JOBS_DIR = '.gpu-rent/jobs';

export interface StartJobOptions {
  name: string;
  /** The command as argv (each argument quoted); a single argument is taken as a shell command line. */
  command: string[];
  /** Working folder on the box (default: the platform's data folder, e.g. /root/autodl-tmp, else ~). */
  cwd?: string;
  env?: Record<string, string>;
  launcher?: Launcher;
  /** GPUs for the launcher; 'auto' reads the count from nvidia-smi. */
  gpus?: number | 'auto';
  /** Force the detach method (tests); default tmux when present. */
  runner?: 'tmux' | 'setsid';
}

export type JobState = 'starting' | 'running' | 'exited' | 'lost';

export interface JobInfo {
  name: string;
  state: JobState;
  /** Exit status once exited (128+N when killed by signal N). */
  exitCode: number | null;
  /** Whether `gpu-rent stop` ended it. */
  stopped: boolean;
  /** Unix seconds. */
  startedAt: number | null;
  finishedAt: number | null;
  pid: number | null;
  logPath: string;
  cwd: string | null;
  runner: 'tmux' | 'setsid' | null;
  command: string | null;
}

export interface StartedJob extends JobInfo {
  /** The command line that was run (after the launcher wrapped it). */
  commandLine: string;
  gpus: number | null;
}

const NAME_MAX = 64;

/**
 * `alive PID NAME`: whether job NAME's wrapper still runs. Not just `kill -0`: a finished wrapper
 * whose parent is a container's PID 1 may stay a zombie for a while (or for good), and a pid can
 * be reused after a reboot, so the wrapper's command line must name this job's run.sh.
 */
const ALIVE_FN = 'alive() { if [ -r /proc/self/cmdline ]; then tr "\\0" " " < "/proc/$1/cmdline" 2>/dev/null | grep -qF "/$2/run.sh"; else kill -0 "$1" 2>/dev/null; fi; }';

/**
 * A job name safe for a folder and a tmux session: letters, digits, `_` and `-` (others become
 * `-`), at most 64 characters. tmux itself turns `.` and `:` into `_`, which would break exact matching.
 */
export function sanitizeJobName(raw: string): string {
  const cleaned = String(raw)
    .normalize('NFKC')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '');
  const name = trimEndOf(cleaned, '-').slice(0, NAME_MAX);
  if (name === '') throw badInput({ code: 'job-name-invalid', name: String(raw) });
  return name;
}

/** GPUs nvidia-smi lists on the box. */
export async function countGpus(conn: RemoteConnection, opts: { timeoutMs?: number } = {}): Promise<number> {
  const r = await conn.exec(SMI_QUERY_COMMAND, { timeoutMs: opts.timeoutMs ?? 30000, maxOutputBytes: SMALL_REPLY_BYTES });
  const smi = parseNvidiaSmi((r.stdout + (r.stdout.trim() ? '' : r.stderr)).trim());
  if (!smi.ok) throw boxFailed({ code: 'gpu-count-unreadable', output: boxOutput(`${smi.error.kind}: ${smi.error.message}`) });
  if (smi.report.gpus.length === 0) throw boxFailed({ code: 'gpu-none-listed' });
  return smi.report.gpus.length;
}

function envName(k: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw badInput({ code: 'env-var-name-invalid', name: k });
  return k;
}

/**
 * The wrapper that runs on the box (as `bash -l run.sh`, so conda and the platform's PATH are
 * set): records pid, start and exit code next to itself and runs the command in the job's folder.
 */
function runnerScript(env: Record<string, string>, commandLine: string): string {
  return [
    '#!/bin/bash',
    '# Written by gpu-rent: runs one job and records its pid, start and exit on this box.',
    'J=$(cd "$(dirname -- "$0")" && pwd) || exit 127',
    'echo $$ > "$J/pid.tmp" && mv "$J/pid.tmp" "$J/pid"',
    'date +%s > "$J/started"',
    // A trap (not an ignore, which children would inherit) so the wrapper outlives the signal
    // that `gpu-rent stop` sends to the whole process group and still records the exit.
    'trap \'touch "$J/stopped"\' TERM INT HUP',
    ...Object.entries(env).map(([k, v]) => `export ${envName(k)}=${shQuote(v)}`),
    'D=$(head -n 1 "$J/cwd")',
    'case "$D" in "~") D=$HOME ;; "~/"*) D="$HOME/${D#"~/"}" ;; /*) ;; *) D="$HOME/$D" ;; esac',
    'if ! cd "$D" 2>/dev/null; then echo "gpu-rent: cannot enter the folder $D" >> "$J/output.log"; date +%s > "$J/finished"; echo 127 > "$J/exit"; exit 127; fi',
    `( ${commandLine}\n) >> "$J/output.log" 2>&1 < /dev/null &`,
    'child=$!',
    // `wait` returns early when a trapped signal arrives: keep waiting until the command is gone.
    'while :; do wait "$child"; code=$?; kill -0 "$child" 2>/dev/null || break; done',
    'date +%s > "$J/finished"',
    'echo "$code" > "$J/exit.tmp" && mv "$J/exit.tmp" "$J/exit"',
    '',
  ].join('\n');
}

/** Starts a detached job and returns once its pid is recorded (well under a second on a warm link). */
export async function startJob(conn: RemoteConnection, opts: StartJobOptions): Promise<StartedJob> {
  const name = sanitizeJobName(opts.name);
  if (opts.command.length === 0) throw badInput({ code: 'job-command-missing' });
  let gpus: number | null = null;
  let argv = opts.command;
  if (opts.launcher) {
    gpus = opts.gpus === undefined || opts.gpus === 'auto' ? await countGpus(conn) : opts.gpus;
    argv = wrapWithLauncher(opts.launcher, gpus, argv);
  }
  // One argument with spaces is a shell command line (like `ssh host 'a && b'`); otherwise each argument is quoted.
  const commandLine = argv.length === 1 && !opts.launcher ? argv[0]! : shJoin(argv);
  const env = opts.env ?? {};
  for (const k of Object.keys(env)) envName(k);

  const script = runnerScript(env, commandLine);
  const runner = opts.runner;
  const launch = [
    'set -u',
    `J="$HOME"/${JOBS_DIR}/${name}`,
    // One job per name: refuse while the previous one runs; keep its log as output.log.1.
    ALIVE_FN,
    `if [ -f "$J/pid" ] && [ ! -f "$J/exit" ] && alive "$(cat "$J/pid")" ${name}; then echo "gpu-rent: a job named ${name} is already running" >&2; exit 3; fi`,
    'if [ -d "$J" ]; then [ -s "$J/output.log" ] && mv -f "$J/output.log" "$J/output.log.1"; rm -f "$J/pid" "$J/exit" "$J/started" "$J/finished" "$J/stopped" "$J/run.sh" "$J/cwd" "$J/runner"; fi',
    'mkdir -p "$J" || exit 4',
    `printf '%s\\n' ${shQuote(commandLine)} > "$J/command"`,
    opts.cwd === undefined ? `(${dataDirScript()}) | cut -f2- > "$J/cwd"` : `printf '%s\\n' ${shQuote(opts.cwd)} > "$J/cwd"`,
    ': > "$J/output.log"',
    // The script refers to its own folder literally, so it survives $HOME differences under sudo.
    // Sent as base64 (no in-band terminator: no argument or --env value can end it early).
    `printf '%s' ${shQuote(Buffer.from(script, 'utf8').toString('base64'))} | base64 -d > "$J/run.sh" || exit 4`,
    runner === 'setsid'
      ? 'R=setsid'
      : runner === 'tmux'
        ? 'R=tmux'
        : 'if command -v tmux >/dev/null 2>&1; then R=tmux; else R=setsid; fi',
    'echo "$R" > "$J/runner"',
    `if [ "$R" = tmux ]; then tmux kill-session -t ${shQuote('=' + name)} 2>/dev/null; tmux new-session -d -s ${shQuote(name)} "exec bash -l '$J/run.sh'" || exit 5; ` +
      `else if setsid -f true 2>/dev/null; then setsid -f bash -l "$J/run.sh" </dev/null >/dev/null 2>&1; else nohup setsid bash -l "$J/run.sh" </dev/null >/dev/null 2>&1 & fi; fi`,
    // Wait (briefly) for the wrapper to record its pid.
    'i=0; while [ ! -s "$J/pid" ] && [ $i -lt 40 ]; do sleep 0.025; i=$((i+1)); done',
    'printf "%s\\t%s\\t%s\\n" "$(cat "$J/pid" 2>/dev/null)" "$R" "$J"',
  ].join('\n');
  const r = await conn.exec(launch, { timeoutMs: 30000, maxOutputBytes: SMALL_REPLY_BYTES });
  if (r.code === 3) throw boxFailed({ code: 'job-already-running', name });
  if (r.code !== 0) throw boxFailed({ code: 'job-start-failed', name, exit: String(r.code ?? r.signal), output: excerpt(r.stderr || r.stdout) });
  const [pidText, runnerUsed, dir] = (r.stdout.trim().split('\n').pop() ?? '').split('\t');
  const info = (await listJobs(conn, { name })).find((j) => j.name === name);
  return {
    ...(info ?? {
      name,
      state: 'starting',
      exitCode: null,
      stopped: false,
      startedAt: null,
      finishedAt: null,
      pid: pidText ? Number(pidText) : null,
      logPath: `${dir}/output.log`,
      cwd: opts.cwd ?? null,
      runner: runnerUsed === 'tmux' ? 'tmux' : 'setsid',
      command: commandLine,
    }),
    commandLine,
    gpus,
  };
}

/** Lists jobs on the box (optionally one by exact name). */
export async function listJobs(conn: RemoteConnection, opts: { name?: string; timeoutMs?: number } = {}): Promise<JobInfo[]> {
  const only = opts.name === undefined ? '*' : shQuote(sanitizeJobName(opts.name));
  const script = [
    `cd "$HOME"/${JOBS_DIR} 2>/dev/null || exit 0`,
    ALIVE_FN,
    `for n in ${only}; do [ -d "$n" ] || continue`,
    '  pid=$(cat "$n/pid" 2>/dev/null); code=$(cat "$n/exit" 2>/dev/null)',
    '  alive=0; if [ -n "$pid" ] && alive "$pid" "$n"; then alive=1; fi',
    // It may have ended between the two reads: its exit code is written before the wrapper goes.
    '  [ "$alive" = 0 ] && [ -z "$code" ] && code=$(cat "$n/exit" 2>/dev/null)',
    '  age=$(( $(date +%s) - $(stat -c %Y "$n/command" 2>/dev/null || date +%s) ))',
    '  stopped=0; [ -f "$n/stopped" ] && stopped=1',
    '  printf "JOB\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\n" "$n" "$pid" "$code" "$alive" "$(cat "$n/started" 2>/dev/null)" "$(cat "$n/finished" 2>/dev/null)" "$(cat "$n/runner" 2>/dev/null)" "$stopped" "$age" "$PWD/$n/output.log" "$(head -c 2000 "$n/cwd" 2>/dev/null | head -n 1)"',
    '  printf "CMD\\t%s\\n" "$(head -c 2000 "$n/command" 2>/dev/null | head -n 1)"',
    'done',
  ].join('\n');
  const r = await conn.exec(script, { timeoutMs: opts.timeoutMs ?? 30000, login: false, maxOutputBytes: SMALL_REPLY_BYTES });
  if (r.outputLimited || r.truncated.stdout > 0) throw boxFailed({ code: 'jobs-output-too-big', limitBytes: SMALL_REPLY_BYTES });
  const jobs: JobInfo[] = [];
  let last: JobInfo | null = null;
  for (const line of boxLines(r.stdout)) {
    if (line.startsWith('CMD\t') && last) {
      last.command = line.slice(4) || null;
      continue;
    }
    if (!line.startsWith('JOB\t')) continue;
    const [, name, pid, code, alive, started, finished, runner, stopped, age, log, cwd] = line.split('\t');
    const num = (s: string | undefined) => (s && /^\d+$/.test(s.trim()) ? Number(s.trim()) : null);
    const exitCode = num(code);
    let state: JobState;
    if (exitCode !== null) state = 'exited';
    else if (alive === '1') state = 'running';
    else if (!pid && (num(age) ?? 99) < 10) state = 'starting';
    else state = 'lost';
    last = {
      name: name!,
      state,
      exitCode,
      stopped: stopped === '1',
      startedAt: num(started),
      finishedAt: num(finished),
      pid: num(pid),
      logPath: log ?? '',
      cwd: cwd || null,
      runner: runner === 'tmux' || runner === 'setsid' ? runner : null,
      command: null,
    };
    jobs.push(last);
  }
  return jobs.sort((a, b) => (b.startedAt ?? 0) - (a.startedAt ?? 0) || a.name.localeCompare(b.name));
}

async function requireJob(conn: RemoteConnection, name: string): Promise<JobInfo> {
  const clean = sanitizeJobName(name);
  const job = (await listJobs(conn, { name: clean })).find((j) => j.name === clean);
  if (!job) throw boxFailed({ code: 'job-not-found', name: clean });
  return job;
}

/**
 * The end of a job's log: its last `maxBytes` bytes (default 1 MiB), read by byte offset on the
 * box, then the last `lines` lines of those (0 = all of them). A 2 GB log of `\r` progress
 * bars without one newline costs the same as a small one.
 */
export async function readLog(
  conn: RemoteConnection,
  name: string,
  opts: { lines?: number; maxBytes?: number; timeoutMs?: number } = {},
): Promise<{ job: JobInfo; text: string; logBytes: number | null; shownFromByte: number }> {
  const job = await requireJob(conn, name);
  const lines = Math.max(0, Math.floor(opts.lines ?? 200));
  const maxBytes = Math.min(LOG_TAIL_MAX_BYTES, Math.max(1, Math.floor(opts.maxBytes ?? LOG_TAIL_BYTES)));
  const cmd = [
    `f=${shQuote(job.logPath)}`,
    // The size first, then the bytes from (size - maxBytes): tail -c +K seeks, head -c bounds it.
    's=$(stat -c %s -- "$f" 2>/dev/null || wc -c < "$f" 2>/dev/null || echo 0)',
    `k=$((s > ${maxBytes} ? s - ${maxBytes} + 1 : 1))`,
    'printf "%s\\n" "$s"',
    `tail -c +"$k" -- "$f" 2>/dev/null | head -c ${maxBytes}${lines > 0 ? ` | tail -n ${lines}` : ''}`,
  ].join('\n');
  const r = await conn.exec(cmd, { timeoutMs: opts.timeoutMs ?? 60000, login: false, maxOutputBytes: maxBytes + 64 });
  const nl = r.stdout.indexOf('\n');
  const sizeText = nl === -1 ? '' : r.stdout.slice(0, nl).trim();
  const logBytes = /^\d{1,18}$/.test(sizeText) ? Number(sizeText) : null;
  const text = nl === -1 ? '' : r.stdout.slice(nl + 1);
  return { job, text, logBytes, shownFromByte: logBytes !== null && logBytes > maxBytes ? logBytes - maxBytes : 0 };
}

/** Streams a job's log until the job ends (or `signal` aborts). */
export async function followLog(conn: RemoteConnection, name: string, opts: { lines?: number; onData: (chunk: Buffer) => void; signal?: AbortSignal }): Promise<JobInfo> {
  const job = await requireJob(conn, name);
  const lines = Math.max(0, Math.floor(opts.lines ?? 200));
  // The start is read by byte offset (the last LOG_TAIL_BYTES, then its last lines), and the
  // follow starts at the size seen then: a huge log without newlines is never sent whole.
  const start = [
    `f=${shQuote(job.logPath)}`,
    's=$(stat -c %s -- "$f" 2>/dev/null || echo 0)',
    `k=$((s > ${LOG_TAIL_BYTES} ? s - ${LOG_TAIL_BYTES} + 1 : 1))`,
    // Exactly the bytes k..s: what is written after the stat comes from the follow below, once.
    `tail -c +"$k" -- "$f" 2>/dev/null | head -c $((s - k + 1))${lines > 0 ? ` | tail -n ${lines}` : ''}`,
  ].join('\n');
  // tail's own --pid check lags by over a second; watch the wrapper here and give tail a moment
  // to print the last lines once it is gone.
  const cmd =
    job.state === 'running' && job.pid
      ? `${ALIVE_FN}\nJ="$HOME"/${JOBS_DIR}/${job.name}\n${start}\n(exec tail -c +$((s + 1)) -F -- "$f" 2>/dev/null) & t=$!\nwhile [ ! -f "$J/exit" ] && alive ${job.pid} ${job.name}; do sleep 0.1; done\nsleep 0.3; kill $t 2>/dev/null; wait $t 2>/dev/null; exit 0`
      : `${start}\nexec tail -c +$((s + 1)) -- "$f" 2>/dev/null`;
  await conn.execStream(cmd, { onStdout: opts.onData, signal: opts.signal, login: false });
  return (await listJobs(conn, { name: job.name })).find((j) => j.name === job.name) ?? job;
}

/** Stops a job: TERM to its whole process group, KILL after `graceSeconds`; returns the final record. */
export async function stopJob(conn: RemoteConnection, name: string, opts: { graceSeconds?: number } = {}): Promise<JobInfo> {
  const job = await requireJob(conn, name);
  if (job.state !== 'running' || !job.pid) return job;
  const grace = Math.max(0, Math.floor(opts.graceSeconds ?? 10));
  const script = [
    `J="$HOME"/${JOBS_DIR}/${job.name}; P=${job.pid}`,
    'touch "$J/stopped"',
    // The wrapper leads its own process group (setsid, or the tmux pane): signal the group.
    'kill -TERM -- -"$P" 2>/dev/null || kill -TERM "$P" 2>/dev/null',
    ALIVE_FN,
    `i=0; while [ ! -f "$J/exit" ] && alive "$P" ${job.name} && [ $i -lt ${grace * 10} ]; do sleep 0.1; i=$((i+1)); done`,
    `if [ ! -f "$J/exit" ] && alive "$P" ${job.name}; then kill -KILL -- -"$P" 2>/dev/null || kill -KILL "$P"; sleep 0.2; [ -f "$J/exit" ] || { echo 137 > "$J/exit"; date +%s > "$J/finished"; }; fi`,
    `i=0; while [ ! -f "$J/exit" ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done`,
    `command -v tmux >/dev/null 2>&1 && tmux kill-session -t ${shQuote('=' + job.name)} 2>/dev/null`,
    'exit 0',
  ].join('\n');
  await conn.exec(script, { timeoutMs: (grace + 15) * 1000, login: false, maxOutputBytes: SMALL_REPLY_BYTES });
  return (await listJobs(conn, { name: job.name })).find((j) => j.name === job.name) ?? job;
}

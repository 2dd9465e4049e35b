// Installs, checks and removes the on-box watchdog (~/.gpu-rent/watchdog). Install starts it
// detached (setsid, all stdio redirected, so it outlives the SSH session) and then verifies it
// is armed: its pid is alive, it is our script, and it has written a heartbeat.
import { boxFailed } from '../errors';
import { shQuote } from '../shell';
import { boxPath, keyValues, pidCheckScript, runSh, type BoxSession } from './session';
import { WATCHDOG_FILES, WATCHDOG_SCRIPT, watchdogConfigText, type WatchdogConfig } from './watchdog-script';
import { sleep } from '../util/sleep';

export const DEFAULT_WATCHDOG_DIR = '~/.gpu-rent/watchdog';

export interface WatchdogEvent {
  at: number;
  /** armed, idle, job-ended (NAME=CODE …), hook-start, hook-exit, action-start, action-exit, action-skipped, spot-termination, stopped. */
  kind: string;
  detail: string;
}

export interface WatchdogStatus {
  installed: boolean;
  running: boolean;
  pid: number | null;
  /** Box clock (or the test clock) when the status was read. */
  now: number | null;
  heartbeat: number | null;
  heartbeatAgeSeconds: number | null;
  /** Running and its heartbeat is younger than three polls (plus slack). */
  armed: boolean;
  /** quiet (since), busy, unknown (no reading), fired (acted at). */
  state: { kind: 'quiet' | 'busy' | 'unknown' | 'fired'; at: number } | null;
  pollSeconds: number | null;
  idleWindowSeconds: number | null;
  events: WatchdogEvent[];
}

const D = (dir: string) => `D=${boxPath(dir)}`;

/** Prints pid/alive for the recorded pid, alive only when it is still our script. */
const PID_CHECK = pidCheckScript(WATCHDOG_FILES.pid, WATCHDOG_FILES.script);

function statusScript(dir: string): string {
  return `${D(dir)}
if [ ! -f "$D/${WATCHDOG_FILES.script}" ]; then echo installed=0; exit 0; fi
echo installed=1
GR_CLOCK_FILE=""; GR_POLL_SECONDS=""; GR_IDLE_WINDOW=""
. "$D/${WATCHDOG_FILES.config}" 2>/dev/null
if [ -n "$GR_CLOCK_FILE" ] && [ -r "$GR_CLOCK_FILE" ]; then echo "now=$(cat "$GR_CLOCK_FILE")"; else echo "now=$(date +%s)"; fi
# The state before the pid: the watchdog removes its pid file before it writes "fired", so a
# status that reads "fired" never also finds it running.
state=$(cat "$D/${WATCHDOG_FILES.state}" 2>/dev/null)
${PID_CHECK}
echo "pid=$pid"
echo "alive=$alive"
echo "heartbeat=$(cat "$D/${WATCHDOG_FILES.heartbeat}" 2>/dev/null)"
echo "state=$state"
echo "poll=$GR_POLL_SECONDS"
echo "window=$GR_IDLE_WINDOW"
echo "@@events"
tail -n 50 "$D/${WATCHDOG_FILES.events}" 2>/dev/null
exit 0`;
}

const int = (s: string | undefined): number | null => (s && /^-?\d+$/.test(s) ? Number(s) : null);

export function parseStatus(stdout: string): WatchdogStatus {
  const [head = '', eventsText = ''] = stdout.split('@@events\n');
  const kv = keyValues(head);
  if (kv.get('installed') !== '1') {
    return { installed: false, running: false, pid: null, now: null, heartbeat: null, heartbeatAgeSeconds: null, armed: false, state: null, pollSeconds: null, idleWindowSeconds: null, events: [] };
  }
  const now = int(kv.get('now'));
  const heartbeat = int(kv.get('heartbeat'));
  const pollSeconds = int(kv.get('poll'));
  const running = kv.get('alive') === '1';
  const age = now !== null && heartbeat !== null ? now - heartbeat : null;
  const stateMatch = /^(quiet|busy|unknown|fired) (\d+)$/.exec(kv.get('state') ?? '');
  const events: WatchdogEvent[] = [];
  for (const line of eventsText.split('\n')) {
    const m = /^(\d+) (\S+)(?: (.*))?$/.exec(line);
    if (m) events.push({ at: Number(m[1]), kind: m[2]!, detail: m[3] ?? '' });
  }
  return {
    installed: true,
    running,
    pid: int(kv.get('pid')),
    now,
    heartbeat,
    heartbeatAgeSeconds: age,
    armed: running && age !== null && age <= 3 * (pollSeconds ?? 60) + 10,
    state: stateMatch ? { kind: stateMatch[1] as 'quiet', at: Number(stateMatch[2]) } : null,
    pollSeconds,
    idleWindowSeconds: int(kv.get('window')),
    events,
  };
}

export async function watchdogStatus(session: BoxSession, opts: { dir?: string; timeoutMs?: number } = {}): Promise<WatchdogStatus> {
  const r = await runSh(session, statusScript(opts.dir ?? DEFAULT_WATCHDOG_DIR), { what: { step: 'watchdog-status' }, timeoutMs: opts.timeoutMs });
  return parseStatus(r.stdout);
}

/** Stops a running watchdog (stop file, then TERM, then KILL) and optionally deletes its folder. */
export async function removeWatchdog(session: BoxSession, opts: { dir?: string; keepFiles?: boolean; timeoutMs?: number } = {}): Promise<{ wasInstalled: boolean; wasRunning: boolean }> {
  const script = `${D(opts.dir ?? DEFAULT_WATCHDOG_DIR)}
if [ ! -d "$D" ]; then echo installed=0; exit 0; fi
echo installed=1
: > "$D/${WATCHDOG_FILES.stop}"
${PID_CHECK}
echo "alive=$alive"
if [ "$alive" = 1 ]; then
  kill "$pid" 2>/dev/null
  i=0; while [ $i -lt 20 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.2 2>/dev/null || sleep 1; i=$((i + 1)); done
  kill -9 "$pid" 2>/dev/null
fi
${opts.keepFiles ? `rm -f "$D/${WATCHDOG_FILES.pid}"` : 'rm -rf -- "$D"'}
exit 0`;
  const r = await runSh(session, script, { what: { step: 'watchdog-remove' }, timeoutMs: opts.timeoutMs ?? 30000 });
  const kv = keyValues(r.stdout);
  return { wasInstalled: kv.get('installed') === '1', wasRunning: kv.get('alive') === '1' };
}

export interface InstallOptions {
  dir?: string;
  /** How long to wait for the first heartbeat (default 15 s). */
  armTimeoutMs?: number;
  timeoutMs?: number;
}

/** Writes the script and its settings, (re)starts it detached and waits until it is armed. */
export async function installWatchdog(session: BoxSession, config: WatchdogConfig, opts: InstallOptions = {}): Promise<WatchdogStatus> {
  const dir = opts.dir ?? DEFAULT_WATCHDOG_DIR;
  await removeWatchdog(session, { dir, keepFiles: true, timeoutMs: opts.timeoutMs });
  const write = (name: string, mode: string, text: string) =>
    runSh(session, `${D(dir)}\nmkdir -p "$D" && chmod 700 "$D" && cat > "$D/${name}.tmp" && chmod ${mode} "$D/${name}.tmp" && mv -f "$D/${name}.tmp" "$D/${name}"`, {
      what: { step: 'watchdog-write', name },
      stdin: text,
      timeoutMs: opts.timeoutMs,
    });
  await write(WATCHDOG_FILES.script, '700', WATCHDOG_SCRIPT);
  await write(WATCHDOG_FILES.config, '600', watchdogConfigText(config, shQuote));
  await runSh(
    session,
    `${D(dir)}
cd "$D" || exit 3
rm -f ${[WATCHDOG_FILES.stop, WATCHDOG_FILES.pid, WATCHDOG_FILES.heartbeat, WATCHDOG_FILES.state, WATCHDOG_FILES.spotHandled, WATCHDOG_FILES.marker].join(' ')}
if command -v setsid >/dev/null 2>&1; then
  setsid sh "$D/${WATCHDOG_FILES.script}" </dev/null >>"$D/${WATCHDOG_FILES.output}" 2>&1 &
else
  nohup sh "$D/${WATCHDOG_FILES.script}" </dev/null >>"$D/${WATCHDOG_FILES.output}" 2>&1 &
fi
echo started`,
    { what: { step: 'watchdog-start' }, timeoutMs: opts.timeoutMs },
  );
  const deadline = Date.now() + (opts.armTimeoutMs ?? 15000);
  let status = await watchdogStatus(session, { dir, timeoutMs: opts.timeoutMs });
  while (!(status.running && status.heartbeat !== null) && Date.now() < deadline) {
    await sleep(250);
    status = await watchdogStatus(session, { dir, timeoutMs: opts.timeoutMs });
  }
  if (!(status.running && status.heartbeat !== null)) {
    throw boxFailed({ code: 'watchdog-not-armed', pid: String(status.pid ?? 'none'), running: status.running, outputPath: `${dir}/${WATCHDOG_FILES.output}` });
  }
  return { ...status, armed: true };
}

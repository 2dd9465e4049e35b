// The on-box watchdog: a POSIX sh script that keeps watching when the laptop sleeps. It polls
// nvidia-smi and the job folders; when the GPU has been quiet for the whole window (every GPU
// under the threshold, no compute process, no file in the watched folders written) it runs the
// user's final checkpoint hook and then the chosen action. On 阿里云 spot instances it also
// polls the instance-metadata termination time and runs the hook once when a reclaim is announced.
//
// Honest limits: the box cannot switch itself to a platform's no-GPU mode (there is no API);
// on-box actions are a power-off (AutoDL documents `shutdown` inside an instance as a stop) or
// any command the user supplies.

import { JOBS_DIR } from '../jobs';
import { trimEndOf } from '../../core/boxLines';
import { shQuote } from '../shell';

/** Files inside the watchdog folder (~/.gpu-rent/watchdog). */
export const WATCHDOG_FILES = {
  script: 'watchdog.sh',
  config: 'config',
  pid: 'pid',
  heartbeat: 'heartbeat',
  events: 'events.log',
  state: 'state',
  stop: 'stop',
  output: 'watchdog.out',
  marker: 'activity.marker',
  previousMarker: 'activity.marker.prev',
  spotHandled: 'spot.handled',
} as const;

export const WATCHDOG_VERSION = 1;

/** 阿里云's security hardening mode: PUT this path with the TTL header for a token, then send it with every read. */
export const SPOT_TOKEN_PATH = '/latest/api/token';
export const SPOT_TOKEN_TTL_HEADER = 'X-aliyun-ecs-metadata-token-ttl-seconds';
export const SPOT_TOKEN_HEADER = 'X-aliyun-ecs-metadata-token';

/**
 * Reads `nvidia-smi` output (default table, --query-gpu CSV, compute-apps CSV or -q -x XML) and
 * prints "GPUS UNKNOWN MAXUTIL PROCS": GPU count, GPUs without a utilisation figure, the highest
 * utilisation and the number of compute processes. Prints "0 0 0 0" when nothing was understood.
 */
const SMI_AWK = String.raw`
BEGIN { gpus = 0; unknown = 0; max = 0; procs = 0; inproc = 0; csvutil = 0; csvpid = 0; header = 0 }
/<gpu_util>/ { v = $0; gsub(/.*<gpu_util>|<\/gpu_util>.*/, "", v); if (v ~ /^ *[0-9]+/) { v += 0; if (v > max) max = v } else unknown++; gpus++; next }
/<type>/ { t = $0; gsub(/.*<type>|<\/type>.*/, "", t); if (t ~ /C|M/) procs++; next }
/Processes:/ { inproc = 1; next }
!header && /utilization\.gpu|(^|, *)pid(,|$)/ {
  header = 1; n = split($0, h, ",")
  for (i = 1; i <= n; i++) { f = h[i]; gsub(/^ +| +$/, "", f); if (f ~ /^utilization\.gpu/) csvutil = i; if (f == "pid") csvpid = i }
  next
}
header && (csvutil || csvpid) {
  n = split($0, c, ",")
  if (csvutil) { v = c[csvutil]; gsub(/[^0-9]/, "", v); gpus++; if (v == "") unknown++; else { v += 0; if (v > max) max = v } }
  if (csvpid) { v = c[csvpid]; gsub(/[^0-9]/, "", v); if (v != "") procs++ }
  next
}
!inproc && /MiB *\/ *[0-9]+MiB/ {
  n = split($0, c, "|")
  for (i = 1; i < n; i++) if (c[i] ~ /MiB *\/ *[0-9]+MiB/) {
    gpus++; u = c[i + 1]
    if (match(u, /[0-9]+%/)) { v = substr(u, RSTART, RLENGTH - 1) + 0; if (v > max) max = v } else unknown++
    break
  }
  next
}
inproc && /^\|/ {
  if ($0 ~ /No running processes found|Not Supported/) next
  n = split($0, w, " ")
  for (i = 1; i <= n; i++) if (w[i] == "C" || w[i] == "C+G" || w[i] == "M" || w[i] == "M+C") { procs++; break }
}
END { print gpus, unknown, max, procs }
`;

export const WATCHDOG_SCRIPT = `#!/bin/sh
# gpu-rent watchdog v${WATCHDOG_VERSION}: installed on request by gpu-rent; remove with
# "gpu-rent watchdog remove TARGET" (or create the file "stop" beside this script).
DIR=$(cd "$(dirname "$0")" && pwd) || exit 1
PATH="$HOME/bin:$HOME/.local/bin:$PATH:/usr/local/nvidia/bin:/usr/bin:/bin:/usr/sbin:/sbin"
export PATH

now() {
  if [ -n "\${GR_CLOCK_FILE:-}" ] && [ -r "$GR_CLOCK_FILE" ]; then cat "$GR_CLOCK_FILE"; else date +%s; fi
}
event() { echo "$(now) $*" >> "$DIR/${WATCHDOG_FILES.events}"; }
run_limited() { # seconds, command
  if command -v timeout >/dev/null 2>&1; then timeout "$1" sh -c "$2"; else sh -c "$2"; fi
}

gpu_reading() {
  # A wedged driver can hang nvidia-smi: a reading that does not come back is no reading.
  if command -v timeout >/dev/null 2>&1; then out=$(timeout 30 nvidia-smi 2>&1) || { echo "fail"; return; }
  else out=$(nvidia-smi 2>&1) || { echo "fail"; return; }; fi
  printf '%s\\n' "$out" | awk ${shQuote(SMI_AWK)}
}

activity() { # prints "yes" when a watched file was written since the poll before last
  # -newer is strict and file times are coarse: a write in the same tick as the last poll's
  # marker would never count. Comparing with the marker from two polls back closes that gap;
  # a write then counts for two polls, which only delays an idle verdict by one poll.
  : > "$DIR/${WATCHDOG_FILES.marker}.new"
  found=""
  ref="$DIR/${WATCHDOG_FILES.previousMarker}"
  [ -f "$ref" ] || ref="$DIR/${WATCHDOG_FILES.marker}"
  if [ -f "$ref" ]; then
    old_ifs=$IFS; IFS='
'
    for d in $GR_WATCH_DIRS; do
      case "$d" in "~") d=$HOME ;; "~/"*) d="$HOME/\${d#"~/"}" ;; /*) ;; *) d="$HOME/$d" ;; esac
      [ -d "$d" ] || continue
      if [ -n "$(find "$d" -type f -newer "$ref" 2>/dev/null | head -n 1)" ]; then found=yes; break; fi
    done
    IFS=$old_ifs
  fi
  [ -f "$DIR/${WATCHDOG_FILES.marker}" ] && mv -f "$DIR/${WATCHDOG_FILES.marker}" "$DIR/${WATCHDOG_FILES.previousMarker}"
  mv -f "$DIR/${WATCHDOG_FILES.marker}.new" "$DIR/${WATCHDOG_FILES.marker}"
  echo "$found"
}

spot_get() { # URL [HEADER]: the body of a 2xx answer, or nothing
  if command -v curl >/dev/null 2>&1; then
    if [ -n "\${2:-}" ]; then curl -fsS -m 3 -H "$2" "$1" 2>/dev/null; else curl -fsS -m 3 "$1" 2>/dev/null; fi
  elif command -v wget >/dev/null 2>&1; then
    if [ -n "\${2:-}" ]; then wget -q -T 3 --header="$2" -O - "$1" 2>/dev/null; else wget -q -T 3 -O - "$1" 2>/dev/null; fi
  fi
}

spot_notice() { # prints the announced termination time, or nothing
  t=""
  if [ -n "\${GR_SPOT_URL:-}" ]; then
    # 阿里云: security hardening mode first (a token from PUT ${SPOT_TOKEN_PATH}), the plain read where none is given.
    tok=""
    if command -v curl >/dev/null 2>&1; then
      tok=$(curl -fsS -m 3 -X PUT -H "${SPOT_TOKEN_TTL_HEADER}: 60" "\${GR_SPOT_URL%%/latest/*}${SPOT_TOKEN_PATH}" 2>/dev/null | head -c 200 | tr -cd 'A-Za-z0-9._=+/-')
    fi
    if [ -n "$tok" ]; then t=$(spot_get "$GR_SPOT_URL" "${SPOT_TOKEN_HEADER}: $tok"); else t=$(spot_get "$GR_SPOT_URL"); fi
  fi
  # 腾讯云: its own address; the time is the box's clock in UTC+8, kept as said.
  if [ -z "$t" ] && [ -n "\${GR_SPOT_TENCENT_URL:-}" ]; then t=$(spot_get "$GR_SPOT_TENCENT_URL"); fi
  case "$t" in *[0-9]*) printf '%s' "$t" | head -n 1 | head -c 64 ;; esac
}

final_hook() { # reason
  if [ -n "\${GR_HOOK:-}" ]; then
    event "hook-start $1"
    run_limited "$GR_HOOK_TIMEOUT" "$GR_HOOK" >> "$DIR/${WATCHDOG_FILES.output}" 2>&1
    rc=$?
    event "hook-exit $rc"
    return $rc
  fi
  return 0
}

fire() { # reason time: the final hook, then the action unless the hook failed; then exit
  final_hook "$1"
  hook_rc=$?
  if [ "$hook_rc" -ne 0 ] && [ "$GR_ACTION_IF_HOOK_FAILS" != yes ]; then
    event "action-skipped hook-failed"
  elif [ -n "\${GR_ACTION:-}" ]; then
    event "action-start"
    run_limited 120 "$GR_ACTION" >> "$DIR/${WATCHDOG_FILES.output}" 2>&1
    event "action-exit $?"
  fi
  # The pid file goes first: whoever reads "fired" must never find the watchdog still running.
  rm -f "$DIR/${WATCHDOG_FILES.pid}"
  echo "fired $2" > "$DIR/${WATCHDOG_FILES.state}"
  exit 0
}

jobs_ended() { # prints " NAME=CODE ..." once every job in GR_AFTER_JOBS ended GR_AFTER_JOBS_GRACE seconds ago
  all=yes; codes=""; old_ifs=$IFS; IFS='
'
  for j in $GR_AFTER_JOBS; do
    J="$HOME/${JOBS_DIR}/$j"
    if [ -f "$J/exit" ]; then
      fin=$(head -c 20 "$J/finished" 2>/dev/null); case "$fin" in ''|*[!0-9]*) fin=$1 ;; esac
      [ $(($1 - fin)) -ge "\${GR_AFTER_JOBS_GRACE:-0}" ] || all=""
      codes="$codes $j=$(head -c 16 "$J/exit" | tr -cd '0-9-')"
    elif [ -f "$J/pid" ] && ! kill -0 "$(head -c 20 "$J/pid")" 2>/dev/null; then
      codes="$codes $j=lost"
    else all=""; fi
  done
  IFS=$old_ifs
  [ -n "$all" ] && printf '%s' "$codes"
}

# "watchdog.sh reading": print what the GPU check sees now, and exit (used by status).
if [ "\${1:-}" = reading ]; then gpu_reading; exit 0; fi
. "$DIR/${WATCHDOG_FILES.config}" || exit 1
cd "$DIR" || exit 1
echo $$ > "$DIR/${WATCHDOG_FILES.pid}"

event "armed poll=$GR_POLL_SECONDS window=$GR_IDLE_WINDOW threshold=$GR_UTIL_THRESHOLD"
quiet_since=""
while :; do
  t=$(now)
  echo "$t" > "$DIR/${WATCHDOG_FILES.heartbeat}"
  if [ -f "$DIR/${WATCHDOG_FILES.stop}" ]; then event "stopped"; rm -f "$DIR/${WATCHDOG_FILES.pid}"; exit 0; fi

  if [ ! -f "$DIR/${WATCHDOG_FILES.spotHandled}" ]; then
    notice=$(spot_notice)
    if [ -n "$notice" ]; then
      : > "$DIR/${WATCHDOG_FILES.spotHandled}"
      event "spot-termination $notice"
      final_hook spot
    fi
  fi

  if [ -n "\${GR_AFTER_JOBS:-}" ]; then
    ended=$(jobs_ended "$t")
    if [ -n "$ended" ]; then event "job-ended$ended"; fire job "$t"; fi
  fi

  if [ "$GR_IDLE_WINDOW" -gt 0 ]; then
    reading=$(gpu_reading)
    act=$(activity)
    state=quiet
    if [ "$reading" = fail ]; then state=unknown
    else
      set -- $reading
      # Busy first: a compute process counts even where utilisation is not reported (MIG).
      if [ "\${4:-0}" -gt 0 ] || [ "\${3:-0}" -ge "$GR_UTIL_THRESHOLD" ]; then state=busy
      elif [ "\${1:-0}" -eq 0 ] || [ "\${2:-1}" -gt 0 ]; then state=unknown
      fi
    fi
    [ -n "$act" ] && state=busy
    if [ "$state" = quiet ]; then
      [ -n "$quiet_since" ] || quiet_since=$t
      echo "quiet $quiet_since" > "$DIR/${WATCHDOG_FILES.state}"
      if [ $((t - quiet_since)) -ge "$GR_IDLE_WINDOW" ]; then
        event "idle quiet-since=$quiet_since"
        fire idle "$t"
      fi
    else
      quiet_since=""
      echo "$state $t" > "$DIR/${WATCHDOG_FILES.state}"
    fi
  fi
  sleep "$GR_POLL_SECONDS"
done
`;

export interface WatchdogConfig {
  /** Seconds between polls. */
  pollSeconds: number;
  /** A GPU at or above this utilisation counts as working. */
  utilizationThresholdPct: number;
  /** Quiet seconds before acting; 0 watches only for spot reclaim notices. */
  idleWindowSeconds: number;
  /** Folders whose files count as job progress when written (job logs, checkpoints); ~/ and relative paths are under $HOME. */
  watchDirs: string[];
  /** Final checkpoint sync hook: a shell command, run before the action. */
  hookCommand: string | null;
  hookTimeoutSeconds: number;
  /** Shell command for the action; null = hook only, then notify through the events log. */
  actionCommand: string | null;
  /** Run the action even when the hook failed. */
  actionIfHookFails: boolean;
  /** Full URL of the 阿里云 spot termination-time metadata (the token is asked of the same host), or null. */
  spotUrl: string | null;
  /** Full URL of the 腾讯云 spot termination-time metadata, or null. */
  spotTencentUrl?: string | null;
  /** Tests: a file holding the current epoch seconds (a fake clock). */
  clockFile?: string | null;
  /** "After job N ends": fire (hook, then action) once every named job (gpu-rent run names) has ended. */
  afterJobs?: string[];
  /** Seconds after the job's end before firing, so a laptop that is awake can run its own end action first. */
  afterJobsGraceSeconds?: number;
}

/** Job names as `gpu-rent run` makes them (letters, digits, _ and -): anything else could not name a job folder. */
function jobNameForConfig(name: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new RangeError(`not a job name: ${JSON.stringify(name)}`);
  return name;
}

/** Builds the config file the script sources; every value single-quoted for sh. */
export function watchdogConfigText(c: WatchdogConfig, quote: (s: string) => string): string {
  const int = (n: number, min: number) => String(Math.max(min, Math.floor(Number.isFinite(n) ? n : min)));
  const lines = [
    `# gpu-rent watchdog settings (written by gpu-rent)`,
    `GR_POLL_SECONDS=${int(c.pollSeconds, 1)}`,
    `GR_UTIL_THRESHOLD=${int(c.utilizationThresholdPct, 1)}`,
    `GR_IDLE_WINDOW=${int(c.idleWindowSeconds, 0)}`,
    `GR_WATCH_DIRS=${quote(c.watchDirs.join('\n'))}`,
    `GR_HOOK=${quote(c.hookCommand ?? '')}`,
    `GR_HOOK_TIMEOUT=${int(c.hookTimeoutSeconds, 1)}`,
    `GR_ACTION=${quote(c.actionCommand ?? '')}`,
    `GR_ACTION_IF_HOOK_FAILS=${c.actionIfHookFails ? 'yes' : 'no'}`,
    `GR_SPOT_URL=${quote(c.spotUrl ?? '')}`,
    `GR_SPOT_TENCENT_URL=${quote(c.spotTencentUrl ?? '')}`,
    `GR_CLOCK_FILE=${quote(c.clockFile ?? '')}`,
    `GR_AFTER_JOBS=${quote((c.afterJobs ?? []).map(jobNameForConfig).join('\n'))}`,
    `GR_AFTER_JOBS_GRACE=${int(c.afterJobsGraceSeconds ?? 0, 0)}`,
    '',
  ];
  return lines.join('\n');
}

/** The 阿里云 ECS metadata path for a spot instance's termination time (404 until a reclaim is scheduled). */
export const ALIYUN_SPOT_TERMINATION_PATH = '/latest/meta-data/instance/spot/termination-time';
/** The metadata service address inside 阿里云 ECS. */
export const ALIYUN_METADATA_HOST = '100.100.100.200';

/** 腾讯云 CVM's metadata service and its spot termination-time path (404 until a reclaim; the time in UTC+8). */
export const TENCENT_METADATA_HOST = 'metadata.tencentyun.com';
export const TENCENT_SPOT_TERMINATION_PATH = '/latest/meta-data/spot/termination-time';

/** "100.100.100.200", "127.0.0.1:8080" or a full http:// base → the http base. */
export function metadataBase(metadataHost: string): string {
  return /^https?:\/\//.test(metadataHost) ? trimEndOf(metadataHost, '/') : `http://${metadataHost}`;
}

/** The termination-time URL for a metadata host ("100.100.100.200", "127.0.0.1:8080", or a full http:// base). */
export function spotTerminationUrl(metadataHost: string = ALIYUN_METADATA_HOST): string {
  return metadataBase(metadataHost) + ALIYUN_SPOT_TERMINATION_PATH;
}

/** 腾讯云's termination-time URL (tests point it at a local server). */
export function tencentSpotTerminationUrl(metadataHost: string = TENCENT_METADATA_HOST): string {
  return metadataBase(metadataHost) + TENCENT_SPOT_TERMINATION_PATH;
}

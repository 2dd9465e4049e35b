// Installs, reads, claims and removes the on-box supervisor (supervisor-script.ts) in
// ~/.gpu-rent/supervisor/JOB. Install is idempotent: a supervisor already running for the job is
// stopped first, and what it stored and journaled is kept, so a second arm (a `launch --resume`)
// neither uploads a checkpoint twice nor loses the record. Armed means: the pid is alive, it is
// our script, and it has written a heartbeat.
import { CHECKPOINT_RULE_SOURCES, MAX_CHECKPOINT_DEPTH } from '../../core/checkpoints';
import { boxFailed } from '../errors';
import { sanitizeJobName } from '../jobs';
import { shQuote } from '../shell';
import { sleep } from '../util/sleep';
import { boxPath, keyValues, pidCheckScript, runSh, type BoxSession } from './session';
import { SUPERVISOR_FILES, SUPERVISOR_PY, SUPERVISOR_VERSION } from './supervisor-script';

export function supervisorDir(job: string): string {
  return `~/.gpu-rent/supervisor/${sanitizeJobName(job)}`;
}

/** The message sends the box makes at the end, per event kind: each an argv (core/notify/box.ts's plan). */
export type SupervisorNotify = Partial<Record<'finished' | 'failed' | 'diverged' | 'budgetStop' | 'spotReclaimed' | 'endActionFailed', string[][]>>;

export interface SupervisorConfig {
  /** The run's job (gpu-rent run names: ~/.gpu-rent/jobs/JOB). */
  job: string;
  pollSeconds: number;
  /** The checkpoint folder on the box and how often a store pass runs; null: nothing is stored. */
  checkpoints: { dir: string; everySeconds: number; patterns?: readonly string[]; settleSeconds?: number } | null;
  /** Where checkpoints go: the run's POST grant (core/storage/grant.ts's uploader and grant file), or a folder on the box (AutoDL 文件存储). */
  store: { kind: 'post'; uploader: string; grant: string; timeoutSeconds?: number } | { kind: 'folder'; dir: string } | null;
  /** Stop the run after this many non-finite loss readings in a row; null: never. */
  divergeAfter: number | null;
  /** Stop the run after this many seconds by the box's own clock (the budget left at the price given); null: no cap. */
  budgetSeconds: number | null;
  /** The cost so far and the rate, for the message's figure. */
  bill: { spentFen: number; fenPerHour: number } | null;
  /** The cloud's spot notice (metadata base URL); null: not a spot box, or a platform without one. */
  spot: { cloud: 'aliyun' | 'tencent'; base: string } | null;
  /** What the box does at the end when the laptop is away: a command (AutoDL's shutdown as root), or none. */
  end: { action: 'power-off' | 'none'; command: string | null };
  notify: SupervisorNotify;
  /** While the laptop's mark is younger than this, the box waits up to graceSeconds for the laptop to claim the end. */
  laptopAwaySeconds: number;
  graceSeconds: number;
  /** Tests: a file holding the current epoch seconds. */
  clockFile?: string | null;
}

const ARGV_WORD = /^[A-Za-z0-9._/~=:+-]{1,400}$/;

/** The config file's JSON; every value bounded, every argv word plain (no shell ever reads them: Python runs them as lists). */
export function supervisorConfigText(c: SupervisorConfig): string {
  const int = (n: number, min: number, max: number) => Math.max(min, Math.min(max, Math.floor(Number.isFinite(n) ? n : min)));
  for (const list of Object.values(c.notify)) for (const argv of list ?? []) if (argv.length === 0 || argv.length > 8 || !argv.every((w) => ARGV_WORD.test(w))) throw new RangeError('a message command holds an unexpected word');
  const cfg = {
    v: SUPERVISOR_VERSION,
    job: sanitizeJobName(c.job),
    pollSeconds: int(c.pollSeconds, 1, 600),
    checkpoints: c.checkpoints
      ? {
          dir: c.checkpoints.dir,
          everySeconds: int(c.checkpoints.everySeconds, 1, 86400),
          patterns: c.checkpoints.patterns?.slice(0, 16) ?? null,
          settleSeconds: int(c.checkpoints.settleSeconds ?? 5, 0, 3600),
          maxDepth: MAX_CHECKPOINT_DEPTH,
          rules: CHECKPOINT_RULE_SOURCES,
        }
      : null,
    store: c.store,
    divergeAfter: c.divergeAfter === null ? null : int(c.divergeAfter, 1, 10000),
    budgetSeconds: c.budgetSeconds === null ? null : int(c.budgetSeconds, 0, 366 * 86400),
    bill: c.bill ? { spentFen: int(c.bill.spentFen, 0, 1e12), fenPerHour: int(c.bill.fenPerHour, 0, 1e9) } : null,
    spot: c.spot,
    end: c.end,
    notify: c.notify,
    laptopAwaySeconds: int(c.laptopAwaySeconds, 5, 3600),
    graceSeconds: int(c.graceSeconds, 0, 7200),
    clockFile: c.clockFile ?? null,
  };
  return JSON.stringify(cfg) + '\n';
}

export interface SupervisorEvent {
  at: number;
  /** armed, stored, store-failed, store-stopped, journal-store-failed, run-ended, diverged, budget-stop, spot-notice, job-stop, claimed, laptop-done, laptop-gone, notify-sent, notify-failed, action-start, action-exit, stopped. */
  kind: string;
  detail: string;
}

export interface SupervisorStatus {
  installed: boolean;
  running: boolean;
  now: number | null;
  heartbeat: number | null;
  armed: boolean;
  /** running, ending OUTCOME, acting OUTCOME, claimed, stopped, done OUTCOME [action-failed]. */
  state: { text: string; at: number } | null;
  /** Checkpoints stored, by name: the step in the name and when. */
  stored: { name: string; step: number | null; at: number }[];
  events: SupervisorEvent[];
}

const D = (dir: string) => `D=${boxPath(dir)}`;

const PID_CHECK = pidCheckScript(SUPERVISOR_FILES.pid, SUPERVISOR_FILES.script);

const MAX_EVENTS = 200;

function statusScript(dir: string): string {
  return `${D(dir)}
if [ ! -f "$D/${SUPERVISOR_FILES.script}" ]; then echo installed=0; exit 0; fi
echo installed=1
clock=$(sed -n 's/.*"clockFile": *"\\([^"]*\\)".*/\\1/p' "$D/${SUPERVISOR_FILES.config}" 2>/dev/null)
if [ -n "$clock" ] && [ -r "$clock" ]; then echo "now=$(cat "$clock")"; else echo "now=$(date +%s)"; fi
state=$(head -c 200 "$D/${SUPERVISOR_FILES.state}" 2>/dev/null | head -n 1)
${PID_CHECK}
echo "alive=$alive"
echo "heartbeat=$(head -c 20 "$D/${SUPERVISOR_FILES.heartbeat}" 2>/dev/null)"
echo "state=$state"
echo "@@stored"
head -c 262144 "$D/${SUPERVISOR_FILES.stored}" 2>/dev/null
echo
echo "@@events"
tail -n ${MAX_EVENTS} "$D/${SUPERVISOR_FILES.journal}" 2>/dev/null | head -c 262144
exit 0`;
}

const int = (s: string | undefined): number | null => (s && /^-?\d{1,15}$/.test(s) ? Number(s) : null);

export function parseSupervisorStatus(stdout: string): SupervisorStatus {
  const [head = '', rest = ''] = stdout.split('@@stored\n');
  const [storedText = '', eventsText = ''] = rest.split('@@events\n');
  const kv = keyValues(head);
  if (kv.get('installed') !== '1') return { installed: false, running: false, now: null, heartbeat: null, armed: false, state: null, stored: [], events: [] };
  const now = int(kv.get('now'));
  const heartbeat = int(kv.get('heartbeat'));
  const running = kv.get('alive') === '1';
  const sm = /^([a-z][a-zA-Z -]{0,80}) (\d{1,15})$/.exec(kv.get('state') ?? '');
  const stored: SupervisorStatus['stored'] = [];
  try {
    const o = JSON.parse(storedText.trim() || '{}') as unknown;
    if (o && typeof o === 'object' && !Array.isArray(o)) {
      for (const [name, v] of Object.entries(o as Record<string, unknown>).slice(0, 1000)) {
        const e = v as { step?: unknown; at?: unknown };
        if (name.length > 0 && name.length <= 1024 && typeof e?.at === 'number') stored.push({ name, step: typeof e.step === 'number' ? e.step : null, at: e.at });
      }
    }
  } catch {
    // a half-written file reads as nothing stored yet; the next look reads it whole
  }
  const events: SupervisorEvent[] = [];
  for (const line of eventsText.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const e = JSON.parse(line) as { at?: unknown; kind?: unknown; detail?: unknown };
      if (typeof e.at === 'number' && typeof e.kind === 'string' && /^[a-z-]{1,40}$/.test(e.kind)) events.push({ at: e.at, kind: e.kind, detail: typeof e.detail === 'string' ? e.detail.slice(0, 300) : '' });
    } catch {
      // a line cut by the byte cap
    }
  }
  const age = now !== null && heartbeat !== null ? now - heartbeat : null;
  return {
    installed: true,
    running,
    now,
    heartbeat,
    armed: running && age !== null && age <= 60,
    state: sm ? { text: sm[1]!, at: Number(sm[2]) } : null,
    stored: stored.sort((a, b) => a.at - b.at),
    events,
  };
}

export async function supervisorStatus(session: BoxSession, job: string, opts: { timeoutMs?: number } = {}): Promise<SupervisorStatus> {
  const r = await runSh(session, statusScript(supervisorDir(job)), { what: { step: 'supervisor-status' }, timeoutMs: opts.timeoutMs });
  return parseSupervisorStatus(r.stdout);
}

/** The laptop is awake: its mark (the box's clock) tells the supervisor to leave the end to it. */
export async function markLaptopAwake(session: BoxSession, job: string, opts: { timeoutMs?: number } = {}): Promise<void> {
  await runSh(session, `${D(supervisorDir(job))}\n[ -d "$D" ] || exit 0\nclock=$(sed -n 's/.*"clockFile": *"\\([^"]*\\)".*/\\1/p' "$D/${SUPERVISOR_FILES.config}" 2>/dev/null)\nif [ -n "$clock" ] && [ -r "$clock" ]; then cat "$clock"; else date +%s; fi > "$D/${SUPERVISOR_FILES.laptop}.tmp" && mv -f "$D/${SUPERVISOR_FILES.laptop}.tmp" "$D/${SUPERVISOR_FILES.laptop}"`, {
    what: { step: 'supervisor-mark' },
    timeoutMs: opts.timeoutMs,
  });
}

/**
 * The laptop asks to end the run itself (its verified sync, end action and message). One owner,
 * decided atomically: the file is created with sh's noclobber (O_EXCL), as the box creates it
 * with O_EXCL; 'laptop' = the laptop owns the end (the box stands down and waits for
 * laptopDone), 'box' = the box took it first (the laptop waits for its done), 'none' = no supervisor.
 */
export async function claimEnd(session: BoxSession, job: string, opts: { timeoutMs?: number } = {}): Promise<'laptop' | 'box' | 'none'> {
  const r = await runSh(session, `${D(supervisorDir(job))}\n[ -d "$D" ] || { echo owner=none; exit 0; }\n( set -C; echo laptop > "$D/${SUPERVISOR_FILES.owner}" ) 2>/dev/null\necho "owner=$(head -c 16 "$D/${SUPERVISOR_FILES.owner}" 2>/dev/null)"`, { what: { step: 'supervisor-claim' }, timeoutMs: opts.timeoutMs });
  const o = keyValues(r.stdout).get('owner');
  return o === 'laptop' || o === 'none' ? o : 'box';
}

/** The laptop has ended the run (after its end action): the supervisor that stood down exits. */
export async function laptopDone(session: BoxSession, job: string, opts: { timeoutMs?: number } = {}): Promise<void> {
  await runSh(session, `${D(supervisorDir(job))}\n[ -d "$D" ] || exit 0\n: > "$D/${SUPERVISOR_FILES.laptopDone}"`, { what: { step: 'supervisor-claim' }, timeoutMs: opts.timeoutMs });
}

/** Stops the supervisor (stop file, then TERM, then KILL); its files stay unless `removeFiles`. */
export async function stopSupervisor(session: BoxSession, job: string, opts: { removeFiles?: boolean; timeoutMs?: number } = {}): Promise<{ wasRunning: boolean }> {
  const script = `${D(supervisorDir(job))}
if [ ! -d "$D" ]; then echo alive=0; exit 0; fi
: > "$D/${SUPERVISOR_FILES.stop}"
${PID_CHECK}
echo "alive=$alive"
if [ "$alive" = 1 ]; then
  i=0; while [ $i -lt 30 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.2 2>/dev/null || sleep 1; i=$((i + 1)); done
  kill "$pid" 2>/dev/null; sleep 0.2 2>/dev/null; kill -9 "$pid" 2>/dev/null
fi
${opts.removeFiles ? 'rm -rf -- "$D"' : `rm -f "$D/${SUPERVISOR_FILES.pid}"`}
exit 0`;
  const r = await runSh(session, script, { what: { step: 'supervisor-stop' }, timeoutMs: opts.timeoutMs ?? 30000 });
  return { wasRunning: keyValues(r.stdout).get('alive') === '1' };
}

export interface SupervisorFile {
  /** A name inside the supervisor's folder (letters, digits, . _ -). */
  name: string;
  content: string;
  mode: 0o600 | 0o700;
}

export class SupervisorUnavailable extends Error {
  constructor(readonly code: 'no-python3') {
    super('the box has no python3: the on-box supervisor cannot run there');
    this.name = 'SupervisorUnavailable';
  }
}

/**
 * Writes the script, its config and any extra files (the store's grant and uploader, the message
 * requests: all 0600) into ~/.gpu-rent/supervisor/JOB, (re)starts it detached (setsid, stdio
 * redirected, so it outlives the SSH session) and waits until it is armed.
 */
export async function armSupervisor(session: BoxSession, config: SupervisorConfig, extra: readonly SupervisorFile[] = [], opts: { armTimeoutMs?: number; timeoutMs?: number } = {}): Promise<SupervisorStatus> {
  const dir = supervisorDir(config.job);
  const py = await runSh(session, 'command -v python3 >/dev/null 2>&1 && echo yes || echo no', { what: { step: 'supervisor-python' }, timeoutMs: opts.timeoutMs });
  if (py.stdout.trim() !== 'yes') throw new SupervisorUnavailable('no-python3');
  await stopSupervisor(session, config.job, { timeoutMs: opts.timeoutMs });
  const files: SupervisorFile[] = [
    { name: SUPERVISOR_FILES.script, content: SUPERVISOR_PY, mode: 0o700 },
    { name: SUPERVISOR_FILES.config, content: supervisorConfigText(config), mode: 0o600 },
    ...extra,
  ];
  for (const f of files) {
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(f.name) || f.name.startsWith('.')) throw new RangeError(`not a supervisor file name: ${JSON.stringify(f.name.slice(0, 100))}`);
    const mode = f.mode === 0o700 ? '700' : '600';
    // umask first: the file is never readable by others, not even between the write and the chmod.
    await runSh(session, `umask 077\n${D(dir)}\nmkdir -p "$D" && chmod 700 "$D" && cat > "$D/${f.name}.tmp" && chmod ${mode} "$D/${f.name}.tmp" && mv -f "$D/${f.name}.tmp" "$D/${f.name}"`, {
      what: { step: 'supervisor-write', name: f.name },
      stdin: f.content,
      timeoutMs: opts.timeoutMs,
    });
  }
  await runSh(
    session,
    `${D(dir)}
cd "$D" || exit 3
rm -f ${[SUPERVISOR_FILES.stop, SUPERVISOR_FILES.pid, SUPERVISOR_FILES.heartbeat, SUPERVISOR_FILES.owner, SUPERVISOR_FILES.laptopDone, SUPERVISOR_FILES.deadline, SUPERVISOR_FILES.state, SUPERVISOR_FILES.logOffset, 'armed'].join(' ')}
if command -v setsid >/dev/null 2>&1; then
  setsid python3 -I "$D/${SUPERVISOR_FILES.script}" </dev/null >>"$D/${SUPERVISOR_FILES.output}" 2>&1 &
else
  nohup python3 -I "$D/${SUPERVISOR_FILES.script}" </dev/null >>"$D/${SUPERVISOR_FILES.output}" 2>&1 &
fi
echo started`,
    { what: { step: 'supervisor-start' }, timeoutMs: opts.timeoutMs },
  );
  const deadline = Date.now() + (opts.armTimeoutMs ?? 15000);
  let status = await supervisorStatus(session, config.job, opts);
  while (!(status.heartbeat !== null && (status.running || status.state?.text.startsWith('done')))) {
    if (Date.now() > deadline) throw boxFailed({ code: 'supervisor-not-armed', pid: 'none', running: status.running, outputPath: `${dir}/${SUPERVISOR_FILES.output}` });
    await sleep(250);
    status = await supervisorStatus(session, config.job, opts);
  }
  return status;
}

/** For a shell line: the supervisor folder's file as a word (tests and the status view). */
export function supervisorPath(job: string, name: string): string {
  return `${supervisorDir(job)}/${shQuote(name)}`;
}

// Powering a box off from the box itself, verified. First what the login may do (root, or a
// password-less `sudo -n`): a plain non-root login cannot, and the run is refused that end
// action when it starts. Then the power-off runs detached (the channel dies with the box) with
// its output and exit status kept in a file; the result is the box's SSH endpoint going quiet
// (no SSH banner on a fresh TCP connection) within a bounded time. A command that exits non-zero
// (refused), or an endpoint still answering at the deadline, is a power-off that did not happen.
import { connect } from 'node:net';
import type { BoxPower } from '../../core/guards/powerOffer';
import type { RemoteConnection } from '../../remote/connection';

/** The power-off for a root login (AutoDL documents `shutdown` inside an instance as a stop). */
export const ROOT_POWER_OFF = 'shutdown -h now || poweroff || halt';
/** The same through a password-less sudo (never asks: -n). */
export const SUDO_POWER_OFF = 'sudo -n shutdown -h now || sudo -n poweroff || sudo -n halt';
export const DEFAULT_VERIFY_SECONDS = 120;
const LOG = '~/.gpu-rent/power-off.log';

export interface BoxPowerProbe {
  power: BoxPower;
  user: string;
}

/** Who the login is and whether it may power the box off (root, or `sudo -n true` allowed). */
export async function probeBoxPower(conn: Pick<RemoteConnection, 'exec'>): Promise<BoxPowerProbe> {
  const r = await conn.exec('id -un 2>/dev/null; id -u; if [ "$(id -u)" != 0 ]; then if sudo -n true >/dev/null 2>&1; then echo sudo-ok; else echo sudo-no; fi; fi', { timeoutMs: 15000, login: false, maxOutputBytes: 4096 });
  const lines = r.stdout.split('\n').map((l) => l.trim());
  const user = (lines[0] ?? '').replace(/[^A-Za-z0-9._-]/g, '').slice(0, 64) || '?';
  const uid = lines[1];
  if (uid === '0') return { power: 'root', user };
  if (!/^\d+$/.test(uid ?? '')) return { power: 'unknown', user };
  return { power: lines.includes('sudo-ok') ? 'sudo' : 'none', user };
}

/** The command a login of this kind powers the box off with, or null when it cannot. */
export function boxPowerOffCommand(p: BoxPower): string | null {
  return p === 'root' ? ROOT_POWER_OFF : p === 'sudo' ? SUDO_POWER_OFF : null;
}

/** Whether an SSH server answers at host:port: a TCP connection that sends an SSH banner within the time. */
export function sshAnswers(host: string, port: number, timeoutMs = 5000): Promise<boolean> {
  return new Promise((resolve) => {
    let seen = '';
    const sock = connect({ host, port });
    const done = (v: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.on('data', (b: Buffer) => {
      seen += b.toString('latin1');
      if (seen.startsWith('SSH-')) done(true);
      else if (seen.length >= 4 && !'SSH-'.startsWith(seen.slice(0, 4))) done(false);
      else if (seen.length > 255) done(false);
    });
    sock.on('error', () => done(false));
    sock.on('close', () => done(false));
  });
}

export type BoxPowerOffResult =
  | { ok: true; seconds: number }
  /** The command exited non-zero: what it printed (box text: bounded, the caller renders it as data). */
  | { ok: false; reason: 'refused'; exitCode: number; output: string; seconds: number }
  | { ok: false; reason: 'stillAnswering'; seconds: number };

export interface BoxPowerOffOptions {
  /** How long the endpoint may keep answering (default 120 s). */
  verifySeconds?: number;
  pollMs?: number;
  /** Where the box answers SSH (default: the connection's target). */
  endpoint?: { host: string; port: number };
  /** Tests: another reachability check. */
  answers?: (host: string, port: number) => Promise<boolean>;
  /** The line in English (the log), and its facts for a front end's own words. */
  log?: (line: string, said?: { code: 'power-off-sent'; command: string; seconds: number; host: string; port: number }) => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs the power-off on the box and waits until its SSH endpoint stops answering, or says why it did not. */
export async function powerOffFromBox(conn: Pick<RemoteConnection, 'exec' | 'target'>, command: string, o: BoxPowerOffOptions = {}): Promise<BoxPowerOffResult> {
  const start = Date.now();
  const verifyMs = (o.verifySeconds ?? DEFAULT_VERIFY_SECONDS) * 1000;
  const pollMs = o.pollMs ?? 2000;
  const { host, port } = o.endpoint ?? conn.target;
  const answers = o.answers ?? sshAnswers;
  const seconds = () => Math.round((Date.now() - start) / 1000);
  // Detached, so the command outlives this channel; its output and exit status go to the log.
  await conn.exec(`mkdir -p ~/.gpu-rent && rm -f ${LOG} && (sleep 2; (${command}) >${LOG} 2>&1 </dev/null; echo "gpu-rent-exit=$?" >>${LOG}) >/dev/null 2>&1 </dev/null &`, { timeoutMs: 15000, login: false });
  o.log?.(`power-off sent (${command}); waiting up to ${Math.round(verifyMs / 1000)} s for ${host}:${port} to stop answering`, { code: 'power-off-sent', command, seconds: Math.round(verifyMs / 1000), host, port });
  let quiet = 0;
  for (;;) {
    await sleep(pollMs);
    if (!(await answers(host, port))) {
      // Twice in a row: a single dropped probe on a flaky link is not a stopped box.
      if (++quiet >= 2) return { ok: true, seconds: seconds() };
      continue;
    }
    quiet = 0;
    const log = await conn.exec(`cat ${LOG} 2>/dev/null | head -c 4000`, { timeoutMs: 10000, login: false, maxOutputBytes: 8192 }).then((r) => r.stdout, () => '');
    const m = /gpu-rent-exit=(\d+)\s*$/.exec(log);
    if (m && m[1] !== '0') return { ok: false, reason: 'refused', exitCode: Number(m[1]), output: log.slice(0, m.index).trim().slice(-1000), seconds: seconds() };
    if (Date.now() - start >= verifyMs) return { ok: false, reason: 'stillAnswering', seconds: seconds() };
  }
}

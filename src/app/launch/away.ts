// What the box did while the laptop was away, read without changing anything: for `gpu-rent
// launch --status`, the Instances view's launch rows and VS Code's "ended while you were away".
// The box's supervisor journal is read over SSH when the box is up (an SSH login, or a platform
// instance the platform says is running: never powered on for this, the accounts are read-only
// here), else from the run's store, where the supervisor puts its journal before an end action
// that may power the box off. No claim, no mark, no sync: `launch --resume` does those.
import type { LaunchState } from '../../core/task/launch';
import type { Task } from '../../core/task/types';
import { parseStoreRef } from '../../core/storage/names';
import { parseSupervisorStatus, supervisorStatus, type SupervisorStatus } from '../../remote/guards/supervisor';
import { SUPERVISOR_STORE_JOURNAL } from '../../remote/guards/supervisor-script';
import { PowerOnLocks } from '../platforms/powerLock';
import { SshPool } from '../pool';
import { reacquireBox, type LaunchAccount } from './boxes';
import type { LaunchHost } from './context';
import { errText, isFinished } from './rules';
import { launchDriven, statePath } from './store';

/** What the box's journal says, in the words every front end shows. */
export interface BoxView {
  /** Where it was read: the box itself, or the run's store (the box is off). */
  source: 'box' | 'store';
  /** The supervisor's process is alive (only known when read from the box). */
  running: boolean | null;
  /** Seconds since its last heartbeat, by the box's clock (from the box only). */
  heartbeatAgeSeconds: number | null;
  /** running, ending OUTCOME, acting OUTCOME, claimed, stopped, done OUTCOME [action-failed]. */
  state: string | null;
  /** The box ended the run itself: finished, failed, diverged, budgetStop; null while it runs. */
  outcome: string | null;
  /** The box has finished its end (its message and end action). */
  done: boolean;
  actionFailed: boolean;
  /** The last step its log printed when the run ended (the run-ended event), if it said one. */
  lastStep: number | null;
  /** Checkpoints in the store, oldest first (names: plain characters only, bounded). */
  stored: { name: string; step: number | null }[];
  /** Messages it sent: EVENT/CHANNEL. */
  messaged: string[];
}

export type AwayRead = { kind: 'read'; view: BoxView } | { kind: 'unread'; why: string } | { kind: 'none' };

/** Names the box wrote: bounded, and only characters that are plain in a terminal and in Markdown. */
export const plainName = (n: string): string => n.replace(/[^\p{L}\p{N}._\-=+/]/gu, '?').slice(0, 120);

/** The view of a supervisor's status (the laptop's end step reads the same). */
export function boxViewOf(st: SupervisorStatus, source: BoxView['source']): BoxView {
  const text = st.state?.text ?? null;
  const outcome = text ? (/^(?:done|acting|ending) (\w+)/.exec(text)?.[1] ?? null) : null;
  const sent = st.events.filter((e) => e.kind === 'notify-sent').map((e) => ({ kind: e.detail.split(' ')[0] ?? '', channel: /sent \S+ to (\S+)/.exec(e.detail)?.[1] ?? '' }));
  const ended = [...st.events].reverse().find((e) => e.kind === 'run-ended');
  const step = ended ? /\bstep=(\d{1,15})\b/.exec(ended.detail)?.[1] : undefined;
  return {
    source,
    running: source === 'box' ? st.running : null,
    heartbeatAgeSeconds: source === 'box' && st.now !== null && st.heartbeat !== null ? Math.max(0, st.now - st.heartbeat) : null,
    state: text,
    outcome,
    done: !!text?.startsWith('done'),
    actionFailed: !!text && /action-failed/.test(text),
    lastStep: step !== undefined ? Number(step) : null,
    stored: st.stored.map((x) => ({ name: plainName(x.name), step: x.step })),
    messaged: sent.map((x) => `${plainName(x.kind)}/${plainName(x.channel)}`),
  };
}

export interface AwayReadHost extends Pick<LaunchHost, 'connectOptions' | 'accounts' | 'unattended' | 'signal' | 'configHome'> {
  /** How long the box may take to answer (default 15 s). */
  timeoutMs?: number;
}

/**
 * Reads what the box did for a launch in progress whose supervisor was armed; `none` when there
 * is nothing to read (the launch has ended, or no supervisor was armed).
 */
export async function readAway(s: LaunchState, task: Task, host: AwayReadHost): Promise<AwayRead> {
  if (isFinished(s) || !s.job || !s.unattended || !s.box) return { kind: 'none' };
  // A launch a live gpu-rent drives now (a terminal, a window) has its state fresh from the box: nothing to ask it.
  if (launchDriven(statePath(host.configHome, s.file, s.task))) return { kind: 'none' };
  const timeoutMs = host.timeoutMs ?? 15_000;
  const b = s.box;
  let why = '';
  let accounts: LaunchAccount[] = [];
  if (b.kind === 'platform') {
    // Read-only: never powered on (or released) to read a journal.
    accounts = (await host.accounts().catch(() => [] as LaunchAccount[])).filter((a) => a.id === b.account).map((a) => ({ ...a, powerActions: false }));
    const a = accounts[0];
    const inst = a && b.ref ? await a.connector.get(b.ref, host.signal).catch(() => undefined) : undefined;
    if (!a) why = `no account ${b.account ?? '?'} to ask whether ${b.label} is up`;
    else if (inst && inst.state !== 'running') why = `${b.label} is ${inst.rawState || inst.state}`;
  }
  if (!why) {
    const pool = new SshPool();
    try {
      const box = await reacquireBox(b, task, { accounts, waitForGpuMs: 0, settleMs: 0, intervalMs: 1000, say: () => undefined, confirmCreate: async () => false, createName: s.task, locks: new PowerOnLocks(), ...(host.signal ? { signal: host.signal } : {}) });
      const base = host.connectOptions(box);
      const conn = await pool.get(`away:${b.label}`, box.target, { ...base, ...(box.password ? { password: box.password } : {}), connectTimeoutMs: Math.min(base.connectTimeoutMs ?? timeoutMs, timeoutMs) });
      const st = await supervisorStatus(conn, s.job.name, { timeoutMs });
      if (st.installed) return { kind: 'read', view: boxViewOf(st, 'box') };
      why = `no supervisor on ${b.label}`;
    } catch (e) {
      why = errText(e);
    } finally {
      pool.dispose();
    }
  }
  const fromStore = await readStoreJournal(s, task, host).catch((e: unknown) => `the store: ${errText(e)}`);
  if (typeof fromStore === 'object') return { kind: 'read', view: fromStore };
  return { kind: 'unread', why: fromStore ? `${why}; ${fromStore}` : why };
}

/** The journal the supervisor put in the run's S3 store; a string says why it was not read, undefined: no S3 store. */
async function readStoreJournal(s: LaunchState, task: Task, host: AwayReadHost): Promise<BoxView | string | undefined> {
  const where = s.unattended?.store;
  if (!where || !task.checkpoints?.store) return undefined;
  if (where.startsWith('/')) return `the journal is in ${where} (AutoDL 文件存储), readable from a running instance only`;
  const p = parseStoreRef(task.checkpoints.store);
  if (!p.ok) return undefined;
  const saved = (await host.unattended?.stores())?.find((x) => x.store.name === p.value.name);
  if (!saved || saved.store.kind !== 's3' || !saved.key) return `no key for store ${p.value.name} here`;
  const prefix = where.slice(p.value.name.length + 1);
  const { s3Client, readSmallObject } = await import('../storage/s3');
  const client = await s3Client(saved.store, saved.key);
  try {
    const read = (name: string) => readSmallObject(client, saved.store as never, `${prefix}${SUPERVISOR_STORE_JOURNAL}/${name}`);
    const [state, stored, journal] = await Promise.all([read('state'), read('stored.json'), read('journal.log')]);
    if (state === undefined && journal === undefined) return `no journal in ${where} yet`;
    const st = parseSupervisorStatus(`installed=1\nalive=0\nstate=${(state ?? '').split('\n')[0]}\n@@stored\n${stored ?? ''}\n@@events\n${journal ?? ''}`);
    return boxViewOf(st, 'store');
  } finally {
    client.destroy();
  }
}

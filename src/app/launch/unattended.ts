// Close the lid: what the box does when the laptop is away. Right after the run starts the launch
// arms the on-box supervisor (remote/guards/supervisor.ts) with what it needs and nothing more:
// the checkpoint folder and rules, the run's store grant (a POST policy bound to the run's
// prefix, sizes and a time; never the store's key) or the AutoDL 文件存储 folder, the message
// requests for the task's channels (webhook keys only; an SMTP password never leaves the laptop),
// the budget as seconds by the box's clock, the spot notice of its cloud, and the end the box can
// carry out itself (core/task/unattended.ts). It says at the start what happens if the laptop is
// away at the end. While the laptop is awake it marks itself awake on the box and claims the end
// (its own verified sync, end action and message), so the user sees no change and no event is
// said twice; when it comes back after the box finished, it reads the box's journal and says
// "finished while you were away".
import { boxMaySend } from '../../core/notify/channels';
import { BoxSendRefused, renderBoxSend } from '../../core/notify/box';
import { eventMessage, type NotifyEvent, type NotifyEventKind, type NotifyLang } from '../../core/notify/events';
import { MAX_POST_BYTES, renderBoxUploader, renderPostGrantConfig } from '../../core/storage/grant';
import { AUTODL_FS_ROOT, parseStoreRef } from '../../core/storage/names';
import { unattendedEnd, type UnattendedEnd } from '../../core/task/unattended';
import { PLATFORM_DESCRIPTORS } from '../../core/platforms/descriptors';
import type { TaskCheckpoints } from '../../core/task/types';
import { formatCny } from '../../core/money';
import { trimEndOf } from '../../core/boxLines';
import { spentFen } from '../../core/task/launch';
import { armSupervisor, claimEnd, laptopDone, markLaptopAwake, supervisorDir, supervisorStatus, SupervisorUnavailable, type SupervisorConfig, type SupervisorFile, type SupervisorNotify, type SupervisorStatus } from '../../remote/guards/supervisor';
import { ALIYUN_METADATA_HOST, metadataBase, TENCENT_METADATA_HOST } from '../../remote/guards/watchdog-script';
import { notifyEvent, type EventSend } from '../notify/send';
import type { StoredChannel } from '../notify/channelFile';
import type { SavedStore } from '../storage/stores';
import { probeBoxPower, ROOT_POWER_OFF, SUDO_POWER_OFF } from '../runs/boxPower';
import type { LaunchRun } from './context';
import { errText } from './rules';
import { resolve } from 'node:path';
import { boxViewOf } from './away';
import { SUPERVISOR_STORE_JOURNAL } from '../../remote/guards/supervisor-script';
import { awayWords } from './words';

/** What the front end gives the launch for the unattended end: the user's stores and channels (with their secrets), the laptop's sent journal. */
export interface UnattendedHost {
  stores(): Promise<SavedStore[]>;
  channels(): Promise<StoredChannel[]>;
  /** The laptop's sent-message journal (a file): an event sent once is not sent again. */
  sentJournal?: string;
  lang: NotifyLang;
}

/** The box's events the supervisor can message, each once per run attempt. */
const BOX_EVENTS = ['finished', 'failed', 'diverged', 'budgetStop', 'spotReclaimed', 'endActionFailed'] as const;
type BoxEvent = (typeof BOX_EVENTS)[number];

/** How often the awake laptop marks itself on the box (the supervisor counts it away after laptopAwaySeconds). */
// Away after 90 s without a mark (marks every 20 s): the box ends a run within 90 s + one poll of its end, under two minutes, however close to the end the lid closed.
export const LAPTOP_MARK_SECONDS = 20;
export const LAPTOP_AWAY_SECONDS = 90;
/** How long the box waits for an awake laptop to claim the end before it acts itself. */
export const CLAIM_GRACE_SECONDS = 600;

interface Memo {
  armed: boolean;
  /** The arm failed once (no python3, a store or channel that cannot be prepared): not tried again every poll. */
  failed: boolean;
  lastMark: number;
  /** Marks the laptop awake on its own clock, also through long syncs and the end step (not only between watch polls). */
  timer?: ReturnType<typeof setInterval>;
}
const memos = new WeakMap<LaunchRun, Memo>();
const memo = (r: LaunchRun): Memo => {
  let m = memos.get(r);
  if (!m) memos.set(r, (m = { armed: false, failed: false, lastMark: 0 }));
  return m;
};

/** The event id both senders use, so the journal on either side dedupes it: one per run attempt. */
export function eventId(r: LaunchRun, kind: NotifyEventKind): string {
  return `${r.task.name}:${Math.floor(r.s.job?.startedAt ?? r.s.startedAt)}:${kind}`;
}

const storeRef = (c: TaskCheckpoints | undefined): string | undefined => c?.store;

/** Seconds the budget left buys at the boxes' rate; null without a budget or a price. */
function budgetSeconds(r: LaunchRun): number | null {
  const burn = r.burn;
  if (r.task.budgetFen === undefined || burn === null || burn <= 0) return null;
  const spent = spentFen(r.s, r.now());
  if (spent.unknown) return null;
  return Math.max(0, Math.floor(((r.task.budgetFen - spent.fen) / burn) * 3600));
}

async function storePlan(r: LaunchRun, host: UnattendedHost | undefined): Promise<{ store: SupervisorConfig['store']; files: SupervisorFile[]; where: string | null }> {
  const ref = storeRef(r.task.checkpoints);
  if (!ref) return { store: null, files: [], where: null };
  const p = parseStoreRef(ref);
  if (!p.ok) throw new Error(p.message);
  const saved = (await host?.stores())?.find((s) => s.store.name === p.value.name);
  if (!saved) throw new Error(`no store named ${p.value.name} (gpu-rent storage add ${p.value.name} …)`);
  // One prefix per launch (its start, UTC): a later launch of the same task, on another box, cannot overwrite this one's checkpoints.
  const stamp = new Date(Math.floor(r.s.startedAt) * 1000).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const prefix = `${p.value.prefix ? `${trimEndOf(p.value.prefix, '/')}/` : ''}${r.task.name}/${stamp}/`;
  if (saved.store.kind === 'autodl-fs') return { store: { kind: 'folder', dir: `${AUTODL_FS_ROOT}/${prefix}` }, files: [], where: `${AUTODL_FS_ROOT}/${prefix}` };
  if (!saved.key) throw new Error(`store ${saved.store.name} has no key on this machine`);
  const { s3Client } = await import('../storage/s3');
  const { createUploadGrant } = await import('../storage/grant');
  const client = await s3Client(saved.store, saved.key);
  try {
    const grant = await createUploadGrant(client, saved.store, { prefix, maxBytes: MAX_POST_BYTES, runBoundS: budgetSeconds(r) ?? 7 * 86400 });
    return {
      store: { kind: 'post', uploader: `${supervisorDir(r.task.name)}/upload.sh`, grant: `${supervisorDir(r.task.name)}/upload.grant` },
      files: [
        { name: 'upload.grant', content: renderPostGrantConfig(grant), mode: 0o600 },
        { name: 'upload.sh', content: renderBoxUploader({ prefix: grant.prefix, maxBytes: grant.maxBytes }), mode: 0o700 },
      ],
      where: `${saved.store.name}/${prefix}`,
    };
  } finally {
    client.destroy();
  }
}

function boxEvent(r: LaunchRun, kind: BoxEvent): NotifyEvent {
  const common = { task: r.task.name, step: { slot: 'step' as const }, costFen: { slot: 'cost' as const }, instance: r.s.box?.label ?? null };
  switch (kind) {
    case 'finished':
      return { ...common, kind };
    case 'failed':
      return { ...common, kind, exitCode: { slot: 'exit' } };
    case 'diverged':
      return { ...common, kind, stopped: true };
    case 'budgetStop':
      return { ...common, kind, budgetFen: r.task.budgetFen ?? 0 };
    case 'spotReclaimed':
      return { ...common, kind };
    case 'endActionFailed':
      return { ...common, kind, action: 'power-off', reason: null, hourlyFen: r.burn };
  }
}

async function notifyPlan(r: LaunchRun, host: UnattendedHost | undefined): Promise<{ notify: SupervisorNotify; files: SupervisorFile[]; laptopOnly: string[]; missing: string[] }> {
  const names = r.task.notify ?? [];
  const notify: SupervisorNotify = {};
  const files = new Map<string, SupervisorFile>();
  const laptopOnly: string[] = [];
  const missing: string[] = [];
  if (!names.length) return { notify, files: [], laptopOnly, missing };
  const channels = (await host?.channels()) ?? [];
  // Absolute: the sender opens its journal without a shell to expand ~.
  const dir = r.live ? `${trimEndOf(r.live.home, '/')}/${supervisorDir(r.task.name).slice(2)}` : supervisorDir(r.task.name);
  for (const name of names) {
    const ch = channels.find((c) => c.channel.name === name);
    if (!ch) {
      missing.push(name);
      continue;
    }
    if (!boxMaySend(ch.channel.kind)) {
      laptopOnly.push(name);
      continue;
    }
    for (const kind of BOX_EVENTS) {
      try {
        const plan = renderBoxSend(ch.channel, ch.secret, eventMessage(boxEvent(r, kind), ch.channel.lang ?? host?.lang ?? 'en'), { dir, journal: `${dir}/sent.jsonl`, eventId: eventId(r, kind), lang: ch.channel.lang ?? host?.lang ?? 'en' });
        // Short file names: a long task name and a long channel name must not make the arm fail.
        const argv = [...plan.argv];
        for (const f of plan.files) {
          const base = f.path.slice(f.path.lastIndexOf('/') + 1);
          const short = base.endsWith('.py') ? base : `notify-${files.size}.json`;
          files.set(short, { name: short, content: f.content, mode: 0o600 });
          for (let i = 0; i < argv.length; i++) if (argv[i] === f.path) argv[i] = `${f.path.slice(0, f.path.lastIndexOf('/') + 1)}${short}`;
        }
        (notify[kind] ??= []).push(argv);
      } catch (e) {
        if (e instanceof BoxSendRefused && e.code === 'laptop-only') laptopOnly.push(name);
        else throw e;
      }
    }
  }
  return { notify, files: [...files.values()], laptopOnly: [...new Set(laptopOnly)], missing };
}

/**
 * Arms the supervisor for the run just started (single-node runs). Never fails the launch: a box
 * without python3, or a store or channel that cannot be prepared, is said in the launch's lines
 * (the run then goes on guarded by the laptop alone, as before).
 */
export async function armUnattended(r: LaunchRun): Promise<void> {
  const live = r.live;
  const m = memo(r);
  if (!live || r.others.length || !r.s.job) return;
  const host = r.host.unattended;
  try {
    // A test's stand-in power-off runs as any user (it powers nothing off).
    const power = r.host.boxPowerOffCommand ? 'root' : (await probeBoxPower(live.conn).catch(() => ({ power: 'unknown' as const }))).power;
    const kind = live.box.kind === 'platform' ? r.account(live.box.account)?.connector.kind : undefined;
    const d = kind ? PLATFORM_DESCRIPTORS[kind] : undefined;
    const end = unattendedEnd({ platform: d ? { keepChargingStopBills: d.keepChargingStopBills, insideShutdownIsStop: d.insideShutdownIsStop === true } : null, power, end: r.task.end, ...(r.task.endUnattended ? { chosen: r.task.endUnattended } : {}) });
    const store = await storePlan(r, host);
    const msgs = await notifyPlan(r, host);
    const spotCloud = r.s.box?.spot ? (d?.spotNotice ?? null) : null;
    const burn = r.burn;
    const spent = spentFen(r.s, r.now());
    const cfg: SupervisorConfig = {
      job: r.s.job.name,
      pollSeconds: Math.max(1, Math.min(10, Math.round((r.host.pollMs ?? 10_000) / 1000))),
      checkpoints: r.task.checkpoints && live.remoteCheckpoints ? { dir: live.remoteCheckpoints, everySeconds: r.task.checkpoints.everySeconds, ...(r.task.checkpoints.patterns ? { patterns: r.task.checkpoints.patterns } : {}) } : null,
      store: store.store,
      divergeAfter: r.o.diverged && r.o.diverged.onDiverged !== 'off' ? r.o.diverged.readings : null,
      budgetSeconds: budgetSeconds(r),
      bill: burn !== null && !spent.unknown ? { spentFen: spent.fen, fenPerHour: burn } : null,
      spot: spotCloud ? { cloud: spotCloud, base: metadataBase(r.host.spotMetadataHost ?? (spotCloud === 'aliyun' ? ALIYUN_METADATA_HOST : TENCENT_METADATA_HOST)) } : null,
      end: end.powerOff ? { action: 'power-off', command: r.host.boxPowerOffCommand ?? (power === 'root' ? ROOT_POWER_OFF : SUDO_POWER_OFF) } : { action: 'none', command: null },
      notify: msgs.notify,
      laptopAwaySeconds: r.host.laptopAwaySeconds ?? LAPTOP_AWAY_SECONDS,
      graceSeconds: CLAIM_GRACE_SECONDS,
    };
    await armSupervisor(live.conn, cfg, [...store.files, ...msgs.files]);
    await markLaptopAwake(live.conn, cfg.job);
    m.armed = true;
    m.lastMark = r.now();
    startMarking(r);
    await r.save(awayLine(r, end, store.where, msgs), { unattended: { powerOff: end.powerOff, store: store.where } });
  } catch (e) {
    m.failed = true;
    if (e instanceof SupervisorUnavailable) await r.save(r.l10n.t('away: the box has no python3, so nothing finishes the run there while this laptop is away: keep it awake, or come back with gpu-rent launch --resume'));
    else await r.save(r.l10n.t('away: the on-box supervisor could not be armed ({0}); the run is guarded by this laptop alone', errText(e)));
  }
}

/** The start's line: what happens if the laptop is away when the run ends. */
function awayLine(r: LaunchRun, end: UnattendedEnd, where: string | null, msgs: { laptopOnly: string[]; missing: string[] }): string {
  const parts: string[] = [];
  if (r.task.checkpoints) parts.push(where ? r.l10n.t('stores each complete checkpoint in {0} (verified)', where) : r.l10n.t('keeps the checkpoints on its disk (no checkpoints.store: they come home when you are back)'));
  const sent = (r.task.notify ?? []).filter((n) => !msgs.laptopOnly.includes(n) && !msgs.missing.includes(n));
  if (sent.length) parts.push(r.l10n.t('messages {0}', sent.join(', ')));
  if (msgs.laptopOnly.length) parts.push(r.l10n.t('{0}: not sent while this laptop is away (an email password never goes to the box)', msgs.laptopOnly.join(', ')));
  if (msgs.missing.length) parts.push(r.l10n.t('no channel named {0} (gpu-rent notify add)', msgs.missing.join(', ')));
  const rate = r.burn !== null ? formatCny(r.burn) : '?';
  switch (end.why) {
    case 'autodl-shutdown':
    case 'ssh-power-off':
      parts.push(end.laterOnLaptop ? r.l10n.t('then powers itself off (the GPU stops billing; {0} is done when you are back)', end.laterOnLaptop) : r.l10n.t('then powers itself off (the GPU stops billing; the disks bill on)'));
      break;
    case 'task-keeps-running':
      parts.push(r.l10n.t('then keeps running, as end: none asks ({0}/h)', rate));
      break;
    case 'chosen-none':
      parts.push(r.l10n.t('then keeps billing until you are back, as end_unattended: none asks ({0}/h)', rate));
      break;
    case 'cloud-keeps-billing':
      parts.push(r.l10n.t('then keeps billing until you are back ({0}/h): a shutdown from inside does not stop this cloud’s meter, and no platform token goes to the box', rate));
      break;
    case 'not-root':
      parts.push(r.l10n.t('then keeps billing until you are back ({0}/h): this login cannot shut the box down (not root, no sudo -n)', rate));
      break;
    case 'platform-unknown':
      parts.push(r.l10n.t('then keeps billing until you are back ({0}/h)', rate));
      break;
  }
  return r.l10n.t('away: if this laptop is away when the run ends, the box {0}', parts.join('; '));
}

/** Each watch poll: the laptop is awake (marked at most every LAPTOP_MARK_SECONDS). Also arms a run resumed from an earlier process. */
export async function laptopAwake(r: LaunchRun): Promise<void> {
  const m = memo(r);
  if (!r.live || !r.s.job) return;
  if (!m.armed) {
    if (m.failed) return;
    const st = await supervisorStatus(r.live.conn, r.s.job.name).catch(() => undefined);
    if (st?.running) {
      m.armed = true;
      startMarking(r);
    } else if (!st?.state?.text.startsWith('done') && !st?.state?.text.startsWith('acting')) return armUnattended(r);
    else return;
  }
  if (r.now() - m.lastMark < Math.min(LAPTOP_MARK_SECONDS, (r.host.laptopAwaySeconds ?? LAPTOP_AWAY_SECONDS) / 4)) return;
  m.lastMark = r.now();
  await markLaptopAwake(r.live.conn, r.s.job.name).catch(() => undefined);
}

function startMarking(r: LaunchRun): void {
  const m = memo(r);
  if (m.timer) return;
  const every = Math.max(1, Math.min(LAPTOP_MARK_SECONDS, (r.host.laptopAwaySeconds ?? LAPTOP_AWAY_SECONDS) / 4));
  m.timer = setInterval(() => {
    const conn = r.live?.conn;
    const job = r.s.job?.name;
    if (conn && job) {
      m.lastMark = r.now();
      void markLaptopAwake(conn, job).catch(() => undefined);
    }
  }, every * 1000);
  m.timer.unref?.();
}

/** The launch has ended its end step: the supervisor that stood down for it may exit, and the marks stop. */
export async function endUnattended(r: LaunchRun, laptopOwned: boolean): Promise<void> {
  const m = memo(r);
  if (m.timer) clearInterval(m.timer);
  m.timer = undefined;
  if (laptopOwned && r.live && r.s.job) await laptopDone(r.live.conn, r.s.job.name).catch(() => undefined);
}

/** What the box did while the laptop was away, once the laptop is back at the end (undefined: nothing, or it cannot be read). */
export interface AwayReport {
  status: SupervisorStatus;
  /** The box ended the run itself: its outcome (finished, failed, diverged, budgetStop) and whether its end action failed. */
  outcome: string | null;
  actionFailed: boolean;
  messaged: string[];
}

/**
 * At the end step, before the laptop's own sync and end action: take the end over from the
 * box, or, if the box already ended the run while the laptop was away, read what it did.
 */
export async function takeOverEnd(r: LaunchRun): Promise<AwayReport | undefined> {
  if (!r.live || !r.s.job) return undefined;
  const conn = r.live.conn;
  const job = r.s.job.name;
  let st = await supervisorStatus(conn, job).catch(() => undefined);
  if (!st?.installed) return undefined;
  if (!st.state?.text.startsWith('done')) {
    const owner = await claimEnd(conn, job).catch(() => 'unknown' as const);
    if (owner === 'laptop' || owner === 'none' || owner === 'unknown') return undefined;
    // The box took the end first (the laptop was away when the run ended): let it finish, then read what it did.
    for (let i = 0; i < 90 && !st?.state?.text.startsWith('done'); i++) {
      await r.sleep(2000);
      st = await supervisorStatus(conn, job).catch(() => st);
    }
  }
  if (!st) return undefined;
  const view = boxViewOf(st, 'box');
  const report: AwayReport = { status: st, outcome: view.outcome, actionFailed: view.actionFailed, messaged: view.messaged };
  await r.save(awayWords(view, r.l10n));
  return report;
}

/**
 * The laptop's own message for the run's end (the box did not send it: the laptop was awake,
 * or the channel is laptop-only). Each channel once per event id, through the laptop's journal;
 * an event the box's journal shows as sent is skipped.
 */
export async function laptopMessage(r: LaunchRun, ev: NotifyEvent, away: AwayReport | undefined): Promise<void> {
  const host = r.host.unattended;
  const names = r.task.notify ?? [];
  if (!host || !names.length) return;
  const channels = await host.channels().catch(() => [] as StoredChannel[]);
  // Per channel: one the box reached for this event is skipped; one it failed to reach gets it from here.
  const boxSent = new Set(away?.messaged ?? []);
  const sends: EventSend[] = channels.filter((c) => names.includes(c.channel.name) && !boxSent.has(`${ev.kind}/${c.channel.name}`)).map((c) => ({ channel: c.channel, secret: c.secret }));
  if (!sends.length) return;
  const res = await notifyEvent(eventId(r, ev.kind), ev, sends, { lang: host.lang, by: 'laptop', ...(host.sentJournal ? { journal: host.sentJournal } : {}) }).catch((e: unknown) => [{ channel: '*', status: 'failed' as const, code: 'failed', message: errText(e) }]);
  for (const x of res) if (x.status === 'failed') await r.save(r.l10n.t('message to {0} failed: {1}', x.channel, x.message));
}

/**
 * A resumed launch whose platform box is stopped while its supervisor could power it off: the
 * box ended the run while the laptop was away. Never power it on with a GPU just to read what it
 * did: the checkpoints come home from the run's store (verified), and the box is read in no-GPU
 * mode where the platform offers one (then the launch goes on as usual: true = continue).
 * Where neither works the launch stops with what to do, its state kept for a later --resume.
 */
export async function resumeAfterBoxPowerOff(r: LaunchRun): Promise<'continue' | 'notStopped'> {
  const b = r.s.box;
  const a = b?.kind === 'platform' ? r.account(b.account) : undefined;
  if (!b || !a || !b.ref || !r.s.unattended?.powerOff) return 'notStopped';
  const inst = await a.connector.get(b.ref, r.host.signal).catch(() => undefined);
  if (inst?.state !== 'stopped') return 'notStopped';
  const home = await pullFromStore(r).catch((e: unknown) => r.l10n.t('could not bring the checkpoints home from the store ({0})', errText(e)));
  await r.save(r.l10n.t('away: {0} is stopped: its supervisor ended the run and powered it off while you were away{1}', b.label, home ? `; ${home}` : ''));
  const noGpu = a.powerActions && a.connector.capabilities.includes('powerOn:noGpu');
  if (noGpu) {
    await r.save(r.l10n.t('away: starting {0} without a GPU (no GPU bills) to read what the box did and sync', b.label));
    await a.connector.powerOn(b.ref, 'noGpu', r.host.signal);
    const { waitForState, TARGET } = await import('../platforms/settle');
    const w = await waitForState(a.connector, b.ref, TARGET.powerOnNoGpu, { deadlineMs: r.host.settleMs ?? 300_000, intervalMs: r.host.settleIntervalMs ?? 3000, ...(r.host.signal ? { signal: r.host.signal } : {}) });
    if (w.settled) return 'continue';
  }
  throw new Error(
    r.l10n.t('{0} stays off: powering it on with a GPU only to read what its supervisor did would bill the GPU. {1}To finish: gpu-rent power-on {2} (it bills while on), then gpu-rent launch --resume', b.label, home ? '' : r.l10n.t('Its checkpoints are on its disk (no checkpoints.store). '), b.ref),
  );
}

/** The run's checkpoints from its S3 store into checkpoints.local, verified; undefined when the task has no S3 store. */
async function pullFromStore(r: LaunchRun): Promise<string | undefined> {
  const where = r.s.unattended?.store;
  const c = r.task.checkpoints;
  if (!where || !c?.store || where.startsWith('/')) return undefined;
  const p = parseStoreRef(c.store);
  if (!p.ok) return undefined;
  const saved = (await r.host.unattended?.stores())?.find((s) => s.store.name === p.value.name);
  if (!saved || saved.store.kind !== 's3' || !saved.key) return undefined;
  const prefix = where.slice(p.value.name.length + 1);
  const { s3Client, pullPrefix } = await import('../storage/s3');
  const client = await s3Client(saved.store, saved.key);
  try {
    const local = resolve(r.base, c.local);
    // The supervisor's journal (SUPERVISOR_STORE_JOURNAL) stays in the store: it is not a checkpoint.
    const events = await pullPrefix(client, saved.store, prefix, local, { skip: (rel) => rel.startsWith(`${SUPERVISOR_STORE_JOURNAL}/`) });
    return r.l10n.t('{0} files brought home from {1} (verified by SHA-256)', events.filter((e) => e.kind === 'done' || e.kind === 'skip').length, where);
  } finally {
    client.destroy();
  }
}

// The acquire step: the catalog's quote, then a box (the task's candidates in order: an SSH
// login, a named platform instance powered on, a new one created), connected; a multi-node run
// takes the first `nodes` candidates. After a restart, `reconnect` finds the same boxes again.
import { formatCny } from '../../core/money';
import { nextCandidate, type LaunchBox } from '../../core/task/launch';
import { builtinCatalog, dating, formatDating } from '../../core/catalog';
import { quoteTask } from '../../core/task/quote';
import { acquireBox, AcquireError, reacquireBox, type AcquiredBox, type LaunchAccount } from './boxes';
import { poolKey, type LaunchRun, type Live } from './context';
import { boxRecord, createdSoFar, createName, errText, onBox } from './rules';
import { endCheckOf, endRefusedOnBox } from './endCheck';
import { leaveBox } from './reclaim';
import { noGpuFenPerHour, wantsStaging } from './stage';

/** The box connected: its home, and the task's workdir and checkpoints folders on it. */
export async function connect(r: LaunchRun, box: AcquiredBox): Promise<Live> {
  const opts = { ...r.host.connectOptions(box), ...(box.password ? { password: box.password } : {}) };
  const conn = await r.pool.get(poolKey(box), box.target, opts);
  const h = await conn.exec('printf %s "$HOME"', { login: false, timeoutMs: 30000 });
  const home = h.stdout.trim().slice(0, 4096);
  if (!home.startsWith('/')) throw new Error(`the box did not say where its home is (${JSON.stringify(h.stdout.slice(0, 80))})`);
  const remoteWorkdir = onBox(r.task.remoteWorkdir, home);
  return { box, conn, home, remoteWorkdir, ...(r.task.checkpoints ? { remoteCheckpoints: onBox(r.task.checkpoints.remote, home, remoteWorkdir) } : {}) };
}

/** What boxes.ts needs to get a box: the accounts, the waits, the create question and name, the power-on locks (and, for a first acquisition, the end check). */
function acquireOptions(r: LaunchRun, name: string, endCheck?: 'named' | 'new') {
  return {
    ...(endCheck ? { endCheck: endCheckOf(r, endCheck === 'new') } : {}),
    accounts: r.accounts,
    waitForGpuMs: r.host.waitForGpuMs ?? 3600_000,
    settleMs: r.host.settleMs ?? 300_000,
    intervalMs: r.host.settleIntervalMs ?? 3000,
    ...(r.host.signal ? { signal: r.host.signal } : {}),
    say: (l: string) => void r.save(l),
    confirmCreate: async (what: string) => r.o.yes || ((await r.host.confirmCreate?.(what)) ?? false),
    createName: name,
    locks: r.locks,
    taskDir: r.base,
    // Stage without the GPU: a stopped instance is started without it for the push and setup (stage.ts).
    ...(wantsStaging(r) ? { stageNoGpu: { fenPerHour: (a: LaunchAccount) => noGpuFenPerHour(r, a) } } : {}),
  };
}

/** The boxes of the launch in progress again (after a restart or a dropped connection). */
export async function reconnect(r: LaunchRun): Promise<void> {
  const b = r.s.box;
  if (!b) return r.phase('acquire');
  const box = await reacquireBox(b, r.task, acquireOptions(r, b.label));
  r.live = await connect(r, box);
  r.others = [];
  for (const n of r.s.nodes ?? []) r.others.push(await connect(r, await reacquireBox(n, r.task, acquireOptions(r, n.label))));
}

/** A box's price per hour in words: `¥1.98/h`, or that it is not known. */
const priceWords = (r: LaunchRun, fen: number | null) => (fen === null ? r.l10n.t('? ¥/h (price not known)') : `${formatCny(fen)}/h`);

/** The catalog's view of the task before anything is rented: the cheapest fitting cards, with source and date. */
async function quote(r: LaunchRun): Promise<void> {
  const q = quoteTask(r.o.catalog ?? builtinCatalog(), r.task);
  if (!q.rows.length) {
    const why = { noCard: r.l10n.t('no platform in the catalog prices these cards'), overCap: r.l10n.t('every catalog price is over max_yuan_per_hour'), noPlatform: r.l10n.t('none of the platforms allowed is in the catalog') }[q.empty!];
    return r.save(r.l10n.t('quote: {0}', why));
  }
  const top = q.rows.slice(0, 3).map((x) => `${x.card}${x.gpus > 1 ? ` × ${x.gpus}` : ''} on ${x.platformName.en}${x.mode === 'spot' ? ' (spot)' : ''} ${formatCny(x.fenPerHour.min)}${x.fenPerHour.max !== x.fenPerHour.min ? `–${formatCny(x.fenPerHour.max)}` : ''}/h (${x.source}, ${formatDating(dating(x))})`);
  return r.save(r.l10n.t('quote: cheapest in the catalog: {0}', top.join('; ')));
}

/** A multi-node run: the first `nodes` candidates, every one of them, rank 0 first. */
async function acquireNodes(r: LaunchRun, n: number): Promise<void> {
  if (r.task.instances.length < n) return r.finish('noBox', `nodes: ${n} needs ${n} instances; the task names ${r.task.instances.length}`);
  const records: LaunchBox[] = [];
  const lives: Live[] = [];
  for (let i = 0; i < n; i++) {
    const cand = r.task.instances[i]!;
    const created = records.filter((b) => b.created).length;
    const box = await acquireBox(cand, r.task, acquireOptions(r, createName(r.task.name, created), cand.kind === 'new' ? 'new' : 'named'));
    const record = boxRecord(box, i, r.now());
    records.push(record);
    await r.save(r.l10n.t('acquired rank {0}: {1} at {2}', i, record.label, priceWords(r, box.priceFenPerHour)), { box: records[0], nodes: records.slice(1) });
    const live = await connect(r, box);
    lives.push(live);
    const refused = await endRefusedOnBox(r, live);
    if (refused) {
      r.live = lives[0];
      r.others = lives.slice(1);
      return r.finish('refused', refused);
    }
  }
  r.live = lives[0];
  r.others = lives.slice(1);
  return r.phase('check', r.l10n.t('connected to {0} nodes', n));
}

export async function acquire(r: LaunchRun): Promise<void> {
  if (!r.s.box && !r.s.boxes.length) await quote(r);
  if (await r.budgetStops()) return r.finish('budget', r.stopReason!.detail);
  if ((r.task.nodes ?? 1) > 1) return acquireNodes(r, r.task.nodes!);
  const kinds = r.task.instances.map((i) => (i.kind === 'new' ? ('new' as const) : ('existing' as const)));
  const reasons: string[] = [];
  for (;;) {
    const i = nextCandidate(r.s, kinds);
    if (i === null) return r.finish('noBox', reasons.length ? r.l10n.t('no instance could be had: {0}', reasons.join('; ')) : r.l10n.t('every instance the task names was lost'));
    const cand = r.task.instances[i]!;
    const name = createName(r.task.name, createdSoFar(r.s));
    await r.save(r.l10n.t('acquire: {0}', cand.kind === 'ssh' ? r.l10n.t('SSH login') : cand.kind === 'new' ? r.l10n.t('a new instance ({0})', r.task.resources.cards.join(', ') || r.l10n.t('any card')) : cand.kind === 'named' ? r.l10n.t('instance {0}', cand.ref) : ''));
    try {
      const box = await acquireBox(cand, r.task, acquireOptions(r, name, cand.kind === 'new' ? 'new' : 'named'));
      const record = boxRecord(box, i, r.now());
      await r.save(r.l10n.t('acquired {0} at {1}', record.label, priceWords(r, box.priceFenPerHour)) + (box.spot ? r.l10n.t(' (spot)') : ''), { box: record });
      try {
        r.live = await connect(r, box);
      } catch (e) {
        await r.save(r.l10n.t('could not connect to {0}: {1}', record.label, errText(e)));
        // A platform box powered on or created for this launch is powered off (or released) before it is left: it must not bill on.
        // One that was already running is left as it was found.
        const left = box.created || box.poweredOn ? await leaveBox(r, record, 'failed') : { ...record, leftAt: r.now(), leftBecause: 'failed' as const };
        await r.save(undefined, { boxes: [...r.s.boxes, left], box: undefined });
        reasons.push(`${record.label}: ${errText(e)}`);
        continue;
      }
      // A power-off the login itself would do, checked against what it may do, before anything is pushed or run.
      const refused = await endRefusedOnBox(r, r.live);
      if (refused) return r.finish('refused', refused);
      // A staged box has no GPU yet: the check comes once it is restarted with it (after the setup).
      if (box.staged) return r.phase('push', r.l10n.t('connected to {0} without its GPU (no-GPU rate {1}): push and setup first', record.label, priceWords(r, box.priceFenPerHour)));
      return r.phase('check', r.l10n.t('connected to {0}', record.label));
    } catch (e) {
      if (e instanceof AcquireError && e.code === 'endRefused') throw e;
      if (!(e instanceof AcquireError) || cand.kind === 'new') throw e;
      reasons.push(e.message);
      // An existing candidate that cannot be had is skipped for this launch.
      await r.save(r.l10n.t('skipped: {0}', e.message), { boxes: [...r.s.boxes, { candidate: i, kind: cand.kind === 'ssh' ? 'ssh' : 'platform', label: (cand.kind === 'ssh' ? cand.login : cand.ref).slice(0, 300), priceFenPerHour: null, spot: false, acquiredAt: r.now(), leftAt: r.now(), leftBecause: 'failed' }] });
    }
  }
}

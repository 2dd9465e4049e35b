// Stage without the GPU (issue 43): a stopped platform instance whose platform offers a no-GPU
// start (AutoDL's console) is started without its GPU for the push, the environment, the
// downloads and the setup (boxes.ts's stagedBox), at the no-GPU rate; once the setup is done it is
// powered off and started again with its GPU for the check and the run, so the GPU bills from a
// few seconds before the run's first line. A host with no free card then waits as a power-on
// does (the box is off meanwhile: only its disk bills). The staging's seconds and rate stay on
// the box record (LaunchBox.stage): the spend counts them at the no-GPU rate and the status says
// what they saved.
import { formatCny, type Fen } from '../../core/money';
import { CATALOG_PLATFORM } from '../../core/platforms/types';
import { builtinCatalog } from '../../core/catalog';
import { stagingSavedFen } from '../../core/task/launch';
import { TARGET, waitForState } from '../platforms/settle';
import { powerOnWithGpu, type LaunchAccount } from './boxes';
import { poolKey, type LaunchRun, type Live } from './context';
import { errText } from './rules';

/** The no-GPU rate of the account's platform in the catalog (fen per hour; null: not known). */
export function noGpuFenPerHour(r: LaunchRun, a: LaunchAccount): Fen | null {
  const id = CATALOG_PLATFORM[a.connector.kind];
  const p = (r.o.catalog ?? builtinCatalog()).platforms.find((x) => x.id === id);
  return p?.noGpuMode.hourlyRate?.max ?? null;
}

/** Whether a first acquisition stages: one box, something to set up (a push alone is quick), not yet set up. */
export function wantsStaging(r: LaunchRun): boolean {
  if ((r.task.nodes ?? 1) > 1 || r.s.setupDone) return false;
  if (r.s.box && !r.s.box.staged) return false;
  const fetches = r.task.data.filter((d) => d.fetch || d.from).length;
  return fetches + r.task.setup.length > 0 || !!r.task.environment;
}

/** After the setup: a staged box is restarted with its GPU (then the check, then the run); any other goes on to the run. */
export async function afterSetup(r: LaunchRun): Promise<void> {
  const b = r.s.box;
  if (!b?.staged) return r.phase('run');
  const a = b.account ? r.account(b.account) : undefined;
  if (!a || !b.ref) return r.finish('failed', `${b.label}: its platform account is not available to start it with the GPU`);
  const stagedSeconds = Math.max(0, r.now() - b.acquiredAt);
  await r.save(r.l10n.t('staged without the GPU for {0} min: restarting {1} with its GPU for the check and the run', Math.round(stagedSeconds / 6) / 10, b.label));
  if (r.live) r.pool.invalidate(poolKey(r.live.box));
  r.live = undefined;
  const signal = r.host.signal;
  const settle = { deadlineMs: r.host.settleMs ?? 300_000, intervalMs: r.host.settleIntervalMs ?? 3000, ...(signal ? { signal } : {}) };
  await a.connector.powerOff(b.ref, 'keep', signal);
  const off = await waitForState(a.connector, b.ref, TARGET.powerOff, settle);
  if (!off.settled) return r.finish('failed', r.l10n.t('{0} did not power off after the staging; it may still bill at the no-GPU rate', b.label));
  const on = await powerOnWithGpu(a, b.ref, {
    locks: r.locks,
    waitForGpuMs: r.host.waitForGpuMs ?? 3600_000,
    settleMs: settle.deadlineMs,
    intervalMs: settle.intervalMs,
    ...(signal ? { signal } : {}),
    onNoCard: (attempt) => void r.save(r.l10n.t('no card free on its host yet ({0} tries); the box is off meanwhile (only its disk bills). gpu-rent clone copies it to a host with free cards', attempt)),
  });
  if (on.kind === 'notStarted') {
    const w = on.wait;
    return r.finish('noBox', r.l10n.t('{0} could not be started with its GPU after the staging: {1}', b.label, w.kind === 'refused' ? w.failure.message : w.kind === 'gaveUp' ? r.l10n.t('no free card within {0} s', Math.round(w.waitedMs / 1000)) : w.kind));
  }
  if (on.kind === 'notRunning') return r.finish('failed', r.l10n.t('{0} was started with its GPU but is not running after {1} s', b.label, Math.round(settle.deadlineMs / 1000)));
  const stage = { seconds: stagedSeconds, fenPerHour: b.priceFenPerHour };
  // The GPU's price, and the login (a power cycle may give a new port and password), as a reconnect finds them.
  const { reconnect } = await import('./acquire');
  await r.save(undefined, { box: { ...b, staged: false, stage, acquiredAt: r.now() } });
  try {
    await reconnect(r);
  } catch (e) {
    return r.finish('failed', r.l10n.t('could not connect to {0} after starting it with its GPU: {1}', b.label, errText(e)));
  }
  const gpu = (r.live as Live | undefined)?.box.priceFenPerHour ?? null;
  const box = { ...r.s.box!, priceFenPerHour: gpu };
  const saved = stagingSavedFen(box);
  await r.save(undefined, { box });
  return r.phase('check', r.l10n.t('{0} is running with its GPU{1}', b.label, saved !== null ? r.l10n.t(' (staging saved {0})', formatCny(saved)) : ''));
}

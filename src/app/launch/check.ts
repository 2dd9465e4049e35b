// The check step: the doctor on every box before anything is pushed; a red verdict stops the
// launch (outcome doctor) before hours are paid for a box that cannot train.
import { probeInstance, verdictLevel } from '../probe';
import type { LaunchRun, Live } from './context';

export async function check(r: LaunchRun): Promise<void> {
  for (const live of r.all) if (!(await checkOne(r, live))) return r.phase('end');
  // After a staging without the GPU the push and setup are done: straight to the run.
  return r.phase(r.s.box?.stage && r.s.setupDone ? 'run' : 'push');
}

/** The doctor on one box; false (and the stop reason) when its verdict is red. */
async function checkOne(r: LaunchRun, live: Live): Promise<boolean> {
  const card = r.task.resources.cards[0] ?? '';
  const pr = await probeInstance(live.conn, { card, gpuCount: r.task.resources.gpus, state: 'running' }, r.now(), r.host.signal);
  const level = verdictLevel(pr.diagnosis);
  const gpus = pr.gpus.map((g) => g.name).join(', ') || r.l10n.t('no GPU');
  const cardLine = pr.card && pr.card.kind !== 'match' ? ` · card check: ${pr.card.kind}` : '';
  if (level === 'error') {
    await r.save(r.l10n.t("check: {0}; the doctor's verdict is {1} ({2})", gpus, pr.diagnosis.verdict, pr.diagnosis.reasons.map((x) => x.code).join(', ')) + cardLine);
    r.stopReason = { kind: 'doctor', detail: r.l10n.t('the GPU check failed on {0}: {1}; nothing was pushed or run (gpu-rent doctor says what to fix)', live.box.label, pr.diagnosis.verdict) };
    return false;
  }
  await r.save(`check${r.others.length ? ` ${live.box.label}` : ''}: ${gpus}, driver ${pr.diagnosis.driverVersion ?? '?'}, torch ${pr.diagnosis.torchVersion ?? '?'}: ${pr.diagnosis.verdict}${cardLine}`);
  return true;
}

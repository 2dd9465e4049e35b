// Words for a diverged run (loss NaN/±Inf): the one notification per divergence, its buttons,
// the stop gpuRent.training.onDiverged makes, and the line the end-of-run report leads with.
// Pure: l10n is passed in.
import type { Diverged, EndAction } from '../../core/progress';
import type { DivergedPolicy } from '../../app/runs/diverged';
import { formatRate, type L10n } from '../view/present';
import { divergedText, nonFiniteLabel } from '../view/runText';

export interface DivergedWords {
  job: string;
  instance: string;
  diverged: Diverged;
  /** fen/h the instance bills while the run is dead; null when not known. */
  burningFenPerHour: number | null;
}

/** What the end action after a diverged stop does, as the tail of a sentence. */
export function divergedActionWords(a: EndAction, l10n: L10n): string {
  switch (a) {
    case 'nothing':
      return l10n.t('nothing else (the instance keeps running)');
    case 'sync':
      return l10n.t('the checkpoint sync');
    case 'sync-then-no-gpu':
      return l10n.t('the checkpoint sync, then no-GPU mode once every file is verified');
    case 'sync-then-power-off':
      return l10n.t('the checkpoint sync, then power-off once every file is verified');
  }
}

/** The button that stops the run and runs `a` after it. */
export function divergedActionButton(a: EndAction, l10n: L10n): string {
  switch (a) {
    case 'nothing':
      return l10n.t('Stop Run');
    case 'sync':
      return l10n.t('Stop and Sync');
    case 'sync-then-no-gpu':
      return l10n.t('Stop, Sync, No-GPU Mode');
    case 'sync-then-power-off':
      return l10n.t('Stop, Sync, Power Off');
  }
}

/** The notice, once per divergence: what happened, what it costs meanwhile, what the setting will do. */
export function divergedMessage(w: DivergedWords, policy: DivergedPolicy, autoAction: EndAction, l10n: L10n): string {
  const what = divergedText(w.diverged, l10n);
  const head =
    w.burningFenPerHour !== null && w.burningFenPerHour > 0
      ? l10n.t('{0} on {1}: {2}. The run has diverged and {1} keeps billing {3} for nothing.', w.job, w.instance, what, formatRate(w.burningFenPerHour, l10n))
      : l10n.t('{0} on {1}: {2}. The run has diverged and the instance keeps billing for nothing.', w.job, w.instance, what);
  if (policy.onDiverged === 'off') return head;
  return `${head} ${l10n.t('It is stopped after {0} such log lines in a row (now {1}), then: {2}.', policy.readings, w.diverged.readings, divergedActionWords(autoAction, l10n))}`;
}

/** The stop gpuRent.training.onDiverged makes, said as it starts. */
export function divergedStopMessage(w: DivergedWords, action: EndAction, l10n: L10n): string {
  return l10n.t('{0} on {1}: the training loss was {2} for {3} log lines in a row. Stopping the run (gpuRent.training.onDiverged), then: {4}.', w.job, w.instance, nonFiniteLabel(w.diverged.value), w.diverged.readings, divergedActionWords(action, l10n));
}

export function divergedStopFailedMessage(w: DivergedWords, why: string, l10n: L10n): string {
  return w.burningFenPerHour !== null && w.burningFenPerHour > 0
    ? l10n.t('Could not stop {0} on {1} ({2}): the diverged run keeps running and {1} keeps billing {3}.', w.job, w.instance, why, formatRate(w.burningFenPerHour, l10n))
    : l10n.t('Could not stop {0} on {1} ({2}): the diverged run keeps running.', w.job, w.instance, why);
}

/** The end-of-run report's first words for a run stopped because it diverged. */
export function divergedEndLine(d: Pick<Diverged, 'value' | 'readings' | 'step'>, l10n: L10n): string {
  return d.step !== null ? l10n.t('Stopped because the training loss was {0} for {1} log lines in a row (since step {2}).', nonFiniteLabel(d.value), d.readings, d.step) : l10n.t('Stopped because the training loss was {0} for {1} log lines in a row.', nonFiniteLabel(d.value), d.readings);
}

// Words for a launch's row in the Instances view while this window drives it: the task, the
// step it is at, the box, the training step and what it cost so far; the latest event in the
// tooltip. Pure: l10n is passed in. Box text (labels, event lines) is cut to one plain line by
// the tree (forLabel), never rendered as Markdown here.
import { formatCny } from '../../core/money';
import { spentFen, type LaunchPhase, type LaunchState } from '../../core/task/launch';
import type { L10n } from './present';
import { boxOutcomeWords, boxViewLine, divergedWords, type BoxViewWords } from '../../app/launch/words';

export function phaseWords(p: LaunchPhase, l10n: L10n): string {
  switch (p) {
    case 'acquire':
      return l10n.t('getting a box');
    case 'check':
      return l10n.t('checking the GPU');
    case 'push':
      return l10n.t('pushing the workdir');
    case 'setup':
      return l10n.t('setting up');
    case 'run':
      return l10n.t('starting the run');
    case 'watch':
      return l10n.t('running');
    case 'end':
      return l10n.t('ending (final sync, end action)');
    case 'done':
      return l10n.t('done');
    case 'stopped':
      return l10n.t('stopped early');
    case 'failed':
      return l10n.t('failed');
  }
}

export interface LaunchRowText {
  label: string;
  description: string;
  tooltip: string;
}

export function launchRowText(s: LaunchState, now: number, l10n: L10n, away?: BoxViewWords): LaunchRowText {
  const spent = spentFen(s, now);
  const p = s.progress;
  const parts = [
    phaseWords(s.phase, l10n),
    s.box ? s.box.label : '',
    p && p.step !== null ? l10n.t('step {0}', p.total !== null ? `${p.step}/${p.total}` : String(p.step)) : '',
    // A diverged run says so on its row (the same words as the watch lines and the status).
    p?.diverged ? l10n.t('{0} (diverged)', divergedWords(p.diverged, l10n)) : '',
    l10n.t('{0} spent', spent.unknown ? `${formatCny(spent.fen)}+?` : formatCny(spent.fen)),
    s.recoveries ? `#recoveries ${s.recoveries}` : '',
    // What the box's supervisor says (close the lid): its end, once it ended the run itself.
    away?.outcome ? l10n.t('the box: {0}', boxOutcomeWords(away.outcome, l10n)) : '',
  ];
  const last = s.events[s.events.length - 1];
  return {
    label: s.smoke ? l10n.t('{0} (smoke test)', s.task) : s.task,
    description: parts.filter(Boolean).join(' · '),
    tooltip: [s.file, last ? last.text : '', away ? boxViewLine(away, l10n) : ''].filter(Boolean).join('\n'),
  };
}

/** "finished: lora finished (exit 0)" says it twice: the outcome's words are left out when the app's detail already starts with them. */
export function outcomeLine(words: string, detail: string): string {
  return detail.toLowerCase().startsWith(words.toLowerCase()) ? detail : `${words}: ${detail}`;
}

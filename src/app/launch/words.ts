// The launch's own words, written once for both front ends (l10n passed in: vscode.l10n in the
// extension, the CLI's l10nIn(lang); the Chinese is the l10n bundle's): a run's progress as the
// watch lines, the row, the toast, `launch --status` and Launch Status say it, a divergence, and
// an end action refused before anything runs.
import { ENGLISH, type L10n } from '../../core/l10n';
import { formatCny } from '../../core/money';
import type { RefusalCode } from '../../core/guards/powerOffer';
import type { LaunchOutcome, LaunchState } from '../../core/task/launch';

type StateProgress = NonNullable<LaunchState['progress']>;
export type DivergedReading = NonNullable<StateProgress['diverged']>;

const nonFinite = (v: DivergedReading['value']) => (v === 'nan' ? 'NaN' : v === 'inf' ? 'Inf' : '-Inf');
const utcClock = (s: number) => new Date(s * 1000).toISOString().slice(11, 16) + ' UTC';

/** "loss NaN for 23 readings since step 5" (since a clock time where the log gave no step). */
export function divergedWords(d: DivergedReading, l10n: L10n = ENGLISH): string {
  return d.step !== null ? l10n.t('loss {0} for {1} readings since step {2}', nonFinite(d.value), d.readings, d.step) : l10n.t('loss {0} for {1} readings since {2}', nonFinite(d.value), d.readings, utcClock(d.since));
}

/** The outcome detail of a diverged run: "diverged: loss NaN for 23 readings since step 5". */
export function divergedDetail(d: DivergedReading, l10n: L10n = ENGLISH): string {
  return l10n.t('diverged: {0}', divergedWords(d, l10n));
}

/**
 * A run's progress in one line: `step 37/60 · loss 2.05 · ETA 3 min · ¥0.02 to finish`; a
 * diverged run says its divergence instead of the last finite loss, and neither a diverged nor a
 * finished run says an ETA or a cost to finish. '' when nothing is known.
 */
export function progressText(p: StateProgress | undefined, l10n: L10n = ENGLISH, o: { overCapFen?: number } = {}): string {
  if (!p) return '';
  const parts: string[] = [];
  if (p.step !== null) parts.push(p.total !== null ? l10n.t('step {0}/{1}', p.step, p.total) : l10n.t('step {0}', p.step));
  if (p.diverged) {
    parts.push(l10n.t('{0} (diverged)', divergedWords(p.diverged, l10n)));
    return parts.join(' · ');
  }
  if (p.loss !== null) parts.push(l10n.t('loss {0}', Number(p.loss.toPrecision(5))));
  if (p.final) return parts.join(' · ');
  if (p.etaSeconds !== null) parts.push(l10n.t('ETA {0} min', Math.round(p.etaSeconds / 60)));
  if (p.costToFinishFen !== null) parts.push(l10n.t('{0} to finish', formatCny(p.costToFinishFen)));
  else if (o.overCapFen !== undefined) parts.push(l10n.t('{0} to finish', `> ${formatCny(o.overCapFen)}`));
  return parts.join(' · ');
}

/** The outcome's words (the kind), for the status, the report and the end notice. */
export function launchOutcomeWords(k: LaunchOutcome, l10n: L10n = ENGLISH): string {
  switch (k) {
    case 'finished':
      return l10n.t('finished');
    case 'smoke':
      return l10n.t('smoke test done');
    case 'budget':
      return l10n.t('stopped by the budget cap');
    case 'doctor':
      return l10n.t('stopped by the GPU check');
    case 'runFailed':
      return l10n.t('the run failed');
    case 'failed':
      return l10n.t('a step failed');
    case 'noBox':
      return l10n.t('no instance could be had');
    case 'diverged':
      return l10n.t('diverged');
    case 'refused':
      return l10n.t('refused before anything ran');
  }
}

/** The outcome in one line: its words, then the detail, the words left out when the detail already starts with them ("diverged: loss NaN …"). */
export function outcomeText(k: LaunchOutcome, detail: string, l10n: L10n = ENGLISH): string {
  const words = launchOutcomeWords(k, l10n);
  return detail.toLowerCase().startsWith(words.toLowerCase()) ? detail : `${words}: ${detail}`;
}

/** Why an end action cannot happen where the task runs, beyond what core/guards/powerOffer says. */
export type EndRefusalCode = RefusalCode | 'releaseNotCreated';

/** The error for a task whose `end:` cannot happen on `where`, naming what would work. */
export function endRefusalText(end: string, where: string, code: EndRefusalCode, l10n: L10n = ENGLISH, facts: { account?: string; platform?: string; user?: string } = {}): string {
  const head = l10n.t('end: {0} cannot happen on {1}', end, where);
  const why = ((): string => {
    switch (code) {
      case 'noGpuNeedsAccount':
        return l10n.t('no-GPU mode is a platform API call, and an SSH login has no platform account. Use end: power-off (the box powers itself off as root or with sudo -n), end: none, or name the platform instance (instance: NAME) with its account added (gpu-rent accounts add)');
      case 'platformCannotNoGpu':
        return l10n.t("{0}'s API has no no-GPU start. Use end: power-off (powered off through the API; the disk keeps billing) or end: none and switch to no-GPU mode in the console", facts.platform ?? '?');
      case 'accountReadOnly':
        return l10n.t('account {0} is read-only (power actions not allowed). Allow them (gpu-rent accounts add --allow-power, or gpuRent.platforms.powerActions) or use end: none', facts.account ?? '?');
      case 'boxCannotPowerOff':
        return l10n.t('the login {0} is not root and sudo -n is not allowed, and no platform account can power it off. Log in as root, allow this user `sudo -n shutdown`, or use end: none and power it off in the console', facts.user ?? '?');
      case 'boxPowerUnknown':
        return l10n.t('could not find out whether this login may power the box off. Log in as root, or use end: none and power it off in the console');
      case 'releaseNotCreated':
        return l10n.t('the launch releases only an instance it created (instance: new), and this one existed before the launch (even with --yes). Use end: power-off or end: none, and release it yourself (Release on Platform, or the console)');
    }
  })();
  return l10n.t('{0}: {1}. Nothing was started.', head, why);
}

/** What the box's supervisor reported (away.ts's BoxView): the outcome in words. */
export function boxOutcomeWords(outcome: string | null, l10n: L10n = ENGLISH): string {
  switch (outcome) {
    case 'finished':
      return l10n.t('the run finished');
    case 'failed':
      return l10n.t('the run failed');
    case 'diverged':
      return l10n.t('the loss diverged: stopped');
    case 'budgetStop':
      return l10n.t('the budget was spent: stopped');
    default:
      return '?';
  }
}

/** The one line for a run the box ended while the laptop was away (the launch's event, the status, the notification). */
export function awayWords(v: BoxViewWords, l10n: L10n = ENGLISH): string {
  const stored = v.stored.map((x) => x.name);
  const channels = [...new Set(v.messaged.map((m) => m.slice(m.indexOf('/') + 1)).filter(Boolean))];
  return l10n.t(
    'ended while you were away (the box says: {0}){1}{2}',
    boxOutcomeWords(v.outcome, l10n) + (v.actionFailed ? l10n.t('; its end action FAILED (still billing?)') : ''),
    stored.length ? l10n.t('; stored {0}', stored.slice(-5).join(', ')) : '',
    channels.length ? l10n.t('; messaged {0}', channels.join(', ')) : '',
  );
}

/** The box's view while the run goes on, or its end: one line for `launch --status` and the launch row. */
export function boxViewLine(v: BoxViewWords, l10n: L10n = ENGLISH): string {
  if (v.outcome) return awayWords(v, l10n);
  const where = v.source === 'store' ? l10n.t('from the store') : v.running ? (v.heartbeatAgeSeconds !== null ? l10n.t('supervisor alive, heartbeat {0} s ago', v.heartbeatAgeSeconds) : l10n.t('supervisor alive')) : l10n.t('supervisor NOT running');
  const last = v.stored[v.stored.length - 1];
  return l10n.t('the box: {0}; {1}', where, last ? l10n.t('{0} checkpoint(s) in the store, the newest {1}', v.stored.length, last.name) : l10n.t('no checkpoint in the store yet'));
}

/** The box's journal could not be read (it is off, or unreachable, and no store holds it). */
export function boxUnreadLine(why: string, l10n: L10n = ENGLISH): string {
  return l10n.t('the box could not be read: {0}', why);
}

/** The parts of away.ts's BoxView the words read (words.ts stays free of the remote layer). */
export interface BoxViewWords {
  source: 'box' | 'store';
  running: boolean | null;
  heartbeatAgeSeconds: number | null;
  outcome: string | null;
  actionFailed: boolean;
  stored: { name: string }[];
  messaged: string[];
}

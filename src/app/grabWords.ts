// A grab's words for both front ends (the CLI passes l10nIn(lang), the extension vscode.l10n; the
// Chinese is in l10n/bundle.l10n.zh-cn.json): why nothing was done this round, what is being
// done, how the grab ended. Platform text in them (card names, codes, messages) is made inert.
import { formatCny } from '../core/money';
import { waitedText } from '../core/platforms/gpuWait';
import type { GrabWhy } from '../core/platforms/grab';
import { forNotification } from '../core/text';
import type { L10n } from '../core/l10n';
import type { GrabAct, GrabOutcome, GrabRound } from './grab';

const d = (s: string, max = 80) => forNotification(s, { max }).text;

export function whyText(w: GrabWhy, l10n: L10n): string {
  switch (w.code) {
    case 'noMatch':
      return w.seen.length ? l10n.t('no card of that name is offered (cards there: {0})', w.seen.map((x) => d(x, 40)).join(', ')) : l10n.t('no card of that name is offered');
    case 'soldOut':
      return l10n.t('{0} is sold out', d(w.card));
    case 'tooFewFree':
      return l10n.t('{0} in {1}: {2} free, {3} needed', d(w.card), d(w.region, 60), w.free, w.gpus);
    case 'gpusDiffer':
      return l10n.t('{0} has {1} GPUs per instance, not {2}', d(w.card), w.gpus, w.want);
    case 'priceAbove':
      return l10n.t('{0} in {1} is free at {2}/h, above your limit of {3}/h: not taken', d(w.card), d(w.region, 60), formatCny(w.priceFen), formatCny(w.maxFen));
    case 'priceUnknown':
      return l10n.t('{0} in {1} is free, but the platform says no price for it before acting: not taken under a limit of {2}/h', d(w.card), d(w.region, 60), formatCny(w.maxFen));
    case 'noProSpec':
      return l10n.t('{0} is free, but AutoDL Pro creates by spec and no spec is known for it', d(w.card));
  }
}

/** One round's line: why nothing was done, what failed, when the next read is. */
export function roundText(r: GrabRound, l10n: L10n): string {
  const parts: string[] = [];
  if (r.missed) {
    if (r.missed.code === 'priceAbove' && r.missed.priceFen !== undefined) parts.push(l10n.t("the platform's quote is {0}/h, above your limit: not taken", formatCny(r.missed.priceFen)));
    else if (r.missed.code === 'priceUnknown') parts.push(l10n.t('the platform quoted no price: not taken under your limit'));
    else if (r.missed.code === 'noAnswer') parts.push(l10n.t('the platform did not answer while acting ({0}): watching on', d(r.missed.detail ?? '?', 200)));
    else parts.push(r.missed.detail ? l10n.t('the card was taken before the action ({0})', d(r.missed.detail, 200)) : l10n.t('the card was taken before the action'));
  } else if (r.why) parts.push(whyText(r.why, l10n));
  for (const f of r.failures) {
    const own = d([f.failure.code, f.failure.message].filter(Boolean).join(' '), 200);
    parts.push(f.verdict === 'rateLimited' ? l10n.t('{0}: rate-limited, slowing down ({1})', d(f.account, 60), own) : f.verdict === 'stop' ? l10n.t('{0}: refused ({1}), no longer watched', d(f.account, 60), own) : l10n.t('{0}: the platform did not answer ({1})', d(f.account, 60), own));
  }
  const head = l10n.t('round {0} (waited {1})', r.round, waitedText(r.waitedMs));
  const next = r.nextInMs !== undefined ? l10n.t('; next read in {0} s', Math.round(r.nextInMs / 1000)) : '';
  return l10n.t('{0}: {1}{2}', head, parts.join(l10n.t('; ')) || l10n.t('nothing fits yet'), next);
}


export function actText(a: GrabAct, target: string, l10n: L10n): string {
  const what = a.action === 'start' ? l10n.t('starting {0}', d(target)) : a.action === 'clone' ? l10n.t('cloning {0} onto a host with a free card', d(target)) : l10n.t('creating {0}', d(target));
  const where = a.region ? l10n.t(' in {0}', d(a.region, 60)) : '';
  const price = a.priceFen !== undefined ? l10n.t(' at {0}/h', formatCny(a.priceFen)) : '';
  return l10n.t('{0} is free on {1}: {2}{3}{4}', d(a.card), d(a.account, 60), what, where, price);
}

/** The outcome's line (done, gave up, cancelled, busy); refusals and unknowns are said by the front end with its own words for the refusal. */
export function outcomeText(o: GrabOutcome, target: string, l10n: L10n): string {
  switch (o.kind) {
    case 'done': {
      const verb = o.action === 'start' ? l10n.t('{0} was started', d(o.name)) : o.action === 'clone' ? l10n.t('{0} was cloned as {1}', d(target), d(o.name)) : o.recovered ? l10n.t('{0} already exists (a grab before made it): nothing new created', d(o.name)) : l10n.t('{0} was created', d(o.name));
      const state = o.settled ? l10n.t('it runs') : l10n.t('it is not running yet (last: {0})', d(o.state ?? '?', 40));
      return l10n.t('grabbed {0} after {1} ({2} rounds): {3}; {4}', d(o.card), waitedText(o.waitedMs), o.rounds, verb, state);
    }
    case 'gaveUp':
      return l10n.t('no card within the limits after {0} ({1} rounds){2}; nothing was done', waitedText(o.waitedMs), o.rounds, o.why ? l10n.t('; last: {0}', whyText(o.why, l10n)) : '');
    case 'cancelled':
      return o.inFlight ? l10n.t('stopped after {0} ({1} rounds); an action was on its way when you stopped: check the instances', waitedText(o.waitedMs), o.rounds) : l10n.t('stopped after {0} ({1} rounds); nothing was done and nothing is left running', waitedText(o.waitedMs), o.rounds);
    case 'busy':
      return l10n.t('{0} is already being grabbed or started by {1}{2}: nothing read or sent', d(target), d(o.holder.what, 60), o.holder.pid ? ` (pid ${o.holder.pid})` : '');
    case 'refused':
      return l10n.t('refused: {0}', o.failure ? d(`${o.failure.code} ${o.failure.message}`, 200) : (o.create?.code ?? o.clone?.code ?? '?'));
    case 'unknown':
      return l10n.t('{0} was sent but its answer was lost ({1}); no instance named {2} is listed yet: check the instances before grabbing again', o.kind === 'unknown' ? d(o.account, 60) : '', d(o.reason, 200), d(o.name));
  }
}

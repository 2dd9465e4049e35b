// Add Platform Account's questions as data: each input box with its numbered title (the picker,
// each secret field, the regions), its prompt from the descriptor, and the value typed before, so
// a token that failed its check is offered again to edit instead of typed anew. Pure (l10n
// passed in), tested in Node; accounts.ts shows them.
import { descriptorOf, inLanguage, secretPrompts } from '../../../core/platforms/descriptors';
import type { PlatformKind } from '../../../core/platforms/types';
import type { L10n } from '../../view/present';

export interface AccountStep {
  /** The secret field, or 'regions'. */
  field: string;
  title: string;
  prompt: string;
  /** What was typed before (a retry after a failed check); empty the first time. */
  value: string;
  password: boolean;
}

/** Questions after the platform pick: one per secret field, then the regions where the platform has them. */
export function accountSteps(kind: PlatformKind, language: string, l10n: L10n, kept: Readonly<Record<string, string>> = {}, lastProblem?: string): AccountStep[] {
  const d = descriptorOf(kind);
  const total = 1 + d.secrets.length + (d.regions ? 1 : 0);
  const name = inLanguage(d.name, language);
  const title = (n: number) => accountStepTitle(n, total, name, l10n);
  const retry = lastProblem ? ` ${l10n.t('Last try: {0}', lastProblem)}` : '';
  const steps: AccountStep[] = secretPrompts(kind, language).map((f, i) => ({ field: f.field, title: title(2 + i), prompt: f.prompt + (i === 0 ? retry : ''), value: kept[f.field] ?? '', password: true }));
  if (d.regions) steps.push({ field: 'regions', title: title(total), prompt: l10n.t('Regions to read: all (every region the platform lists), or region ids separated by commas (e.g. {0},cn-beijing)', d.regions.default), value: kept.regions ?? 'all', password: false });
  return steps;
}

/** "Add Platform Account (n/N): <platform>"; the first step (the pick) names no platform yet. */
export function accountStepTitle(n: number, total: number | undefined, platform: string | undefined, l10n: L10n): string {
  const head = total === undefined ? l10n.t('Add Platform Account') : l10n.t('Add Platform Account ({0}/{1})', n, total);
  return platform ? `${head}: ${platform}` : head;
}

// Platform failures and states in the display language. The platform's own code and message
// are always kept beside our words.
import * as vscode from 'vscode';
import { PlatformError } from '../../app/platforms/errors';
import { descriptorOf, inLanguage, type Words } from '../../core/platforms/descriptors';
import type { PlatformKind, PlatformState } from '../../core/platforms/types';

/** A descriptor's text (names, prompts, warnings) in the UI's language. */
export function descriptorText(w: Words): string {
  return inLanguage(w, vscode.env.language);
}

/** The kind's name as its descriptor writes it, in the UI's language. */
export function platformName(kind: PlatformKind): string {
  return descriptorText(descriptorOf(kind).name);
}

export function platformErrorText(e: unknown): string {
  if (!(e instanceof PlatformError)) return e instanceof Error ? e.message : String(e);
  const f = e.failure;
  const own = [f.code, f.message].filter(Boolean).join(' ');
  const hint = (() => {
    switch (f.kind) {
      case 'tokenExpired':
        return vscode.l10n.t('the token was refused or has expired: paste a new console token');
      case 'auth':
        return vscode.l10n.t('the credentials were refused: check the key and its permissions');
      case 'rateLimited':
        return vscode.l10n.t('too many requests: it will be tried again later');
      case 'server':
        return vscode.l10n.t('the platform had an internal error');
      case 'network':
        return vscode.l10n.t('the platform could not be reached');
      case 'timeout':
        return vscode.l10n.t('no answer within the deadline');
      case 'insufficientBalance':
        return vscode.l10n.t('余额不足: top up the account first');
      case 'noStock':
        return vscode.l10n.t('库存不足: no free GPU there now; try later or another region');
      case 'noGpuOnHost':
        return vscode.l10n.t("the instance's host has no free GPU now: wait and try again, start it in no-GPU mode to reach its data, or clone/migrate it to a host with free GPUs in the console");
      case 'realName':
        return vscode.l10n.t('实名认证 required: finish real-name verification in the console');
      case 'quota':
        return vscode.l10n.t('an account quota is used up: raise it in the console, or release an instance you do not need');
      case 'notFound':
        return vscode.l10n.t('no such instance on this account');
      case 'invalidState':
        return vscode.l10n.t('the instance is not in a state that allows this');
      case 'notSupported':
        return vscode.l10n.t('the platform offers no such action');
      default:
        return '';
    }
  })();
  return `${platformName(f.platform)}: ${hint ? `${hint} (${own})` : own}`;
}

export function platformStateLabel(s: PlatformState): string {
  switch (s) {
    case 'starting':
      return vscode.l10n.t('starting');
    case 'running':
      return vscode.l10n.t('running');
    case 'noGpu':
      return vscode.l10n.t('no-GPU mode');
    case 'stopping':
      return vscode.l10n.t('stopping');
    case 'stopped':
      return vscode.l10n.t('stopped');
    case 'releasing':
      return vscode.l10n.t('releasing');
    case 'released':
      return vscode.l10n.t('released');
    default:
      return vscode.l10n.t('unknown');
  }
}

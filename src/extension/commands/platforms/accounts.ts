// Add Platform Account… / Remove Platform Account. The secret goes to SecretStorage only and
// is checked with one read-only call (the instance list) before it is saved. Several accounts
// per platform; removing one deletes its secret and unlinks its instances (they stay, manual).
import * as vscode from 'vscode';
import { showError, showInfo, showWarning, withNotificationProgress } from '../../notify';
import { parseRegionText, regionText } from '../../../core/platforms/regions';
import { endpointsFromEnv, makeConnector, mergeEndpoints, parseSecret, type Account } from '../../../app/platforms/accounts';
import { accountChoices, descriptorOf } from '../../../core/platforms/descriptors';
import { accountStepTitle, accountSteps } from './accountSteps';
import type { PlatformKind } from '../../../core/platforms/types';
import { AddPlatformAccountArgs, RemovePlatformAccountArgs } from '../../args';
import type { PlatformMonitor } from '../../monitors/platforms';
import type { CommandContext } from '../../services/context';
import { allowPowerActions } from '../../services/allowPower';
import { UserError } from '../../words/errors';
import { parseArgs } from '../pick';
import { isScripted } from '../registry';
import { descriptorText, platformErrorText, platformName } from '../../words/platforms';


export async function addPlatformAccount(ctx: CommandContext, mon: PlatformMonitor, arg: unknown): Promise<string | undefined> {
  const scripted = isScripted(arg) ? parseArgs(AddPlatformAccountArgs, arg) : undefined;
  let kind: PlatformKind;
  let raw: Record<string, string> = {};
  let region: string | string[] | undefined = scripted?.region;
  if (scripted) {
    kind = scripted.platform;
    const experimental = descriptorOf(kind).experimental;
    if (experimental && !scripted.experimental) throw new UserError(descriptorText(experimental.refusal));
    for (const { field } of descriptorOf(kind).secrets) {
      const v = (scripted as Record<string, unknown>)[field];
      if (typeof v === 'string') raw[field] = v;
    }
  } else {
    const pick = await vscode.window.showQuickPick(
      accountChoices(vscode.env.language).map((c) => ({ label: c.label, description: c.description, platformKind: c.kind })),
      { title: accountStepTitle(1, undefined, undefined, vscode.l10n), placeHolder: vscode.l10n.t('Which platform account?'), ignoreFocusOut: true },
    );
    if (!pick) return undefined;
    kind = pick.platformKind;
    const d = descriptorOf(kind);
    if (d.experimental) {
      const ok = vscode.l10n.t('Use It');
      const r = await showWarning(descriptorText(d.experimental.warning), { modal: true }, ok);
      if (r !== ok) return undefined;
    }
  }
  // Asked, checked, and on a failure asked again with what was typed (the token is kept to edit, not typed anew).
  let kept: Record<string, string> = {};
  let problem: string | undefined;
  for (;;) {
    if (!scripted) {
      const asked = await askAccount(kind, kept, problem);
      if (!asked) return undefined;
      ({ raw, region } = asked);
      kept = asked.kept;
    }
    const s = parseSecret(kind, raw);
    let failure: string;
    if (!s.ok) failure = vscode.l10n.t('The secret is not valid: {0}', s.message);
    else {
      const account: Account = { id: mon.accounts.freshId(kind), kind, label: scripted?.label ?? platformName(kind), powerActions: false, ...(region ? { region } : {}) };
      const c = await withNotificationProgress({ title: vscode.l10n.t('Checking the {0} account…', platformName(kind)) }, async () => {
        const conn = makeConnector(account, s.secret, mergeEndpoints(ctx.settings().platformEndpoints, endpointsFromEnv(process.env)), { timeoutMs: 15_000, now: ctx.now });
        try {
          return { ok: true as const, n: (await conn.list()).length };
        } catch (e) {
          return { ok: false as const, why: platformErrorText(e) };
        }
      });
      if (c.ok) {
        await mon.accounts.add(account, s.secret);
        ctx.log.info(`platform account ${account.id} added (${kind}, ${c.n} instances; read-only until listed in gpuRent.platforms.powerActions)`);
        await mon.pollNow(true);
        // Said as it is: an id already listed in the setting has its power actions on (issue 41 bug 9); else a button allows them.
        if (!scripted) {
          if (mon.powerAllowed(account.id)) void showInfo(vscode.l10n.t('{0} connected: {1} instances. Power actions are on for it ("{2}" is in gpuRent.platforms.powerActions).', account.label, c.n, account.id));
          else {
            const allow = vscode.l10n.t('Allow Power Actions…');
            void showInfo(vscode.l10n.t('{0} connected: {1} instances. Power actions stay off until you add "{2}" to the setting gpuRent.platforms.powerActions.', account.label, c.n, account.id), allow).then((p) => (p === allow ? allowPowerActions(account) : undefined));
          }
        }
        return account.id;
      }
      failure = vscode.l10n.t('Not saved: {0}', c.why);
    }
    if (scripted) throw new UserError(failure);
    const again = vscode.l10n.t('Edit and Try Again');
    if ((await showError(failure, again)) !== again) return undefined;
    problem = failure;
  }
}

/** The secret fields and regions, each pre-filled with what was typed before; undefined when cancelled. */
async function askAccount(kind: PlatformKind, kept: Record<string, string>, problem: string | undefined): Promise<{ raw: Record<string, string>; region: string | string[] | undefined; kept: Record<string, string> } | undefined> {
  const raw: Record<string, string> = {};
  const typed: Record<string, string> = {};
  let region: string | string[] | undefined;
  for (const step of accountSteps(kind, vscode.env.language, vscode.l10n, kept, problem)) {
    const regions = step.field === 'regions';
    const v = await vscode.window.showInputBox({
      title: step.title,
      prompt: step.prompt,
      value: step.value,
      password: step.password,
      ignoreFocusOut: true,
      validateInput: regions
        ? (t) => (parseRegionText(t).ok ? undefined : vscode.l10n.t('"all", or region ids (letters, digits and dashes) separated by commas.'))
        : (t) => (/^\S+$/.test(t.trim()) ? undefined : vscode.l10n.t('One word without spaces.')),
    });
    if (v === undefined) return undefined;
    typed[step.field] = v.trim();
    if (!regions) raw[step.field] = v.trim();
    else {
      const parsed = parseRegionText(v);
      if (parsed.ok) region = parsed.region;
    }
  }
  return { raw, region, kept: typed };
}

export async function removePlatformAccount(ctx: CommandContext, mon: PlatformMonitor, arg: unknown): Promise<boolean> {
  const scripted = isScripted(arg) ? parseArgs(RemovePlatformAccountArgs, arg) : undefined;
  let id = scripted?.account;
  if (!id) {
    const list = mon.accounts.list();
    if (!list.length) {
      void showInfo(vscode.l10n.t('No platform account is connected.'));
      return false;
    }
    const pick = await vscode.window.showQuickPick(list.map((a) => ({ label: a.label, description: `${a.id} · ${platformName(a.kind)}${a.region ? ` · ${regionText(a.region)}` : ''}`, id: a.id })), { placeHolder: vscode.l10n.t('Remove which platform account (and its secret)?') });
    if (!pick) return false;
    const yes = vscode.l10n.t('Remove');
    if ((await showWarning(vscode.l10n.t('Remove {0} and delete its secret? Its instances stay in the list as manual entries.', pick.label), { modal: true }, yes)) !== yes) return false;
    id = pick.id;
  }
  if (!(await mon.accounts.remove(id))) throw new UserError(vscode.l10n.t('No platform account {0}.', id));
  const linked = ctx.store.list().filter((i) => i.platformRef?.account === id);
  if (linked.length) await ctx.store.importInstances(linked.map(({ platformRef: _drop, ...rest }) => rest));
  ctx.log.info(`platform account ${id} removed with its secret; ${linked.length} instances unlinked`);
  ctx.refresh('accounts');
  return true;
}

// Add Instance: paste the console's login command (or pick a ~/.ssh/config host), then the
// platform, card, billing, price (pre-filled from the catalog with its source and date),
// data disk and state. Scripted: `executeCommand('gpuRent.addInstance', { login, … })`.
import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BOUNDS } from '../../../core/bounds';
import { findCard } from '../../../core/cards';
import { newInstanceId, sameEndpoint, validateInstance } from '../../../core/instances';
import { formatCny, yuanToFen } from '../../../core/money';
import type { BillingMode, InstanceState, Pricing } from '../../../core/spend';
import { tryParseTarget } from '../../../remote/target';
import { loginProblemText } from '../../../app/remoteWords';
import { AddInstanceArgs } from '../../args';
import { fenToInput, parseCount, parseGb, parseYuan } from '../../input';
import { peakNoticeAfterStart } from '../../monitors/peak';
import { showWarning } from '../../notify';
import { prefillPricing, spotAfterHourlyEdit } from '../../prefill';
import { catalogSourceText } from '../../words/sourceWords';
import { datingText, stateLabel } from '../../view/present';
import { platformLabel, platformShortName, type CommandContext } from '../../services/context';
import { UserError } from '../../words/errors';
import { parseArgs } from '../pick';
import { isScripted } from '../registry';
import { billingLabel, loginFromTarget, problemText, sshConfigHosts, sshConfigText } from './shared';

export async function addInstance(ctx: CommandContext, arg: unknown): Promise<string | undefined> {
  if (isScripted(arg)) return addFromArgs(ctx, parseArgs(AddInstanceArgs, arg));
  return addInteractive(ctx);
}

async function addFromArgs(ctx: CommandContext, a: AddInstanceArgs): Promise<string> {
  const cfg = await sshConfigText(ctx.settings());
  const t = tryParseTarget(a.login, { sshConfig: cfg });
  if (!t.ok) throw new UserError(vscode.l10n.t('Cannot read the login: {0}', loginProblemText(t.reason, vscode.l10n)));
  const catalog = ctx.catalog();
  const pre = prefillPricing(catalog, a.platform, a.card, a.gpuCount, a.billingMode, a.dataDiskGb);
  const pricing: Pricing = { ...pre.pricing };
  if (a.hourlyRate !== undefined) {
    pricing.hourlyRate = yuanToFen(a.hourlyRate);
    // The catalog's spot price follows an edited on-demand one (scaled by the catalog's ratio), unless one is given.
    // (By the hour only: a package's price spread over its hours is not what spot is a discount of.)
    const spot = a.billingMode === 'hour' ? spotAfterHourlyEdit(pre.pricing, pricing.hourlyRate) : pricing.spotRate;
    if (spot === undefined) delete pricing.spotRate;
    else pricing.spotRate = spot;
  }
  if (a.spotRate !== undefined) pricing.spotRate = yuanToFen(a.spotRate);
  if (a.noGpuModeRate !== undefined) pricing.noGpuModeRate = yuanToFen(a.noGpuModeRate);
  if (a.storageGbDay !== undefined) pricing.storageGbDay = yuanToFen(a.storageGbDay);
  const card = findCard(a.card, catalog.cards)?.name ?? a.card;
  const id = newInstanceId(new Set(ctx.store.list().map((i) => i.id)));
  const fields = { id, name: a.name ?? `${platformShortName(ctx, a.platform)} ${card}`, platform: a.platform, card, gpuCount: a.gpuCount, login: loginFromTarget(t.target, a.password, a.keyPath), pricing };
  const check = validateInstance({ ...fields, intervals: [{ state: a.state, from: ctx.now(), computeRate: 0, storageRate: 0 }], createdAt: ctx.now() });
  if (!check.ok) throw new UserError(vscode.l10n.t('Invalid instance at "{0}": {1}', check.path, check.message));
  const twins = sameEndpoint(ctx.store.list(), fields.login.host, fields.login.port);
  if (twins.length) ctx.log.warn(`instance ${id} logs in at ${fields.login.host}:${fields.login.port} like ${twins.map((i) => i.id).join(', ')}: the same box twice is billed twice in the spend figures`);
  const added = await ctx.store.add(fields, a.state, a.password);
  ctx.log.info(`added instance ${id} (${a.platform}, ${card} ×${a.gpuCount}) at ${fields.login.host}:${fields.login.port}`);
  if (a.state === 'running' || a.state === 'spot') peakNoticeAfterStart(ctx, added);
  return id;
}

/** "Add GPU Instance (n/N)": N is known before the first question and every step has its number. */
class Steps {
  private n = 0;
  constructor(private readonly total: number) {}
  next(what: string): string {
    this.n++;
    return vscode.l10n.t('Add GPU Instance ({0}/{1}): {2}', this.n, this.total, what);
  }
  same(what: string): string {
    return vscode.l10n.t('Add GPU Instance ({0}/{1}): {2}', this.n, this.total, what);
  }
}

async function addInteractive(ctx: CommandContext): Promise<string | undefined> {
  const cfgText = await sshConfigText(ctx.settings());
  const hosts = sshConfigHosts(cfgText);
  // Step 1 is the login; how many steps follow depends on it (a config host with a key file needs no authentication step).
  const first = vscode.l10n.t('Add GPU Instance: login');
  let loginText: string | undefined;
  if (hosts.length > 0) {
    const paste = vscode.l10n.t('Paste the login command…');
    const pick = await vscode.window.showQuickPick([{ label: `$(clippy) ${paste}`, host: undefined as string | undefined }, ...hosts.map((h) => ({ label: `$(server) ${h}`, description: vscode.l10n.t('from SSH config'), host: h }))], { title: first, placeHolder: vscode.l10n.t('How do you log in to the instance?'), ignoreFocusOut: true });
    if (!pick) return undefined;
    loginText = pick.host;
  }
  if (loginText === undefined) {
    loginText = await vscode.window.showInputBox({
      title: first,
      prompt: vscode.l10n.t('Paste the login command the platform shows, e.g. ssh -p 12345 root@region.example.com'),
      ignoreFocusOut: true,
      validateInput: (v) => {
        const r = tryParseTarget(v, { sshConfig: cfgText });
        return r.ok ? undefined : loginProblemText(r.reason, vscode.l10n);
      },
    });
    if (!loginText) return undefined;
  }
  const target = tryParseTarget(loginText, { sshConfig: cfgText });
  if (!target.ok) return undefined;
  // The same box twice would be billed twice in the spend figures: say so before anything else is asked.
  const twins = sameEndpoint(ctx.store.list(), target.target.host, target.target.port);
  if (twins.length) {
    const addAnyway = vscode.l10n.t('Add Anyway');
    const where = `${target.target.host}:${target.target.port}`;
    const r = await showWarning(
      vscode.l10n.t('{0} already logs in at {1}. A second entry for the same box counts its cost twice; to change its login, use Update Login on it instead.', twins.map((i) => i.name).join(', '), where),
      { modal: true },
      addAnyway,
    );
    if (r !== addAnyway) return undefined;
  }
  // login, [authentication], platform, card, GPUs, billing, price, disk, state, name
  const needsAuth = target.target.identityFiles.length === 0;
  const steps = new Steps(needsAuth ? 10 : 9);
  steps.next('');
  let password: string | undefined;
  let keyPath: string | undefined;
  if (needsAuth) {
    const how = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('Password'), description: vscode.l10n.t('kept in the editor’s secret storage only'), v: 'password' },
        { label: vscode.l10n.t('Private key file…'), v: 'key' },
        { label: vscode.l10n.t('SSH agent'), v: 'agent' },
      ],
      { title: steps.next(vscode.l10n.t('authentication')), placeHolder: vscode.l10n.t('How does the instance authenticate you?'), ignoreFocusOut: true },
    );
    if (!how) return undefined;
    if (how.v === 'password') {
      password = await vscode.window.showInputBox({ title: steps.same(vscode.l10n.t('password')), password: true, ignoreFocusOut: true, prompt: vscode.l10n.t('The password the platform shows next to the login command') });
      if (password === undefined) return undefined;
    } else if (how.v === 'key') {
      const f = await vscode.window.showOpenDialog({ canSelectMany: false, defaultUri: vscode.Uri.file(join(homedir(), '.ssh')), openLabel: vscode.l10n.t('Use this key') });
      if (!f?.[0]) return undefined;
      keyPath = f[0].fsPath;
    }
  }
  const catalog = ctx.catalog();
  const platformPick = await vscode.window.showQuickPick(
    catalog.platforms.filter((p) => p.prices.length > 0).map((p) => ({ label: platformLabel(ctx, p.id), description: p.id, id: p.id })),
    { title: steps.next(vscode.l10n.t('platform')), placeHolder: vscode.l10n.t('Which platform is it on?'), ignoreFocusOut: true },
  );
  if (!platformPick) return undefined;
  const platform = catalog.platforms.find((p) => p.id === platformPick.id)!;
  const pricedCards = [...new Set(platform.prices.map((p) => p.card))];
  const cardPick = await vscode.window.showQuickPick(
    [...pricedCards.map((c) => findCard(c, catalog.cards)).filter((c) => c !== undefined), ...catalog.cards.filter((c) => !pricedCards.includes(c.id))].map((c) => ({ label: c.name, description: pricedCards.includes(c.id) ? vscode.l10n.t('priced in the catalog') : '', id: c.id })),
    { title: steps.next(vscode.l10n.t('card')), placeHolder: vscode.l10n.t('Which GPU?'), ignoreFocusOut: true },
  );
  if (!cardPick) return undefined;
  const countText = await vscode.window.showInputBox({ title: steps.next(vscode.l10n.t('number of GPUs')), value: '1', ignoreFocusOut: true, validateInput: (v) => { const r = parseCount(v, BOUNDS.gpus.min, BOUNDS.gpus.max); return r.ok ? undefined : problemText(r.problem); } });
  if (countText === undefined) return undefined;
  const gpuCount = Number(countText.trim());
  const offered = prefillPricing(catalog, platform.id, cardPick.id, gpuCount, 'hour', 0).offeredModes;
  const modePick = await vscode.window.showQuickPick((offered.length ? offered : (['hour'] as BillingMode[])).map((m) => ({ label: billingLabel(m), m })), { title: steps.next(vscode.l10n.t('billing')), ignoreFocusOut: true });
  if (!modePick) return undefined;
  const pre = prefillPricing(catalog, platform.id, cardPick.id, gpuCount, modePick.m, 0);
  const dated = pre.priceSource ? vscode.l10n.t('Catalog price, {0} (source: {1}); edit it if the console shows another.', datingText(pre.priceSource.dating, vscode.l10n), catalogSourceText(pre.priceSource.source, vscode.l10n)) : vscode.l10n.t('The catalog has no price for this card here; enter the console’s price.');
  const rateText = await vscode.window.showInputBox({ title: steps.next(vscode.l10n.t('price per hour for the whole instance (yuan)')), prompt: dated, value: pre.priceSource ? fenToInput(pre.pricing.hourlyRate) : '', ignoreFocusOut: true, validateInput: (v) => { const r = parseYuan(v); return r.ok ? undefined : problemText(r.problem); } });
  if (rateText === undefined) return undefined;
  const diskText = await vscode.window.showInputBox({ title: steps.next(vscode.l10n.t('billed data disk size (GB)')), prompt: vscode.l10n.t('Storage is billed per GB per day, also while the instance is stopped ({0}/GB/day here).', formatCny(pre.pricing.storageGbDay)), value: '0', ignoreFocusOut: true, validateInput: (v) => { const r = parseGb(v); return r.ok ? undefined : problemText(r.problem); } });
  if (diskText === undefined) return undefined;
  const statePick = await vscode.window.showQuickPick((['running', 'spot', 'noGpu', 'stopped'] as InstanceState[]).map((s) => ({ label: stateLabel(s, vscode.l10n), s })), { title: steps.next(vscode.l10n.t('state')), placeHolder: vscode.l10n.t('What is it doing now?'), ignoreFocusOut: true });
  if (!statePick) return undefined;
  const card = findCard(cardPick.id, catalog.cards)?.name ?? cardPick.id;
  const name = await vscode.window.showInputBox({ title: steps.next(vscode.l10n.t('name')), value: `${platformShortName(ctx, platform.id)} ${card}`, ignoreFocusOut: true, validateInput: (v) => (v.trim() && v.length <= 120 ? undefined : vscode.l10n.t('Enter a name of at most 120 characters.')) });
  if (!name) return undefined;
  const rate = parseYuan(rateText);
  const disk = parseGb(diskText);
  return addFromArgs(ctx, {
    name: name.trim(),
    login: loginText,
    platform: platform.id,
    card,
    gpuCount,
    billingMode: modePick.m,
    dataDiskGb: disk.ok ? disk.value : 0,
    state: statePick.s,
    ...(rate.ok ? { hourlyRate: rate.fen / 100 } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(keyPath !== undefined ? { keyPath } : {}),
  });
}

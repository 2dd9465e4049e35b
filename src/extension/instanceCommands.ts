// Adding, editing, removing, re-logging, importing, exporting and switching the state of
// instances. Every command takes its answers as an argument object (see args.ts) so tests and
// other extensions can drive it; without one it asks.
import * as vscode from 'vscode';
import { readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse as parseSshConfig } from 'ssh-config';
import { findCard } from '../core/cards';
import { findPlatform, type Catalog } from '../core/catalog';
import { exportInstances, newInstanceId, parseImport, validateInstance, type Instance, type LoadProblem, type Login } from '../core/instances';
import { formatCny, yuanToFen } from '../core/money';
import { currentState, INSTANCE_STATES, type BillingMode, type InstanceState, type Pricing } from '../core/spend';
import { tryParseTarget, type SshTarget } from '../remote/target';
import { AddInstanceArgs, describeArgsError, EditInstanceArgs, instanceIdOf, PathArgs, SwitchStateArgs, UpdateLoginArgs } from './args';
import { Commands } from './commandIds';
import { fenToInput, parseCount, parseGb, parseYuan, type InputProblem } from './input';
import type { ReleaseRisk } from './guardDecisions';
import { riskDetail } from './guardText';
import { prefillPricing } from './prefill';
import { formatRate, stateLabel } from './present';
import type { Settings } from './settings';
import type { InstanceStore } from './store';

export interface InstanceCommandContext {
  store: InstanceStore;
  catalog: () => Catalog;
  settings: () => Settings;
  log: vscode.LogOutputChannel;
  now: () => number;
  language: string;
}

export function problemText(p: InputProblem): string {
  switch (p) {
    case 'empty':
      return vscode.l10n.t('Enter a value.');
    case 'notNumber':
      return vscode.l10n.t('Enter a number, for example 1.98.');
    case 'negative':
      return vscode.l10n.t('The value cannot be negative.');
    case 'tooLarge':
      return vscode.l10n.t('The value is too large.');
    case 'notInteger':
      return vscode.l10n.t('Enter a whole number.');
  }
}

function loadProblemText(p: LoadProblem): string {
  switch (p.kind) {
    case 'notJson':
      return vscode.l10n.t('The file is not JSON.');
    case 'wrongShape':
      return vscode.l10n.t('The file is not a GPU Rent instance export.');
    case 'badInstance':
      return vscode.l10n.t('Instance {0} is invalid at "{1}": {2}', p.index + 1, p.path, p.message);
    case 'duplicateId':
      return vscode.l10n.t('Instance id {0} appears twice.', p.id);
  }
}

/** Thrown for bad arguments; the command wrapper shows it and rejects executeCommand's promise. */
export class CommandInputError extends Error {}

export function loginFromTarget(t: SshTarget, password: string | undefined, keyPath: string | undefined): Login {
  const login: Login = { host: t.host, port: t.port, user: t.user ?? 'root', auth: password !== undefined ? 'password' : keyPath || t.identityFiles[0] ? 'key' : 'agent' };
  const key = keyPath ?? t.identityFiles[0];
  if (key && password === undefined) login.keyPath = key;
  if (t.alias) login.sshConfigHost = t.alias;
  return login;
}

async function readSshConfig(settings: Settings): Promise<string | null> {
  const path = settings.sshConfigPath || join(homedir(), '.ssh', 'config');
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

function sshConfigHosts(text: string | null): string[] {
  if (!text) return [];
  try {
    const out: string[] = [];
    for (const line of parseSshConfig(text)) {
      const l = line as { param?: string; value?: unknown };
      if (l.param?.toLowerCase() !== 'host') continue;
      const values = Array.isArray(l.value) ? l.value.map((v: { val?: string } | string) => (typeof v === 'string' ? v : v.val ?? '')) : [String(l.value)];
      for (const v of values.flatMap((x) => x.split(/\s+/))) if (v && !/[*?!]/.test(v)) out.push(v);
    }
    return out;
  } catch {
    return [];
  }
}

const BILLING_LABEL = (m: BillingMode): string =>
  m === 'hourly' ? vscode.l10n.t('Hourly') : m === 'daily' ? vscode.l10n.t('Daily') : m === 'weekly' ? vscode.l10n.t('Weekly package') : vscode.l10n.t('Monthly package');

/** What the guards do around these commands (set by activate(); absent in tests that do not need them). */
export interface InstanceGuards {
  /** An instance was added or switched to running/spot: the evening-peak notice. */
  afterStart(inst: Instance): void;
  /** What removing a powered instance would lose (its unsynced checkpoints). */
  removalRisk(inst: Instance): Promise<ReleaseRisk>;
  /** Before an instance is forgotten: wipe its memory-only uploads. */
  beforeForget(inst: Instance): Promise<void>;
}

export class InstanceCommands {
  guards: InstanceGuards | undefined;

  constructor(private readonly ctx: InstanceCommandContext) {}

  platformLabel(id: string): string {
    const p = findPlatform(this.ctx.catalog(), id);
    return p ? (this.ctx.language.startsWith('zh') ? p.name.zh : p.name.en) : id;
  }

  /** The instance an argument names, or one the user picks. */
  async resolve(arg: unknown, filter: (i: Instance) => boolean = () => true): Promise<Instance | undefined> {
    const id = instanceIdOf(arg);
    if (id !== undefined) {
      const inst = this.ctx.store.get(id);
      if (!inst) throw new CommandInputError(vscode.l10n.t('No instance with id {0}.', id));
      return inst;
    }
    const list = this.ctx.store.list().filter(filter);
    if (list.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No instance to choose from.'));
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      list.map((i) => ({ label: i.name, description: `${this.platformLabel(i.platform)} · ${i.card} ×${i.gpuCount}`, detail: stateLabel(currentState(i.intervals), vscode.l10n), id: i.id })),
      { placeHolder: vscode.l10n.t('Choose an instance') },
    );
    return pick ? this.ctx.store.get(pick.id) : undefined;
  }

  private parseArgs<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: import('zod').ZodError } }, arg: unknown): T {
    const r = schema.safeParse(arg);
    if (!r.success) throw new CommandInputError(vscode.l10n.t('Invalid arguments: {0}', describeArgsError(r.error)));
    return r.data;
  }

  private isArgsObject(arg: unknown): boolean {
    return !!arg && typeof arg === 'object' && !('kind' in arg);
  }

  async add(arg?: unknown): Promise<string | undefined> {
    if (this.isArgsObject(arg)) return this.addFromArgs(this.parseArgs(AddInstanceArgs, arg));
    return this.addInteractive();
  }

  private async addFromArgs(a: AddInstanceArgs): Promise<string> {
    const cfg = await readSshConfig(this.ctx.settings());
    const t = tryParseTarget(a.login, { sshConfig: cfg });
    if (!t.ok) throw new CommandInputError(vscode.l10n.t('Cannot read the login: {0}', t.problem));
    const pre = prefillPricing(this.ctx.catalog(), a.platform, a.card, a.gpuCount, a.billingMode, a.dataDiskGb);
    const pricing: Pricing = { ...pre.pricing };
    if (a.hourlyRate !== undefined) pricing.hourlyRate = yuanToFen(a.hourlyRate);
    if (a.spotRate !== undefined) pricing.spotRate = yuanToFen(a.spotRate);
    if (a.noGpuModeRate !== undefined) pricing.noGpuModeRate = yuanToFen(a.noGpuModeRate);
    if (a.storageGbDay !== undefined) pricing.storageGbDay = yuanToFen(a.storageGbDay);
    const card = findCard(a.card, this.ctx.catalog().cards)?.name ?? a.card;
    const id = newInstanceId(new Set(this.ctx.store.list().map((i) => i.id)));
    const fields = { id, name: a.name ?? `${this.platformLabel(a.platform)} ${card}`, platform: a.platform, card, gpuCount: a.gpuCount, login: loginFromTarget(t.target, a.password, a.keyPath), pricing };
    const check = validateInstance({ ...fields, intervals: [{ state: a.state, from: this.ctx.now(), computeRate: 0, storageRate: 0 }], createdAt: this.ctx.now() });
    if (!check.ok) throw new CommandInputError(vscode.l10n.t('Invalid instance at "{0}": {1}', check.path, check.message));
    const added = await this.ctx.store.add(fields, a.state, a.password);
    this.ctx.log.info(`added instance ${id} (${a.platform}, ${card} ×${a.gpuCount}) at ${fields.login.host}:${fields.login.port}`);
    this.guards?.afterStart(added);
    return id;
  }

  private async addInteractive(): Promise<string | undefined> {
    const settings = this.ctx.settings();
    const cfgText = await readSshConfig(settings);
    const hosts = sshConfigHosts(cfgText);
    let loginText: string | undefined;
    if (hosts.length > 0) {
      const paste = vscode.l10n.t('Paste the login command…');
      const pick = await vscode.window.showQuickPick([{ label: `$(clippy) ${paste}`, host: undefined as string | undefined }, ...hosts.map((h) => ({ label: `$(server) ${h}`, description: vscode.l10n.t('from SSH config'), host: h }))], { placeHolder: vscode.l10n.t('How do you log in to the instance?') });
      if (!pick) return undefined;
      loginText = pick.host;
    }
    if (loginText === undefined) {
      loginText = await vscode.window.showInputBox({
        title: vscode.l10n.t('Add GPU Instance (1/4): login'),
        prompt: vscode.l10n.t('Paste the login command the platform shows, e.g. ssh -p 12345 root@region.example.com'),
        ignoreFocusOut: true,
        validateInput: (v) => {
          const r = tryParseTarget(v, { sshConfig: cfgText });
          return r.ok ? undefined : r.problem;
        },
      });
      if (!loginText) return undefined;
    }
    const target = tryParseTarget(loginText, { sshConfig: cfgText });
    if (!target.ok) return undefined;
    let password: string | undefined;
    let keyPath: string | undefined;
    if (target.target.identityFiles.length === 0) {
      const how = await vscode.window.showQuickPick(
        [
          { label: vscode.l10n.t('Password'), description: vscode.l10n.t('kept in the editor’s secret storage only'), v: 'password' },
          { label: vscode.l10n.t('Private key file…'), v: 'key' },
          { label: vscode.l10n.t('SSH agent'), v: 'agent' },
        ],
        { placeHolder: vscode.l10n.t('How does the instance authenticate you?'), ignoreFocusOut: true },
      );
      if (!how) return undefined;
      if (how.v === 'password') {
        password = await vscode.window.showInputBox({ title: vscode.l10n.t('Add GPU Instance (1/4): password'), password: true, ignoreFocusOut: true, prompt: vscode.l10n.t('The password the platform shows next to the login command') });
        if (password === undefined) return undefined;
      } else if (how.v === 'key') {
        const f = await vscode.window.showOpenDialog({ canSelectMany: false, defaultUri: vscode.Uri.file(join(homedir(), '.ssh')), openLabel: vscode.l10n.t('Use this key') });
        if (!f?.[0]) return undefined;
        keyPath = f[0].fsPath;
      }
    }
    const catalog = this.ctx.catalog();
    const platformPick = await vscode.window.showQuickPick(
      catalog.platforms.filter((p) => p.prices.length > 0).map((p) => ({ label: this.ctx.language.startsWith('zh') ? p.name.zh : p.name.en, description: p.id, id: p.id })),
      { title: vscode.l10n.t('Add GPU Instance (2/4): platform'), placeHolder: vscode.l10n.t('Which platform is it on?'), ignoreFocusOut: true },
    );
    if (!platformPick) return undefined;
    const platform = catalog.platforms.find((p) => p.id === platformPick.id)!;
    const pricedCards = [...new Set(platform.prices.map((p) => p.card))];
    const cardPick = await vscode.window.showQuickPick(
      [...pricedCards.map((c) => findCard(c, catalog.cards)).filter((c) => c !== undefined), ...catalog.cards.filter((c) => !pricedCards.includes(c.id))].map((c) => ({ label: c.name, description: pricedCards.includes(c.id) ? vscode.l10n.t('priced in the catalog') : '', id: c.id })),
      { title: vscode.l10n.t('Add GPU Instance (3/4): card'), placeHolder: vscode.l10n.t('Which GPU?'), ignoreFocusOut: true },
    );
    if (!cardPick) return undefined;
    const countText = await vscode.window.showInputBox({ title: vscode.l10n.t('Add GPU Instance (3/4): number of GPUs'), value: '1', ignoreFocusOut: true, validateInput: (v) => { const r = parseCount(v, 1, 64); return r.ok ? undefined : problemText(r.problem); } });
    if (countText === undefined) return undefined;
    const gpuCount = Number(countText.trim());
    const offered = prefillPricing(catalog, platform.id, cardPick.id, gpuCount, 'hourly', 0).offeredModes;
    const modePick = await vscode.window.showQuickPick((offered.length ? offered : (['hourly'] as BillingMode[])).map((m) => ({ label: BILLING_LABEL(m), m })), { title: vscode.l10n.t('Add GPU Instance (4/4): billing'), ignoreFocusOut: true });
    if (!modePick) return undefined;
    const pre = prefillPricing(catalog, platform.id, cardPick.id, gpuCount, modePick.m, 0);
    const dated = pre.priceSource ? vscode.l10n.t('Catalog price as of {0} (source: {1}); edit it if the console shows another.', pre.priceSource.asOf ?? vscode.l10n.t('unknown date'), pre.priceSource.source) : vscode.l10n.t('The catalog has no price for this card here; enter the console’s price.');
    const rateText = await vscode.window.showInputBox({ title: vscode.l10n.t('Price per hour for the whole instance (yuan)'), prompt: dated, value: pre.priceSource ? fenToInput(pre.pricing.hourlyRate) : '', ignoreFocusOut: true, validateInput: (v) => { const r = parseYuan(v); return r.ok ? undefined : problemText(r.problem); } });
    if (rateText === undefined) return undefined;
    const diskText = await vscode.window.showInputBox({ title: vscode.l10n.t('Billed data disk size (GB)'), prompt: vscode.l10n.t('Storage is billed per GB per day, also while the instance is stopped ({0}/GB/day here).', formatCny(pre.pricing.storageGbDay)), value: '0', ignoreFocusOut: true, validateInput: (v) => { const r = parseGb(v); return r.ok ? undefined : problemText(r.problem); } });
    if (diskText === undefined) return undefined;
    const statePick = await vscode.window.showQuickPick((['running', 'spot', 'noGpu', 'stopped'] as InstanceState[]).map((s) => ({ label: stateLabel(s, vscode.l10n), s })), { placeHolder: vscode.l10n.t('What is it doing now?'), ignoreFocusOut: true });
    if (!statePick) return undefined;
    const card = findCard(cardPick.id, catalog.cards)?.name ?? cardPick.id;
    const name = await vscode.window.showInputBox({ title: vscode.l10n.t('Name'), value: `${platformPick.label} ${card}`, ignoreFocusOut: true, validateInput: (v) => (v.trim() && v.length <= 120 ? undefined : vscode.l10n.t('Enter a name of at most 120 characters.')) });
    if (!name) return undefined;
    const rate = parseYuan(rateText);
    const disk = parseGb(diskText);
    const args: AddInstanceArgs = {
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
    };
    return this.addFromArgs(args);
  }

  async edit(arg?: unknown): Promise<void> {
    if (this.isArgsObject(arg) && !(typeof arg === 'object' && arg && Object.keys(arg).length === 1 && 'id' in arg)) {
      const a = this.parseArgs(EditInstanceArgs, arg);
      const inst = this.ctx.store.get(a.id);
      if (!inst) throw new CommandInputError(vscode.l10n.t('No instance with id {0}.', a.id));
      await this.ctx.store.update(a.id, {
        ...(a.name !== undefined ? { name: a.name } : {}),
        ...(a.platform !== undefined ? { platform: a.platform } : {}),
        ...(a.card !== undefined ? { card: a.card } : {}),
        ...(a.gpuCount !== undefined ? { gpuCount: a.gpuCount } : {}),
      });
      const p = inst.pricing;
      const next: Pricing = {
        billingMode: a.billingMode ?? p.billingMode,
        hourlyRate: a.hourlyRate !== undefined ? yuanToFen(a.hourlyRate) : p.hourlyRate,
        noGpuModeRate: a.noGpuModeRate !== undefined ? yuanToFen(a.noGpuModeRate) : p.noGpuModeRate,
        storageGbDay: a.storageGbDay !== undefined ? yuanToFen(a.storageGbDay) : p.storageGbDay,
        dataDiskGb: a.dataDiskGb ?? p.dataDiskGb,
      };
      const spot = a.spotRate !== undefined ? yuanToFen(a.spotRate) : p.spotRate;
      if (spot !== undefined) next.spotRate = spot;
      await this.ctx.store.setPricing(a.id, next);
      return;
    }
    const inst = await this.resolve(arg);
    if (!inst) return;
    type Field = 'name' | 'hourlyRate' | 'spotRate' | 'noGpuModeRate' | 'storageGbDay' | 'dataDiskGb' | 'gpuCount';
    const p = inst.pricing;
    const fields: { label: string; description: string; f: Field }[] = [
      { label: vscode.l10n.t('Name'), description: inst.name, f: 'name' },
      { label: vscode.l10n.t('Price per hour'), description: formatRate(p.hourlyRate, vscode.l10n), f: 'hourlyRate' },
      { label: vscode.l10n.t('Spot price per hour'), description: p.spotRate !== undefined ? formatRate(p.spotRate, vscode.l10n) : '—', f: 'spotRate' },
      { label: vscode.l10n.t('No-GPU mode price per hour'), description: formatRate(p.noGpuModeRate, vscode.l10n), f: 'noGpuModeRate' },
      { label: vscode.l10n.t('Storage price per GB per day'), description: formatCny(p.storageGbDay), f: 'storageGbDay' },
      { label: vscode.l10n.t('Billed data disk size (GB)'), description: String(p.dataDiskGb), f: 'dataDiskGb' },
      { label: vscode.l10n.t('Number of GPUs'), description: String(inst.gpuCount), f: 'gpuCount' },
    ];
    const pick = await vscode.window.showQuickPick(fields, { placeHolder: vscode.l10n.t('What do you want to change? New prices apply from now on; past time keeps its price.') });
    if (!pick) return;
    const current = pick.f === 'name' ? inst.name : pick.f === 'gpuCount' ? String(inst.gpuCount) : pick.f === 'dataDiskGb' ? String(p.dataDiskGb) : fenToInput((p[pick.f] as number | undefined) ?? 0);
    const value = await vscode.window.showInputBox({
      title: pick.label,
      value: current,
      validateInput: (v) => {
        if (pick.f === 'name') return v.trim() && v.length <= 120 ? undefined : vscode.l10n.t('Enter a name of at most 120 characters.');
        const r = pick.f === 'gpuCount' ? parseCount(v, 1, 64) : pick.f === 'dataDiskGb' ? parseGb(v) : parseYuan(v);
        return r.ok ? undefined : problemText(r.problem);
      },
    });
    if (value === undefined) return;
    const edit: Record<string, unknown> = { id: inst.id };
    if (pick.f === 'name') edit.name = value.trim();
    else if (pick.f === 'gpuCount') edit.gpuCount = Number(value.trim());
    else if (pick.f === 'dataDiskGb') edit.dataDiskGb = Number(value.trim().replace(/\s*(gb|g|gib)$/i, ''));
    else {
      const r = parseYuan(value);
      if (r.ok) edit[pick.f] = r.fen / 100;
    }
    await this.edit(edit);
  }

  async remove(arg?: unknown): Promise<boolean> {
    const inst = await this.resolve(arg);
    if (!inst) return false;
    const scripted = instanceIdOf(arg) !== undefined && typeof arg !== 'object';
    const state = currentState(inst.intervals);
    if (!scripted && !(arg && typeof arg === 'object' && 'confirm' in arg && (arg as { confirm: unknown }).confirm === true)) {
      const billing = state !== 'released';
      const msg = billing
        ? vscode.l10n.t('Remove {0}? It is still {1} on the platform: removing it here does not stop billing there. Its saved password is deleted.', inst.name, stateLabel(state, vscode.l10n))
        : vscode.l10n.t('Remove {0} and its saved password?', inst.name);
      const ok = vscode.l10n.t('Remove');
      let detail: string | undefined;
      if ((state === 'running' || state === 'spot' || state === 'noGpu') && vscode.workspace.isTrusted && this.guards) {
        const guards = this.guards;
        const risk = await vscode.window
          .withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Comparing checkpoints on {0} with the local copy…', inst.name) }, () => guards.removalRisk(inst))
          .then(undefined, (e: unknown) => {
            this.ctx.log.warn(`[${inst.id}] removal check failed: ${e instanceof Error ? e.message : String(e)}`);
            return undefined;
          });
        detail = riskDetail(risk, vscode.l10n);
      }
      if ((await vscode.window.showWarningMessage(msg, { modal: true, ...(detail ? { detail } : {}) }, ok)) !== ok) return false;
    }
    await this.guards?.beforeForget(inst);
    await this.ctx.store.remove(inst.id);
    this.ctx.log.info(`removed instance ${inst.id}`);
    return true;
  }

  async updateLogin(arg?: unknown): Promise<void> {
    let a: { id: string; login: string; password?: string | undefined };
    if (this.isArgsObject(arg) && arg && typeof arg === 'object' && 'login' in arg) a = this.parseArgs(UpdateLoginArgs, arg);
    else {
      const inst = await this.resolve(arg, (i) => currentState(i.intervals) !== 'released');
      if (!inst) return;
      const cfg = await readSshConfig(this.ctx.settings());
      const login = await vscode.window.showInputBox({
        title: vscode.l10n.t('New login for {0}', inst.name),
        prompt: vscode.l10n.t('After a restart the platform shows a new login command (new port) and maybe a new password. Paste the command.'),
        ignoreFocusOut: true,
        validateInput: (v) => {
          const r = tryParseTarget(v, { sshConfig: cfg });
          return r.ok ? undefined : r.problem;
        },
      });
      if (!login) return;
      let password: string | undefined;
      if (inst.login.auth === 'password') {
        password = await vscode.window.showInputBox({ title: vscode.l10n.t('Password (leave empty to keep the saved one)'), password: true, ignoreFocusOut: true });
        if (password === undefined) return;
        if (password === '') password = undefined;
      }
      a = { id: inst.id, login, ...(password !== undefined ? { password } : {}) };
    }
    const inst = this.ctx.store.get(a.id);
    if (!inst) throw new CommandInputError(vscode.l10n.t('No instance with id {0}.', a.id));
    const t = tryParseTarget(a.login, { sshConfig: await readSshConfig(this.ctx.settings()) });
    if (!t.ok) throw new CommandInputError(vscode.l10n.t('Cannot read the login: {0}', t.problem));
    const keepPassword = inst.login.auth === 'password' && a.password === undefined && t.target.identityFiles.length === 0;
    const login = loginFromTarget(t.target, a.password ?? (keepPassword ? '' : undefined), inst.login.keyPath);
    if (keepPassword) login.auth = 'password';
    await this.ctx.store.setLogin(inst.id, login, a.password);
    this.ctx.log.info(`instance ${inst.id}: login updated to ${login.host}:${login.port}`);
    void vscode.window.showInformationMessage(vscode.l10n.t('{0} now logs in at {1}.', inst.name, `${login.user}@${login.host}:${login.port}`));
  }

  async switchState(arg?: unknown): Promise<InstanceState | undefined> {
    let id: string;
    let state: InstanceState;
    if (arg && typeof arg === 'object' && 'state' in arg) {
      const a = this.parseArgs(SwitchStateArgs, arg);
      id = a.id;
      state = a.state;
    } else {
      const inst = await this.resolve(arg, (i) => currentState(i.intervals) !== 'released');
      if (!inst) return undefined;
      const cur = currentState(inst.intervals);
      const p = inst.pricing;
      const rate = (s: InstanceState): string => {
        const fen = s === 'running' ? p.hourlyRate : s === 'spot' ? (p.spotRate ?? p.hourlyRate) : s === 'noGpu' ? p.noGpuModeRate : 0;
        return formatRate(fen + (p.storageGbDay * p.dataDiskGb) / 24, vscode.l10n);
      };
      const pick = await vscode.window.showQuickPick(
        INSTANCE_STATES.filter((s) => s !== cur && s !== 'released').map((s) => ({ label: stateLabel(s, vscode.l10n), description: rate(s), s })),
        { placeHolder: vscode.l10n.t('Switch {0} to… (do the same in the platform’s console)', inst.name) },
      );
      if (!pick) return undefined;
      id = inst.id;
      state = pick.s;
    }
    const r = await this.ctx.store.switchState(id, state);
    if (!r.ok) {
      const e = r.error;
      throw new CommandInputError(
        e.kind === 'alreadyReleased' ? vscode.l10n.t('This instance is released; add it again if you rent a new one.') : e.kind === 'sameState' ? vscode.l10n.t('The instance is already in that state.') : e.kind === 'unknownInstance' ? vscode.l10n.t('No instance with id {0}.', id) : vscode.l10n.t('The clock is before the current state began.'),
      );
    }
    this.ctx.log.info(`instance ${id}: state → ${state}`);
    if (state === 'running' || state === 'spot') this.guards?.afterStart(r.instance);
    return state;
  }

  async importFrom(arg?: unknown): Promise<{ added: number; replaced: number } | undefined> {
    let path: string;
    if (arg && typeof arg === 'object' && 'path' in arg) path = this.parseArgs(PathArgs, arg).path;
    else {
      const f = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { JSON: ['json'] }, openLabel: vscode.l10n.t('Import') });
      if (!f?.[0]) return undefined;
      path = f[0].fsPath;
    }
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      throw new CommandInputError(vscode.l10n.t('Cannot read {0}: {1}', path, (e as NodeJS.ErrnoException).code ?? String(e)));
    }
    const r = parseImport(text);
    if (!r.ok) throw new CommandInputError(loadProblemText(r.problem));
    const res = await this.ctx.store.importInstances(r.instances);
    const needPassword = r.instances.filter((i) => i.login.auth === 'password').length;
    void vscode.window.showInformationMessage(vscode.l10n.t('Imported {0} new and {1} updated instances.', res.added, res.replaced) + (needPassword ? ' ' + vscode.l10n.t('Passwords are not exported; use “Update Login” to enter them.') : ''));
    return res;
  }

  async exportTo(arg?: unknown): Promise<string | undefined> {
    let path: string;
    if (arg && typeof arg === 'object' && 'path' in arg) path = this.parseArgs(PathArgs, arg).path;
    else {
      const f = await vscode.window.showSaveDialog({ filters: { JSON: ['json'] }, defaultUri: vscode.Uri.file(join(homedir(), 'gpu-rent-instances.json')), saveLabel: vscode.l10n.t('Export') });
      if (!f) return undefined;
      path = f.fsPath;
    }
    await writeFile(path, exportInstances(this.ctx.store.list()), { encoding: 'utf8', mode: 0o600 });
    this.ctx.log.info(`exported ${this.ctx.store.list().length} instances (no passwords) to ${path}`);
    return path;
  }

  register(): vscode.Disposable[] {
    return [
      wrap(Commands.addInstance, (a) => this.add(a), this.ctx.log),
      wrap(Commands.editInstance, (a) => this.edit(a), this.ctx.log),
      wrap(Commands.removeInstance, (a) => this.remove(a), this.ctx.log),
      wrap(Commands.updateLogin, (a) => this.updateLogin(a), this.ctx.log),
      wrap(Commands.switchState, (a) => this.switchState(a), this.ctx.log),
      wrap(Commands.importInstances, (a) => this.importFrom(a), this.ctx.log),
      wrap(Commands.exportInstances, (a) => this.exportTo(a), this.ctx.log),
    ];
  }
}

/**
 * Registers a command whose failures are shown to the user (one line, no stack) and logged,
 * and also rethrown so `executeCommand` callers see them.
 */
export function wrap(id: string, run: (arg: unknown) => Promise<unknown>, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (arg: unknown) => {
    try {
      return await run(arg);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      log.error(`${id}: ${msg}`);
      void vscode.window.showErrorMessage(msg);
      throw e;
    }
  });
}

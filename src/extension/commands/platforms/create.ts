// New Instance… on a platform account: card, count, region, image, disk and the CUDA bound
// (typed, or taken from the user's PyTorch version) in quick picks and input boxes; then the
// checks of app/platforms/create.ts (nothing is created on a refusal), the price per hour and
// the storage per day in a modal confirmation, the create sent once, and a poll of the account
// so the instance appears in the tree with its login (its host key is pinned on first contact,
// as for every instance). A create whose answer is lost is looked for by name; if it is not
// listed yet the user is told it may still appear, never that it failed.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { z } from 'zod';
import { createInstance, previewCreate, type CreateInput, type CreatePreview } from '../../../app/platforms/create';
import type { Account } from '../../../app/platforms/accounts';
import { BOUNDS, boundSchema } from '../../../core/bounds';
import { AUTODL_SPEC_CARDS } from '../../../core/platforms/autodl';
import { AUTODL_MAX_GPUS, canCreate, CREATE_NAME, defaultCreateName, isRefusal, type CreateRefusal } from '../../../core/platforms/create';
import { PLATFORM_DESCRIPTORS } from '../../../core/platforms/descriptors';
import { CATALOG_PLATFORM } from '../../../core/platforms/types';
import { formatCny, yuanToFen } from '../../../core/money';
import { forLabel } from '../../../core/text';
import type { Catalog } from '../../../core/catalog';
import { cardLabel, catalogPrice, createButtons, createPriceLine, imageChoices, specStock, stepTitle, stockWords } from '../../createConfirm';
import type { StockReading } from '../../../core/startNow';
import { showInfo, showWarning, withNotificationProgress } from '../../notify';
import type { PlatformMonitor } from '../../monitors/platforms';
import type { CommandContext } from '../../services/context';
import { powerActionsOff } from '../../services/allowPower';
import { UserError } from '../../words/errors';
import { parseArgs } from '../pick';
import { isScripted } from '../registry';
import { platformErrorText, platformName } from '../../words/platforms';

/** A script's create: every choice given, and the price confirmed without a dialog. */
export const CreateInstanceArgs = z.strictObject({
  account: z.string().min(1).max(64),
  card: z.string().min(1).max(100),
  gpus: boundSchema(BOUNDS.gpus).optional(),
  region: z.string().min(1).max(60).optional(),
  image: z.string().min(1).max(120),
  diskGb: z.number().int().min(0).max(32768).optional(),
  cudaMin: z.string().max(10).optional(),
  torch: z.string().max(60).optional(),
  name: z.string().max(60).optional(),
  spotMaxYuan: z.number().min(0.01).max(10000).optional(),
  vSwitchId: z.string().max(100).optional(),
  securityGroupId: z.string().max(100).optional(),
  waitSeconds: z.number().int().min(0).max(1800).optional(),
  confirm: z.literal(true),
});

const SETTLE_EVERY_MS = 2000;
/** How long the card list waits for the stock read before it shows without it. */
const STOCK_WAIT_MS = 4000;

/** The words for a refusal, with what to do. */
export function refusalText(r: CreateRefusal): string {
  const d = r.detail;
  const own = d.platformCode ? ` (${String(d.platformCode)} ${String(d.platformMessage ?? '')})`.replace(/ \)$/, ')') : '';
  switch (r.code) {
    case 'unknownCard':
      return d.known ? vscode.l10n.t('Unknown card "{0}": AutoDL Pro offers {1}.', String(d.card), String(d.known)) + own : vscode.l10n.t('Unknown instance type "{0}": give one the platform sells in that zone.', String(d.card)) + own;
    case 'unknownRegion':
      return vscode.l10n.t('Unknown region "{0}".', String(d.region)) + (d.known ? ' ' + vscode.l10n.t('The account reads {0}.', String(d.known)) : '') + own;
    case 'imageNotFound':
      return vscode.l10n.t('Image "{0}" not found: give an image id the platform lists (AutoDL: base-image-… or your image-…).', String(d.image)) + own;
    case 'imageRequired':
      return vscode.l10n.t('An image is required: the platform creates no instance without one.');
    case 'cudaUnmet':
      return d.newest ? vscode.l10n.t('No host offers CUDA ≥ {0}: the newest driver known offers CUDA {1}. Lower the bound or use a PyTorch built for an older CUDA.', String(d.cuda), String(d.newest)) : vscode.l10n.t('No host with a free {0} meets CUDA ≥ {1} now: lower the bound, pick another card, or try later.', String(d.card), String(d.cuda)) + own;
    case 'balanceTooLow':
      return (d.balanceFen !== undefined ? vscode.l10n.t('The balance ({0}) does not cover an hour: top the account up first.', formatCny(Number(d.balanceFen))) : vscode.l10n.t('The balance does not cover an hour: top the account up first.')) + own;
    case 'realName':
      return vscode.l10n.t('The account is not real-name verified (实名认证): finish the verification in the platform’s console, then try again.') + own;
    case 'quotaExceeded':
      return vscode.l10n.t('The account’s instance quota is used up: release an instance or ask the platform for a higher quota.') + own;
    case 'noStock':
      if (d.zone) return vscode.l10n.t('{0} is sold out in {1}; zones that sell it now: {2}. Nothing was created and no other zone is picked for you.', String(d.card), String(d.zone), String(d.zones || '-')) + own;
      return vscode.l10n.t('No {0} is free now: try another card or region, or later.', String(d.card)) + own;
    case 'tooManyGpus':
      return vscode.l10n.t('{0} GPUs: at most {1} here.', String(d.gpus), String(d.max));
    case 'diskTooLarge':
      return vscode.l10n.t('{0} GB of disk: at most {1}.', String(d.diskGb), String(d.max));
    case 'spotNotOffered':
      return vscode.l10n.t('AutoDL Pro creates pay-as-you-go instances only.');
    case 'autoReleaseNotOffered':
      return vscode.l10n.t('AutoDL Pro has no auto-release time in its create.');
    case 'badName':
      return vscode.l10n.t('The name may hold letters, digits, . _ - only (at most 60).');
    case 'badCuda':
      return vscode.l10n.t('"{0}" is not a CUDA version (12.1) nor a PyTorch version or wheel tag (2.1.0+cu121, cu121).', String(d.given));
    case 'networkMissing':
      return vscode.l10n.t('A network piece is missing or not found ({0}{1}): nothing was created.', String(d.missing), d.given ? ` ${String(d.given)}` : '') + (d.note ? ` ${String(d.note)}` : '');
    case 'badPublicKey':
      return vscode.l10n.t('No usable SSH public key ({0}): the new instance logs in with your key, imported as a key pair.', String(d.path));
    case 'badBandwidth':
      return vscode.l10n.t('The public bandwidth must be 1 to {0} Mbit/s.', String(d.max));
    case 'spotStopNotOffered':
      return vscode.l10n.t('This cloud releases a reclaimed spot instance; it cannot stop it instead.');
    case 'notSupported':
      return vscode.l10n.t('This platform account cannot create instances here.');
  }
}

function detailLines(p: CreatePreview, catalog: Catalog): string[] {
  const s = p.spec;
  const lines = [
    vscode.l10n.t('Card: {0} ×{1}', cardLabel(p.kind, s.card), s.gpus),
    vscode.l10n.t('Region: {0}', s.region ?? p.region ?? vscode.l10n.t('any')),
    vscode.l10n.t('Image: {0}', s.image ?? '?'),
  ];
  if (s.diskGb) lines.push(vscode.l10n.t('Disk: {0} GB', s.diskGb));
  if (p.cuda) lines.push(!PLATFORM_DESCRIPTORS[p.kind].create?.cudaParameter ? vscode.l10n.t('CUDA ≥ {0}: not a create parameter here, the image decides the driver', p.cuda.cuda) : p.cuda.from === 'image' ? vscode.l10n.t("CUDA ≥ {0} (cuda_v_from {1}): the CUDA of image {2}, from the Pro page's public image table", p.cuda.cuda, String(p.request.cuda_v_from), p.spec.image ?? '?') : p.cuda.from === 'page' ? vscode.l10n.t("CUDA ≥ {0} (cuda_v_from {1}): no CUDA bound was given and the image's CUDA is not known, so the lowest the Pro page lists (any host may take it)", p.cuda.cuda, String(p.request.cuda_v_from)) : vscode.l10n.t('CUDA ≥ {0}', p.cuda.cuda));
  if (s.spot) lines.push(vscode.l10n.t('Spot, at most {0}/h', formatCny(s.spot.maxPriceFen)));
  // Always a price (issue 41 bug 7): the platform's, else the catalog's marked as such, else ? said plainly.
  lines.push(createPriceLine(p.priceFenPerHour, p.priceFenPerHour === undefined ? catalogPrice(catalog, p.kind, s.card, s.gpus) : undefined, vscode.l10n));
  if (s.diskGb) lines.push(p.storageFenPerDay !== undefined ? (p.storageSource === 'catalog' ? vscode.l10n.t('Storage: {0}/day (catalog estimate, not the platform’s quote)', formatCny(p.storageFenPerDay)) : vscode.l10n.t('Storage: {0}/day (the platform’s quote)', formatCny(p.storageFenPerDay))) : vscode.l10n.t('Storage: ?/day (not quoted separately)'));
  if (p.cloud) {
    const bw = p.cloud.bandwidthPrice ? `${formatCny(p.cloud.bandwidthPrice.fen)}/${p.cloud.bandwidthPrice.unit === 'GB' ? 'GB' : 'h'}` : '?/GB';
    lines.push(vscode.l10n.t('Public bandwidth: {0} Mbit/s, billed by traffic ({1})', p.cloud.bandwidthMbps, bw));
    lines.push(vscode.l10n.t('Login: your key {0}, imported as key pair {1}', p.cloud.key.path, p.cloud.key.name));
    const g = p.cloud.group;
    if (g) lines.push('make' in g ? vscode.l10n.t('Security group: {0}, made at create, SSH (TCP 22) in only', g.make) : vscode.l10n.t('Security group: {0}', g.id));
  }
  if (p.reclaim) lines.push(p.reclaim.behavior === 'stop' ? vscode.l10n.t('A spot reclaim stops it: its disks are kept and still bill, compute does not.') : p.reclaim.afterwards === 'detachedDisk' ? vscode.l10n.t('A spot reclaim releases it with its system disk; the data disk is kept and bills on its own until you delete it.') : vscode.l10n.t('A spot reclaim releases it with its disk.'));
  if (p.balanceFen !== undefined) lines.push(vscode.l10n.t('Balance: {0}', formatCny(p.balanceFen)));
  return lines;
}

async function ask(prompt: string, o: { title?: string; value?: string; placeHolder?: string; validate?: (s: string) => string | undefined } = {}): Promise<string | undefined> {
  const v = await vscode.window.showInputBox({ prompt, ignoreFocusOut: true, ...(o.title ? { title: o.title } : {}), ...(o.value !== undefined ? { value: o.value } : {}), ...(o.placeHolder ? { placeHolder: o.placeHolder } : {}), ...(o.validate ? { validateInput: o.validate } : {}) });
  return v === undefined ? undefined : v.trim();
}

/** The choices, asked one by one; undefined when the user cancels. */
async function askInput(mon: PlatformMonitor, a: Account, catalog: Catalog, stock: () => Promise<readonly StockReading[]>): Promise<CreateInput | undefined> {
  const c = PLATFORM_DESCRIPTORS[a.kind].create;
  if (!c) return undefined;
  // Every step titled with where the user is (issue 41 bug 7).
  const total = (c.spec === 'cardList' ? 7 : 6) + (c.network ? 2 : 0);
  let n0 = 0;
  const title = (what: string) => stepTitle(a.label, ++n0, total, what, vscode.l10n);
  let card: string;
  let gpus = 1;
  if (c.spec === 'cardList') {
    // The cards by name, with the catalog's price where it has one (marked as the catalog's) and the free cards
    // the stock read says (the tree's once-a-minute cache; not waited for past a few seconds).
    const readings = await Promise.race([stock().catch(() => [] as readonly StockReading[]), new Promise<readonly StockReading[]>((r) => setTimeout(() => r([]), STOCK_WAIT_MS))]);
    const pick = await vscode.window.showQuickPick(
      Object.entries(AUTODL_SPEC_CARDS).map(([spec, name]) => {
        const cp = catalogPrice(catalog, a.kind, spec, 1);
        const price = cp ? vscode.l10n.t('{0} · about {1}/h per card (catalog)', spec, formatCny(cp.fenPerHour)) : vscode.l10n.t('{0} · price: ? until created', spec);
        const free = stockWords(specStock(readings, spec), vscode.l10n);
        return { label: name, description: free ? `${price} · ${free}` : price, spec };
      }),
      { title: title(vscode.l10n.t('card')), placeHolder: vscode.l10n.t('Which card?'), ignoreFocusOut: true },
    );
    if (!pick) return undefined;
    card = pick.spec;
    const n = await vscode.window.showQuickPick(Array.from({ length: AUTODL_MAX_GPUS }, (_, i) => ({ label: String(i + 1), n: i + 1 })), { title: title(vscode.l10n.t('number of GPUs')), placeHolder: vscode.l10n.t('How many GPUs?'), ignoreFocusOut: true });
    if (!n) return undefined;
    gpus = n.n;
  } else {
    const t = await ask(vscode.l10n.t('Instance type (it fixes the card and count)'), { title: title(vscode.l10n.t('instance type')), placeHolder: c.instanceTypeExample ?? '', validate: (s) => (/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(s.trim()) ? undefined : vscode.l10n.t('Letters, digits, dots and dashes.')) });
    if (!t) return undefined;
    card = t;
  }
  let region: string | undefined;
  if (c.where === 'regionList') {
    const conn = await mon.connector(a);
    const list = conn && 'regions' in conn ? await (conn as unknown as { regions(): Promise<string[]> }).regions().catch(() => [] as string[]) : [];
    const pick = await vscode.window.showQuickPick(list.map((r) => ({ label: r })), { title: title(vscode.l10n.t('region')), placeHolder: vscode.l10n.t('Which region?'), ignoreFocusOut: true });
    if (!pick) return undefined;
    region = pick.label;
  } else {
    const r = await ask(c.where === 'zone' ? vscode.l10n.t('Zone (e.g. ap-guangzhou-3)') : vscode.l10n.t('Data center (empty: any)'), { title: title(vscode.l10n.t('region')), placeHolder: c.whereExample ?? '' });
    if (r === undefined) return undefined;
    region = r || undefined;
  }
  // The platform's public images as a list where its page gives them (AutoDL Pro's appendix, with their CUDA), else typed (issue 41 friction).
  let image: string | undefined;
  const imgTitle = title(vscode.l10n.t('image'));
  if (imageChoices(a.kind).length) {
    const other = vscode.l10n.t('Another image (your own image-…)…');
    const pick = await vscode.window.showQuickPick(
      [...imageChoices(a.kind).map((i) => ({ label: i.id, description: vscode.l10n.t('public base image, CUDA {0}', i.cuda) })), { label: other, description: '' }],
      { title: imgTitle, placeHolder: vscode.l10n.t('Which image?'), ignoreFocusOut: true },
    );
    if (!pick) return undefined;
    image = pick.label === other ? await ask(vscode.l10n.t('Image id'), { title: imgTitle, placeHolder: c.imageExample, validate: (s) => (s.trim() ? undefined : vscode.l10n.t('An image is required.')) }) : pick.label;
  } else image = await ask(vscode.l10n.t('Image id'), { title: imgTitle, placeHolder: c.imageExample, validate: (s) => (s.trim() ? undefined : vscode.l10n.t('An image is required.')) });
  if (!image) return undefined;
  const disk = await ask(c.disk === 'moreSystemDisk' ? vscode.l10n.t('More system disk, GB (0-500)') : vscode.l10n.t('Data disk, GB (0: none)'), { title: title(vscode.l10n.t('disk')), value: '0', validate: (s) => (/^\d{1,5}$/.test(s.trim()) ? undefined : vscode.l10n.t('A whole number of GB.')) });
  if (disk === undefined) return undefined;
  const cuda = await ask(vscode.l10n.t('Lowest CUDA the host must offer (12.1), or your PyTorch version (2.1.0+cu121); empty: none'), { title: title('CUDA'), placeHolder: '2.1.0+cu121' });
  if (cuda === undefined) return undefined;
  const name = await ask(vscode.l10n.t('Name (the create is found again by it)'), { title: title(vscode.l10n.t('name')), value: defaultCreateName(Math.floor(Date.now() / 1000), randomBytes(2).toString('hex')), validate: (s) => (CREATE_NAME.test(s.trim()) ? undefined : vscode.l10n.t('The name may hold letters, digits, . _ - only (at most 60).')) });
  if (!name) return undefined;
  let extra: Pick<CreateInput, 'vSwitchId' | 'securityGroupId'> = {};
  if (c.network) {
    const vsw = await ask(vscode.l10n.t('vSwitch id (its zone and VPC)'), { title: title('vSwitch'), placeHolder: 'vsw-…' });
    if (vsw === undefined) return undefined;
    const sg = await ask(vscode.l10n.t('Security group id (empty: one that opens SSH only is made)'), { title: title(vscode.l10n.t('security group')), placeHolder: 'sg-…' });
    if (sg === undefined) return undefined;
    extra = { ...(vsw ? { vSwitchId: vsw } : {}), ...(sg ? { securityGroupId: sg } : {}) };
  }
  const bound = !cuda ? {} : /^\d{1,2}\.\d$/.test(cuda) ? { cudaMin: cuda } : { torch: cuda };
  return { card, gpus, name, image, ...(region ? { region } : {}), ...(Number(disk) > 0 ? { diskGb: Number(disk) } : {}), ...bound, ...extra };
}

/** The account to create on: the script's, the only one that can, or the user's pick (a platform node narrows it to that platform). */
async function pickAccount(mon: PlatformMonitor, arg: unknown, scripted: z.infer<typeof CreateInstanceArgs> | undefined): Promise<Account | undefined> {
  const platform = arg && typeof arg === 'object' && (arg as { kind?: unknown }).kind === 'platform' ? String((arg as { platform?: unknown }).platform) : undefined;
  const all = mon.accounts.list().filter((a) => canCreate(a.kind) && (!platform || CATALOG_PLATFORM[a.kind] === platform));
  if (scripted) {
    const a = mon.accounts.list().find((x) => x.id === scripted.account);
    if (!a) throw new UserError(vscode.l10n.t('No platform account {0}.', scripted.account));
    return a;
  }
  if (!all.length) throw new UserError(vscode.l10n.t('No connected account can create instances: add an AutoDL Pro (developer token), 阿里云 or 腾讯云 account first.'));
  if (all.length === 1) return all[0];
  const pick = await vscode.window.showQuickPick(all.map((a) => ({ label: forLabel(a.label), description: `${a.id} · ${platformName(a.kind)}`, account: a })), { placeHolder: vscode.l10n.t('Create on which account?') });
  return pick?.account;
}

export async function createInstanceCommand(ctx: CommandContext, mon: PlatformMonitor, arg: unknown, stock: () => Promise<readonly StockReading[]> = async () => []): Promise<string | undefined> {
  const scripted = isScripted(arg) ? parseArgs(CreateInstanceArgs, arg) : undefined;
  const a = await pickAccount(mon, arg, scripted);
  if (!a) return undefined;
  if (!canCreate(a.kind)) throw new UserError(refusalText({ code: 'notSupported', detail: { kind: a.kind } }));
  if (!mon.powerAllowed(a.id)) throw powerActionsOff(a);
  const c = await mon.connector(a);
  if (!c) throw new UserError(vscode.l10n.t('The secret of {0} is missing: add the account again.', a.label));
  const input: CreateInput | undefined = scripted
    ? {
        card: scripted.card,
        gpus: scripted.gpus ?? 1,
        image: scripted.image,
        name: scripted.name ?? defaultCreateName(Math.floor(Date.now() / 1000), randomBytes(2).toString('hex')),
        ...(scripted.region ? { region: scripted.region } : {}),
        ...(scripted.diskGb ? { diskGb: scripted.diskGb } : {}),
        ...(scripted.cudaMin ? { cudaMin: scripted.cudaMin } : {}),
        ...(scripted.torch ? { torch: scripted.torch } : {}),
        ...(scripted.spotMaxYuan !== undefined ? { spot: { maxPriceFen: yuanToFen(scripted.spotMaxYuan) } } : {}),
        ...(scripted.vSwitchId ? { vSwitchId: scripted.vSwitchId } : {}),
        ...(scripted.securityGroupId ? { securityGroupId: scripted.securityGroupId } : {}),
      }
    : await askInput(mon, a, ctx.catalog(), stock);
  if (!input) return undefined;
  const p = await withNotificationProgress({ title: vscode.l10n.t('Checking {0} on {1}…', input.name, a.label) }, async () => {
    try {
      return await previewCreate(c, input);
    } catch (e) {
      throw new UserError(platformErrorText(e));
    }
  });
  if (isRefusal(p)) throw new UserError(vscode.l10n.t('Nothing created: {0}', refusalText(p)));
  if (!scripted) {
    const message = p.existing ? vscode.l10n.t('An instance named {0} already exists on {1}: it is the one, nothing new is created.', input.name, a.label) : vscode.l10n.t('Create {0} on {1}? It bills from its start.', input.name, a.label);
    // Cancel first and the close affordance: Enter or Escape never creates (issue 41 bug 7).
    const pick = await showWarning(message, { modal: true, detail: detailLines(p, ctx.catalog()).join('\n') }, ...createButtons(!!p.existing, vscode.l10n));
    if (!pick?.go) return undefined;
  }
  const waitMs = (scripted?.waitSeconds ?? 300) * 1000;
  const o = await withNotificationProgress({ title: vscode.l10n.t('Creating {0} on {1}…', input.name, a.label) }, async (progress) => {
    try {
      return await createInstance(c, p, { settleMs: waitMs, intervalMs: SETTLE_EVERY_MS, onProgress: (l) => progress.report({ message: l }) });
    } catch (e) {
      throw new UserError(vscode.l10n.t('Not created: {0}', platformErrorText(e)));
    }
  });
  if (o.status === 'refused') throw new UserError(vscode.l10n.t('Nothing created: {0}', refusalText(o.refusal)));
  // The account's list brings it into the tree with its login (and password) as any platform instance.
  await mon.pollNow(true);
  if (o.status === 'unknown') {
    ctx.log.warn(`[${a.id}] create of ${input.name}: answer lost and not listed yet (${o.reason})`);
    void showWarning(vscode.l10n.t('The platform’s answer to the create of {0} was lost and it is not listed yet. It may still appear in the tree; New Instance… with the same name finds it before creating anything.', input.name));
    return undefined;
  }
  ctx.log.info(`[${a.id}] ${p.existing ? 'found existing' : o.recovered ? 'created (found by name)' : 'created'} ${o.ref} (${input.name})${o.settled ? ', running' : ''}`);
  if (!scripted) void showInfo(o.settled ? vscode.l10n.t('{0} is running on {1}. It is in the Instances view.', input.name, a.label) : vscode.l10n.t('{0} was created on {1} and is starting. It shows in the Instances view.', input.name, a.label));
  return o.ref;
}

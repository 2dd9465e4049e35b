// Grab a Card…: the extension's face of app/grab.ts (gpu-rent grab). The limits are asked first
// (what to do, the card, the most per hour, the regions, how long, the channels to tell) and
// confirmed in one dialog; the watch runs as a cancellable progress notification whose line says
// each round's reason; the one action is the grab's. The lock is the panel's power-on locks, the
// same files gpu-rent takes, so a grab here and one in a terminal refuse each other.
import * as vscode from 'vscode';
import { z } from 'zod';
import { grab, canGrabWith, type GrabAccount, type GrabThen } from '../../../app/grab';
import { actText, outcomeText, roundText } from '../../../app/grabWords';
import { notifyEvent, type EventSend } from '../../../app/notify/send';
import { PlatformError } from '../../../app/platforms/errors';
import { canCreate, CREATE_NAME } from '../../../core/platforms/create';
import { GRAB_DEFAULT_WAIT_S, GRAB_MAX_REGIONS, GRAB_MAX_WAIT_S, grabCreateName, preflightCreate, type GrabAction } from '../../../core/platforms/grab';
import { refusalText } from './create';
import { formatCny, yuanToFen } from '../../../core/money';
import { ENGLISH } from '../../../core/l10n';
import type { Instance } from '../../../core/instances';
import { currentState } from '../../../core/spend';
import { showInfo, showWarning, withNotificationProgress } from '../../notify';
import { formatDuration } from '../../view/present';
import type { PlatformMonitor } from '../../monitors/platforms';
import type { NotifyChannels } from '../../notifyChannels';
import type { CommandContext } from '../../services/context';
import { UserError } from '../../words/errors';
import { parseArgs, pickInstance } from '../pick';
import { isScripted } from '../registry';
import { platformErrorText } from '../../words/platforms';

const Args = z.strictObject({
  action: z.enum(['start', 'clone', 'create']),
  card: z.string().trim().min(1).max(60),
  gpus: z.number().int().min(1).max(8).optional(),
  regions: z.array(z.string().min(1).max(40)).max(GRAB_MAX_REGIONS).optional(),
  maxPriceYuan: z.number().min(0.01).max(10000).optional(),
  /** The instance, for start and clone. */
  id: z.string().min(1).max(64).optional(),
  image: z.string().min(1).max(200).optional(),
  diskGb: z.number().int().min(0).max(32768).optional(),
  name: z.string().regex(CREATE_NAME).optional(),
  waitSeconds: z.number().int().min(1).max(GRAB_MAX_WAIT_S).optional(),
  notify: z.array(z.string().min(1).max(40)).max(20).optional(),
  confirm: z.literal(true),
});

const linkedStopped = (i: Instance): boolean => !!i.platformRef && currentState(i.intervals) === 'stopped';

export interface GrabHost {
  channels: NotifyChannels;
  sentJournal: string;
  lang: 'en' | 'zh-cn';
}

export async function grabCard(ctx: CommandContext, mon: PlatformMonitor, host: GrabHost, arg: unknown): Promise<string | undefined> {
  const s = isScripted(arg) ? parseArgs(Args, arg) : undefined;
  let action: GrabAction | undefined = s?.action;
  if (!action) {
    const picks: { label: string; detail: string; a: GrabAction }[] = [
      { label: vscode.l10n.t('Create an instance'), detail: vscode.l10n.t('AutoDL Pro, 阿里云, 腾讯云: created with the image you give, once a card is free'), a: 'create' },
      { label: vscode.l10n.t('Start a shut-down instance'), detail: vscode.l10n.t('powered on with its GPU once its card is free'), a: 'start' },
      { label: vscode.l10n.t('Clone a shut-down instance'), detail: vscode.l10n.t('AutoDL console: copied onto a host with a free card'), a: 'clone' },
    ];
    action = (await vscode.window.showQuickPick(picks, { placeHolder: vscode.l10n.t('What should GPU Rent do once a card is free?') }))?.a;
    if (!action) return undefined;
  }
  let then: GrabThen;
  let target: string;
  let defaultCard = '';
  if (action === 'create') {
    const accounts: GrabAccount[] = [];
    for (const a of mon.accounts.list().filter((x) => canCreate(x.kind) && mon.powerAllowed(x.id))) {
      const c = await mon.connector(a);
      if (c && canGrabWith(c, 'create')) accounts.push({ account: a, connector: c });
    }
    if (!accounts.length) throw new UserError(vscode.l10n.t('No platform account that creates instances has power actions allowed: add an AutoDL Pro, 阿里云 or 腾讯云 account and allow power actions for it.'));
    then = { action, accounts, name: '' };
    target = '';
  } else {
    const inst = await pickInstance(ctx, s?.id !== undefined ? { id: s.id } : arg, linkedStopped, vscode.l10n.t('Which shut-down instance?'));
    if (!inst) return undefined;
    const link = await mon.link(inst);
    if (!link || !inst.platformRef) throw new UserError(vscode.l10n.t('{0} is not linked to a connected platform account.', inst.name));
    if (!mon.powerAllowed(link.account.id)) throw new UserError(vscode.l10n.t('Power actions are not allowed for {0}: allow them first.', link.account.label));
    if (action === 'clone' && !canGrabWith(link.connector, 'clone')) throw new UserError(vscode.l10n.t('Only an AutoDL console account can clone an instance.'));
    const p = (await link.connector.list()).find((x) => x.ref === inst.platformRef!.ref);
    if (!p || p.state !== 'stopped') throw new UserError(vscode.l10n.t('{0} is not shut down on the platform: there is nothing to grab for.', inst.name));
    then = action === 'start' ? { action, account: link, instance: p } : { action, account: link, instance: p };
    target = inst.name;
    defaultCard = p.card ?? '';
  }
  const card = s?.card ?? (await vscode.window.showInputBox({ prompt: vscode.l10n.t('Which card? (4090 matches "RTX 4090"; a Pro spec such as 4090D; an instance type such as GN7)'), value: defaultCard, validateInput: (v) => (v.trim() && v.length <= 60 ? undefined : vscode.l10n.t('A card name such as 4090')) }))?.trim();
  if (!card) return undefined;
  const gpus = s?.gpus ?? 1;
  if (then.action === 'create') {
    const image = s ? s.image : await vscode.window.showInputBox({ prompt: vscode.l10n.t('The image to create it with (AutoDL Pro base-image-… or image-…; an image id on 阿里云/腾讯云)') });
    if (image === undefined && !s) return undefined;
    const name = s?.name ?? grabCreateName(card, gpus);
    // The limits a platform would refuse (GPUs, image, disk) are said now, not once a card is free.
    const refusals = then.accounts.map((a) => ({ a, r: preflightCreate(a.account.kind, { gpus, name, ...(image ? { image } : {}), ...(s?.diskGb !== undefined ? { diskGb: s.diskGb } : {}) }) }));
    const fit = refusals.filter((x) => !x.r).map((x) => x.a);
    for (const x of refusals) if (x.r) ctx.log.info(`grab: ${x.a.account.id} not watched: ${x.r.code}`);
    const first = refusals.find((x) => x.r)?.r;
    if (!fit.length && first) throw new UserError(vscode.l10n.t('Nothing watched: {0}', refusalText(first)));
    then = { ...then, accounts: fit, name, ...(image ? { image } : {}), ...(s?.diskGb !== undefined ? { diskGb: s.diskGb } : {}) };
    target = name;
  }
  let maxPriceFen = s?.maxPriceYuan !== undefined ? yuanToFen(s.maxPriceYuan) : undefined;
  let regions = s?.regions ?? [];
  let waitS = s?.waitSeconds ?? GRAB_DEFAULT_WAIT_S;
  let sends: EventSend[] = s?.notify ? (await host.channels.resolve(s.notify)).sends : [];
  if (!s) {
    const price = await vscode.window.showInputBox({ prompt: vscode.l10n.t('The most per hour, in yuan (empty: any price). A price the platform does not say is never taken under a limit.'), validateInput: (v) => (v.trim() === '' || (Number(v) >= 0.01 && Number(v) <= 10000) ? undefined : vscode.l10n.t('A price in yuan, such as 2.5')) });
    if (price === undefined) return undefined;
    maxPriceFen = price.trim() ? yuanToFen(Number(price)) : undefined;
    const r = await vscode.window.showInputBox({ prompt: vscode.l10n.t('Only these regions, data centers or zones, comma-separated (empty: any)') });
    if (r === undefined) return undefined;
    regions = [...new Set(r.split(',').map((x) => x.trim()).filter(Boolean))].slice(0, GRAB_MAX_REGIONS);
    const w = await vscode.window.showQuickPick([3600, 6 * 3600, 24 * 3600, 3 * 86400].map((x) => ({ label: vscode.l10n.t('Watch for up to {0}', formatDuration(x, vscode.l10n)), x })), { placeHolder: vscode.l10n.t('How long may GPU Rent watch?') });
    if (!w) return undefined;
    waitS = w.x;
    if (host.channels.list().length) {
      const chosen = await vscode.window.showQuickPick(host.channels.list().map((c) => ({ label: c.name, description: c.kind })), { canPickMany: true, placeHolder: vscode.l10n.t('Which message channels should be told? (none: only VS Code)') });
      if (!chosen) return undefined;
      sends = (await host.channels.resolve(chosen.map((c) => c.label))).sends;
    }
    const go = vscode.l10n.t('Grab');
    const what = then.action === 'create' ? vscode.l10n.t('create {0}', target) : then.action === 'start' ? vscode.l10n.t('start {0}', target) : vscode.l10n.t('clone {0}', target);
    const msg = vscode.l10n.t('Watch for a free {0} ×{1} and then {2}, once? Regions: {3}. Price: {4}. For up to {5}. It bills from the moment it acts.', card, gpus, what, regions.length ? regions.join(', ') : vscode.l10n.t('any'), maxPriceFen !== undefined ? vscode.l10n.t('at most {0}/h', formatCny(maxPriceFen)) : vscode.l10n.t('any'), formatDuration(waitS, vscode.l10n));
    if ((await showWarning(msg, { modal: true }, go)) !== go) return undefined;
  }
  const envMin = Number(process.env.GPU_RENT_WAIT_MIN_INTERVAL_MS);
  ctx.log.info(`grab ${card} x${gpus} --then ${action} ${target}: regions ${regions.join(',') || 'any'}, max ${maxPriceFen ?? 'any'} fen/h, up to ${waitS} s`);
  return withNotificationProgress({ title: vscode.l10n.t('Grabbing a {0} for {1}…', card, target), cancellable: true }, async (progress, token) => {
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    try {
      const o = await grab({
        limits: { card, gpus, regions, ...(maxPriceFen !== undefined ? { maxPriceFen } : {}) },
        then,
        locks: mon.powerLocks,
        lockWhat: `Grab a Card (${action})`,
        maxWaitMs: waitS * 1000,
        signal: abort.signal,
        ...(envMin > 0 ? { minIntervalMs: envMin } : {}),
        settleMs: action === 'clone' ? 900_000 : 300_000,
        settleIntervalMs: 2000,
        onRound: (r) => {
          ctx.log.info(`grab: ${roundText(r, ENGLISH)}`);
          progress.report({ message: roundText(r, vscode.l10n) });
        },
        onAct: (a) => progress.report({ message: actText(a, target, vscode.l10n) }),
        onProgress: (line) => progress.report({ message: line.slice(0, 120) }),
      });
      void mon.pollNow(true);
      switch (o.kind) {
        case 'done': {
          const text = outcomeText(o, target, vscode.l10n);
          ctx.log.info(`grab: done ${o.account}/${o.ref}`);
          if (sends.length) {
            const results = await notifyEvent(`grab-${o.account}-${o.ref}-${Math.floor(Date.now() / 1000)}`, { kind: 'grabbed', task: o.name, action: o.action, card: o.card, region: o.region ?? null, hourlyFen: o.priceFen ?? null, waitedSeconds: Math.round(o.waitedMs / 1000), instance: o.ref }, sends, { journal: host.sentJournal, by: 'laptop', lang: host.lang });
            for (const r of results) if (r.status === 'failed') ctx.log.warn(`grab: the message to ${r.channel} was not sent: ${r.message}`);
          }
          void showInfo(text);
          return o.ref;
        }
        case 'cancelled':
          void showInfo(outcomeText(o, target, vscode.l10n));
          return undefined;
        case 'unknown':
          void showWarning(outcomeText(o, target, vscode.l10n));
          return undefined;
        case 'refused':
          throw new UserError(o.failure ? platformErrorText(new PlatformError(o.failure)) : outcomeText(o, target, vscode.l10n));
        default:
          throw new UserError(outcomeText(o, target, vscode.l10n));
      }
    } finally {
      sub.dispose();
    }
  });
}

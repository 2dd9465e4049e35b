// Keep from Release on its own while VS Code runs, for the accounts listed in
// gpuRent.platforms.keepAlive (with power actions on): every 30 minutes `runKeepAlive`
// (app/platforms/keepAlive.ts, the code `gpu-rent schedule run` runs from cron) looks at their
// shut-down instances and starts each one within 3 days of its release day in no-GPU mode, checks
// it and shuts it down again, under the platform monitor's power-on locks (the lock files gpu-rent
// takes), so it never runs beside a Power On, a Start When a Card Is Free or a cron run. Each
// outcome is told once.
import * as vscode from 'vscode';
import { runKeepAlive, type KeepAliveAccount, type KeepAliveResult } from '../../app/platforms/keepAlive';
import { formatCny } from '../../core/money';
import { beijingDateTime } from '../../core/spend';
import { showInfo, showWarning } from '../notify';
import type { ScheduleHost } from './schedules';

export interface KeepAliveHost extends ScheduleHost {
  /** The account ids of gpuRent.platforms.keepAlive. */
  keepAliveAccounts(): readonly string[];
}

export interface KeepAliveMonitorOptions {
  everyMs?: number;
  firstMs?: number;
  /** Epoch seconds. */
  now?: () => number;
  settleMs?: number;
  intervalMs?: number;
}

const MAX_TOLD = 500;

/** The notification for one result, or undefined for those only logged (nothing to do; busy is tried again). */
export function keepAliveMessage(r: KeepAliveResult): { level: 'info' | 'warning'; text: string } | undefined {
  const name = r.name || r.ref || r.account;
  const clock = r.day !== undefined && r.days !== undefined ? vscode.l10n.t('day {0} of {1} shut down', r.day, r.days) : '';
  switch (r.outcome) {
    case 'done': {
      const cost = r.costFen !== undefined ? formatCny(r.costFen) : '?';
      const next = r.newReleaseAt !== undefined ? vscode.l10n.t('New release day: {0} (Beijing).', beijingDateTime(r.newReleaseAt)) : vscode.l10n.t('The platform gave no new release day: check it in the console.');
      return { level: 'info', text: vscode.l10n.t('Kept {0} from release ({1}): started in no-GPU mode, checked and shut down again after {2} s, about {3}. {4}', name, clock, r.ranS ?? 0, cost, next) };
    }
    case 'unsettled':
    case 'failed':
    case 'refused':
      if (r.stillBilling) return { level: 'warning', text: vscode.l10n.t('Keep from Release of {0} may STILL BILL: {1}', name, reasonText(r)) };
      return { level: 'warning', text: vscode.l10n.t('Keep from Release of {0} did not happen: {1}', name, reasonText(r)) };
    default:
      return undefined;
  }
}

/** Why it did not happen, in the UI's language; the platform's own code and words kept as they came. */
function reasonText(r: KeepAliveResult): string {
  const own = r.failure ? `${r.failure.code} ${r.failure.message}`.trim() : r.detail;
  switch (r.code) {
    case 'platformNoClock':
      return vscode.l10n.t('the platform does not release shut-down instances on a clock');
    case 'noNoGpuStart':
      return vscode.l10n.t('the API has no no-GPU start (AutoDL Pro): use Keep from Release by hand');
    case 'readOnly':
      return vscode.l10n.t('account {0} is not in gpuRent.platforms.powerActions', r.account);
    case 'listFailed':
    case 'readFailed':
      return vscode.l10n.t('its state could not be read: {0}', own);
    case 'startRefused':
      return vscode.l10n.t('the no-GPU start was refused: {0}; it stays shut down', own);
    case 'stopRefused':
      return vscode.l10n.t('the shut-down was refused: {0}. Shut it down in the console', own);
    case 'notSeenStopped':
      return vscode.l10n.t('shut-down sent, but it reports "{0}": check it in the console', r.raw ?? '?');
    default:
      return r.detail;
  }
}

export class KeepAliveMonitor implements vscode.Disposable {
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly first: ReturnType<typeof setTimeout>;
  private running: Promise<void> | undefined;
  private readonly told = new Set<string>();

  constructor(
    private readonly host: KeepAliveHost,
    private readonly log: Pick<vscode.LogOutputChannel, 'info' | 'warn' | 'debug'>,
    private readonly o: KeepAliveMonitorOptions = {},
  ) {
    const every = o.everyMs ?? 30 * 60_000;
    this.timer = setInterval(() => void this.tick(), every);
    this.first = setTimeout(() => void this.tick(), o.firstMs ?? Math.min(every, 60_000));
  }

  tick(): Promise<void> {
    return (this.running ??= this.runOnce().finally(() => (this.running = undefined)));
  }

  private async runOnce(): Promise<void> {
    const wanted = this.host.keepAliveAccounts();
    if (!wanted.length) return;
    const accounts: KeepAliveAccount[] = [];
    for (const a of this.host.accounts.list()) {
      if (!wanted.includes(a.id)) continue;
      const c = await this.host.connector(a).catch(() => undefined);
      if (c) accounts.push({ id: a.id, kind: a.kind, powerActions: this.host.powerAllowed(a.id), keepAlive: true, connector: c });
    }
    if (!accounts.length) return;
    let acted = false;
    await runKeepAlive({
      now: this.o.now?.() ?? Math.floor(Date.now() / 1000),
      accounts,
      locks: this.host.powerLocks,
      ...(this.o.settleMs !== undefined ? { settleMs: this.o.settleMs } : {}),
      ...(this.o.intervalMs !== undefined ? { intervalMs: this.o.intervalMs } : {}),
      onResult: (r) => {
        if (r.outcome === 'done' || r.outcome === 'unsettled' || r.stillBilling) acted = true;
        this.tell(r);
      },
    }).catch((e: unknown) => this.log.warn(`keep-alive: ${e instanceof Error ? e.message : String(e)}`));
    if (acted) void this.host.pollNow(true);
  }

  private tell(r: KeepAliveResult): void {
    const line = `keep-alive ${r.account}/${r.ref || '-'}: ${r.outcome}: ${r.detail}`;
    if (r.outcome === 'notDue' || r.outcome === 'notStopped' || r.outcome === 'noClock') this.log.debug(line);
    else this.log.info(line);
    const m = keepAliveMessage(r);
    if (!m) return;
    // An account-wide refusal is said once a session; an instance's outcome once per outcome and release day.
    const key = `${r.account}/${r.ref}:${r.outcome}:${r.releaseAt ?? ''}`;
    if (this.told.has(key)) return;
    if (this.told.size >= MAX_TOLD) this.told.clear();
    this.told.add(key);
    void (m.level === 'info' ? showInfo(m.text) : showWarning(m.text));
  }

  dispose(): void {
    clearInterval(this.timer);
    clearTimeout(this.first);
  }
}

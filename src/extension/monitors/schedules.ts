// Power schedules kept by the extension while VS Code runs: once a minute `runDue` over
// $GPU_RENT_HOME/schedules.json (the file `gpu-rent schedule add` writes) with the panel's own
// accounts, those whose power actions are on (gpuRent.platforms.powerActions). A rule names its
// account by id: rules of ids the panel does not hold are left for `gpu-rent schedule run`. A
// cron runner may run beside it: the run lock and the rules' handled marks make each time
// happen once, and the power-on lock file (the platform monitor's locks) keeps either from
// starting an instance another power-on is starting. Each outcome is told once.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { configHome } from '../../app/platforms/accountFile';
import type { Account } from '../../app/platforms/accounts';
import type { PowerOnLocks } from '../../app/platforms/powerLock';
import { runDue, SCHEDULE_FILE, type RunResult, type ScheduleAccount } from '../../app/schedule';
import type { Connector } from '../../core/platforms/types';
import type { ScheduleAction } from '../../core/schedule';
import { beijingDateTime } from '../../core/spend';
import { showInfo, showWarning } from '../notify';
import { KeepAliveMonitor } from './keepAlive';

/** What the runner needs from the platform monitor. */
export interface ScheduleHost {
  accounts: { list(): readonly Account[] };
  powerAllowed(accountId: string): boolean;
  connector(a: Account): Promise<Connector | undefined>;
  powerLocks: PowerOnLocks;
  pollNow(force?: boolean): Promise<void>;
  /** The accounts kept from release on their own (gpuRent.platforms.keepAlive): with it the runner keeps them too, as `gpu-rent schedule run` does. */
  keepAliveAccounts?(): readonly string[];
}

export interface ScheduleMonitorOptions {
  home?: string;
  everyMs?: number;
  /** Epoch seconds. */
  now?: () => number;
  /** How long to follow a state after an action (the CLI's 120 s unless a test lowers it). */
  settleMs?: number;
  intervalMs?: number;
}

const MAX_TOLD = 500;

export function actionWords(a: ScheduleAction): string {
  return a === 'power-on' ? vscode.l10n.t('power on (GPU)') : a === 'no-gpu' ? vscode.l10n.t('switch to no-GPU mode') : vscode.l10n.t('power off');
}

/** The notification for one result, or undefined for the ones only logged (nothing to do, superseded, tried again next minute). */
export function resultMessage(r: RunResult): { level: 'info' | 'warning'; text: string } | undefined {
  if (r.retry || r.outcome === 'skipped' || r.outcome === 'superseded') return undefined;
  const what = actionWords(r.rule.action);
  const due = beijingDateTime(r.at);
  // The rule's name and the detail carry platform words: notify.ts renders the whole message as data.
  const name = r.rule.name || r.rule.ref;
  switch (r.outcome) {
    case 'done':
      return { level: 'info', text: vscode.l10n.t('Power schedule {0}: {1} {2} done (due {3} Beijing time).', r.rule.id, what, name, due) };
    case 'refused':
      return { level: 'warning', text: vscode.l10n.t('Power schedule {0}: {1} {2} was refused (due {3} Beijing time): {4}', r.rule.id, what, name, due, r.detail) };
    case 'missed':
      return { level: 'warning', text: vscode.l10n.t('Power schedule {0}: {1} {2} was missed (due {3} Beijing time; nothing ran then, VS Code was closed or the computer slept): {4}', r.rule.id, what, name, due, r.detail) };
    case 'unsettled':
      return { level: 'warning', text: vscode.l10n.t('Power schedule {0}: {1} {2} was sent but has not settled (due {3} Beijing time): {4}', r.rule.id, what, name, due, r.detail) };
    case 'busy':
      return { level: 'warning', text: vscode.l10n.t('Power schedule {0}: {1} {2} was not sent (due {3} Beijing time): {4}', r.rule.id, what, name, due, r.detail) };
    default:
      return { level: 'warning', text: vscode.l10n.t('Power schedule {0}: {1} {2} failed (due {3} Beijing time): {4}', r.rule.id, what, name, due, r.detail) };
  }
}

export class ScheduleMonitor implements vscode.Disposable {
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly first: ReturnType<typeof setTimeout>;
  private running: Promise<void> | undefined;
  private readonly told = new Set<string>();
  private lastError = '';
  private readonly keepAlive: KeepAliveMonitor | undefined;

  constructor(
    private readonly host: ScheduleHost,
    private readonly log: Pick<vscode.LogOutputChannel, 'info' | 'warn' | 'debug'>,
    private readonly o: ScheduleMonitorOptions = {},
  ) {
    const every = o.everyMs ?? 60_000;
    this.timer = setInterval(() => void this.tick(), every);
    // A first look soon after start: a rule due while VS Code was closed runs if still in its window.
    this.first = setTimeout(() => void this.tick(), Math.min(every, 10_000));
    // Keep from Release beside the rules, as `gpu-rent schedule run` does (its own, slower clock: monitors/keepAlive.ts).
    const keep = host.keepAliveAccounts?.bind(host);
    this.keepAlive = keep ? new KeepAliveMonitor({ ...hostOf(host), keepAliveAccounts: keep }, log) : undefined;
  }

  /** One run (callers wait for the one in progress). */
  tick(): Promise<void> {
    return (this.running ??= this.runOnce().finally(() => (this.running = undefined)));
  }

  private async runOnce(): Promise<void> {
    const home = this.o.home ?? configHome(process.env);
    // No schedules file: nothing to read, no lock taken.
    if (!existsSync(join(home, SCHEDULE_FILE))) return;
    const accounts: ScheduleAccount[] = [];
    for (const a of this.host.accounts.list()) {
      if (!this.host.powerAllowed(a.id)) continue;
      const c = await this.host.connector(a).catch(() => undefined);
      if (c) accounts.push({ id: a.id, kind: a.kind, powerActions: true, connector: c });
    }
    if (!accounts.length) return;
    const now = this.o.now?.() ?? Math.floor(Date.now() / 1000);
    let acted = false;
    try {
      const r = await runDue({
        home,
        now,
        accounts,
        locks: this.host.powerLocks,
        onlyTheseAccounts: true,
        ...(this.o.settleMs !== undefined ? { settleMs: this.o.settleMs } : {}),
        ...(this.o.intervalMs !== undefined ? { intervalMs: this.o.intervalMs } : {}),
        onResult: (x) => {
          if (x.outcome !== 'skipped' && x.outcome !== 'superseded' && x.outcome !== 'missed') acted = true;
          this.tell(x);
        },
      });
      if ('busy' in r) this.log.debug(`schedules: another runner${r.busy.pid ? ` (pid ${r.busy.pid})` : ''} is running them now`);
      this.lastError = '';
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      // A bad or unsafe schedules file: said once, not every minute.
      if (msg !== this.lastError) {
        this.lastError = msg;
        this.log.warn(`schedules: ${msg}`);
        void showWarning(vscode.l10n.t('GPU Rent could not run the power schedules: {0}', msg));
      }
    }
    if (acted) void this.host.pollNow(true);
  }

  private tell(r: RunResult): void {
    this.log.info(`schedule ${r.rule.id} ${r.rule.action} ${r.rule.account}/${r.rule.ref} due ${beijingDateTime(r.at)}: ${r.outcome}: ${r.detail}${r.retry ? ' (tried again while in its window)' : ''}`);
    const key = `${r.rule.id}@${r.at}:${r.outcome}`;
    if (this.told.has(key)) return;
    if (this.told.size >= MAX_TOLD) this.told.clear();
    this.told.add(key);
    const m = resultMessage(r);
    if (!m) return;
    void (m.level === 'info' ? showInfo(m.text) : showWarning(m.text));
  }

  dispose(): void {
    clearInterval(this.timer);
    clearTimeout(this.first);
    this.keepAlive?.dispose();
  }
}

/** The host's methods bound to it (the platform monitor is a class instance). */
function hostOf(h: ScheduleHost): ScheduleHost {
  return { accounts: h.accounts, powerAllowed: (id) => h.powerAllowed(id), connector: (a) => h.connector(a), powerLocks: h.powerLocks, pollNow: (f) => h.pollNow(f) };
}

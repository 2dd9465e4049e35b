// What one launch's steps share while it is driven: the task and the host's hooks, the state
// (every change saved before the next step), the boxes connected now, and the few readings the
// watch loop carries between polls. The steps are functions of it (acquire.ts … end.ts).
import { resolve } from 'node:path';
import { formatCny, type Fen } from '../../core/money';
import { checkBudget, spentFen, withEvent, type LaunchOutcome, type LaunchPhase, type LaunchState } from '../../core/task/launch';
import type { Task } from '../../core/task/types';
import type { Catalog } from '../../core/catalog';
import { ENGLISH, type L10n } from '../../core/l10n';
import type { DivergedMemo, DivergedPolicy } from '../runs/diverged';
import type { ConnectOptions } from '../../remote/connect-options';
import type { RemoteConnection } from '../../remote/connection';
import { knownHostsName } from '../../remote/target';
import { sleep } from '../../remote/util/sleep';
import type { PowerOnLocks } from '../platforms/powerLock';
import type { SshPool } from '../pool';
import { LogTail } from '../runs/logTail';
import { checkProgressPattern } from '../../core/progress/userPattern';
import type { RunNode } from '../runs/multinode';
import type { AcquiredBox, LaunchAccount } from './boxes';
import { writeState } from './store';
import type { UnattendedHost } from './unattended';
import type { MirrorProbeHooks } from './mirrors';
import { burnOf, finishPatch, type StopReason } from './rules';

export interface LaunchHost {
  configHome: string;
  /** How to connect (known hosts, keys, trust prompts, the password for an SSH login). */
  connectOptions(box: AcquiredBox): ConnectOptions;
  accounts(): Promise<LaunchAccount[]>;
  /** Every step and event as it happens, with the state after it. */
  onEvent?(line: string, state: LaunchState): void;
  /** Asked before a create (unless `yes`): true = create. */
  confirmCreate?(what: string): Promise<boolean>;
  /** Asked before a release (unless `yes`): true = release. */
  confirmRelease?(label: string): Promise<boolean>;
  signal?: AbortSignal;
  /** Seconds. */
  now?(): number;
  /** Watch loop period (default 5000 ms); tests lower it. */
  pollMs?: number;
  /** Waiting for a card / for a platform state (defaults 3600 s / 300 s). */
  waitForGpuMs?: number;
  settleMs?: number;
  settleIntervalMs?: number;
  /** Seconds the box's SSH port may stay up after a power-off from the box (default 120). */
  powerVerifySeconds?: number;
  /** Where a spot box's metadata service answers (default 阿里云's 100.100.100.200); tests point it at a local server. */
  spotMetadataHost?: string;
  /** Close the lid: the user's stores and message channels for the on-box supervisor and the end's message (unattended.ts). */
  unattended?: UnattendedHost;
  /** Tests: what the box runs to power itself off at an unattended end (default: shutdown as root, or sudo -n). */
  boxPowerOffCommand?: string;
  /** Where the ended run is recorded (app/ledger's runs.jsonl); default configHome (the CLI's). */
  ledgerDir?: string;
  /** Tests: after how long without the laptop's mark the box counts the laptop away (default 120 s). */
  laptopAwaySeconds?: number;
  /** Tests: the setup step's mirror probe pointed at local endpoints and a turbo file of the test's (app/launch/mirrors.ts). */
  mirrorProbe?: MirrorProbeHooks;
  /** The front end's language for the lines the launch says and keeps (vscode.l10n, the CLI's l10nIn(lang)); default English. */
  l10n?: L10n;
}

export interface LaunchOptions {
  /** The task file, absolute; the workdir and local folders are relative to its folder. */
  file: string;
  task: Task;
  smoke: boolean;
  /** Continue the launch in progress (required when one is). */
  resume: boolean;
  /** Create and release without asking (instance: new, end: release). */
  yes: boolean;
  /** The price catalog the quote reads (default the built-in one). */
  catalog?: Catalog;
  /**
   * What a diverged run (loss NaN/±Inf) does, as for `gpu-rent jobs` (gpuRent.training.onDiverged,
   * `launch --on-diverged`): off = said in every line and at the end; otherwise stopped after
   * `readings` non-finite readings in a row, then the end action. Default off.
   */
  diverged?: DivergedPolicy;
}

/** A connected box: its connection, its home and the task's folders on it. */
export interface Live {
  box: AcquiredBox;
  conn: RemoteConnection;
  home: string;
  remoteWorkdir: string;
  remoteCheckpoints?: string;
}

/** The pool entry of a launch's box: its account and id (a platform instance) and its endpoint. */
export const poolKey = (box: AcquiredBox) => `launch:${box.account ?? ''}/${box.ref ?? ''}@${knownHostsName(box.target.host, box.target.port)}`;

export class LaunchRun {
  live: Live | undefined;
  /** A multi-node run's other nodes, rank 1…N-1 (`live` is rank 0). */
  others: Live[] = [];
  tail: LogTail | undefined;
  lastSyncAt = 0;
  unreachableSince: number | undefined;
  lastLineAt = 0;
  /** Whether the box has a spot notice service worth asking (false once it answers nothing). */
  spotService = true;
  /** Why this process is ending the run (the end step's outcome). */
  stopReason: StopReason | undefined;
  /** The divergence already said / acted on (app/runs/diverged's memo, as for jobs). */
  divergedMemo: DivergedMemo = { notified: null, acted: null };
  /** The divergence stop was made by the policy (its end action follows divergedEndAction). */
  divergedStopped = false;
  /** The spot notice time already acted on (its sync is not repeated every poll). */
  noticeAt: string | undefined;

  constructor(
    readonly o: LaunchOptions,
    readonly host: LaunchHost,
    public s: LaunchState,
    private readonly path: string,
    readonly pool: SshPool,
    readonly locks: PowerOnLocks,
    readonly accounts: LaunchAccount[],
    readonly now: () => number,
  ) {}

  get task(): Task {
    return this.o.task;
  }

  /** A tail of the run's log that also reads the task's own `progress:` pattern (checked when the task file was read). */
  newTail(path: string): LogTail {
    const c = this.task.progressPattern !== undefined ? checkProgressPattern(this.task.progressPattern) : undefined;
    return new LogTail(path, { pattern: c?.ok ? c.re : null });
  }

  get l10n(): L10n {
    return this.host.l10n ?? ENGLISH;
  }

  /** The task file's folder: the workdir and local folders are relative to it. */
  get base(): string {
    return resolve(this.o.file, '..');
  }

  async save(line?: string, patch: Partial<LaunchState> = {}): Promise<void> {
    this.s = { ...this.s, ...patch, updatedAt: this.now() };
    if (line) this.s = withEvent(this.s, this.now(), line);
    await writeState(this.path, this.s);
    if (line) this.host.onEvent?.(line, this.s);
  }

  /** The next step; its line says what the boxes have cost so far. */
  async phase(p: LaunchPhase, line?: string): Promise<void> {
    await this.save(line && this.s.box ? `${line} · ${this.spentWords()}` : line, { phase: p });
  }

  async finish(kind: LaunchOutcome, detail: string, exitCode?: number | null): Promise<void> {
    const patch = finishPatch(this.s, kind, detail, this.now(), exitCode);
    const phase = patch.phase === 'done' ? this.l10n.t('done') : patch.phase === 'stopped' ? this.l10n.t('stopped early') : this.l10n.t('failed');
    await this.save(this.l10n.t('{0}: {1} · {2}', phase, detail, this.spentWords()), patch);
  }

  /** "spent ¥1.20" ("spent ?" when a box's price is not known). */
  spentWords(): string {
    const spent = spentFen(this.s, this.now());
    return this.l10n.t('spent {0}', spent.unknown ? '?' : formatCny(spent.fen));
  }

  /** Every connected box, rank 0 first. */
  get all(): Live[] {
    return [this.live!, ...this.others];
  }

  /** What every box held now costs per hour; null when one's price is not known. */
  get burn(): Fen | null {
    return burnOf(this.s);
  }

  account(id: string | undefined): LaunchAccount | undefined {
    return this.accounts.find((a) => a.id === id);
  }

  /** Stops the launch (outcome budget) when the cap cannot cover what comes next. */
  async budgetStops(costToFinishFen?: Fen | null): Promise<boolean> {
    const b = checkBudget(this.s, this.task.budgetFen, this.now(), { burnFenPerHour: this.burn, ...(costToFinishFen !== undefined ? { costToFinishFen } : {}) });
    if (b.ok) return false;
    const words = {
      noPrice: () => this.l10n.t('the budget cap {0} cannot be kept: the price per hour of {1} is not known (set price_yuan_per_hour for an SSH login)', formatCny(b.capFen), this.s.box?.label ?? this.l10n.t('the box')),
      spent: () => this.l10n.t('the budget cap {0} is spent ({1})', formatCny(b.capFen), formatCny(b.spentFen)),
      reserve: () => this.l10n.t('the budget cap {0} does not cover 10 more minutes at {1}/h (spent {2})', formatCny(b.capFen), formatCny(this.burn ?? 0), formatCny(b.spentFen)),
      projected: () => this.l10n.t('the projected cost to finish, {0}, passes the budget cap {1}', formatCny(b.needFen ?? 0), formatCny(b.capFen)),
    }[b.reason]();
    await this.save(this.l10n.t('budget: {0}', words));
    this.stopReason = { kind: 'budget', detail: words };
    return true;
  }

  /** The connected boxes as the multi-node launcher sees them. */
  runNodes(): RunNode[] {
    return this.all.map((l) => ({ label: l.box.label, conn: l.conn }));
  }

  async sleep(ms: number): Promise<void> {
    await sleep(ms, this.host.signal);
  }
}

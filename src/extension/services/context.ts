// What every command handler gets: the composition root builds one of these in activate().
// Commands get the models (runs, sync watches, platform facts, launch rows), never the view: the
// views listen to the models. A command that changes nothing a model holds asks for a refresh
// with its reason.
import type * as vscode from 'vscode';
import { findPlatform, type Catalog } from '../../core/catalog';
import { inLanguage } from '../../core/platforms/descriptors';
import { platformDisplayName } from '../../core/platforms/names';
import type { Instance } from '../../core/instances';
import type { PowerActions } from '../../app/runs/endAction';
import type { PowerFacts } from '../../core/guards/powerOffer';
import type { SshPool } from '../../app/pool';
import type { ReleaseEvents } from '../../app/release';
import type { InstanceSessions } from '../../app/session';
import type { Settings } from '../settings';
import type { InstanceStore } from '../store';
import type { RunWatch } from '../../app/runs/watch';
import type { SyncWatching } from '../../app/syncWatching';
import type { SyncSummary } from '../../app/sync';
import type { LaunchRows } from '../../app/launch/rows';
import type { PlatformFacts } from '../monitors/platforms';
import type { RefreshReason } from '../view/refresh';
import type { GuardNotices } from '../monitors/notices';
import type { SyncWatches } from '../monitors/syncWatches';
import type { DoctorView } from '../doctorView';

export interface CommandContext {
  store: InstanceStore;
  pool: SshPool;
  sessions: InstanceSessions;
  releases: ReleaseEvents;
  catalog(): Catalog;
  settings(): Settings;
  log: vscode.LogOutputChannel;
  now(): number;
  language: string;
  memento: vscode.Memento;
  /** Running jobs' progress read from their logs. */
  runs: RunWatch;
  /** Instances whose checkpoints are being watched (written by `watches`). */
  watching: SyncWatching;
  /** What the platforms said (observations, account status, logins waiting for the user). */
  platformFacts: PlatformFacts;
  /** Launches in progress shown in the Instances view. */
  launches: LaunchRows;
  /** Asks the Instances view to redraw (the instance's row, or all): debounced, only while it shows. */
  refresh(reason: RefreshReason, id?: string): void;
  notices: GuardNotices;
  watches: SyncWatches;
  doctor: DoctorView;
  /** The platform's power actions for an instance linked to an account that allows them (issue 11's connectors); undefined otherwise. */
  platformPower(inst: Instance): PowerActions | undefined;
  /** The linked account's platform and whether its power actions are allowed, also when they are not (then platformPower is undefined). */
  platformAccount(inst: Instance): PowerFacts['account'];
  /** The job-log output channel, made on first use. */
  jobOutput(): vscode.OutputChannel;
  /**
   * Sync Checkpoints Now (commands/sync/syncNow.ts) on this context, for a run's end action
   * (services/endOfRun.ts): activate() wires it, so no module outside commands/ imports a command.
   */
  syncCheckpoints(arg: unknown): Promise<SyncSummary | undefined>;
}

/** Platform name in the display language, the platform's own beside the English (core/platforms/names). */
export function platformLabel(ctx: Pick<CommandContext, 'catalog' | 'language'>, id: string): string {
  const p = findPlatform(ctx.catalog(), id);
  return p ? platformDisplayName(p.name, ctx.language) : id;
}

/** The short name in the display language (a default instance name). */
export function platformShortName(ctx: Pick<CommandContext, 'catalog' | 'language'>, id: string): string {
  const p = findPlatform(ctx.catalog(), id);
  return p ? inLanguage(p.name, ctx.language) : id;
}

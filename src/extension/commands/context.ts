// What every command handler gets: the composition root builds one of these in activate().
import type * as vscode from 'vscode';
import type { Catalog } from '../../core/catalog';
import type { Instance } from '../../core/instances';
import type { PowerActions } from '../../app/runs/endAction';
import type { PowerFacts } from '../../core/guards/powerOffer';
import type { SshPool } from '../../app/pool';
import type { ReleaseEvents } from '../../app/release';
import type { InstanceSessions } from '../../app/session';
import type { Settings } from '../settings';
import type { InstanceStore } from '../store';
import type { InstancesTree } from '../tree';
import type { GuardNotices } from '../monitors/notices';
import type { SyncWatches } from '../monitors/syncWatches';
import type { DoctorView } from './remote/doctorView';

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
  tree: InstancesTree;
  notices: GuardNotices;
  watches: SyncWatches;
  doctor: DoctorView;
  /** The platform's power actions for an instance linked to an account that allows them (issue 11's connectors); undefined otherwise. */
  platformPower(inst: Instance): PowerActions | undefined;
  /** The linked account's platform and whether its power actions are allowed, also when they are not (then platformPower is undefined). */
  platformAccount(inst: Instance): PowerFacts['account'];
  /** The job-log output channel, made on first use. */
  jobOutput(): vscode.OutputChannel;
}

/** Platform name in the display language. */
export function platformLabel(ctx: Pick<CommandContext, 'catalog' | 'language'>, id: string): string {
  const p = ctx.catalog().platforms.find((x) => x.id === id);
  return p ? (ctx.language.startsWith('zh') ? p.name.zh : p.name.en) : id;
}

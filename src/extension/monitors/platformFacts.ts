// What the platforms said (observations, account status, logins waiting for the user's word):
// the model the tree and the commands read and the platform monitor (platforms.ts) writes.
import { Emitter, type Event } from '../../app/events';
import type { GuardPlatformFacts } from '../../core/guards/facts';
import type { ReleaseWatch } from '../../core/guards/release';
import type { Instance } from '../../core/instances';
import { balanceLow } from '../../core/platforms/reconcile';
import { CATALOG_PLATFORM, type SshLogin } from '../../core/platforms/types';
import { summarizeSpend } from '../../core/spend';
import type { PlatformAccounts } from '../services/accountStore';
import { observedReleaseWatch, type Observation } from './platformApply';

export type AccountStatus = { balance?: { fen: number; readAt: number }; /** The balance read failed (shown as "balance: ?"). */ balanceError?: string; /** Which billing account (core accountIdentity): two entries of one account count once. */ identity?: string; error?: string; polledAt?: number; /** The account lists more instances than are read from one account. */ cut?: boolean };

/** What the platforms said, read by the tree and the commands; the monitor writes it. */
export class PlatformFacts {
  readonly observations = new Map<string, Observation>();
  readonly status = new Map<string, AccountStatus>();
  /** Logins a platform reports on another host or user than the stored one, waiting for the user's word. */
  readonly pendingLogins = new Map<string, SshLogin>();
  private readonly polls = new Emitter<void>();
  private readonly changes = new Emitter<string | undefined>();
  /** What the platforms say changed: for one instance (its id), or for many (undefined: after a poll of the accounts). */
  readonly onDidChange: Event<string | undefined> = this.changes.event;

  constructor(
    readonly accounts: PlatformAccounts,
    private readonly instances: () => readonly Instance[],
    private readonly now: () => number,
  ) {}

  /** Called after each poll of the accounts (the release warnings read the platform's clock then). */
  onDidPoll(listener: () => void): { dispose(): void } {
    return this.polls.event(listener);
  }

  /** The monitor tells its listeners a poll is done (everything it read may have changed). */
  polled(): void {
    this.changes.fire(undefined);
    this.polls.fire();
  }

  /** The monitor recorded something about one instance (an observed state, a login waiting for the user's word). */
  changed(id: string): void {
    this.changes.fire(id);
  }

  /** The release watch of a linked, stopped instance by the platform's own clock (stopped_at / release_at), if the last read gave one. */
  releaseWatchOf(inst: Instance, facts: GuardPlatformFacts): ReleaseWatch | undefined {
    return observedReleaseWatch(this.observations, inst, facts, this.now());
  }

  /** Balance and its warning for one catalog platform's group in the tree. */
  balanceOf(platform: string): { fen: number; readAt: number; low: boolean } | undefined {
    const accounts = this.accounts.list().filter((a) => CATALOG_PLATFORM[a.kind] === platform);
    // Each billing account once: one key added for two regions, or one token twice, is one balance.
    const seen = new Set<string>();
    const balances = accounts
      .filter((a) => {
        const id = this.status.get(a.id)?.identity ?? a.id;
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      })
      .map((a) => this.status.get(a.id)?.balance)
      .filter((b): b is { fen: number; readAt: number } => !!b);
    if (!balances.length) return undefined;
    const fen = balances.reduce((s, b) => s + b.fen, 0);
    const burn = summarizeSpend(this.instances().filter((i) => i.platform === platform && i.platformRef), this.now()).burnRate;
    return { fen, readAt: Math.min(...balances.map((b) => b.readAt)), low: balanceLow(fen, burn) };
  }

  /** Balance read failures of the platform's accounts: the group shows "balance ?" and says why. */
  balanceErrorsOf(platform: string): string[] {
    return this.accounts.list().filter((a) => CATALOG_PLATFORM[a.kind] === platform).map((a) => this.status.get(a.id)?.balanceError).filter((e): e is string => !!e);
  }

  /** Errors of the platform's accounts, for the group's tooltip. */
  errorsOf(platform: string): string[] {
    return this.accounts.list().filter((a) => CATALOG_PLATFORM[a.kind] === platform).map((a) => this.status.get(a.id)?.error).filter((e): e is string => !!e);
  }

  /** Accounts of the platform whose list was cut at MAX_INSTANCES_PER_ACCOUNT. */
  cutOf(platform: string): string[] {
    return this.accounts.list().filter((a) => CATALOG_PLATFORM[a.kind] === platform && this.status.get(a.id)?.cut).map((a) => a.label);
  }
}

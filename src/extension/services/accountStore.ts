// The extension's platform accounts: what identifies each (globalState) and its secret
// (SecretStorage only, one entry per account). No vscode import: tests pass real in-memory
// stores. Power actions are not stored here: the gpuRent.platforms.powerActions setting says.
import { z } from 'zod';
import { AccountSchema, parseSecret, type Account, type Secret } from '../../app/platforms/accounts';
import type { MementoLike, SecretsLike } from '../store';
import { StateKeys } from '../stateKeys';

export const ACCOUNTS_KEY = StateKeys.platformAccounts.key;
export const ACCOUNTS_UNREADABLE_KEY = StateKeys.platformAccountsUnreadable.key;
export const platformSecretKey = (id: string): string => `gpuRent.platform.${id}`;

const ListSchema = z.array(AccountSchema).max(100);

export class PlatformAccounts {
  private accounts: Account[];
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly memento: MementoLike,
    private readonly secrets: SecretsLike,
  ) {
    const raw = memento.get(ACCOUNTS_KEY) ?? [];
    const r = ListSchema.safeParse(raw);
    this.accounts = r.success ? r.data : [];
    // Unreadable (a newer version's shape, a damaged profile): kept aside before anything can
    // overwrite it, never silently replaced by the next account added.
    if (!r.success) {
      this.unreadable = true;
      if (memento.get(ACCOUNTS_UNREADABLE_KEY) === undefined) void memento.update(ACCOUNTS_UNREADABLE_KEY, raw);
    }
  }

  /** The saved list could not be read; it is kept under ACCOUNTS_UNREADABLE_KEY. */
  readonly unreadable: boolean = false;

  onDidChange(l: () => void): { dispose(): void } {
    this.listeners.add(l);
    return { dispose: () => this.listeners.delete(l) };
  }

  list(): readonly Account[] {
    return this.accounts;
  }

  get(id: string): Account | undefined {
    return this.accounts.find((a) => a.id === id);
  }

  async add(account: Account, secret: Secret): Promise<void> {
    await this.secrets.store(platformSecretKey(account.id), JSON.stringify(secret));
    this.accounts = [...this.accounts.filter((a) => a.id !== account.id), { ...account, powerActions: false }];
    await this.memento.update(ACCOUNTS_KEY, this.accounts);
    this.listeners.forEach((l) => l());
  }

  /** Forgets the account and deletes its secret. */
  async remove(id: string): Promise<boolean> {
    if (!this.get(id)) return false;
    await this.secrets.delete(platformSecretKey(id));
    this.accounts = this.accounts.filter((a) => a.id !== id);
    await this.memento.update(ACCOUNTS_KEY, this.accounts);
    this.listeners.forEach((l) => l());
    return true;
  }

  async secret(id: string): Promise<Secret | undefined> {
    const a = this.get(id);
    const raw = await this.secrets.get(platformSecretKey(id));
    if (!a || !raw) return undefined;
    try {
      const s = parseSecret(a.kind, JSON.parse(raw));
      return s.ok ? s.secret : undefined;
    } catch {
      return undefined;
    }
  }

  /** A fresh id for a new account of this kind. */
  freshId(kind: string): string {
    for (let n = 1; ; n++) {
      const id = n === 1 ? kind : `${kind}-${n}`;
      if (!this.get(id)) return id;
    }
  }
}

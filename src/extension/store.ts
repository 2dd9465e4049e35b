// The instance list in globalState and passwords in SecretStorage. No vscode import: the
// memento and secret store are passed in, so the unit tests use real in-memory ones.
import {
  createInstance,
  fromStore,
  mergeImported,
  toStore,
  withLogin,
  withPricing,
  withState,
  withStillBilling,
  withoutStillBilling,
  type Instance,
  type LoadProblem,
  type Login,
  type StillBillingMark,
} from '../core/instances';
import type { InstanceState, Pricing, TransitionError } from '../core/spend';
import { StateKeys } from './stateKeys';

export interface MementoLike {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export interface SecretsLike {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

export const STORE_KEY = StateKeys.instances.key;
export const CORRUPT_KEY = StateKeys.instancesUnreadable.key;
export const secretKey = (id: string): string => `gpuRent.password.${id}`;

type Listener = (changedIds: readonly string[] | undefined) => void;

export class InstanceStore {
  private instances: Instance[] = [];
  /** The same instances by id: a platform list of thousands is applied without a linear search each. */
  private byId = new Map<string, Instance>();
  private readonly listeners = new Set<Listener>();
  private writes: Promise<void> = Promise.resolve();
  /** Set when globalState held something unreadable (kept aside under CORRUPT_KEY, not lost). */
  loadProblem: LoadProblem | undefined;

  constructor(
    private readonly memento: MementoLike,
    private readonly secrets: SecretsLike,
    private readonly now: () => number,
  ) {
    const raw = memento.get<unknown>(STORE_KEY);
    const r = fromStore(raw);
    if (r.ok) {
      this.instances = r.instances;
      this.byId = new Map(r.instances.map((i) => [i.id, i]));
    } else {
      this.loadProblem = r.problem;
      void memento.update(CORRUPT_KEY, raw);
    }
  }

  onDidChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  list(): readonly Instance[] {
    return this.instances;
  }

  get(id: string): Instance | undefined {
    return this.byId.get(id);
  }

  /**
   * Writes are serialized so two quick changes cannot overwrite each other. A failed write is
   * reported to its caller and does not stop the ones after it: each writes the whole list, so
   * the next one that succeeds stores what the failed one held too.
   */
  private commit(next: Instance[], changed: readonly string[] | undefined): Promise<void> {
    this.instances = next;
    this.byId = new Map(next.map((i) => [i.id, i]));
    const snapshot = toStore(next);
    const write = this.writes.then(() => this.memento.update(STORE_KEY, snapshot));
    this.writes = write.then(
      () => undefined,
      () => undefined,
    );
    for (const l of this.listeners) l(changed);
    return write;
  }

  async add(fields: Omit<Instance, 'intervals' | 'createdAt'>, state: InstanceState, password?: string): Promise<Instance> {
    if (this.get(fields.id)) throw new Error(`duplicate instance id ${fields.id}`);
    const inst = createInstance(fields, state, this.now());
    if (password !== undefined) await this.secrets.store(secretKey(inst.id), password);
    await this.commit([...this.instances, inst], undefined);
    return inst;
  }

  private async replace(id: string, fn: (i: Instance) => Instance): Promise<Instance | undefined> {
    const cur = this.get(id);
    if (!cur) return undefined;
    const next = fn(cur);
    await this.commit(this.instances.map((i) => (i.id === id ? next : i)), [id]);
    return next;
  }

  /** Name, platform, card and the like; prices go through setPricing so history keeps its prices. */
  update(id: string, patch: Partial<Pick<Instance, 'name' | 'platform' | 'card' | 'gpuCount' | 'lastProbe' | 'jobs' | 'sync' | 'platformRef'>>): Promise<Instance | undefined> {
    return this.replace(id, (i) => ({ ...i, ...patch }));
  }

  /** A power action that did not happen: the tree row and the status bar say so until cleared. */
  markStillBilling(id: string, mark: StillBillingMark): Promise<Instance | undefined> {
    return this.replace(id, (i) => withStillBilling(i, mark));
  }

  /** The box was seen stopped (the platform's state, or it stopped answering): the mark goes. */
  async clearStillBilling(id: string): Promise<Instance | undefined> {
    const cur = this.get(id);
    if (!cur?.stillBilling) return cur;
    return this.replace(id, withoutStillBilling);
  }

  setPricing(id: string, pricing: Pricing): Promise<Instance | undefined> {
    return this.replace(id, (i) => withPricing(i, pricing, this.now()));
  }

  /** A fresh login command after a power cycle: new host/port/user, and the new password if given. */
  async setLogin(id: string, login: Login, password?: string): Promise<Instance | undefined> {
    if (password !== undefined) await this.secrets.store(secretKey(id), password);
    else if (login.auth !== 'password') await this.secrets.delete(secretKey(id));
    return this.replace(id, (i) => withLogin(i, login));
  }

  async switchState(id: string, state: InstanceState): Promise<{ ok: true; instance: Instance } | { ok: false; error: TransitionError | { kind: 'unknownInstance' } }> {
    const cur = this.get(id);
    if (!cur) return { ok: false, error: { kind: 'unknownInstance' } };
    const r = withState(cur, state, this.now());
    if (!r.ok) return r;
    await this.replace(id, () => r.instance);
    return r;
  }

  /** Removes the instance and its password. */
  async remove(id: string): Promise<boolean> {
    if (!this.get(id)) return false;
    await this.secrets.delete(secretKey(id));
    await this.commit(
      this.instances.filter((i) => i.id !== id),
      undefined,
    );
    return true;
  }

  /** A password typed at a login prompt: kept, and the login marked as password-based. */
  async setPassword(id: string, password: string): Promise<void> {
    const cur = this.get(id);
    if (!cur) return;
    await this.secrets.store(secretKey(id), password);
    if (cur.login.auth !== 'password') await this.replace(id, (i) => ({ ...i, login: { ...i.login, auth: 'password' } }));
  }

  /** Forgets the stored password (a login moved to another host must not take it along). */
  async clearPassword(id: string): Promise<void> {
    await this.secrets.delete(secretKey(id));
  }

  /**
   * Many changes in one write (a platform's list of thousands): `changed` replaces instances
   * by id, `added` are appended, `passwords` stored first. One globalState update, one change event.
   */
  async applyBatch(added: readonly Instance[], changed: ReadonlyMap<string, Instance>, passwords: ReadonlyMap<string, string> = new Map()): Promise<void> {
    if (!added.length && !changed.size) return;
    for (const a of added) if (this.byId.has(a.id)) throw new Error(`duplicate instance id ${a.id}`);
    for (const [id, pw] of passwords) await this.secrets.store(secretKey(id), pw);
    const next = this.instances.map((i) => changed.get(i.id) ?? i);
    await this.commit(added.length ? [...next, ...added] : next, added.length ? undefined : [...changed.keys()]);
  }

  getPassword(id: string): PromiseLike<string | undefined> {
    return this.secrets.get(secretKey(id));
  }

  async importInstances(imported: readonly Instance[]): Promise<{ added: number; replaced: number }> {
    const r = mergeImported(this.instances, imported);
    await this.commit(r.instances, undefined);
    return { added: r.added, replaced: r.replaced };
  }

  /** Waits for pending writes (tests, deactivate). */
  flush(): Promise<void> {
    return this.writes;
  }
}

// The extension's message channels: what identifies each (globalState) and its secret (the
// webhook key, token, signing secret or SMTP password: SecretStorage only, one entry per
// channel), as the platform accounts are kept. The CLI keeps the same shapes in its 0600 file.
// No vscode import: tests pass in-memory stores.
import { z } from 'zod';
import { ChannelSchema, ChannelSecretSchema, type ChannelSecret, type NotifyChannel } from '../core/notify/channels';
import type { MementoLike, SecretsLike } from './store';
import { StateKeys } from './stateKeys';

export const NOTIFY_CHANNELS_KEY = StateKeys.notifyChannels.key;
export const notifySecretKey = (name: string): string => `gpuRent.notify.${name}`;

const ListSchema = z.array(ChannelSchema).max(50);

export class NotifyChannels {
  private channels: NotifyChannel[];

  constructor(
    private readonly memento: MementoLike,
    private readonly secrets: SecretsLike,
  ) {
    const r = ListSchema.safeParse(memento.get(NOTIFY_CHANNELS_KEY) ?? []);
    this.channels = r.success ? r.data : [];
  }

  list(): readonly NotifyChannel[] {
    return this.channels;
  }

  get(name: string): NotifyChannel | undefined {
    return this.channels.find((c) => c.name === name);
  }

  async add(channel: NotifyChannel, secret: ChannelSecret): Promise<void> {
    await this.secrets.store(notifySecretKey(channel.name), JSON.stringify(ChannelSecretSchema.parse(secret)));
    this.channels = [...this.channels.filter((c) => c.name !== channel.name), ChannelSchema.parse(channel)];
    await this.memento.update(NOTIFY_CHANNELS_KEY, this.channels);
  }

  /** Forgets the channel and deletes its secret. */
  async remove(name: string): Promise<boolean> {
    if (!this.get(name)) return false;
    await this.secrets.delete(notifySecretKey(name));
    this.channels = this.channels.filter((c) => c.name !== name);
    await this.memento.update(NOTIFY_CHANNELS_KEY, this.channels);
    return true;
  }

  async secret(name: string): Promise<ChannelSecret | undefined> {
    const raw = await this.secrets.get(notifySecretKey(name));
    if (!raw || !this.get(name)) return undefined;
    try {
      const r = ChannelSecretSchema.safeParse(JSON.parse(raw));
      return r.success ? r.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** Every channel with its secret (those whose secret is gone are left out): the launch's UnattendedHost.channels(). */
  async stored(): Promise<{ channel: NotifyChannel; secret: ChannelSecret }[]> {
    return (await this.resolve(this.channels.map((c) => c.name))).sends;
  }

  /** The channels a task names (notify: [...]) with their secrets; the names with none stored. */
  async resolve(names: readonly string[]): Promise<{ sends: { channel: NotifyChannel; secret: ChannelSecret }[]; missing: string[] }> {
    const sends: { channel: NotifyChannel; secret: ChannelSecret }[] = [];
    const missing: string[] = [];
    for (const n of names) {
      const channel = this.get(n);
      const secret = channel ? await this.secret(n) : undefined;
      if (channel && secret) sends.push({ channel, secret });
      else missing.push(n);
    }
    return { sends, missing };
  }
}

// Add Message Channel… / Remove Message Channel…: a channel a task names with `notify: [NAME]`.
// The key, token, signing secret or SMTP password goes to SecretStorage only (notifyChannels.ts);
// after saving, one test message checks that the channel takes it.
import * as vscode from 'vscode';
import { CHANNEL_KINDS, CHANNEL_NAME_RE, KEY_WORDS, parseChannelKey, SIGNED_KINDS, type ChannelKind, type ChannelSecret, type NotifyChannel } from '../../../core/notify/channels';
import { eventMessage } from '../../../core/notify/events';
import { showInfo, showWarning } from '../../notify';
import type { NotifyChannels } from '../../notifyChannels';
import { UserError } from '../../words/errors';
import { isScripted } from '../registry';

const KIND_LABEL: Record<ChannelKind, string> = {
  wecom: '企业微信 (WeCom)',
  dingtalk: '钉钉 (DingTalk)',
  feishu: '飞书 (Feishu / Lark)',
  serverchan: 'Server酱 (ServerChan)',
  pushplus: 'PushPlus',
  email: 'Email (SMTP)',
  webhook: 'Webhook (JSON POST)',
};

const zh = () => /^zh/i.test(vscode.env.language);

async function ask(prompt: string, opts: { password?: boolean; value?: string; validate?: (v: string) => string | undefined } = {}): Promise<string | undefined> {
  return vscode.window.showInputBox({ prompt, password: opts.password, value: opts.value, ignoreFocusOut: true, validateInput: opts.validate });
}

/** Scripted: { name, kind, key?, sign?, base?, smtp?, password?, test? } (tests, automation). */
export async function addNotifyChannel(channels: NotifyChannels, arg: unknown): Promise<string | undefined> {
  let channel: NotifyChannel;
  let secret: ChannelSecret;
  if (isScripted(arg)) {
    const a = arg as { name?: unknown; kind?: unknown; key?: unknown; sign?: unknown; base?: unknown; smtp?: unknown; password?: unknown };
    const kind = CHANNEL_KINDS.find((k) => k === a.kind);
    if (!kind || typeof a.name !== 'string') throw new UserError(vscode.l10n.t('A message channel needs a name and a kind ({0}).', CHANNEL_KINDS.join(', ')));
    secret = {};
    let base = typeof a.base === 'string' ? a.base : undefined;
    if (kind === 'email') {
      if (typeof a.password === 'string') secret.password = a.password;
    } else {
      const k = parseChannelKey(kind, typeof a.key === 'string' ? a.key : '');
      if (!k.ok) throw new UserError(vscode.l10n.t('That is not {0}: {1}', KEY_WORDS[kind].en, k.reason));
      secret.key = k.key;
      base ??= k.base;
    }
    if (typeof a.sign === 'string') secret.sign = a.sign;
    channel = { name: a.name, kind, ...(base ? { base } : {}), ...(secret.sign ? { signed: true } : {}), ...(kind === 'email' ? { smtp: a.smtp as NotifyChannel['smtp'] } : {}) };
  } else {
    const pick = await vscode.window.showQuickPick(
      CHANNEL_KINDS.map((k) => ({ label: KIND_LABEL[k], channelKind: k })),
      { title: vscode.l10n.t('Add Message Channel'), placeHolder: vscode.l10n.t('Where should run messages go?'), ignoreFocusOut: true },
    );
    if (!pick) return undefined;
    const kind = pick.channelKind;
    const name = await ask(vscode.l10n.t('A name for this channel (a task names it in notify: [NAME])'), {
      value: channels.get(kind) ? undefined : kind,
      validate: (v) => (CHANNEL_NAME_RE.test(v) ? undefined : vscode.l10n.t('Letters, digits, ., _ and - (at most 40).')),
    });
    if (!name) return undefined;
    secret = {};
    let base: string | undefined;
    let smtp: NotifyChannel['smtp'];
    if (kind === 'email') {
      const host = await ask(vscode.l10n.t('SMTP server (host name)'));
      if (!host) return undefined;
      const port = Number(await ask(vscode.l10n.t('SMTP port (465: TLS; 587: STARTTLS)'), { value: '465', validate: (v) => (/^\d{1,5}$/.test(v) && Number(v) >= 1 && Number(v) <= 65535 ? undefined : vscode.l10n.t('A port from 1 to 65535.')) }));
      const from = await ask(vscode.l10n.t('Sender address'));
      const to = await ask(vscode.l10n.t('Recipients (comma-separated)'), { value: from });
      if (!from || !to) return undefined;
      const user = await ask(vscode.l10n.t('SMTP login (empty: none)'), { value: from });
      if (user) {
        const password = await ask(vscode.l10n.t('SMTP password or app password (kept in the secret store)'), { password: true });
        if (!password) return undefined;
        secret.password = password;
      }
      smtp = { host, port, secure: port === 465, from, to: to.split(',').map((s) => s.trim()).filter(Boolean), ...(user ? { user } : {}) };
    } else {
      let parsed: ReturnType<typeof parseChannelKey> | undefined;
      const key = await ask(vscode.l10n.t('Paste {0} (kept in the secret store)', zh() ? KEY_WORDS[kind].zh : KEY_WORDS[kind].en), {
        password: true,
        validate: (v) => {
          parsed = parseChannelKey(kind, v);
          return parsed.ok ? undefined : parsed.reason;
        },
      });
      if (!key || !parsed?.ok) return undefined;
      secret.key = parsed.key;
      base = parsed.base;
    }
    if (SIGNED_KINDS.includes(kind)) {
      const sign = await ask(vscode.l10n.t('Signing secret (钉钉 加签 / 飞书 签名校验; empty when the robot does not sign)'), { password: true });
      if (sign === undefined) return undefined;
      if (sign.trim()) secret.sign = sign.trim();
    }
    channel = { name, kind, ...(base ? { base } : {}), ...(secret.sign ? { signed: true } : {}), ...(smtp ? { smtp } : {}), ...(zh() ? { lang: 'zh-cn' as const } : {}) };
  }
  try {
    await channels.add(channel, secret);
  } catch {
    throw new UserError(vscode.l10n.t('The channel {0} could not be saved: check its addresses.', channel.name));
  }
  if (isScripted(arg) && (arg as { test?: unknown }).test !== true) return channel.name;
  const { sendMessage } = await import('../../../app/notify/send');
  const lang = channel.lang ?? (zh() ? 'zh-cn' : 'en');
  try {
    await sendMessage(channel, secret, eventMessage({ kind: 'test', task: 'gpu-rent', channel: channel.name }, lang), { lang });
    void showInfo(vscode.l10n.t('Added {0}: a test message went out and the channel took it.', channel.name));
  } catch (e) {
    void showWarning(vscode.l10n.t('Added {0}, but the test message was refused: {1}', channel.name, e instanceof Error ? e.message : String(e)));
  }
  return channel.name;
}

export async function removeNotifyChannel(channels: NotifyChannels, arg: unknown): Promise<boolean> {
  let name: string | undefined = isScripted(arg) && typeof (arg as { name?: unknown }).name === 'string' ? (arg as { name: string }).name : undefined;
  if (!name) {
    if (!channels.list().length) {
      void showInfo(vscode.l10n.t('No message channel is saved.'));
      return false;
    }
    const pick = await vscode.window.showQuickPick(
      channels.list().map((c) => ({ label: c.name, description: KIND_LABEL[c.kind] })),
      { title: vscode.l10n.t('Remove Message Channel'), ignoreFocusOut: true },
    );
    name = pick?.label;
  }
  if (!name) return false;
  return channels.remove(name);
}

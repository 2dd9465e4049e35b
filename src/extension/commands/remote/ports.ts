// Open TensorBoard / Open Jupyter / Forward a Port…: the box's port on 127.0.0.1 of this machine
// (app/forward.ts over the instance's pooled connection, remade after a drop on the next request),
// opened through env.asExternalUri (so a remote window gets its own tunnel). The forwards live in
// `PortForwards`, closed with their instance (released, removed, no longer powered) and on deactivate.
import * as vscode from 'vscode';
import { ensureTensorBoard, findJupyter, ForwardError, parsePortSpec, startForward, TENSORBOARD_PORT, type ForwardProblem, type PortForward, type PortSpec } from '../../../app/forward';
import { isPowered } from '../../../app/session';
import { forLabel } from '../../../core/text';
import { showInfo, withNotificationProgress } from '../../notify';
import type { InstanceStore } from '../../store';
import type { CommandContext } from '../../services/context';
import { requireTrust, UserError } from '../../words/errors';
import { openOptions, pickInstance, powered } from '../pick';

export function forwardProblemText(p: ForwardProblem): string {
  switch (p.code) {
    case 'bad-port':
      return vscode.l10n.t("Not a port: {0}. Give the box's port (1-65535), optionally :LOCAL for this machine's (e.g. 6006 or 6006:16006).", forLabel(p.text));
    case 'local-port-busy':
      return vscode.l10n.t("This machine's port {0} on 127.0.0.1 cannot be used: name another as PORT:LOCAL.", p.port);
    case 'tensorboard-missing':
      return vscode.l10n.t('TensorBoard is not installed on the box (pip install tensorboard).');
    case 'tensorboard-not-answering':
      return vscode.l10n.t('TensorBoard was started on the box but does not answer on port {0}. Show Jobs has its log (gpu-rent-tensorboard).', p.port);
    case 'bad-logdir':
      return vscode.l10n.t('Not a log folder on the box: {0}. Give an absolute path.', forLabel(p.text));
    case 'no-jupyter':
      return vscode.l10n.t('No Jupyter server runs on the box (jupyter server list shows none).');
  }
}

function localized<T>(p: Promise<T>): Promise<T> {
  return p.catch((e: unknown) => {
    throw e instanceof ForwardError ? new UserError(forwardProblemText(e.problem)) : e;
  });
}

/** Every forward this window holds, by instance and box port. */
export class PortForwards implements vscode.Disposable {
  private readonly forwards = new Map<string, PortForward>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly ctx: Pick<CommandContext, 'sessions' | 'log'>,
    store: InstanceStore,
  ) {
    // Closed with the instance: released, removed, stopped.
    this.subs.push(
      store.onDidChange(() => {
        for (const key of [...this.forwards.keys()]) {
          const inst = store.get(key.split('\n')[0]!);
          if (!inst || !isPowered(inst)) void this.closeFor(key.split('\n')[0]!);
        }
      }),
    );
  }

  /** The forward of `id`'s box port, made when there is none. */
  async ensure(id: string, port: PortSpec, opts: { acceptNewHostKey?: boolean } = {}): Promise<PortForward> {
    const key = `${id}\n${port.remote}`;
    const had = this.forwards.get(key);
    if (had && (port.local === undefined || port.local === had.localPort)) return had;
    if (had) await this.close(key);
    const fwd = await localized(
      startForward({
        // Each new socket through the pool: a dropped link is remade (and the tree shows reconnecting).
        connection: async () => (await this.ctx.sessions.open(id, opts)).conn,
        port,
        onEvent: (e) => {
          if (e.kind === 'link-lost') this.ctx.log.warn(`[${id}] forward of port ${port.remote}: connection lost (${e.message}); remade on the next request`);
          else if (e.kind === 'link-restored') this.ctx.log.info(`[${id}] forward of port ${port.remote}: connection restored`);
          else if (e.kind === 'channel-failed') this.ctx.log.warn(`[${id}] forward of port ${port.remote}: ${e.message}`);
        },
      }),
    );
    this.forwards.set(key, fwd);
    this.ctx.log.info(`[${id}] forwarding ${fwd.url} to the box's 127.0.0.1:${port.remote}`);
    return fwd;
  }

  async closeFor(id: string): Promise<void> {
    await Promise.all([...this.forwards.keys()].filter((k) => k.startsWith(`${id}\n`)).map((k) => this.close(k)));
  }

  private async close(key: string): Promise<void> {
    const f = this.forwards.get(key);
    this.forwards.delete(key);
    await f?.close();
  }

  async stop(id: string, remotePort: number): Promise<void> {
    await this.close(`${id}\n${remotePort}`);
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    for (const key of [...this.forwards.keys()]) void this.close(key);
  }
}

async function openInBrowser(url: string): Promise<void> {
  const external = await vscode.env.asExternalUri(vscode.Uri.parse(url));
  await vscode.env.openExternal(external);
}

async function announce(forwards: PortForwards, id: string, name: string, fwd: PortForward, what: string): Promise<void> {
  const open = vscode.l10n.t('Open in Browser');
  const stop = vscode.l10n.t('Stop Forwarding');
  const pick = await showInfo(vscode.l10n.t("{0}: the box's port {1} is on {2} of this machine (loopback only).", forLabel(name), fwd.remotePort, `127.0.0.1:${fwd.localPort}`) + (what ? ` ${what}` : ''), open, stop);
  if (pick === open) await openInBrowser(fwd.url);
  else if (pick === stop) await forwards.stop(id, fwd.remotePort);
}

/** Open TensorBoard: the one on the box's 6006, or one started there over /root/tf-logs (AutoDL's). */
export async function openTensorBoard(ctx: CommandContext, forwards: PortForwards, arg: unknown): Promise<{ url: string; started: boolean } | undefined> {
  requireTrust();
  const picked = await pickInstance(ctx, arg, powered);
  if (!picked) return undefined;
  const o = openOptions(arg);
  const logdir = arg && typeof arg === 'object' && typeof (arg as { logdir?: unknown }).logdir === 'string' ? (arg as { logdir: string }).logdir : undefined;
  const port = arg && typeof arg === 'object' && typeof (arg as { port?: unknown }).port === 'number' ? (arg as { port: number }).port : TENSORBOARD_PORT;
  const { inst, conn } = await ctx.sessions.open(picked.id, o);
  const tb = await withNotificationProgress({ title: vscode.l10n.t('TensorBoard on {0}…', inst.name) }, () => localized(ensureTensorBoard(conn, { port, ...(logdir ? { logdir } : {}) })));
  const fwd = await forwards.ensure(inst.id, { remote: tb.port }, o);
  if (arg && typeof arg === 'object' && !('kind' in arg)) return { url: fwd.url, started: tb.started };
  await openInBrowser(fwd.url);
  if (tb.started) void showInfo(vscode.l10n.t('Started TensorBoard on {0} over {1} (job gpu-rent-tensorboard).', forLabel(inst.name), forLabel(tb.logdir ?? '')));
  return { url: fwd.url, started: tb.started };
}

/** Open Jupyter: the server the box runs (its port and token from `jupyter server list`). */
export async function openJupyter(ctx: CommandContext, forwards: PortForwards, arg: unknown): Promise<string | undefined> {
  requireTrust();
  const picked = await pickInstance(ctx, arg, powered);
  if (!picked) return undefined;
  const o = openOptions(arg);
  const { inst, conn } = await ctx.sessions.open(picked.id, o);
  const j = await localized(findJupyter(conn));
  const fwd = await forwards.ensure(inst.id, { remote: j.port }, o);
  const url = `http://127.0.0.1:${fwd.localPort}${j.path}`;
  await openInBrowser(url);
  return url;
}

/** Forward a Port…: PORT or PORT:LOCAL typed, checked as typed. */
export async function forwardPort(ctx: CommandContext, forwards: PortForwards, arg: unknown): Promise<string | undefined> {
  requireTrust();
  const picked = await pickInstance(ctx, arg, powered);
  if (!picked) return undefined;
  const scripted = arg && typeof arg === 'object' && typeof (arg as { port?: unknown }).port === 'string' ? (arg as { port: string }).port : undefined;
  const text =
    scripted ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Forward a Port from {0}', forLabel(picked.name)),
      prompt: vscode.l10n.t("The box's port, optionally :LOCAL for this machine's (e.g. 8080 or 8080:18080). Only 127.0.0.1 of this machine listens."),
      validateInput: (v) => {
        try {
          parsePortSpec(v);
          return undefined;
        } catch (e) {
          return e instanceof ForwardError ? forwardProblemText(e.problem) : String(e);
        }
      },
    }));
  if (text === undefined) return undefined;
  let spec: PortSpec;
  try {
    spec = parsePortSpec(text);
  } catch (e) {
    throw e instanceof ForwardError ? new UserError(forwardProblemText(e.problem)) : e;
  }
  const fwd = await forwards.ensure(picked.id, spec, openOptions(arg));
  if (scripted === undefined) void announce(forwards, picked.id, picked.name, fwd, '');
  return fwd.url;
}

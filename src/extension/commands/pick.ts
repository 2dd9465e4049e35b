// Which instance a command is about: the one the tree row or the arguments name; else the only
// candidate; else the user picks. Parsing of scripted arguments lives here too.
import * as vscode from 'vscode';
import { showInfo } from '../notify';
import { forLabel } from '../../core/text';
import type { ZodError } from 'zod';
import type { Instance } from '../../core/instances';
import { currentState } from '../../core/spend';
import { isPowered } from '../../app/session';
import { describeArgsError, instanceIdOf } from '../args';
import { stateLabel } from '../view/present';
import { platformLabel, type CommandContext } from '../services/context';
import { UserError } from '../words/errors';

export const powered = isPowered;
export const notReleased = (i: Instance): boolean => currentState(i.intervals) !== 'released';
export const billingGpu = (i: Instance): boolean => ['running', 'spot'].includes(currentState(i.intervals) ?? '');

/** The instance the argument names (tree node, id or `{ id }`), or the one the user picks; undefined when cancelled. */
export async function pickInstance(ctx: CommandContext, arg: unknown, filter: (i: Instance) => boolean = () => true, placeHolder?: string): Promise<Instance | undefined> {
  const id = instanceIdOf(arg);
  if (id !== undefined) {
    const inst = ctx.store.get(id);
    if (!inst) throw new UserError(vscode.l10n.t('No instance with id {0}.', id));
    return inst;
  }
  const all = ctx.store.list();
  const list = all.filter(filter);
  if (list.length === 0) {
    void showInfo(all.length ? vscode.l10n.t('No instance is in a state this command works on.') : vscode.l10n.t('No instance yet: add one first.'));
    return undefined;
  }
  if (list.length === 1) return list[0];
  const pick = await vscode.window.showQuickPick(
    list.map((i) => ({ label: forLabel(i.name), description: forLabel(`${platformLabel(ctx, i.platform)} · ${i.card} ×${i.gpuCount}`), detail: stateLabel(currentState(i.intervals), vscode.l10n), id: i.id })),
    { placeHolder: placeHolder ?? vscode.l10n.t('Choose an instance') },
  );
  return pick ? ctx.store.get(pick.id) : undefined;
}

type Schema<T> = { safeParse(v: unknown): { success: true; data: T } | { success: false; error: ZodError } };

/** Scripted arguments through their zod schema, or a UserError naming the field. */
export function parseArgs<T>(schema: Schema<T>, arg: unknown): T {
  const r = schema.safeParse(arg);
  if (!r.success) throw new UserError(vscode.l10n.t('Invalid arguments: {0}', describeArgsError(r.error)));
  return r.data;
}

/** `{ acceptNewHostKey: true }` from a script's arguments (tests on a fresh loopback sshd). */
export function openOptions(arg: unknown): { acceptNewHostKey?: boolean } {
  return arg && typeof arg === 'object' && (arg as { acceptNewHostKey?: unknown }).acceptNewHostKey === true ? { acceptNewHostKey: true } : {};
}

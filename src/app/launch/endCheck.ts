// The task's `end:` checked before anything runs, with the rule `run --then` and `schedule add`
// use (core/guards/powerOffer via rules.endRefusal): up front from the task and the accounts
// alone (an SSH login has no no-GPU mode; a launch releases only an instance it creates), then,
// for a named instance or a create, against its account before it is powered on or created, and
// for a power-off the login itself would do, against what the login may do once connected
// (root or `sudo -n`), before anything is pushed or run.
import { descriptorOf } from '../../core/platforms/descriptors';
import type { Task } from '../../core/task/types';
import type { L10n } from '../../core/l10n';
import { probeBoxPower } from '../runs/boxPower';
import { isSshConfigAlias, type LaunchAccount } from './boxes';
import type { LaunchRun, Live } from './context';
import { endRefusal, type EndFacts } from './rules';
import { endRefusalText } from './words';

const accountFacts = (a: LaunchAccount): NonNullable<EndFacts['account']> => ({ kind: a.connector.kind, powerAllowed: a.powerActions });

function say(task: Task, where: string, f: EndFacts, l10n: L10n, account?: LaunchAccount, user?: string): string | null {
  const code = endRefusal(task.end, f);
  if (!code) return null;
  return endRefusalText(task.end, where, code, l10n, { ...(account ? { account: account.id, platform: descriptorOf(account.connector.kind).name.en } : {}), ...(user ? { user } : {}) });
}

/** What can be told from the task and the accounts alone: the refusal's words, or null. */
export function endRefusedUpFront(task: Task, accounts: readonly LaunchAccount[], l10n: L10n): string | null {
  if (task.end === 'none') return null;
  for (const c of task.instances) {
    // An ssh config alias is an SSH login (boxes.ts acquires it so).
    if (c.kind === 'ssh' || (c.kind === 'named' && isSshConfigAlias(c.ref))) {
      const r = say(task, (c.kind === 'ssh' ? c.login : c.ref).slice(0, 200), { boxPower: 'unknown', probed: false, created: false }, l10n);
      if (r) return r;
    } else if (c.kind === 'named') {
      if (task.end === 'release') return say(task, c.ref.slice(0, 200), { boxPower: 'unknown', probed: false, created: false }, l10n);
    } else if (task.end !== 'release') {
      // A create: refused when no account it could create on can do the end.
      const can = accounts.filter((a) => a.powerActions && (!task.create?.account || a.id === task.create.account));
      const refusals = can.map((a) => say(task, `${task.name} on ${a.id}`, { account: accountFacts(a), boxPower: 'unknown', probed: false, created: true }, l10n, a));
      if (can.length && refusals.every((x) => x)) return refusals[0]!;
    }
  }
  return null;
}

/** The check before a named instance is powered on or an instance is created (boxes.ts's endCheck). */
export const endCheckOf = (r: LaunchRun, created: boolean) => (a: LaunchAccount, label: string) => say(r.task, label, { account: accountFacts(a), boxPower: 'unknown', probed: false, created }, r.l10n, a);

/** Once connected: a power-off the login would do, checked against what the login may do. The refusal's words, or null. */
export async function endRefusedOnBox(r: LaunchRun, live: Live): Promise<string | null> {
  if (r.task.end !== 'power-off') return null;
  const a = live.box.kind === 'platform' ? r.account(live.box.account) : undefined;
  const f: EndFacts = { ...(a ? { account: accountFacts(a) } : {}), boxPower: 'unknown', probed: false, created: !!live.box.created };
  if (!endRefusal(r.task.end, { ...f, probed: true })) return null;
  const p = await probeBoxPower(live.conn).catch(() => ({ power: 'unknown' as const, user: '?' }));
  return say(r.task, live.box.label, { ...f, boxPower: p.power, probed: true }, r.l10n, a, p.user);
}

// Which box a password the user gave may go to. A task file is often cloned: its `instance:` may
// name any login, and a password meant for the user's own box must not be offered to it. The
// rule (README, "Launch a task"): the password the user gives (the CLI's GPU_RENT_PASSWORD, a
// script's `password`) is offered only to the SSH login the user names beside it (`launch
// --password-for USER@HOST[:PORT]`, a script's `passwordFor`): same host, port and user. Never to
// a platform instance (the platform gives its own login's password) or to any other login.
import { tryParseTarget, type SshTarget } from '../../remote/target';

/** Whether the user's password is meant for this box: an SSH login that `forLogin` names exactly (host, port, user). */
export function passwordMeantFor(box: { kind: 'ssh' | 'platform'; target: Pick<SshTarget, 'host' | 'port' | 'user'> }, forLogin: string | undefined): boolean {
  if (box.kind !== 'ssh' || !forLogin) return false;
  const p = tryParseTarget(forLogin);
  if (!p.ok) return false;
  const t = box.target;
  return p.target.host.toLowerCase() === t.host.toLowerCase() && p.target.port === t.port && (p.target.user ?? '') === (t.user ?? '');
}

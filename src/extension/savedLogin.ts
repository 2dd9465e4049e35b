// The saved instance a login belongs to (issue 41 friction: Run Task asked for the SSH password
// every time, even for a saved instance with its password). Pure: the caller reads the password
// from the secret store. Only a live, password-based instance with the very same user, host and
// port is a match: a password never goes to another login.
import type { Instance } from '../core/instances';
import { currentState } from '../core/spend';

export function savedPasswordInstance(instances: readonly Instance[], q: { user: string; host: string; port: number }): string | undefined {
  const hits = instances.filter((i) => i.login.auth === 'password' && i.login.user === q.user && i.login.host.toLowerCase() === q.host.toLowerCase() && i.login.port === q.port && currentState(i.intervals) !== 'released');
  // Two saved entries for one login (the same box twice): the newest.
  return hits.sort((a, b) => b.createdAt - a.createdAt)[0]?.id;
}

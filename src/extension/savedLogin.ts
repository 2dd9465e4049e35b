// The saved instance a login belongs to (issue 41 friction: Run Task asked for the SSH password
// every time, even for a saved instance with its password). Pure: the caller reads the password
// from the secret store. Only a live, password-based instance with the very same user, host and
// port is a match: a password never goes to another login.
import type { Instance } from '../core/instances';
import { currentState } from '../core/spend';

export function savedPasswordInstance(instances: readonly Instance[], q: { user: string; host: string; port: number }): string | undefined {
  const hits = instances.filter((i) => i.login.auth === 'password' && i.login.user === q.user && i.login.host.toLowerCase() === q.host.toLowerCase() && i.login.port === q.port);
  // Two saved entries for one login may hold different passwords (one stale, as a platform hands a
  // released port to the next renter): a wrong one must not be tried, so the user is asked.
  const [only] = hits;
  return hits.length === 1 && only && currentState(only.intervals) !== 'released' ? only.id : undefined;
}

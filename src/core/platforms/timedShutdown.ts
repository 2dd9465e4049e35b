// A timed shutdown the platform keeps itself (it runs while this machine sleeps): AutoDL's
// console `POST /api/v1/instance/timed/shutdown` `{instance_uuid, shutdown_at}`. Two public clients
// disagree on `shutdown_at`: Python clients send a Beijing "YYYY-MM-DD HH:MM" string; a write-up
// of the console's own front-end bundle (dated 2026-09) quotes its call site, which sends epoch
// milliseconds, and `null` to cancel. gpu-rent sends what the console sends, then reads the
// list row's `timed_shutdown_at` back to see the platform understood it. Pure: the body, the bounds.

/** Our own bound (no source gives the console's): a timer this far ahead is more likely a typo. */
export const MAX_TIMER_DAYS = 30;
/** At least this far ahead: a timer in the past or the next seconds is refused before anything is sent. */
export const MIN_TIMER_S = 60;
/** The read-back must name the same minute. */
export const READ_BACK_SLACK_S = 60;

export type TimerProblem = 'past' | 'tooFar';

export function timerProblem(at: number, now: number): TimerProblem | undefined {
  if (!Number.isFinite(at) || at < now + MIN_TIMER_S) return 'past';
  if (at > now + MAX_TIMER_DAYS * 86400) return 'tooFar';
  return undefined;
}

/** The console's body: epoch milliseconds, whole minutes (the console's picker chooses minutes); null cancels. */
export function timedShutdownBody(ref: string, at: number | null): { instance_uuid: string; shutdown_at: number | null } {
  return { instance_uuid: ref, shutdown_at: at === null ? null : Math.floor(at / 60) * 60 * 1000 };
}

/** "2026-12-07 01:00" (Beijing, what the console shows) → epoch seconds; undefined when it is not that. */
export function parseBeijingMinute(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59) return undefined;
  const t = Date.UTC(y, mo - 1, d, h, mi) / 1000 - 8 * 3600;
  // 2026-02-31 rolls over: refused rather than moved.
  const back = new Date((t + 8 * 3600) * 1000);
  return back.getUTCDate() === d && back.getUTCMonth() === mo - 1 ? t : undefined;
}

/** What the row said after the request: the timer seen at the minute asked (or gone, for a cancel), or not. */
export function readBackVerdict(asked: number | null, seen: number | undefined): 'confirmed' | 'notShown' | 'differs' {
  if (asked === null) return seen === undefined ? 'confirmed' : 'differs';
  if (seen === undefined) return 'notShown';
  return Math.abs(seen - Math.floor(asked / 60) * 60) <= READ_BACK_SLACK_S ? 'confirmed' : 'differs';
}

// A countdown said once a second (the card wait's "next try in N s", issue 41 bug 9). Pure: no vscode.
/** Whole seconds left until `deadlineMs` (never below 0): what a countdown shows. */
export function secondsLeft(deadlineMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil((deadlineMs - nowMs) / 1000));
}

/** Says the seconds left each second until the next try (one at a time; stopped by the next try, a cancel or the end). */
export class Countdown {
  private timer: ReturnType<typeof setInterval> | undefined;
  constructor(private readonly now: () => number = Date.now) {}
  start(inMs: number, say: (secondsLeft: number) => void): void {
    this.stop();
    const deadline = this.now() + inMs;
    say(secondsLeft(deadline, this.now()));
    this.timer = setInterval(() => {
      const left = secondsLeft(deadline, this.now());
      say(left);
      if (left <= 0) this.stop();
    }, 1000);
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

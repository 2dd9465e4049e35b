// The GPU monitor's data: ONE long-lived exec channel per instance running
// `nvidia-smi --query-gpu=… -lms N`, read line by line into a 30-minute window. Started when the
// view shows, stopped when it hides; a dropped stream is opened again after a short wait (still
// one channel at a time). Never a new exec per sample.
import { gpuStreamCommand, GpuWindow, parseGpuLine, type TimedSample } from '../../core/progress';
import type { RemoteConnection } from '../../remote/connection';
import { sleep } from '../../remote/util/sleep';

export type StreamState = 'streaming' | 'reconnecting' | 'stopped';

export interface GpuStreamOptions {
  intervalMs?: number;
  retryMs?: number;
  now?: () => number;
  onSamples?: (batch: TimedSample[]) => void;
  onState?: (state: StreamState, reason?: string) => void;
  window?: GpuWindow;
}

const MAX_PENDING = 16 * 1024;

export class GpuStream {
  readonly window: GpuWindow;
  /** Exec channels opened over this stream's life (one, plus one per resume after a drop). */
  channelsOpened = 0;
  /** Channels open right now: never more than one. */
  openNow = 0;
  private ac: AbortController | undefined;
  private pending = '';
  /** The last second a sample of each GPU went to the page. */
  private readonly postedSecond = new Map<number, number>();
  private loopDone: Promise<void> | undefined;

  constructor(
    private readonly connect: () => Promise<RemoteConnection>,
    private readonly opts: GpuStreamOptions = {},
  ) {
    this.window = opts.window ?? new GpuWindow();
  }

  get running(): boolean {
    return this.ac !== undefined;
  }

  start(): void {
    if (this.ac) return;
    const ac = (this.ac = new AbortController());
    this.loopDone = this.loop(ac.signal);
  }

  /** Stops the stream and waits until its channel is closed. */
  async stop(): Promise<void> {
    const ac = this.ac;
    this.ac = undefined;
    ac?.abort();
    await this.loopDone;
  }

  private now(): number {
    return this.opts.now ? this.opts.now() : Date.now() / 1000;
  }

  /** Lines of stream output → samples for the page (at most one per GPU and second). */
  feed(chunk: string): TimedSample[] {
    const text = this.pending + chunk;
    const lines = text.split('\n');
    this.pending = lines.pop() ?? '';
    if (this.pending.length > MAX_PENDING) this.pending = '';
    const t = this.now();
    // The page gets what the window kept, the first sample per GPU and second: a flood of lines
    // is at most one sample per GPU per second for it, like the window itself.
    const out: TimedSample[] = [];
    const second = Math.floor(t);
    for (const l of lines) {
      const s = parseGpuLine(l.trim());
      if (!s || !this.window.add(s, t)) continue;
      if ((this.postedSecond.get(s.index) ?? -Infinity) >= second) continue;
      this.postedSecond.set(s.index, second);
      out.push({ ...s, t });
    }
    return out;
  }

  private async loop(signal: AbortSignal): Promise<void> {
    const cmd = gpuStreamCommand(this.opts.intervalMs ?? 1000);
    while (!signal.aborted) {
      let reason = 'the stream ended';
      try {
        const conn = await this.connect();
        if (signal.aborted) break;
        this.channelsOpened++;
        this.openNow++;
        this.opts.onState?.('streaming');
        this.pending = '';
        try {
          // A login shell: nvidia-smi may only be on the profile's PATH (/usr/local/nvidia/bin in containers).
          const r = await conn.execStream(cmd, {
            signal,
            onStdout: (c) => {
              const batch = this.feed(c.toString('utf8'));
              if (batch.length) this.opts.onSamples?.(batch);
            },
          });
          reason = `nvidia-smi exited (${r.code ?? r.signal ?? '?'})`;
        } finally {
          this.openNow--;
        }
      } catch (e) {
        reason = e instanceof Error ? e.message : String(e);
      }
      if (signal.aborted) break;
      this.opts.onState?.('reconnecting', reason);
      await sleep(this.opts.retryMs ?? 3000, signal);
    }
    this.opts.onState?.('stopped');
  }
}

// One exec channel: opening it under the operation's signal, then driving it to its exit
// (stdin in, output out, the remote process killed on a deadline or a cancel, a dropped link
// noticed). The connection supplies what it knows about its link through ChannelLink.
import type { Client, ClientChannel } from 'ssh2';
import { RemoteError, waitEnded } from './errors';
import { killRemote } from './ssh2-internals';
import { isDeadlineReason, underSignal } from './util/deadline';
import { firstOf } from './util/events';

export type Stage = 'connect' | 'channel-open' | 'sftp-open' | 'command';

/** The error for an operation signal that fired during `stage`: its deadline, or a cancel. */
export function abortedDuring(stage: Stage, reason: unknown, timeoutMs?: number): RemoteError {
  if (reason instanceof RemoteError) return reason;
  if (!isDeadlineReason(reason)) return waitEnded({ code: 'cancelled' });
  if (stage === 'command' && timeoutMs !== undefined) return waitEnded({ code: 'command-timeout', seconds: Math.round(timeoutMs / 100) / 10 }, { detail: { stage, timeoutMs } });
  return waitEnded({ code: 'stage-timeout', stage }, { detail: { stage, ...(timeoutMs === undefined ? {} : { timeoutMs }) } });
}

/**
 * What a command reads on stdin: bytes; a promise of them (written when it settles; undefined
 * or a failure only ends stdin); or an async iterable, written chunk by chunk as it yields,
 * each once the channel took the one before (its end, or a failure, ends stdin).
 */
export type StdinSource = string | Buffer | Promise<string | Buffer | undefined> | AsyncIterable<Buffer>;

export interface ChannelRun {
  /** The operation's signal: its deadline and its caller's cancel. */
  signal?: AbortSignal;
  /** The deadline's length, for the message. */
  timeoutMs?: number;
  /** Written, then stdin's end (a promise: when it settles; an async iterable: chunk by chunk as it yields; see ExecOptions.stdin). */
  stdin?: StdinSource;
  /** A promise returned pauses the channel until it settles (ssh2 then stops opening the window). */
  onStdout?: (c: Buffer) => unknown;
  onStderr?: (c: Buffer) => void;
  /** Checked after each chunk: true stops the remote command and ends the run normally (outputLimited). */
  overLimit?: () => boolean;
}

/** Bytes of stdout and of stderr one exec keeps by default: what a real reply needs, with room. */
export const DEFAULT_EXEC_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * One stream's output kept up to `cap` bytes; the rest only counted. Decoding once at the end
 * keeps multi-byte characters whole; a character cut at the cap becomes U+FFFD.
 */
export class CappedStream {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  dropped = 0;
  constructor(private readonly cap: number) {}
  readonly push = (c: Buffer): void => {
    const room = this.cap - this.kept;
    if (room >= c.length) {
      this.chunks.push(c);
      this.kept += c.length;
      return;
    }
    if (room > 0) {
      this.chunks.push(Buffer.from(c.subarray(0, room)));
      this.kept += room;
    }
    this.dropped += c.length - Math.max(0, room);
  };
  text(): string {
    return Buffer.concat(this.chunks, this.kept).toString('utf8');
  }
}

/**
 * stdout and stderr of one exec under a cap each. Past the cap the bytes are counted until
 * `drainBytes` more have gone by (a command printing endlessly is then stopped), so memory
 * stays at about 2 × cap whatever the box sends.
 */
export class ExecOutput {
  readonly stdout: CappedStream;
  readonly stderr: CappedStream;
  private readonly drainBytes: number;
  constructor(cap = DEFAULT_EXEC_OUTPUT_BYTES) {
    const c = Math.max(0, Math.floor(cap));
    this.stdout = new CappedStream(c);
    this.stderr = new CappedStream(c);
    this.drainBytes = Math.max(16 * 1024 * 1024, 4 * c);
  }
  readonly overLimit = (): boolean => this.stdout.dropped + this.stderr.dropped > this.drainBytes;
  result(): { stdout: string; stderr: string; truncated: { stdout: number; stderr: number } } {
    return { stdout: this.stdout.text(), stderr: this.stderr.text(), truncated: { stdout: this.stdout.dropped, stderr: this.stderr.dropped } };
  }
}

/** What the connection tells a running channel about its link. */
export interface ChannelLink {
  /** Counts the channel as open until the returned function is called. */
  track(channel: ClientChannel): () => void;
  /** The link the channel was opened on is still the connection's current one. */
  stillCurrent(): boolean;
  onDisconnect(fn: () => void): () => void;
  lostError(when: string): RemoteError;
}

interface EarlyExit {
  seen: boolean;
  code: number | null;
  signal?: string;
}
const earlyExits = new WeakMap<ClientChannel, EarlyExit>();

export function openExec(client: Client, command: string, signal: AbortSignal | undefined, classify: (e: Error) => RemoteError): Promise<ClientChannel> {
  return underSignal<ClientChannel>(
    signal,
    (reason) => abortedDuring('channel-open', reason),
    (done) => {
      try {
        client.exec(command, (e, ch) => {
          if (e) return done(classify(e));
          // Record the exit status now: a quick command's status can arrive in the same packet
          // batch as this callback, before driveChannel's listeners exist.
          const early: EarlyExit = { seen: false, code: null };
          earlyExits.set(ch, early);
          ch.once('exit', (c: number | null, sig?: string) => {
            early.seen = true;
            if (typeof c === 'number') early.code = c;
            else if (typeof sig === 'string') early.signal = sig;
          });
          done(null, ch);
        });
      } catch (e) {
        // ssh2 throws synchronously on a link that just died.
        done(classify(e instanceof Error ? e : new Error(String(e))));
      }
    },
    (late) => late.close(), // opened after the deadline: must not leak
  );
}

export function driveChannel(channel: ClientChannel, o: ChannelRun, link: ChannelLink): Promise<{ code: number | null; signal?: string; outputLimited?: boolean }> {
  const untrack = link.track(channel);
  return new Promise((resolve, reject) => {
    const early = earlyExits.get(channel) ?? { seen: false, code: null };
    const sawExitNow = () => early.seen;
    let failure: RemoteError | null = null;
    let finished = false;
    let limited = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      untrack();
      o.signal?.removeEventListener('abort', onAbort);
      offDisconnect();
      if (failure) reject(failure);
      else if (limited) resolve({ code: early.code, ...(early.signal ? { signal: early.signal } : {}), outputLimited: true });
      else if (!sawExitNow() && !link.stillCurrent()) reject(link.lostError('while a remote command was running'));
      else resolve({ code: early.code, ...(early.signal ? { signal: early.signal } : {}) });
    };
    const stop = (why: RemoteError) => {
      if (failure || finished) return;
      failure = why;
      killRemote(channel);
      channel.close();
      // A dead link never confirms the close: do not wait for it.
      setTimeout(finish, 2000).unref();
    };
    const onAbort = () => stop(abortedDuring('command', o.signal?.reason, o.timeoutMs));
    const offDisconnect = link.onDisconnect(() => {
      if (!sawExitNow() && !failure) failure = link.lostError('while a remote command was running');
      setImmediate(finish);
    });
    if (o.signal?.aborted) onAbort();
    else o.signal?.addEventListener('abort', onAbort, { once: true });
    // Past the output limit: stop the command, keep what was kept, drop whatever still arrives.
    const checkLimit = () => {
      if (limited || failure || finished || !o.overLimit?.()) return;
      limited = true;
      killRemote(channel);
      channel.close();
      setTimeout(finish, 2000).unref();
    };
    let waits = 0;
    const resume = () => {
      if (--waits === 0 && !finished) channel.resume();
    };
    channel.on('data', (c: Buffer) => {
      if (limited) return;
      const wait = o.onStdout?.(c);
      if (wait instanceof Promise) {
        if (waits++ === 0) channel.pause();
        wait.then(resume, resume);
      }
      checkLimit();
    });
    channel.stderr.on('data', (c: Buffer) => {
      if (limited) return;
      o.onStderr?.(c);
      checkLimit();
    });
    channel.on('error', () => undefined);
    channel.on('close', finish);
    const stdin = o.stdin;
    const end = (s: string | Buffer | undefined) => {
      try {
        if (s === undefined) channel.end();
        else channel.end(s);
      } catch {
        /* the channel is gone already: its close settles the run */
      }
    };
    if (stdin instanceof Promise) stdin.then(end, () => end(undefined));
    else if (isIterable(stdin)) void pump(channel, stdin, () => finished || failure !== null);
    else end(stdin);
  });
}

function isIterable(s: StdinSource | undefined): s is AsyncIterable<Buffer> {
  return typeof s === 'object' && s !== null && !Buffer.isBuffer(s) && !(s instanceof Promise) && Symbol.asyncIterator in s;
}

/** Writes what `source` yields, each chunk once the channel took the one before, then stdin's end; stops when `gone()` (the run ended). */
async function pump(channel: ClientChannel, source: AsyncIterable<Buffer>, gone: () => boolean): Promise<void> {
  try {
    for await (const chunk of source) {
      if (gone()) return;
      if (!channel.write(chunk)) await firstOf(channel, ['drain', 'close']);
    }
  } catch {
    /* the source failed: only stdin's end */
  }
  try {
    if (!gone()) channel.end();
  } catch {
    /* the channel is gone already: its close settles the run */
  }
}

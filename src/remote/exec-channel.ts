// One exec channel: opening it under the operation's signal, then driving it to its exit
// (stdin in, output out, the remote process killed on a deadline or a cancel, a dropped link
// noticed). The connection supplies what it knows about its link through ChannelLink.
import type { Client, ClientChannel } from 'ssh2';
import { RemoteError } from './errors';
import { killRemote } from './ssh2-internals';
import { isDeadlineReason, underSignal } from './util/deadline';

export type Stage = 'connect' | 'channel-open' | 'sftp-open' | 'command';

const STAGE_TEXT: Record<Stage, string> = {
  connect: 'connecting',
  'channel-open': 'opening an SSH channel',
  'sftp-open': 'opening SFTP',
  command: 'the remote command',
};

/** The error for an operation signal that fired during `stage`: its deadline, or a cancel. */
export function abortedDuring(stage: Stage, reason: unknown, timeoutMs?: number): RemoteError {
  if (reason instanceof RemoteError) return reason;
  if (!isDeadlineReason(reason)) return new RemoteError('aborted', 'cancelled');
  if (stage === 'command' && timeoutMs !== undefined)
    return new RemoteError('timeout', `the remote command did not finish within ${Math.round(timeoutMs / 100) / 10} s`, { detail: { stage, timeoutMs } });
  return new RemoteError('timeout', `${STAGE_TEXT[stage]} took longer than the deadline`, { detail: { stage, ...(timeoutMs === undefined ? {} : { timeoutMs }) } });
}

export interface ChannelRun {
  /** The operation's signal: its deadline and its caller's cancel. */
  signal?: AbortSignal;
  /** The deadline's length, for the message. */
  timeoutMs?: number;
  stdin?: string | Buffer;
  onStdout?: (c: Buffer) => void;
  onStderr?: (c: Buffer) => void;
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

export function driveChannel(channel: ClientChannel, o: ChannelRun, link: ChannelLink): Promise<{ code: number | null; signal?: string }> {
  const untrack = link.track(channel);
  return new Promise((resolve, reject) => {
    const early = earlyExits.get(channel) ?? { seen: false, code: null };
    const sawExitNow = () => early.seen;
    let failure: RemoteError | null = null;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      untrack();
      o.signal?.removeEventListener('abort', onAbort);
      offDisconnect();
      if (failure) reject(failure);
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
    channel.on('data', (c: Buffer) => o.onStdout?.(c));
    channel.stderr.on('data', (c: Buffer) => o.onStderr?.(c));
    channel.on('error', () => undefined);
    channel.on('close', finish);
    if (o.stdin !== undefined) channel.end(o.stdin);
    else channel.end();
  });
}

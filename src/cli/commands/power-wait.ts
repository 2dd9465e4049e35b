// `gpu-rent power-on INSTANCE --wait-for-gpu [--wait SECONDS] --yes`: the power-on tried again
// while the platform has no free card (app/platforms/waitForGpu.ts: at most one call every 15 s,
// backing off to 5 minutes), the time waited on stderr, then the state followed until it runs.
// Ctrl-C stops the wait at once (exit 130) and says whether a power-on was on its way. The
// instance's power-on lock (a lock file beside the accounts) is held throughout, so a second
// gpu-rent cannot send one meanwhile.
import { join } from 'node:path';
import { configHome } from '../../app/platforms/accountFile';
import { describeFailure, PLATFORM_NAMES } from '../../app/platforms/errors';
import { acquireFileLock, PowerOnLocks, powerLockKey, type Release } from '../../app/platforms/powerLock';
import { TARGET, waitForState } from '../../app/platforms/settle';
import { realClock, waitForGpu, type TryReport } from '../../app/platforms/waitForGpu';
import { waitedText, type RefusalAdvice } from '../../core/platforms/gpuWait';
import { can, type Connector, type PlatformFailure, type PlatformInstance } from '../../core/platforms/types';
import { forTerminal, jsonForTerminal } from '../../core/text';
import type { CliIO } from '../command';
import { failureLine, type CliAccount } from './accounts';

const ADVICE: Record<RefusalAdvice, string> = {
  topUp: 'the balance is too low: top up the account, then run this again',
  realName: 'real-name verification (实名认证) is not done: finish it in the platform console, then run this again',
  renewToken: 'the token was refused or has expired: add the account again with a new token (gpu-rent accounts add)',
  checkKeys: 'the key was refused: check the AccessKey / SecretId and its permissions',
  raiseQuota: 'an account quota is used up: raise it in the console (quota centre), or release an instance you do not need',
  notFound: 'the instance is gone from the account (released?): gpu-rent instances lists what is there',
  checkState: 'the instance is not shut down (running or changing state): gpu-rent instances shows its state',
  notSupported: 'the platform offers no GPU start for it through its API: start it in the console',
  badResponse: 'the platform answered with something that is not a reply: try again later',
  other: 'the platform refused the power-on for a reason that waiting does not mend',
};

/** The words for one refusal that was waited out. */
function whyLine(f: PlatformFailure): string {
  const own = forTerminal([f.code, f.message].filter(Boolean).join(' ').slice(0, 200));
  if (f.kind === 'noStock' || f.kind === 'noGpuOnHost') return `no free card (${own})`;
  if (f.kind === 'rateLimited') return `rate-limited, slowing down (${own})`;
  return `the platform did not answer (${f.kind}: ${own})`;
}

export interface WaitRun {
  waitS: number;
  json: boolean;
}

export async function powerOnWhenFree(io: CliIO, a: CliAccount, c: Connector, inst: PlatformInstance, o: WaitRun): Promise<number> {
  const name = forTerminal(inst.name);
  if (inst.state !== 'stopped') {
    io.stderr(`gpu-rent power-on: ${name} is ${forTerminal(inst.rawState || inst.state)}, not shut down: nothing to wait for\n`);
    return 1;
  }
  const key = powerLockKey(a.account.id, inst.ref);
  const file = acquireFileLock(join(configHome(io.env), 'locks'), key, 'power-on --wait-for-gpu');
  if ('busy' in file) {
    io.stderr(`gpu-rent power-on: another gpu-rent${file.busy.pid ? ` (pid ${file.busy.pid}, ${forTerminal(file.busy.what)})` : ''} is powering on ${name} now: nothing sent\n`);
    return 1;
  }
  const abort = new AbortController();
  const onInt = () => abort.abort();
  process.on('SIGINT', onInt);
  let release: Release = file.release;
  try {
    const envMin = Number(io.env.GPU_RENT_WAIT_MIN_INTERVAL_MS);
    io.stderr(`waiting for a free card for ${name} on ${PLATFORM_NAMES[a.account.kind]}: at most ${waitedText(o.waitS * 1000)}, one try every 15 s at first, then less often (Ctrl-C stops)\n`);
    const outcome = await waitForGpu({
      connector: c,
      ref: inst.ref,
      lockKey: key,
      locks: new PowerOnLocks(),
      maxWaitMs: o.waitS * 1000,
      clock: realClock,
      signal: abort.signal,
      ...(envMin > 0 ? { minIntervalMs: envMin, maxIntervalMs: Math.max(envMin, envMin * 8) } : {}),
      onTry: (r: TryReport) => {
        if (!r.failure) return;
        io.stderr(`  try ${r.attempt} (waited ${waitedText(r.waitedMs)}): ${r.verdict === 'stop' ? 'refused' : whyLine(r.failure)}${r.nextInMs !== undefined ? `; next try in ${Math.round(r.nextInMs / 1000)} s` : ''}\n`);
      },
    });
    const waited = (ms: number) => waitedText(ms);
    const doc = (extra: Record<string, unknown>) => (o.json ? io.stdout(jsonForTerminal({ account: a.account.id, ref: inst.ref, action: 'power-on', ...extra }, 2) + '\n') : undefined);
    switch (outcome.kind) {
      case 'busy':
        io.stderr(`gpu-rent power-on: a power-on of ${name} is in flight (${outcome.holder.what}): nothing sent\n`);
        return 1;
      case 'cancelled':
        io.stderr(`\ngpu-rent power-on: stopped waiting for ${name} after ${waited(outcome.waitedMs)} (${outcome.attempts} ${outcome.attempts === 1 ? 'try' : 'tries'})${outcome.inFlight ? '; a power-on was on its way when you stopped: it may still start (gpu-rent instances shows its state)' : '; nothing is left running'}\n`);
        doc({ waitForGpu: { outcome: 'cancelled', attempts: outcome.attempts, waitedSeconds: Math.round(outcome.waitedMs / 1000), inFlight: outcome.inFlight }, settled: false, state: null });
        return 130;
      case 'gaveUp':
        io.stderr(`gpu-rent power-on: no free card for ${name} within ${waited(outcome.waitedMs)} (${outcome.attempts} tries; last: ${whyLine(outcome.last)}). It is still shut down. Try again later, another region (gpu-rent stock), or clone it to a host with a free card in the console\n`);
        doc({ waitForGpu: { outcome: 'gaveUp', attempts: outcome.attempts, waitedSeconds: Math.round(outcome.waitedMs / 1000), last: { kind: outcome.last.kind, code: outcome.last.code } }, settled: false, state: 'stopped' });
        return 1;
      case 'refused':
        io.stderr(`gpu-rent power-on: ${name}: ${ADVICE[outcome.advice]}. ${forTerminal(describeFailure(outcome.failure))}. Stopped waiting after ${waited(outcome.waitedMs)}\n`);
        doc({ waitForGpu: { outcome: 'refused', attempts: outcome.attempts, waitedSeconds: Math.round(outcome.waitedMs / 1000), failure: { kind: outcome.failure.kind, code: outcome.failure.code }, advice: outcome.advice }, settled: false, state: 'stopped' });
        return 1;
      case 'started':
        break;
    }
    io.stderr(`  a card was free after ${waited(outcome.waitedMs)} (${outcome.attempts} ${outcome.attempts === 1 ? 'try' : 'tries'}): starting\n`);
    let last = inst.state as string;
    const settleMs = Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) > 0 ? Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) : 3000;
    const r = await waitForState(c, inst.ref, TARGET.powerOnGpu, { deadlineMs: 300_000, intervalMs: settleMs, signal: abort.signal, onProgress: (p) => p.state !== last && io.stderr(`  ${(last = p.state)}\n`) }).catch((e: unknown) => ({ settled: false, error: failureLine(e) }) as { settled: false; error: string; last?: PlatformInstance });
    if ('error' in r) io.stderr(`gpu-rent power-on: started, but the state could not be read: ${r.error}\n`);
    // Started: the lock is released now (the start is the platform's from here).
    release();
    release = () => undefined;
    let login: unknown;
    if (r.settled && can(a.account.kind, 'sshLogin')) {
      const l = await c.sshLogin(inst.ref).catch(() => undefined);
      if (l) {
        login = { host: l.host, port: l.port, user: l.user, passwordChanged: l.password !== undefined };
        io.stderr(`  ssh -p ${l.port} ${forTerminal(l.user)}@${forTerminal(l.host)}${l.password ? ' (the password is shown in the platform console)' : ''}\n`);
      }
    }
    const state = r.last?.state ?? null;
    if (abort.signal.aborted) {
      io.stderr(`\ngpu-rent power-on: ${name} was started; stopped following its state (last: ${state ?? 'unknown'})\n`);
      return 130;
    }
    io.stderr(r.settled ? `${name} is up after ${waited(outcome.waitedMs)} of waiting for a card\n` : `gpu-rent power-on: ${name} was started but is not running yet (last: ${state ?? 'unknown'})\n`);
    doc({ waitForGpu: { outcome: 'started', attempts: outcome.attempts, waitedSeconds: Math.round(outcome.waitedMs / 1000) }, settled: r.settled, state, ...(login ? { login } : {}) });
    if (!o.json) io.stdout(`${forTerminal(inst.ref)}: ${r.settled ? (state ?? 'running') : `not settled (last: ${state ?? 'unknown'})`}\n`);
    return r.settled ? 0 : 1;
  } finally {
    process.removeListener('SIGINT', onInt);
    release();
  }
}

// `gpu-rent power-on INSTANCE --wait-for-gpu [--wait SECONDS] --yes`: the power-on tried again
// while the platform has no free card (app/platforms/waitForGpu.ts: at most one call every 15 s,
// backing off to 5 minutes), the time waited on stderr, then the state followed until it runs.
// Ctrl-C stops the wait at once (exit 130) and says whether a power-on was on its way. The
// instance's power-on lock (a lock file beside the accounts) is held throughout, so a second
// gpu-rent cannot send one meanwhile.
import { join } from 'node:path';
import { configHome } from '../../app/platforms/accountFile';
import { describeFailure, PLATFORM_NAMES } from '../../app/platforms/errors';
import { acquireFileLock, busyText, PowerOnLocks, powerLockKey, type Release } from '../../app/platforms/powerLock';
import { TARGET, waitForState } from '../../app/platforms/settle';
import { realClock, waitForGpu, type TryReport } from '../../app/platforms/waitForGpu';
import { refusalAdvice, waitedText, type RefusalAdvice } from '../../core/platforms/gpuWait';
import { can, type Connector, type PlatformFailure, type PlatformInstance } from '../../core/platforms/types';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { errorCode, jsonError } from '../json-error';
import type { CliIO } from '../command';
import { failureLine, type CliAccount } from './accounts';
import type { CliLang } from '../lang';
import { onInterrupt } from '../interrupt';
import { beijingDateTime } from '../../core/spend';
import { platformFailureZh, stateWord, t } from '../words';

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
const ADVICE_ZH: Record<RefusalAdvice, string> = {
  topUp: '余额不足：请先充值，再运行一次',
  realName: '未完成实名认证：请在平台控制台完成后再运行一次',
  renewToken: '令牌被拒绝或已过期：请用新令牌重新添加账号（gpu-rent accounts add）',
  checkKeys: '密钥被拒绝：请检查 AccessKey / SecretId 及其权限',
  raiseQuota: '账号配额已用完：请在控制台（配额中心）提高配额，或释放不需要的实例',
  notFound: '账号里已没有这个实例（已释放？）：gpu-rent instances 会列出现有实例',
  checkState: '实例不在关机状态（运行中或状态变化中）：gpu-rent instances 会显示其状态',
  notSupported: '平台的 API 不支持以 GPU 开机：请在控制台开机',
  badResponse: '平台的回答不是有效回复：请稍后再试',
  other: '平台拒绝开机，原因不是等待能解决的',
};

/** What to do about a refusal that ends a wait (or a grab), with the platform's own code and message. */
export function refusalAdviceLine(f: PlatformFailure, lang: CliLang = 'en'): string {
  const a = refusalAdvice(f.kind);
  return lang === 'zh-cn' ? `${ADVICE_ZH[a]}。${forTerminal(platformFailureZh(f))}` : `${ADVICE[a]}. ${forTerminal(describeFailure(f))}`;
}

function whyLine(f: PlatformFailure, lang: CliLang = 'en'): string {
  const own = forTerminal([f.code, f.message].filter(Boolean).join(' ').slice(0, 200));
  if (f.kind === 'noStock' || f.kind === 'noGpuOnHost') return t(lang, 'no free card ({0})', '没有空闲显卡（{0}）', own);
  if (f.kind === 'rateLimited') return t(lang, 'rate-limited, slowing down ({0})', '被限流，放慢重试（{0}）', own);
  return t(lang, 'the platform did not answer ({0}: {1})', '平台没有应答（{0}：{1}）', f.kind, own);
}

export interface WaitRun {
  waitS: number;
  json: boolean;
  lang?: CliLang;
}

export async function powerOnWhenFree(io: CliIO, a: CliAccount, c: Connector, inst: PlatformInstance, o: WaitRun): Promise<number> {
  const name = forTerminal(inst.name);
  const lang = o.lang ?? 'en';
  const tries = (n: number) => (lang === 'zh-cn' ? `${n} 次尝试` : `${n} ${n === 1 ? 'try' : 'tries'}`);
  // Every non-zero exit under --json prints `error` (json-error.ts), alone or beside the wait's document.
  const fail = (code: string, message: string) => (o.json ? io.stdout(jsonError(code, message)) : undefined);
  if (inst.state !== 'stopped') {
    fail('not-stopped', `${inst.name} is ${inst.rawState || inst.state}, not shut down: nothing to wait for`);
    io.stderr(`gpu-rent power-on: ${t(lang, '{0} is {1}, not shut down: nothing to wait for', '{0} 的状态是 {1}，不是关机：无需等待', name, forTerminal(inst.rawState || inst.state))}\n`);
    return 1;
  }
  const key = powerLockKey(a.account.id, inst.ref);
  const file = acquireFileLock(join(configHome(io.env), 'locks'), key, 'power-on --wait-for-gpu');
  if ('busy' in file) {
    fail('busy', `${inst.name} is ${busyText(file.busy)}: nothing sent`);
    const since = file.busy.since !== undefined && Number.isFinite(file.busy.since) && file.busy.since > 0 ? `，自北京时间 ${beijingDateTime(Math.floor(file.busy.since / 1000))} 起` : '';
    if (lang === 'zh-cn') io.stderr(`gpu-rent power-on: ${forTerminal(`${name} 正在由 ${file.busy.what.slice(0, 60)}${file.busy.pid ? `（pid ${file.busy.pid}）` : ''}开机${since}：未发送任何请求`)}\n`);
    else io.stderr(`gpu-rent power-on: ${name} is ${forTerminal(busyText(file.busy))}: nothing sent\n`);
    return 1;
  }
  const abort = onInterrupt();
  let release: Release = file.release;
  try {
    const envMin = Number(io.env.GPU_RENT_WAIT_MIN_INTERVAL_MS);
    io.stderr(t(lang, 'waiting for a free card for {0} on {1}: at most {2}, one try every 15 s at first, then less often (Ctrl-C stops)\n', '正在 {1} 上为 {0} 等待空闲显卡：最多 {2}，开始每 15 秒试一次，之后逐渐放慢（Ctrl-C 停止）\n', name, PLATFORM_NAMES[a.account.kind], waitedText(o.waitS * 1000)));
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
        io.stderr(`  ${t(lang, 'try {0} (waited {1}): {2}', '第 {0} 次尝试（已等 {1}）：{2}', r.attempt, waitedText(r.waitedMs), r.verdict === 'stop' ? t(lang, 'refused', '被拒绝') : whyLine(r.failure, lang))}${r.nextInMs !== undefined ? t(lang, '; next try in {0} s', '；{0} 秒后再试', Math.round(r.nextInMs / 1000)) : ''}\n`);
      },
    });
    const waited = (ms: number) => waitedText(ms);
    const doc = (extra: Record<string, unknown>, error?: { code: string; message: string }) =>
      o.json ? io.stdout(jsonForTerminal({ account: a.account.id, ref: inst.ref, action: 'power-on', ...extra, ...(error ? { error } : {}) }, 2) + '\n') : undefined;
    switch (outcome.kind) {
      case 'busy':
        fail('busy', `a power-on of ${inst.name} is in flight (${outcome.holder.what}): nothing sent`);
        io.stderr(`gpu-rent power-on: ${t(lang, 'a power-on of {0} is in flight ({1}): nothing sent', '{0} 正在开机（{1}）：未发送任何请求', name, outcome.holder.what)}\n`);
        return 1;
      case 'cancelled':
        io.stderr(`\ngpu-rent power-on: ${t(lang, 'stopped waiting for {0} after {1} ({2})', '等了 {1} 后停止为 {0} 等待（{2}）', name, waited(outcome.waitedMs), tries(outcome.attempts))}${outcome.inFlight ? t(lang, '; a power-on was on its way when you stopped: it may still start (gpu-rent instances shows its state)', '；停止时有一个开机请求正在路上：实例仍可能开机（gpu-rent instances 会显示其状态）') : t(lang, '; nothing is left running', '；没有留下任何在运行的东西')}\n`);
        doc({ waitForGpu: { outcome: 'cancelled', attempts: outcome.attempts, waitedSeconds: Math.round(outcome.waitedMs / 1000), inFlight: outcome.inFlight }, settled: false, state: null }, { code: 'interrupted', message: `stopped waiting for ${inst.name}` });
        return 130;
      case 'gaveUp':
        io.stderr(`gpu-rent power-on: ${t(lang, 'no free card for {0} within {1} ({2} tries; last: {3}). It is still shut down. Try again later, another region (gpu-rent stock), or clone it to a host with a free card in the console', '{1} 内没有等到 {0} 的空闲显卡（{2} 次尝试；最后：{3}）。它仍是关机状态。请稍后再试、换个地区（gpu-rent stock），或在控制台克隆到有空闲显卡的主机', name, waited(outcome.waitedMs), outcome.attempts, whyLine(outcome.last, lang))}\n`);
        doc({ waitForGpu: { outcome: 'gaveUp', attempts: outcome.attempts, waitedSeconds: Math.round(outcome.waitedMs / 1000), last: { kind: outcome.last.kind, code: outcome.last.code } }, settled: false, state: 'stopped' }, { code: 'gave-up', message: `no free card for ${inst.name} within ${waited(outcome.waitedMs)}: it is still shut down` });
        return 1;
      case 'refused':
        // In Chinese the platform's refusal in the extension's words for its kind, its own code and message beside them.
        if (lang === 'zh-cn') io.stderr(`gpu-rent power-on: ${name}：${ADVICE_ZH[outcome.advice]}。${forTerminal(platformFailureZh(outcome.failure))}。${t(lang, 'Stopped waiting after {0}', '等了 {0} 后停止等待', waited(outcome.waitedMs))}\n`);
        else io.stderr(`gpu-rent power-on: ${name}: ${ADVICE[outcome.advice]}. ${forTerminal(describeFailure(outcome.failure))}. ${t(lang, 'Stopped waiting after {0}', '等了 {0} 后停止等待', waited(outcome.waitedMs))}\n`);
        doc({ waitForGpu: { outcome: 'refused', attempts: outcome.attempts, waitedSeconds: Math.round(outcome.waitedMs / 1000), failure: { kind: outcome.failure.kind, code: outcome.failure.code }, advice: outcome.advice }, settled: false, state: 'stopped' }, { code: errorCode({ failure: outcome.failure }), message: `${ADVICE[outcome.advice]}. ${describeFailure(outcome.failure)}` });
        return 1;
      case 'started':
        break;
    }
    io.stderr(`  ${t(lang, 'a card was free after {0} ({1}): starting', '等了 {0} 后有空闲显卡（{1}）：正在开机', waited(outcome.waitedMs), tries(outcome.attempts))}\n`);
    let last = inst.state as string;
    const settleMs = Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) > 0 ? Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) : 3000;
    const r = await waitForState(c, inst.ref, TARGET.powerOnGpu, { deadlineMs: 300_000, intervalMs: settleMs, signal: abort.signal, onProgress: (p) => p.state !== last && io.stderr(`  ${stateWord(lang, (last = p.state))}\n`) }).catch((e: unknown) => ({ settled: false, error: failureLine(e) }) as { settled: false; error: string; last?: PlatformInstance });
    if ('error' in r) io.stderr(`gpu-rent power-on: ${t(lang, 'started, but the state could not be read: {0}', '已开机，但读不到状态：{0}', r.error)}\n`);
    // Started: the lock is released now (the start is the platform's from here).
    release();
    release = () => undefined;
    let login: unknown;
    if (r.settled && can(a.account.kind, 'sshLogin')) {
      const l = await c.sshLogin(inst.ref).catch(() => undefined);
      if (l) {
        login = { host: l.host, port: l.port, user: l.user, passwordChanged: l.password !== undefined };
        io.stderr(`  ssh -p ${l.port} ${forTerminal(l.user)}@${forTerminal(l.host)}${l.password ? t(lang, ' (the password is shown in the platform console)', '（密码见平台控制台）') : ''}\n`);
      }
    }
    const state = r.last?.state ?? null;
    if (abort.signal.aborted) {
      doc({ waitForGpu: { outcome: 'started', attempts: outcome.attempts, waitedSeconds: Math.round(outcome.waitedMs / 1000) }, settled: false, state }, { code: 'interrupted', message: `${inst.name} was started; stopped following its state` });
      io.stderr(`\ngpu-rent power-on: ${t(lang, '{0} was started; stopped following its state (last: {1})', '{0} 已开机；不再跟踪其状态（最后：{1}）', name, stateWord(lang, state ?? 'unknown'))}\n`);
      return 130;
    }
    io.stderr(r.settled ? t(lang, '{0} is up after {1} of waiting for a card\n', '{0} 已运行（等卡用了 {1}）\n', name, waited(outcome.waitedMs)) : `gpu-rent power-on: ${t(lang, '{0} was started but is not running yet (last: {1})', '{0} 已开机但尚未运行（最后：{1}）', name, stateWord(lang, state ?? 'unknown'))}\n`);
    doc({ waitForGpu: { outcome: 'started', attempts: outcome.attempts, waitedSeconds: Math.round(outcome.waitedMs / 1000) }, settled: r.settled, state, ...(login ? { login } : {}) }, r.settled ? undefined : { code: 'not-settled', message: `${inst.name} was started but is not running yet (last: ${state ?? 'unknown'})` });
    if (!o.json) io.stdout(`${forTerminal(inst.ref)}: ${r.settled ? stateWord(lang, state ?? 'running') : t(lang, 'not settled (last: {0})', '未稳定（最后：{0}）', stateWord(lang, state ?? 'unknown'))}\n`);
    return r.settled ? 0 : 1;
  } finally {
    abort.done();
    release();
  }
}

// The typed error every connector throws: the platform, our kind, and the platform's own code
// and message. Front ends word it; `describe` is the plain English line the CLI prints.
import type { AfterPowerOff } from '../../core/platforms/billing';
import type { PlatformFailure, PlatformKind } from '../../core/platforms/types';
import { DESCRIPTORS, PLATFORM_DESCRIPTORS } from '../../core/platforms/descriptors';
import { networkFailure } from '../../core/platforms/errors';
import { boundText } from '../../core/platforms/types';
import { isReplyError } from './http';

/** Each kind's name as its descriptor writes it in English (the CLI's lines, errors). */
export const PLATFORM_NAMES: Record<PlatformKind, string> = Object.fromEntries(DESCRIPTORS.map((d) => [d.kind, d.name.en])) as Record<PlatformKind, string>;

const HINT: Partial<Record<PlatformFailure['kind'], string>> = {
  tokenExpired: 'the token was refused or has expired: paste a new one (gpu-rent accounts add, or Update Platform Token)',
  auth: 'the credentials were refused: check the key and its permissions',
  rateLimited: 'too many requests: try again in a minute',
  server: 'the platform had an internal error: try again later',
  network: 'the platform could not be reached',
  timeout: 'no answer within the deadline',
  insufficientBalance: '余额不足: top up the account first',
  noStock: 'no stock of this GPU spec now (暂无库存): try again later, or another spec or region',
  noGpuOnHost: "the instance's host has no free GPU now (空闲GPU不足): wait and try again, start it in no-GPU mode to reach its data, or clone/migrate it to a host with free GPUs in the console",
  realName: '实名认证 required: finish real-name verification in the AutoDL console first',
  quota: 'an account quota is used up (instances, cores or GPUs of this type): raise it in the console (quota centre), or release an instance you do not need',
  notFound: 'no such instance on this account',
  invalidState: 'the instance is not in a state that allows this',
  notSupported: 'this platform offers no such action',
};

/** One English line: what still bills after a power-off (CLI; the extension words it itself). */
export function stillBillsLine(kind: PlatformKind, a: AfterPowerOff, priceText: string): string {
  const rest = PLATFORM_DESCRIPTORS[kind].stillBillsWhenStopped;
  if (a.compute === 'bills') return `compute STILL BILLS (${priceText}) as if it ran: ${a.refused ? `${PLATFORM_NAMES[kind]} stopped it in keep-charging mode (economical mode is not offered for this instance)` : 'it was stopped in keep-charging mode'}; so do ${rest}. Release it, or stop it with economical mode where offered, to stop compute billing`;
  if (a.compute === 'prepaid') return `prepaid (包月/包年): its compute was paid ahead and runs to its expiry; ${rest} as billed by the plan`;
  return `compute billing stopped; still billing: ${rest}`;
}

export class PlatformError extends Error {
  constructor(readonly failure: PlatformFailure) {
    super(describeFailure(failure));
    this.name = 'PlatformError';
  }
}

export function describeFailure(f: PlatformFailure): string {
  const own = [f.code, f.message].filter(Boolean).join(' ');
  const hint = HINT[f.kind];
  return `${PLATFORM_NAMES[f.platform]}: ${hint ? `${hint} (${own})` : own}`;
}

/** A thrown fetch/SDK transport error → PlatformError. */
export function transportError(platform: PlatformKind, e: unknown): PlatformError {
  if (e instanceof PlatformError) return e;
  // A reply refused by http.ts (too large, too deep, a redirect elsewhere): an answer, but not one to use.
  if (isReplyError(e)) return new PlatformError({ platform, kind: 'badResponse', code: e.code, message: boundText(e.message) });
  const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const timedOut = err?.name === 'TimeoutError' || err?.name === 'AbortError' || /timeout|timed out/i.test(err?.message ?? '');
  const code = err?.cause?.code ?? err?.code ?? (timedOut ? 'timeout' : 'network');
  return new PlatformError(networkFailure(platform, code, err?.cause?.message ?? err?.message ?? String(e), timedOut));
}

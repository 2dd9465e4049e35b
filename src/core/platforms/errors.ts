// A platform's refusal → one kind the front ends can word and act on, keeping the platform's
// own code and message. Matching is by code first, then by the words the platforms use.
import { DESCRIPTORS } from './descriptors';
import { boundText, type FailureKind, type PlatformFailure, type PlatformKind } from './types';

const BY_CODE: [RegExp, FailureKind][] = [
  [/^AuthorizeFailed$|TokenExpired|^Unauthorized$/i, 'tokenExpired'],
  [/^TORealName$/, 'realName'],
  [/AuthFailure|InvalidAccessKeyId|SignatureDoesNotMatch|IncompleteSignature|InvalidSecretId|Forbidden\.RAM|NoPermission|UnauthorizedOperation|^Forbidden$|^AccessDenied/i, 'auth'],
  [/Throttling|RequestLimitExceeded|TooManyRequests|RateLimit/i, 'rateLimited'],
  [/NotEnoughBalance|InsufficientBalance|Arrearage|BalanceNotEnough|InsufficientFunds|NotEnoughMoney|InsufficientBalance|ResourceInsufficient\.Balance|^InvalidAccount\.InsufficientBalance$/i, 'insufficientBalance'],
  [/QuotaExceed|LimitExceeded\.[A-Za-z]{0,40}Quota|InstanceQuota|QuotaNotEnough/i, 'quota'],
  // 腾讯云 CVM (tencentcloud-sdk-go cvm/v20170312/errors.go): ResourceInsufficient.SpecifiedInstanceType, ResourceInsufficient.ZoneSoldOutForSpecifiedInstance.
  [/^ResourceInsufficient\.(?:SpecifiedInstanceType|ZoneSoldOutForSpecifiedInstance)$|NoStock|SoldOut|ResourceInsufficient|ResourcesSoldOut|OperationDenied\.NoStock|GpuNotEnough|InsufficientStock|Zone\.NotOnSale/i, 'noStock'],
  [/RealName|NotCertified|Identity|Unverified/i, 'realName'],
  [/NotFound|NotExist|InvalidInstanceId/i, 'notFound'],
  [/IncorrectInstanceStatus|InvalidInstanceState|UnsupportedOperation\.InstanceState|IncorrectStatus|StatusError|InstanceStateError/i, 'invalidState'],
  [/InternalError|ServiceUnavailable|InternalServerError/i, 'server'],
];

/**
 * Words that decide whatever the code says: the words the descriptors name (`errorWords`), in
 * PLATFORM_KINDS order, each pattern once; they are read in every platform's answers.
 */
const WORDS_FIRST: (readonly [RegExp, FailureKind])[] = DESCRIPTORS.flatMap((d) => d.errorWords).filter(([re], i, all) => all.findIndex(([o]) => o.source === re.source) === i);

const BY_WORDS: [RegExp, FailureKind][] = [
  [/余额不足|欠费|balance/i, 'insufficientBalance'],
  [/库存不足|资源不足|售罄|没有空闲|stock/i, 'noStock'],
  [/实名/, 'realName'],
  [/登录.*过期|token.*(expired|invalid)|请重新登录/i, 'tokenExpired'],
];

/** Classifies a platform error answer. `status` is the HTTP status when there was one. */
export function classifyFailure(platform: PlatformKind, code: unknown, message: unknown, status?: number): PlatformFailure {
  const c = boundText(code, 100) || (status ? `HTTP ${status}` : 'unknown');
  const m = boundText(message);
  // Too many requests is that whatever the body says; the body's code says more than other statuses.
  let kind: FailureKind | undefined = status === 429 ? 'rateLimited' : (WORDS_FIRST.find(([re]) => re.test(m))?.[1] ?? BY_CODE.find(([re]) => re.test(c))?.[1]);
  kind ??= BY_WORDS.find(([re]) => re.test(m))?.[1];
  if (!kind && status !== undefined) kind = status === 429 ? 'rateLimited' : status >= 500 ? 'server' : status === 401 || status === 403 ? 'auth' : undefined;
  return { platform, kind: kind ?? 'other', code: c, message: m, ...(status !== undefined ? { status } : {}) };
}

/** A failure of the transport itself (no answer). */
export function networkFailure(platform: PlatformKind, code: string, message: string, timedOut: boolean): PlatformFailure {
  return { platform, kind: timedOut ? 'timeout' : 'network', code: boundText(code, 60) || 'network', message: boundText(message) };
}

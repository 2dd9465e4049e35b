// Stores: what a store record may say, checked before anything is saved or sent. Pure: the CLI,
// the extension and the task file all check names, endpoints, buckets and prefixes here.
//
// A store is either an S3-compatible bucket (阿里云 OSS, 腾讯云 COS, MinIO, AWS S3: one protocol
// through the AWS SDK) or AutoDL's 文件存储, a folder on the box (`/root/autodl-fs`) that survives
// a release and needs no key.

export const STORE_KINDS = ['s3', 'autodl-fs'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/** AutoDL's 文件存储 as the box sees it. */
export const AUTODL_FS_ROOT = '/root/autodl-fs';

export interface S3Store {
  kind: 's3';
  name: string;
  /** `https://host[:port]`, no path, query or credentials (http only for loopback). */
  endpoint: string;
  bucket: string;
  /** The SigV4 signing region. */
  region: string;
  /** MinIO and other path-style servers: `endpoint/bucket/key` instead of `bucket.endpoint/key`. */
  pathStyle: boolean;
}

export interface AutodlFsStore {
  kind: 'autodl-fs';
  name: string;
}

export type Store = S3Store | AutodlFsStore;

export type Check<T> = { ok: true; value: T } | { ok: false; message: string; messageZh: string };

const ok = <T>(value: T): Check<T> => ({ ok: true, value });
const bad = <T>(message: string, messageZh: string): Check<T> => ({ ok: false, message, messageZh });

const CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\ufeff]/;

export const MAX_PREFIX = 512;

export function checkStoreName(name: string): Check<string> {
  if (!/^[a-z0-9][a-z0-9_-]{0,39}$/i.test(name)) return bad(`store name "${name.slice(0, 60)}" must be 1-40 letters, digits, - or _, starting with a letter or digit`, `存储名称 "${name.slice(0, 60)}" 须为 1-40 个字母、数字、- 或 _，以字母或数字开头`);
  return ok(name);
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** `https://host[:port]` (a trailing `/` allowed); http only for loopback (a local MinIO or test server). */
export function checkEndpoint(text: string): Check<string> {
  if (text.length > 300 || CONTROL.test(text)) return bad('the endpoint is too long or has control characters', '接口地址过长或含控制字符');
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return bad(`the endpoint "${text}" is not a URL (e.g. https://s3.oss-cn-hangzhou.aliyuncs.com)`, `接口地址 "${text}" 不是 URL（例如 https://s3.oss-cn-hangzhou.aliyuncs.com）`);
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && LOOPBACK.has(u.hostname))) return bad(`the endpoint must be https:// (http:// only for 127.0.0.1/localhost), got ${u.protocol}`, `接口地址必须是 https://（http:// 仅限 127.0.0.1/localhost），收到 ${u.protocol}`);
  if (u.username || u.password) return bad('the endpoint must not carry a user or password: keys go in GPU_RENT_STORAGE_KEY_ID / GPU_RENT_STORAGE_SECRET', '接口地址不能带用户名或密码：密钥请放在 GPU_RENT_STORAGE_KEY_ID / GPU_RENT_STORAGE_SECRET');
  if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) return bad('the endpoint is a host only (no path, query or #): the bucket goes in --bucket', '接口地址只写主机（不带路径、查询或 #）：存储桶写在 --bucket');
  return ok(`${u.protocol}//${u.host}`);
}

/** The service an endpoint belongs to, for its own naming rules and default region. */
export function serviceOf(endpoint: string): 'oss' | 'cos' | 'other' {
  const host = new URL(endpoint).hostname.toLowerCase();
  if (host.endsWith('.aliyuncs.com')) return 'oss';
  if (host.endsWith('.myqcloud.com')) return 'cos';
  return 'other';
}

/** The signing region an endpoint names: OSS `s3.oss-cn-hangzhou[-internal].aliyuncs.com` → cn-hangzhou, COS `cos.ap-guangzhou.myqcloud.com` → ap-guangzhou. */
export function regionFromEndpoint(endpoint: string): string | undefined {
  const host = new URL(endpoint).hostname.toLowerCase();
  const oss = /^s3\.oss-([a-z0-9-]+?)(?:-internal)?\.aliyuncs\.com$/.exec(host);
  if (oss) return oss[1];
  const cos = /^cos\.([a-z0-9-]+)\.myqcloud\.com$/.exec(host);
  if (cos) return cos[1];
  return undefined;
}

export function checkRegion(region: string): Check<string> {
  if (!/^[a-z0-9][a-z0-9-]{1,31}$/.test(region)) return bad(`region "${region.slice(0, 40)}" must be lowercase letters, digits and - (e.g. cn-hangzhou, ap-guangzhou, us-east-1)`, `地区 "${region.slice(0, 40)}" 须为小写字母、数字和 -（例如 cn-hangzhou、ap-guangzhou、us-east-1）`);
  return ok(region);
}

/**
 * S3's bucket rules (3-63 lowercase letters, digits, `-` and `.`, a letter or digit at each end,
 * no `..`, not an IP address), plus each service's own: OSS has no dots; COS names end in the
 * account's APPID (`name-1250000000`); a virtual-hosted bucket with a dot breaks TLS (path style only).
 */
export function checkBucket(bucket: string, endpoint: string, pathStyle: boolean): Check<string> {
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(bucket)) return bad(`bucket "${bucket.slice(0, 70)}" is not a valid bucket name (3-63 lowercase letters, digits, - and ., a letter or digit at each end)`, `存储桶 "${bucket.slice(0, 70)}" 不是有效名称（3-63 个小写字母、数字、- 和 .，首尾为字母或数字）`);
  const service = serviceOf(endpoint);
  if (service === 'oss' && bucket.includes('.')) return bad('OSS bucket names have no dots', 'OSS 存储桶名称不含点');
  if (service === 'cos' && !/^[a-z0-9][a-z0-9-]*-\d{6,12}$/.test(bucket)) return bad(`a COS bucket name ends in your APPID: name-1250000000 (got "${bucket}")`, `COS 存储桶名称以 APPID 结尾：name-1250000000（收到 "${bucket}"）`);
  if (service === 'cos' && bucket.length > 50) return bad('a COS bucket name is at most 50 characters with its APPID', 'COS 存储桶名称（含 APPID）最多 50 个字符');
  if (!pathStyle && bucket.includes('.')) return bad('a bucket with a dot needs --path-style (bucket.host breaks the TLS certificate)', '名称含点的存储桶需要 --path-style（bucket.host 形式会使 TLS 证书不匹配）');
  return ok(bucket);
}

/**
 * A key prefix: relative (no leading `/`), no `.` or `..` segment, no empty segment, no `\`,
 * no control characters, at most 512 characters. Returned with one trailing `/` (or '' for the
 * whole bucket).
 */
export function checkPrefix(prefix: string): Check<string> {
  if (prefix === '' || prefix === '/') return ok('');
  if (prefix.length > MAX_PREFIX) return bad(`the prefix is over ${MAX_PREFIX} characters`, `前缀超过 ${MAX_PREFIX} 个字符`);
  if (CONTROL.test(prefix)) return bad('the prefix has control characters', '前缀含控制字符');
  if (prefix.startsWith('/')) return bad(`the prefix "${prefix}" starts with /: write it relative to the bucket`, `前缀 "${prefix}" 以 / 开头：请写相对于存储桶的路径`);
  if (prefix.includes('\\')) return bad('the prefix has a backslash: use /', '前缀含反斜杠：请用 /');
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  const segs = trimmed.split('/');
  if (segs.some((s) => s === '' || s === '.' || s === '..')) return bad(`the prefix "${prefix}" has an empty, . or .. part`, `前缀 "${prefix}" 含空的、. 或 .. 段`);
  return ok(`${trimmed}/`);
}

/** A key below a prefix (a relative path on the box or laptop): same rules, no trailing `/`. */
export function checkRelativeKey(rel: string): Check<string> {
  if (rel === '' || rel.endsWith('/')) return bad('a file name is empty or ends with /', '文件名为空或以 / 结尾');
  const p = checkPrefix(rel);
  return p.ok ? ok(p.value.slice(0, -1)) : p;
}

/** `NAME/PREFIX` (or `NAME` alone: the whole bucket). */
export function parseStoreRef(text: string): Check<{ name: string; prefix: string }> {
  const slash = text.indexOf('/');
  const name = slash === -1 ? text : text.slice(0, slash);
  const n = checkStoreName(name);
  if (!n.ok) return n;
  const p = checkPrefix(slash === -1 ? '' : text.slice(slash + 1));
  if (!p.ok) return p;
  return ok({ name: n.value, prefix: p.value });
}

/** A whole S3 store from `storage add`'s flags, each part checked; the region from the endpoint when not given. */
export function checkS3Store(input: { name: string; endpoint: string; bucket: string; region?: string; pathStyle?: boolean }): Check<S3Store> {
  const n = checkStoreName(input.name);
  if (!n.ok) return n;
  const e = checkEndpoint(input.endpoint);
  if (!e.ok) return e;
  const pathStyle = input.pathStyle === true;
  if (pathStyle && serviceOf(e.value) !== 'other') return bad('OSS and COS are virtual-hosted only: leave out --path-style', 'OSS 和 COS 只支持虚拟主机方式：请去掉 --path-style');
  const b = checkBucket(input.bucket, e.value, pathStyle);
  if (!b.ok) return b;
  const region = input.region ?? regionFromEndpoint(e.value) ?? 'us-east-1';
  const r = checkRegion(region);
  if (!r.ok) return r;
  return ok({ kind: 's3', name: n.value, endpoint: e.value, bucket: b.value, region: r.value, pathStyle });
}

// S3-compatible stores through the AWS SDK v3: 阿里云 OSS, 腾讯云 COS, MinIO and AWS S3 speak the
// same protocol. Every object gpu-rent writes carries its SHA-256 as `x-amz-meta-sha256`; a pull
// checks it. Pushes skip objects already there with the same hash, send big files in parts and
// keep the finished parts (in $GPU_RENT_HOME/storage-uploads/) so a cut push resumes.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { writeFileAtomic } from '../atomicWrite';
import { checkRelativeKey, type S3Store } from '../../core/storage/names';
import type { StoreKey } from './stores';

export const SHA_META = 'sha256';
/** Files above this go in parts; parts are at least 16 MiB (S3's least is 5 MiB) and at most 10,000. */
export const MULTIPART_THRESHOLD = 64 * 1024 * 1024;
export const MIN_PART = 16 * 1024 * 1024;
const MAX_LIST = 100_000;

export interface ClientOptions {
  timeoutMs?: number;
  maxAttempts?: number;
}

/** The SDK's client for a store, with the checksum settings OSS and COS need (aws-sdk-js-v3 issues 6810, 6819). */
export async function s3Client(store: S3Store, key: StoreKey, opts: ClientOptions = {}): Promise<S3Client> {
  // The SDK warns on every Node below 22 about its releases after January 2027; this build pins
  // its version (package-lock), so the warning says nothing about what runs here: kept off stderr.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { S3Client } = await import('@aws-sdk/client-s3');
  return new S3Client({
    endpoint: store.endpoint,
    region: store.region,
    forcePathStyle: store.pathStyle,
    credentials: { accessKeyId: key.keyId, secretAccessKey: key.secret },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: opts.maxAttempts ?? 3,
    requestHandler: { connectionTimeout: opts.timeoutMs ?? 15_000, requestTimeout: Math.max(opts.timeoutMs ?? 15_000, 120_000) },
  });
}

// ---------------------------------------------------------------------------------------------
// Failures

export type StoreFailureCode = 'access-denied' | 'bad-key' | 'no-such-bucket' | 'wrong-region' | 'quota-exceeded' | 'too-large' | 'unreachable' | 'not-found' | 'not-verified' | 'failed';

export class StoreError extends Error {
  constructor(
    readonly code: StoreFailureCode,
    message: string,
    readonly zh: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}

const QUOTA = new Set(['QuotaExceeded', 'XMinioAdminBucketQuotaExceeded', 'XMinioStorageFull', 'InsufficientStorage', 'StorageFull']);

/** The SDK's error as one of our codes, with a remedy in both languages; the service's own words quoted as data. */
export function storeError(e: unknown, store: S3Store, step = ''): StoreError {
  if (e instanceof StoreError) return e;
  const o = (e ?? {}) as { name?: string; Code?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number }; Region?: string };
  const name = String(o.Code ?? o.name ?? '');
  const status = o.$metadata?.httpStatusCode;
  const said = (o.message ?? '').replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
  const at = step ? `${step}: ` : '';
  const where = `${store.bucket} at ${store.endpoint}`;
  if (QUOTA.has(name)) return new StoreError('quota-exceeded', `${at}the store refused the write: ${name} (the bucket's quota is full): free space or raise the quota`, `${at}存储拒绝写入：${name}（存储桶配额已满）：请清理空间或提高配额`, { cause: e });
  if (name === 'EntityTooLarge') return new StoreError('too-large', `${at}the store refused the object as too large (EntityTooLarge)`, `${at}存储以对象过大拒绝（EntityTooLarge）`, { cause: e });
  if (name === 'NoSuchBucket' || (status === 404 && !step.startsWith('get') && !step.startsWith('head'))) return new StoreError('no-such-bucket', `${at}no bucket ${store.bucket} at ${store.endpoint} (NoSuchBucket): check --bucket${store.endpoint.includes('myqcloud') ? ' (COS names end in -APPID)' : ''} and the endpoint's region`, `${at}${store.endpoint} 上没有存储桶 ${store.bucket}（NoSuchBucket）：请检查 --bucket 和接口地址的地区`, { cause: e });
  if (name === 'PermanentRedirect' || name === 'AuthorizationHeaderMalformed' || name === 'IllegalLocationConstraintException' || status === 301) return new StoreError('wrong-region', `${at}${where} is in another region (${name || status}${o.Region ? `, it says ${String(o.Region).replace(/[^a-z0-9-]/g, '')}` : ''}): use that region's endpoint or --region`, `${at}${where} 在另一个地区（${name || status}）：请使用该地区的接口地址或 --region`, { cause: e });
  if (name === 'InvalidAccessKeyId' || name === 'SignatureDoesNotMatch' || name === 'InvalidAccessKeyId.NotFound') return new StoreError('bad-key', `${at}the store does not accept this key (${name}): check GPU_RENT_STORAGE_KEY_ID / GPU_RENT_STORAGE_SECRET and add the store again`, `${at}存储不接受此密钥（${name}）：请检查 GPU_RENT_STORAGE_KEY_ID / GPU_RENT_STORAGE_SECRET 并重新添加`, { cause: e });
  if (name === 'AccessDenied' || name === 'Forbidden' || status === 403) return new StoreError('access-denied', `${at}the store answered 403 ${name || 'Forbidden'} for ${where}: the key lacks permission on this bucket or prefix (grant it s3:PutObject, GetObject, ListBucket, DeleteObject)`, `${at}存储对 ${where} 返回 403 ${name || 'Forbidden'}：此密钥对该存储桶或前缀没有权限（需要 PutObject、GetObject、ListBucket、DeleteObject）`, { cause: e });
  if (name === 'NoSuchKey' || name === 'NotFound' || status === 404) return new StoreError('not-found', `${at}not in the store`, `${at}存储中没有`, { cause: e });
  const errno = (o as { code?: string }).code ?? (e as { cause?: { code?: string } })?.cause?.code;
  if (name === 'TimeoutError' || ['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN', 'EHOSTUNREACH'].includes(String(errno ?? ''))) return new StoreError('unreachable', `${at}cannot reach ${store.endpoint} (${errno ?? name})`, `${at}无法连接 ${store.endpoint}（${errno ?? name}）`, { cause: e });
  return new StoreError('failed', `${at}${name || 'error'}${status ? ` (HTTP ${status})` : ''}: ${said}`, `${at}${name || '错误'}${status ? `（HTTP ${status}）` : ''}：${said}`, { cause: e });
}

// ---------------------------------------------------------------------------------------------
// test, ls

export interface ProbeStep {
  step: 'put' | 'head' | 'get' | 'delete';
  ms: number;
}

/** `storage test`: put, head, get and delete a small probe object under the prefix; the first failure says which step. */
export async function probeStore(client: S3Client, store: S3Store, prefix: string): Promise<ProbeStep[]> {
  const { PutObjectCommand, HeadObjectCommand, GetObjectCommand, DeleteObjectCommand } = await import('@aws-sdk/client-s3');
  const key = `${prefix}.gpu-rent-probe-${randomBytes(6).toString('hex')}`;
  const body = Buffer.from(`gpu-rent probe ${new Date().toISOString()}\n`);
  const sha = sha256(body);
  const steps: ProbeStep[] = [];
  const time = async <T>(step: ProbeStep['step'], f: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    try {
      const r = await f();
      steps.push({ step, ms: Date.now() - t0 });
      return r;
    } catch (e) {
      throw storeError(e, store, step);
    }
  };
  await time('put', () => client.send(new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: body, ContentLength: body.length, Metadata: { [SHA_META]: sha } })));
  try {
    const head = await time('head', () => client.send(new HeadObjectCommand({ Bucket: store.bucket, Key: key })));
    if (head.Metadata?.[SHA_META] !== sha) throw new StoreError('not-verified', `head: the store did not keep the x-amz-meta-sha256 metadata (got ${JSON.stringify(head.Metadata?.[SHA_META] ?? null)})`, `head：存储没有保留 x-amz-meta-sha256 元数据`);
    const got = await time('get', async () => Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: store.bucket, Key: key }))).Body!.transformToByteArray()));
    if (!got.equals(body)) throw new StoreError('not-verified', 'get: the probe came back different', 'get：读回的探测对象内容不同');
  } finally {
    await time('delete', () => client.send(new DeleteObjectCommand({ Bucket: store.bucket, Key: key }))).catch((e: unknown) => {
      if (!steps.some((s) => s.step === 'delete')) throw e;
    });
  }
  return steps;
}

export interface ListedObject {
  key: string;
  size: number;
  modified?: string;
}

/** Every object under the prefix (at most 100,000; `truncated` when there were more). */
export async function listObjects(client: S3Client, store: S3Store, prefix: string, max = MAX_LIST): Promise<{ objects: ListedObject[]; truncated: boolean }> {
  const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const objects: ListedObject[] = [];
  let token: string | undefined;
  do {
    let r;
    try {
      r = await client.send(new ListObjectsV2Command({ Bucket: store.bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: 1000 }));
    } catch (e) {
      throw storeError(e, store, 'list');
    }
    for (const o of r.Contents ?? []) {
      if (objects.length >= max) return { objects, truncated: true };
      if (o.Key !== undefined) objects.push({ key: o.Key, size: Number(o.Size ?? 0), ...(o.LastModified ? { modified: o.LastModified.toISOString() } : {}) });
    }
    token = r.IsTruncated ? r.NextContinuationToken : undefined;
  } while (token);
  return { objects, truncated: false };
}

// ---------------------------------------------------------------------------------------------
// push

export type TransferEvent =
  | { kind: 'start'; rel: string; size: number }
  | { kind: 'progress'; rel: string; done: number; size: number }
  | { kind: 'skip'; rel: string; size: number; reason: 'same-hash' }
  | { kind: 'done'; rel: string; size: number; sha256: string; parts?: number; resumedParts?: number; verified: 'sha256' | 'md5-etag' | 'size-only' };

export interface PushOptions {
  /** $GPU_RENT_HOME: where the finished parts of a cut multipart upload are kept. */
  home: string;
  onEvent?: (e: TransferEvent) => void;
  multipartThreshold?: number;
  partSize?: number;
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

async function hashFile(path: string): Promise<{ sha256: string; md5: string; size: number }> {
  const s = createHash('sha256');
  const m = createHash('md5');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    s.update(chunk as Buffer);
    m.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: s.digest('hex'), md5: m.digest('hex'), size };
}

/** The files to push: a file, or a folder's regular files (links and others are skipped), with their names under the prefix. */
async function filesToPush(local: string): Promise<{ path: string; rel: string }[]> {
  const st = await stat(local);
  if (st.isFile()) return [{ path: local, rel: basename(local) }];
  if (!st.isDirectory()) throw new StoreError('failed', `${local} is not a file or folder`, `${local} 不是文件或文件夹`);
  const out: { path: string; rel: string }[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const ent of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, ent.name);
      if (ent.isDirectory()) await walk(p);
      else if (ent.isFile()) out.push({ path: p, rel: relative(local, p).split(sep).join('/') });
      if (out.length > MAX_LIST) throw new StoreError('failed', `over ${MAX_LIST} files under ${local}`, `${local} 下超过 ${MAX_LIST} 个文件`);
    }
  };
  await walk(local);
  return out;
}

const ETAG_MD5 = /^"?([0-9a-fA-F]{32})"?$/;

/** Pushes a file or a folder under the prefix; objects already there with the same SHA-256 are skipped. */
export async function pushPath(client: S3Client, store: S3Store, prefix: string, local: string, opts: PushOptions): Promise<TransferEvent[]> {
  const { HeadObjectCommand, PutObjectCommand } = await import('@aws-sdk/client-s3');
  const results: TransferEvent[] = [];
  const emit = (e: TransferEvent) => {
    opts.onEvent?.(e);
    if (e.kind === 'done' || e.kind === 'skip') results.push(e);
  };
  for (const f of await filesToPush(local)) {
    const rel = checkRelativeKey(f.rel);
    if (!rel.ok) throw new StoreError('failed', `${f.rel}: ${rel.message}`, `${f.rel}：${rel.messageZh}`);
    const key = prefix + rel.value;
    const h = await hashFile(f.path);
    const there = await client.send(new HeadObjectCommand({ Bucket: store.bucket, Key: key })).catch((e: unknown) => {
      const err = storeError(e, store, `head ${key}`);
      if (err.code === 'not-found') return undefined;
      throw err;
    });
    if (there && there.Metadata?.[SHA_META] === h.sha256 && Number(there.ContentLength) === h.size) {
      emit({ kind: 'skip', rel: rel.value, size: h.size, reason: 'same-hash' });
      continue;
    }
    emit({ kind: 'start', rel: rel.value, size: h.size });
    if (h.size > (opts.multipartThreshold ?? MULTIPART_THRESHOLD)) {
      emit(await pushMultipart(client, store, key, rel.value, f.path, h, opts));
      continue;
    }
    let sent = 0;
    const body = createReadStream(f.path).pipe(
      new Transform({
        transform(chunk: Buffer, _enc, cb) {
          sent += chunk.length;
          opts.onEvent?.({ kind: 'progress', rel: rel.value, done: sent, size: h.size });
          cb(null, chunk);
        },
      }),
    );
    let put;
    try {
      put = await client.send(new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: body, ContentLength: h.size, Metadata: { [SHA_META]: h.sha256 } }));
    } catch (e) {
      throw storeError(e, store, `put ${key}`);
    }
    const etag = ETAG_MD5.exec(put.ETag ?? '')?.[1]?.toLowerCase();
    if (etag && etag !== h.md5) throw new StoreError('not-verified', `put ${key}: the store's ETag ${etag} is not the file's MD5 ${h.md5}`, `put ${key}：存储的 ETag ${etag} 与文件 MD5 ${h.md5} 不同`);
    emit({ kind: 'done', rel: rel.value, size: h.size, sha256: h.sha256, verified: etag ? 'md5-etag' : 'size-only' });
  }
  return results;
}

interface PartState {
  version: 1;
  bucket: string;
  key: string;
  sha256: string;
  size: number;
  partSize: number;
  uploadId: string;
  parts: { n: number; etag: string }[];
}

function stateFile(home: string, store: S3Store, key: string, sha: string): string {
  const id = createHash('sha256').update(`${store.endpoint}\n${store.bucket}\n${key}\n${sha}`).digest('hex').slice(0, 32);
  return join(home, 'storage-uploads', `${id}.json`);
}

async function readState(path: string): Promise<PartState | undefined> {
  try {
    const s = JSON.parse(await readFile(path, 'utf8')) as PartState;
    if (s.version === 1 && typeof s.uploadId === 'string' && Array.isArray(s.parts)) return s;
  } catch {
    /* none, or unreadable: start again */
  }
  return undefined;
}

async function pushMultipart(client: S3Client, store: S3Store, key: string, rel: string, path: string, h: { sha256: string; size: number }, opts: PushOptions): Promise<TransferEvent> {
  const { CreateMultipartUploadCommand, UploadPartCommand, CompleteMultipartUploadCommand } = await import('@aws-sdk/client-s3');
  const statePath = stateFile(opts.home, store, key, h.sha256);
  await mkdir(dirname(statePath), { recursive: true, mode: 0o700 });
  let state = await readState(statePath);
  const resumed = state?.parts.length ?? 0;
  if (!state || state.size !== h.size) {
    const partSize = Math.max(opts.partSize ?? MIN_PART, Math.ceil(h.size / 10_000));
    let created;
    try {
      created = await client.send(new CreateMultipartUploadCommand({ Bucket: store.bucket, Key: key, Metadata: { [SHA_META]: h.sha256 } }));
    } catch (e) {
      throw storeError(e, store, `create ${key}`);
    }
    state = { version: 1, bucket: store.bucket, key, sha256: h.sha256, size: h.size, partSize, uploadId: created.UploadId!, parts: [] };
    await writeFileAtomic(statePath, JSON.stringify(state), { mode: 0o600 });
  }
  const count = Math.ceil(h.size / state.partSize);
  const fh = await open(path, 'r');
  try {
    for (let n = 1; n <= count; n++) {
      if (state.parts.some((p) => p.n === n)) continue;
      const start = (n - 1) * state.partSize;
      const len = Math.min(state.partSize, h.size - start);
      const buf = Buffer.alloc(len);
      await fh.read(buf, 0, len, start);
      let r;
      try {
        r = await client.send(new UploadPartCommand({ Bucket: store.bucket, Key: key, UploadId: state.uploadId, PartNumber: n, Body: buf, ContentLength: len }));
      } catch (e) {
        const err = storeError(e, store, `part ${n} of ${key}`);
        // The upload was aborted or expired on the store: forget it; the next push starts again.
        if ((e as { name?: string }).name === 'NoSuchUpload') await rm(statePath, { force: true });
        throw err;
      }
      const md5 = createHash('md5').update(buf).digest('hex');
      const etag = ETAG_MD5.exec(r.ETag ?? '')?.[1]?.toLowerCase();
      if (etag && etag !== md5) throw new StoreError('not-verified', `part ${n} of ${key}: ETag ${etag} is not its MD5 ${md5}`, `${key} 第 ${n} 段：ETag ${etag} 与其 MD5 ${md5} 不同`);
      state.parts.push({ n, etag: r.ETag ?? '' });
      await writeFileAtomic(statePath, JSON.stringify(state), { mode: 0o600 });
      opts.onEvent?.({ kind: 'progress', rel, done: Math.min(h.size, state.parts.length * state.partSize), size: h.size });
    }
  } finally {
    await fh.close();
  }
  try {
    await client.send(new CompleteMultipartUploadCommand({ Bucket: store.bucket, Key: key, UploadId: state.uploadId, MultipartUpload: { Parts: [...state.parts].sort((a, b) => a.n - b.n).map((p) => ({ PartNumber: p.n, ETag: p.etag })) } }));
  } catch (e) {
    throw storeError(e, store, `complete ${key}`);
  }
  await rm(statePath, { force: true });
  return { kind: 'done', rel, size: h.size, sha256: h.sha256, parts: count, resumedParts: resumed, verified: 'md5-etag' };
}

// ---------------------------------------------------------------------------------------------
// pull

export interface PullOptions {
  onEvent?: (e: TransferEvent) => void;
  /** Relative names left in the store (a run's supervisor journal beside its checkpoints). */
  skip?: (rel: string) => boolean;
}

async function hashOf(path: string): Promise<string | undefined> {
  try {
    return (await hashFile(path)).sha256;
  } catch {
    return undefined;
  }
}

/**
 * Pulls every object under the prefix into `localDir` (names below the prefix, each checked: a
 * store's `..` or absolute name is refused), through a `.part` file resumed with a Range request,
 * renamed only once its SHA-256 matches the object's `x-amz-meta-sha256` (or, for an object
 * another tool wrote, its MD5 ETag). A file already there with the same hash is skipped.
 */
/** One small object's text (a journal, a state file): undefined when it is not there; at most maxBytes read. */
export async function readSmallObject(client: S3Client, store: S3Store, key: string, maxBytes = 262_144): Promise<string | undefined> {
  const { GetObjectCommand } = await import('@aws-sdk/client-s3');
  try {
    const got = await client.send(new GetObjectCommand({ Bucket: store.bucket, Key: key, Range: `bytes=0-${maxBytes - 1}` }));
    return Buffer.from(await got.Body!.transformToByteArray()).subarray(0, maxBytes).toString('utf8');
  } catch (e) {
    const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 404 || (e as { name?: string }).name === 'NoSuchKey') return undefined;
    throw storeError(e, store, `get ${key}`);
  }
}

export async function pullPrefix(client: S3Client, store: S3Store, prefix: string, localDir: string, opts: PullOptions = {}): Promise<TransferEvent[]> {
  const { GetObjectCommand, HeadObjectCommand } = await import('@aws-sdk/client-s3');
  const { objects, truncated } = await listObjects(client, store, prefix);
  if (truncated) throw new StoreError('failed', `over ${MAX_LIST} objects under ${prefix || '/'}: pull a narrower prefix`, `${prefix || '/'} 下超过 ${MAX_LIST} 个对象：请拉取更窄的前缀`);
  const root = resolve(localDir);
  const results: TransferEvent[] = [];
  for (const o of objects) {
    if (o.key.endsWith('/') && o.size === 0) continue; // a console's "folder" marker
    const rel = checkRelativeKey(o.key.slice(prefix.length));
    if (!rel.ok) throw new StoreError('failed', `the store's object ${JSON.stringify(o.key.slice(0, 200))} has an unsafe name: ${rel.message}`, `存储中的对象 ${JSON.stringify(o.key.slice(0, 200))} 名称不安全：${rel.messageZh}`);
    if (opts.skip?.(rel.value)) continue;
    const dest = join(root, ...rel.value.split('/'));
    let head;
    try {
      head = await client.send(new HeadObjectCommand({ Bucket: store.bucket, Key: o.key }));
    } catch (e) {
      throw storeError(e, store, `head ${o.key}`);
    }
    const want = head.Metadata?.[SHA_META];
    const wantSha = want && /^[0-9a-f]{64}$/.test(want) ? want : undefined;
    const size = Number(head.ContentLength ?? o.size);
    const etagMd5 = ETAG_MD5.exec(head.ETag ?? '')?.[1]?.toLowerCase();
    if (wantSha && (await lstat(dest).then((s) => s.isFile() && s.size === size, () => false)) && (await hashOf(dest)) === wantSha) {
      const e: TransferEvent = { kind: 'skip', rel: rel.value, size, reason: 'same-hash' };
      opts.onEvent?.(e);
      results.push(e);
      continue;
    }
    opts.onEvent?.({ kind: 'start', rel: rel.value, size });
    await mkdir(dirname(dest), { recursive: true });
    const part = `${dest}.part`;
    let have = await stat(part).then((s) => s.size, () => 0);
    if (have > size) {
      await rm(part, { force: true });
      have = 0;
    }
    if (have < size) {
      let got;
      try {
        got = await client.send(new GetObjectCommand({ Bucket: store.bucket, Key: o.key, ...(have > 0 ? { Range: `bytes=${have}-` } : {}), ...(head.ETag ? { IfMatch: head.ETag } : {}) }));
      } catch (e) {
        throw storeError(e, store, `get ${o.key}`);
      }
      // A server that ignores the Range sends the whole object: start the file again.
      const whole = have > 0 && got.ContentRange === undefined;
      let done = whole ? 0 : have;
      await pipeline(
        got.Body as Readable,
        new Transform({
          transform(chunk: Buffer, _enc, cb) {
            done += chunk.length;
            opts.onEvent?.({ kind: 'progress', rel: rel.value, done, size });
            cb(null, chunk);
          },
        }),
        createWriteStream(part, { flags: whole || have === 0 ? 'w' : 'a' }),
      );
    }
    const h = await hashFile(part);
    let verified: 'sha256' | 'md5-etag' | 'size-only';
    if (wantSha) verified = h.sha256 === wantSha ? 'sha256' : 'size-only';
    else verified = etagMd5 && h.md5 === etagMd5 ? 'md5-etag' : 'size-only';
    if (h.size !== size || (wantSha && h.sha256 !== wantSha) || (!wantSha && etagMd5 && h.md5 !== etagMd5)) {
      await rm(part, { force: true });
      throw new StoreError('not-verified', `${rel.value}: the downloaded bytes do not match the store's ${wantSha ? 'SHA-256' : 'MD5'} (removed; pull again)`, `${rel.value}：下载的内容与存储记录的 ${wantSha ? 'SHA-256' : 'MD5'} 不符（已删除；请重新拉取）`);
    }
    await rename(part, dest);
    const e: TransferEvent = { kind: 'done', rel: rel.value, size, sha256: h.sha256, verified };
    opts.onEvent?.(e);
    results.push(e);
  }
  return results;
}

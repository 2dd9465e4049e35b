// Grants for the box, signed on the laptop with the SDK's own code: a POST policy for the run's
// checkpoints (prefix, sizes and expiry enforced by the store) and presigned GET URLs for a
// task's data. The store's key never leaves the laptop; the box gets the grant in a 0600 file.
import type { S3Client } from '@aws-sdk/client-s3';
import { grantLifetime, MAX_POST_BYTES, policyProblems, type PostGrant, type PullItem } from '../../core/storage/grant';
import type { S3Store } from '../../core/storage/names';
import { listObjects, SHA_META, storeError, StoreError } from './s3';

export interface UploadGrantOptions {
  /** The run's prefix in the store, ending in / (never the whole bucket). */
  prefix: string;
  /** The largest file the box may upload (at most 5 GiB: one POST's cap). */
  maxBytes: number;
  /** The run's bound in seconds (max hours, or budget / price): the grant lasts that plus the margin. */
  runBoundS: number;
}

/** A POST policy for one run, checked after signing by reading the policy back (as the store will). */
export async function createUploadGrant(client: S3Client, store: S3Store, o: UploadGrantOptions): Promise<PostGrant & { capped: boolean }> {
  if (!o.prefix || !o.prefix.endsWith('/')) throw new StoreError('failed', 'an upload grant needs a run prefix (NAME/PREFIX/), never the whole bucket', '上传授权需要运行前缀（NAME/PREFIX/），不能是整个存储桶');
  if (o.maxBytes > MAX_POST_BYTES) throw new StoreError('too-large', `one POST upload takes at most 5 GiB (${MAX_POST_BYTES} bytes); asked ${o.maxBytes}`, `一次 POST 上传最多 5 GiB；请求了 ${o.maxBytes}`);
  const { createPresignedPost } = await import('@aws-sdk/s3-presigned-post');
  const life = grantLifetime(o.runBoundS);
  const before = Math.floor(Date.now() / 1000);
  let post;
  try {
    post = await createPresignedPost(client, {
      Bucket: store.bucket,
      Key: `${o.prefix}\${filename}`,
      Conditions: [
        ['content-length-range', 1, Math.floor(o.maxBytes)],
        ['starts-with', '$x-amz-meta-sha256', ''],
      ],
      Expires: life.lifetimeS,
    });
  } catch (e) {
    throw storeError(e, store, 'sign');
  }
  const fields: Record<string, string> = { ...post.fields };
  const problems = policyProblems(fields.Policy ?? '', { bucket: store.bucket, prefix: o.prefix, maxBytes: o.maxBytes, expiresEarliest: before + life.lifetimeS - 5, expiresLatest: Math.floor(Date.now() / 1000) + life.lifetimeS + 5 });
  if (problems.length) throw new StoreError('failed', `the signed policy is not what was asked: ${problems.join('; ')}`, `签出的策略与请求不符：${problems.join('；')}`);
  return { url: post.url, fields, prefix: o.prefix, maxBytes: Math.floor(o.maxBytes), expires: before + life.lifetimeS, capped: life.capped };
}

/**
 * Presigned GET URLs for every object under `prefix`, each with the SHA-256 the box checks (the
 * object's x-amz-meta-sha256; an object without one is refused: the box could not verify it).
 * `lifetimeS`: how long the box has to fetch (the data step), at most 7 days.
 */
export async function createPullGrant(client: S3Client, store: S3Store, prefix: string, lifetimeS: number): Promise<PullItem[]> {
  const { GetObjectCommand, HeadObjectCommand } = await import('@aws-sdk/client-s3');
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  const { objects, truncated } = await listObjects(client, store, prefix, 10_000);
  if (truncated) throw new StoreError('failed', `over 10,000 objects under ${prefix}: pack them (tar) or name a narrower prefix`, `${prefix} 下超过 10,000 个对象：请打包（tar）或指定更窄的前缀`);
  const items: PullItem[] = [];
  for (const o of objects) {
    if (o.key.endsWith('/') && o.size === 0) continue;
    let head;
    try {
      head = await client.send(new HeadObjectCommand({ Bucket: store.bucket, Key: o.key }));
    } catch (e) {
      throw storeError(e, store, `head ${o.key}`);
    }
    const sha = head.Metadata?.[SHA_META];
    if (!sha || !/^[0-9a-f]{64}$/.test(sha)) throw new StoreError('not-verified', `${o.key} has no x-amz-meta-sha256: push it with gpu-rent storage push so the box can verify it`, `${o.key} 没有 x-amz-meta-sha256：请用 gpu-rent storage push 上传，box 才能校验`);
    const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: store.bucket, Key: o.key }), { expiresIn: Math.max(60, Math.min(604800, Math.floor(lifetimeS))) });
    items.push({ rel: o.key.slice(prefix.length), sha256: sha, size: Number(head.ContentLength ?? o.size), url });
  }
  return items;
}

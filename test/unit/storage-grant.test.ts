// Stores, pure parts and the grant's content. s3rver verifies neither signatures nor POST
// policies, so what a grant allows is proven here, from the policy the SDK's own
// createPresignedPost signs: decoded and read back as the store will read it (bucket, key
// prefix, size range, expiry, no field left open), and its signature recomputed with the SDK's
// own SigV4 signing key from the secret (so the grant is the SDK's, not ours).
import { strict as assert } from 'node:assert';
import { createHmac } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { checkBucket, checkEndpoint, checkPrefix, checkRelativeKey, checkS3Store, parseStoreRef, regionFromEndpoint } from '../../src/core/storage/names';
import { CLOCK_ALLOWANCE_S, grantLifetime, MAX_GRANT_S, policyProblems, readPostPolicy, renderBoxUploader, renderPostGrantConfig, renderPullGrant } from '../../src/core/storage/grant';
import { createUploadGrant } from '../../src/app/storage/grant';
import type { S3Store } from '../../src/core/storage/names';

const SECRET = 'wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY';
const STORE: S3Store = { kind: 's3', name: 'oss', endpoint: 'https://s3.oss-cn-hangzhou.aliyuncs.com', bucket: 'my-ckpt', region: 'cn-hangzhou', pathStyle: false };
const client = () => new S3Client({ endpoint: STORE.endpoint, region: STORE.region, credentials: { accessKeyId: 'LTAI5tEXAMPLE', secretAccessKey: SECRET }, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });

describe('store names', () => {
  it('endpoints: https, or http only on loopback; host only, no credentials', () => {
    assert.equal((checkEndpoint('https://s3.oss-cn-hangzhou.aliyuncs.com/') as { value: string }).value, 'https://s3.oss-cn-hangzhou.aliyuncs.com');
    assert.ok(checkEndpoint('http://127.0.0.1:9000').ok);
    assert.ok(!checkEndpoint('http://minio.example.com').ok);
    assert.ok(!checkEndpoint('https://key:secret@s3.example.com').ok);
    assert.ok(!checkEndpoint('https://s3.example.com/bucket').ok);
    assert.ok(!checkEndpoint('ftp://x').ok);
    assert.ok(!checkEndpoint('https://s3.example.com\n').ok);
  });
  it('regions from OSS and COS endpoints', () => {
    assert.equal(regionFromEndpoint('https://s3.oss-cn-hangzhou.aliyuncs.com'), 'cn-hangzhou');
    assert.equal(regionFromEndpoint('https://s3.oss-cn-beijing-internal.aliyuncs.com'), 'cn-beijing');
    assert.equal(regionFromEndpoint('https://cos.ap-guangzhou.myqcloud.com'), 'ap-guangzhou');
    assert.equal(regionFromEndpoint('http://127.0.0.1:9000'), undefined);
  });
  it("buckets: S3's rules, COS's -APPID, OSS without dots, dots need path style", () => {
    assert.ok(checkBucket('ckpt-1250000000', 'https://cos.ap-guangzhou.myqcloud.com', false).ok);
    const cos = checkBucket('ckpt', 'https://cos.ap-guangzhou.myqcloud.com', false);
    assert.ok(!cos.ok && /APPID/.test(cos.message));
    assert.ok(!checkBucket('a.b', 'https://s3.oss-cn-hangzhou.aliyuncs.com', false).ok);
    assert.ok(!checkBucket('Upper', 'http://127.0.0.1:9000', true).ok);
    assert.ok(!checkBucket('192.168.1.1', 'http://127.0.0.1:9000', true).ok);
    assert.ok(!checkBucket('a.b', 'https://s3.amazonaws.com', false).ok);
    assert.ok(checkBucket('a.b', 'http://127.0.0.1:9000', true).ok);
    const s = checkS3Store({ name: 'c', endpoint: 'https://cos.ap-guangzhou.myqcloud.com', bucket: 'ckpt-1250000000' });
    assert.ok(s.ok && s.value.region === 'ap-guangzhou' && !s.value.pathStyle);
    assert.ok(!checkS3Store({ name: 'c', endpoint: 'https://cos.ap-guangzhou.myqcloud.com', bucket: 'ckpt-1250000000', pathStyle: true }).ok);
  });
  it('prefixes: relative, no . or .., bounded, no control characters', () => {
    assert.equal((checkPrefix('runs/lora') as { value: string }).value, 'runs/lora/');
    assert.equal((checkPrefix('') as { value: string }).value, '');
    for (const bad of ['/abs', 'a/../b', '..', 'a//b', 'a/./b', 'a\\b', 'a\x1b[2Jb', 'x'.repeat(600)]) assert.ok(!checkPrefix(bad).ok, bad);
    assert.ok(!checkRelativeKey('../etc/passwd').ok);
    assert.deepEqual(parseStoreRef('oss/runs/a'), { ok: true, value: { name: 'oss', prefix: 'runs/a/' } });
    assert.ok(!parseStoreRef('bad name/x').ok);
  });
});

describe('the upload grant (a POST policy signed by the SDK)', () => {
  it('lifetime rule: the run bound + max(1 h, a quarter) + 15 min for the laptop clock; capped at 7 days', () => {
    assert.deepEqual(grantLifetime(10 * 3600), { lifetimeS: 10 * 3600 + 3600 * 2.5 + CLOCK_ALLOWANCE_S, capped: false });
    assert.deepEqual(grantLifetime(600), { lifetimeS: 600 + 3600 + CLOCK_ALLOWANCE_S, capped: false });
    assert.deepEqual(grantLifetime(30 * 24 * 3600), { lifetimeS: MAX_GRANT_S, capped: true });
  });

  it('binds the bucket, the run prefix, the size range and the expiry; leaves only the SHA-256 open', async () => {
    const before = Math.floor(Date.now() / 1000);
    const g = await createUploadGrant(client(), STORE, { prefix: 'runs/lora-1/', maxBytes: 2 * 1024 ** 3, runBoundS: 12 * 3600 });
    const life = grantLifetime(12 * 3600).lifetimeS;
    const p = readPostPolicy(g.fields.Policy!);
    assert.equal(p.bucket, 'my-ckpt');
    assert.equal(p.keyPrefix, 'runs/lora-1/');
    assert.deepEqual(p.sizeRange, [1, 2 * 1024 ** 3]);
    assert.ok(p.expiration >= before + life - 2 && p.expiration <= before + life + 5);
    assert.deepEqual(policyProblems(g.fields.Policy!, { bucket: 'my-ckpt', prefix: 'runs/lora-1/', maxBytes: 2 * 1024 ** 3, expiresEarliest: before + life - 2, expiresLatest: before + life + 5 }), []);
    // Another run's prefix, a bigger size, or a longer life is not what this grant allows.
    assert.ok(policyProblems(g.fields.Policy!, { bucket: 'my-ckpt', prefix: 'runs/other/', maxBytes: 2 * 1024 ** 3, expiresEarliest: 0, expiresLatest: 2e9 }).some((x) => /key prefix/.test(x)));
    assert.ok(policyProblems(g.fields.Policy!, { bucket: 'my-ckpt', prefix: 'runs/lora-1/', maxBytes: 1024, expiresEarliest: 0, expiresLatest: 2e9 }).some((x) => /size range/.test(x)));
    // The store reads the expiry with its own clock: a store 10 minutes ahead of the laptop still
    // sees the whole 12-hour run plus its margin inside the grant (the box's clock plays no part).
    const storeNowAtRunEnd = before + 600 + 12 * 3600;
    assert.ok(p.expiration > storeNowAtRunEnd + 3600, 'the run ends with an hour to spare on a store clock 10 minutes ahead');
  });

  it('the signature is SigV4 over the policy with the signing key derived from the secret (the SDK signed it)', async () => {
    const g = await createUploadGrant(client(), STORE, { prefix: 'runs/r/', maxBytes: 1e6, runBoundS: 3600 });
    const [, date, region, service] = g.fields['X-Amz-Credential']!.split('/');
    const h = (k: Buffer | string, m: string) => createHmac('sha256', k).update(m).digest();
    const key = h(h(h(h(`AWS4${SECRET}`, date!), region!), service!), 'aws4_request');
    assert.equal(createHmac('sha256', key).update(g.fields.Policy!).digest('hex'), g.fields['X-Amz-Signature']);
    assert.equal(region, 'cn-hangzhou');
    // The grant file holds the policy and signature, never the secret.
    const cfg = renderPostGrantConfig(g);
    assert.ok(!cfg.includes(SECRET));
    assert.match(cfg, /^url = "https:\/\/my-ckpt\.s3\.oss-cn-hangzhou\.aliyuncs\.com\/?"$/m);
    assert.ok(!/form-string = "key=/.test(cfg), 'the uploader names the key, not the grant');
  });

  it('refuses a grant for the whole bucket or over one POST (5 GiB)', async () => {
    await assert.rejects(createUploadGrant(client(), STORE, { prefix: '', maxBytes: 1e6, runBoundS: 60 }), /run prefix/);
    await assert.rejects(createUploadGrant(client(), STORE, { prefix: 'r/', maxBytes: 6 * 1024 ** 3, runBoundS: 60 }), /5 GiB/);
  });

  it('a policy with the key or another field left open is reported', () => {
    const doc = { expiration: '2030-01-01T00:00:00Z', conditions: [{ bucket: 'b' }, ['starts-with', '$key', ''], ['starts-with', '$Content-Type', ''], ['content-length-range', 0, 10]] };
    const b64 = Buffer.from(JSON.stringify(doc)).toString('base64');
    const p = policyProblems(b64, { bucket: 'b', prefix: 'r/', maxBytes: 10, expiresEarliest: 0, expiresLatest: 2e9 });
    assert.ok(p.some((x) => /key prefix/.test(x)));
    assert.ok(p.some((x) => /content-type is left open/.test(x)));
  });

  it('the box scripts: refuse names with quotes/controls in the prefix; the pull grant checks names and hashes', () => {
    assert.throws(() => renderBoxUploader({ prefix: "runs/a'b/", maxBytes: 10 }));
    assert.throws(() => renderBoxUploader({ prefix: 'runs/a', maxBytes: 10 }));
    const s = renderBoxUploader({ prefix: 'runs/a/', maxBytes: 10 });
    assert.ok(!/\$\(date|\bdate\b/.test(s), 'the uploader never reads the box clock');
    assert.throws(() => renderPullGrant([{ rel: '../x', sha256: 'a'.repeat(64), size: 1, url: 'https://h/b/k' }]));
    assert.throws(() => renderPullGrant([{ rel: 'x', sha256: 'nothex', size: 1, url: 'https://h/b/k' }]));
    assert.throws(() => renderPullGrant([{ rel: 'x', sha256: 'a'.repeat(64), size: 1, url: 'https://h/b/k"\nurl = "http://evil' }]));
  });
});

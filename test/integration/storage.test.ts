// `gpu-rent storage` against real parts: the built CLI in a new process, s3rver on loopback
// (a real S3 protocol server over a temp folder), and a stub store for the refusals s3rver cannot
// make (403, no such bucket, wrong region, a full quota; test/fixtures/storage/SOURCES.md).
import { strict as assert } from 'node:assert';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliAsync } from '../support/cli';
import { startS3, startStubStore, type TestS3 } from '../support/s3server';
import { s3Client, pushPath, pullPrefix, type TransferEvent } from '../../src/app/storage/s3';
import type { S3Store } from '../../src/core/storage/names';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('gpu-rent storage against s3rver and stub stores', function () {
  this.timeout(60000);
  let s3: TestS3;
  let work: string;
  let home: string;
  // s3rver takes any secret; a distinctive one lets the tests look for it everywhere.
  const SECRET = `sk-${randomBytes(12).toString('hex')}`;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    s3 = await startS3(['ckpt']);
    work = mkdtempSync(join(tmpdir(), 'gpu-rent-storage-'));
    home = join(work, 'home');
    env = { GPU_RENT_HOME: home, HOME: work, LANG: 'C.UTF-8' };
  });
  after(async () => {
    await s3.stop();
    rmSync(work, { recursive: true, force: true });
  });

  const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCliAsync(['storage', ...args], { ...env, ...extra });

  it('add keeps the key in a 0600 file, never prints it; list and test work; the key never comes from argv', async () => {
    const add = await cli(['add', 'loc', '--endpoint', s3.endpoint, '--bucket', 'ckpt', '--path-style'], { GPU_RENT_STORAGE_KEY_ID: s3.keyId, GPU_RENT_STORAGE_SECRET: SECRET });
    assert.equal(add.code, 0, add.stderr);
    const file = join(home, 'stores.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(readFileSync(file, 'utf8').includes(SECRET));
    const list = await cli(['list']);
    const listJson = await cli(['list', '--json']);
    const test = await cli(['test', 'loc/runs', '--json']);
    assert.equal(test.code, 0, test.stdout + test.stderr);
    assert.deepEqual((JSON.parse(test.stdout) as { steps: { step: string }[] }).steps.map((s) => s.step), ['put', 'head', 'get', 'delete']);
    for (const r of [add, list, listJson, test]) assert.ok(!(r.stdout + r.stderr).includes(SECRET), 'the secret is never printed');
    assert.match(list.stdout, /loc\s+s3\s+http:\/\/127\.0\.0\.1:\d+ ckpt \(path-style\)/);
    assert.equal((JSON.parse(listJson.stdout) as { hasKey: boolean }[])[0]!.hasKey, true);
    // Without the variables and without a terminal: refused, nothing saved.
    const none = await cli(['add', 'other', '--endpoint', s3.endpoint, '--bucket', 'ckpt', '--path-style', '--json']);
    assert.equal(none.code, 2);
    assert.equal((JSON.parse(none.stdout) as { error: { code: string } }).error.code, 'usage');
    assert.match(none.stderr, /GPU_RENT_STORAGE_KEY_ID/);
    // A readable file is refused, as ssh refuses a readable key.
    const { chmodSync } = await import('node:fs');
    chmodSync(file, 0o644);
    const loose = await cli(['list']);
    chmodSync(file, 0o600);
    assert.equal(loose.code, 1);
    assert.match(loose.stderr, /can be read by others/);
  });

  it('refuses bad names, endpoints, buckets and prefixes before anything is sent', async () => {
    const k = { GPU_RENT_STORAGE_KEY_ID: 'k', GPU_RENT_STORAGE_SECRET: 's' };
    const cases: [string[], RegExp][] = [
      [['add', 'x', '--endpoint', 'http://example.com', '--bucket', 'ckpt'], /https/],
      [['add', 'x', '--endpoint', 'https://cos.ap-guangzhou.myqcloud.com', '--bucket', 'ckpt'], /APPID/],
      [['add', 'bad/name', '--endpoint', s3.endpoint, '--bucket', 'ckpt'], /store name/],
      [['ls', 'loc/../etc'], /\.\./],
      [['ls', 'loc//abs'], /starts with \//],
      [['ls', 'loc/a//b'], /empty/],
    ];
    for (const [args, re] of cases) {
      const r = await cli(args, k);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, re);
    }
  });

  it('push, ls, push again (skipped by hash), pull verified; a corrupted object is refused on pull', async () => {
    const src = join(work, 'data');
    mkdirSync(join(src, 'sub'), { recursive: true });
    const a = randomBytes(3000);
    const b = randomBytes(70000);
    writeFileSync(join(src, 'a.bin'), a);
    writeFileSync(join(src, 'sub', 'b.bin'), b);
    const p1 = await cli(['push', 'loc/data/v1', src, '--json']);
    assert.equal(p1.code, 0, p1.stderr);
    assert.equal((JSON.parse(p1.stdout) as { transferred: number }).transferred, 2);
    assert.match(p1.stderr, /push sub\/b\.bin/);
    const ls = await cli(['ls', 'loc/data/v1', '--json']);
    assert.deepEqual((JSON.parse(ls.stdout) as { objects: { key: string; size: number }[] }).objects.map((o) => [o.key, o.size]), [['data/v1/a.bin', 3000], ['data/v1/sub/b.bin', 70000]]);
    const p2 = await cli(['push', 'loc/data/v1', src, '--json']);
    assert.deepEqual([(JSON.parse(p2.stdout) as { skipped: number }).skipped, (JSON.parse(p2.stdout) as { transferred: number }).transferred], [2, 0]);
    const dest = join(work, 'pulled');
    const pull = await cli(['pull', 'loc/data/v1', dest, '--json']);
    assert.equal(pull.code, 0, pull.stderr);
    assert.deepEqual((JSON.parse(pull.stdout) as { files: TransferEvent[] }).files.map((f) => f.kind === 'done' && f.verified), ['sha256', 'sha256']);
    assert.equal(sha(readFileSync(join(dest, 'sub', 'b.bin'))), sha(b));
    // Flip bytes of the stored object behind the store's back: the pull refuses it and keeps nothing.
    const objFile = join(s3.dir, 'ckpt', 'data', 'v1', 'a.bin._S3rver_object');
    const bad = Buffer.from(readFileSync(objFile));
    bad[10] = bad[10]! ^ 0xff;
    writeFileSync(objFile, bad);
    const dest2 = join(work, 'pulled2');
    const pull2 = await cli(['pull', 'loc/data/v1', dest2, '--json']);
    assert.equal(pull2.code, 1);
    assert.equal((JSON.parse(pull2.stdout) as { error: { code: string } }).error.code, 'not-verified');
    assert.deepEqual(readdirSync(dest2), []);
    writeFileSync(objFile, a);
  });

  it('a big file goes in parts; a push cut after two parts resumes with the rest and the object is whole', async () => {
    const store: S3Store = { kind: 's3', name: 'loc', endpoint: s3.endpoint, bucket: 'ckpt', region: 'us-east-1', pathStyle: true };
    const client = await s3Client(store, { keyId: s3.keyId, secret: SECRET });
    const big = randomBytes(5 * 256 * 1024 + 123);
    const f = join(work, 'model.safetensors');
    writeFileSync(f, big);
    const opts = { home, multipartThreshold: 256 * 1024, partSize: 256 * 1024 };
    let parts = 0;
    // The push dies after its second part is kept (what a killed CLI leaves).
    await assert.rejects(
      pushPath(client, store, 'ck/', f, {
        ...opts,
        onEvent: (e) => {
          if (e.kind === 'progress' && ++parts === 2) throw new Error('killed');
        },
      }),
      /killed/,
    );
    assert.equal(readdirSync(join(home, 'storage-uploads')).length, 1, 'the finished parts are kept');
    const events = await pushPath(client, store, 'ck/', f, opts);
    const done = events.find((e) => e.kind === 'done');
    assert.ok(done && done.kind === 'done');
    assert.deepEqual([done.parts, done.resumedParts], [6, 2]);
    assert.deepEqual(readdirSync(join(home, 'storage-uploads')), []);
    const out = join(work, 'bigout');
    await pullPrefix(client, store, 'ck/', out);
    assert.equal(sha(readFileSync(join(out, 'model.safetensors'))), sha(big));
    client.destroy();
  });

  it('a pull cut midway resumes from its .part file', async () => {
    const store: S3Store = { kind: 's3', name: 'loc', endpoint: s3.endpoint, bucket: 'ckpt', region: 'us-east-1', pathStyle: true };
    const client = await s3Client(store, { keyId: s3.keyId, secret: SECRET });
    const body = randomBytes(300000);
    const f = join(work, 'resume-src');
    mkdirSync(f);
    writeFileSync(join(f, 'r.bin'), body);
    await pushPath(client, store, 'resume/', f, { home });
    const out = join(work, 'resume-out');
    mkdirSync(out);
    writeFileSync(join(out, 'r.bin.part'), body.subarray(0, 100000));
    let first = -1;
    await pullPrefix(client, store, 'resume/', out, { onEvent: (e) => void (e.kind === 'progress' && first < 0 && (first = e.done)) });
    assert.ok(first > 100000, 'the first progress counts the bytes already there');
    assert.equal(sha(readFileSync(join(out, 'r.bin'))), sha(body));
    client.destroy();
  });

  describe('refusals from a stub store (documented S3 errors)', () => {
    async function addStub(name: string, endpoint: string) {
      // --no-check: the stub refuses the listing too; the refusal under test is the later call's.
      const r = await cli(['add', name, '--endpoint', endpoint, '--bucket', 'ckpt', '--path-style', '--no-check'], { GPU_RENT_STORAGE_KEY_ID: 'AKIDEXAMPLE', GPU_RENT_STORAGE_SECRET: SECRET });
      assert.equal(r.code, 0, r.stderr);
    }

    it('403 AccessDenied: a clear error naming the permission, code access-denied', async () => {
      const stub = await startStubStore(403, 'AccessDenied', 'Access Denied');
      try {
        await addStub('deny', stub.endpoint);
        const r = await cli(['test', 'deny/runs', '--json']);
        assert.equal(r.code, 1);
        const e = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;
        assert.equal(e.code, 'access-denied');
        assert.match(e.message, /^put: the store answered 403 AccessDenied .*permission/);
        assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET));
      } finally {
        await stub.stop();
      }
    });

    it('no such bucket: add is refused and nothing is saved', async () => {
      const stub = await startStubStore(404, 'NoSuchBucket', 'The specified bucket does not exist');
      try {
        const r = await cli(['add', 'nob', '--endpoint', stub.endpoint, '--bucket', 'ckpt', '--path-style', '--json'], { GPU_RENT_STORAGE_KEY_ID: 'AKIDEXAMPLE', GPU_RENT_STORAGE_SECRET: SECRET });
        assert.equal(r.code, 1);
        assert.equal((JSON.parse(r.stdout) as { error: { code: string } }).error.code, 'no-such-bucket');
        assert.ok(!readFileSync(join(home, 'stores.json'), 'utf8').includes('"nob"'));
      } finally {
        await stub.stop();
      }
    });

    it('wrong region: says so, with the region the store names', async () => {
      const stub = await startStubStore(400, 'AuthorizationHeaderMalformed', "The authorization header is malformed; the region 'us-east-1' is wrong; expecting 'cn-north-1'", { extra: '<Region>cn-north-1</Region>' });
      try {
        await addStub('region', stub.endpoint);
        const r = await cli(['ls', 'region/x', '--json']);
        assert.equal(r.code, 1);
        const e = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;
        assert.equal(e.code, 'wrong-region');
        assert.match(e.message, /another region.*--region/);
      } finally {
        await stub.stop();
      }
    });

    it('a full bucket quota (MinIO XMinioAdminBucketQuotaExceeded, Ceph QuotaExceeded): code quota-exceeded', async () => {
      const src = join(work, 'q.bin');
      writeFileSync(src, randomBytes(1000));
      for (const [status, code] of [[400, 'XMinioAdminBucketQuotaExceeded'], [403, 'QuotaExceeded']] as const) {
        const stub = await startStubStore(status, code, 'Bucket quota exceeded', { headStatus: 404 });
        try {
          await addStub('full', stub.endpoint);
          const r = await cli(['push', 'full/runs', src, '--json']);
          assert.equal(r.code, 1, r.stderr);
          const e = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;
          assert.equal(e.code, 'quota-exceeded', `${code}: ${e.message}`);
          assert.match(e.message, /quota is full/);
        } finally {
          await stub.stop();
        }
      }
    });
  });
});

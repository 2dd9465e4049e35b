// The box side of a store, on real parts: the box is the loopback sshd's throw-away user, its
// curl posts to s3rver on loopback with the run's grant. Proven here: the grant lands in a 0600
// file in a 0700 folder over SFTP; curl reads it from that file (a curl wrapper on the box's PATH
// records every argument list and environment: neither the secret nor the grant's signature is
// in them); the secret is nowhere in the box user's files; the upload is verified (the store's
// ETag against the file's MD5, the SHA-256 in x-amz-meta-sha256 read back with the SDK); and the
// faults: a connection cut mid-upload (retried), sshd stopped mid-upload (the upload goes on),
// a 403, a full quota, a file over the grant's size. What the store enforces from the grant
// (prefix, sizes, expiry) s3rver does not check: test/unit/storage-grant.test.ts reads it.
import { strict as assert } from 'node:assert';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, type SFTPWrapper } from 'ssh2';
import { startFaultProxy } from '../support/fault-proxy';
import { startShapingProxy } from '../support/shaping-proxy';
import { startS3, startStubStore, type TestS3 } from '../support/s3server';
import { startSshd, type TestSshd } from '../support/sshd';
import { createPullGrant, createUploadGrant } from '../../src/app/storage/grant';
import { installPuller, installUploader } from '../../src/app/storage/box';
import { dataFromStoreLines } from '../../src/app/storage/dataStep';
import { pushPath, s3Client, SHA_META } from '../../src/app/storage/s3';
import type { SyncRemote } from '../../src/remote/sync/types';
import type { S3Store } from '../../src/core/storage/names';
import { BOX_EXIT } from '../../src/core/storage/grant';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Conn {
  remote: SyncRemote;
  close(): void;
}

function connect(sshd: TestSshd): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let sftpP: Promise<SFTPWrapper> | undefined;
    const remote: SyncRemote = {
      sftp: () => (sftpP ??= new Promise((res, rej) => client.sftp((err, s) => (err ? rej(err) : res(s))))),
      exec: (command) =>
        new Promise((res, rej) => {
          client.exec(command, (err, stream) => {
            if (err) return rej(err);
            let stdout = '';
            let stderr = '';
            stream.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
            stream.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
            stream.on('close', (code: number | null) => res({ code, stdout, stderr }));
          });
        }),
    };
    client.on('ready', () => resolve({ remote, close: () => client.end() }));
    client.on('error', reject);
    client.connect({ host: sshd.host, port: sshd.port, username: sshd.user, privateKey: readFileSync(sshd.privateKeyPath), readyTimeout: 10000 });
  });
}

describe('the box uploads and pulls with a grant (loopback sshd + s3rver)', function () {
  this.timeout(90000);
  let s3: TestS3;
  let sshd: TestSshd;
  let conn: Conn;
  const SECRET = `sk-${randomBytes(12).toString('hex')}`;
  const key = () => ({ keyId: s3.keyId, secret: SECRET });
  const storeAt = (endpoint: string): S3Store => ({ kind: 's3', name: 'loc', endpoint, bucket: 'ckpt', region: 'us-east-1', pathStyle: true });
  let dir: string;

  before(async () => {
    s3 = await startS3(['ckpt']);
    sshd = await startSshd({ nvidiaSmi: null });
    conn = await connect(sshd);
    dir = `${sshd.home}/.gpu-rent/store`;
    // A curl wrapper first on the box's PATH: records each call's argument list and environment.
    const shim = join(sshd.home, 'shim');
    mkdirSync(shim, { recursive: true });
    writeFileSync(join(shim, 'curl'), `#!/bin/sh\n{ printf 'ARGV:'; printf ' %s' "$@"; printf '\\n'; env; } >> "$HOME/curl-calls.log"\nexec /usr/bin/curl "$@"\n`, { mode: 0o755 });
    sshd.runAsUser(`true`);
    const { execFileSync } = await import('node:child_process');
    execFileSync('chown', ['-R', `${sshd.user}:`, shim]);
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    await s3?.stop();
  });

  const onBox = (cmd: string) => conn.remote.exec(`PATH="$HOME/shim:$PATH"; ${cmd}`);
  const putOnBox = (path: string, body: Buffer) => {
    const local = join(sshd.home, path);
    mkdirSync(join(local, '..'), { recursive: true });
    writeFileSync(local, body);
    sshd.runAsUser('true');
    return `${sshd.home}/${path}`;
  };

  it('uploads a checkpoint, verified; the grant is 0600 and stays out of every argv and environment; the secret is nowhere on the box', async () => {
    const client = await s3Client(storeAt(s3.endpoint), key());
    const grant = await createUploadGrant(client, storeAt(s3.endpoint), { prefix: 'runs/r1/', maxBytes: 10 * 1024 * 1024, runBoundS: 3600 });
    const up = await installUploader(conn.remote, dir, grant, { attempts: 3, retryPauseS: 1 });
    const body = randomBytes(300_000);
    const file = putOnBox('ckpt/step 100/模型.pt', body);
    const { execFileSync } = await import('node:child_process');
    execFileSync('chown', ['-R', `${sshd.user}:`, join(sshd.home, 'ckpt')]);
    const r = await onBox(up.command(file, 'step 100/模型.pt'));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `ok step 100/模型.pt 300000 ${sha(body)}\n`);
    // Read back with the SDK: the bytes and the SHA-256 the box stated.
    const { HeadObjectCommand, GetObjectCommand } = await import('@aws-sdk/client-s3');
    const head = await client.send(new HeadObjectCommand({ Bucket: 'ckpt', Key: 'runs/r1/step 100/模型.pt' }));
    assert.equal(head.Metadata?.[SHA_META], sha(body));
    const got = Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: 'ckpt', Key: 'runs/r1/step 100/模型.pt' }))).Body!.transformToByteArray());
    assert.equal(sha(got), sha(body));
    // The grant's folder and file are private.
    assert.deepEqual(sshd.runAsUser(`stat -c %a ${dir} ${up.grantPath}`).trim().split('\n'), ['700', '600']);
    // curl was called; its argv and environment hold neither the secret nor the grant's signature or policy.
    const calls = readFileSync(join(sshd.home, 'curl-calls.log'), 'utf8');
    assert.match(calls, /ARGV: .*-K .*upload\.grant/);
    for (const s of [SECRET, grant.fields['X-Amz-Signature']!, grant.fields.Policy!]) assert.ok(!calls.includes(s), 'a grant part or the secret in argv/env');
    // The secret is in no file the box user has.
    assert.equal(sshd.runAsUser(`grep -rl -- '${SECRET}' "$HOME" 2>/dev/null; true`).trim(), '');
    // Names outside the prefix are refused on the box before anything is sent.
    for (const bad of ['../escape.pt', '/abs.pt', 'a/./b']) {
      const x = await onBox(up.command(file, bad));
      assert.equal(x.code, BOX_EXIT.usage, bad);
    }
    client.destroy();
  });

  it('a file over the grant\'s size is refused on the box with a remedy', async () => {
    const client = await s3Client(storeAt(s3.endpoint), key());
    const grant = await createUploadGrant(client, storeAt(s3.endpoint), { prefix: 'runs/small/', maxBytes: 1000, runBoundS: 60 });
    const up = await installUploader(conn.remote, `${dir}-small`, grant);
    const file = putOnBox('big.bin', randomBytes(2000));
    sshd.runAsUser(`true`);
    const { execFileSync } = await import('node:child_process');
    execFileSync('chown', [`${sshd.user}:`, file]);
    const r = await onBox(up.command(file, 'big.bin'));
    assert.equal(r.code, BOX_EXIT.tooBig);
    assert.match(r.stderr, /2000 bytes, over the grant's 1000 .*gpu-rent storage push/);
    client.destroy();
  });

  it('the store answers 403 or a full quota: distinct exit codes and words, no retry loop', async () => {
    const file = putOnBox('q.bin', randomBytes(500));
    const { execFileSync } = await import('node:child_process');
    execFileSync('chown', [`${sshd.user}:`, file]);
    for (const [status, code, exit, words] of [
      [403, 'AccessDenied', BOX_EXIT.denied, /403 AccessDenied \(grant expired, or outside/],
      [400, 'XMinioAdminBucketQuotaExceeded', BOX_EXIT.quota, /XMinioAdminBucketQuotaExceeded \(bucket quota/],
      [403, 'QuotaExceeded', BOX_EXIT.quota, /QuotaExceeded/],
      [400, 'EntityTooLarge', BOX_EXIT.quota, /EntityTooLarge/],
    ] as const) {
      const stub = await startStubStore(status, code, 'refused');
      try {
        const client = await s3Client(storeAt(stub.endpoint), key());
        const grant = await createUploadGrant(client, storeAt(stub.endpoint), { prefix: 'runs/x/', maxBytes: 1e6, runBoundS: 60 });
        const up = await installUploader(conn.remote, `${dir}-stub`, grant, { attempts: 3, retryPauseS: 0 });
        const r = await onBox(up.command(file, 'q.bin'));
        assert.equal(r.code, exit, `${code}: ${r.stderr}`);
        assert.match(r.stderr, words);
        assert.equal(stub.requests.filter((q) => q.method === 'POST').length, 1, 'a refusal is not retried');
        client.destroy();
      } finally {
        await stub.stop();
      }
    }
  });

  it('the connection to the store is cut mid-upload: the box tries again and the object is whole', async () => {
    const proxy = await startFaultProxy(s3.port);
    try {
      const endpoint = `http://127.0.0.1:${proxy.port}`;
      const client = await s3Client(storeAt(endpoint), key());
      const grant = await createUploadGrant(client, storeAt(endpoint), { prefix: 'runs/cut/', maxBytes: 10 * 1024 * 1024, runBoundS: 60 });
      const up = await installUploader(conn.remote, `${dir}-cut`, grant, { attempts: 3, retryPauseS: 1 });
      const body = randomBytes(2 * 1024 * 1024);
      const file = putOnBox('cut.bin', body);
      const { execFileSync } = await import('node:child_process');
      execFileSync('chown', [`${sshd.user}:`, file]);
      proxy.cutAfterBytes(500_000);
      const r = await onBox(up.command(file, 'cut.bin'));
      assert.equal(r.code, 0, r.stderr);
      assert.ok(proxy.accepted >= 2, 'a second connection after the cut');
      const { GetObjectCommand } = await import('@aws-sdk/client-s3');
      const got = Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: 'ckpt', Key: 'runs/cut/cut.bin' }))).Body!.transformToByteArray());
      assert.equal(sha(got), sha(body));
      client.destroy();
    } finally {
      await proxy.close();
    }
  });

  it('sshd stopped mid-upload: the upload, started detached on the box, finishes on its own', async () => {
    // 2 MiB through 4 Mbit/s: about 4 s on the wire; sshd goes down 1 s in.
    const shaped = await startShapingProxy(s3.port, { rttMs: 2, bitsPerSecond: 4_000_000 });
    try {
      const endpoint = `http://127.0.0.1:${shaped.port}`;
      const client = await s3Client(storeAt(endpoint), key());
      const grant = await createUploadGrant(client, storeAt(endpoint), { prefix: 'runs/away/', maxBytes: 10 * 1024 * 1024, runBoundS: 60 });
      const up = await installUploader(conn.remote, `${dir}-away`, grant, { attempts: 3, retryPauseS: 1 });
      const body = randomBytes(2 * 1024 * 1024);
      const file = putOnBox('away.bin', body);
      const { execFileSync } = await import('node:child_process');
      execFileSync('chown', [`${sshd.user}:`, file]);
      const started = await onBox(`setsid sh -c ${JSON.stringify(`${up.command(file, 'away.bin')} > "$HOME/away.log" 2>&1`)} < /dev/null > /dev/null 2>&1 &`);
      assert.equal(started.code, 0);
      await new Promise((r) => setTimeout(r, 1000));
      assert.ok(shaped.bytesUp > 0 && shaped.bytesUp < body.length, `mid-upload (${shaped.bytesUp} bytes up)`);
      conn.close();
      await sshd.restart({ downMs: 1500 });
      const deadline = Date.now() + 30_000;
      let log = '';
      while (Date.now() < deadline && !/^ok /m.test(log)) {
        await new Promise((r) => setTimeout(r, 500));
        log = sshd.runAsUser('cat "$HOME/away.log" 2>/dev/null; true');
      }
      assert.match(log, /^ok away\.bin 2097152 /m);
      const { HeadObjectCommand } = await import('@aws-sdk/client-s3');
      const head = await client.send(new HeadObjectCommand({ Bucket: 'ckpt', Key: 'runs/away/away.bin' }));
      assert.equal(head.Metadata?.[SHA_META], sha(body));
      client.destroy();
    } finally {
      await shaped.close();
      conn = await connect(sshd);
    }
  });

  it('a file that changes while it is uploaded is not counted as uploaded (exit 7)', async () => {
    const shaped = await startShapingProxy(s3.port, { rttMs: 2, bitsPerSecond: 4_000_000 });
    try {
      const endpoint = `http://127.0.0.1:${shaped.port}`;
      const client = await s3Client(storeAt(endpoint), key());
      const grant = await createUploadGrant(client, storeAt(endpoint), { prefix: 'runs/moving/', maxBytes: 10 * 1024 * 1024, runBoundS: 60 });
      const up = await installUploader(conn.remote, `${dir}-moving`, grant, { attempts: 1 });
      const file = putOnBox('moving.bin', randomBytes(1024 * 1024));
      const { execFileSync } = await import('node:child_process');
      execFileSync('chown', [`${sshd.user}:`, file]);
      const running = onBox(up.command(file, 'moving.bin'));
      await new Promise((r) => setTimeout(r, 800));
      const { appendFileSync } = await import('node:fs');
      appendFileSync(file, 'more bytes: the training wrote on');
      const r = await running;
      assert.equal(r.code, BOX_EXIT.changed, r.stderr);
      assert.match(r.stderr, /changed while it was uploaded/);
      client.destroy();
    } finally {
      await shaped.close();
    }
  });

  it("a task's data: the box pulls it with presigned GET URLs, verified, skipping what it has; the secret stays home", async () => {
    const client = await s3Client(storeAt(s3.endpoint), key());
    const src = join(sshd.home, '..', `laptop-data-${randomBytes(3).toString('hex')}`);
    mkdirSync(join(src, 'shards'), { recursive: true });
    const a = randomBytes(100_000);
    const b = randomBytes(7);
    writeFileSync(join(src, 'shards', 'a.tar'), a);
    writeFileSync(join(src, 'README'), b);
    await pushPath(client, storeAt(s3.endpoint), 'data/ds1/', src, { home: join(src, '..', 'home-push') });
    const items = await createPullGrant(client, storeAt(s3.endpoint), 'data/ds1/', 3600);
    const pull = await installPuller(conn.remote, `${dir}-pull`, items, { attempts: 2, retryPauseS: 0 });
    const dest = `${sshd.home}/data`;
    const r1 = await onBox(pull.command(dest));
    assert.equal(r1.code, 0, r1.stderr);
    assert.deepEqual(r1.stdout.trim().split('\n').sort(), ['ok README', 'ok shards/a.tar']);
    assert.equal(sha(readFileSync(join(sshd.home, 'data', 'shards', 'a.tar'))), sha(a));
    const r2 = await onBox(pull.command(dest));
    assert.deepEqual(r2.stdout.trim().split('\n').sort(), ['skip README', 'skip shards/a.tar']);
    assert.equal(sshd.runAsUser(`stat -c %a ${pull.grantPath}`).trim(), '600');
    assert.equal(sshd.runAsUser(`grep -rl -- '${SECRET}' "$HOME" 2>/dev/null; true`).trim(), '');
    const calls = readFileSync(join(sshd.home, 'curl-calls.log'), 'utf8');
    assert.ok(!items.some((i) => calls.includes(new URL(i.url).searchParams.get('X-Amz-Signature')!)), 'no presigned URL in an argv or environment');
    client.destroy();
  });

  it("the launch's data step: data.from becomes setup lines that pull onto the box and drop the grant after; a missing store or an empty prefix is refused before", async () => {
    const client = await s3Client(storeAt(s3.endpoint), key());
    const src = join(sshd.home, '..', `laptop-step-${randomBytes(3).toString('hex')}`);
    mkdirSync(src, { recursive: true });
    const body = randomBytes(50_000);
    writeFileSync(join(src, 'train.jsonl'), body);
    await pushPath(client, storeAt(s3.endpoint), 'data/step/', src, { home: join(src, '..', 'home-step') });
    const stores = [{ store: storeAt(s3.endpoint), key: key() }];
    const dest = `${sshd.home}/step-data`;
    const lines = await dataFromStoreLines(conn.remote, [{ from: 'loc/data/step', dest }], stores, `${sshd.home}/.gpu-rent/data/t`);
    assert.equal(lines.length, 1);
    assert.ok(!lines[0]!.includes('X-Amz-Signature') && !lines[0]!.includes(SECRET), 'the setup line names the grant file, not its URLs');
    const r = await onBox(`set -e; ${lines[0]}`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(sha(readFileSync(join(sshd.home, 'step-data', 'train.jsonl'))), sha(body));
    assert.equal(sshd.runAsUser(`ls "$HOME/.gpu-rent/data/t/0"`).trim(), 'pull.sh', 'the grant is removed once the pull succeeded');
    await assert.rejects(dataFromStoreLines(conn.remote, [{ from: 'nope/x', dest }], stores, `${sshd.home}/.gpu-rent/data/t`), /no store named nope/);
    await assert.rejects(dataFromStoreLines(conn.remote, [{ from: 'loc/empty', dest }], stores, `${sshd.home}/.gpu-rent/data/t`), /nothing under empty\/ .*gpu-rent storage push/);
    client.destroy();
  });
});

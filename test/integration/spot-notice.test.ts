// The launch's reclaim notice read on a real box (the loopback sshd) from a local metadata
// server (test/support/metadata-server.ts, the clouds' documented behaviour): 阿里云 read with its
// token where the service requires one (a plain read is refused 403 there), the plain read where
// no token is given; 腾讯云 at its own path, its UTC+8 time turned into the right instant; no
// service at all says so. The address is the test's (GPU_RENT_SPOT_METADATA in the CLI).
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSpotNotice } from '../../src/app/launch/spotNotice';
import { RemoteConnection } from '../../src/remote/connection';
import { MetadataServer } from '../support/metadata-server';
import { startSshd, type TestSshd } from '../support/sshd';

describe('spot reclaim notices read on the box (loopback sshd, local metadata server)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let conn: RemoteConnection;
  let work: string;
  let md: MetadataServer;
  before(async () => {
    sshd = await startSshd();
    work = mkdtempSync(join(tmpdir(), 'gpr-spot-'));
    conn = new RemoteConnection({ host: sshd.host, port: sshd.port, user: sshd.user, identityFiles: [sshd.privateKeyPath], source: 'address', ignored: [] }, { knownHostsPath: join(work, 'known_hosts'), acceptNew: true, agent: false, useDefaultKeys: false, opTimeoutMs: 20000 });
    await conn.connect();
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });
  beforeEach(async () => {
    md = await MetadataServer.start();
  });
  afterEach(() => md.close());

  it('阿里云 requiring the token: none before a reclaim (not a 403 read as none: the read carried the token), then the notice with its instant', async () => {
    assert.deepStrictEqual(await readSpotNotice(conn, md.host), { kind: 'none' });
    const reads = md.hits.filter((h) => h.path === '/latest/meta-data/instance/spot/termination-time');
    assert.ok(reads.length === 1 && reads[0]!.token, JSON.stringify(md.hits));
    md.aliyun = '2026-11-29T12:05:00Z';
    assert.deepStrictEqual(await readSpotNotice(conn, md.host), { kind: 'notice', at: '2026-11-29T12:05:00Z', atEpoch: Date.UTC(2026, 10, 29, 12, 5) / 1000, raw: '2026-11-29T12:05:00Z', cloud: 'aliyun' });
  });

  it('阿里云 without a token endpoint: the plain read', async () => {
    md.noTokenEndpoint = true;
    md.requireToken = false;
    md.aliyun = '2026-11-29T12:05:00Z';
    const n = await readSpotNotice(conn, md.host);
    assert.equal(n.kind, 'notice');
    assert.ok(md.hits.some((h) => h.path.endsWith('/instance/spot/termination-time') && !h.token));
  });

  it('腾讯云: its path and its UTC+8 time (20:05 in Beijing is 12:05 UTC)', async () => {
    md.tencent = '2026-11-29 20:05:00';
    assert.deepStrictEqual(await readSpotNotice(conn, md.host), { kind: 'notice', at: '2026-11-29T12:05:00Z', atEpoch: Date.UTC(2026, 10, 29, 12, 5) / 1000, raw: '2026-11-29 20:05:00', cloud: 'tencent' });
  });

  it('a garbled answer is no notice; no service at all is noService', async () => {
    md.tencent = '$(reboot) soon';
    assert.deepStrictEqual(await readSpotNotice(conn, md.host), { kind: 'none' });
    await md.close();
    assert.deepStrictEqual(await readSpotNotice(conn, md.host), { kind: 'noService' });
  });
});

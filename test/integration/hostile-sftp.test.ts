// A hostile box over SFTP (ssh2's own Server): an endless directory tree (fan-out 16), an
// endless folder, and hashes forged for every file. The walk stops at its entry cap with a clear
// error and bounded memory; nothing whose hash does not match is published.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RemoteConnection } from '../../src/remote/connection';
import { listRemote, MAX_LIST_ENTRIES, RemoteFolderError } from '../../src/remote/sync/list';
import { parseTarget } from '../../src/remote/target';
import { CLI } from '../support/cli';
import { RAW_CONTROL, runCliMeasured, startHostileSshd, type HostileMode, type HostileSshd } from '../support/hostile-sshd';

const BUDGET_BYTES = 256 * 1024 * 1024;
const MiB = 1024 * 1024;

describe('a hostile box over SFTP (ssh2 Server)', function () {
  this.timeout(180_000);
  let home: string;
  before(() => {
    if (!existsSync(CLI)) throw new Error('run "npm run build" first');
  });
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hostile-sftp-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));
  const env = (s: HostileSshd) => ({ HOME: home, GPU_RENT_HOME: join(home, '.gpu-rent'), GPU_RENT_PASSWORD: s.password, SSH_AUTH_SOCK: '' });

  for (const mode of ['tree', 'wide'] as HostileMode[]) {
    describe(mode === 'tree' ? 'an endless directory tree, fan-out 16' : 'an endless folder', () => {
      let s: HostileSshd;
      before(async () => (s = await startHostileSshd({ mode })));
      after(() => s.close());

      it('listRemote stops at its cap with "the folder on the box has more than N entries"', async () => {
        const conn = new RemoteConnection(parseTarget(s.target), { knownHostsPath: join(home, 'kh'), acceptNew: true, password: s.password, useDefaultKeys: false, agent: false, firstConnectRetryMs: 0 });
        try {
          const sftp = await conn.sftp();
          const before = s.sftpRequests;
          await assert.rejects(listRemote(sftp, '/root/data', { platform: 'linux' }, { maxEntries: 5000 }), (e: unknown) => {
            assert.ok(e instanceof RemoteFolderError);
            assert.match(e.message, /the folder on the box has more than 5000 entries/);
            assert.equal(e.tooManyEntries, 5000);
            return true;
          });
          // It stopped asking: a few hundred requests, not an endless walk.
          assert.ok(s.sftpRequests - before < 2000, `${s.sftpRequests - before} requests`);
          // The session is still usable.
          assert.equal(typeof (await new Promise<string>((res, rej) => sftp.realpath('.', (e, p) => (e ? rej(e) : res(p))))), 'string');
        } finally {
          conn.close();
        }
      });

      it(`gpu-rent sync: that error (${MAX_LIST_ENTRIES} entries), nothing written, peak RSS under 256 MB`, async () => {
        const local = join(home, 'ckpt');
        const r = await runCliMeasured(['sync', s.target, '--accept-new', '--remote', '/root/data', '--local', local], env(s));
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, new RegExp(`the folder on the box has more than ${MAX_LIST_ENTRIES} entries`));
        assert.doesNotMatch(r.stderr, /connection lost|FATAL|heap/);
        assert.ok(!RAW_CONTROL.test(r.stderr));
        assert.ok(!existsSync(local) || readdirSync(local).length === 0);
        assert.ok(r.peakRssBytes > 0 && r.peakRssBytes < BUDGET_BYTES, `peak RSS ${(r.peakRssBytes / MiB).toFixed(0)} MiB`);
        console.log(`      peak RSS ${(r.peakRssBytes / MiB).toFixed(0)} MiB, ${r.ms} ms`);
      });
    });
  }

  describe('forged hashes', () => {
    let s: HostileSshd;
    before(async () => (s = await startHostileSshd({ mode: 'forged', files: { 'model.pt': randomBytes(300_000), 'small.bin': randomBytes(100), 'evil\u009b31m\x1b]52;c;eA==\x07.pt': randomBytes(10) } })));
    after(() => s.close());
    it('gpu-rent sync publishes nothing whose SHA-256 does not match the box, and shows a hostile name inert', async () => {
      const local = join(home, 'ckpt');
      const r = await runCliMeasured(['sync', s.target, '--accept-new', '--remote', '/root/data', '--local', local], env(s));
      assert.match(r.stdout, /skipped model\.pt: SHA-256 did not match the box twice/);
      assert.match(r.stdout, /skipped small\.bin: SHA-256 did not match the box twice/);
      // A name with a C1 CSI and an OSC 52 is skipped and shown with both made visible.
      assert.match(r.stdout, /skipped "evil\\x9b31m\\x1b\]52;c;eA==\\x07\.pt": name contains control characters/);
      assert.ok(!RAW_CONTROL.test(r.stdout) && !RAW_CONTROL.test(r.stderr), JSON.stringify(r.stdout));
      assert.deepEqual(existsSync(local) ? readdirSync(local).filter((n) => !n.startsWith('.gpu-rent')) : [], []);
    });
  });
});

// A pull killed mid-way (real sshd, the built CLI): new small files are made at their own
// names, verified before they are created (pull-small createVerified), so a kill can leave a
// file whole with today's mtime or, between its open and its write, empty. The next pass
// must end with every file the box's, no box copy saved beside any of them and no .part.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { syncRemote } from '../../src/app/sync';
import type { RemoteConnection } from '../../src/remote/connection';
import { syncOnce } from '../../src/remote/sync';
import { CLI } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo } from './remote-helpers';

const OLD = Math.floor(Date.now() / 1000) - 3600;

describe('sync after a pull killed mid-way (real sshd)', function () {
  this.timeout(120_000);
  let sshd: TestSshd;
  let conn: RemoteConnection;
  let work: string;
  let remoteDir: string;
  let localDir: string;

  before(async function () {
    if (!existsSync(CLI)) throw new Error('run "npm run build" first');
    sshd = await startSshd();
    work = mkdtempSync(join(tmpdir(), 'sync-crash-'));
    conn = connectionTo(sshd, join(work, 'known_hosts'));
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });
  beforeEach(() => {
    remoteDir = join(sshd.home, `crash-${randomBytes(3).toString('hex')}`);
    localDir = mkdtempSync(join(work, 'local-'));
  });
  afterEach(() => {
    rmSync(remoteDir, { recursive: true, force: true });
    rmSync(localDir, { recursive: true, force: true });
  });

  function putMany(n: number): void {
    for (let i = 0; i < n; i++) {
      const path = join(remoteDir, `step-${String(i % 10).padStart(2, '0')}`, `shard-${i}.bin`);
      if (i < 10) mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, randomBytes(300 + (i % 200)));
      utimesSync(path, OLD, OLD);
    }
    const { uid, gid } = statSync(sshd.home);
    const own = (p: string) => {
      chownSync(p, uid, gid);
      if (statSync(p).isDirectory()) for (const e of readdirSync(p)) own(join(p, e));
    };
    own(remoteDir);
  }
  const localFiles = (): string[] => {
    const out: string[] = [];
    const walk = (d: string, rel: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name), rel ? `${rel}/${e.name}` : e.name);
        else out.push(rel ? `${rel}/${e.name}` : e.name);
      }
    };
    if (existsSync(localDir)) walk(localDir, '');
    return out.filter((n) => n !== '.gpu-rent-sync.json').sort();
  };
  const boxFiles = (): string[] => {
    const out: string[] = [];
    for (const d of readdirSync(remoteDir)) for (const f of readdirSync(join(remoteDir, d))) out.push(`${d}/${f}`);
    return out.sort();
  };
  const sync = () => syncOnce(syncRemote(conn), { remoteDir, localDir, settleSeconds: 0, source: 'test' });
  const assertAllTheBoxs = () => {
    assert.deepEqual(localFiles(), boxFiles(), 'no .part, no box copy, nothing missing');
    for (const rel of boxFiles()) {
      assert.ok(readFileSync(join(localDir, rel)).equals(readFileSync(join(remoteDir, rel))), rel);
      assert.equal(Math.floor(statSync(join(localDir, rel)).mtimeMs / 1000), OLD, `${rel}: the box's mtime`);
    }
  };

  it('the CLI killed (SIGKILL) while 1500 new small files land: the next pass ends with every file the box\'s', async () => {
    putMany(1500);
    const home = join(work, 'home');
    mkdirSync(home, { recursive: true });
    const child = spawn(process.execPath, [CLI, 'sync', `ssh://${sshd.user}@127.0.0.1:${sshd.port}`, '--identity', sshd.privateKeyPath, '--accept-new', '--remote', remoteDir, '--local', localDir, '--settle', '0'], {
      env: { PATH: process.env.PATH, HOME: home, GPU_RENT_HOME: join(home, '.gpu-rent'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    // Killed once some files are in and before all are: mid-way, wherever that falls.
    let landed = 0;
    for (let i = 0; i < 3000 && child.exitCode === null; i++) {
      landed = localFiles().length;
      if (landed >= 50) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    child.kill('SIGKILL');
    await exited;
    const left = localFiles().length;
    assert.ok(landed >= 50 && left < 1500, `killed mid-way (${left} of 1500 there)`);

    const r = await sync();
    assert.equal(r.kept.length, 0, 'no file kept as the user\'s');
    assert.equal(r.pulled.length + r.verified + r.unchanged, 1500);
    assertAllTheBoxs();
  });

  it('what a kill inside a file\'s creation leaves: the file whole with today\'s mtime (verified in place), or empty (replaced)', async () => {
    putMany(40);
    // Both states by hand, as a kill between the write and the mtime, or between the open and
    // the write, leaves them: no record in the state, the pass that made them gone.
    const whole = 'step-00/shard-0.bin';
    const empty = 'step-01/shard-1.bin';
    mkdirSync(join(localDir, 'step-00'));
    mkdirSync(join(localDir, 'step-01'));
    writeFileSync(join(localDir, whole), readFileSync(join(remoteDir, whole)));
    writeFileSync(join(localDir, empty), '');
    const r = await sync();
    assert.deepEqual(r.kept, []);
    assert.equal(r.verified, 1, 'the whole one verified in place');
    assert.ok(!r.pulled.includes(whole));
    assert.ok(r.pulled.includes(empty), `pulled: ${r.pulled.join(', ')}`);
    assertAllTheBoxs();
  });
});

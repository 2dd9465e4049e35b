// Quoting against a real remote shell: 1000 random strings come back byte for byte through
// `printf %s` (inside the login-shell wrapper, so through two levels of quoting), and an
// injection payload creates nothing, wherever it goes (command argument, job name, folder, env).
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { listJobs, readLog, startJob, type JobInfo } from '../../src/remote/jobs';
import { shJoin, shQuote } from '../../src/remote/shell';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, tempDir } from './remote-helpers';
import type { RemoteConnection } from '../../src/remote/connection';

describe('shell quoting on a real box', function () {
  this.timeout(120000);
  let sshd: TestSshd;
  let dir: ReturnType<typeof tempDir>;
  let conn: RemoteConnection;

  before(async () => {
    sshd = await startSshd();
    dir = tempDir();
    conn = connectionTo(sshd, join(dir.path, 'known_hosts'));
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    dir?.remove();
  });

  it('1000 random strings round-trip byte for byte', async () => {
    // Shell metacharacters, quotes, newlines, control bytes, non-ASCII and emoji, but no NUL
    // (no argument can hold one) and only well-formed UTF-16 (what the wire encoding can carry).
    const meta = fc.constantFrom(...`'"\`$\\!*?[]{}()<>|&;#~ \t\n\r=%^-+,.:/@`.split(''));
    const str = fc
      .array(fc.oneof({ weight: 3, arbitrary: meta }, { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 31 }).map((c) => String.fromCharCode(c)) }), { maxLength: 30 })
      .map((parts) => parts.join(''));
    const samples = fc.sample(str, { numRuns: 1000, seed: 4242 }).filter((s) => !s.includes('\0'));
    samples.push('', "'", "x'; touch /tmp/PWNED; '", '$(id)', '`id`', '-n', '--', '*', '~', 'a\nb', '\u4e2d\u6587 \ud83d\ude80');
    let mismatches = 0;
    for (let i = 0; i < samples.length; i += 25) {
      const batch = samples.slice(i, i + 25);
      // Each string goes through its own printf, separated by a marker byte sequence it cannot contain.
      const script = batch.map((s) => `printf %s ${shQuote(s)}; printf '\\0\\1\\0'`).join('; ');
      const r = await conn.exec(script);
      const back = r.stdout.split('\0\x01\0');
      back.pop();
      assert.equal(back.length, batch.length);
      batch.forEach((s, j) => {
        if (back[j] !== s) mismatches++;
        assert.equal(back[j], s, `string ${i + j}: ${JSON.stringify(s)}`);
      });
    }
    assert.equal(mismatches, 0);
    assert.ok(samples.length >= 1000);
  });

  it('argv joined by shJoin reaches the program as the same argv', async () => {
    const argv = ["x'; touch /tmp/PWNED; '", 'two words', '', '$HOME', 'a"b', '\\'];
    const r = await conn.exec(`python3 -c 'import sys, json; print(json.dumps(sys.argv[1:]))' ${shJoin(argv)}`);
    assert.deepEqual(JSON.parse(r.stdout), argv);
  });

  it("the payload x'; touch /tmp/PWNED; ' creates nothing, wherever it goes", async () => {
    // Markers only in a folder this test made: what other programs leave in /tmp is not looked at.
    const dir = mkdtempSync(join(tmpdir(), 'gpr-quoting-'));
    chmodSync(dir, 0o777); // the box user must be able to create the marker, or the check could not fail
    const marker = join(dir, 'PWNED-payload');
    const classicMarker = join(dir, 'PWNED');
    const payload = `x'; touch ${marker}; '`;
    const classic = `x'; touch ${classicMarker}; '`;
    for (const p of [classic, payload]) {
      assert.equal((await conn.exec(`printf %s ${shQuote(p)}`)).stdout, p);
      assert.equal((await conn.exec(`echo ${shQuote(p)}`, { login: false })).stdout, p + '\n');
      // As a job's name (sanitised), environment value and command argument.
      const job = await startJob(conn, { name: p, command: ['sh', '-c', 'printenv PAYLOAD; printf %s "$1"', 'sh', p], env: { PAYLOAD: p } });
      assert.match(job.name, /^[A-Za-z0-9_-]+$/);
      await waitExited(conn, job.name);
      assert.equal((await readLog(conn, job.name, { lines: 0 })).text, `${p}\n${p}`);
      // As the job's folder: no such folder, so the job refuses to start (exit 127), and runs nothing.
      const inFolder = await startJob(conn, { name: 'quoting-cwd', command: ['true'], cwd: p });
      const info = await waitExited(conn, inFolder.name);
      assert.equal(info.exitCode, 127);
    }
    assert.equal(existsSync(classicMarker), false);
    assert.equal(existsSync(marker), false);
    assert.equal((await conn.exec(`ls ${shQuote(marker)} ${shQuote(classicMarker)} 2>/dev/null | wc -l`)).stdout.trim(), '0');
    rmSync(dir, { recursive: true, force: true });
  });
});

async function waitExited(conn: RemoteConnection, name: string): Promise<JobInfo> {
  for (let i = 0; i < 100; i++) {
    const [info] = await listJobs(conn, { name });
    if (info?.state === 'exited') return info;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${name} did not exit`);
}

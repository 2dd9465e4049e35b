// A box whose own `gzip`, `tar` or `xargs` is hostile (a script earlier in PATH, as a compromised
// image would ship it) against `gpu-rent sync`'s tar streams of new small files, through the built
// CLI in a child process whose peak RSS is measured: endless empty stored deflate blocks,
// endless empty gzip members (both decompress to nothing, so only a bound on the compressed
// bytes stops them), a tar that never stops sending, and a hash run flooding stderr ahead of
// the stream (only the bound on the hash lines stops it). Asserted: peak RSS under the 256 MB
// budget, the pass ends well before the stream's deadline, and every file still arrives
// whole (over SFTP), nothing left as .part.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../support/cli';
import { connectionTo } from './remote-helpers';
import { runCliMeasured } from '../support/hostile-sshd';
import { startSshd, type TestSshd } from '../support/sshd';

const MiB = 1024 * 1024;
const BUDGET_BYTES = 256 * MiB;
const FILES = 300;

/** The fake commands: each leaves a mark so the test knows the stream really ran it. */
const FAKES: Record<string, { name: 'gzip' | 'tar' | 'xargs'; script: string; gzip?: '1' | '0' }> = {
  'endless empty stored deflate blocks': {
    name: 'gzip',
    gzip: '1',
    script: [
      'touch "$HOME/evil/ran"',
      "printf '\\037\\213\\010\\000\\000\\000\\000\\000\\000\\003'",
      'b="$HOME/evil/blocks"',
      // One empty non-final stored block is 00 00 00 ff ff; doubled to ~1.3 MB, then sent forever.
      "printf '\\000\\000\\000\\377\\377' > \"$b\"",
      'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18; do cat "$b" "$b" > "$b.2"; mv "$b.2" "$b"; done',
      'while :; do cat "$b" || exit 0; done',
    ].join('\n'),
  },
  'endless empty gzip members': {
    name: 'gzip',
    gzip: '1',
    script: [
      'touch "$HOME/evil/ran"',
      'b="$HOME/evil/members"',
      // A member: header, one final empty fixed-Huffman block (03 00), CRC 0, size 0.
      "printf '\\037\\213\\010\\000\\000\\000\\000\\000\\000\\003\\003\\000\\000\\000\\000\\000\\000\\000\\000\\000' > \"$b\"",
      'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do cat "$b" "$b" > "$b.2"; mv "$b.2" "$b"; done',
      'while :; do cat "$b" || exit 0; done',
    ].join('\n'),
  },
  'a hash tool that floods stderr ahead of the stream and never ends (an xargs printing hash-like lines)': {
    name: 'xargs',
    script: ['touch "$HOME/evil/ran"', `exec yes '${'0'.repeat(64)} */etc/passwd'`].join('\n'),
  },
  'a tar that never stops (endless zeros, gzipped by the real gzip)': {
    name: 'tar',
    gzip: '1',
    script: ['touch "$HOME/evil/ran"', 'exec cat /dev/zero'].join('\n'),
  },
  'a tar that never stops, sent as it is (loopback: no gzip)': {
    name: 'tar',
    gzip: '0',
    script: ['touch "$HOME/evil/ran"', 'exec cat /dev/zero'].join('\n'),
  },
};

describe('sync against a box with a hostile gzip or tar in PATH (real sshd, built CLI)', function () {
  this.timeout(240_000);
  let sshd: TestSshd;
  let home: string;
  let remoteDir: string;
  let uid = 0;
  let gid = 0;
  const OLD = Math.floor(Date.now() / 1000) - 3600;

  before(async () => {
    if (!existsSync(CLI)) throw new Error('run "npm run build" first');
    sshd = await startSshd();
    uid = statSync(sshd.home).uid;
    gid = statSync(sshd.home).gid;
    // bash reads ~/.bashrc for a command run by sshd: a PATH set above its early return
    // reaches the sync's `/bin/sh -c 'tar … | gzip -1'` too, as on a compromised image.
    const bashrc = join(sshd.home, '.bashrc');
    writeFileSync(bashrc, `export PATH="$HOME/evil:$PATH"\n${readFileSync(bashrc, 'utf8')}`);
    const evil = join(sshd.home, 'evil');
    mkdirSync(evil);
    chownSync(evil, uid, gid);
  });
  after(async () => {
    await sshd?.stop();
  });
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'sync-hostile-tar-'));
    remoteDir = join(sshd.home, `ckpt-${randomBytes(3).toString('hex')}`);
    mkdirSync(remoteDir);
    chownSync(remoteDir, uid, gid);
    for (let i = 0; i < FILES; i++) {
      const path = join(remoteDir, `shard-${String(i).padStart(4, '0')}.bin`);
      writeFileSync(path, randomBytes(1024 + (i % 7) * 100));
      chownSync(path, uid, gid);
      utimesSync(path, OLD, OLD);
    }
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(remoteDir, { recursive: true, force: true });
    for (const n of ['gzip', 'tar', 'xargs', 'ran', 'blocks', 'members']) rmSync(join(sshd.home, 'evil', n), { force: true });
  });

  // GPU_RENT_STREAM_GZIP: loopback would send the streams as they are (nearBox); the gzip fakes need gzip.
  const env = (gzip?: string) => ({ HOME: home, GPU_RENT_HOME: join(home, '.gpu-rent'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '', ...(gzip ? { GPU_RENT_STREAM_GZIP: gzip } : {}) });

  it('a stream consumer that is behind pauses the channel: the box waits, nothing is queued or lost', async () => {
    const conn = connectionTo(sshd, join(home, 'known_hosts'));
    try {
      const total = 64 * MiB;
      let got = 0;
      let release: () => void = () => undefined;
      let firstPause: Promise<void> | undefined;
      const run = conn.execStream(`head -c ${total} /dev/zero`, {
        login: false,
        onStdout: (c) => {
          got += c.length;
          if (firstPause) return undefined;
          firstPause = new Promise<void>((res) => (release = res));
          return firstPause;
        },
      });
      while (!firstPause) await new Promise((r) => setTimeout(r, 10));
      const atPause = got;
      await new Promise((r) => setTimeout(r, 1500));
      // Unpaused, loopback moves the whole 64 MiB in well under that time.
      assert.equal(got, atPause, `${got - atPause} bytes handed over while paused`);
      release();
      const r = await run;
      assert.equal(r.code, 0);
      assert.equal(got, total);
    } finally {
      conn.close();
    }
  });

  for (const [what, fake] of Object.entries(FAKES)) {
    it(`${what}: peak RSS under 256 MB, the stream given up early, every file via SFTP, nothing lost`, async () => {
      const path = join(sshd.home, 'evil', fake.name);
      writeFileSync(path, `#!/bin/sh\n${fake.script}\n`, { mode: 0o755 });
      chownSync(path, uid, gid);
      const local = join(home, 'ckpt');
      const r = await runCliMeasured(['sync', `ssh://${sshd.user}@127.0.0.1:${sshd.port}`, '--identity', sshd.privateKeyPath, '--accept-new', '--remote', remoteDir, '--local', local, '--settle', '0', '--json'], env(fake.gzip), 200_000);
      console.log(`      peak RSS ${(r.peakRssBytes / MiB).toFixed(0)} MiB, ${r.ms} ms`);
      assert.ok(existsSync(join(sshd.home, 'evil', 'ran')), `the fake ${fake.name} never ran: ${r.stderr.slice(0, 500)}`);
      assert.equal(r.code, 0, `exit ${r.code} ${r.signal ?? ''}: ${r.stderr.slice(0, 1000)}`);
      const out = JSON.parse(r.stdout) as { files: number; skipped: unknown[] };
      assert.equal(out.files, FILES);
      assert.deepEqual(out.skipped, []);
      for (const n of readdirSync(remoteDir)) assert.ok(readFileSync(join(local, n)).equals(readFileSync(join(remoteDir, n))), `${n} differs`);
      assert.deepEqual(readdirSync(local).filter((n) => n.endsWith('.part')), []);
      assert.ok(r.peakRssBytes > 0 && r.peakRssBytes < BUDGET_BYTES, `peak RSS ${(r.peakRssBytes / MiB).toFixed(0)} MiB`);
      // The stream's own deadline is a minute: it was given up long before that.
      assert.ok(r.ms < 45_000, `${r.ms} ms`);
    });
  }
});

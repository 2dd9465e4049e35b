// Close the lid, end to end on real parts: the built CLI launches a task on the loopback sshd and
// is SIGKILLed 3 s after the run starts (what a sleeping laptop does). The box finishes alone:
// every checkpoint in the bucket (s3rver on loopback) verified by its SHA-256, one message
// naming the task on the 企业微信-shaped stub, the store's secret nowhere on the box; then
// `launch --resume` brings every checkpoint home, says the run finished while the laptop was
// away, and sends no second message.
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CLI, runCli, runCliAsync } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { startS3, type TestS3 } from '../support/s3server';
import { tempDir, sleep } from './remote-helpers';
import { TRAIN_PY } from '../support/train-loop';

describe('close the lid: the box finishes the run while the laptop is away (real sshd, s3rver, a message stub)', function () {
  this.timeout(240000);
  let a: TestSshd;
  let s3: TestS3;
  let hook: Server;
  const messages: string[] = [];
  let home: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  // s3rver verifies no signature, so a secret of our own shows where it would leak.
  const SECRET = 'sk-lid-test-6f1e0c9a2b7d4e58';
  const KEY = 'wecom-robot-key-5a1d';

  before(async () => {
    [a, s3] = await Promise.all([startSshd(), startS3(['ckpt'])]);
    // 企业微信's group robot as its page documents it: POST JSON {msgtype, text: {content}} → {"errcode":0,"errmsg":"ok"}.
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url === `/cgi-bin/webhook/send?key=${KEY}`) messages.push(body);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ errcode: 0, errmsg: 'ok' }));
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    home = tempDir('gpu-rent-lid-');
    env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', GPU_RENT_LAUNCH_POLL_MS: '500', GPU_RENT_TEST_LAPTOP_AWAY_SECONDS: '3', LANG: 'C.UTF-8' };
  });
  after(async () => {
    await new Promise<void>((r) => hook?.close(() => r()));
    await Promise.all([a?.stop(), s3?.stop()]);
    home?.remove();
  });

  it('SIGKILLed 3 s after the run starts: checkpoints in the bucket, one message, no secret on the box; --resume brings all home', async () => {
    const port = (hook.address() as AddressInfo).port;
    const add = await runCliAsync(['storage', 'add', 'loc', '--endpoint', s3.endpoint, '--bucket', 'ckpt', '--path-style'], { ...env, GPU_RENT_STORAGE_KEY_ID: s3.keyId, GPU_RENT_STORAGE_SECRET: SECRET });
    assert.equal(add.code, 0, add.stderr);
    const ch = await runCliAsync(['notify', 'add', 'phone', '--kind', 'wecom'], { ...env, GPU_RENT_NOTIFY_SECRET: `http://127.0.0.1:${port}/cgi-bin/webhook/send?key=${KEY}` });
    assert.equal(ch.code, 0, ch.stderr);
    const dir = join(home.path, 'lora');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'train.py'), TRAIN_PY);
    writeFileSync(join(dir, '.gitignore'), 'ckpt-home/\n');
    writeFileSync(
      join(dir, 'gpu-rent.yaml'),
      [
        'name: lora-lid',
        `instance: "ssh://${a.user}@127.0.0.1:${a.port}"`,
        'run: python3 train.py --out ckpt',
        'env: {STEPS: "16", EVERY: "4", DELAY: "0.5"}',
        'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s, store: loc/runs}',
        'notify: [phone]',
        'price_yuan_per_hour: 1.98',
        'end: none',
      ].join('\n') + '\n',
    );
    execFileSync('git', ['init', '-q', dir]);
    const keys = ['--accept-new', '--identity', a.privateKeyPath];
    const child = spawn(process.execPath, [CLI, 'launch', '--file', join(dir, 'gpu-rent.yaml'), ...keys], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    for (let i = 0; i < 600 && !/run: started/.test(err); i++) await sleep(100);
    assert.match(err, /run: started/, err);
    for (let i = 0; i < 100 && !/away: if this laptop is away/.test(err); i++) await sleep(100);
    assert.match(err, /away: if this laptop is away when the run ends, the box stores each complete checkpoint in loc\/runs\/lora-lid\/\d{8}T\d{6}Z\/ \(verified\); messages phone; then keeps running/, err);
    await sleep(3000);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    // The box goes on alone: the run ends (16 × 0.5 s), the last store pass, the laptop counted away, the message.
    for (let i = 0; i < 600 && messages.length === 0; i++) await sleep(200);
    assert.equal(messages.length, 1, 'one message');
    const text = (JSON.parse(messages[0]!) as { msgtype: string; text: { content: string } }).text.content;
    assert.match(text, /lora-lid/);
    assert.match(text, /finished/);
    const journal = () => {
      try {
        return readFileSync(join(a.home, '.gpu-rent', 'supervisor', 'lora-lid', 'journal.log'), 'utf8') + readFileSync(join(a.home, '.gpu-rent', 'supervisor', 'lora-lid', 'supervisor.out'), 'utf8');
      } catch (e) {
        return String(e);
      }
    };
    const { S3Client, ListObjectsV2Command, HeadObjectCommand } = await import('@aws-sdk/client-s3');
    const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: s3.keyId, secretAccessKey: SECRET } });
    // The journal goes to the store right after the message: wait for its last file.
    let keysIn: string[] = [];
    for (let i = 0; i < 100 && !keysIn.some((k) => k.endsWith('/.gpu-rent/journal.log')); i++) {
      if (i) await sleep(200);
      keysIn = ((await client.send(new ListObjectsV2Command({ Bucket: 'ckpt', Prefix: 'runs/lora-lid/' }))).Contents ?? []).map((o) => o.Key!).sort();
    }
    // One prefix per launch: runs/lora-lid/<its start, UTC>/.
    const stamp = /^runs\/lora-lid\/(\d{8}T\d{6}Z)\//.exec(keysIn[0] ?? '')?.[1];
    assert.ok(stamp, keysIn.join(', '));
    for (const step of ['0004', '0008', '0012', '0016']) {
      for (const f of ['weights.bin', 'step']) {
        const key: string = `runs/lora-lid/${stamp}/step-${step}/${f}`;
        assert.ok(keysIn.includes(key), `${key} in ${keysIn.join(', ')}; the box's journal: ${journal()}`);
        const head = await client.send(new HeadObjectCommand({ Bucket: 'ckpt', Key: key }));
        const onBox = readFileSync(join(a.home, 'gpu-rent', 'lora-lid', 'ckpt', `step-${step}`, f));
        assert.equal(head.Metadata?.sha256, createHash('sha256').update(onBox).digest('hex'));
      }
    }
    client.destroy();
    // The store's secret is in no file of the box user's (the grant is a signed policy, not the key).
    const grep = spawnSync('grep', ['-rlF', '--', SECRET, a.home], { encoding: 'utf8' });
    assert.equal(grep.status, 1, `the secret was found on the box: ${grep.stdout}`);

    // The supervisor's journal is in the store too (under .gpu-rent/ of the run's prefix), for a box that is off.
    assert.ok(keysIn.includes(`runs/lora-lid/${stamp}/.gpu-rent/journal.log`) && keysIn.includes(`runs/lora-lid/${stamp}/.gpu-rent/state`), keysIn.join(', '));

    // The laptop comes back and only looks (issue 39 deliver 6): --status reads the box's journal, changing nothing.
    const st = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--status', ...keys], { env, timeoutMs: 60000 });
    assert.equal(st.code, 0, st.stderr + st.stdout);
    assert.match(st.stdout, /ended while you were away \(the box says: the run finished\); stored step-0004, step-0008, step-0012, step-0016; messaged phone/, st.stdout);
    const sj = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--status', '--json', ...keys], { env, timeoutMs: 60000 });
    const box = (JSON.parse(sj.stdout) as { box: { source: string; outcome: string; done: boolean; lastStep: number | null; stored: { name: string }[] } }).box;
    assert.deepEqual([box.source, box.outcome, box.done, box.lastStep, box.stored.length], ['box', 'finished', true, 16, 4], sj.stdout);
    // The box cannot be reached (its host key is not known here and nobody is asked): the journal comes from the store.
    // (async: s3rver answers from this process.)
    const off = await runCliAsync(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--status', '--json', '--identity', a.privateKeyPath], { ...env, GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh-empty') });
    const fromStore = (JSON.parse(off.stdout) as { box: { source: string; outcome: string; stored: { name: string }[] } }).box;
    assert.deepEqual([fromStore.source, fromStore.outcome, fromStore.stored.map((x) => x.name)], ['store', 'finished', ['step-0004', 'step-0008', 'step-0012', 'step-0016']], off.stdout);
    assert.ok(existsSync(join(a.home, '.gpu-rent', 'supervisor', 'lora-lid', 'journal.log')) && !/claimed|laptop-done/.test(journal()), 'looking changed nothing on the box');

    // The laptop comes back.
    const r = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--resume', ...keys], { env, timeoutMs: 120000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /ended while you were away \(the box says: the run finished\); stored step-0004, step-0008, step-0012, step-0016; messaged phone/);
    const home_ = readdirSync(join(dir, 'ckpt-home')).filter((n) => n.startsWith('step-')).sort();
    assert.deepEqual(home_, ['step-0004', 'step-0008', 'step-0012', 'step-0016']);
    assert.ok(!existsSync(join(dir, 'ckpt-home', '.gpu-rent')), "the supervisor's journal stays in the store");
    assert.equal(messages.length, 1, 'the laptop sends no second message for what the box said');
    assert.ok(!existsSync(join(a.home, '.gpu-rent', 'supervisor', 'lora-lid', 'pid')), 'the supervisor has stopped');
  });
});

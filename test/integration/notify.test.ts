// Messages over real sockets: every channel against a loopback stub that checks its documented
// body and signature (test/support/notify-stub.ts), email through a real SMTP server
// (smtp-server), the bounds (a redirect off the origin, a silent channel, a huge reply), each
// event once through the journal, 企业微信's 20 a minute, hostile log lines over the wire, and the
// box's sender (python3, standard library) run for real: signed at send time, the key never on
// its command line or in its environment.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { renderBoxSend } from '../../src/core/notify/box';
import type { ChannelSecret, NotifyChannel } from '../../src/core/notify/channels';
import { eventMessage, type NotifyEvent } from '../../src/core/notify/events';
import { parseJournal } from '../../src/core/notify/journal';
import { recordSent } from '../../src/app/notify/journal';
import { notifyEvent, NotifyError, sendMessage } from '../../src/app/notify/send';
import { startNotifyStub, type NotifyStub } from '../support/notify-stub';

const run = promisify(execFile);

const KEYS = { wecomKey: 'wecom-key-1', dingtalkToken: 'ding-token-1', dingtalkSecret: 'SECding-secret', feishuHook: 'feishu-hook-1', feishuSecret: 'feishu-secret', serverchanKey: 'SCT-send-key', pushplusToken: 'pushplustoken1' };

describe('notify over loopback', function () {
  this.timeout(30_000);
  let stub: NotifyStub;
  let dir: string;
  type Send = { channel: NotifyChannel; secret: ChannelSecret };
  const ch = (): Record<'wecom' | 'dingtalk' | 'feishu' | 'serverchan' | 'pushplus' | 'webhook', Send> => ({
    wecom: { channel: { name: 'wx', kind: 'wecom', base: stub.base }, secret: { key: KEYS.wecomKey } },
    dingtalk: { channel: { name: 'ding', kind: 'dingtalk', base: stub.base, signed: true }, secret: { key: KEYS.dingtalkToken, sign: KEYS.dingtalkSecret } },
    feishu: { channel: { name: 'fs', kind: 'feishu', base: stub.base, signed: true }, secret: { key: KEYS.feishuHook, sign: KEYS.feishuSecret } },
    serverchan: { channel: { name: 'sc', kind: 'serverchan', base: stub.base }, secret: { key: KEYS.serverchanKey } },
    pushplus: { channel: { name: 'pp', kind: 'pushplus', base: stub.base }, secret: { key: KEYS.pushplusToken } },
    webhook: { channel: { name: 'hook', kind: 'webhook' }, secret: { key: `${stub.base}/hook/abc` } },
  });

  beforeEach(async () => {
    stub = await startNotifyStub(KEYS);
    dir = await mkdtemp(join(tmpdir(), 'gpu-rent-notify-'));
  });
  afterEach(async () => {
    await stub.close();
    await rm(dir, { recursive: true, force: true });
  });

  const msg = eventMessage({ kind: 'finished', task: 'lora-7b', costFen: 1234, step: 3000 }, 'zh-cn');

  it('each channel: the documented body and signature, the reply checked', async () => {
    for (const [kind, { channel, secret }] of Object.entries(ch())) {
      await sendMessage(channel, secret, msg, { lang: 'zh-cn' });
      const got = stub.requests.at(-1)!;
      assert.equal(got.channel, kind);
      assert.deepEqual(got.problems, [], `${kind}: ${got.problems.join('; ')}`);
    }
    assert.equal(stub.requests.length, 6);
    const fs = stub.requests.find((r) => r.channel === 'feishu')!;
    assert.match(String((fs.body.content as { text: string }).text), /任务 lora-7b 已完成/);
  });

  it('a wrong signing secret is refused with the channel\'s code, and the error carries no key', async () => {
    const { channel } = ch().feishu;
    await assert.rejects(sendMessage(channel, { key: KEYS.feishuHook, sign: 'bad-secret-xyz' }, msg, { lang: 'en' }), (e: unknown) => {
      assert.ok(e instanceof NotifyError);
      assert.equal(e.code, 'feishu-19021');
      assert.ok(!e.message.includes(KEYS.feishuHook) && !e.message.includes('bad-secret-xyz'));
      return true;
    });
    const d = ch().dingtalk;
    await assert.rejects(sendMessage(d.channel, { key: KEYS.dingtalkToken, sign: 'SECother' }, msg, { lang: 'en' }), /refused/);
  });

  it('bounds: no redirect off the origin, a timeout, a capped reply', async () => {
    const { channel, secret } = ch().wecom;
    stub.override = (_req, res) => {
      res.writeHead(307, { Location: 'http://127.0.0.2:9/steal' });
      res.end();
      return true;
    };
    await assert.rejects(sendMessage(channel, secret, msg, { lang: 'en' }), (e: unknown) => e instanceof NotifyError && e.code === 'bad-reply' && /another origin/.test(e.message));
    stub.override = () => true; // never answers
    const t0 = Date.now();
    await assert.rejects(sendMessage(channel, secret, msg, { lang: 'en', timeoutMs: 300 }), (e: unknown) => e instanceof NotifyError && e.code === 'timeout');
    assert.ok(Date.now() - t0 < 3000);
    stub.override = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"errcode":0,"pad":"' + 'x'.repeat(200_000) + '"}');
      return true;
    };
    await assert.rejects(sendMessage(channel, secret, msg, { lang: 'en' }), (e: unknown) => e instanceof NotifyError && e.code === 'bad-reply');
  });

  it('each event once: a second send and an event the box already sent are skipped', async () => {
    const journal = join(dir, 'sent.jsonl');
    const c = ch();
    const sends = [c.wecom, c.feishu];
    const ev: NotifyEvent = { kind: 'finished', task: 'lora-7b', step: 10 };
    const first = await notifyEvent('L1:finished:1', ev, sends, { journal, lang: 'en' });
    assert.deepEqual(first.map((r) => r.status), ['sent', 'sent']);
    const again = await notifyEvent('L1:finished:1', ev, sends, { journal, lang: 'en' });
    assert.deepEqual(again.map((r) => r.status), ['skipped', 'skipped']);
    assert.equal(stub.requests.length, 2);
    await recordSent(journal, 'L1:failed:1', 'wx', 'box');
    const boxSent = await notifyEvent('L1:failed:1', { kind: 'failed', task: 'lora-7b', exitCode: 1 }, sends, { journal, lang: 'en' });
    assert.deepEqual(boxSent.map((r) => r.status), ['skipped', 'sent']);
    assert.equal((await stat(journal)).mode & 0o777, 0o600);
  });

  it('企业微信: the 21st message in a minute waits for the window instead of being refused', async () => {
    const journal = join(dir, 'sent.jsonl');
    let now = Date.now();
    stub.now = () => now;
    const waits: number[] = [];
    const o = { journal, lang: 'en' as const, nowMs: () => now, sleep: async (ms: number) => void (waits.push(ms), (now += ms)) };
    for (let i = 0; i < 21; i++) {
      const [r] = await notifyEvent(`L1:idleGpu:${i}`, { kind: 'idleGpu', task: 't', idleSeconds: 600 }, [ch().wecom], o);
      assert.equal(r!.status, 'sent', JSON.stringify(r));
      now += 100;
    }
    assert.equal(waits.length, 1);
    assert.ok(waits[0]! > 55_000 && waits[0]! <= 61_000, String(waits[0]));
  });

  it('hostile log lines arrive inert on every channel', async () => {
    const ev: NotifyEvent = { kind: 'failed', task: 'lora-7b', exitCode: 1, cause: 'cudaOom', causeLine: '<at user_id="all">所有人</at> @all [click](https://evil.example.com) **now** @13800138000', instance: '<a href="http://x.cn">x</a>' };
    for (const { channel, secret } of Object.values(ch())) await sendMessage(channel, secret, eventMessage(ev, 'en'), { lang: 'en' });
    for (const r of stub.requests) {
      assert.doesNotMatch(r.raw, /<at|@all|@1380|\]\(|https?:\/\/|<a /, `${r.channel}: ${r.raw.slice(0, 300)}`);
    }
  });

  it('email: plain text through a real SMTP server, with its login', async () => {
    const mails: { from: string; to: string[]; data: string; user?: string; pass?: string }[] = [];
    const smtp = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth(auth, _s, cb) {
        if (auth.username === 'me@example.com' && auth.password === 'app-password') return cb(null, { user: auth.username });
        return cb(new Error('bad login'));
      },
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), data: Buffer.concat(chunks).toString('utf8'), user: String(session.user) });
          cb();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
    const port = (smtp.server.address() as AddressInfo).port;
    try {
      const channel: NotifyChannel = { name: 'mail', kind: 'email', smtp: { host: '127.0.0.1', port, secure: false, from: 'me@example.com', to: ['you@example.com'], user: 'me@example.com' } };
      await sendMessage(channel, { password: 'app-password' }, eventMessage({ kind: 'endActionFailed', task: 'lora-7b', action: 'power-off', hourlyFen: 198 }, 'en'), { lang: 'en' });
      assert.equal(mails.length, 1);
      assert.deepEqual(mails[0]!.to, ['you@example.com']);
      assert.equal(mails[0]!.user, 'me@example.com');
      assert.match(mails[0]!.data, /Subject: =\?UTF-8\?Q\?gpu-rent=3A_STILL_BILLING/);
      assert.match(mails[0]!.data, /Content-Type: text\/plain/);
      assert.doesNotMatch(mails[0]!.data, /text\/html/);
      await assert.rejects(sendMessage(channel, { password: 'wrong' }, eventMessage({ kind: 'test', task: 't', channel: 'mail' }, 'en'), { lang: 'en' }), (e: unknown) => e instanceof NotifyError && e.code === 'smtp' && !e.message.includes('wrong'));
    } finally {
      await new Promise<void>((r) => smtp.close(() => r()));
    }
  });

  it('the box sender: python3 stdlib, signed at send time, slots filled, once, no secret on its command line', async () => {
    const journal = join(dir, 'notify-sent.jsonl');
    const ev: NotifyEvent = { kind: 'finished', task: 'lora-7b', step: { slot: 'step' }, costFen: { slot: 'cost' } };
    for (const name of ['dingtalk', 'feishu', 'wecom'] as const) {
      const { channel, secret } = ch()[name];
      const plan = renderBoxSend(channel, secret, eventMessage(ev, 'en'), { dir, journal, eventId: 'L9:finished:1', lang: 'en' });
      for (const f of plan.files) {
        await writeFile(f.path, f.content, { mode: f.mode });
        await chmod(f.path, f.mode);
      }
      const args = [...plan.argv.slice(1), 'step=3000', 'cost=12.34', 'exit=$(id)'];
      const line = [plan.argv[0], ...args].join(' ');
      for (const s of [secret.key!, secret.sign ?? 'none-here']) assert.ok(!line.includes(s), `${name}: secret on the command line`);
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir };
      assert.ok(!JSON.stringify(env).includes(secret.key!));
      const out = await run(plan.argv[0]!, args, { env, timeout: 20_000 });
      assert.match(out.stdout, /sent L9:finished:1/);
      const got = stub.requests.at(-1)!;
      assert.equal(got.channel, name);
      assert.deepEqual(got.problems, [], got.problems.join('; '));
      assert.match(got.raw, /Final step: 3000/);
      assert.match(got.raw, /Cost: ¥12\.34/);
      const again = await run(plan.argv[0]!, args, { env, timeout: 20_000 });
      assert.match(again.stdout, /already sent/);
      assert.equal((await stat(plan.files[1]!.path)).mode & 0o777, 0o600);
    }
    assert.equal(stub.requests.length, 3);
    const entries = parseJournal(await readFile(journal, 'utf8'));
    assert.deepEqual(entries.map((e) => [e.channel, e.by]), [['ding', 'box'], ['fs', 'box'], ['wx', 'box']]);
    // The laptop then skips what the box sent.
    const laptop = await notifyEvent('L9:finished:1', { kind: 'finished', task: 'lora-7b' }, [ch().dingtalk], { journal, lang: 'en' });
    assert.equal(laptop[0]!.status, 'skipped');
  });

  it('the box sender reports a refusal and does not journal it', async () => {
    const journal = join(dir, 'notify-sent.jsonl');
    const { channel } = ch().feishu;
    const plan = renderBoxSend(channel, { key: KEYS.feishuHook, sign: 'not-the-secret' }, eventMessage({ kind: 'test', task: 't', channel: 'fs' }, 'en'), { dir, journal, eventId: 'L9:test:1', lang: 'en' });
    for (const f of plan.files) await writeFile(f.path, f.content, { mode: f.mode });
    await assert.rejects(run(plan.argv[0]!, plan.argv.slice(1), { timeout: 20_000 }), (e: { code?: number; stdout?: string }) => e.code === 1 && /refused the message \(feishu-19021\)/.test(e.stdout ?? '') && !(e.stdout ?? '').includes(KEYS.feishuHook));
    await assert.rejects(stat(journal));
  });
});

// The message channels' pure parts: each request as its documentation writes it (sources in
// test/fixtures/notify/SOURCES.md), the two signatures against known answers from the docs'
// own samples, 企业微信's 2048-byte limit, the rate rule, the journal, hostile box text, the
// events' words in both languages and the box render (no secret on its command line).
import { strict as assert } from 'node:assert';
import { createHmac } from 'node:crypto';
import { boxMaySend, parseChannelKey, type NotifyChannel } from '../../src/core/notify/channels';
import { eventMessage, NOTIFY_EVENT_KINDS, type NotifyEvent } from '../../src/core/notify/events';
import { inertLine, inertMarkdownLine, truncateUtf8, utf8Bytes } from '../../src/core/notify/inert';
import { journalLine, parseJournal, rateWait, wasSent } from '../../src/core/notify/journal';
import { buildRequest, dingtalkSign, feishuSign, plainText, replyVerdict } from '../../src/core/notify/requests';
import { BoxSendRefused, renderBoxSend } from '../../src/core/notify/box';
import { parseTaskFile } from '../../src/core/task/schema';
import replies from '../fixtures/notify/replies.json';
import sigs from '../fixtures/notify/signatures.json';

const hmac = (key: string, msg: string) => createHmac('sha256', Buffer.from(key, 'utf8')).update(Buffer.from(msg, 'utf8')).digest('base64');
const msg = { title: 'gpu-rent: t finished', lines: ['Final step: 10', 'Cost: ¥1.00'], urgent: false };

// Hostile log lines: mentions of every client, links, markup, control characters.
const HOSTILE = [
  '@all please check https://evil.example.com/x?a=1',
  '<at user_id="all">所有人</at> 请看',
  '@13800138000 [点我](https://evil.example.com) **urgent** `rm -rf /`',
  '<a href="http://x.cn">x</a> <font color="warning">red</font> www.evil.cn 10.0.0.1',
  '# heading\n> quote\n- list \x1b[31mred\x1b[0m \u202eevil\u202c ⟦cost⟧',
];

describe('notify: inert box text', () => {
  for (const line of HOSTILE) {
    it(`leaves no mention, link or markup: ${JSON.stringify(line).slice(0, 50)}`, () => {
      const t = inertLine(line);
      assert.doesNotMatch(t, /@|<|>|\[|\]|`|:\/\/|\x1b|\u202e|\n|⟦/);
      assert.doesNotMatch(t, /\b(?:www\.)?[a-z0-9-]+\.(?:com|cn)\b/i, 'no bare domain a client would link');
      assert.doesNotMatch(t, /\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/, 'no IP address');
      const md = inertMarkdownLine(line);
      assert.doesNotMatch(md, /(?<!\\)[*_#>|~]/, 'Markdown characters escaped');
    });
  }
  it('keeps ordinary words readable and cuts long lines', () => {
    assert.equal(inertLine('loss=0.123 step 40/100'), 'loss=0.123 step 40/100');
    const long = inertLine('x'.repeat(5000));
    assert.equal(Array.from(long).length, 300);
    assert.ok(long.endsWith('…'));
  });
});

describe('notify: UTF-8 truncation', () => {
  it('cuts at a character boundary, marked, within the byte limit', () => {
    const s = '训练'.repeat(1000) + '😀'.repeat(10);
    const r = truncateUtf8(s, 2048, '\n…(cut)');
    assert.ok(r.cut);
    assert.ok(utf8Bytes(r.text) <= 2048);
    assert.ok(r.text.endsWith('\n…(cut)'));
    assert.ok(!r.text.includes('\ufffd'));
    assert.equal(Buffer.from(r.text, 'utf8').toString('utf8'), r.text);
    // Emoji (4 bytes, a surrogate pair) at the edge are never split.
    const e = truncateUtf8('😀'.repeat(600), 2048, '…');
    assert.ok(utf8Bytes(e.text) <= 2048);
    assert.doesNotMatch(e.text, /[\ud800-\udbff](?![\udc00-\udfff])/);
    assert.deepEqual(truncateUtf8('short', 2048, '…'), { text: 'short', cut: false });
  });
  it('企业微信 text content stays within 2048 bytes for a huge message', () => {
    const big = { title: 'gpu-rent: 任务 t 失败', lines: Array.from({ length: 200 }, (_, i) => `第 ${i} 行 日志内容很长很长`), urgent: false };
    const req = buildRequest({ name: 'w', kind: 'wecom' }, { key: 'K' }, big, { lang: 'zh-cn', nowMs: 0, hmac });
    const content = (JSON.parse(req.body) as { text: { content: string } }).text.content;
    assert.ok(Buffer.byteLength(content, 'utf8') <= 2048, `${Buffer.byteLength(content)} bytes`);
    assert.ok(content.endsWith('…（已截断）'));
  });
});

describe('notify: signatures against the docs', () => {
  it('飞书: key = timestamp\\nsecret, message empty (the doc\'s inputs and sample)', () => {
    const s = feishuSign(sigs.feishu.timestamp, sigs.feishu.secret, hmac);
    assert.deepEqual(s, { timestamp: '1599360473', sign: sigs.feishu.sign });
    // Not 钉钉's order: key and message swapped give another value.
    assert.notEqual(hmac(sigs.feishu.secret, `${sigs.feishu.timestamp}\n${sigs.feishu.secret}`), sigs.feishu.sign);
  });
  it('钉钉: key = secret, message = timestamp\\nsecret, URL-encoded in the query', () => {
    const s = dingtalkSign(Number(sigs.dingtalk.timestamp), sigs.dingtalk.secret, hmac);
    assert.equal(encodeURIComponent(s.sign), sigs.dingtalk.signQuery);
    const req = buildRequest({ name: 'd', kind: 'dingtalk', signed: true }, { key: 'TOKEN', sign: sigs.dingtalk.secret }, msg, { lang: 'en', nowMs: Number(sigs.dingtalk.timestamp), hmac });
    assert.equal(req.url, `https://oapi.dingtalk.com/robot/send?access_token=TOKEN&timestamp=${sigs.dingtalk.timestamp}&sign=${sigs.dingtalk.signQuery}`);
  });
});

describe('notify: each request as documented', () => {
  const o = { lang: 'en' as const, nowMs: 1599360473000, hmac };
  it('企业微信 text', () => {
    const r = buildRequest({ name: 'w', kind: 'wecom' }, { key: 'abc-123' }, msg, o);
    assert.equal(r.url, 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=abc-123');
    assert.deepEqual(JSON.parse(r.body), { msgtype: 'text', text: { content: plainText(msg) } });
  });
  it('飞书 text, signed in the body', () => {
    const r = buildRequest({ name: 'f', kind: 'feishu', signed: true }, { key: 'hook-1', sign: 'demo' }, msg, o);
    assert.equal(r.url, 'https://open.feishu.cn/open-apis/bot/v2/hook/hook-1');
    assert.deepEqual(JSON.parse(r.body), { timestamp: '1599360473', sign: sigs.feishu.sign, msg_type: 'text', content: { text: plainText(msg) } });
    const unsigned = JSON.parse(buildRequest({ name: 'f', kind: 'feishu' }, { key: 'hook-1' }, msg, o).body) as Record<string, unknown>;
    assert.equal(unsigned.sign, undefined);
  });
  it('Server酱: SendKey URL (SC3 keys to their own host), title ≤ 32, desp Markdown-escaped', () => {
    assert.equal(buildRequest({ name: 's', kind: 'serverchan' }, { key: 'SCT1abc' }, msg, o).url, 'https://sctapi.ftqq.com/SCT1abc.send');
    assert.equal(buildRequest({ name: 's', kind: 'serverchan' }, { key: 'sctp123tABC' }, msg, o).url, 'https://123.push.ft07.com/send/sctp123tABC.send');
    const b = JSON.parse(buildRequest({ name: 's', kind: 'serverchan' }, { key: 'k' }, { title: 'x'.repeat(50), lines: ['**bold** [a](http://b)'], urgent: false }, o).body) as { title: string; desp: string };
    assert.equal(Array.from(b.title).length, 32);
    assert.doesNotMatch(b.desp, /(?<!\\)[*(]|\[|:\/\//);
  });
  it('PushPlus: token in the body, plain-text template', () => {
    const r = buildRequest({ name: 'p', kind: 'pushplus' }, { key: 'tok' }, msg, o);
    assert.equal(r.url, 'https://www.pushplus.plus/send');
    assert.deepEqual(JSON.parse(r.body), { token: 'tok', title: msg.title, content: msg.lines.join('\n'), template: 'txt' });
  });
  it('a base URL replaces the documented origin', () => {
    assert.equal(buildRequest({ name: 'w', kind: 'wecom', base: 'http://127.0.0.1:9' }, { key: 'K' }, msg, o).url, 'http://127.0.0.1:9/cgi-bin/webhook/send?key=K');
  });
});

describe('notify: replies', () => {
  it('reads each channel\'s documented success', () => {
    assert.ok(replyVerdict('wecom', 200, replies.wecom.ok).ok);
    assert.ok(replyVerdict('dingtalk', 200, replies.dingtalk.ok).ok);
    assert.ok(replyVerdict('feishu', 200, replies.feishu.ok).ok);
    assert.ok(replyVerdict('feishu', 200, replies.feishu.okLegacy).ok);
    assert.ok(replyVerdict('serverchan', 200, replies.serverchan.ok).ok);
    assert.deepEqual(replyVerdict('pushplus', 200, replies.pushplus.ok), { ok: true, id: replies.pushplus.ok.data });
  });
  it('a refusal gives its code and a hint', () => {
    const f = replyVerdict('feishu', 200, replies.feishu.badSign);
    assert.ok(!f.ok && f.code === 'feishu-19021' && /signature/.test(f.message));
    const w = replyVerdict('wecom', 200, replies.wecom.rate);
    assert.ok(!w.ok && w.code === 'wecom-45009');
    const p = replyVerdict('pushplus', 200, replies.pushplus.badToken);
    assert.ok(!p.ok && p.code === 'pushplus-903');
    assert.ok(!replyVerdict('wecom', 200, {}).ok, 'no errcode is not success');
    assert.ok(!replyVerdict('wecom', 502, 'x').ok);
    assert.ok(!replyVerdict('webhook', 500, {}).ok);
    const hostile = replyVerdict('dingtalk', 200, { errcode: 1, errmsg: 'bad\x1b]52;c;AAAA\x07 \u202eevil' + 'x'.repeat(1000) });
    assert.ok(!hostile.ok && !/[\x1b\x07\u202e]/.test(hostile.message) && hostile.message.length < 400);
  });
});

describe('notify: pasted keys', () => {
  it('takes the key out of each client\'s webhook address', () => {
    assert.deepEqual(parseChannelKey('wecom', 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7xxx'), { ok: true, key: '693a91f6-7xxx' });
    assert.deepEqual(parseChannelKey('dingtalk', 'https://oapi.dingtalk.com/robot/send?access_token=abc123'), { ok: true, key: 'abc123' });
    assert.deepEqual(parseChannelKey('feishu', 'https://open.feishu.cn/open-apis/bot/v2/hook/5e3d587e-d78e'), { ok: true, key: '5e3d587e-d78e' });
    assert.deepEqual(parseChannelKey('feishu', 'https://open.larksuite.com/open-apis/bot/v2/hook/5e3d587e-d78e'), { ok: true, key: '5e3d587e-d78e', base: 'https://open.larksuite.com' });
    assert.equal(parseChannelKey('wecom', 'http://evil.example/cgi-bin/webhook/send?key=k').ok, false, 'plain http only on loopback');
    assert.equal(parseChannelKey('wecom', 'a b').ok, false);
  });
});

describe('notify: journal and rate', () => {
  it('each (event, channel) once; torn lines skipped', () => {
    const text = journalLine({ id: 'L1:finished:1', channel: 'w', at: 100, by: 'box' }) + '{"id":"torn' + '\n' + journalLine({ id: 'L1:failed:1', channel: 'd', at: 101, by: 'laptop' });
    const e = parseJournal(text);
    assert.equal(e.length, 2);
    assert.equal(wasSent(e, 'L1:finished:1', 'w')?.by, 'box');
    assert.equal(wasSent(e, 'L1:finished:1', 'd'), undefined);
  });
  it('企业微信: the 21st message in a minute waits for the window', () => {
    const rule = { max: 20, windowSeconds: 60 };
    const sent = Array.from({ length: 20 }, (_, i) => ({ id: `e${i}`, channel: 'w', at: 1000 + i, by: 'laptop' as const }));
    assert.equal(rateWait(sent.slice(0, 19), 'w', 1020, rule), 0);
    assert.equal(rateWait(sent, 'w', 1020, rule), 40);
    assert.equal(rateWait(sent, 'w', 1061, rule), 0);
    assert.equal(rateWait(sent, 'other', 1020, rule), 0);
  });
});

describe('notify: events', () => {
  const events: NotifyEvent[] = [
    { kind: 'finished', task: 'lora-7b', costFen: 1234, step: 3000, totalSteps: 3000, durationSeconds: 5400 },
    { kind: 'failed', task: 'lora-7b', exitCode: 1, cause: 'cudaOom', causeLine: 'torch.OutOfMemoryError: CUDA out of memory @all https://x.com', costFen: 500, step: 120 },
    { kind: 'diverged', task: 'lora-7b', readings: 5, stopped: true, step: 800 },
    { kind: 'budgetStop', task: 'lora-7b', budgetFen: 5000, costFen: 5010, step: 900 },
    { kind: 'spotReclaimed', task: 'lora-7b', step: 400, instance: 'i-abc' },
    { kind: 'recovered', task: 'lora-7b', checkpoint: 'checkpoint-400', step: 400 },
    { kind: 'endActionFailed', task: 'lora-7b', action: 'power-off', reason: 'AuthorizeFailed', hourlyFen: 198 },
    { kind: 'idleGpu', task: 'lora-7b', idleSeconds: 1800, hourlyFen: 198, costFen: 300 },
    { kind: 'test', task: 'lora-7b', channel: 'wx' },
    { kind: 'grabbed', task: 'lora-7b', action: 'create', card: 'RTX 4090D', region: 'westDC2', hourlyFen: 198, waitedSeconds: 600, instance: 'pro-1' },
    { kind: 'keptAlive', task: 'lora-7b', ok: true, day: 13, days: 15, newReleaseAt: 1_800_000_000, costFen: 1, instance: 'uuid-1' },
  ];
  it('covers every kind, names the task, in both languages', () => {
    assert.deepEqual(events.map((e) => e.kind), NOTIFY_EVENT_KINDS);
    for (const ev of events) {
      for (const lang of ['en', 'zh-cn'] as const) {
        const m = eventMessage(ev, lang);
        assert.match(m.title, /lora-7b/);
        if (lang === 'zh-cn') assert.match(plainText(m), /[\u4e00-\u9fff]/);
        assert.doesNotMatch(plainText(m), /@|:\/\/|</);
      }
    }
  });
  it('says cost and final step; the failure\'s cause and remedy; STILL BILLING', () => {
    const fin = plainText(eventMessage(events[0]!, 'en'));
    assert.match(fin, /Final step: 3000\/3000/);
    assert.match(fin, /Cost: ¥12\.34/);
    const failed = plainText(eventMessage(events[1]!, 'zh-cn'));
    assert.match(failed, /显存不足/);
    assert.match(failed, /建议 1/);
    assert.match(eventMessage(events[6]!, 'en').title, /STILL BILLING/);
    assert.match(eventMessage(events[6]!, 'zh-cn').title, /仍在计费/);
    assert.ok(eventMessage(events[6]!, 'en').urgent);
    assert.match(plainText(eventMessage({ kind: 'finished', task: 't' }, 'en')), /Cost: \?/);
  });
});

describe('notify: the box render', () => {
  const secret = { key: 'KEY-abc123-secret', sign: 'SEC-signing-secret' };
  const ch: NotifyChannel = { name: 'ding', kind: 'dingtalk', signed: true };
  const m = eventMessage({ kind: 'finished', task: 'lora', step: { slot: 'step' }, costFen: { slot: 'cost' } }, 'en');
  it('puts the key and signing secret in 0600 files, never on the command line', () => {
    const plan = renderBoxSend(ch, secret, m, { dir: '/root/gpu-rent/lora/.state', journal: '/root/gpu-rent/lora/.state/notify-sent.jsonl', eventId: 'L1:finished:1', lang: 'en' });
    for (const s of [secret.key, secret.sign]) {
      assert.ok(!plan.command.includes(s));
      assert.ok(!plan.argv.some((a) => a.includes(s)));
    }
    assert.ok(plan.files.every((f) => f.mode === 0o600));
    const req = JSON.parse(plan.files[1]!.content) as { url: string; sign: string; body: string };
    assert.ok(req.url.includes(secret.key));
    assert.equal(req.sign, secret.sign);
    assert.match(req.body, /⟦step⟧/);
    assert.match(plan.command, /^python3 -I \/root\/gpu-rent\/lora\/\.state\/notify-send\.py \/root\/gpu-rent\/lora\/\.state\/notify-ding-L1_finished_1\.json$/);
  });
  it('keeps email on the laptop and refuses odd paths', () => {
    assert.equal(boxMaySend('email'), false);
    assert.throws(() => renderBoxSend({ name: 'm', kind: 'email', smtp: { host: 'h', port: 465, secure: true, from: 'a@b.c', to: ['a@b.c'] } }, { password: 'p' }, m, { dir: '/x', journal: '/x/j', eventId: 'e', lang: 'en' }), BoxSendRefused);
    assert.throws(() => renderBoxSend(ch, secret, m, { dir: "/x'; rm -rf /", journal: '/x/j', eventId: 'e', lang: 'en' }), BoxSendRefused);
  });
});

describe('notify: the task file', () => {
  it('takes notify: [NAME…], each name once, and refuses a bad one', () => {
    const ok = parseTaskFile('name: t\nrun: python train.py\nnotify: [phone, team.ding, phone]\n');
    assert.ok(ok.ok, JSON.stringify(ok));
    assert.deepEqual(ok.ok && ok.tasks[0]!.notify, ['phone', 'team.ding']);
    assert.equal(parseTaskFile('name: t\nrun: x\n').ok && (parseTaskFile('name: t\nrun: x\n') as { tasks: { notify?: string[] }[] }).tasks[0]!.notify, undefined);
    for (const bad of ['phone', '["a b"]', '[3]', `[${Array.from({ length: 17 }, (_, i) => `c${i}`).join(', ')}]`]) {
      const r = parseTaskFile(`name: t\nrun: x\nnotify: ${bad}\n`);
      assert.equal(r.ok, false, bad);
      assert.match(JSON.stringify(r), /notify/, bad);
    }
  });
});

// `gpu-rent quote` in Chinese and English, run as a user would (the built dist/cli.js: run
// `npm run build` first), the CLI's language rule, and the row notes the CLI and the calculator share.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliLang, langInArgv } from '../../src/cli/lang';
import { shared } from '../../src/cli/commands/quote-words';
import { builtinCatalog } from '../../src/core/catalog';
import { quoteCatalog } from '../../src/core/cost';
import { displayWidth } from '../../src/core/format';
import { DEFAULT_JOB } from '../../src/core/job-defaults';
import { QUOTE_NOTE_TEXT, quoteNoteText } from '../../src/core/quote-notes';
import { jobInputFor } from '../../src/webview/job-input';
import { DEFAULT_INPUTS, restoreState } from '../../src/webview/protocol';
import { strings } from '../../src/webview/strings';
import { runCli } from '../support/cli';

const BUNDLE = JSON.parse(readFileSync(join(__dirname, '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;

/** The locale variables set exactly (an empty one is unset for gettext), whatever the test machine has. */
const locale = (vars: { LC_ALL?: string; LC_MESSAGES?: string; LANG?: string }): NodeJS.ProcessEnv => ({ LC_ALL: '', LC_MESSAGES: '', LANG: '', ...vars });

function quote(args: string[], env: NodeJS.ProcessEnv): string {
  const r = runCli(['quote', ...args], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  return r.stdout;
}

/** The table's lines: from the header row to the first blank line. */
function tableLines(out: string, firstHeader: string): string[] {
  const lines = out.split('\n');
  const at = lines.findIndex((l) => l.trimStart().startsWith(firstHeader));
  assert.ok(at >= 0, `no table header starting with ${firstHeader}:\n${out}`);
  const end = lines.indexOf('', at);
  return lines.slice(at, end);
}

describe('cli: the language of gpu-rent', () => {
  it('--lang wins; else the first set of LC_ALL, LC_MESSAGES, LANG starting with zh is zh-cn; else en', () => {
    assert.equal(cliLang('en', { LANG: 'zh_CN.UTF-8' }), 'en');
    assert.equal(cliLang('zh-cn', { LANG: 'C.UTF-8' }), 'zh-cn');
    assert.equal(cliLang(undefined, { LANG: 'zh_CN.UTF-8' }), 'zh-cn');
    assert.equal(cliLang(undefined, { LANG: 'zh_TW.UTF-8' }), 'zh-cn');
    assert.equal(cliLang(undefined, { LANG: 'C.UTF-8' }), 'en');
    assert.equal(cliLang(undefined, {}), 'en');
    // LC_ALL over LC_MESSAGES over LANG, as gettext reads them; an empty one does not count.
    assert.equal(cliLang(undefined, { LC_ALL: 'en_US.UTF-8', LANG: 'zh_CN.UTF-8' }), 'en');
    assert.equal(cliLang(undefined, { LC_ALL: '', LC_MESSAGES: 'zh_CN.UTF-8', LANG: 'en_US.UTF-8' }), 'zh-cn');
    assert.equal(cliLang(undefined, { LC_ALL: '', LC_MESSAGES: '', LANG: 'zh_CN.GB18030' }), 'zh-cn');
    assert.equal(langInArgv(['--card', '3090', '--lang', 'zh-cn', '--help']), 'zh-cn');
    assert.equal(langInArgv(['--lang=en', '--help']), 'en');
    assert.equal(langInArgv(['--help', '--', '--lang', 'zh-cn']), undefined);
  });
});

describe('cli: gpu-rent quote in Chinese', function () {
  this.timeout(60000);
  const zhEnv = locale({ LANG: 'zh_CN.UTF-8' });
  const cEnv = locale({ LANG: 'C.UTF-8' });

  it('under LANG=zh_CN.UTF-8 the summary, table headers and notes are Chinese; money stays ¥ with its date', () => {
    const out = quote([], zhEnv);
    assert.match(out, /^任务：一张 RTX 3090 上 15 小时，/);
    assert.match(out, /需要 22 GB 显存。\n价格：未注明日期，实测报告测试当周。/);
    const table = tableLines(out, '平台');
    assert.match(table[0]!, /^ +平台 +显卡 +计费 +时长 +GPU +数据盘 +停机 +下载 +合计 +价格（日期）$/);
    assert.doesNotMatch(out, /Platform|Billing|Warnings|Job:|Not quoted/);
    // The cheapest row: AutoDL's 4090 by the hour, ¥30.00, its price with its (absent) date.
    assert.ok(table.some((l) => /^\* +AutoDL +RTX 4090 +按小时 +5 小时 +¥18\.00 +¥12\.00 .* ¥30\.00 +¥3\.60\/小时（未注明日期，实测报告测试当周）$/.test(l)), table.join('\n'));
    assert.match(out, /\* 完成任务最便宜：AutoDL RTX 4090 按小时，¥30\.00。/);
    // Row notes in Chinese: the same words as core/quote-notes gives the calculator.
    assert.match(out, /\n注意事项：\n/);
    assert.ok(out.includes(`  阿里云 ECS GPU：${QUOTE_NOTE_TEXT.storageBundledUnpriced.zh}\n`), out);
    assert.ok(out.includes(`  阿里云 ECS GPU：${QUOTE_NOTE_TEXT.bandwidthBundledUnpriced.zh}\n`), out);
    // The catalog's warnings in their Chinese words.
    assert.match(out, /  AutoDL：数据盘按 GB\/天计费（停机也算）.*（报告 §2）\n/);
    assert.match(out, /未报价：.*阿里云 ECS GPU T4：显存 16 GB < 需要的 22 GB；/);
  });

  it('the Chinese table is aligned by display width (CJK counts two columns)', () => {
    const table = tableLines(quote(['--spot', '--platform', 'autodl'], zhEnv), '平台');
    // Every column but the last is padded: the last column starts at the same display column on every line.
    const lastStart = (l: string) => displayWidth(l.slice(0, l.lastIndexOf('  ') + 2));
    const starts = new Set(table.map(lastStart));
    assert.equal(starts.size, 1, table.join('\n'));
    assert.match(table[0]!, /返工/);
  });

  it('under LANG=C.UTF-8 it is English; --lang en overrides a Chinese LANG, --lang zh-cn an English one', () => {
    const en = quote([], cEnv);
    assert.match(en, /^Job: 15 h on one RTX 3090/);
    assert.match(tableLines(en, 'Platform')[0]!, /Platform +Card +Billing +Hours +GPU +Disk +Idle +Download +Total +Price \(dated\)$/);
    assert.match(en, /\nWarnings:\n/);
    assert.ok(en.includes(`  阿里云 ECS GPU: ${QUOTE_NOTE_TEXT.storageBundledUnpriced.en}\n`));
    assert.doesNotMatch(en, /任务|注意事项|按小时/);
    assert.equal(quote(['--lang', 'en'], zhEnv), en);
    assert.equal(quote(['--lang', 'zh-cn'], cEnv), quote([], zhEnv));
    // LC_ALL decides over LANG.
    assert.equal(quote([], locale({ LC_ALL: 'C.UTF-8', LANG: 'zh_CN.UTF-8' })), en);
  });

  it('--json is the same document in every language', () => {
    for (const args of [[], ['--card', 'T4', '--spot', '--download-gb', '20', '--idle-hours', '3'], ['--card', '910B']]) {
      const base = quote([...args, '--json'], cEnv);
      assert.equal(quote([...args, '--json'], zhEnv), base, args.join(' '));
      assert.equal(quote([...args, '--json', '--lang', 'zh-cn'], cEnv), base, args.join(' '));
      assert.equal(quote([...args, '--json', '--lang', 'en'], zhEnv), base, args.join(' '));
      const doc = JSON.parse(base) as { rows: { notes: string[]; billing: string }[] };
      assert.ok(doc.rows.every((r) => ['hour', 'spot', 'day', 'week', 'month'].includes(r.billing)));
    }
  });

  it('an Ascend card with no price says why in Chinese, from the shared noCuda note', () => {
    const out = quote(['--card', '910B'], zhEnv);
    assert.ok(out.includes(`Ascend 910B 64GB：${QUOTE_NOTE_TEXT.noCuda.zh}。\n`), out);
    assert.match(out, /价格表中没有平台给出这一选择的价格（实测报告没有 Ascend 910B 64GB 的价格）；可用 --catalog FILE 添加。/);
  });

  it('a card short of VRAM carries the shared vramShort words, with the flag that changes it', () => {
    const zh = quote(['--card', 'T4', '--platform', 'aliyun'], zhEnv);
    assert.ok(zh.includes(`T4：${QUOTE_NOTE_TEXT.vramShort.zh}（--vram-gb）\n`), zh);
    const en = quote(['--card', 'T4', '--platform', 'aliyun'], cEnv);
    assert.ok(en.includes(`T4: ${QUOTE_NOTE_TEXT.vramShort.en} (--vram-gb)\n`), en);
  });

  it('--help is Chinese under a Chinese locale or --lang zh-cn, English otherwise', () => {
    const zh = runCli(['quote', '--help'], { env: zhEnv });
    assert.equal(zh.code, 0);
    assert.match(zh.stdout, /^用法：gpu-rent quote /);
    assert.match(zh.stdout, /\n选项：\n/);
    assert.match(zh.stdout, /--gpu-hours H +任务在一张卡上的小时数（默认 15/);
    assert.match(zh.stdout, /--help +显示此帮助\n$/);
    assert.equal(runCli(['quote', '--lang', 'zh-cn', '--help'], { env: cEnv }).stdout, zh.stdout);
    const en = runCli(['quote', '--help'], { env: cEnv });
    assert.match(en.stdout, /^Usage: gpu-rent quote /);
    assert.match(en.stdout, /--gpu-hours H +hours the job takes on one card \(default 15/);
    assert.equal(runCli(['quote', '--help', '--lang', 'en'], { env: zhEnv }).stdout, en.stdout);
  });

  it("reuses the extension's Chinese where its bundle has the same English", () => {
    // "{0} h" is in the extension's bundle: the CLI's hours are its words, not a second translation.
    assert.equal(BUNDLE['{0} h'], '{0} 小时');
    assert.equal(shared('{0} h', 'X'), BUNDLE['{0} h']);
    assert.equal(shared('no such English string in the bundle', 'Y'), 'Y');
    // The prototype is not a bundle entry.
    assert.equal(shared('constructor', 'Z'), 'Z');
  });
});

describe('quote row notes: one set of codes and words for the CLI and the calculator', () => {
  it('the calculator shows core/quote-notes words in both languages', () => {
    for (const code of Object.keys(QUOTE_NOTE_TEXT) as (keyof typeof QUOTE_NOTE_TEXT)[]) {
      assert.equal(strings('en').notes[code], QUOTE_NOTE_TEXT[code].en, code);
      assert.equal(strings('zh-cn').notes[code], QUOTE_NOTE_TEXT[code].zh, code);
      assert.match(QUOTE_NOTE_TEXT[code].zh, /[\u4e00-\u9fff]/, `${code} has no Chinese`);
    }
    // A catalog warning code is not a row note (its words are the catalog's).
    assert.equal(quoteNoteText('dataDiskAddsUp', 'en'), undefined);
    assert.equal(quoteNoteText('__proto__', 'en'), undefined);
  });

  it('the calculator passes the VRAM the job needs, so a 16 GB card is noted short as in the CLI', () => {
    assert.equal(DEFAULT_INPUTS.vramGb, DEFAULT_JOB.vramGb);
    assert.equal(DEFAULT_INPUTS.gpuHours, DEFAULT_JOB.gpuHours);
    assert.equal(DEFAULT_INPUTS.storageGb, DEFAULT_JOB.storageGb);
    const cat = builtinCatalog();
    const t4 = quoteCatalog(cat, jobInputFor({ ...DEFAULT_INPUTS, card: 't4' })).rows;
    assert.ok(t4.length > 0);
    assert.ok(t4.every((r) => r.notes.includes('vramShort')), 'a 16 GB T4 for a 22 GB job is not noted');
    const fits = quoteCatalog(cat, jobInputFor({ ...DEFAULT_INPUTS, card: 't4', vramGb: 16 })).rows;
    assert.ok(fits.every((r) => !r.notes.includes('vramShort')));
    // The same inputs through the CLI: the same note code on the same rows.
    const cli = JSON.parse(runCli(['quote', '--card', 'T4', '--gpu-hours', '15', '--days', '1', '--json'], { env: locale({ LANG: 'C.UTF-8' }) }).stdout) as { rows: { platform: string; billing: string; notes: string[] }[] };
    assert.deepEqual(
      cli.rows.map((r) => [r.platform, r.billing, r.notes.includes('vramShort')]).sort(),
      t4.map((r) => [r.platform, r.mode, r.notes.includes('vramShort')]).sort(),
    );
  });

  it('a calculator state saved before vramGb existed is restored, and quoted with the default job\'s VRAM', () => {
    const { vramGb: _, ...old } = { ...DEFAULT_INPUTS, card: 'rtx4090', gpus: 2 };
    const restored = restoreState({ version: 1, inputs: old }).inputs;
    assert.equal(restored.card, 'rtx4090');
    assert.equal(restored.gpus, 2);
    assert.equal(jobInputFor(restored).vramNeededGb, DEFAULT_JOB.vramGb);
  });
});

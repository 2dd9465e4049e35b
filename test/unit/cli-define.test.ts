// The CLI command skeleton (src/cli/define.ts) and its one failure printer (src/cli/failure.ts):
// a result printed as text or JSON, a CliFailure as stderr words and, under --json, the
// {"error": {code, message, …}} document, with the same exit code in both formats.
import { strict as assert } from 'node:assert';
import { UsageError } from '../../src/cli/args';
import type { CliIO } from '../../src/cli/command';
import { defineCommand } from '../../src/cli/define';
import { CliFailure, printFailure } from '../../src/cli/failure';
import { LANG_FLAG_SPEC } from '../../src/cli/lang';

function capture(env: NodeJS.ProcessEnv = {}): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    readStdin: async () => '',
    env: { LANG: 'C.UTF-8', ...env },
    isTTY: false,
  };
  return io;
}

const count = defineCommand({
  name: 'count',
  summary: 'count things',
  summaryZh: '数东西',
  usage: 'gpu-rent count [N] [--json]',
  about: 'Counts.',
  aboutZh: '计数。',
  flags: {
    json: { type: 'boolean', description: 'print JSON', zh: '以 JSON 输出' },
    lang: LANG_FLAG_SPEC,
  },
  positionals: { max: 1, names: 'N' },
  run: async (_flags, ctx) => {
    const n = Number(ctx.positionals[0] ?? '1');
    if (n === 0) throw new CliFailure('nothing', 'nothing to count', { zh: '没有可数的', extra: { seen: 0 } });
    if (n > 5) ctx.warn('many');
    return { n };
  },
  text: (r, lang) => (lang === 'zh-cn' ? `${r.n} 个\n` : `${r.n} thing(s)\n`),
  json: (r) => ({ n: r.n }),
  exit: (r) => (r.n > 5 ? 1 : 0),
});

async function runAndPrint(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const io = capture(env);
  const json = argv.includes('--json');
  let code: number;
  try {
    code = await count.run(argv, io);
  } catch (e) {
    code = printFailure(io, 'count', env.LANG?.startsWith('zh') ? 'zh-cn' : 'en', json, e);
  }
  return { code, out: io.out, err: io.err };
}

describe('defineCommand and the one failure printer', () => {
  it('prints the result as text or JSON; exit from the result, the same in both formats', async () => {
    assert.deepEqual(await runAndPrint(['3']), { code: 0, out: '3 thing(s)\n', err: '' });
    assert.deepEqual(await runAndPrint(['3', '--json']), { code: 0, out: '{\n  "n": 3\n}\n', err: '' });
    assert.deepEqual(await runAndPrint(['7']), { code: 1, out: '7 thing(s)\n', err: 'gpu-rent count: many\n' });
    assert.equal((await runAndPrint(['7', '--json'])).code, 1);
    assert.deepEqual(await runAndPrint(['3', '--lang', 'zh-cn']), { code: 0, out: '3 个\n', err: '' });
  });

  it('a CliFailure: its words on stderr in the output language, the error document under --json (English, extra fields), its exit code', async () => {
    assert.deepEqual(await runAndPrint(['0']), { code: 1, out: '', err: 'gpu-rent count: nothing to count\n' });
    assert.deepEqual(await runAndPrint(['0', '--json']), { code: 1, out: '{\n  "error": {\n    "seen": 0,\n    "code": "nothing",\n    "message": "nothing to count"\n  }\n}\n', err: 'gpu-rent count: nothing to count\n' });
    const zh = await runAndPrint(['0', '--json'], { LANG: 'zh_CN.UTF-8' });
    assert.equal(zh.err, 'gpu-rent count: 没有可数的\n');
    assert.equal(JSON.parse(zh.out).error.message, 'nothing to count');
    assert.equal(new CliFailure('x', 'y', { exit: 0 }).exit, 1, 'a failure never exits 0');
    assert.equal(new CliFailure('x', 'y', { exit: 3 }).exit, 3);
  });

  it('a bad flag or too many positionals: UsageError, exit 2 in both formats, {"error": {"code": "usage"}} under --json', async () => {
    await assert.rejects(count.run(['--nope'], capture()), UsageError);
    const text = await runAndPrint(['1', '2']);
    const json = await runAndPrint(['1', '2', '--json']);
    assert.equal(text.code, 2);
    assert.equal(json.code, 2);
    assert.equal(text.out, '');
    assert.deepEqual(Object.keys(JSON.parse(json.out).error).sort(), ['code', 'message']);
    assert.equal(JSON.parse(json.out).error.code, 'usage');
    assert.match(json.err, /^gpu-rent count: unexpected argument "2" \(expects N\)\n$/);
  });

  it('help from usage, about and the declared flags, in either language', () => {
    assert.match(count.help(), /^Usage: gpu-rent count \[N\] \[--json\]\n\nCounts\.\n\nOptions:\n {2}--json/);
    assert.match(count.help({ env: {}, argv: ['--lang', 'zh-cn'] }), /^用法：gpu-rent count \[N\] \[--json\]\n\n计数。/);
    assert.ok(count.flags && 'json' in count.flags);
  });
});

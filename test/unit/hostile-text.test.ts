// Box text is data: the one set of renderers (core/text.ts), nvidia-smi outputs that were cut
// or lost a GPU (real captured outputs), the exec output cap, and an imported key path with a
// newline. Each of these failed before issue 13's security half.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderHostBlock, SshConfigValueError, writeHostBlock } from '../../src/app/sshConfig';
import { createInstance, exportInstances, parseImport, type Instance } from '../../src/core/instances';
import { parseNvidiaSmi } from '../../src/core/smi';
import { forHtml, forMarkdown, forTerminal, forTerminalLines, hasControl, jsonForTerminal } from '../../src/core/text';
import { hostBlockOf } from '../../src/extension/sshConfigEntry';
import { CappedStream, ExecOutput } from '../../src/remote/exec-channel';
import { checkComponent } from '../../src/remote/sync/names';
import { fixturesDir } from '../support/fixtures';
import { bestCpuMs } from '../support/timing';

const RAW = /[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]/;
const EVIL = ['\x1b]52;c;cm0gLXJmIH4K\x07', '\x1b[2J', '\u009b31m', '\u009d0;title\u009c', '\u202e', '\x07', '\x00', '\x7f', '\r'];
const real = (name: string) => readFileSync(join(fixturesDir(), '..', 'nvidia-smi-real', name), 'utf8');

describe('box text for a terminal, Markdown and HTML (core/text.ts)', () => {
  it('forTerminal leaves no control character raw and keeps printable text (CJK, emoji) as is', () => {
    for (const e of EVIL) {
      const shown = forTerminal(`GPU ${e} 名字 🚀`);
      assert.ok(!RAW.test(shown) && !shown.includes('\n'), JSON.stringify(shown));
      assert.match(shown, /^GPU .* 名字 🚀$/);
    }
    assert.equal(forTerminal('a\x1b[2Jb'), 'a\\x1b[2Jb');
    assert.equal(forTerminal('\u009b31m'), '\\x9b31m');
    assert.equal(forTerminal('x\ny\tz'), 'x\\ny\\tz');
    assert.equal(forTerminalLines('x\ny\tz\x1b'), 'x\ny\tz\\x1b');
    assert.equal(forTerminal('a\rb', { keep: '\r' }), 'a\rb');
    assert.equal(hasControl('plain 名字'), false);
    assert.equal(hasControl('a\u009bb'), true);
  });

  it('works chunk by chunk: an escape split across chunks is still inert', () => {
    const whole = '\x1b]52;c;Zm9v\x07';
    const parts = [whole.slice(0, 1), whole.slice(1, 4), whole.slice(4)].map((p) => forTerminal(p)).join('');
    assert.equal(parts, forTerminal(whole));
    assert.ok(!RAW.test(parts));
  });

  it('jsonForTerminal: the same JSON value, C1 and bidi written as \\uXXXX (JSON.stringify leaves them raw)', () => {
    const v = { name: `A100\u009b31m\u202e`, env: '\x1b[2J' };
    assert.ok(RAW.test(JSON.stringify(v)), 'JSON.stringify leaves U+009B raw');
    const text = jsonForTerminal(v, 2);
    assert.ok(!RAW.test(text));
    assert.deepEqual(JSON.parse(text), v);
  });

  it('forMarkdown: no markup, link, HTML or new block survives; forHtml escapes tags and quotes', () => {
    const md = forMarkdown('**bold** [x](command:gpuRent.release) <img src=x onerror=alert(1)> `code`\n# heading\n- item');
    assert.doesNotMatch(md, /(?<!\\)[*[\]`<>#]/);
    assert.doesNotMatch(md, /\n/);
    assert.match(md, /\\\*\\\*bold\\\*\\\*/);
    assert.match(md, /&lt;img/);
    assert.ok(!RAW.test(forMarkdown('a\x1b[2J\u009bb')));
    assert.equal(forHtml(`<script>alert("x")</script>'`), '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;');
  });

  it('sync names: U+009B is refused as a control character (it reached the terminal before)', () => {
    assert.equal(checkComponent('ckpt\u009b31m.pt', { platform: 'linux' }), 'control-char');
  });
});

describe('nvidia-smi outputs that are incomplete but still say something (real captures)', () => {
  const h100 = real('h100_x8_driver535.183.01_smi.txt');

  it('a table whose Processes box was cut off still yields its GPUs, with the cut reported', () => {
    const lines = h100.split('\n');
    const at = lines.findIndex((l) => /Processes:/.test(l));
    for (const cut of [lines.slice(0, at + 1), lines.slice(0, at + 4), [...lines.slice(0, at + 4), lines[at + 4]!.slice(0, 20)]]) {
      const r = parseNvidiaSmi(cut.join('\n'));
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.report.gpus.length, 8);
      assert.equal(r.report.partial?.processesCut, true);
    }
    const whole = parseNvidiaSmi(h100);
    assert.ok(whole.ok && whole.report.partial === undefined);
  });

  it('a table after "Unable to determine the device handle for GPU1: …: Unknown Error" yields the GPUs that answered and names the lost one', () => {
    // The real table with its second GPU's block removed, as nvidia-smi prints it when GPU1 is lost.
    const lines = h100.split('\n');
    const first = lines.findIndex((l) => /^\|\s+1\s+NVIDIA/.test(l));
    const table = [...lines.slice(0, first), ...lines.slice(first + 4)].join('\n');
    const r = parseNvidiaSmi(`Unable to determine the device handle for GPU1: 0000:1B:00.0: Unknown Error\n${table}`);
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.report.gpus.length, 7);
    assert.deepEqual(r.report.partial?.lostGpus, [{ gpu: 'GPU1: 0000:1B:00.0', reason: 'Unknown Error' }]);
    // With no table after it, it is the gpu-lost failure as before.
    const alone = parseNvidiaSmi(real('err_gpu-lost_server.txt'));
    assert.ok(!alone.ok && alone.error.kind === 'gpu-lost');
  });

  it('takes bounded input: more than 16 MiB is refused at once, 4 MiB of junk is read in well under a second', () => {
    const huge = parseNvidiaSmi('x'.repeat(16 * 1024 * 1024 + 1));
    assert.ok(!huge.ok && /more than 16 MiB/.test(huge.error.message));
    const junkText = ('x'.repeat(79) + '\r').repeat(52_429);
    const junk = parseNvidiaSmi(junkText);
    assert.ok(!junk.ok);
    const ms = bestCpuMs(() => parseNvidiaSmi(junkText), 1);
    assert.ok(ms < 1000, `${ms.toFixed(0)} ms CPU`);
  });

  it('a --query-compute-apps answer with only its header means no processes, not a failure', () => {
    for (const text of ['pid, process_name, used_gpu_memory [MiB]\n', 'gpu_uuid, pid, process_name, used_memory [MiB]']) {
      const r = parseNvidiaSmi(text);
      assert.ok(r.ok, JSON.stringify(r));
      assert.deepEqual(r.report.processes, []);
    }
    const gpuHeader = parseNvidiaSmi('index, name, memory.total [MiB]\n');
    assert.ok(!gpuHeader.ok && gpuHeader.error.kind === 'truncated', 'a GPU query with no rows is still cut off');
  });
});

describe('exec output under a cap (exec-channel.ts)', () => {
  it('keeps cap bytes, counts the rest, and says when to stop the command', () => {
    const s = new CappedStream(10);
    s.push(Buffer.from('0123456'));
    s.push(Buffer.from('789abc'));
    s.push(Buffer.from('def'));
    assert.equal(s.text(), '0123456789');
    assert.equal(s.dropped, 6);
    const out = new ExecOutput(1024);
    const chunk = Buffer.alloc(64 * 1024);
    let pushed = 0;
    while (!out.overLimit()) {
      out.stdout.push(chunk);
      pushed += chunk.length;
      assert.ok(pushed < 64 * 1024 * 1024, 'never stops');
    }
    const r = out.result();
    assert.equal(r.stdout.length, 1024);
    assert.equal(r.truncated.stdout, pushed - 1024);
    assert.ok(pushed <= 17 * 1024 * 1024, `${pushed} bytes read before stopping`);
  });
});

describe('an imported instance with a newline in login.keyPath', () => {
  const evilPath = '/root/.ssh/id\nHost *\n  ProxyCommand touch /tmp/pwned';
  const inst: Instance = createInstance(
    {
      id: 'i0000abcd',
      name: 'box',
      platform: 'autodl',
      card: 'RTX 4090 24GB',
      gpuCount: 1,
      login: { host: 'h.example.com', port: 2222, user: 'root', auth: 'key', keyPath: '/root/.ssh/id' },
      pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 24 },
    },
    'running',
    1_795_000_000,
  );

  it('is refused by the import, naming login.keyPath', () => {
    const doc = JSON.parse(exportInstances([inst])) as { instances: Array<{ login: { keyPath: string } }> };
    doc.instances[0]!.login.keyPath = evilPath;
    const r = parseImport(JSON.stringify(doc));
    assert.ok(!r.ok);
    assert.match(JSON.stringify(r.problem), /keyPath|control character/);
    doc.instances[0]!.login.keyPath = '/root/.ssh/id\u009b';
    assert.equal(parseImport(JSON.stringify(doc)).ok, false);
  });

  it('and one stored before the check: Open in Remote-SSH refuses with a clear error, ~/.ssh/config untouched', async () => {
    const home = mkdtempSync(join(tmpdir(), 'keypath-'));
    try {
      mkdirSync(join(home, '.ssh'));
      const cfg = join(home, '.ssh', 'config');
      const before = 'Host work\n  HostName w.example.com\n';
      writeFileSync(cfg, before);
      const block = hostBlockOf({ ...inst, login: { ...inst.login, keyPath: evilPath } });
      assert.throws(() => renderHostBlock(block), SshConfigValueError);
      await assert.rejects(writeHostBlock(block, { env: { HOME: home } }), (e: unknown) => e instanceof SshConfigValueError && /IdentityFile \(key path\) contains a newline/.test(e.message));
      assert.equal(readFileSync(cfg, 'utf8'), before);
      assert.deepEqual(readdirSync(join(home, '.ssh')), ['config']);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

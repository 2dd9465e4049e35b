// `gpu-rent env rebuild`'s problem lines in the user's language (issue 23.5/23.6): each kind a
// rebuild refuses or asks about has its words in app/remoteWords (the extension passes
// vscode.l10n, the CLI l10nIn(lang)); the English is what describeRebuildProblem always said
// (the literals below are the oracle), the Chinese the bundle's. The line itself stays data.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RebuildProblem } from '../../src/core/guards/environment';
import { describeRebuildProblem } from '../../src/remote/guards/environment';
import { rebuildProblemText, type L10n } from '../../src/app/remoteWords';
import { checkRebuild, writeCapture, type EnvCapture } from '../../src/app/environment';
import { l10nIn } from '../../src/cli/words';
import { runCli } from '../support/cli';

const zh: Record<string, string> = JSON.parse(readFileSync('l10n/bundle.l10n.zh-cn.json', 'utf8'));
const fill = (m: string, a: unknown[]) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)]));
const en: L10n = { t: (m, ...a) => fill(m, a) };
const inZh: L10n = {
  t: (m, ...a) => {
    assert.ok(zh[m], `no zh entry for: ${m}`);
    return fill(zh[m]!, a);
  },
};

// One of each kind, typed by kind: a new kind without a case here does not compile.
const PROBLEMS: { [K in RebuildProblem['kind']]: [Extract<RebuildProblem, { kind: K }>, english: string, chinese: string] } = {
  badEnvName: [{ kind: 'badEnvName', value: '../x' }, '"../x" is not a usable env name', '“../x”不能用作环境名'],
  badValue: [{ kind: 'badValue', field: 'pythonVersion', value: 'three' }, 'the captured pythonVersion "three" is not a version', '记录中的 pythonVersion“three”不是版本号'],
  pipOption: [{ kind: 'pipOption', file: 'requirements.txt', line: 3, text: '-r /etc/passwd' }, 'requirements.txt line 3 is a pip option (-r /etc/passwd)', 'requirements.txt 第 3 行是 pip 选项（-r /etc/passwd）'],
  credentialUrl: [
    { kind: 'credentialUrl', file: 'requirements.txt', line: 2, text: 'pkg @ https://***@git.example/pkg.git' },
    'requirements.txt line 2 has a URL with a password or token (pkg @ https://***@git.example/pkg.git)',
    'requirements.txt 第 2 行有带密码或令牌的 URL（pkg @ https://***@git.example/pkg.git）',
  ],
  notARequirement: [{ kind: 'notARequirement', file: 'requirements.txt', line: 5, text: 'numpy; ${HOME}' }, 'requirements.txt line 5 is not a plain requirement (numpy; ${HOME})', 'requirements.txt 第 5 行不是普通的依赖（numpy; ${HOME}）'],
  tooLarge: [{ kind: 'tooLarge', file: 'environment.yml', line: 0, text: '1048577 characters' }, 'environment.yml is too large (1048577 characters)', 'environment.yml 太大（1048577 个字符）'],
  channel: [{ kind: 'channel', file: 'environment.yml', line: 3, text: 'https://evil.example.invalid/conda' }, 'environment.yml line 3 uses a conda channel that is not a well-known one (https://evil.example.invalid/conda)', 'environment.yml 第 3 行用了不常见的 conda 频道（https://evil.example.invalid/conda）'],
  envVariable: [{ kind: 'envVariable', file: 'environment.yml', line: 9, text: 'LD_PRELOAD=/tmp/x.so' }, 'environment.yml line 9 sets an environment variable in the new env (LD_PRELOAD=/tmp/x.so)', 'environment.yml 第 9 行在新环境里设置环境变量（LD_PRELOAD=/tmp/x.so）'],
  unsupportedYaml: [
    { kind: 'unsupportedYaml', file: 'environment.yml', line: 1, text: 'an anchor (&d)' },
    'environment.yml line 1 cannot be checked: an anchor (&d); write it as plain YAML (as conda env export does)',
    'environment.yml 第 1 行无法检查：an anchor (&d)；请写成普通 YAML（和 conda env export 写出的一样）',
  ],
  wrongShape: [{ kind: 'wrongShape', file: 'environment.yml', line: 2, text: 'channels is not a list' }, 'environment.yml line 2 is not what conda env export writes: channels is not a list', 'environment.yml 第 2 行不是 conda env export 写出的样子：channels is not a list'],
  unknownKey: [{ kind: 'unknownKey', file: 'environment.yml', line: 7, text: 'extras' }, 'environment.yml line 7 has an unknown top-level key with a list or mapping (extras)', 'environment.yml 第 7 行有一个带列表或映射的未知顶层键（extras）'],
};

describe('env rebuild: each problem line in the user’s language (app/remoteWords.rebuildProblemText)', () => {
  it('each kind: the English describeRebuildProblem always gave, word for word, and its Chinese', () => {
    for (const [p, english, chinese] of Object.values(PROBLEMS) as [RebuildProblem, string, string][]) {
      assert.equal(describeRebuildProblem(p), english);
      assert.equal(rebuildProblemText(p, en), english);
      assert.equal(rebuildProblemText(p, l10nIn('en')), english);
      assert.equal(rebuildProblemText(p, inZh), chinese);
      assert.equal(rebuildProblemText(p, l10nIn('zh-cn')), chinese);
    }
  });

  it('the checks themselves give these kinds, and their lines read in Chinese', () => {
    const c: EnvCapture = { capturedAt: 1, source: 'a', pythonVersion: '3.10.13', condaEnv: 'x', torch: null, torchCuda: null, driverVersion: null, driverMaxCuda: null, gpus: [], requirements: 'numpy==1.26.4\n--extra-index-url http://evil.example.invalid/simple\n', environmentYml: null };
    const r = checkRebuild(c, { envName: 'moved' });
    assert.deepEqual(r.problems.map((p) => rebuildProblemText(p, inZh)), ['requirements.txt 第 2 行是 pip 选项（--extra-index-url http://evil.example.invalid/simple）']);
    assert.deepEqual(r.problems.map(describeRebuildProblem), ['requirements.txt line 2 is a pip option (--extra-index-url http://evil.example.invalid/simple)']);
  });

  it('the CLI under LANG=zh_CN.UTF-8 refuses the capture in Chinese before connecting; in English as before', async function () {
    this.timeout(30000);
    const dir = mkdtempSync(join(tmpdir(), 'gpr-env-words-'));
    try {
      const c: EnvCapture = { capturedAt: 1, source: 'a', pythonVersion: '3.10.13', condaEnv: 'x', torch: null, torchCuda: null, driverVersion: null, driverMaxCuda: null, gpus: [], requirements: 'numpy==1.26.4\n-r /etc/passwd\n', environmentYml: null };
      await writeCapture(dir, c);
      // Port 1: nothing listens there; the refusal comes first.
      const args = ['env', 'rebuild', 'ssh://u@127.0.0.1:1', '--from', dir, '--name', 'moved'];
      const zhRun = runCli(args, { env: { GPU_RENT_HOME: join(dir, '.home'), LANG: 'zh_CN.UTF-8' } });
      assert.equal(zhRun.code, 2, zhRun.stderr);
      assert.ok(zhRun.stderr.includes(`--from ${dir}：未重建：\n  requirements.txt 第 2 行是 pip 选项（-r /etc/passwd）\n`), zhRun.stderr);
      assert.ok(!zhRun.stderr.includes('is a pip option'), zhRun.stderr);
      const enRun = runCli(args, { env: { GPU_RENT_HOME: join(dir, '.home') } });
      assert.equal(enRun.code, 2, enRun.stderr);
      assert.ok(enRun.stderr.includes(`--from ${dir}: not rebuilt:\n  requirements.txt line 2 is a pip option (-r /etc/passwd)\n`), enRun.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

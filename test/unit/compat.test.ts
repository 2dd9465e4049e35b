// The compatibility data in src/core/compat is transcribed by hand (core reads no files);
// these tests read test/fixtures/shared/compat/*.md and check the transcription against it.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CUDA_TOOLKIT_DRIVERS, MINOR_VERSION_COMPAT, cudaFitsDriver, cudaFromDriverCode, driverMaxCudaFor, minDriverFor } from '../../src/core/compat/cuda-driver';
import { computeCapabilityForName, isNotNvidia } from '../../src/core/compat/gpu-arch';
import { TORCH_RELEASES, archSupports, findRelease, pipCommand, wheelArchs } from '../../src/core/compat/torch-wheels';
import { compareVersions, cudaFromTag, parseTorchVersion } from '../../src/core/compat/version';
import { COMPAT_DIR } from '../support/fixtures';

const COMPAT = COMPAT_DIR;
const md = (f: string): string => readFileSync(join(COMPAT, f), 'utf8');

function tableRows(text: string, headerStart: string): string[][] {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.startsWith(headerStart));
  assert.ok(i !== -1, `table "${headerStart}" not found`);
  const rows: string[][] = [];
  for (const l of lines.slice(i + 2)) {
    if (!l.startsWith('|')) break;
    rows.push(l.split('|').slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

describe('CUDA → driver table (cuda-driver-table.md §2, Table 3)', () => {
  const rows = tableRows(md('cuda-driver-table.md'), '| CUDA Toolkit | Linux x86_64 |');
  const byMinor = new Map<string, { linux: string[]; windows: string[] }>();
  for (const [label, linux, windows] of rows) {
    const m = /CUDA (\d+\.\d+)/.exec(label!);
    if (!m) continue;
    const e = byMinor.get(m[1]!) ?? { linux: [], windows: [] };
    const ver = (s: string): string | null => /(\d{3}\.\d+(?:\.\d+)?)/.exec(s)?.[1] ?? null;
    if (ver(linux!)) e.linux.push(ver(linux!)!);
    if (ver(windows!)) e.windows.push(ver(windows!)!);
    byMinor.set(m[1]!, e);
  }

  it('has a row for every CUDA minor release in the table, and no other', () => {
    assert.deepEqual([...CUDA_TOOLKIT_DRIVERS.map((r) => r.cuda)].sort(compareVersions), [...byMinor.keys()].sort(compareVersions));
  });

  for (const row of CUDA_TOOLKIT_DRIVERS) {
    it(`CUDA ${row.cuda}: the lowest driver of its releases`, () => {
      const e = byMinor.get(row.cuda)!;
      assert.equal(row.linux, [...e.linux].sort(compareVersions)[0]);
      assert.equal(row.windows, e.windows.length ? [...e.windows].sort(compareVersions)[0] : null);
    });
  }

  it('minor-version compatibility minimums (§1): 11.x ≥ 450.80.02, 12.x ≥ 525.60.13, 13.x ≥ 580', () => {
    assert.equal(MINOR_VERSION_COMPAT[11]!.linux, '450.80.02');
    assert.equal(MINOR_VERSION_COMPAT[12]!.linux, '525.60.13');
    assert.ok(compareVersions(MINOR_VERSION_COMPAT[13]!.linux, '580') >= 0 && compareVersions(MINOR_VERSION_COMPAT[13]!.linux, '581') < 0);
    assert.equal(MINOR_VERSION_COMPAT[11]!.windows, '452.39');
    const text = md('cuda-driver-table.md');
    for (const v of ['450.80.02', '525.60.13', '452.39', '528.33']) assert.ok(text.includes(v), v);
  });

  it('reproduces §3: the CUDA version nvidia-smi prints for each driver seen', () => {
    const rows3 = tableRows(md('cuda-driver-table.md'), '| driver seen |');
    let checked = 0;
    for (const [drivers, printed] of rows3) {
      const cuda = /^(\d+\.\d+)/.exec(printed!)?.[1];
      if (!cuda) continue; // 390.157: field absent
      const platform = /\(Win/.test(drivers!) ? 'windows' : 'linux';
      for (const part of drivers!.split('/')) {
        const m = /(\d{3}\.\d+(?:\.\d+)?)/.exec(part);
        if (!m) continue;
        assert.equal(driverMaxCudaFor(m[1]!, platform), cuda, `${m[1]} (${platform}) → ${cuda}`);
        checked++;
      }
    }
    assert.ok(checked >= 25, `checked ${checked}`);
  });

  it('minimum driver for a wheel: family minimum from CUDA 11, exact before', () => {
    assert.equal(minDriverFor('12.1'), '525.60.13');
    assert.equal(minDriverFor('11.8'), '450.80.02');
    assert.equal(minDriverFor('13.0'), '580.65.06');
    assert.equal(minDriverFor('10.2'), '440.33');
    assert.equal(minDriverFor('10.1'), '418.39');
    assert.equal(minDriverFor('9.2'), '396.26');
  });

  it('fits: by driver number, else by the CUDA version the driver prints', () => {
    assert.deepEqual(cudaFitsDriver('11.3', { version: '460.32.03' }), { fits: true, via: 'minor-version-compat' });
    assert.deepEqual(cudaFitsDriver('12.1', { version: '470.182.03' }), { fits: false, needDriver: '525.60.13' });
    assert.deepEqual(cudaFitsDriver('11.8', { version: '450.51.06' }), { fits: false, needDriver: '450.80.02' });
    assert.deepEqual(cudaFitsDriver('12.8', { maxCuda: '12.2' }), { fits: true, via: 'minor-version-compat' });
    assert.deepEqual(cudaFitsDriver('11.8', { maxCuda: '11.0' }), { fits: false, needDriver: '450.80.02' });
    assert.deepEqual(cudaFitsDriver('10.2', { maxCuda: '10.1' }), { fits: false, needDriver: '440.33' });
    assert.deepEqual(cudaFitsDriver('11.8', { maxCuda: '12.4' }), { fits: true, via: 'same-or-newer' });
  });

  it("decodes PyTorch's 'found version NNNNN'", () => {
    assert.equal(cudaFromDriverCode(11040), '11.4');
    assert.equal(cudaFromDriverCode(12080), '12.8');
    assert.equal(cudaFromDriverCode(10010), '10.1');
    assert.equal(cudaFromDriverCode(9000), '9.0');
    assert.equal(cudaFromDriverCode(Number.NaN), null);
  });
});

describe('PyTorch wheel matrix (torch-cuda-matrix.md §B)', () => {
  const rows = tableRows(md('torch-cuda-matrix.md'), '| torch | CUDA wheel variants');
  // Deliberate differences from the table, each with its reason.
  const EXCEPTIONS: Record<string, Partial<{ torchvision: string }>> = {
    '1.7.0': { torchvision: '0.8.1' }, // the table's own note: "0.8.1 per COLAB #1676", the build Colab shipped (mismatch case 5)
    '2.13.0': { torchvision: '0.28.0' }, // the table says "0.28.x"; torchvision's first release of each line is .0
  };
  // Releases newer than §B, transcribed from §A (REL) instead.
  const FROM_SECTION_A = new Set(['2.14.0']);
  const seen = new Set<string>();
  for (const [torchCell, variants, vision, audio] of rows) {
    torchCell!.split('/').forEach((cell, k) => {
      const torch = cell.trim();
      const rel = findRelease(torch);
      if (!rel) return;
      seen.add(torch);
      it(`torch ${torch}`, () => {
        const stripped = variants!.replace(/\([^)]*\)/g, '').replace(/\*\*[^*]*removed\*\*/g, '');
        const tags = [...stripped.matchAll(/cu(\d+)/g)].map((m) => cudaFromTag(`cu${m[1]}`));
        assert.deepEqual([...rel.cuda], tags);
        const v = EXCEPTIONS[torch]?.torchvision ?? /(\d+\.\d+\.\d+)/.exec(vision!.split('/')[k] ?? vision!)?.[1];
        assert.equal(rel.torchvision, v);
        const a = /^(\d+\.\d+\.\d+)/.exec(audio!)?.[1] ?? null;
        assert.equal(rel.torchaudio, a);
      });
    });
  }
  it('transcribes every release from 1.2.0 up to 2.12.1 except the 1.8.2 LTS', () => {
    const want = rows.flatMap((r) => r[0]!.split('/').map((t) => t.trim())).filter((t) => /^\d+\.\d+\.\d+$/.test(t) && compareVersions(t, '1.2.0') >= 0 && compareVersions(t, '2.13.0') < 0 && t !== '1.8.2');
    assert.deepEqual(want.filter((t) => !seen.has(t)), []);
    assert.equal(TORCH_RELEASES.filter((r) => !FROM_SECTION_A.has(r.torch)).length, seen.size);
  });

  it('2.14.0 (not in §B yet) carries the stable CUDA builds §A lists for 2.14', () => {
    const a = tableRows(md('torch-cuda-matrix.md'), '| PyTorch | Python').find((r) => r[0]!.startsWith('2.14'));
    const stable = [...a![2]!.matchAll(/(\d+\.\d+)/g)].map((m) => m[1]);
    assert.deepEqual([...findRelease('2.14.0')!.cuda], stable);
  });

  it('the PyPI default CUDA where §C confirms it', () => {
    const cases: [string, string][] = [['2.12.0', '13.0'], ['2.11.0', '12.8'], ['2.7.0', '12.6'], ['2.1.0', '12.1'], ['2.0.1', '11.7'], ['1.13.1', '11.7'], ['1.12.0', '10.2'], ['1.5.0', '10.2'], ['1.4.0', '10.1'], ['1.3.0', '10.1'], ['1.2.0', '10.0']];
    for (const [t, c] of cases) {
      assert.equal(findRelease(t)!.pypiCuda, c, t);
      assert.equal(findRelease(t)!.pypiCudaVerified, true, t);
    }
    assert.equal(findRelease('2.6.0')!.pypiCudaVerified, false);
  });

  it('pip commands in the install page formats of each era', () => {
    assert.equal(pipCommand(findRelease('2.1.0')!, '11.8'), 'pip install torch==2.1.0 torchvision==0.16.0 torchaudio==2.1.0 --index-url https://download.pytorch.org/whl/cu118');
    assert.equal(pipCommand(findRelease('2.0.1')!, '11.7'), 'pip install torch==2.0.1 torchvision==0.15.2 torchaudio==2.0.2');
    assert.equal(pipCommand(findRelease('1.12.0')!, '11.6'), 'pip install torch==1.12.0+cu116 torchvision==0.13.0+cu116 torchaudio==0.12.0 --extra-index-url https://download.pytorch.org/whl/cu116');
    assert.equal(pipCommand(findRelease('1.7.0')!, '10.1'), 'pip install torch==1.7.0+cu101 torchvision==0.8.1+cu101 torchaudio==0.7.0 -f https://download.pytorch.org/whl/torch_stable.html');
  });

  it('GPU architectures per wheel (REL support matrix)', () => {
    assert.equal(archSupports(wheelArchs('2.7.0', '12.8'), '12.0'), true); // Blackwell from 2.7.0+cu128
    assert.equal(archSupports(wheelArchs('2.7.0', '11.8'), '12.0'), false);
    assert.equal(archSupports(wheelArchs('2.12.0', '13.0'), '6.0'), false); // no Pascal on cu130
    assert.equal(archSupports(wheelArchs('2.12.0', '12.6'), '6.0'), true);
    assert.equal(archSupports(wheelArchs('2.12.0', '13.0'), '7.0'), false); // no Volta on cu130
    assert.equal(archSupports(wheelArchs('1.12.0', '10.2'), '8.6'), false); // mismatch case 13
    assert.equal(archSupports(wheelArchs('1.12.0', '11.6'), '8.6'), true);
    assert.equal(archSupports(wheelArchs('2.0.1', '11.7'), '9.0'), false); // Hopper floor 2.0.1+cu118
    assert.equal(archSupports(wheelArchs('2.0.1', '11.8'), '9.0'), true);
    assert.equal(archSupports(['sm_80'], '8.6'), true); // SASS runs on a later minor of the same major
    assert.equal(archSupports(['sm_86'], '8.0'), false);
    assert.equal(archSupports(['sm_80', 'compute_80'], '9.0'), true); // PTX JIT
    assert.equal(archSupports(['sm_37', 'sm_50', 'sm_60', 'sm_70', 'sm_75'], '8.6'), false);
  });
});

describe('versions and names', () => {
  it('torch versions', () => {
    assert.deepEqual(parseTorchVersion('2.1.0+cu121'), { release: '2.1.0', local: 'cu121', prerelease: false });
    assert.deepEqual(parseTorchVersion('1.13.1'), { release: '1.13.1', local: null, prerelease: false });
    assert.deepEqual(parseTorchVersion('2.5.0.dev20240801+cu124'), { release: '2.5.0', local: 'cu124', prerelease: true });
    assert.equal(parseTorchVersion('torch'), null);
    assert.equal(cudaFromTag('cu92'), '9.2');
    assert.equal(cudaFromTag('cu100'), '10.0');
    assert.equal(cudaFromTag('cu130'), '13.0');
  });

  it('compute capability from the names nvidia-smi prints', () => {
    const cases: [string, string | null][] = [
      ['Tesla T4', '7.5'], ['NVIDIA A100-SXM4-40GB', '8.0'], ['NVIDIA GeForce RTX 4090', '8.9'], ['NVIDIA GeForce RTX 4090 D', '8.9'],
      ['NVIDIA H100 80GB HBM3', '9.0'], ['NVIDIA H800', '9.0'], ['NVIDIA H20', '9.0'], ['NVIDIA A800 80GB PCIe', '8.0'], ['NVIDIA L20', '8.9'],
      ['Tesla P100-PCIE-16GB', '6.0'], ['NVIDIA TITAN V', '7.0'], ['Tesla V100-SXM2-32GB', '7.0'], ['NVIDIA GeForce RTX 3090', '8.6'],
      ['NVIDIA A10', '8.6'], ['NVIDIA RTX A6000', '8.6'], ['Quadro RTX 6000', '7.5'], ['NVIDIA RTX 6000 Ada Generation', '8.9'],
      ['NVIDIA GeForce RTX 5090', '12.0'], ['NVIDIA B200', '10.0'], ['NVIDIA GeForce RTX 2080 SUPER', '7.5'], ['NVIDIA GeForce GTX 1660 Ti', '7.5'],
      ['Tesla K80', '3.7'], ['NVS 5400M', '2.1'], ['NVIDIA GeForce GT 1030', '6.1'], ['GRID P4-8Q', '6.1'], ['Quadro P400', '6.1'], ['NVIDIA RTX 4000 Ada Generation', '8.9'], ['NVIDIA A10G', '8.6'], ['NVIDIA GeForce RTX 3060 Laptop GPU', '8.6'], ['NVIDIA H200', '9.0'], ['NVIDIA RTX PRO 6000 Blackwell Server Edition', '12.0'], ['Graphics Device', null], ['NVIDIA GeForce GTX 1080 Ti', '6.1'], ['Tesla P40', '6.1'],
      // Names from the real outputs in test/fixtures/nvidia-smi-real: workstation "RTX N000" cards are not GeForce RTX 50xx,
      // and the table cuts names ("NVIDIA RTX 5000 Ada Gene...").
      ['NVIDIA RTX 5000 Ada Gene...', '8.9'], ['Quadro RTX 5000', '7.5'], ['Quadro RTX 4000', '7.5'], ['NVIDIA GeForce RTX 5070 Ti', '12.0'], ['NVIDIA GeForce RTX 5060 Ti', '12.0'],
      ['NVIDIA RTX PRO 6000 Blac...', '12.0'], ['Tesla K40m', '3.5'], ['Tesla K20Xm', '3.5'], ['GeForce 210', '1.2'], ['NVIDIA GeForce ...', null], ['Tesla P4', '6.1'], ['NVIDIA A30', '8.0'],
    ];
    for (const [name, cc] of cases) assert.equal(computeCapabilityForName(name), cc, name);
  });

  it('non-NVIDIA accelerators', () => {
    for (const n of ['Ascend 910B', '昇腾910B', 'Cambricon MLU370', 'AMD Instinct MI250X', 'Hygon DCU Z100']) assert.equal(isNotNvidia(n), true, n);
    for (const n of ['NVIDIA A100-SXM4-40GB', 'Tesla T4', 'NVIDIA GeForce RTX 3090']) assert.equal(isNotNvidia(n), false, n);
  });
});

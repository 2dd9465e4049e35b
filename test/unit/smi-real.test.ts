// Real nvidia-smi outputs from public material that the parsers were not written against
// (test/fixtures/nvidia-smi-real/, provenance in its SOURCES.json). Each case states what the
// output itself says — GPU count, names, driver, CUDA, memory, utilisation, processes — or
// which failure it is. A file in the folder without a case here fails the suite.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseNvidiaSmi, type SmiGpu, type SmiReport } from '../../src/core/smi';
import { diagnose } from '../../src/core/doctor';
import type { TorchProbe } from '../../src/core/probe';

const DIR = join(__dirname, '..', 'fixtures', 'nvidia-smi-real');
const read = (f: string): string => readFileSync(join(DIR, f), 'utf8');
const SOURCES = JSON.parse(read('SOURCES.json')) as { files: Record<string, string> };

interface ReportCase {
  format: SmiReport['format'];
  driver: string | null;
  cuda: string | null;
  names: (string | null)[];
  /** Fields of the first GPU (or of the GPU at `at`). */
  gpu?: Partial<SmiGpu> & { at?: number };
  processes?: number;
  /** MIG devices per GPU, in GPU order. */
  mig?: number[];
}
type Case = ReportCase | { failure: string };

const rep = (n: number, name: string | null): (string | null)[] => Array.from({ length: n }, () => name);

const CASES: Record<string, Case> = {
  // Default table, 79 columns, pre-450 and 450-era.
  'geforce210_driver340.98_smi_narrow-header.txt': { format: 'table', driver: '340.98', cuda: null, names: ['GeForce 210'], gpu: { memoryUsedMiB: 2, memoryTotalMiB: 1023, temperatureC: 47, utilizationGpuPct: null, powerDrawW: null, powerLimitW: null, pciBusId: '0000:07:00.0' }, processes: 0 },
  'k40m_x2_driver375.66_smi_no-cuda-version.txt': { format: 'table', driver: '375.66', cuda: null, names: rep(2, 'Tesla K40m'), gpu: { at: 1, index: 1, memoryUsedMiB: 1071, memoryTotalMiB: 11439, utilizationGpuPct: 36, powerDrawW: 75, powerLimitW: 235 }, processes: 2 },
  'v100sxm2_x4_driver410.66_smi_pipe-separators.txt': { format: 'table', driver: '410.66', cuda: null, names: rep(4, 'Tesla V100-SXM2...'), gpu: { at: 3, index: 3, pciBusId: '00000000:3B:00.0', memoryTotalMiB: 16130, temperatureC: 31, nameTruncated: true }, processes: 0 },
  'a100sxm4_x8_driver450.102.04_smi_mig-pending_doc-edited-procs.txt': { format: 'table', driver: '450.102.04', cuda: '11.0', names: rep(8, 'A100-SXM4-40GB'), gpu: { at: 7, migMode: 'disabled', utilizationGpuPct: null, memoryTotalMiB: 40537 }, processes: 0, mig: rep(8, null).map(() => 0) },
  // 89 columns (530–535) and 91 columns (≥ 545), MIG boxes.
  'a30_x8_driver525.85.12_smi_one-gpu-ERR.txt': { format: 'table', driver: '525.85.12', cuda: '12.0', names: ['NVIDIA A30', 'NVIDIA A30', 'NVIDIA A30', null, 'NVIDIA A30', 'NVIDIA A30', 'NVIDIA A30', 'NVIDIA A30'], gpu: { at: 3, pciBusId: '00000000:61:00.0', memoryUsedMiB: 23025, utilizationGpuPct: null, temperatureC: null, powerDrawW: null, powerLimitW: null, migMode: null } },
  'wsl_driver472.39_smi_util-ERR.txt': { format: 'table', driver: '472.39', cuda: '11.4', names: ['NVIDIA GeForce ...'], gpu: { utilizationGpuPct: null, memoryUsedMiB: 663, powerDrawW: 7, powerLimitW: null }, processes: 0 },
  'a100pcie_mig7_driver535.161.08_smi.txt': { format: 'table', driver: '535.161.08', cuda: '12.2', names: ['NVIDIA A100-PCIE-40GB'], gpu: { migMode: 'enabled', utilizationGpuPct: null, memoryUsedMiB: 38, memoryTotalMiB: 40960, powerDrawW: 71, powerLimitW: 250 }, mig: [7] },
  'h100_x8_driver535.183.01_smi.txt': { format: 'table', driver: '535.183.01', cuda: '12.2', names: rep(8, 'NVIDIA H100 80GB HBM3'), gpu: { at: 4, pciBusId: '00000000:00:0E.0', memoryTotalMiB: 81559, powerDrawW: 71, powerLimitW: 700, migMode: 'disabled' }, processes: 0 },
  'a100pcie_x2_driver555.42.02_smi_indented.txt': { format: 'table', driver: '555.42.02', cuda: '12.5', names: rep(2, 'NVIDIA A100-PCIE-40GB'), gpu: { at: 1, pciBusId: '00000000:8A:00.0', memoryUsedMiB: 1, memoryTotalMiB: 40960, powerDrawW: 37 }, processes: 0 },
  'a100sxm4_mig4_driver580.126.09_smi.txt': { format: 'table', driver: '580.126.09', cuda: '13.0', names: ['NVIDIA A100-SXM4-40GB'], gpu: { migMode: 'enabled', pciBusId: '00000000:10:1C.0', memoryUsedMiB: 249 }, processes: 0, mig: [4] },
  'rtx5090_driver570.195.03_smi_head-20.txt': { format: 'table', driver: '570.195.03', cuda: '12.8', names: ['NVIDIA GeForce RTX 5090'], gpu: { memoryTotalMiB: 32607, powerLimitW: 575 }, processes: 0 },
  'rtxpro6000blackwell_driver595.58.03_smi_indented.txt': { format: 'table', driver: '595.58.03', cuda: '13.2', names: ['NVIDIA RTX PRO 6000 Blac...'], gpu: { nameTruncated: true, memoryTotalMiB: 97887, powerLimitW: 600 }, processes: 0 },
  // Driver 610: KMD Version / CUDA UMD Version.
  'rtx5000ada_driver610.43.02_smi_KMD-header_indented.txt': { format: 'table', driver: '610.43.02', cuda: '13.3', names: ['NVIDIA RTX 5000 Ada Gene...'], gpu: { memoryUsedMiB: 579, memoryTotalMiB: 32760, utilizationGpuPct: 3 }, processes: 4 },
  'rtx4060laptop_windows_KMD610.47_smi.txt': { format: 'table', driver: '610.47', cuda: '13.3', names: ['NVIDIA GeForce RTX 4060 ...'], gpu: { driverModel: 'WDDM', temperatureC: 59, powerLimitW: 135 }, processes: 3 },
  // Windows and WSL.
  'rtx4050laptop_windows_driver560.81_smi.txt': { format: 'table', driver: '560.81', cuda: '12.6', names: ['NVIDIA GeForce RTX 4050 ...'], gpu: { driverModel: 'WDDM', memoryUsedMiB: 86, memoryTotalMiB: 6141 }, processes: 1 },
  'gtx1650_windows_driver551.76_smi_gpu-section.txt': { format: 'table', driver: '551.76', cuda: '12.4', names: ['NVIDIA GeForce GTX 1650'], gpu: { driverModel: 'WDDM', memoryTotalMiB: 4096 } },
  'rtx3080ti_wsl_driver555.85_smi_gpu-section.txt': { format: 'table', driver: '555.85', cuda: '12.5', names: ['NVIDIA GeForce RTX 3080 Ti'], gpu: { driverModel: null, utilizationGpuPct: 17, memoryUsedMiB: 2710, memoryTotalMiB: 12288 } },
  'rtx4060laptop_wsl_driver572.16_smi_gpu-section.txt': { format: 'table', driver: '572.16', cuda: '12.8', names: ['NVIDIA GeForce RTX 4060 ...'], gpu: { memoryTotalMiB: 8188, powerDrawW: 12, powerLimitW: 30 } },
  'wsl_driver555.85_version.txt': { format: 'version', driver: '555.85', cuda: '12.5', names: [] },
  // -q text and -q -x XML.
  'a100pcie_x2_driver555.42.02_q-d-ECC_indented.txt': { format: 'text', driver: '555.42.02', cuda: '12.5', names: [null, null], gpu: { at: 1, pciBusId: '00000000:8A:00.0', memoryTotalMiB: null } },
  'rtx4070laptop_driver575.51.02_q_user-elided.xml': { format: 'xml', driver: '575.51.02', cuda: '12.9', names: ['NVIDIA GeForce RTX 4070 Laptop GPU'], gpu: { uuid: 'GPU-529b3263-c96d-b557-bc75-697f04917eda', memoryUsedMiB: 2026, memoryTotalMiB: 8188, utilizationGpuPct: 30, temperatureC: 41, powerDrawW: 11.26, powerLimitW: 95, migMode: null }, processes: 8, mig: [0] },
  'gtx1070_driver418.56_q_dtd-v10_ids-masked.xml': { format: 'xml', driver: '418.56', cuda: '10.1', names: ['GeForce GTX 1070'], gpu: { uuid: 'GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeffffff', memoryUsedMiB: 561, memoryTotalMiB: 8119, utilizationGpuPct: 40, temperatureC: 49, powerDrawW: 11.41, powerLimitW: 151, migMode: null }, processes: 2 },
  // --query-gpu CSV in the shapes people paste.
  'a100pcie_x2_query_indented.csv': { format: 'csv', driver: null, cuda: null, names: rep(2, 'NVIDIA A100-PCIE-40GB'), gpu: { at: 1, index: 1, pciBusId: '00000000:8A:00.0', temperatureC: 37, memoryUsedMiB: 1, memoryTotalMiB: 40960 } },
  'a800_x8_driver535.104.12_query_noheader_custom-fields.csv': { format: 'csv', driver: '535.104.12', cuda: null, names: rep(8, 'NVIDIA A800-SXM4-80GB'), gpu: { at: 6, index: 6, uuid: 'GPU-105ee81f-dddd-aaf0-2e30-ca1593fdbf18', utilizationGpuPct: 100, memoryTotalMiB: null } },
  'h100_query_loop_l2_timestamped.csv': { format: 'csv', driver: null, cuda: null, names: [null], gpu: { index: 0, memoryTotalMiB: 81920, memoryUsedMiB: 1, utilizationGpuPct: 0 } },
  'rtx5070ti_driver595.84_query_compute-cap_after-prompt.csv': { format: 'csv', driver: '595.84', cuda: null, names: ['NVIDIA GeForce RTX 5070 Ti'], gpu: { computeCapability: '12.0', memoryTotalMiB: 16303, powerLimitW: null } },
  'rtx4090-48gb_query_util-first.csv': { format: 'csv', driver: null, cuda: null, names: ['NVIDIA GeForce RTX 4090'], gpu: { utilizationGpuPct: 0, memoryUsedMiB: 678, memoryTotalMiB: 49140 } },
  'gpu-and-compute-apps_queries_joined.csv': { format: 'csv', driver: null, cuda: null, names: [null], gpu: { utilizationGpuPct: 95, memoryUsedMiB: 745, memoryTotalMiB: 6144 }, processes: 2 },
  // nvidia-smi -L: names and UUIDs only.
  'a100sxm4_x8_mig_list-L.txt': { format: 'list', driver: null, cuda: null, names: rep(8, 'NVIDIA A100-SXM4-40GB'), gpu: { at: 7, uuid: 'GPU-e38bb82d-2bd3-41b0-1c6e-db7d90e6ae19', migMode: null }, mig: [4, 0, 0, 0, 0, 0, 0, 0] },
  'graphics-device_mig_r450_list-L.txt': { format: 'list', driver: null, cuda: null, names: ['Graphics Device'], gpu: { migMode: 'enabled' }, mig: [3] },
  'geforce210_driver340.98_list-L.txt': { format: 'list', driver: null, cuda: null, names: ['GeForce 210'], gpu: { uuid: 'GPU-3893b8f8-f89a-e24c-24af-3ae42c2b9f39' } },
  // Failures.
  'err_no-devices_genv-detached.txt': { failure: 'no-devices' },
  'err_no-devices_slurm-without-gres.txt': { failure: 'no-devices' },
  'err_command-not-found_bash.txt': { failure: 'not-found' },
  'err_nvml-mismatch_580.159.txt': { failure: 'nvml-mismatch' },
  'err_no-driver_after-reboot.txt': { failure: 'no-driver' },
  'err_no-driver_wsl_driver-not-loaded.txt': { failure: 'no-driver' },
  'err_nvml-unknown-error_container.txt': { failure: 'no-driver' },
  'err_wsl_segfault_after-header_driver555.85.txt': { failure: 'truncated' },
  'err_no-nvml-library_optimus-without-optirun.txt': { failure: 'no-driver' },
  'err_gpu-lost_server.txt': { failure: 'gpu-lost' },
  'err_gpu-lost_one-of-two_windows_query-noheader.txt': { failure: 'gpu-lost' },
};

describe('real nvidia-smi outputs beyond the fixture folder', () => {
  const files = readdirSync(DIR).filter((f) => /\.(txt|csv|xml)$/.test(f));

  it('every output has a case and a source; every case and source has its file', () => {
    assert.deepEqual(files.filter((f) => !(f in CASES)), []);
    assert.deepEqual(Object.keys(CASES).filter((f) => !files.includes(f)), []);
    const torchFiles = readdirSync(join(DIR, 'torch')).map((f) => `torch/${f}`);
    assert.deepEqual([...files, ...torchFiles].filter((f) => !SOURCES.files[f]), []);
    assert.deepEqual(Object.keys(SOURCES.files).filter((f) => !files.includes(f) && !torchFiles.includes(f)), []);
    assert.ok(files.length >= 25, `${files.length} outputs`);
  });

  for (const [file, want] of Object.entries(CASES)) {
    it(file, () => {
      const r = parseNvidiaSmi(read(file));
      if ('failure' in want) {
        assert.equal(r.ok, false, `expected ${want.failure}, got a report`);
        if (!r.ok) assert.equal(r.error.kind, want.failure, r.error.message);
        return;
      }
      if (!r.ok) assert.fail(`expected a report, got ${r.error.kind}: ${r.error.message}`);
      const x = r.report;
      assert.equal(x.format, want.format);
      assert.equal(x.driverVersion, want.driver);
      assert.equal(x.cudaVersion, want.cuda);
      assert.deepEqual(x.gpus.map((g) => g.name), want.names);
      // Indices are the GPUs' own, in order, whatever the format.
      assert.deepEqual(x.gpus.map((g) => g.index), want.names.map((_, i) => i));
      if (want.gpu) {
        const { at = 0, ...fields } = want.gpu;
        const g = x.gpus[at]!;
        for (const [k, v] of Object.entries(fields)) assert.deepEqual(g[k as keyof SmiGpu], v, `gpu ${at} ${k}`);
      }
      if (want.processes !== undefined) assert.equal(x.processes.length, want.processes);
      if (want.mig) assert.deepEqual(x.gpus.map((g) => g.migDevices.length), want.mig);
      for (const g of x.gpus) {
        for (const v of [g.memoryTotalMiB, g.memoryUsedMiB, g.utilizationGpuPct, g.temperatureC, g.powerDrawW, g.powerLimitW]) assert.ok(v === null || Number.isFinite(v));
      }
    });
  }

  it('details the counts alone do not show', () => {
    const mig = parseNvidiaSmi(read('a100sxm4_mig4_driver580.126.09_smi.txt'));
    assert.ok(mig.ok);
    assert.deepEqual(
      mig.report.gpus[0]!.migDevices.map((m) => [m.gpuInstanceId, m.computeInstanceId, m.index, m.memoryUsedMiB, m.memoryTotalMiB, m.multiprocessorCount]),
      [[2, 0, 0, 142, 20096, 56], [3, 0, 1, 71, 9984, 14], [3, 1, 2, 71, 9984, 14], [9, 0, 3, 36, 4864, 14]],
    );
    const k40 = parseNvidiaSmi(read('k40m_x2_driver375.66_smi_no-cuda-version.txt'));
    assert.ok(k40.ok);
    assert.deepEqual(k40.report.processes.map((p) => [p.gpuIndex, p.pid, p.type, p.name, p.usedMemoryMiB]), [[0, 35286, 'C', './gamer', 1067], [1, 35287, 'C', './gamer', 1067]]);
    const win = parseNvidiaSmi(read('rtx4060laptop_windows_KMD610.47_smi.txt'));
    assert.ok(win.ok);
    assert.deepEqual(win.report.processes.map((p) => [p.pid, p.type, p.name, p.usedMemoryMiB]), [[16668, 'C+G', '...Chrome\\Application\\chrome.exe', null], [19984, 'C+G', '...Browser\\Application\\brave.exe', null], [23460, 'C+G', '...Chrome\\Application\\chrome.exe', null]]);
    const ada = parseNvidiaSmi(read('rtx5000ada_driver610.43.02_smi_KMD-header_indented.txt'));
    assert.ok(ada.ok);
    assert.deepEqual(ada.report.processes.map((p) => [p.pid, p.name, p.usedMemoryMiB]), [[3994, '/usr/bin/gnome-shell', 185], [6009, '/usr/lib64/firefox/firefox', 208], [7113, '...0601-090046.628000-production', 61], [7119, '/usr/bin/Xwayland', 11]]);
    const xml = parseNvidiaSmi(read('rtx4070laptop_driver575.51.02_q_user-elided.xml'));
    assert.ok(xml.ok);
    assert.deepEqual(xml.report.processes.map((p) => p.pid), [1802, 1890, 19044, 19047, 26307, 30593, 32801, 40230]);
    assert.equal(xml.report.processes[4]!.type, 'C+G');
    const joined = parseNvidiaSmi(read('gpu-and-compute-apps_queries_joined.csv'));
    assert.ok(joined.ok);
    assert.deepEqual(joined.report.processes.map((p) => [p.gpuIndex, p.pid, p.name, p.usedMemoryMiB]), [[0, 1580, '/app/llama-server', 340], [0, 1597, '/app/llama-server', 394]]);
    const r450 = parseNvidiaSmi(read('graphics-device_mig_r450_list-L.txt'));
    assert.ok(r450.ok);
    assert.deepEqual(r450.report.gpus[0]!.migDevices.map((m) => [m.index, m.gpuInstanceId, m.computeInstanceId]), [[0, 1, 0], [1, 1, 1], [2, 11, 0]]);
    const mismatch = parseNvidiaSmi(read('err_nvml-mismatch_580.159.txt'));
    assert.ok(!mismatch.ok && mismatch.error.nvmlVersion === '580.159');
  });
});

// The verdict on real boxes, with the torch printouts the users got there. The probe object is
// what TORCH_PROBE_PY would report, filled from the printout (version, is_available, the
// warning text torch raised); the warning text itself is quoted from the file.
function probe(over: Partial<TorchProbe>): TorchProbe {
  return {
    python: '/root/.venv/bin/python', pythonVersion: '3.12.13', conda: null, condaPrefix: null, venv: '/root/.venv',
    torch: null, torchCuda: null, torchHip: null, torchImportError: null, cudaAvailable: null, deviceCount: null, archList: null,
    deviceName: null, deviceCapability: null, cudnn: null, op: null, opError: null, error: null, warnings: [], npu: null, cudaVisibleDevices: null,
    ...over,
  };
}
const report = (file: string): SmiReport => {
  const r = parseNvidiaSmi(read(file));
  if (!r.ok) throw new Error(r.error.message);
  return r.report;
};

describe('the verdict on real boxes and real torch printouts', () => {
  const box5090 = report('rtx5090_driver570.195.03_smi_head-20.txt');

  it('RTX 5090, driver 570 (CUDA 12.8), torch 2.11.0+cu130 "found version 12080" → driver-too-old, keep 2.11.0 with cu128', () => {
    const text = read('torch/rtx5090_torch2.11.0+cu130_found-version-12080.txt');
    const warning = /UserWarning: (CUDA initialization:[^\n]*)/.exec(text)![1]!;
    assert.match(text, /torch: 2\.11\.0\+cu130 cuda: False/);
    const d = diagnose({ smi: box5090, probe: probe({ torch: '2.11.0+cu130', torchCuda: '13.0', cudaAvailable: false, deviceCount: 0, warnings: [warning] }) });
    assert.equal(d.verdict, 'driver-too-old');
    assert.equal(d.computeCapability, '12.0');
    assert.equal(d.fix.pip, 'pip install torch==2.11.0 torchvision==0.26.0 torchaudio==2.11.0 --index-url https://download.pytorch.org/whl/cu128');
    assert.equal(d.fix.minDriver, '580.65.06');
  });

  it('the same box after the user fell back to torch 2.6.0+cu124: sm_120 is not in the wheel → newest release with a cu128 build', () => {
    const text = read('torch/rtx5090_torch2.6.0+cu124_sm120-not-compatible.txt');
    const warning = /UserWarning: \n([\s\S]*?)\n\n {2}warnings\.warn/.exec(text)![1]!;
    const archList = /supports CUDA capabilities ((?:sm_\d+ ?)+)\./.exec(warning)![1]!.trim().split(' ');
    assert.deepEqual(archList, ['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90']);
    const d = diagnose({
      smi: box5090,
      probe: probe({ torch: '2.6.0+cu124', torchCuda: '12.4', cudaAvailable: true, deviceCount: 1, deviceName: 'NVIDIA GeForce RTX 5090', deviceCapability: '12.0', archList, warnings: [warning] }),
    });
    assert.equal(d.verdict, 'arch-not-in-wheel');
    assert.equal(d.fix.pip, 'pip install torch==2.11.0 torchvision==0.26.0 torchaudio==2.11.0 --index-url https://download.pytorch.org/whl/cu128');
  });

  it('Windows RTX 4060 Laptop on KMD 610.47, torch 2.14.0+cpu → cpu-only-torch, keep 2.14.0 with a CUDA 13 build', () => {
    const out = /Output : (\S+) (\S+) (\S+) (\S+)/.exec(read('torch/rtx4060laptop_windows_torch2.14.0+cpu.txt'))!;
    assert.deepEqual(out.slice(1), ['2.14.0+cpu', 'None', 'False', 'None']);
    const d = diagnose({ smi: report('rtx4060laptop_windows_KMD610.47_smi.txt'), torchVersion: out[1]! });
    assert.equal(d.verdict, 'cpu-only-torch');
    assert.equal(d.driverMaxCuda, '13.3');
    assert.match(d.fix.pip!, /^pip install torch==2\.14\.0 torchvision==0\.29\.0 --index-url https:\/\/download\.pytorch\.org\/whl\/cu13\d$/);
  });

  it('driver 450.102.04 (CUDA 11.0, 8x A100) with torch 2.1.0+cu121 → keep 2.1.0 with cu118 (minor-version compatibility), or driver ≥ 525.60.13', () => {
    const d = diagnose({ smi: report('a100sxm4_x8_driver450.102.04_smi_mig-pending_doc-edited-procs.txt'), torchVersion: '2.1.0+cu121' });
    assert.equal(d.verdict, 'driver-too-old');
    assert.equal(d.fix.pip, 'pip install torch==2.1.0 torchvision==0.16.0 torchaudio==2.1.0 --index-url https://download.pytorch.org/whl/cu118');
    assert.equal(d.fix.minDriver, '525.60.13');
  });

  it('RTX PRO 6000 Blackwell (name cut by the table) with torch 2.7.1+cu126 → keep 2.7.1 with cu128', () => {
    const d = diagnose({ smi: report('rtxpro6000blackwell_driver595.58.03_smi_indented.txt'), torchVersion: '2.7.1+cu126' });
    assert.equal(d.verdict, 'arch-not-in-wheel');
    assert.equal(d.computeCapability, '12.0');
    assert.equal(d.fix.pip, 'pip install torch==2.7.1 torchvision==0.22.1 torchaudio==2.7.1 --index-url https://download.pytorch.org/whl/cu128');
  });

  it('Kepler K40m on driver 375.66 (no CUDA printed) with torch 1.4.0: the driver to ask for is one whose wheel still has sm_35 (cu92, ≥ 396.26)', () => {
    const d = diagnose({ smi: report('k40m_x2_driver375.66_smi_no-cuda-version.txt'), torchVersion: '1.4.0' });
    assert.equal(d.verdict, 'driver-too-old');
    assert.equal(d.driverMaxCuda, '8.0');
    assert.equal(d.computeCapability, '3.5');
    assert.equal(d.fix.minDriver, '396.26');
    assert.equal(d.fix.pip, undefined);
  });

  it('a GeForce 210 (compute capability 1.2) has no PyTorch build at all: arch-not-in-wheel with no pip command', () => {
    const d = diagnose({ smi: report('geforce210_driver340.98_smi_narrow-header.txt'), torchVersion: '1.4.0' });
    assert.equal(d.verdict, 'arch-not-in-wheel');
    assert.ok(d.reasons.some((r) => r.code === 'gpu-too-old-for-any-wheel'));
    assert.deepEqual(d.fix, {});
  });

  it('failures give their own verdicts and advice', () => {
    const v = (file: string) => {
      const r = parseNvidiaSmi(read(file));
      assert.ok(!r.ok);
      return diagnose({ smi: r.error, torchVersion: '2.5.1+cu124' });
    };
    assert.deepEqual([v('err_nvml-mismatch_580.159.txt').verdict, v('err_nvml-mismatch_580.159.txt').fix.env], ['nvml-mismatch', ['restart-instance']]);
    assert.deepEqual([v('err_no-devices_slurm-without-gres.txt').verdict, v('err_no-devices_slurm-without-gres.txt').fix.env], ['no-gpu', ['start-with-gpu']]);
    assert.deepEqual([v('err_no-driver_after-reboot.txt').verdict, v('err_no-driver_after-reboot.txt').fix.env], ['no-driver', ['install-driver']]);
    // A container that lost its devices: the driver is fine, a restart brings the GPU back.
    assert.deepEqual([v('err_nvml-unknown-error_container.txt').verdict, v('err_nvml-unknown-error_container.txt').fix.env], ['no-driver', ['restart-lost-gpu']]);
    assert.deepEqual([v('err_no-nvml-library_optimus-without-optirun.txt').verdict, v('err_no-nvml-library_optimus-without-optirun.txt').fix.env], ['no-driver', ['install-driver']]);
    // A GPU that fell off the bus: not a driver to install, a reboot (and a word to the platform).
    for (const f of ['err_gpu-lost_server.txt', 'err_gpu-lost_one-of-two_windows_query-noheader.txt']) assert.deepEqual([v(f).verdict, v(f).fix.env], ['gpu-lost', ['restart-lost-gpu']]);
    // nvidia-smi died after its header: nothing is known about the driver, so no "ok".
    assert.equal(v('err_wsl_segfault_after-header_driver555.85.txt').verdict, 'unknown');
  });
});

// Every real output in test/fixtures/shared/nvidia-smi parses to what its SOURCES.md says
// (format, driver, the CUDA the driver reports, GPU count and names), plus spot checks of
// the per-GPU numbers and the failure outputs.
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseNvidiaSmi, SMI_QUERY_ARGS, SMI_QUERY_COMMAND, SMI_QUERY_FIELDS, type SmiReport } from '../../src/core/smi';
import { NVIDIA_SMI_DIR } from '../support/fixtures';

const DIR = NVIDIA_SMI_DIR;
const read = (f: string): string => readFileSync(join(DIR, f), 'utf8');

function ok(text: string): SmiReport {
  const r = parseNvidiaSmi(text);
  if (!r.ok) assert.fail(`expected a report, got ${r.error.kind}: ${r.error.message}`);
  return r.report;
}

interface Expect {
  format: SmiReport['format'];
  driver: string | null;
  cuda: string | null;
  names: string[];
}

// From SOURCES.md (tables A–D): GPU, driver, "CUDA (as shown)" ("–" = not in that output).
const EXPECTED: Record<string, Expect> = {
  'h100_mig_driver590.48.01_compute_apps_load.csv': { format: 'csv', driver: null, cuda: null, names: ['NVIDIA H100 80GB HBM3'] },
  'h100_80gb_driver590.48.01_smi_load.txt': { format: 'table', driver: '590.48.01', cuda: '13.1', names: ['NVIDIA H100 80GB HBM3'] },
  'h100_80gb_driver590.48.01_query_load.csv': { format: 'csv', driver: '590.48.01', cuda: null, names: ['NVIDIA H100 80GB HBM3'] },
  'rtx2080super_driver610.57.04_smi_load_KMD-UMD-header.txt': { format: 'table', driver: '610.57.04', cuda: '13.3', names: ['NVIDIA GeForce RTX 2080 ...'] },
  'rtx2080super_driver595.71.05_version.txt': { format: 'version', driver: '595.71.05', cuda: '13.2', names: [] },
  'rtx2080super_driver465.27_query.csv': { format: 'csv', driver: '465.27', cuda: null, names: ['NVIDIA GeForce RTX 2080 SUPER'] },
  't4_driver515.105.01_q.xml': { format: 'xml', driver: '515.105.01', cuda: '11.7', names: ['Tesla T4'] },
  'gtx1660ti_driver418.43_q.xml': { format: 'xml', driver: '418.43', cuda: '10.1', names: ['Graphics Device'] },
  'rtx3090_driver525.147.05_q.xml': { format: 'xml', driver: '525.147.05', cuda: '12.0', names: ['NVIDIA GeForce RTX 3090'] },
  'rtx2070_x2_driver590.44.01_q.xml': { format: 'xml', driver: '590.44.01', cuda: '13.1', names: ['NVIDIA GeForce RTX 2070', 'NVIDIA GeForce RTX 2070'] },
  'a100_sxm4_40gb_mig_driver510.47.03_q.xml': { format: 'xml', driver: '510.47.03', cuda: '11.6', names: ['NVIDIA A100-SXM4-40GB'] },
  'rtx2080_driver516.59_windows_q.xml': { format: 'xml', driver: '516.59', cuda: '11.7', names: ['NVIDIA GeForce RTX 2080'] },
  'rtx4090_driver535.86.05_q.xml': { format: 'xml', driver: '535.86.05', cuda: '12.2', names: ['NVIDIA GeForce RTX 4090'] },
  'p100_driver510.47.03_query.csv': { format: 'csv', driver: null, cuda: null, names: ['Tesla P100-PCIE-16GB'] },
  'rtx2070laptop_driver440.100_smi.txt': { format: 'table', driver: '440.100', cuda: '10.2', names: ['GeForce RTX 207...'] },
  'titanv_driver515.65.01_smi.txt': { format: 'table', driver: '515.65.01', cuda: '11.7', names: ['NVIDIA TITAN V'] },
  'v100sxm2_32gb_x8_driver520.61.05_smi.txt': { format: 'table', driver: '520.61.05', cuda: '11.8', names: new Array(8).fill('Tesla V100-SXM2...') },
  'nvs5400m_fermi_driver390.157_smi_no-cuda-version_not-supported.txt': { format: 'table', driver: '390.157', cuda: null, names: ['NVS 5400M'] },
};

describe('nvidia-smi fixtures parse to what SOURCES.md says', () => {
  const files = readdirSync(DIR).filter((f) => f !== 'SOURCES.md' && !f.startsWith('errors_'));

  it('covers every output file in the folder', () => {
    assert.deepEqual(files.filter((f) => !(f in EXPECTED)), []);
  });

  for (const [file, want] of Object.entries(EXPECTED)) {
    it(file, () => {
      const r = ok(read(file));
      assert.equal(r.format, want.format);
      assert.equal(r.driverVersion, want.driver);
      assert.equal(r.cudaVersion, want.cuda);
      assert.deepEqual(r.gpus.map((g) => g.name), want.names);
    });
  }
});

describe('per-GPU values', () => {
  it('H100 table under load: memory, power, util, MIG disabled, three processes with memory', () => {
    const r = ok(read('h100_80gb_driver590.48.01_smi_load.txt'));
    const g = r.gpus[0]!;
    assert.deepEqual([g.index, g.pciBusId, g.temperatureC, g.powerDrawW, g.powerLimitW, g.memoryUsedMiB, g.memoryTotalMiB, g.utilizationGpuPct, g.migMode], [0, '00000000:00:09.0', 59, 629, 700, 19818, 81559, 100, 'disabled']);
    assert.deepEqual(r.processes.map((p) => [p.gpuIndex, p.pid, p.type, p.name, p.usedMemoryMiB]), [
      [0, 11327, 'C', '/root/tools/memhog', 2566],
      [0, 11328, 'C', '/root/tools/memhog', 1542],
      [0, 11345, 'C', './gpu_burn', 15690],
    ]);
  });

  it('H100 query CSV with units: compute capability, power, MIG mode', () => {
    const g = ok(read('h100_80gb_driver590.48.01_query_load.csv')).gpus[0]!;
    assert.deepEqual([g.computeCapability, g.powerDrawW, g.powerLimitW, g.memoryTotalMiB, g.memoryUsedMiB, g.utilizationGpuPct, g.temperatureC, g.migMode, g.uuid], ['9.0', 631.95, 700, 81559, 19818, 100, 59, 'disabled', 'GPU-00000000-0000-0000-0000-000000000000']);
  });

  it('P100 nounits CSV: [N/A] and missing columns are null, never NaN', () => {
    const g = ok(read('p100_driver510.47.03_query.csv')).gpus[0]!;
    assert.equal(g.memoryUsedMiB, 0);
    assert.equal(g.memoryTotalMiB, null);
    assert.equal(g.powerDrawW, 28.16);
    assert.equal(g.temperatureC, 37);
    for (const v of Object.values(g)) assert.ok(typeof v !== 'number' || Number.isFinite(v));
  });

  it('A100 MIG XML: two MIG devices with their own memory, GPU util N/A → null', () => {
    const g = ok(read('a100_sxm4_40gb_mig_driver510.47.03_q.xml')).gpus[0]!;
    assert.equal(g.migMode, 'enabled');
    assert.equal(g.utilizationGpuPct, null);
    assert.equal(g.memoryTotalMiB, 40960);
    assert.deepEqual(g.migDevices.map((m) => [m.index, m.gpuInstanceId, m.memoryTotalMiB, m.multiprocessorCount]), [
      [0, 1, 19968, 42],
      [1, 2, 19968, 42],
    ]);
  });

  it('Windows XML: WDDM, 26 C+G processes with N/A memory, index from position', () => {
    const r = ok(read('rtx2080_driver516.59_windows_q.xml'));
    assert.equal(r.gpus[0]!.driverModel, 'WDDM');
    assert.equal(r.gpus[0]!.index, 0);
    assert.equal(r.processes.length, 26);
    assert.ok(r.processes.every((p) => p.type === 'C+G' && p.usedMemoryMiB === null));
  });

  it('newer XML schema (v13): instant_power_draw and current_power_limit', () => {
    const r = ok(read('rtx2070_x2_driver590.44.01_q.xml'));
    assert.deepEqual(r.gpus.map((g) => [g.index, g.powerDrawW, g.powerLimitW, g.pciBusId]), [
      [0, 9.23, 175, '00000000:01:00.0'],
      [1, 11.82, 175, '00000000:02:00.0'],
    ]);
  });

  it('counts <gpu> elements, not <attached_gpus>', () => {
    const xml = read('t4_driver515.105.01_q.xml').replace('<attached_gpus>1</attached_gpus>', '<attached_gpus>4</attached_gpus>');
    assert.equal(ok(xml).gpus.length, 1);
  });

  it('T4 XML processes carry pid, name and memory', () => {
    const r = ok(read('t4_driver515.105.01_q.xml'));
    assert.deepEqual(r.processes.map((p) => [p.pid, p.type, p.name, p.usedMemoryMiB]), [
      [675, 'G', '/usr/lib/xorg/Xorg', 22],
      [5762, 'C', 'python', 1005],
    ]);
  });

  it('Fermi 390: no CUDA field, N/A power and util, "Not Supported" processes', () => {
    const r = ok(read('nvs5400m_fermi_driver390.157_smi_no-cuda-version_not-supported.txt'));
    const g = r.gpus[0]!;
    assert.deepEqual([g.powerDrawW, g.powerLimitW, g.utilizationGpuPct, g.temperatureC, g.memoryTotalMiB], [null, null, null, 49, 964]);
    assert.equal(r.processes.length, 0);
  });

  it('8× V100: per-GPU bus ids across PCI domains and processes per GPU', () => {
    const r = ok(read('v100sxm2_32gb_x8_driver520.61.05_smi.txt'));
    assert.deepEqual(r.gpus.map((g) => g.pciBusId), [1, 2, 3, 4, 5, 6, 7, 8].map((d) => `0000000${d}:00:00.0`));
    assert.deepEqual(r.processes.map((p) => p.gpuIndex), [0, 0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('compute-apps CSV: processes with their GPU', () => {
    const r = ok(read('h100_mig_driver590.48.01_compute_apps_load.csv'));
    assert.deepEqual(r.processes.map((p) => [p.pid, p.name, p.usedMemoryMiB]), [
      [21180, '/root/tools/memhog', 2296],
      [21181, '/root/tools/memhog', 1272],
      [21198, './gpu_burn', 7484],
    ]);
  });
});

describe('failure outputs are recognised, each as its own kind', () => {
  const cases: [string, string, string][] = [
    ['driver/library mismatch', 'Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 570.124\n', 'nvml-mismatch'],
    ['no driver', "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n", 'no-driver'],
    ['bash: not found', 'bash: nvidia-smi: command not found\n', 'not-found'],
    ['zsh: not found', 'zsh: command not found: nvidia-smi\n', 'not-found'],
    ['no devices', 'No devices were found\n', 'no-devices'],
    ['empty', '', 'empty'],
    ['blank', '  \n\n', 'empty'],
    ['random text', 'hello world\n', 'unrecognized'],
  ];
  for (const [name, text, kind] of cases) {
    it(name, () => {
      const r = parseNvidiaSmi(text);
      assert.equal(r.ok, false);
      if (!r.ok) assert.equal(r.error.kind, kind);
    });
  }

  it('every block of the real mismatch capture is nvml-mismatch with its NVML version', () => {
    const blocks = read('errors_nvml_driver_library_mismatch.txt').split(/^=+$/m);
    assert.equal(blocks.length, 3);
    const versions = blocks.map((b) => {
      const r = parseNvidiaSmi(b);
      assert.equal(r.ok, false);
      return r.ok ? null : [r.error.kind, r.error.nvmlVersion];
    });
    assert.deepEqual(versions, [
      ['nvml-mismatch', '570.124'],
      ['nvml-mismatch', '580.178'],
      ['nvml-mismatch', '550.144'],
    ]);
  });

  for (const file of ['h100_80gb_driver590.48.01_smi_load.txt', 'v100sxm2_32gb_x8_driver520.61.05_smi.txt', 't4_driver515.105.01_q.xml', 'rtx2070_x2_driver590.44.01_q.xml']) {
    it(`${file} cut in half is "truncated"`, () => {
      const text = read(file);
      const r = parseNvidiaSmi(text.slice(0, Math.floor(text.length / 2)));
      assert.equal(r.ok, false);
      if (!r.ok) assert.equal(r.error.kind, 'truncated');
    });
  }

  it('a CSV whose last row is cut is "truncated"', () => {
    const text = read('rtx2080super_driver465.27_query.csv');
    const r = parseNvidiaSmi(text.slice(0, text.length - 200));
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.error.kind, 'truncated');
  });
});

describe('the remote probe query', () => {
  it('SMI_QUERY_ARGS is one --query-gpu with our fields and csv,nounits', () => {
    assert.deepEqual(SMI_QUERY_ARGS, [`--query-gpu=${SMI_QUERY_FIELDS.join(',')}`, '--format=csv,nounits']);
  });

  it('parses its output with the header (csv,nounits: units in the header, bare values)', () => {
    const out = 'index, name, uuid, pci.bus_id, driver_version, memory.total [MiB], memory.used [MiB], utilization.gpu [%], temperature.gpu, power.draw [W], power.limit [W], compute_cap, mig.mode.current\n' +
      '0, NVIDIA GeForce RTX 4090, GPU-71d1acc2-662d-2166-bf9f-65272d2fc437, 00000000:84:00.0, 535.86.05, 24564, 2, 0, 40, 26.84, 450.00, 8.9, [N/A]\n' +
      '1, NVIDIA GeForce RTX 4090, GPU-71d1acc2-662d-2166-bf9f-65272d2fc438, 00000000:85:00.0, 535.86.05, 24564, 23011, 97, 71, [Unknown Error], 450.00, 8.9, [N/A]\n';
    const r = ok(out);
    assert.equal(r.driverVersion, '535.86.05');
    assert.deepEqual(r.gpus.map((g) => [g.index, g.computeCapability, g.memoryUsedMiB, g.powerDrawW, g.migMode]), [
      [0, '8.9', 2, 26.84, null],
      [1, '8.9', 23011, null, null],
    ]);
  });

  it('parses its output without a header (noheader), by the field order we asked for', () => {
    const out = '0, NVIDIA H100 80GB HBM3, GPU-00000000-0000-0000-0000-000000000000, 00000000:00:09.0, 590.48.01, 81559, 19818, 100, 59, 631.95, 700.00, 9.0, Disabled\n';
    const r = ok(out);
    assert.equal(r.format, 'csv');
    assert.deepEqual([r.driverVersion, r.gpus[0]!.name, r.gpus[0]!.computeCapability, r.gpus[0]!.migMode, r.gpus[0]!.powerLimitW], ['590.48.01', 'NVIDIA H100 80GB HBM3', '9.0', 'disabled', 700]);
  });

  it('an old driver rejecting compute_cap is a failure, not a report', () => {
    const r = parseNvidiaSmi('Field "compute_cap" is not a valid field to query.\n\n');
    assert.equal(r.ok, false);
  });
});

describe('SMI_QUERY_COMMAND', () => {
  it('its fallback output (the rejection message, then the legacy CSV) parses', () => {
    const out = 'Field "compute_cap" is not a valid field to query.\n\n' +
      'index, name, uuid, pci.bus_id, driver_version, memory.total [MiB], memory.used [MiB], utilization.gpu [%], temperature.gpu, power.draw [W], power.limit [W]\n' +
      '0, Tesla T4, GPU-d37e67a5-91dd-3774-a5cb-99096249601a, 00000000:00:1E.0, 470.82.01, 15109, 0, 0, 34, 9.52, 70.00\n';
    const r = ok(out);
    assert.equal(r.driverVersion, '470.82.01');
    assert.equal(r.gpus[0]!.name, 'Tesla T4');
    assert.equal(r.gpus[0]!.computeCapability, null);
  });

  it('is one shell line running the CSV query', () => {
    assert.match(SMI_QUERY_COMMAND, /^nvidia-smi --query-gpu=index,name,uuid,.*compute_cap.* --format=csv,nounits 2>&1 \|\| nvidia-smi --query-gpu=/);
  });
});

describe('several CSV queries in one output', () => {
  it('a second GPU query fills in the first by position; a process query adds processes', () => {
    const r = parseNvidiaSmi('index, uuid\n0, GPU-1\nindex, memory.used [MiB]\n0, 5 MiB\npid, gpu_uuid, process_name, used_gpu_memory [MiB]\n77, GPU-1, python, 3 MiB\n');
    assert.ok(r.ok);
    assert.deepEqual(r.report.gpus.map((g) => [g.index, g.uuid, g.memoryUsedMiB]), [[0, 'GPU-1', 5]]);
    assert.deepEqual(r.report.processes.map((p) => [p.gpuIndex, p.pid, p.name]), [[0, 77, 'python']]);
  });

  it('a stray line inside a CSV is still not a report', () => {
    for (const t of ['index, name, memory.total [MiB]\n0, A100, 40960 MiB\nhello world\n1, A100, 40960 MiB\n', 'index, name\n0, A\n---\nrandom\n']) {
      const r = parseNvidiaSmi(t);
      assert.equal(r.ok, false, t);
    }
  });
});

// Real nvidia-smi outputs that are NOT in test/fixtures/shared (quoted in public repositories'
// docs and tests, found through the code-search index; ids given where the index names no
// repository). They check the parsers against the formats, not against the fixture files.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseNvidiaSmi, type SmiReport } from '../../src/core/smi';
import { NVIDIA_SMI_DIR } from '../support/fixtures';

function ok(text: string): SmiReport {
  const r = parseNvidiaSmi(text);
  if (!r.ok) assert.fail(`expected a report, got ${r.error.kind}: ${r.error.message}`);
  return r.report;
}

// Windows 10, driver 442.50 (79 columns, pre-450: no MIG M.), WDDM, C+G processes with
// "Insufficient Permissions" names and N/A memory. Chinese nvidia-smi guide, index id 8058582069.
const WIN_442 = `Fri Nov 06 06:55:24 2020
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 442.50       Driver Version: 442.50       CUDA Version: 10.2     |
|-------------------------------+----------------------+----------------------+
| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  GeForce RTX 206... WDDM  | 00000000:09:00.0 Off |                  N/A |
|  0%   38C    P8    17W / 215W |    616MiB /  8192MiB |      2%      Default |
+-------------------------------+----------------------+----------------------+

+-----------------------------------------------------------------------------+
| Processes:                                                       GPU Memory |
|  GPU       PID   Type   Process name                             Usage      |
|=============================================================================|
|    0      1532    C+G   Insufficient Permissions                   N/A      |
|    0      1540    C+G   Insufficient Permissions                   N/A      |
|    0      2064    C+G   Insufficient Permissions                   N/A      |
|    0      2456    C+G   Insufficient Permissions                   N/A      |
|    0      6744    C+G   ...es\\Google\\Chrome\\Application\\chrome.exe N/A      |
|    0      6992    C+G   ...t_cw5n1h2txyewy\\ShellExperienceHost.exe N/A      |
|    0      7224    C+G   ...x64__8wekyb3d8bbwe\\Microsoft.Photos.exe N/A      |
|    0      9284    C+G   C:\\Windows\\explorer.exe                    N/A      |
|    0     10312    C+G   ...dows.Search_cw5n1h2txyewy\\SearchApp.exe N/A      |
|    0     11272    C+G   ...w5n1h2txyewy\\InputApp\\TextInputHost.exe N/A      |
|    0     14020    C+G   C:\\Softwares\\Microsoft VS Code\\Code.exe    N/A      |
+-----------------------------------------------------------------------------+
`;

// Windows, driver 531.88, the 89-column layout with "TCC/WDDM" (a Chinese PyTorch install
// note, index id 18058943633; the table block up to the end of the GPU section).
const WIN_531 = `+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 531.88                 Driver Version: 531.88       CUDA Version: 12.1     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                      TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf            Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA GeForce RTX 3050 4...  WDDM | 00000000:01:00.0 Off |                  N/A |
| N/A   40C    P0                8W /  N/A|      0MiB /  4096MiB |      0%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
`;

// Windows, driver 471.35, Quadro T1000 (79 columns with MIG M.), index id 11164961364.
const WIN_471 = `Wed Nov 10 15:47:38 2021
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 471.35       Driver Version: 471.35       CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  Quadro T1000       WDDM  | 00000000:01:00.0 Off |                  N/A |
| N/A   52C    P8     2W /  N/A |    287MiB /  4096MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
`;

// \`nvidia-smi -q\` (plain text), RTX 3090, driver 525.125.06: a test in starship's cuda
// module (index id 44484075534), abridged to the sections the model reads.
const Q_TEXT_3090 = `==============NVSMI LOG==============

Timestamp                                 : Tue Oct 17 11:17:13 2023
Driver Version                            : 525.125.06
CUDA Version                              : 12.0

Attached GPUs                             : 1
GPU 00000000:01:00.0
    Product Name                          : NVIDIA GeForce RTX 3090
    Product Brand                         : GeForce
    Product Architecture                  : Ampere
    Display Mode                          : Disabled
    Display Active                        : Disabled
    Persistence Mode                      : Disabled
    MIG Mode
        Current                           : N/A
        Pending                           : N/A
    Accounting Mode                       : Disabled
    Accounting Mode Buffer Size           : 4000
    Driver Model
        Current                           : N/A
        Pending                           : N/A
    Serial Number                         : N/A
    GPU UUID                              : GPU-58f16df2-6eee-bfac-bdc1-13e0091441b5
    Minor Number                          : 0
    VBIOS Version                         : 94.02.42.80.9F
    PCI
        Bus                               : 0x01
        Device                            : 0x00
        Domain                            : 0x0000
        Device Id                         : 0x220410DE
        Bus Id                            : 00000000:01:00.0
        Sub System Id                     : 0x161319DA
        GPU Link Info
            PCIe Generation
                Max                       : 4
                Current                   : 4
            Link Width
                Max                       : 16x
                Current                   : 16x
    Fan Speed                             : 70 %
    Performance State                     : P3
    FB Memory Usage
        Total                             : 24576 MiB
        Reserved                          : 316 MiB
        Used                              : 1788 MiB
        Free                              : 22471 MiB
    BAR1 Memory Usage
        Total                             : 256 MiB
        Used                              : 5 MiB
        Free                              : 251 MiB
    Compute Mode                          : Default
    Utilization
        Gpu                               : 35 %
        Memory                            : 7 %
        Encoder                           : 0 %
        Decoder                           : 0 %
    Temperature
        GPU Current Temp                  : 58 C
        GPU T.Limit Temp                  : N/A
        GPU Shutdown Temp                 : 98 C
        GPU Slowdown Temp                 : 95 C
    Power Readings
        Power Management                  : Supported
        Power Draw                        : 83.48 W
        Power Limit                       : 350.00 W
        Default Power Limit               : 350.00 W
        Enforced Power Limit              : 350.00 W
    Clocks
        Graphics                          : 810 MHz
        SM                                : 810 MHz
    Processes
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 1624
            Type                          : G
            Name                          : /usr/lib/xorg/Xorg
            Used GPU Memory               : 630 MiB`;

describe('nvidia-smi outputs beyond the fixture folder', () => {
  it('reads a Windows 442.50 table: WDDM, no MIG row, C+G processes with N/A memory', () => {
    const r = ok(WIN_442);
    assert.equal(r.format, 'table');
    assert.equal(r.driverVersion, '442.50');
    assert.equal(r.cudaVersion, '10.2');
    assert.equal(r.gpus.length, 1);
    const g = r.gpus[0]!;
    assert.equal(g.name, 'GeForce RTX 206...');
    assert.equal(g.nameTruncated, true);
    assert.equal(g.driverModel, 'WDDM');
    assert.equal(g.temperatureC, 38);
    assert.equal(g.powerDrawW, 17);
    assert.equal(g.powerLimitW, 215);
    assert.equal(g.memoryUsedMiB, 616);
    assert.equal(g.memoryTotalMiB, 8192);
    assert.equal(g.utilizationGpuPct, 2);
    assert.equal(g.migMode, null);
    assert.equal(r.processes.length, 11);
    assert.deepEqual(
      r.processes.map((p) => p.usedMemoryMiB),
      new Array(11).fill(null),
    );
    assert.equal(r.processes[4]!.name, '...es\\Google\\Chrome\\Application\\chrome.exe');
    assert.equal(r.processes[10]!.name, 'C:\\Softwares\\Microsoft VS Code\\Code.exe');
    assert.equal(r.processes[10]!.pid, 14020);
    assert.equal(r.processes[10]!.type, 'C+G');
  });

  it('reads the 89-column Windows layout (531.88), power limit N/A', () => {
    const r = ok(WIN_531);
    assert.equal(r.driverVersion, '531.88');
    assert.equal(r.cudaVersion, '12.1');
    const g = r.gpus[0]!;
    assert.equal(g.name, 'NVIDIA GeForce RTX 3050 4...');
    assert.equal(g.driverModel, 'WDDM');
    assert.equal(g.powerDrawW, 8);
    assert.equal(g.powerLimitW, null);
    assert.equal(g.memoryTotalMiB, 4096);
    assert.equal(g.migMode, null);
  });

  it('reads a Windows 471.35 table with a MIG M. row', () => {
    const r = ok(WIN_471);
    assert.equal(r.gpus[0]!.name, 'Quadro T1000');
    assert.equal(r.gpus[0]!.nameTruncated, false);
    assert.equal(r.gpus[0]!.temperatureC, 52);
    assert.equal(r.gpus[0]!.memoryUsedMiB, 287);
  });

  it('reads `nvidia-smi -q` plain text', () => {
    const r = ok(Q_TEXT_3090);
    assert.equal(r.format, 'text');
    assert.equal(r.driverVersion, '525.125.06');
    assert.equal(r.cudaVersion, '12.0');
    assert.equal(r.gpus.length, 1);
    const g = r.gpus[0]!;
    assert.equal(g.name, 'NVIDIA GeForce RTX 3090');
    assert.equal(g.uuid, 'GPU-58f16df2-6eee-bfac-bdc1-13e0091441b5');
    assert.equal(g.pciBusId, '00000000:01:00.0');
    assert.equal(g.memoryTotalMiB, 24576);
    assert.equal(g.memoryUsedMiB, 1788);
    assert.equal(g.utilizationGpuPct, 35);
    assert.equal(g.temperatureC, 58);
    assert.equal(g.powerDrawW, 83.48);
    assert.equal(g.powerLimitW, 350);
    assert.equal(g.migMode, null);
    assert.deepEqual(r.processes.map((p) => [p.pid, p.type, p.name, p.usedMemoryMiB]), [[1624, 'G', '/usr/lib/xorg/Xorg', 630]]);
  });

  it('finds the table inside a login shell transcript (motd before, prompt after) and with CRLF line ends', () => {
    const noisy = 'Welcome to AutoDL\r\n+--------AutoDL--------+\r\n目录说明: /root/autodl-tmp\r\nroot@container:~# nvidia-smi\r\n' + WIN_471.replace(/\n/g, '\r\n') + 'root@container:~# ';
    const r = ok(noisy);
    assert.equal(r.driverVersion, '471.35');
    assert.equal(r.gpus.length, 1);
    assert.equal(r.gpus[0]!.name, 'Quadro T1000');
  });
});

// Driver 535.129.03, 2× A100 (GPU 0 in MIG mode with 4 MIG devices), 89 columns: the CEEMS
// exporter docs (index id 39850270105).
const A100_MIG_535 = `Fri Oct 11 12:04:56 2024       
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA A100-PCIE-40GB          On  | 00000000:21:00.0 Off |                   On |
| N/A   28C    P0              31W / 250W |     50MiB / 40960MiB |     N/A      Default |
|                                         |                      |              Enabled |
+-----------------------------------------+----------------------+----------------------+
|   1  NVIDIA A100-PCIE-40GB          On  | 00000000:81:00.0 Off |                    0 |
| N/A   27C    P0              34W / 250W |      4MiB / 40960MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+

+---------------------------------------------------------------------------------------+
| MIG devices:                                                                          |
+------------------+--------------------------------+-----------+-----------------------+
| GPU  GI  CI  MIG |                   Memory-Usage |        Vol|      Shared           |
|      ID  ID  Dev |                     BAR1-Usage | SM     Unc| CE ENC DEC OFA JPG    |
|                  |                                |        ECC|                       |
|==================+================================+===========+=======================|
|  0    3   0   0  |              12MiB /  9856MiB  | 14      0 |  1   0    1    0    0 |
|                  |               0MiB / 16383MiB  |           |                       |
+------------------+--------------------------------+-----------+-----------------------+
|  0    4   0   1  |              12MiB /  9856MiB  | 14      0 |  1   0    1    0    0 |
|                  |               0MiB / 16383MiB  |           |                       |
+------------------+--------------------------------+-----------+-----------------------+
|  0    5   0   2  |              12MiB /  9856MiB  | 14      0 |  1   0    1    0    0 |
|                  |               0MiB / 16383MiB  |           |                       |
+------------------+--------------------------------+-----------+-----------------------+
|  0    6   0   3  |              12MiB /  9856MiB  | 14      0 |  1   0    1    0    0 |
|                  |               0MiB / 16383MiB  |           |                       |
+------------------+--------------------------------+-----------+-----------------------+
                                                                                         
+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|        ID   ID                                                             Usage      |
|=======================================================================================|
|  No running processes found                                                           |
+---------------------------------------------------------------------------------------+
`;

describe('MIG in the default table', () => {
  it('reads MIG mode per GPU and the MIG devices table', () => {
    const r = ok(A100_MIG_535);
    assert.equal(r.gpus.length, 2);
    assert.deepEqual(r.gpus.map((g) => g.migMode), ['enabled', 'disabled']);
    assert.equal(r.gpus[0]!.utilizationGpuPct, null);
    assert.deepEqual(
      r.gpus[0]!.migDevices.map((m) => [m.index, m.gpuInstanceId, m.computeInstanceId, m.memoryUsedMiB, m.memoryTotalMiB, m.multiprocessorCount]),
      [
        [0, 3, 0, 12, 9856, 14],
        [1, 4, 0, 12, 9856, 14],
        [2, 5, 0, 12, 9856, 14],
        [3, 6, 0, 12, 9856, 14],
      ],
    );
    assert.deepEqual(r.gpus[1]!.migDevices, []);
    assert.equal(r.processes.length, 0);
  });

  it('leaves the GPU table when the MIG box follows without a blank line', () => {
    const glued = A100_MIG_535.replace('+\n\n+-----', '+\n+-----');
    assert.notEqual(glued, A100_MIG_535);
    const r = ok(glued);
    assert.equal(r.gpus.length, 2);
    assert.equal(r.gpus[0]!.migDevices.length, 4);
  });
});

describe('XML details the parser must not trip on', () => {
  const T4 = readFileSync(join(NVIDIA_SMI_DIR, 't4_driver515.105.01_q.xml'), 'utf8');

  it('entities, CDATA and comments inside the elements it reads', () => {
    const xml = T4.replace('<product_name>Tesla T4</product_name>', '<product_name>Tesla &amp; T4 &#x263A;</product_name>')
      .replace('<process_name>python</process_name>', '<process_name><![CDATA[python <train.py>]]></process_name>')
      .replace('<uuid>', '<!-- serial masked --><uuid>');
    const r = ok(xml);
    assert.equal(r.gpus[0]!.name, 'Tesla & T4 ☺');
    assert.equal(r.processes[1]!.name, 'python <train.py>');
    assert.equal(r.gpus[0]!.uuid, 'GPU-d37e67a5-91dd-3774-a5cb-99096249601a');
  });

  it('CRLF line ends and a BOM', () => {
    const r = ok('\uFEFF' + T4.replace(/\n/g, '\r\n'));
    assert.equal(r.gpus[0]!.name, 'Tesla T4');
    assert.equal(r.gpus[0]!.memoryTotalMiB, 15360);
  });
});

describe('driver 610 renames', () => {
  it('`-q` text: a deprecated "Driver Version" line still gives the KMD version; Instantaneous Power Draw is read', () => {
    const q = `==============NVSMI LOG==============

Timestamp                                 : Wed Aug 12 21:54:00 2026
Driver Version                            : 610.57.04 [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]
KMD Version                               : 610.57.04
CUDA UMD Version                          : 13.3

Attached GPUs                             : 1
GPU 00000000:0C:00.0
    Product Name                          : NVIDIA GeForce RTX 2080 SUPER
    GPU UUID                              : GPU-df6e7a7c-7314-46f8-abc4-b88b36dcf3aa
    Minor Number                          : 0
    GPU Power Readings
        Average Power Draw                : N/A
        Instantaneous Power Draw          : 97.12 W
        Current Power Limit               : 250.00 W
    Processes                             : None
`;
    const r = ok(q);
    assert.equal(r.driverVersion, '610.57.04');
    assert.equal(r.cudaVersion, '13.3');
    assert.equal(r.gpus[0]!.powerDrawW, 97.12);
    assert.equal(r.gpus[0]!.powerLimitW, 250);
    assert.equal(r.processes.length, 0);
  });
});

// Driver 530.41.03 (Linux, 89 columns, no space before the '|' after "Off"), pasted in a
// README among shell notes (index id 2747838295); text and ASCII art follow the table.
const LINUX_530_IN_NOTES = `sudo apt install nvidia-utils-510-server  # version 510.47.03-0ubuntu3

nvidia-smi
Fri May  5 17:01:10 2023       
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 530.41.03              Driver Version: 530.41.03    CUDA Version: 12.1     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                  Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf            Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA GeForce RTX 3070 L...    Off| 00000000:01:00.0 Off |                  N/A |
| N/A   44C    P0               25W /  N/A|      6MiB /  8192MiB |      0%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
                                                                                         
+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|        ID   ID                                                             Usage      |
|=======================================================================================|
|    0   N/A  N/A      2044      G   /usr/lib/xorg/Xorg                            4MiB |
+---------------------------------------------------------------------------------------+

</pre>

The key's randomart image is:
+--[ED25519 256]--+
|          .+.....|
|         .+.*o.oo|
+----[SHA256]-----+
`;

describe('a table pasted among notes', () => {
  it('reads the 89-column Linux layout and ignores what follows', () => {
    const r = ok(LINUX_530_IN_NOTES);
    assert.equal(r.driverVersion, '530.41.03');
    assert.equal(r.cudaVersion, '12.1');
    assert.deepEqual(r.gpus.map((g) => [g.name, g.nameTruncated, g.powerDrawW, g.powerLimitW, g.memoryUsedMiB, g.migMode]), [['NVIDIA GeForce RTX 3070 L...', true, 25, null, 6, null]]);
    assert.deepEqual(r.processes.map((p) => [p.gpuIndex, p.pid, p.type, p.name, p.usedMemoryMiB]), [[0, 2044, 'G', '/usr/lib/xorg/Xorg', 4]]);
  });
});

// Words for a Diagnosis, in English and Simplified Chinese. The CLI prints this and the
// extension shows it; the verdict itself stays codes and numbers (doctor.ts).
import { freshEnvCommands, freshVenvCommands } from './doctor-fix';
import type { AdviceCode, Diagnosis, Reason, Verdict } from './doctor';
import type { SmiFailure, SmiFailureKind } from './smi/types';

export type DoctorLang = 'en' | 'zh-cn';

const HEADLINE: Record<Verdict, Record<DoctorLang, string>> = {
  ok: { en: 'OK: this torch build runs on this driver and GPU.', 'zh-cn': '正常：当前 PyTorch 与驱动、显卡兼容。' },
  'driver-too-old': { en: 'Driver too old for this PyTorch build: torch.cuda.is_available() will be False.', 'zh-cn': '驱动版本过旧，不支持当前 PyTorch 的 CUDA 版本：torch.cuda.is_available() 会返回 False。' },
  'arch-not-in-wheel': { en: 'This PyTorch build has no kernels for this GPU ("no kernel image is available").', 'zh-cn': '当前 PyTorch 构建不包含这张显卡架构的内核（"no kernel image is available"）。' },
  'cpu-only-torch': { en: 'The installed PyTorch is a CPU-only (or non-CUDA) build.', 'zh-cn': '安装的是 CPU 版（非 CUDA 版）PyTorch。' },
  'cuda-init-failed': { en: 'Versions are compatible, but CUDA failed to initialise: the cause is elsewhere, not the torch/driver pairing.', 'zh-cn': '版本是兼容的，但 CUDA 初始化失败：问题不在 PyTorch 与驱动的版本搭配，而在别处。' },
  'nvml-mismatch': { en: 'NVIDIA driver/library version mismatch: the driver was updated under the running system.', 'zh-cn': 'NVIDIA 驱动与库版本不一致（Driver/library version mismatch）：驱动在系统运行中被更新过。' },
  'gpu-lost': { en: 'A GPU has dropped off this machine ("GPU is lost"): the driver sees it but cannot use it until a reboot.', 'zh-cn': '有显卡掉卡了（"GPU is lost"）：驱动能看到它，但重启前无法使用。' },
  'no-driver': { en: 'No working NVIDIA driver on this machine (nvidia-smi cannot reach it, or is missing).', 'zh-cn': '本机没有可用的 NVIDIA 驱动（nvidia-smi 无法连接驱动或不存在）。' },
  'no-gpu': { en: 'No GPU is attached to this instance (nvidia-smi: "No devices were found").', 'zh-cn': '该实例没有挂载 GPU（nvidia-smi 显示 "No devices were found"），可能处于无卡模式。' },
  'no-torch': { en: 'PyTorch is not installed in this Python.', 'zh-cn': '当前 Python 环境没有安装 PyTorch。' },
  'torch-broken': { en: 'PyTorch is installed but fails to import.', 'zh-cn': 'PyTorch 已安装，但 import 失败。' },
  'not-nvidia': { en: 'This accelerator is not an NVIDIA GPU: CUDA builds of PyTorch cannot use it.', 'zh-cn': '该加速卡不是 NVIDIA GPU，CUDA 版 PyTorch 无法使用。' },
  unknown: { en: 'Not enough information for a verdict.', 'zh-cn': '信息不足，无法给出结论。' },
};

const ADVICE: Record<AdviceCode, Record<DoctorLang, string>> = {
  'fresh-conda-env': {
    en: "Install into a fresh conda env instead of the image's shared base (this box has conda):",
    'zh-cn': '不要装进镜像自带的 base 环境，先新建隔离的 conda 环境（这台机器有 conda）：',
  },
  'fresh-venv': {
    en: 'Install into a fresh venv of the box’s Python (no conda on this box; Debian/Ubuntu images may need python3-venv):',
    'zh-cn': '先用这台机器的 Python 新建隔离的 venv 环境（这台机器没有 conda；Debian/Ubuntu 镜像可能需要先装 python3-venv）：',
  },
  'restart-instance': { en: 'Restart (reboot) the instance so the loaded driver matches its libraries.', 'zh-cn': '重启实例，让已加载的驱动与库版本一致。' },
  'restart-lost-gpu': { en: 'Restart the instance (or container) to get the GPU back; if it happens again, report the machine to the platform or move to another one.', 'zh-cn': '重启实例（或容器）以恢复显卡；若反复出现，请向平台报修或换一台机器。' },
  'install-driver': { en: 'Choose an image/instance with the NVIDIA driver, or ask the platform to fix the driver.', 'zh-cn': '换用带 NVIDIA 驱动的镜像/实例，或联系平台修复驱动。' },
  'start-with-gpu': { en: 'Start the instance with a GPU (not in no-GPU mode).', 'zh-cn': '以有卡模式开机（不要用无卡模式）。' },
  'check-cuda-visible-devices': { en: 'CUDA_VISIBLE_DEVICES hides the GPUs: unset it or set it to 0.', 'zh-cn': 'CUDA_VISIBLE_DEVICES 屏蔽了显卡：unset 它或设为 0。' },
  'remove-cuda-compat': { en: 'A cuda-compat (forward compatibility) library is on LD_LIBRARY_PATH but this GPU does not support it: remove it from LD_LIBRARY_PATH.', 'zh-cn': 'LD_LIBRARY_PATH 中有 cuda-compat 前向兼容库，但这张卡不支持：把它从 LD_LIBRARY_PATH 中去掉。' },
  'free-gpu-memory': { en: 'GPU memory is full: stop the other processes using it (see nvidia-smi).', 'zh-cn': '显存已被占满：结束占用显存的其他进程（见 nvidia-smi）。' },
  'reinstall-torch': { en: 'Reinstall PyTorch (pip uninstall -y torch, then the pip command above).', 'zh-cn': '重新安装 PyTorch（先 pip uninstall -y torch，再执行上面的 pip 命令）。' },
  'use-vendor-image': { en: "Use the vendor's PyTorch build (e.g. torch_npu on Ascend); custom CUDA ops will not run.", 'zh-cn': '使用厂商适配的 PyTorch（如昇腾的 torch_npu）；自定义 CUDA 算子无法运行。' },
};

function reasonLine(r: Reason, lang: DoctorLang): string | null {
  const zh = lang === 'zh-cn';
  const v = (k: string): string => String(r[k] ?? '?');
  switch (r.code) {
    case 'driver-max-cuda':
      return zh ? `驱动支持的最高 CUDA：${v('driverMaxCuda')}${r.source === 'driver-table' ? '（按驱动版本查表）' : r.source === 'torch-error' ? '（来自 PyTorch 报错）' : ''}` : `Driver supports CUDA up to ${v('driverMaxCuda')}${r.source === 'driver-table' ? ' (from the driver version)' : r.source === 'torch-error' ? " (from PyTorch's error)" : ''}`;
    case 'torch-cuda-assumed':
      return zh ? `假定 PyTorch 为 PyPI 默认构建：CUDA ${v('torchCuda')}${r.source === 'pypi-default-unverified' ? '（未核实，请看 torch.version.cuda）' : ''}` : `Assuming the PyPI default build: CUDA ${v('torchCuda')}${r.source === 'pypi-default-unverified' ? ' (unverified: check torch.version.cuda)' : ''}`;
    case 'wheel-needs-newer-driver':
      return zh ? `PyTorch 使用 CUDA ${v('torchCuda')} 构建，需要驱动 ≥ ${v('needDriver')}；本机驱动 ${r.driverVersion ?? '?'}（最高 CUDA ${v('driverMaxCuda')}）` : `PyTorch is built with CUDA ${v('torchCuda')}, which needs driver ≥ ${v('needDriver')}; this driver is ${r.driverVersion ?? '?'} (CUDA ≤ ${v('driverMaxCuda')})`;
    case 'minor-version-compat':
      return zh ? `CUDA ${v('torchCuda')} 构建可在最高 CUDA ${v('driverMaxCuda')} 的驱动上运行（小版本兼容，驱动 ≥ ${v('familyMinDriver')} 即可）` : `A CUDA ${v('torchCuda')} build runs on a CUDA ${v('driverMaxCuda')} driver (minor-version compatibility: driver ≥ ${v('familyMinDriver')})`;
    case 'arch-missing':
      return zh ? `显卡计算能力 ${v('computeCapability')} 不在该构建支持的架构中（${v('archs')}）` : `GPU compute capability ${v('computeCapability')} is not among this build's architectures (${v('archs')})`;
    case 'compute-capability-from-name':
      return zh ? `按显卡型号 ${v('name')} 推断计算能力 ${v('computeCapability')}` : `Compute capability ${v('computeCapability')} inferred from the GPU name ${v('name')}`;
    case 'release-kept':
      return zh ? `保留 PyTorch ${v('to')}，换成 CUDA ${v('cuda')} 构建` : `Keeps PyTorch ${v('to')}, CUDA ${v('cuda')} build`;
    case 'release-changed':
      return r.from
        ? zh ? `PyTorch ${v('from')} 没有适合本机的构建，改用 ${v('to')}（CUDA ${v('cuda')}）` : `No build of PyTorch ${v('from')} fits this machine: use ${v('to')} (CUDA ${v('cuda')})`
        : zh ? `适合本机的 PyTorch：${v('to')}（CUDA ${v('cuda')}）` : `PyTorch that fits this machine: ${v('to')} (CUDA ${v('cuda')})`;
    case 'gpu-too-old-for-any-wheel':
      return zh ? `计算能力 ${v('computeCapability')} 的显卡没有任何官方 PyTorch 构建支持：换一张卡` : `No official PyTorch build supports compute capability ${v('computeCapability')}: rent a newer GPU`;
    case 'no-wheel-fits':
      return zh ? '没有任何官方 PyTorch 构建适合这台机器的驱动和显卡' : 'No official PyTorch build fits this driver and GPU';
    case 'cpu-build':
      return zh ? `${v('torchVersion')} 不带 CUDA` : `${v('torchVersion')} has no CUDA`;
    case 'rocm-build':
      return zh ? `${v('torchVersion')} 是 ROCm（AMD）构建` : `${v('torchVersion')} is a ROCm (AMD) build`;
    case 'versions-compatible':
      return zh ? `CUDA ${v('torchCuda')} 构建与最高 CUDA ${v('driverMaxCuda')} 的驱动兼容，不要换 wheel` : `The CUDA ${v('torchCuda')} build is compatible with this CUDA ${v('driverMaxCuda')} driver: changing the wheel will not help`;
    case 'cuda-unavailable':
    case 'cuda-op-failed':
      return r.error ? (zh ? `错误信息：${v('error')}` : `Error: ${v('error')}`) : null;
    case 'cuda-visible-devices-hides-gpus':
      return `CUDA_VISIBLE_DEVICES="${v('value')}"`;
    case 'nvml-mismatch':
      return r.nvmlVersion ? (zh ? `NVML 库版本 ${v('nvmlVersion')}` : `NVML library version ${v('nvmlVersion')}`) : null;
    case 'not-nvidia':
      return r.name ? (zh ? `设备：${v('name')}` : `Device: ${v('name')}`) : null;
    case 'torch-not-installed':
      return zh ? `Python ${v('python')}` : `Python ${v('python')}`;
    case 'torch-import-failed':
      return zh ? `import torch 报错：${v('error')}` : `import torch failed: ${v('error')}`;
    case 'torch-release-unknown':
      return zh ? `不认识的 PyTorch 版本 ${v('torchVersion')}：请带上 +cuXYZ 后缀或运行探测` : `Unknown PyTorch release ${v('torchVersion')}: give its +cuXYZ tag or run the probe`;
    case 'driver-unknown':
      return zh ? '驱动版本未知，无法判断' : 'Driver version unknown: the pairing was not checked';
    case 'probe-failed':
      return zh ? `探测脚本失败：${v('message')}` : `The torch probe failed: ${v('message')}`;
    case 'gpu-lost':
      return zh ? `nvidia-smi：${v('message')}` : `nvidia-smi: ${v('message')}`;
    case 'nvml-init-error':
      return zh ? `NVML 初始化失败（容器可能失去了 GPU 设备）：${v('message')}` : `NVML could not start (the container may have lost its GPU devices): ${v('message')}`;
    case 'smi-failed':
      return zh ? `nvidia-smi 失败：${v('kind')}` : `nvidia-smi failed: ${v('kind')}`;
    default:
      return null;
  }
}

export function describeDiagnosis(d: Diagnosis, lang: DoctorLang = 'en'): string {
  const zh = lang === 'zh-cn';
  const lines: string[] = [HEADLINE[d.verdict][lang]];
  const facts: string[] = [];
  if (d.gpuName) facts.push(`${zh ? '显卡' : 'GPU'}: ${d.gpuName}${d.computeCapability ? ` (sm_${d.computeCapability.replace('.', '')})` : ''}`);
  if (d.driverVersion || d.driverMaxCuda) facts.push(`${zh ? '驱动' : 'Driver'}: ${d.driverVersion ?? '?'}${d.driverMaxCuda ? ` (CUDA ≤ ${d.driverMaxCuda})` : ''}`);
  if (d.torchVersion) facts.push(`PyTorch: ${d.torchVersion}${d.torchCuda ? ` (CUDA ${d.torchCuda})` : ''}`);
  if (facts.length) lines.push(facts.join('   '));
  for (const r of d.reasons) {
    const line = reasonLine(r, lang);
    if (line) lines.push(`  - ${line}`);
  }
  if (d.fix.pip || d.fix.minDriver || d.fix.env?.length) {
    lines.push(zh ? '解决办法：' : 'Fix:');
    if (d.fix.env?.includes('fresh-conda-env') && d.fix.pip) lines.push(`  ${ADVICE['fresh-conda-env'][lang]} ${freshEnvCommands(d.pythonVersion).join(' && ')}`);
    else if (d.fix.env?.includes('fresh-venv') && d.fix.pip) lines.push(`  ${ADVICE['fresh-venv'][lang]} ${freshVenvCommands().join(' && ')}`);
    if (d.fix.pip) lines.push(`  ${d.fix.pip}`);
    if (d.fix.minDriver) lines.push(zh ? `  ${d.fix.pip ? '或者' : ''}换一台驱动 ≥ ${d.fix.minDriver} 的机器/镜像` : `  ${d.fix.pip ? 'or ' : ''}use a machine/image with driver ≥ ${d.fix.minDriver}`);
    for (const a of d.fix.env ?? []) if (!((a === 'fresh-conda-env' || a === 'fresh-venv') && d.fix.pip)) lines.push(`  ${ADVICE[a][lang]}`);
  }
  return lines.join('\n') + '\n';
}

const SMI_FAILURE: Record<SmiFailureKind, Record<DoctorLang, string>> = {
  'not-found': { en: 'No NVIDIA GPU found on this machine: nvidia-smi is not installed', 'zh-cn': '本机未发现 NVIDIA GPU：没有安装 nvidia-smi' },
  'no-driver': { en: 'No NVIDIA GPU usable on this machine: nvidia-smi cannot talk to the NVIDIA driver', 'zh-cn': '本机 NVIDIA GPU 不可用：nvidia-smi 无法与 NVIDIA 驱动通信' },
  'no-devices': { en: 'No NVIDIA GPU on this machine: nvidia-smi found no devices', 'zh-cn': '本机没有 NVIDIA GPU：nvidia-smi 未找到设备' },
  'gpu-lost': { en: 'A GPU has dropped off the bus (reboot to recover it)', 'zh-cn': '显卡掉卡（需重启恢复）' },
  'nvml-mismatch': { en: 'The NVIDIA driver and its library versions differ (driver updated without a reboot)', 'zh-cn': 'NVIDIA 驱动与库版本不一致（驱动更新后未重启）' },
  empty: { en: 'nvidia-smi printed nothing', 'zh-cn': 'nvidia-smi 没有输出' },
  truncated: { en: 'nvidia-smi output was cut off', 'zh-cn': 'nvidia-smi 输出不完整' },
  unrecognized: { en: 'nvidia-smi printed something unexpected', 'zh-cn': 'nvidia-smi 输出无法识别' },
};

/** One line for an nvidia-smi failure, e.g. for a tree item or the CLI. */
export function describeSmiFailure(error: SmiFailure, lang: DoctorLang = 'en'): string {
  return `${SMI_FAILURE[error.kind][lang]} (${error.message})`;
}

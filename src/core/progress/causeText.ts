// Words for why a run ended and what helps on a rented box, in English and Simplified Chinese:
// the CLI (`gpu-rent jobs`, `logs`) and the extension's end-of-run notification both print these.
// Pure: the facts that change a remedy (the storage rate, the card's compute capability) come in.
import { formatCny, type Fen } from '../money';
import type { EndCause, EndCauseKind } from './causes';

export type CauseLang = 'en' | 'zh-cn';

export type RemedyCode =
  | 'smallerBatch'
  | 'gradientCheckpointing'
  | 'qlora4bit'
  | 'moreVram'
  | 'fewerWorkers'
  | 'lighterLoad'
  | 'moreHostRam'
  | 'cleanDisk'
  | 'enlargeDisk'
  | 'ncclDebug'
  | 'ncclInterfaces'
  | 'oneNodeFirst'
  | 'torchForSm'
  | 'driverMatch'
  | 'cudaWheel'
  | 'freeGpu'
  | 'restartInstance'
  | 'launchBlocking'
  | 'rebuildExtensions'
  | 'otherMachine';

export interface Remedy {
  code: RemedyCode;
  text: string;
}

export interface RemedyFacts {
  /** Data disk fen per GB per day, from the instance's pricing or the platform's catalog; unknown → "?". */
  storageFenPerGbDay?: number | null;
  /** "8.6", "12.0": the card's compute capability, for the torch build to install. */
  computeCapability?: string | null;
}

/** GB the disk remedy prices (a checkpoint or two of a 7B model). */
export const EXTRA_DISK_GB = 50;

type Words = Record<CauseLang, string>;

const SUMMARY: Record<EndCauseKind, Words> = {
  cudaOom: { en: 'CUDA out of memory: the GPU ran out of VRAM.', 'zh-cn': 'CUDA 显存不足（CUDA out of memory）：显卡的显存用完了。' },
  hostOom: {
    en: 'The machine ran out of RAM: the process was killed (SIGKILL, as the launcher or the kernel reports it).',
    'zh-cn': '机器内存（RAM，不是显存）不足：进程被强制结束（SIGKILL，由启动器或系统内核报告）。',
  },
  killed: { en: 'The process was killed (SIGKILL), most often by the out-of-memory killer when RAM runs out.', 'zh-cn': '进程被强制结束（SIGKILL），最常见的原因是内存不足被系统的 OOM killer 结束。' },
  diskFull: { en: 'The disk is full (or over its quota): a write, usually a checkpoint save, failed.', 'zh-cn': '磁盘已满（或超出配额）：写入失败，通常是保存检查点时。' },
  nccl: { en: 'NCCL error between GPUs or nodes: a collective failed or timed out.', 'zh-cn': 'GPU 之间或节点之间的 NCCL 通信出错：集合通信失败或超时。' },
  noKernelImage: { en: 'This PyTorch build has no kernels for this GPU (“no kernel image is available”).', 'zh-cn': '当前 PyTorch 构建不包含这张显卡架构的内核（“no kernel image is available”）。' },
  cpuTorch: {
    en: 'This Python has a CPU-only PyTorch (“Torch not compiled with CUDA enabled”): the GPU was never used.',
    'zh-cn': '当前 Python 装的是只支持 CPU 的 PyTorch（“Torch not compiled with CUDA enabled”）：根本没有用上显卡。',
  },
  cudaInit: { en: 'CUDA could not start: the driver is too old for this PyTorch build, or the device is not usable.', 'zh-cn': 'CUDA 无法启动：驱动版本对当前 PyTorch 构建来说太旧，或设备不可用。' },
  illegalAccess: { en: 'CUDA illegal memory access: a kernel read or wrote outside its memory.', 'zh-cn': 'CUDA 非法内存访问（illegal memory access）：某个内核读写了越界的显存。' },
};

const REMEDY_OF: Record<EndCauseKind, RemedyCode[]> = {
  cudaOom: ['smallerBatch', 'gradientCheckpointing', 'qlora4bit', 'freeGpu', 'moreVram'],
  hostOom: ['fewerWorkers', 'lighterLoad', 'moreHostRam'],
  killed: ['fewerWorkers', 'lighterLoad', 'moreHostRam'],
  diskFull: ['cleanDisk', 'enlargeDisk'],
  nccl: ['ncclDebug', 'ncclInterfaces', 'oneNodeFirst'],
  noKernelImage: ['torchForSm'],
  cudaInit: ['driverMatch', 'restartInstance'],
  cpuTorch: ['cudaWheel', 'driverMatch'],
  illegalAccess: ['launchBlocking', 'rebuildExtensions', 'otherMachine'],
};

const sm = (cc: string | null | undefined): string | null => {
  const m = cc ? /^(\d{1,2})\.(\d)$/.exec(cc.trim()) : null;
  return m ? `sm_${m[1]}${m[2]}` : null;
};

function remedyText(code: RemedyCode, lang: CauseLang, f: RemedyFacts): string {
  const zh = lang === 'zh-cn';
  switch (code) {
    case 'smallerBatch':
      return zh ? '减小 batch（每卡 batch size，用更多的梯度累积补足总 batch）或序列长度。' : 'Use a smaller batch (per-device batch size, with more gradient accumulation) or a shorter sequence length.';
    case 'gradientCheckpointing':
      return zh ? '开启梯度检查点（gradient checkpointing）。' : 'Turn on gradient checkpointing.';
    case 'qlora4bit':
      return zh ? '用 4-bit QLoRA 代替全参数或 16 位 LoRA 微调。' : 'Fine-tune with 4-bit QLoRA instead of full or 16-bit LoRA.';
    case 'moreVram':
      return zh ? '或换一张显存更大的卡（或多卡）。' : 'Or rent a card with more VRAM (or more cards).';
    case 'fewerWorkers':
      return zh ? '减少 DataLoader 的 num_workers（以及 preprocessing_num_workers），每个 worker 都会占用一份内存。' : 'Use fewer data loader workers (num_workers, preprocessing_num_workers): each worker holds its own copy in RAM.';
    case 'lighterLoad':
      return zh ? '减少加载时的内存占用：low_cpu_mem_usage、分片加载、流式数据集；DeepSpeed 的 CPU offload 也吃内存。' : 'Load lighter: low_cpu_mem_usage, sharded checkpoints, a streaming dataset; DeepSpeed CPU offload needs host RAM too.';
    case 'moreHostRam':
      return zh ? '或换一台内存（RAM）更大的实例：租用时看清内存大小，不只是显存。' : 'Or move to a box with more host RAM (check the RAM, not only the VRAM, when renting).';
    case 'cleanDisk':
      return zh
        ? '清理数据盘：删除旧检查点（save_total_limit 只保留最近几个）、~/.cache/huggingface 和 pip 缓存；把输出和缓存（HF_HOME）放到数据盘而不是系统盘。'
        : 'Clean the data disk: delete old checkpoints (save_total_limit keeps the last few), ~/.cache/huggingface and the pip cache; put outputs and caches (HF_HOME) on the data disk, not the system disk.';
    case 'enlargeDisk': {
      const rate = f.storageFenPerGbDay;
      const cost = rate !== null && rate !== undefined && Number.isFinite(rate) && rate >= 0 ? formatCny(Math.round(rate * EXTRA_DISK_GB) as Fen) : '?';
      return zh ? `或扩容数据盘：多 ${EXTRA_DISK_GB} GB 每天 ${cost}。` : `Or enlarge the data disk: ${EXTRA_DISK_GB} GB more costs ${cost}/day.`;
    }
    case 'ncclDebug':
      return zh ? '用 NCCL_DEBUG=INFO 重新运行，看清是哪一步、哪块网卡出错。' : 'Rerun with NCCL_DEBUG=INFO to see which step and which interface failed.';
    case 'ncclInterfaces':
      return zh
        ? '检查网络设置：NCCL_SOCKET_IFNAME 设为节点间互通的网卡（如 eth0），没有 InfiniBand 时 NCCL_IB_DISABLE=1，卡间不支持 P2P 时 NCCL_P2P_DISABLE=1；各节点的 NCCL/PyTorch 版本一致。'
        : 'Check the network settings: NCCL_SOCKET_IFNAME set to the interface the nodes share (e.g. eth0), NCCL_IB_DISABLE=1 without InfiniBand, NCCL_P2P_DISABLE=1 on cards without P2P; the same NCCL/PyTorch versions on every node.';
    case 'oneNodeFirst':
      return zh ? '先在一个节点（单卡或单机多卡）上跑通，再扩到多节点；长时间保存检查点时调大超时（ddp_timeout）。' : 'Run on one node first (one GPU, then all GPUs of one box) before going multi-node; raise the timeout (ddp_timeout) when checkpoint saves take long.';
    case 'torchForSm': {
      const s = sm(f.computeCapability);
      return zh
        ? `安装包含这张卡架构${s ? `（${s}）` : ''}内核的 PyTorch 构建（如 RTX 50 系列的 sm_120 需要 cu128 构建）；“Check GPU” / gpu-rent doctor 会给出合适的版本。`
        : `Install a PyTorch build with kernels for this card${s ? ` (${s})` : ''} (e.g. RTX 50-series sm_120 needs a cu128 build); Check GPU / gpu-rent doctor names the one that fits.`;
    }
    case 'driverMatch':
      return zh ? '安装与驱动匹配的 PyTorch CUDA 版本（gpu-rent doctor 会检查驱动和 PyTorch 的搭配），或换用驱动更新的镜像/机器。' : 'Install a PyTorch CUDA build the driver supports (gpu-rent doctor checks the pairing), or pick an image/machine with a newer driver.';
    case 'cudaWheel':
      return zh
        ? '安装 PyTorch 的 CUDA 版（版本号带 +cuXXX，如 +cu121，取驱动支持的 CUDA 版本），而不是 pip 默认装上的 +cpu 版：pip show torch / python -c "import torch; print(torch.version.cuda)" 可以看出来；requirements 里固定的 torch 也要指向 CUDA 版的索引。'
        : 'Install the CUDA build of PyTorch (a +cuXXX version such as +cu121, for a CUDA the driver supports), not the +cpu one pip picked: pip show torch / python -c "import torch; print(torch.version.cuda)" tells; a torch pinned in requirements must point at the CUDA index too.';
    case 'freeGpu':
      return zh ? '用 nvidia-smi 看看卡上是否还有别的进程（上一次没退出的训练、Jupyter 内核）占着显存，结束它再跑。' : 'Check nvidia-smi for another process holding the card (an earlier run still alive, a Jupyter kernel) and stop it first.';
    case 'restartInstance':
      return zh ? '若版本搭配没问题，重启实例；仍然失败就换一台机器。' : 'If the versions fit, restart the instance; if it still fails, move to another machine.';
    case 'launchBlocking':
      return zh ? '用 CUDA_LAUNCH_BLOCKING=1 重新运行，找到出错的那个算子。' : 'Rerun with CUDA_LAUNCH_BLOCKING=1 to find the operation that fails.';
    case 'rebuildExtensions':
      return zh ? '重新为这张卡和当前 PyTorch 编译自定义 CUDA 扩展（flash-attn、apex、mmcv 等），检查索引/形状越界。' : 'Rebuild custom CUDA extensions (flash-attn, apex, mmcv …) for this card and this PyTorch, and check indices/shapes for out-of-range values.';
    case 'otherMachine':
      return zh ? '代码没问题却反复出现时，可能是机器故障（nvidia-smi 报 Xid 错误）：向平台报修或换一台机器。' : 'If it recurs with code that works elsewhere, the machine may be faulty (Xid errors): report it to the platform or move to another one.';
  }
}

/** One sentence: what happened. */
export function causeSummary(c: Pick<EndCause, 'kind'>, lang: CauseLang = 'en'): string {
  return SUMMARY[c.kind][lang];
}

/** What helps, most useful first. */
export function causeRemedies(c: Pick<EndCause, 'kind'>, lang: CauseLang = 'en', facts: RemedyFacts = {}): Remedy[] {
  return REMEDY_OF[c.kind].map((code) => ({ code, text: remedyText(code, lang, facts) }));
}

/** `zh-cn` for a Chinese UI or `--lang zh-cn`, else English. */
export function causeLang(locale: string | undefined | null): CauseLang {
  return locale && /^zh\b/i.test(locale) ? 'zh-cn' : 'en';
}

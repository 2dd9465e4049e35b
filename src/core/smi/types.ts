// The one model every nvidia-smi output format is parsed into. Numbers are in the units the
// field names say (MiB, %, °C, W); anything nvidia-smi prints as N/A, [N/A], [Not Supported],
// [Insufficient Permissions] and the like is null.

export type SmiFormat = 'table' | 'csv' | 'xml' | 'text' | 'version' | 'list';

export interface SmiMigDevice {
  index: number | null;
  gpuInstanceId: number | null;
  computeInstanceId: number | null;
  memoryTotalMiB: number | null;
  memoryUsedMiB: number | null;
  multiprocessorCount: number | null;
}

export interface SmiGpu {
  index: number | null;
  /** As printed; the default table cuts long names ("NVIDIA GeForce RTX 2080 ..."): see nameTruncated. */
  name: string | null;
  nameTruncated: boolean;
  uuid: string | null;
  pciBusId: string | null;
  memoryTotalMiB: number | null;
  memoryUsedMiB: number | null;
  utilizationGpuPct: number | null;
  temperatureC: number | null;
  powerDrawW: number | null;
  powerLimitW: number | null;
  /** "8.6" when the output carries it (CSV compute_cap, newer XML); else null. */
  computeCapability: string | null;
  /** 'enabled' | 'disabled'; null where the GPU has no MIG or the output does not say. */
  migMode: 'enabled' | 'disabled' | null;
  migDevices: SmiMigDevice[];
  /** Windows driver model (WDDM, TCC, MCDM) when printed; null on Linux. */
  driverModel: string | null;
}

/** A GPU with nothing known yet: parsers fill in what their format prints. */
export function emptyGpu(): SmiGpu {
  return {
    index: null,
    name: null,
    nameTruncated: false,
    uuid: null,
    pciBusId: null,
    memoryTotalMiB: null,
    memoryUsedMiB: null,
    utilizationGpuPct: null,
    temperatureC: null,
    powerDrawW: null,
    powerLimitW: null,
    computeCapability: null,
    migMode: null,
    migDevices: [],
    driverModel: null,
  };
}

export interface SmiProcess {
  gpuIndex: number | null;
  gpuUuid: string | null;
  gpuInstanceId: number | null;
  computeInstanceId: number | null;
  pid: number | null;
  /** C, G, C+G, M, M+C … as printed. */
  type: string | null;
  name: string;
  usedMemoryMiB: number | null;
}

export interface SmiReport {
  format: SmiFormat;
  driverVersion: string | null;
  /** The newest CUDA the driver supports, as nvidia-smi prints it (driverMaxCuda); null when not printed. */
  cudaVersion: string | null;
  gpus: SmiGpu[];
  processes: SmiProcess[];
  /** Set when the output was incomplete but still gave GPUs: what is missing. */
  partial?: SmiPartial;
}

/** What an incomplete output lacked: its Processes box was cut off, or some GPUs did not answer. */
export interface SmiPartial {
  processesCut?: boolean;
  /** The GPUs nvidia-smi could not reach, as it names them ("GPU1: 0000:1B:00.0"), with its reason. */
  lostGpus?: Array<{ gpu: string; reason: string }>;
}

export type SmiFailureKind =
  | 'no-driver' // "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver"
  | 'nvml-mismatch' // "Failed to initialize NVML: Driver/library version mismatch"
  | 'gpu-lost' // "Unable to determine the device handle for GPU …: GPU is lost. Reboot the system to recover this GPU"
  | 'no-devices' // "No devices were found" (e.g. a no-GPU-mode instance, a container without --gpus)
  | 'not-found' // the shell could not find nvidia-smi
  | 'empty'
  | 'truncated'
  | 'unrecognized';

export interface SmiFailure {
  kind: SmiFailureKind;
  /** The line of the output that shows the problem (or a short description). */
  message: string;
  /** Extra numbers where the output gives them, e.g. the NVML library version on a mismatch. */
  nvmlVersion?: string;
}

export type SmiResult = { ok: true; report: SmiReport } | { ok: false; error: SmiFailure };

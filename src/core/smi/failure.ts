// Recognises what nvidia-smi (or the shell) prints instead of a report. Each failure is its
// own kind because each has its own fix: no driver loaded, a driver reloaded under a running
// library (reboot), a box without GPUs (no-GPU mode), or no nvidia-smi at all.
import type { SmiFailure } from './types';

function lineWith(text: string, re: RegExp): string {
  for (const line of text.split(/\r?\n/)) if (re.test(line)) return line.trim().slice(0, 300);
  return '';
}

export function detectFailure(text: string): SmiFailure | null {
  if (text.trim() === '') return { kind: 'empty', message: 'nvidia-smi printed nothing' };
  const mismatch = /Failed to initialize NVML:\s*Driver\/library version mismatch/i;
  if (mismatch.test(text)) {
    const nvml = /NVML library version:\s*([\d.]+)/i.exec(text);
    return { kind: 'nvml-mismatch', message: lineWith(text, mismatch), ...(nvml ? { nvmlVersion: nvml[1]! } : {}) };
  }
  // A GPU the driver knows but cannot reach (fallen off the bus, Xid 79): only a reboot brings it back.
  const lost = /Unable to determine the device handle for GPU|GPU is lost|fallen off the bus/i;
  if (lost.test(text)) return { kind: 'gpu-lost', message: lineWith(text, lost) };
  const noDriver = /couldn't communicate with the NVIDIA driver|could not communicate with the NVIDIA driver|Failed to initialize NVML:\s*(?:Unknown Error|GPU access blocked|Insufficient Permissions)|NVIDIA driver is not loaded|couldn't find libnvidia-ml\.so|NVML_ERROR_DRIVER_NOT_LOADED/i;
  if (noDriver.test(text)) return { kind: 'no-driver', message: lineWith(text, noDriver) };
  const notFound = /nvidia-smi: (?:command )?not found|nvidia-smi: No such file or directory|command not found: nvidia-smi|'nvidia-smi' is not recognized|nvidia-smi: not found|exec: "nvidia-smi": executable file not found/i;
  if (notFound.test(text)) return { kind: 'not-found', message: lineWith(text, notFound) };
  const noDevices = /^[ \t]*No devices were found[ \t]*$/im;
  if (noDevices.test(text) && !/Driver Version|KMD Version|<nvidia_smi_log|driver_version/.test(text)) {
    return { kind: 'no-devices', message: lineWith(text, noDevices) };
  }
  return null;
}

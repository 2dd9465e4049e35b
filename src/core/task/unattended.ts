// What the box may do by itself at the end of a run while the laptop is away. Only what stops
// the meter and needs no platform token: a shutdown from inside, and only where that is a stop
// that ends the billing, by a login allowed to shut down.
//
// - AutoDL: a shutdown inside the instance is its 关机 (AutoDL's help: "实例内执行 shutdown 命令
//   关机"); the GPU stops billing, the data disk bills on per GB per day (the field report).
// - 阿里云 ECS and 腾讯云 CVM: an OS shutdown leaves a pay-as-you-go instance billing (阿里云's
//   economical stop mode, 停机不收费, applies to StopInstance through the API; 腾讯云's
//   StopChargingMode likewise), so the box does not pretend: it keeps billing until the laptop
//   is back, and the start line says so.
// - An SSH login (no platform): the task asked for a power-off; a root or sudo -n login does it.
// - No-GPU mode and release need the platform's API: never from the box.
import type { TaskEnd } from './types';

export type BoxPowerKind = 'root' | 'sudo' | 'none' | 'unknown';

export type UnattendedWhy =
  /** end: none — the box keeps running (and billing) after the run, as the task asked. */
  | 'task-keeps-running'
  /** end_unattended: none. */
  | 'chosen-none'
  /** AutoDL's shutdown from inside stops the GPU's billing. */
  | 'autodl-shutdown'
  /** An SSH login as root / sudo -n powers the box off, as the task asked. */
  | 'ssh-power-off'
  /** 阿里云/腾讯云: a shutdown from inside keeps billing. */
  | 'cloud-keeps-billing'
  /** The login cannot shut the box down (not root, no sudo -n). */
  | 'not-root'
  /** A platform whose stop-from-inside billing no source states. */
  | 'platform-unknown';

export interface UnattendedEnd {
  powerOff: boolean;
  why: UnattendedWhy;
  /** What the task's end asked for that the box cannot do (no-gpu, release): done when the laptop is back. */
  laterOnLaptop: TaskEnd | null;
}

/**
 * `platform`: null for an SSH login; else whether a plain stop (which a shutdown from inside
 * is) keeps the compute billing (the descriptor's keepChargingStopBills: 阿里云, 腾讯云), and
 * whether the platform is one whose stop-from-inside is documented at all (AutoDL's is).
 */
export function unattendedEnd(o: { platform: { keepChargingStopBills: boolean; insideShutdownIsStop: boolean } | null; power: BoxPowerKind; end: TaskEnd; chosen?: 'power-off' | 'none' }): UnattendedEnd {
  const later = o.end === 'no-gpu' || o.end === 'release' ? o.end : null;
  if (o.end === 'none') return { powerOff: false, why: 'task-keeps-running', laterOnLaptop: null };
  if (o.chosen === 'none') return { powerOff: false, why: 'chosen-none', laterOnLaptop: later ?? (o.end === 'power-off' ? 'power-off' : null) };
  const p = o.platform;
  if (p?.keepChargingStopBills) return { powerOff: false, why: 'cloud-keeps-billing', laterOnLaptop: o.end };
  if (p && !p.insideShutdownIsStop) return { powerOff: false, why: 'platform-unknown', laterOnLaptop: o.end };
  if (o.power !== 'root' && o.power !== 'sudo') return { powerOff: false, why: 'not-root', laterOnLaptop: o.end };
  return { powerOff: true, why: p === null ? 'ssh-power-off' : 'autodl-shutdown', laterOnLaptop: later };
}

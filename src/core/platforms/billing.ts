// What still bills after a power-off, from what the platform reports once it is stopped: 阿里云
// StopCharging / 腾讯云 STOP_CHARGING stop vCPU, memory and GPU billing but not the disks or a
// public IP (EIP); a keep-charging stop (the default on both, and what either applies where
// economical mode is not offered for the instance) keeps billing compute as if it ran. AutoDL
// bills a shut-down instance's paid data disk only. A prepaid (包月/包年) instance's compute was
// paid ahead and runs out at its expiry whatever its state.
import type { PlatformInstance, PlatformKind, PowerOffMode } from './types';

export interface AfterPowerOff {
  /** `stops`: no compute billing while stopped; `bills`: compute keeps billing; `prepaid`: paid ahead, nothing more accrues. */
  compute: 'stops' | 'bills' | 'prepaid';
  /** Disks keep billing (AutoDL: the paid data-disk expansion). */
  disks: true;
  /** A public IP / EIP keeps billing (阿里云, 腾讯云). */
  publicIp: boolean;
  /** Economical mode was asked for and the platform applied keep-charging instead. */
  refused: boolean;
}

const CLOUD = (k: PlatformKind) => k === 'aliyun-ecs' || k === 'tencent-cvm';

/** The mode a power-off asks for: economical wherever the connector offers it, unless the user asked to keep charging. */
export function powerOffModeFor(kind: PlatformKind, keepCharging = false): PowerOffMode {
  return CLOUD(kind) && !keepCharging ? 'stopCharging' : 'keep';
}

/** What still bills once the platform reports the instance stopped (`p` read back after the stop). */
export function afterPowerOff(kind: PlatformKind, asked: PowerOffMode, p: Pick<PlatformInstance, 'stopCharging' | 'billing'>): AfterPowerOff {
  if (!CLOUD(kind)) return { compute: 'stops', disks: true, publicIp: false, refused: false };
  if (p.billing === 'prepaid') return { compute: 'prepaid', disks: true, publicIp: true, refused: false };
  const stops = p.stopCharging === true;
  return { compute: stops ? 'stops' : 'bills', disks: true, publicIp: true, refused: asked === 'stopCharging' && !stops };
}

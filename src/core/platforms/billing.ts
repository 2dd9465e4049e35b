// What still bills after a power-off, from what the platform reports once it is stopped: 阿里云
// StopCharging / 腾讯云 STOP_CHARGING stop vCPU, memory and GPU billing but not the disks or a
// public IP (EIP); a keep-charging stop (the default on both, and what either applies where
// economical mode is not offered for the instance) keeps billing compute as if it ran. AutoDL
// bills a shut-down instance's paid data disk only. A prepaid (包月/包年) instance's compute was
// paid ahead and runs out at its expiry whatever its state.
import { PLATFORM_DESCRIPTORS } from './descriptors';
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

const CLOUD = (k: PlatformKind) => PLATFORM_DESCRIPTORS[k].keepChargingStopBills;

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

/**
 * Which billing account a connector's credentials belong to, without the secret itself: one
 * 阿里云/腾讯云 key added for two regions is one account (its key id); one AutoDL token added
 * twice is one account. AutoDL tokens are JWTs whose payload names the account (`uid`, the way a
 * public client reads the developer token: the API has no user endpoint): a Pro token and a
 * console token naming the same uid are one account, whatever their kind, so its wallet counts
 * once. A token whose payload names no uid is its own account (a fingerprint of it).
 */
export function accountIdentity(kind: PlatformKind, secret: Readonly<Record<string, string>>): string {
  const d = PLATFORM_DESCRIPTORS[kind];
  if (d.accountKeyField) return `${d.catalogPlatform}:${secret[d.accountKeyField] ?? ''}`;
  const t = secret.token ?? '';
  const uid = d.catalogPlatform === 'autodl' ? tokenUid(t) : undefined;
  if (uid !== undefined) return `${d.catalogPlatform}:uid:${uid}`;
  // A token is a secret: only a short digest-like fingerprint of it (not reversible in practice for a long token) is kept.
  let h = 0x811c9dc5;
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193) >>> 0;
  return `${kind}:${t.length}:${h.toString(16)}`;
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The `uid` a JWT's payload names (a positive integer), read without checking the signature (the platform checks it); undefined when it is not one. */
export function tokenUid(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || token.length > 8192) return undefined;
  const seg = parts[1]!.replace(/\+/g, '-').replace(/\//g, '_').replace(/=/g, '');
  let bits = 0;
  let acc = 0;
  const bytes: number[] = [];
  for (const ch of seg) {
    const v = B64URL.indexOf(ch);
    if (v < 0) return undefined;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes)));
  } catch {
    return undefined;
  }
  const uid = payload && typeof payload === 'object' ? (payload as { uid?: unknown }).uid : undefined;
  return typeof uid === 'number' && Number.isSafeInteger(uid) && uid > 0 ? uid : undefined;
}

// Whether a folder on the box may take a memory-only upload: it must be RAM-backed (tmpfs or
// ramfs, so plaintext never reaches the platform's unencrypted disk), the mount must have
// room, and the box must keep enough free RAM for the training job itself.

export const RAM_FILESYSTEMS = ['tmpfs', 'ramfs'] as const;

export interface RamTargetFacts {
  /** File system type of the nearest existing folder ("tmpfs", "ext2/ext3", "overlayfs" …). */
  fsType: string;
  /** Free bytes on that mount (tmpfs has a size limit: Docker's /dev/shm is 64 MiB). */
  mountAvailableBytes: number | null;
  /** MemAvailable from /proc/meminfo, bytes. */
  memAvailableBytes: number | null;
}

export type RamUploadRefusal =
  | { kind: 'notRamBacked'; fsType: string }
  | { kind: 'mountTooSmall'; needBytes: number; availableBytes: number }
  | { kind: 'ramShort'; needBytes: number; memAvailableBytes: number; reserveBytes: number }
  | { kind: 'memoryUnknown' };

/** RAM kept free for the job by default: 1 GiB. */
export const DEFAULT_RAM_RESERVE_BYTES = 1024 ** 3;

export function isRamFs(fsType: string): boolean {
  return (RAM_FILESYSTEMS as readonly string[]).includes(fsType.trim().toLowerCase());
}

export function checkRamUpload(facts: RamTargetFacts, totalBytes: number, reserveBytes = DEFAULT_RAM_RESERVE_BYTES): { ok: true } | { ok: false; refusal: RamUploadRefusal } {
  if (!isRamFs(facts.fsType)) return { ok: false, refusal: { kind: 'notRamBacked', fsType: facts.fsType } };
  const need = Math.max(0, totalBytes);
  if (facts.memAvailableBytes === null || !Number.isFinite(facts.memAvailableBytes)) return { ok: false, refusal: { kind: 'memoryUnknown' } };
  if (facts.mountAvailableBytes !== null && Number.isFinite(facts.mountAvailableBytes) && need > facts.mountAvailableBytes) {
    return { ok: false, refusal: { kind: 'mountTooSmall', needBytes: need, availableBytes: facts.mountAvailableBytes } };
  }
  if (need + reserveBytes > facts.memAvailableBytes) {
    return { ok: false, refusal: { kind: 'ramShort', needBytes: need, memAvailableBytes: facts.memAvailableBytes, reserveBytes } };
  }
  return { ok: true };
}

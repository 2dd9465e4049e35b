// Is the box the card you pay for? Compares the GPUs a probe saw with the instance's card and
// count. Resellers and mislabeled listings exist; a mismatch is worth saying at once.
import { findCard, findCardWithMemory, type CardSpec } from './cards';

export type RentedCardCheck =
  | { kind: 'match' }
  /** A GPU the catalog cannot name: nothing to compare. */
  | { kind: 'unknown'; seen: string }
  | { kind: 'other-card'; rented: string; seen: string[] }
  | { kind: 'fewer-gpus'; rented: number; seen: number }
  | { kind: 'no-gpu'; rented: number };

const MIB = 1024 * 1024;

/**
 * `gpus` from the probe (names as nvidia-smi prints them, memory in bytes when known).
 * No GPU at all is reported only when the instance is billed for a GPU (not no-GPU mode).
 */
export function checkRentedCard(rentedCard: string, rentedCount: number, gpus: readonly { name: string; memoryTotalBytes?: number }[], specs?: readonly CardSpec[]): RentedCardCheck {
  if (gpus.length === 0) return { kind: 'no-gpu', rented: rentedCount };
  const rented = findCard(rentedCard, specs);
  const seen = gpus.map((g) => ({ name: g.name, card: findCardWithMemory(g.name, g.memoryTotalBytes !== undefined ? g.memoryTotalBytes / MIB : undefined, specs) }));
  const unknown = seen.find((s) => !s.card);
  if (!rented || unknown) return { kind: 'unknown', seen: (unknown ?? seen[0]!).name };
  // Same family is enough (a 40 GB vs 80 GB A100 listing is judged by its memory only when both are known).
  const family = (id: string) => id.split('-')[0];
  const others = seen.filter((s) => family(s.card!.id) !== family(rented.id) || (rented.vramGb && s.card!.vramGb && Math.abs(s.card!.vramGb - rented.vramGb) > 4));
  if (others.length) return { kind: 'other-card', rented: rented.name, seen: [...new Set(others.map((o) => o.name))] };
  if (gpus.length < rentedCount) return { kind: 'fewer-gpus', rented: rentedCount, seen: gpus.length };
  return { kind: 'match' };
}

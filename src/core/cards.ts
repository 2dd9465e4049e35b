// GPU card specs and name matching. The field report gives the 3090 and 4090 figures; the
// rest are public vendor spec-sheet values (each card says which field came from where).
//
// fp16Tflops is the dense, non-tensor-core FP16 figure: the convention the report uses
// (3090 35.6, 4090 82.6). tensorFp16Tflops is the dense tensor-core figure, kept for
// reference; speed estimates use fp16Tflops so that the report's ratio holds.
import { trimEndOf } from './boxLines';

export type CardId =
  | 't4'
  | 'v100-16g'
  | 'v100-32g'
  | 'rtx2080ti'
  | 'rtx3080'
  | 'rtx3090'
  | 'rtx4090'
  | 'a10'
  | 'a100-40g'
  | 'a100-80g'
  | 'h100'
  | 'h800'
  | 'l20'
  | 'l40s'
  | 'ascend-910b';

export type SpecField = 'vramGb' | 'fp16Tflops' | 'tensorFp16Tflops' | 'memoryBandwidthGBs' | 'computeCapability' | 'cuda';

export interface CardSpec {
  id: string;
  /** Display name as people write it ("RTX 3090 24GB"). */
  name: string;
  vendor: 'nvidia' | 'huawei';
  vramGb: number;
  /** Dense FP16 without tensor cores, TFLOPS; null where the vendor publishes no comparable figure. */
  fp16Tflops: number | null;
  /** Dense FP16 on tensor cores (or Ascend cube units), TFLOPS. */
  tensorFp16Tflops: number | null;
  memoryBandwidthGBs: number;
  /** CUDA compute capability "8.6"; null for non-CUDA accelerators. */
  computeCapability: string | null;
  /** false for accelerators that cannot run CUDA code (Ascend): custom CUDA ops fail. */
  cuda: boolean;
  /** Where each figure came from; fields not listed come from `defaultSource`. */
  sources: Partial<Record<SpecField, string>>;
  defaultSource: string;
  /** Regexes over the normalized name (see normalizeCardName). */
  patterns: RegExp[];
  /** Short aliases shown in help. */
  aliases: string[];
}

const VENDOR = 'vendor spec sheet';
const REPORT3 = 'field report §3';

export const cardSpecs: readonly CardSpec[] = [
  {
    id: 't4', name: 'T4 16GB', vendor: 'nvidia', vramGb: 16, fp16Tflops: 16.2, tensorFp16Tflops: 65, memoryBandwidthGBs: 320, computeCapability: '7.5', cuda: true,
    sources: { vramGb: 'field report §1 (T4 16GB)' }, defaultSource: VENDOR, patterns: [/^t4$/], aliases: ['t4', 'Tesla T4'],
  },
  {
    id: 'v100-16g', name: 'V100 16GB', vendor: 'nvidia', vramGb: 16, fp16Tflops: 31.4, tensorFp16Tflops: 125, memoryBandwidthGBs: 900, computeCapability: '7.0', cuda: true,
    sources: { vramGb: 'field report §1 (AI Studio V100 16GB)' }, defaultSource: VENDOR, patterns: [/^v100(sxm2|pcie|s)?(16(gb?)?)?(sxm2|pcie)?$/], aliases: ['v100', 'v100-16g'],
  },
  {
    id: 'v100-32g', name: 'V100 32GB', vendor: 'nvidia', vramGb: 32, fp16Tflops: 31.4, tensorFp16Tflops: 125, memoryBandwidthGBs: 900, computeCapability: '7.0', cuda: true,
    sources: {}, defaultSource: VENDOR, patterns: [/^v100(sxm2|pcie|s)?32(gb?)?(sxm2|pcie)?$/], aliases: ['v100-32g'],
  },
  {
    id: 'rtx2080ti', name: 'RTX 2080 Ti 11GB', vendor: 'nvidia', vramGb: 11, fp16Tflops: 26.9, tensorFp16Tflops: 107.6, memoryBandwidthGBs: 616, computeCapability: '7.5', cuda: true,
    sources: {}, defaultSource: VENDOR, patterns: [/^(rtx)?2080ti(11gb?)?$/], aliases: ['2080ti', 'rtx2080ti'],
  },
  {
    id: 'rtx3080', name: 'RTX 3080 10GB', vendor: 'nvidia', vramGb: 10, fp16Tflops: 29.8, tensorFp16Tflops: 119, memoryBandwidthGBs: 760, computeCapability: '8.6', cuda: true,
    sources: {}, defaultSource: VENDOR, patterns: [/^(rtx)?3080(10gb?)?$/], aliases: ['3080', 'rtx3080'],
  },
  {
    id: 'rtx3090', name: 'RTX 3090 24GB', vendor: 'nvidia', vramGb: 24, fp16Tflops: 35.6, tensorFp16Tflops: 142, memoryBandwidthGBs: 936, computeCapability: '8.6', cuda: true,
    sources: { vramGb: REPORT3, fp16Tflops: REPORT3, memoryBandwidthGBs: REPORT3 }, defaultSource: VENDOR, patterns: [/^(rtx)?3090(24gb?)?$/], aliases: ['3090', 'rtx3090', 'RTX 3090'],
  },
  {
    id: 'rtx4090', name: 'RTX 4090 24GB', vendor: 'nvidia', vramGb: 24, fp16Tflops: 82.6, tensorFp16Tflops: 330, memoryBandwidthGBs: 1008, computeCapability: '8.9', cuda: true,
    sources: { vramGb: REPORT3, fp16Tflops: REPORT3, memoryBandwidthGBs: REPORT3 }, defaultSource: VENDOR, patterns: [/^(rtx)?4090(24gb?)?$/], aliases: ['4090', 'rtx4090', 'RTX 4090'],
  },
  {
    id: 'a10', name: 'A10 24GB', vendor: 'nvidia', vramGb: 24, fp16Tflops: 31.2, tensorFp16Tflops: 125, memoryBandwidthGBs: 600, computeCapability: '8.6', cuda: true,
    sources: {}, defaultSource: VENDOR, patterns: [/^a10(24gb?)?(pcie)?$/], aliases: ['a10'],
  },
  {
    id: 'a100-40g', name: 'A100 40GB', vendor: 'nvidia', vramGb: 40, fp16Tflops: 78, tensorFp16Tflops: 312, memoryBandwidthGBs: 1555, computeCapability: '8.0', cuda: true,
    sources: {}, defaultSource: VENDOR, patterns: [/^a100(sxm4?|pcie)?40(gb?)?(sxm4?|pcie)?$/], aliases: ['a100-40g'],
  },
  {
    id: 'a100-80g', name: 'A100 80GB', vendor: 'nvidia', vramGb: 80, fp16Tflops: 78, tensorFp16Tflops: 312, memoryBandwidthGBs: 2039, computeCapability: '8.0', cuda: true,
    sources: { vramGb: 'field report §3 (A100-80G)' }, defaultSource: VENDOR, patterns: [/^a100$/, /^a100(sxm4?|pcie)?80(gb?)?(sxm4?|pcie)?$/], aliases: ['a100', 'a100-80g'],
  },
  {
    id: 'h100', name: 'H100 80GB', vendor: 'nvidia', vramGb: 80, fp16Tflops: 133.8, tensorFp16Tflops: 989, memoryBandwidthGBs: 3350, computeCapability: '9.0', cuda: true,
    sources: {}, defaultSource: VENDOR, patterns: [/^h100(sxm5?|pcie|nvl)?(80(gb?)?)?(hbm3|hbm2e)?(sxm5?|pcie)?$/], aliases: ['h100'],
  },
  {
    id: 'h800', name: 'H800 80GB', vendor: 'nvidia', vramGb: 80, fp16Tflops: 133.8, tensorFp16Tflops: 989, memoryBandwidthGBs: 3350, computeCapability: '9.0', cuda: true,
    sources: {}, defaultSource: 'vendor spec sheet (same die as H100 SXM; reduced NVLink)', patterns: [/^h800(sxm5?|pcie)?(80(gb?)?)?(hbm3)?(sxm5?|pcie)?$/], aliases: ['h800'],
  },
  {
    id: 'l20', name: 'L20 48GB', vendor: 'nvidia', vramGb: 48, fp16Tflops: 59.8, tensorFp16Tflops: 119.5, memoryBandwidthGBs: 864, computeCapability: '8.9', cuda: true,
    sources: {}, defaultSource: VENDOR, patterns: [/^l20(48gb?)?$/], aliases: ['l20'],
  },
  {
    id: 'l40s', name: 'L40S 48GB', vendor: 'nvidia', vramGb: 48, fp16Tflops: 91.6, tensorFp16Tflops: 362, memoryBandwidthGBs: 864, computeCapability: '8.9', cuda: true,
    sources: {}, defaultSource: VENDOR, patterns: [/^l40s(48gb?)?$/], aliases: ['l40s'],
  },
  {
    id: 'ascend-910b', name: 'Ascend 910B 64GB', vendor: 'huawei', vramGb: 64, fp16Tflops: null, tensorFp16Tflops: 313, memoryBandwidthGBs: 1600, computeCapability: null, cuda: false,
    sources: { cuda: 'field report §3 (custom CUDA ops fail)', tensorFp16Tflops: 'field report §3 says on par with A100' }, defaultSource: 'vendor figures as publicly reported (Huawei publishes few)',
    patterns: [/^(ascend)?910b\d?$/], aliases: ['910b', 'ascend910b'],
  },
];

/**
 * Lowercases and strips vendor words and punctuation: "NVIDIA GeForce RTX 4090" → "rtx4090",
 * "Tesla V100-SXM2-16GB" → "v100sxm216gb", "NVIDIA A100-SXM4-80GB" → "a100sxm480gb".
 */
export function normalizeCardName(name: string): string {
  return name
    .toLowerCase()
    .replace(/\b(nvidia|geforce|tesla|huawei|quadro)\b/g, '')
    .replace(/[^a-z0-9]/g, '');
}

const byId = new Map(cardSpecs.map((c) => [c.id, c]));

/** Finds a card by id, alias or nvidia-smi product name; undefined when unknown. */
export function findCard(nameOrAlias: string, specs: readonly CardSpec[] = cardSpecs): CardSpec | undefined {
  if (typeof nameOrAlias !== 'string') return undefined;
  const trimmed = nameOrAlias.trim().toLowerCase();
  if (!trimmed) return undefined;
  const direct = specs === cardSpecs ? byId.get(trimmed) : specs.find((c) => c.id === trimmed);
  if (direct) return direct;
  const norm = normalizeCardName(nameOrAlias);
  if (!norm) return undefined;
  return specs.find((c) => normalizeCardName(c.id) === norm || c.patterns.some((p) => p.test(norm)));
}

export function cardById(id: string): CardSpec | undefined {
  return byId.get(id);
}

/** The source of one spec figure. */
export function specSource(card: CardSpec, field: SpecField): string {
  return card.sources[field] ?? card.defaultSource;
}

/**
 * Like findCard, but uses the card's memory (nvidia-smi memory.total, MiB) to pick the right
 * variant when the name is ambiguous or truncated ("Tesla V100-SXM2..." in the table view).
 */
export function findCardWithMemory(name: string, memoryMiB: number | undefined, specs: readonly CardSpec[] = cardSpecs): CardSpec | undefined {
  const card = findCard(name, specs) ?? findCard(withoutEllipsis(name), specs);
  if (!card || memoryMiB === undefined || !Number.isFinite(memoryMiB) || memoryMiB <= 0) return card;
  const gib = memoryMiB / 1024;
  const family = card.id.split('-')[0]!;
  const variants = specs.filter((c) => c.id.split('-')[0] === family);
  return variants.reduce((best, c) => (Math.abs(c.vramGb - gib) < Math.abs(best.vramGb - gib) ? c : best), card);
}

/** A name nvidia-smi cut (`NVIDIA GeForce RTX 4090 ...`, `…`) without its dots (by hand: `/\.{2,}$/` is quadratic on long runs of dots). */
function withoutEllipsis(name: string): string {
  if (name.endsWith('…')) return name.slice(0, -1);
  const t = trimEndOf(name, '.');
  return name.length - t.length >= 2 ? t : name;
}

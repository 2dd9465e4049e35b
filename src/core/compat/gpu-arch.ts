// GPU name → CUDA compute capability, for when the probe cannot run (no torch, no CUDA) and
// nvidia-smi does not print compute_cap. Values from NVIDIA's "CUDA GPUs" compute-capability
// list; names as nvidia-smi prints them (with or without "NVIDIA"/"Tesla"/"GeForce"), plus
// the China-market variants rented there (A800, H800, H20, L20, 4090 D).

const RULES: readonly [RegExp, string][] = [
  [/\b(b200|b100|gb200)\b/, '10.0'],
  [/\b(gb300|b300)\b/, '10.3'],
  // GeForce numbers only (RTX 5050…5090): "RTX 5000" / "RTX 4000" / "RTX 3000" are Quadro/Ada
  // workstation cards of older architectures, handled by the rules below.
  [/\brtx\s*50[5-9]0\b|\brtx pro \d+\b/, '12.0'],
  [/\b(h100|h800|h200|h20|gh200)\b/, '9.0'],
  [/\b(l4|l20|l40s?|rtx\s*40[5-9]0|rtx [2456]000 ada|rtx 4500 ada|rtx 6000 ada)\b|\b40[6-9]0\b/, '8.9'],
  [/\b(a100|a800|a30)\b/, '8.0'],
  [/\b(a10g?|a16|a2|a40|a[456]000|a[25]000|a4500|rtx\s*30[5-9]0|a10m)\b|\b30[5-9]0\b/, '8.6'],
  [/\b(t4|t4g|titan rtx|quadro rtx \d+|rtx [3-8]000|rtx\s*20[5-8]0|gtx\s*16\d0|t[46]00|t1000|t1200|tesla t10)\b|\b20[6-8]0\b|\b16[56]0\b/, '7.5'],
  [/\b(v100|titan v|quadro gv100)\b/, '7.0'],
  [/\bp100\b/, '6.0'],
  [/\b(p40|p4|p6|gtx\s*10[5-8]0|gt\s*1030|mx[1-3]50|titan xp?|titan x \(pascal\)|quadro p\d+|p102-100|p104-100|p106-100)\b|\b10[3-8]0\b/, '6.1'],
  [/\b(m40|m60|m6|gtx\s*9[5-8]0|titan x|quadro m\d+)\b/, '5.2'],
  [/\b(gtx\s*750|gtx\s*745|m10)\b/, '5.0'],
  [/\bk80\b/, '3.7'],
  [/\b(k40[a-z]?|k20[a-z]*|titan black|titan z|gtx\s*780)\b/, '3.5'],
  [/\b(k10|k520|grid k520|gtx\s*6[5-9]0)\b/, '3.0'],
  [/\b(nvs\s*5400m|gt\s*[46]\d0m?|gtx\s*[45]\d0)\b/, '2.1'],
  [/^(210|gt 2[2-4]0)$/, '1.2'],
];

/** Accelerators that are not NVIDIA GPUs (CUDA cannot run there at all). */
export const NOT_NVIDIA = /ascend|昇腾|\b910[abc]?\b|cambricon|寒武纪|\bmlu\d*|hygon|\bdcu\b|海光|kunlun|昆仑|moore ?threads|摩尔线程|\bmtt\b|\bradeon\b|\binstinct\b|\bmi[123]\d{2}x?\b|\bamd\b|\bgaudi\b|enflame|燧原|biren|壁仞|iluvatar|天数/i;

export function computeCapabilityForName(name: string): string | null {
  const n = name.toLowerCase().replace(/nvidia|tesla|geforce|\(r\)|-/g, ' ').replace(/\s+/g, ' ').trim();
  if (n === '' || n === 'graphics device') return null;
  for (const [re, cc] of RULES) if (re.test(n)) return cc;
  return null;
}

export function isNotNvidia(name: string): boolean {
  return NOT_NVIDIA.test(name);
}

// Which torch wheel fits a box (its driver, GPU architecture, Python): the doctor's fix names
// the user's release when one of its builds runs there, else the newest release that does.
import { cudaFitsDriver, minDriverFor, type DriverPlatform } from './compat/cuda-driver';
import { archSupports, findRelease, TORCH_RELEASES, wheelArchs, type TorchRelease } from './compat/torch-wheels';
import { compareVersions } from './compat/version';

/** What a wheel must fit on the box. */
export interface BoxFacts {
  driver: { version: string | null; maxCuda: string | null };
  cc: string | null;
  python: string | null;
  platform: DriverPlatform;
}

function fitsBox(ctx: BoxFacts, rel: TorchRelease, cuda: string): boolean {
  if (!ctx.driver.version && !ctx.driver.maxCuda) return false;
  if (!cudaFitsDriver(cuda, ctx.driver, ctx.platform).fits) return false;
  if (ctx.cc && !archSupports(wheelArchs(rel.torch, cuda), ctx.cc)) return false;
  return true;
}

const pythonFits = (rel: TorchRelease, python: string | null): boolean => {
  if (!python || !rel.python) return true;
  const py = python.split('.').slice(0, 2).join('.');
  return compareVersions(py, rel.python.min) >= 0 && compareVersions(py, rel.python.max) <= 0;
};

/** Keep the user's release when one of its builds fits the box; else the newest release that does. */
export function suggestWheel(ctx: BoxFacts, keep: string | null): { release: TorchRelease; cuda: string; kept: boolean } | null {
  const kept = keep ? findRelease(keep) : undefined;
  if (kept) {
    for (const cuda of [...kept.cuda].reverse()) if (fitsBox(ctx, kept, cuda)) return { release: kept, cuda, kept: true };
  }
  for (const rel of TORCH_RELEASES) {
    // Suggest only rows whose torchvision/torchaudio pairing is known.
    if (rel.torchaudio === null && compareVersions(rel.torch, '1.7.0') >= 0) continue;
    if (!pythonFits(rel, ctx.python)) continue;
    for (const cuda of [...rel.cuda].reverse()) if (fitsBox(ctx, rel, cuda)) return { release: rel, cuda, kept: false };
  }
  return null;
}

/** The lowest driver that would let some build of this release (or any release) run on this GPU. */
export function minDriverForGpu(cc: string | null, keep: string | null, platform: DriverPlatform): string | null {
  const rels = [findRelease(keep ?? '')].filter((x): x is TorchRelease => Boolean(x));
  for (const rel of rels.length ? rels : TORCH_RELEASES.slice(0, 1)) {
    for (const cuda of rel.cuda) if (!cc || archSupports(wheelArchs(rel.torch, cuda), cc)) return minDriverFor(cuda, platform);
  }
  return null;
}

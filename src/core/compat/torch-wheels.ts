// PyTorch releases and their CUDA wheel builds, with the matching torchvision/torchaudio,
// transcribed from shared/fixtures/compat/torch-cuda-matrix.md (2026-11-29): PyTorch's
// "previous versions" page (copies in pytorch/pytorch.github.io and the docs site),
// replicate/cog's scraped torch_compatibility.json, and RELEASE.md's compatibility matrix.
import { compareVersions } from './version';

export interface TorchRelease {
  torch: string;
  torchvision: string;
  /** null where no source says which torchaudio goes with it. */
  torchaudio: string | null;
  /** CUDA builds on download.pytorch.org, oldest first ("11.8", "12.1"). */
  cuda: readonly string[];
  /** CUDA of the plain `pip install torch==X` wheel from PyPI on Linux x86_64. */
  pypiCuda: string | null;
  /** Whether pypiCuda is confirmed by a source (false: the common belief, unverified). */
  pypiCudaVerified: boolean;
  python: { min: string; max: string } | null;
}

const r = (torch: string, torchvision: string, torchaudio: string | null, cuda: string[], pypiCuda: string | null, verified: boolean, python: [string, string] | null): TorchRelease => ({
  torch,
  torchvision,
  torchaudio,
  cuda,
  pypiCuda,
  pypiCudaVerified: verified,
  python: python ? { min: python[0], max: python[1] } : null,
});

/** Newest first. 1.8.2 (LTS, separate index) and releases before 1.2 are left out of suggestions. */
export const TORCH_RELEASES: readonly TorchRelease[] = [
  // 2.14.0: CUDA builds from the matrix's §A (REL: 12.6, 13.0, 13.2); torchvision 0.29.0 as a real
  // pip log pairs it ("torch-2.14.0+cpu and torchvision-0.29.0"); torchaudio unknown.
  r('2.14.0', '0.29.0', null, ['12.6', '13.0', '13.2'], '13.0', false, ['3.10', '3.15']),
  // 2.13.0: §B lists cu126, cu130 (cu132 experimental, unconfirmed) and torchvision "0.28.x".
  r('2.13.0', '0.28.0', null, ['12.6', '13.0'], '13.0', false, ['3.10', '3.15']),
  r('2.12.1', '0.27.1', null, ['12.6', '13.0'], '13.0', true, ['3.10', '3.14']),
  r('2.12.0', '0.27.0', null, ['12.6', '13.0'], '13.0', true, ['3.10', '3.14']),
  r('2.11.0', '0.26.0', '2.11.0', ['12.6', '12.8', '13.0'], '12.8', true, ['3.10', '3.14']),
  r('2.10.0', '0.25.0', '2.10.0', ['12.6', '12.8', '13.0'], '12.8', false, ['3.10', '3.14']),
  r('2.9.1', '0.24.1', '2.9.1', ['12.6', '12.8', '13.0'], '12.8', false, ['3.10', '3.14']),
  r('2.9.0', '0.24.0', '2.9.0', ['12.6', '12.8', '13.0'], '12.8', false, ['3.10', '3.14']),
  r('2.8.0', '0.23.0', '2.8.0', ['12.6', '12.8', '12.9'], '12.8', false, ['3.9', '3.13']),
  r('2.7.1', '0.22.1', '2.7.1', ['11.8', '12.6', '12.8'], '12.6', true, ['3.9', '3.13']),
  r('2.7.0', '0.22.0', '2.7.0', ['11.8', '12.6', '12.8'], '12.6', true, ['3.9', '3.13']),
  r('2.6.0', '0.21.0', '2.6.0', ['11.8', '12.4', '12.6'], '12.4', false, ['3.9', '3.13']),
  r('2.5.1', '0.20.1', '2.5.1', ['11.8', '12.1', '12.4'], '12.4', false, ['3.9', '3.12']),
  r('2.5.0', '0.20.0', '2.5.0', ['11.8', '12.1', '12.4'], '12.4', false, ['3.9', '3.12']),
  r('2.4.1', '0.19.1', '2.4.1', ['11.8', '12.1', '12.4'], '12.1', false, ['3.8', '3.12']),
  r('2.4.0', '0.19.0', '2.4.0', ['11.8', '12.1', '12.4'], '12.1', false, ['3.8', '3.12']),
  r('2.3.1', '0.18.1', '2.3.1', ['11.8', '12.1'], '12.1', false, ['3.8', '3.12']),
  r('2.3.0', '0.18.0', '2.3.0', ['11.8', '12.1'], '12.1', false, ['3.8', '3.12']),
  r('2.2.2', '0.17.2', '2.2.2', ['11.8', '12.1'], '12.1', false, ['3.8', '3.12']),
  r('2.2.1', '0.17.1', '2.2.1', ['11.8', '12.1'], '12.1', false, ['3.8', '3.12']),
  r('2.2.0', '0.17.0', '2.2.0', ['11.8', '12.1'], '12.1', false, ['3.8', '3.12']),
  r('2.1.2', '0.16.2', '2.1.2', ['11.8', '12.1'], '12.1', true, ['3.8', '3.11']),
  r('2.1.1', '0.16.1', '2.1.1', ['11.8', '12.1'], '12.1', true, ['3.8', '3.11']),
  r('2.1.0', '0.16.0', '2.1.0', ['11.8', '12.1'], '12.1', true, ['3.8', '3.11']),
  r('2.0.1', '0.15.2', '2.0.2', ['11.7', '11.8'], '11.7', true, ['3.8', '3.11']),
  r('2.0.0', '0.15.1', '2.0.1', ['11.7', '11.8'], '11.7', true, ['3.8', '3.11']),
  r('1.13.1', '0.14.1', '0.13.1', ['11.6', '11.7'], '11.7', true, ['3.7', '3.10']),
  r('1.13.0', '0.14.0', '0.13.0', ['11.6', '11.7'], '11.7', true, ['3.7', '3.10']),
  r('1.12.1', '0.13.1', '0.12.1', ['10.2', '11.3', '11.6'], '10.2', true, ['3.7', '3.10']),
  r('1.12.0', '0.13.0', '0.12.0', ['10.2', '11.3', '11.6'], '10.2', true, ['3.7', '3.10']),
  r('1.11.0', '0.12.0', '0.11.0', ['10.2', '11.3'], '10.2', true, null),
  r('1.10.1', '0.11.2', '0.10.1', ['10.2', '11.1'], '10.2', true, null),
  r('1.10.0', '0.11.0', '0.10.0', ['10.2', '11.1'], '10.2', true, null),
  r('1.9.1', '0.10.1', '0.9.1', ['10.2', '11.1'], '10.2', true, null),
  r('1.9.0', '0.10.0', '0.9.0', ['10.2', '11.1'], '10.2', true, null),
  r('1.8.1', '0.9.1', '0.8.1', ['10.1', '10.2', '11.1'], '10.2', true, null),
  r('1.8.0', '0.9.0', '0.8.0', ['10.2', '11.1'], '10.2', true, null),
  r('1.7.1', '0.8.2', '0.7.2', ['9.2', '10.1', '10.2', '11.0'], '10.2', true, null),
  // torchvision 0.8.1 is the build that shipped with 1.7.0 (googlecolab/colabtools#1676).
  r('1.7.0', '0.8.1', '0.7.0', ['9.2', '10.1', '10.2', '11.0'], '10.2', true, null),
  r('1.6.0', '0.7.0', null, ['9.2', '10.1', '10.2'], '10.2', true, null),
  r('1.5.1', '0.6.1', null, ['9.2', '10.1', '10.2'], '10.2', true, null),
  r('1.5.0', '0.6.0', null, ['9.2', '10.1', '10.2'], '10.2', true, null),
  r('1.4.0', '0.5.0', null, ['9.2', '10.1'], '10.1', true, null),
  r('1.3.1', '0.4.2', null, ['9.2', '10.0', '10.1'], '10.1', true, null),
  r('1.3.0', '0.4.1', null, ['9.2', '10.1'], '10.1', true, null),
  r('1.2.0', '0.4.0', null, ['9.2', '10.0'], '10.0', true, null),
];

export function findRelease(torch: string): TorchRelease | undefined {
  return TORCH_RELEASES.find((x) => compareVersions(x.torch, torch) === 0);
}

/**
 * GPU architectures compiled into each official CUDA wheel (SASS), from RELEASE.md's
 * "PyTorch CUDA Support Matrix" and the arch lists the wheels report
 * (torch.cuda.get_arch_list()). A cubin for sm_XY also runs on X.Z with Z ≥ Y.
 */
export function wheelArchs(torch: string, cuda: string): readonly string[] {
  const c = cuda.split('.').slice(0, 2).join('.');
  const major = Number(c.split('.')[0]);
  if (major >= 13) return ['7.5', '8.0', '8.6', '9.0', '10.0', '12.0'];
  if (c === '12.8' || c === '12.9') {
    // 2.7.x cu128 still had Maxwell/Pascal; 2.8 dropped them from the 12.8/12.9 builds.
    return compareVersions(torch, '2.8.0') >= 0 ? ['7.0', '7.5', '8.0', '8.6', '9.0', '10.0', '12.0'] : ['5.0', '6.0', '7.0', '7.5', '8.0', '8.6', '9.0', '10.0', '12.0'];
  }
  if (major === 12) return ['5.0', '6.0', '7.0', '7.5', '8.0', '8.6', '9.0'];
  if (c === '11.8') return ['3.7', '5.0', '6.0', '7.0', '7.5', '8.0', '8.6', '9.0'];
  if (c === '11.0') return ['3.7', '5.0', '6.0', '7.0', '7.5', '8.0'];
  if (major === 11) return ['3.7', '5.0', '6.0', '6.1', '7.0', '7.5', '8.0', '8.6'];
  if (major === 10) return ['3.7', '5.0', '6.0', '7.0', '7.5'];
  if (c === '9.2' || c === '9.0') return ['3.5', '5.0', '6.0', '7.0'];
  return [];
}

/** Does a wheel with these arch entries ("sm_86", "8.6", "compute_90") run on a GPU of capability cc? */
export function archSupports(archs: readonly string[], cc: string): boolean {
  const [maj, min] = cc.split('.').map(Number) as [number, number];
  for (const a of archs) {
    const m = /^(?:(sm|compute)_)?(\d+?)(\d)[a-z]?$/.exec(a.replace('.', '')) ?? null;
    if (!m) continue;
    const am = Number(m[2]);
    const an = Number(m[3]);
    // SASS: same major, minor at or below the GPU's. PTX (compute_XY): any GPU at or above X.Y.
    if (m[1] === 'compute') {
      if (am < maj || (am === maj && an <= min)) return true;
    } else if (am === maj && an <= min) return true;
  }
  return false;
}

/** The pip command PyTorch's install page gives for this release and CUDA build. */
export function pipCommand(rel: TorchRelease, cuda: string): string {
  const tag = `cu${cuda.replace('.', '')}`;
  const audio = rel.torchaudio;
  if (compareVersions(rel.torch, '2.0.0') >= 0) {
    const pkgs = `torch==${rel.torch} torchvision==${rel.torchvision}${audio ? ` torchaudio==${audio}` : ''}`;
    // 2.0.x cu117 is the PyPI wheel; the cu117 index has no 2.0.x (pytorch/pytorch#111716).
    if (cuda === '11.7') return `pip install ${pkgs}`;
    return `pip install ${pkgs} --index-url https://download.pytorch.org/whl/${tag}`;
  }
  const pkgs = `torch==${rel.torch}+${tag} torchvision==${rel.torchvision}+${tag}${audio ? ` torchaudio==${audio}` : ''}`;
  if (compareVersions(rel.torch, '1.11.0') >= 0) return `pip install ${pkgs} --extra-index-url https://download.pytorch.org/whl/${tag}`;
  return `pip install ${pkgs} -f https://download.pytorch.org/whl/torch_stable.html`;
}

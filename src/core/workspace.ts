// The box as a workspace (issue 44 deliver 2 and 3), the pure part: glibc read from
// `getconf GNU_LIBC_VERSION` / `ldd --version` against what VS Code's Remote-SSH server needs
// (glibc >= 2.28 since VS Code 1.99), conda on PATH for a non-login shell, and which download
// endpoints the box reaches, turned into advice (HF_ENDPOINT, the pip index, AutoDL's turbo).

/** VS Code 1.99 and later: the Remote-SSH server needs glibc 2.28 or newer on the box. */
export const REMOTE_SSH_MIN_GLIBC = '2.28';

/**
 * glibc's version from `getconf GNU_LIBC_VERSION` ("glibc 2.36") or the first line of
 * `ldd --version` ("ldd (Debian GLIBC 2.36-9+deb12u14) 2.36"); null when neither says it (musl).
 */
export function parseGlibcVersion(getconf: string, ldd: string): string | null {
  const g = /^glibc (\d{1,3}\.\d{1,3})\s*$/m.exec(getconf.trim());
  if (g) return g[1]!;
  const first = ldd.trim().split('\n')[0] ?? '';
  if (!/glibc|gnu libc/i.test(first)) return null;
  const l = /(\d{1,3}\.\d{1,3})\s*$/.exec(first);
  return l ? l[1]! : null;
}

function versionAtLeast(v: string, min: string): boolean {
  const [a, b] = v.split('.').map(Number);
  const [c, d] = min.split('.').map(Number);
  return a! > c! || (a === c && b! >= d!);
}

export type GlibcVerdict = { code: 'ok'; version: string } | { code: 'too-old'; version: string; min: string } | { code: 'unknown' };

export function glibcVerdict(version: string | null): GlibcVerdict {
  if (version === null) return { code: 'unknown' };
  return versionAtLeast(version, REMOTE_SSH_MIN_GLIBC) ? { code: 'ok', version } : { code: 'too-old', version, min: REMOTE_SSH_MIN_GLIBC };
}

/** AutoDL's academic acceleration: sourced, it sets a proxy for that shell only. */
export const TURBO_FILE = '/etc/network_turbo';

/** The download endpoints the probe tries from the box. */
export const ENDPOINTS = {
  hf: 'https://huggingface.co',
  hfMirror: 'https://hf-mirror.com',
  modelscope: 'https://www.modelscope.cn',
  pip: 'https://pypi.org/simple/',
  pipMirror: 'https://mirrors.aliyun.com/pypi/simple/',
} as const;

export type EndpointId = keyof typeof ENDPOINTS;

export interface EndpointReach {
  id: EndpointId;
  url: string;
  /** The HTTP status, or null when nothing answered within the timeout. */
  status: number | null;
  /** Seconds to the answer (null when none). */
  seconds: number | null;
}

export interface NetworkAdvice {
  /** HF_ENDPOINT to set for downloads: null = Hugging Face directly (or nothing reaches it). */
  hfEndpoint: string | null;
  /** How the box gets models: hf, hf-mirror, modelscope, or none. */
  models: 'hf' | 'hf-mirror' | 'modelscope' | 'none';
  /** pip's index (PIP_INDEX_URL); null = the default index, or nothing answered. */
  pipIndex: string | null;
  pipReachable: boolean;
  /** AutoDL's academic acceleration (/etc/network_turbo) is on the box: source it only for the download steps. */
  turbo: boolean;
}

/** An endpoint that answered with anything but a server error counts as reached. */
export function reached(r: EndpointReach | undefined): boolean {
  return !!r && r.status !== null && r.status > 0 && r.status < 500;
}

export function networkAdvice(reach: readonly EndpointReach[], turbo: boolean): NetworkAdvice {
  const by = (id: EndpointId) => reach.find((r) => r.id === id);
  const hf = by('hf');
  const mirror = by('hfMirror');
  const models = reached(hf) && !(reached(mirror) && (hf!.seconds ?? 99) > 3 * (mirror!.seconds ?? 99)) ? 'hf' : reached(mirror) ? 'hf-mirror' : reached(by('modelscope')) ? 'modelscope' : 'none';
  const pip = by('pip');
  const cn = by('pipMirror');
  // The mirror when the default index does not answer, or answers far slower.
  const useMirror = reached(cn) && (!reached(pip) || (pip!.seconds ?? 99) > 3 * (cn!.seconds ?? 99));
  return {
    hfEndpoint: models === 'hf-mirror' ? (mirror?.url ?? ENDPOINTS.hfMirror).replace(/\/+$/, '') : null,
    models,
    pipIndex: useMirror ? (cn?.url ?? ENDPOINTS.pipMirror) : null,
    pipReachable: reached(pip) || reached(cn),
    turbo,
  };
}

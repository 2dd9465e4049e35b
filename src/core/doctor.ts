// The verdict: is this box usable for this torch, and if not, the exact fix. Inputs are
// what we could learn (nvidia-smi, the torch probe, or versions typed by the user); the
// output is codes and numbers only — doctor-text.ts turns them into words.
import { cudaFitsDriver, cudaFromDriverCode, driverMaxCudaFor, minDriverFor, type DriverPlatform } from './compat/cuda-driver';
import { computeCapabilityForName, isNotNvidia } from './compat/gpu-arch';
import { archSupports, findRelease, pipCommand, TORCH_RELEASES, wheelArchs } from './compat/torch-wheels';
import { compareVersions, cudaFromTag, cudaMinor, parseTorchVersion } from './compat/version';
import { minDriverForGpu, suggestWheel, type BoxFacts } from './doctor-wheel';
import { parseTorchProbe, type ProbeResult, type TorchProbe } from './probe';
import { parseNvidiaSmi } from './smi';
import type { SmiFailure, SmiReport, SmiResult } from './smi/types';

export { suggestWheel } from './doctor-wheel';

export type Verdict =
  | 'ok'
  | 'driver-too-old'
  | 'arch-not-in-wheel'
  | 'cpu-only-torch'
  | 'cuda-init-failed'
  | 'nvml-mismatch'
  | 'gpu-lost'
  | 'no-driver'
  | 'no-gpu'
  | 'no-torch'
  | 'torch-broken'
  | 'not-nvidia'
  | 'unknown';

/** Environment advice, as codes (doctor-text.ts words them). */
export type AdviceCode =
  | 'fresh-conda-env' // the image's base env is shared and polluted: conda create -n NAME python=X
  | 'fresh-venv' // the same, on a box where the probe found no conda: python3 -m venv
  | 'restart-instance' // NVML mismatch: the driver was updated under a running system
  | 'restart-lost-gpu' // a GPU fell off / a container lost its GPU devices: restart, report if it recurs
  | 'install-driver' // no driver loaded: pick an image/instance with the NVIDIA driver
  | 'start-with-gpu' // no GPU attached (no-GPU mode): start the instance with a GPU
  | 'check-cuda-visible-devices'
  | 'remove-cuda-compat' // a cuda-compat forward-compatibility package on a GPU that does not support it
  | 'free-gpu-memory'
  | 'reinstall-torch'
  | 'use-vendor-image'; // not an NVIDIA accelerator: use the vendor's PyTorch (e.g. torch_npu)

export type ReasonValue = string | number | boolean | null;
export interface Reason {
  code: string;
  [key: string]: ReasonValue;
}

export interface Fix {
  pip?: string;
  minDriver?: string;
  env?: AdviceCode[];
}

export interface Diagnosis {
  verdict: Verdict;
  driverVersion: string | null;
  driverMaxCuda: string | null;
  torchVersion: string | null;
  torchCuda: string | null;
  gpuName: string | null;
  computeCapability: string | null;
  /** The probed Python ("3.10.12"), for the fresh env the fix creates. */
  pythonVersion: string | null;
  fix: Fix;
  reasons: Reason[];
}

export interface DiagnoseInput {
  smi?: SmiReport | SmiFailure;
  probe?: ProbeResult | TorchProbe;
  driverVersion?: string;
  driverMaxCuda?: string;
  /** "2.1.0", "2.1.0+cu121", "1.13.1+cpu". */
  torchVersion?: string;
  gpuName?: string;
  computeCapability?: string;
  platform?: DriverPlatform;
}

const isReport = (s: SmiReport | SmiFailure): s is SmiReport => 'gpus' in s;

function probeOf(p: ProbeResult | TorchProbe | undefined, reasons: Reason[]): TorchProbe | null {
  if (!p) return null;
  if ('ok' in p) {
    if (p.ok) return p.probe;
    reasons.push({ code: 'probe-failed', kind: p.error.kind, message: p.error.message });
    return null;
  }
  return p;
}


function classifyTorchError(text: string): { code: string; driverMaxCuda?: string } | null {
  const found = /found version (\d{4,5})/.exec(text);
  if (found) return { code: 'torch-says-driver-too-old', driverMaxCuda: cudaFromDriverCode(Number(found[1])) ?? undefined };
  if (/CUDA driver version is insufficient/i.test(text)) return { code: 'torch-says-driver-too-old' };
  if (/no kernel image is available|not compatible with the current PyTorch installation/i.test(text)) return { code: 'torch-says-no-kernel-image' };
  if (/forward compatibility was attempted on non supported HW/i.test(text)) return { code: 'forward-compat-unsupported' };
  if (/out of memory/i.test(text)) return { code: 'gpu-memory-full' };
  if (/busy or unavailable/i.test(text)) return { code: 'gpu-busy' };
  if (/Found no NVIDIA driver|NVIDIA driver on your system/i.test(text)) return { code: 'torch-says-no-driver' };
  return null;
}

/** What one diagnosis works from, and the verdict it fills in. */
interface Case {
  input: DiagnoseInput;
  d: Diagnosis;
  reasons: Reason[];
  probe: TorchProbe | null;
  report: SmiReport | null;
  smiFailure: SmiFailure | null;
  gpu0: SmiReport['gpus'][number] | null;
  platform: DriverPlatform;
  done(verdict: Verdict, fix?: Fix): Diagnosis;
}

/** The facts as given or read (driver, torch, GPU), and the driver's CUDA from the table where nvidia-smi did not say it. */
function startDiagnosis(input: DiagnoseInput): Case {
  const reasons: Reason[] = [];
  const probe = probeOf(input.probe, reasons);
  const report = input.smi && isReport(input.smi) ? input.smi : null;
  const smiFailure = input.smi && !isReport(input.smi) ? input.smi : null;
  const gpu0 = report?.gpus[0] ?? null;
  const platform: DriverPlatform = input.platform ?? (report?.gpus.some((g) => g.driverModel) ? 'windows' : 'linux');

  const d: Diagnosis = {
    verdict: 'unknown',
    driverVersion: input.driverVersion ?? report?.driverVersion ?? null,
    driverMaxCuda: input.driverMaxCuda ?? report?.cudaVersion ?? null,
    torchVersion: probe?.torch ?? input.torchVersion ?? null,
    torchCuda: null,
    gpuName: input.gpuName ?? probe?.deviceName ?? gpu0?.name ?? null,
    computeCapability: null,
    pythonVersion: probe?.pythonVersion ?? null,
    fix: {},
    reasons,
  };
  const done = (verdict: Verdict, fix: Fix = {}): Diagnosis => {
    d.verdict = verdict;
    d.fix = fix;
    return d;
  };
  if (d.driverMaxCuda) reasons.push({ code: 'driver-max-cuda', driverMaxCuda: d.driverMaxCuda, source: input.driverMaxCuda ? 'given' : 'nvidia-smi' });
  else if (d.driverVersion) {
    d.driverMaxCuda = driverMaxCudaFor(d.driverVersion, platform);
    if (d.driverMaxCuda) reasons.push({ code: 'driver-max-cuda', driverMaxCuda: d.driverMaxCuda, source: 'driver-table' });
  }
  return { input, d, reasons, probe, report, smiFailure, gpu0, platform, done };
}

/** Steps 1 and 2: no usable NVIDIA GPU at all (NVML mismatch, another vendor's chip, a lost GPU, no driver, no GPU attached). */
function deviceVerdict(k: Case): Diagnosis | undefined {
  const { input, reasons, probe, smiFailure, gpu0, done } = k;
  // 1. nvidia-smi could not talk to the driver at all.
  if (smiFailure?.kind === 'nvml-mismatch') {
    reasons.push({ code: 'nvml-mismatch', nvmlVersion: smiFailure.nvmlVersion ?? null });
    return done('nvml-mismatch', { env: ['restart-instance'] });
  }
  // 2. Not an NVIDIA accelerator.
  const names = [input.gpuName, probe?.deviceName, gpu0?.name].filter((x): x is string => Boolean(x));
  const foreign = names.find(isNotNvidia);
  if (foreign || probe?.npu) {
    reasons.push({ code: 'not-nvidia', name: foreign ?? null, torchNpu: probe?.npu ?? null });
    return done('not-nvidia', { env: ['use-vendor-image'] });
  }
  if (smiFailure) reasons.push({ code: 'smi-failed', kind: smiFailure.kind });
  const probeSeesGpu = probe?.cudaAvailable === true;
  // "Failed to initialize NVML: Unknown Error" (a container that lost its GPU devices, e.g. after
  // a systemd daemon-reload on the host): the driver is there, a restart gives the GPU back.
  if (!probeSeesGpu && smiFailure?.kind === 'no-driver' && /Failed to initialize NVML:\s*(?:Unknown Error|GPU access blocked)/i.test(smiFailure.message)) {
    reasons.push({ code: 'nvml-init-error', message: smiFailure.message });
    return done('no-driver', { env: ['restart-lost-gpu'] });
  }
  if (!probeSeesGpu && smiFailure?.kind === 'gpu-lost') {
    reasons.push({ code: 'gpu-lost', message: smiFailure.message });
    return done('gpu-lost', { env: ['restart-lost-gpu'] });
  }
  if (!probeSeesGpu && (smiFailure?.kind === 'no-driver' || smiFailure?.kind === 'not-found')) return done('no-driver', { env: ['install-driver'] });
  if (!probeSeesGpu && smiFailure?.kind === 'no-devices') return done('no-gpu', { env: ['start-with-gpu'] });
  return undefined;
}

/** The GPU's compute capability (given, probed, by name, or the oldest of mixed GPUs) into the diagnosis. */
function settleComputeCapability(k: Case): void {
  const { input, d, reasons, probe, report } = k;
  // GPU architecture.
  // On a box with mixed GPUs the oldest architecture is the one a wheel may lack.
  const smiCcs = (report?.gpus ?? [])
    .map((g) => ({ name: g.name, cc: g.computeCapability, fromName: g.computeCapability === null }))
    .map((g) => ({ ...g, cc: g.cc ?? (g.name ? computeCapabilityForName(g.name) : null) }))
    .filter((g): g is { name: string | null; cc: string; fromName: boolean } => g.cc !== null)
    .sort((a, b) => compareVersions(a.cc, b.cc));
  const validCc = (v: string | null | undefined): string | null => (v && /^\d{1,2}\.\d{1,2}$/.test(v) ? v : null);
  const given = validCc(input.computeCapability) ?? validCc(probe?.deviceCapability) ?? null;
  const byName = [input.gpuName, probe?.deviceName].map((n) => (n ? computeCapabilityForName(n) : null)).find((x) => x !== null) ?? null;
  const oldest = smiCcs[0];
  d.computeCapability = given ?? byName ?? oldest?.cc ?? null;
  if (!given && !byName && oldest && report && report.gpus.length > 1) d.gpuName = oldest.name;
  if (!given && (byName || oldest?.fromName) && d.computeCapability) reasons.push({ code: 'compute-capability-from-name', name: d.gpuName, computeCapability: d.computeCapability });
}

/** How a fix is made: the box's facts a wheel is chosen for, a fresh env's kind, and the pip fix for a release kept where it can be. */
interface WheelAdvice {
  box: BoxFacts;
  freshEnv(): AdviceCode;
  pipFix(keep: string | null): Fix;
}

function wheelAdvice(k: Case): WheelAdvice {
  const { d, reasons, probe, platform } = k;
  const ctx: BoxFacts = { driver: { version: d.driverVersion, maxCuda: d.driverMaxCuda }, cc: d.computeCapability, python: probe?.pythonVersion ?? null, platform };
  // A fresh env where the shared one is polluted: conda only where the probe found conda (the
  // interpreter is a conda env, or CONDA_PREFIX is set), else a plain venv of the box's Python.
  const freshEnv = (): AdviceCode => (probe && (probe.conda !== null || probe.condaPrefix !== null) ? 'fresh-conda-env' : 'fresh-venv');
  const envAdvice = (): AdviceCode[] => (probe && (probe.conda === 'base' || (!probe.conda && !probe.venv)) ? [freshEnv()] : []);
  const pipFix = (keep: string | null): Fix => {
    const s = suggestWheel(ctx, keep);
    const fix: Fix = {};
    if (s) {
      fix.pip = pipCommand(s.release, s.cuda);
      reasons.push({ code: s.kept ? 'release-kept' : 'release-changed', from: keep, to: s.release.torch, cuda: s.cuda });
      // A wheel newer than the driver's CUDA (cu128 on a 12.2 driver) fits by minor-version compatibility: said, so it does not look like a mistake (issue 41 friction).
      const fit = cudaFitsDriver(s.cuda, ctx.driver, platform);
      if (fit.fits && fit.via === 'minor-version-compat') reasons.push({ code: 'minor-version-compat', torchCuda: s.cuda, driverMaxCuda: d.driverMaxCuda, familyMinDriver: minDriverFor(s.cuda, platform) });
    } else reasons.push({ code: 'no-wheel-fits', driverMaxCuda: d.driverMaxCuda, computeCapability: d.computeCapability });
    const env = envAdvice();
    if (env.length && fix.pip) fix.env = env;
    return fix;
  };
  return { box: ctx, freshEnv, pipFix };
}

/** The torch release and the CUDA it was built for, once known. */
interface TorchBuild {
  release: string | null;
  torchCuda: string;
}

/** Step 3: which torch, built for which CUDA; a verdict where there is none, or none for CUDA. */
function whichTorch(k: Case, w: WheelAdvice): Diagnosis | TorchBuild {
  const { d, reasons, probe, done } = k;
  const { pipFix, freshEnv } = w;
  // 3. Which torch, built for which CUDA.
  if (probe && probe.torch === null) {
    if (probe.torchImportError) {
      reasons.push({ code: 'torch-import-failed', error: probe.torchImportError });
      return done('torch-broken', { ...pipFix(null), env: [freshEnv(), 'reinstall-torch'] });
    }
    reasons.push({ code: 'torch-not-installed', python: probe.pythonVersion });
    return done('no-torch', pipFix(null));
  }
  if (!d.torchVersion) {
    reasons.push({ code: 'torch-unknown' });
    return done('unknown', pipFix(null));
  }
  const tv = parseTorchVersion(d.torchVersion);
  const release = tv?.release ?? null;
  if (probe?.torchHip || tv?.local?.startsWith('rocm')) {
    reasons.push({ code: 'rocm-build', torchVersion: d.torchVersion, torchHip: probe?.torchHip ?? null });
    return done('cpu-only-torch', pipFix(release));
  }
  if (probe) d.torchCuda = probe.torchCuda ? cudaMinor(probe.torchCuda) : null;
  else if (tv?.local === 'cpu') d.torchCuda = null;
  else if (tv?.local) d.torchCuda = cudaFromTag(tv.local);
  else if (release) {
    const rel = findRelease(release);
    d.torchCuda = rel?.pypiCuda ?? null;
    if (rel?.pypiCuda) reasons.push({ code: 'torch-cuda-assumed', torchCuda: rel.pypiCuda, source: rel.pypiCudaVerified ? 'pypi-default' : 'pypi-default-unverified' });
  }
  if (d.torchCuda === null) {
    if ((probe && !probe.torchCuda) || tv?.local === 'cpu') {
      reasons.push({ code: 'cpu-build', torchVersion: d.torchVersion });
      return done('cpu-only-torch', pipFix(release));
    }
    reasons.push({ code: 'torch-release-unknown', torchVersion: d.torchVersion });
    return done('unknown', {});
  }
  return { release, torchCuda: d.torchCuda };
}

/** A GPU no official build has kernels for (Fermi, Kepler 3.0): no driver or wheel fixes that. */
function gpuTooOldForAnyWheel(k: Case): Diagnosis | undefined {
  const { d, reasons, done } = k;
  if (d.computeCapability && !TORCH_RELEASES.some((rel) => rel.cuda.some((c) => archSupports(wheelArchs(rel.torch, c), d.computeCapability!)))) {
    reasons.push({ code: 'gpu-too-old-for-any-wheel', computeCapability: d.computeCapability });
    reasons.push({ code: 'no-wheel-fits', driverMaxCuda: d.driverMaxCuda, computeCapability: d.computeCapability });
    return done('arch-not-in-wheel', {});
  }
  return undefined;
}

/** What the probe's torch said went wrong (its error and warnings), one text. */
const probeErrorText = (probe: TorchProbe | null): string => [probe?.error, ...(probe?.warnings ?? [])].filter(Boolean).join('\n');

/** Step 4: is the driver new enough for the wheel's CUDA? */
function driverVerdict(k: Case, w: WheelAdvice, t: TorchBuild): Diagnosis | undefined {
  const { d, reasons, probe, platform, done } = k;
  const ctx = w.box;
  const { release, torchCuda } = t;
  // 4. Is the driver new enough for the wheel's CUDA?
  let torchSaysTooOld: { code: string; driverMaxCuda?: string } | null = null;
  const errorText = probeErrorText(probe);
  if (probe && probe.cudaAvailable === false) torchSaysTooOld = classifyTorchError(errorText);
  if (torchSaysTooOld?.code === 'torch-says-driver-too-old' && torchSaysTooOld.driverMaxCuda && !d.driverMaxCuda) {
    d.driverMaxCuda = torchSaysTooOld.driverMaxCuda;
    ctx.driver.maxCuda = d.driverMaxCuda;
    reasons.push({ code: 'driver-max-cuda', driverMaxCuda: d.driverMaxCuda, source: 'torch-error' });
  }
  if (d.driverVersion || d.driverMaxCuda) {
    const fit = cudaFitsDriver(torchCuda, ctx.driver, platform);
    if (!fit.fits || torchSaysTooOld?.code === 'torch-says-driver-too-old') {
      let need = fit.fits ? minDriverFor(torchCuda, platform) : fit.needDriver;
      // A newer driver only helps if this wheel has kernels for the GPU; else name the driver for a build that does.
      const archs = release ? wheelArchs(release, torchCuda) : [];
      if (d.computeCapability && archs.length && !archSupports(archs, d.computeCapability)) need = minDriverForGpu(d.computeCapability, release, platform) ?? need;
      reasons.push({ code: 'wheel-needs-newer-driver', torchCuda, driverMaxCuda: d.driverMaxCuda, driverVersion: d.driverVersion, needDriver: need });
      const fix = w.pipFix(release);
      if (need) fix.minDriver = need;
      return done('driver-too-old', fix);
    }
    if (fit.via === 'minor-version-compat') {
      reasons.push({ code: 'minor-version-compat', torchCuda, driverMaxCuda: d.driverMaxCuda, familyMinDriver: minDriverFor(torchCuda, platform) });
    }
  } else reasons.push({ code: 'driver-unknown' });
  return undefined;
}

/** Step 5: does the wheel carry kernels for this GPU? */
function archVerdict(k: Case, w: WheelAdvice, t: TorchBuild): Diagnosis | undefined {
  const { d, reasons, probe, platform, done } = k;
  const { release, torchCuda } = t;
  // 5. Does the wheel carry kernels for this GPU?
  if (d.computeCapability) {
    const archs = probe?.archList?.length ? probe.archList : release ? wheelArchs(release, torchCuda) : [];
    if (archs.length && !archSupports(archs, d.computeCapability)) {
      reasons.push({ code: 'arch-missing', computeCapability: d.computeCapability, torchCuda, archs: archs.join(' ') });
      const fix = w.pipFix(release);
      if (!fix.pip) {
        const need = minDriverForGpu(d.computeCapability, release, platform);
        if (need) fix.minDriver = need;
      }
      return done('arch-not-in-wheel', fix);
    }
  }
  return undefined;
}

/** Step 6: versions fit; what did the probe see? */
function probeVerdict(k: Case, w: WheelAdvice, t: TorchBuild): Diagnosis | undefined {
  const { d, reasons, probe, done } = k;
  const { release, torchCuda } = t;
  // 6. Versions fit; what did the probe see?
  if (probe) {
    if (probe.cudaAvailable === false || (probe.cudaAvailable && probe.op === 'failed') || probe.deviceCount === 0) {
      const text = [probeErrorText(probe), probe.opError].filter(Boolean).join('\n');
      const cls = classifyTorchError(text);
      if (cls?.code === 'torch-says-no-kernel-image') {
        reasons.push({ code: 'arch-missing', computeCapability: d.computeCapability, torchCuda, archs: (probe.archList ?? []).join(' ') });
        return done('arch-not-in-wheel', w.pipFix(release));
      }
      reasons.push({ code: 'versions-compatible', torchCuda, driverMaxCuda: d.driverMaxCuda });
      reasons.push({ code: probe.op === 'failed' ? 'cuda-op-failed' : 'cuda-unavailable', error: (probe.opError ?? probe.error ?? probe.warnings[0] ?? null)?.slice(0, 500) ?? null });
      if (cls) reasons.push({ code: cls.code });
      return done('cuda-init-failed', { env: cudaInitAdvice(probe, cls, reasons) });
    }
  }
  return undefined;
}

/** What to do about a CUDA that would not start with versions that fit. */
function cudaInitAdvice(probe: TorchProbe, cls: { code: string } | null, reasons: Reason[]): AdviceCode[] {
  const env: AdviceCode[] = [];
  const cvd = probe.cudaVisibleDevices;
  if (cvd !== null && (cvd.trim() === '' || cvd.trim() === '-1' || /NoDevFiles|void/i.test(cvd))) {
    reasons.push({ code: 'cuda-visible-devices-hides-gpus', value: cvd });
    env.push('check-cuda-visible-devices');
  }
  if (cls?.code === 'forward-compat-unsupported') env.push('remove-cuda-compat');
  if (cls?.code === 'gpu-memory-full') env.push('free-gpu-memory');
  if (cls?.code === 'torch-says-no-driver') env.push('install-driver');
  if (env.length === 0) env.push('restart-instance');
  return env;
}

export function diagnose(input: DiagnoseInput): Diagnosis {
  const k = startDiagnosis(input);
  const device = deviceVerdict(k);
  if (device) return device;
  settleComputeCapability(k);
  const w = wheelAdvice(k);
  const t = whichTorch(k, w);
  if ('verdict' in t) return t;
  const { d, probe, done } = k;
  const verdict = gpuTooOldForAnyWheel(k) ?? driverVerdict(k, w, t) ?? archVerdict(k, w, t) ?? probeVerdict(k, w, t);
  if (verdict) return verdict;
  // Nothing contradicts the pairing, but nothing confirms it either: no driver seen, no CUDA op run.
  if (!d.driverVersion && !d.driverMaxCuda && !(probe?.cudaAvailable === true && probe.op === 'ok')) return done('unknown', {});
  return done('ok', {});
}

/** What the remote layer and `doctor --local` have: the raw outputs of nvidia-smi and the probe. */
export function diagnoseOutputs(smiOutput: string, probeOutput: string | null): { smi: SmiResult; probe: ProbeResult | null; diagnosis: Diagnosis } {
  const smi = parseNvidiaSmi(smiOutput);
  const probe = probeOutput === null ? null : parseTorchProbe(probeOutput);
  return { smi, probe, diagnosis: diagnose({ smi: smi.ok ? smi.report : smi.error, ...(probe ? { probe } : {}) }) };
}

// The torch probe: one Python snippet run on the rented box (Python 3.7+, torch optional) and
// the parser for what it prints. The JSON sits between two markers so conda banners, motd
// and shell noise around it do not matter. The snippet never raises: every step is guarded
// and the error text is reported instead.

export const PROBE_BEGIN = '@@GPU_RENT_PROBE_BEGIN@@';
export const PROBE_END = '@@GPU_RENT_PROBE_END@@';

// No single quotes inside, so it can be passed as `python3 -c '…'` as well as on stdin.
export const TORCH_PROBE_PY = `
import json, os, sys
r = {"v": 1, "python": sys.executable, "pythonVersion": "%d.%d.%d" % tuple(sys.version_info[:3]),
     "conda": None, "condaPrefix": os.environ.get("CONDA_PREFIX"), "venv": None,
     "torch": None, "torchCuda": None, "torchHip": None, "torchImportError": None,
     "cudaAvailable": None, "deviceCount": None, "archList": None, "deviceName": None,
     "deviceCapability": None, "cudnn": None, "op": None, "opError": None, "error": None,
     "warnings": [], "npu": None, "cudaVisibleDevices": os.environ.get("CUDA_VISIBLE_DEVICES")}
def _s(x, n=1000):
    try:
        return str(x)[:n]
    except Exception:
        return "?"
try:
    if os.path.isdir(os.path.join(sys.prefix, "conda-meta")):
        parent = os.path.basename(os.path.dirname(os.path.abspath(sys.prefix)))
        r["conda"] = os.path.basename(os.path.abspath(sys.prefix)) if parent == "envs" else "base"
    elif os.environ.get("CONDA_DEFAULT_ENV") and os.environ.get("CONDA_PREFIX") == sys.prefix:
        r["conda"] = os.environ.get("CONDA_DEFAULT_ENV")
    if getattr(sys, "base_prefix", sys.prefix) != sys.prefix or hasattr(sys, "real_prefix"):
        r["venv"] = sys.prefix
except Exception as e:
    r["error"] = "env: " + _s(e)
try:
    import warnings
    try:
        import torch
    except ImportError as e:
        torch = None
        r["torchImportError"] = _s(e, 300) if getattr(e, "name", None) != "torch" else None
    except Exception as e:
        torch = None
        r["torchImportError"] = _s(e, 300)
    if torch is not None:
        r["torch"] = _s(getattr(torch, "__version__", None), 80)
        v = getattr(torch, "version", None)
        r["torchCuda"] = getattr(v, "cuda", None)
        r["torchHip"] = getattr(v, "hip", None)
        try:
            import torch_npu
            r["npu"] = _s(getattr(torch_npu, "__version__", "yes"), 80)
        except Exception:
            pass
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                r["cudaAvailable"] = bool(torch.cuda.is_available())
            except Exception as e:
                r["cudaAvailable"] = False
                r["error"] = _s(e)
            try:
                r["deviceCount"] = int(torch.cuda.device_count())
            except Exception as e:
                r["error"] = r["error"] or _s(e)
        r["warnings"] = [_s(w.message, 500) for w in caught][:5]
        try:
            r["archList"] = [_s(a, 20) for a in torch.cuda.get_arch_list()]
        except Exception:
            pass
        try:
            r["cudnn"] = torch.backends.cudnn.version()
        except Exception:
            pass
        if r["cudaAvailable"]:
            try:
                r["deviceName"] = _s(torch.cuda.get_device_name(0), 200)
                c = torch.cuda.get_device_capability(0)
                r["deviceCapability"] = "%d.%d" % (c[0], c[1])
            except Exception as e:
                r["error"] = _s(e)
            try:
                x = torch.ones(4, device="cuda")
                y = float((x * 2).sum().item())
                torch.cuda.synchronize()
                r["op"] = "ok" if y == 8.0 else "wrong-result"
            except Exception as e:
                r["op"] = "failed"
                r["opError"] = _s(e)
        elif r["torchCuda"]:
            try:
                torch.zeros(1).cuda()
            except Exception as e:
                r["error"] = r["error"] or _s(e)
except BaseException as e:
    r["error"] = "probe: " + _s(e)
sys.stdout.write("\\n${PROBE_BEGIN}" + json.dumps(r) + "${PROBE_END}\\n")
sys.stdout.flush()
`;

export interface TorchProbe {
  python: string | null;
  pythonVersion: string | null;
  /** 'base' or the env name when the interpreter is a conda env; null otherwise. */
  conda: string | null;
  condaPrefix: string | null;
  /** The venv path when running in a virtualenv. */
  venv: string | null;
  /** torch.__version__, null when torch is not installed. */
  torch: string | null;
  /** torch.version.cuda: "12.1", null for CPU-only (or ROCm) builds. */
  torchCuda: string | null;
  torchHip: string | null;
  /** Set when `import torch` failed for another reason than torch missing (a broken install). */
  torchImportError: string | null;
  cudaAvailable: boolean | null;
  deviceCount: number | null;
  archList: string[] | null;
  deviceName: string | null;
  deviceCapability: string | null;
  cudnn: number | null;
  op: 'ok' | 'failed' | 'wrong-result' | null;
  opError: string | null;
  error: string | null;
  warnings: string[];
  /** torch_npu version on Ascend boxes. */
  npu: string | null;
  cudaVisibleDevices: string | null;
}

export type ProbeFailureKind = 'no-python' | 'python-too-old' | 'no-output' | 'malformed';
export type ProbeResult = { ok: true; probe: TorchProbe } | { ok: false; error: { kind: ProbeFailureKind; message: string } };

const s = (v: unknown, max = 2000): string | null => (typeof v === 'string' ? v.slice(0, max) : null);
const b = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);
const n = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function parseTorchProbe(stdout: string): ProbeResult {
  const text = typeof stdout === 'string' ? stdout : '';
  const end = text.lastIndexOf(PROBE_END);
  const begin = end === -1 ? -1 : text.lastIndexOf(PROBE_BEGIN, end);
  if (begin === -1) {
    if (/python3?: (?:command )?not found|No such file or directory.*python|python3?: not found/i.test(text)) {
      return { ok: false, error: { kind: 'no-python', message: firstLine(text, /python/i) } };
    }
    if (/SyntaxError|invalid syntax/.test(text)) return { ok: false, error: { kind: 'python-too-old', message: firstLine(text, /SyntaxError|invalid syntax/) } };
    if (text.includes(PROBE_BEGIN)) return { ok: false, error: { kind: 'malformed', message: 'the probe output is cut off' } };
    return { ok: false, error: { kind: 'no-output', message: text.trim() === '' ? 'the probe printed nothing' : 'no probe markers in the output' } };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.slice(begin + PROBE_BEGIN.length, end));
  } catch {
    return { ok: false, error: { kind: 'malformed', message: 'the probe JSON does not parse' } };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, error: { kind: 'malformed', message: 'the probe JSON is not an object' } };
  const o = raw as Record<string, unknown>;
  const op = o.op === 'ok' || o.op === 'failed' || o.op === 'wrong-result' ? o.op : null;
  const cap = s(o.deviceCapability);
  return {
    ok: true,
    probe: {
      python: s(o.python),
      pythonVersion: s(o.pythonVersion),
      conda: s(o.conda),
      condaPrefix: s(o.condaPrefix),
      venv: s(o.venv),
      torch: s(o.torch),
      torchCuda: s(o.torchCuda),
      torchHip: s(o.torchHip),
      torchImportError: s(o.torchImportError),
      cudaAvailable: b(o.cudaAvailable),
      deviceCount: n(o.deviceCount),
      archList: Array.isArray(o.archList) ? o.archList.filter((a): a is string => typeof a === 'string') : null,
      deviceName: s(o.deviceName),
      deviceCapability: cap && /^\d{1,2}\.\d{1,2}$/.test(cap) ? cap : null,
      cudnn: n(o.cudnn),
      op,
      opError: s(o.opError),
      error: s(o.error),
      warnings: Array.isArray(o.warnings) ? o.warnings.filter((w): w is string => typeof w === 'string') : [],
      npu: s(o.npu),
      cudaVisibleDevices: s(o.cudaVisibleDevices),
    },
  };
}

function firstLine(text: string, re: RegExp): string {
  return (text.split(/\r?\n/).find((l) => re.test(l)) ?? text.split(/\r?\n/)[0] ?? '').trim().slice(0, 300);
}

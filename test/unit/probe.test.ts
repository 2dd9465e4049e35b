// The torch probe run by the real local python3: without torch (this machine has none), and
// with small fake `torch` packages on PYTHONPATH that exercise each branch of the snippet.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diagnose } from '../../src/core/doctor';
import { parseTorchProbe, PROBE_BEGIN, PROBE_END, TORCH_PROBE_PY } from '../../src/core/probe';

const PY = process.env.PYTHON ?? 'python3';
const hasPython = spawnSync(PY, ['--version']).status === 0;

function runProbe(env: NodeJS.ProcessEnv = {}, via: 'stdin' | 'argv' = 'stdin'): string {
  const r = via === 'stdin'
    ? spawnSync(PY, ['-'], { input: TORCH_PROBE_PY, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30000 })
    : spawnSync(PY, ['-c', TORCH_PROBE_PY], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

const tmp = mkdtempSync(join(tmpdir(), 'gpu-rent-probe-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A fake torch package; `body` defines the behaviour of torch.cuda. */
function fakeTorch(name: string, version: string, cuda: string | null, body: string): string {
  const dir = join(tmp, name, 'torch');
  mkdirSync(join(dir, 'backends'), { recursive: true });
  writeFileSync(
    join(dir, '__init__.py'),
    `__version__ = ${JSON.stringify(version)}
class _V:
    cuda = ${cuda === null ? 'None' : JSON.stringify(cuda)}
    hip = None
version = _V()
class _T:
    def __init__(self, v): self.v = v
    def __mul__(self, k): return _T([x * k for x in self.v])
    def sum(self): return _T([sum(self.v)])
    def item(self): return self.v[0]
    def cuda(self): return cuda_to(self)
def zeros(n): return _T([0.0] * n)
${body}
from torch import backends
`,
  );
  writeFileSync(join(dir, 'backends', '__init__.py'), 'class _C:\n    @staticmethod\n    def version(): return 8902\ncudnn = _C()\n');
  return join(tmp, name);
}

describe('the torch probe snippet (real python)', function () {
  before(function () {
    if (!hasPython) this.skip();
  });

  it('is valid Python 3.7 syntax and has no single quotes (so `python3 -c \'…\'` works)', () => {
    assert.ok(!TORCH_PROBE_PY.includes("'"));
    const check = spawnSync(PY, ['-c', 'import ast,sys; ast.parse(sys.stdin.read(), feature_version=(3, 7))'], { input: TORCH_PROBE_PY, encoding: 'utf8' });
    assert.equal(check.status, 0, check.stderr);
  });

  it('without torch: one JSON line between markers, torch null, python facts filled', () => {
    const out = runProbe({ PYTHONPATH: '' });
    assert.equal(out.split('\n').filter((l) => l.includes(PROBE_BEGIN)).length, 1);
    const r = parseTorchProbe(out);
    assert.ok(r.ok);
    if (!r.ok) return;
    assert.equal(r.probe.torch, null);
    assert.equal(r.probe.torchImportError, null);
    assert.match(r.probe.pythonVersion!, /^3\.\d+\.\d+$/);
    assert.ok(r.probe.python);
    assert.equal(diagnose({ driverVersion: '535.54.03', probe: r }).verdict, 'no-torch');
  });

  it('works passed as `python3 -c` too, and amid login-shell noise', () => {
    const out = `(base) Welcome to the box\nconda activate base\n${runProbe({}, 'argv')}logout\n`;
    assert.ok(parseTorchProbe(out).ok);
  });

  it('a working CUDA torch: version, CUDA build, device, capability, arch list, cuDNN, tiny op ok', () => {
    const path = fakeTorch('ok', '2.1.0+cu121', '12.1', `
class cuda:
    @staticmethod
    def is_available(): return True
    @staticmethod
    def device_count(): return 1
    @staticmethod
    def get_arch_list(): return ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
    @staticmethod
    def get_device_name(i): return "NVIDIA GeForce RTX 4090"
    @staticmethod
    def get_device_capability(i): return (8, 9)
    @staticmethod
    def synchronize(): pass
def ones(n, device=None): return _T([1.0] * n)
def cuda_to(t): return t
`);
    const r = parseTorchProbe(runProbe({ PYTHONPATH: path }));
    assert.ok(r.ok);
    if (!r.ok) return;
    const p = r.probe;
    assert.deepEqual([p.torch, p.torchCuda, p.cudaAvailable, p.deviceCount, p.deviceName, p.deviceCapability, p.cudnn, p.op], ['2.1.0+cu121', '12.1', true, 1, 'NVIDIA GeForce RTX 4090', '8.9', 8902, 'ok']);
    assert.deepEqual(p.archList, ['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90']);
    assert.equal(diagnose({ driverVersion: '535.104.05', probe: r }).verdict, 'ok');
  });

  it('a driver too old: the CUDA-init warning is captured and decoded (found version 11040 → 11.4)', () => {
    const path = fakeTorch('old', '2.1.0+cu121', '12.1', `
import warnings as _w
class cuda:
    @staticmethod
    def is_available():
        _w.warn("CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver.", UserWarning)
        return False
    @staticmethod
    def device_count(): return 0
    @staticmethod
    def get_arch_list(): return []
def cuda_to(t): raise RuntimeError("Found no NVIDIA driver on your system.")
`);
    const r = parseTorchProbe(runProbe({ PYTHONPATH: path }));
    assert.ok(r.ok);
    if (!r.ok) return;
    assert.equal(r.probe.cudaAvailable, false);
    assert.match(r.probe.warnings[0]!, /found version 11040/);
    assert.match(r.probe.error!, /Found no NVIDIA driver/);
    const d = diagnose({ probe: r });
    assert.equal(d.verdict, 'driver-too-old');
    assert.equal(d.driverMaxCuda, '11.4');
    assert.equal(d.fix.pip, 'pip install torch==2.1.0 torchvision==0.16.0 torchaudio==2.1.0 --index-url https://download.pytorch.org/whl/cu118');
  });

  it('a failing tiny op is reported with its error text', () => {
    const path = fakeTorch('nokernel', '1.12.0+cu102', '10.2', `
class cuda:
    @staticmethod
    def is_available(): return True
    @staticmethod
    def device_count(): return 1
    @staticmethod
    def get_arch_list(): return ["sm_37", "sm_50", "sm_60", "sm_70", "sm_75"]
    @staticmethod
    def get_device_name(i): return "NVIDIA GeForce RTX 3090"
    @staticmethod
    def get_device_capability(i): return (8, 6)
    @staticmethod
    def synchronize(): pass
def ones(n, device=None): raise RuntimeError("CUDA error: no kernel image is available for execution on the device")
def cuda_to(t): return t
`);
    const r = parseTorchProbe(runProbe({ PYTHONPATH: path }));
    assert.ok(r.ok);
    if (!r.ok) return;
    assert.equal(r.probe.op, 'failed');
    assert.match(r.probe.opError!, /no kernel image/);
    const d = diagnose({ driverVersion: '470.57.02', probe: r });
    assert.equal(d.verdict, 'arch-not-in-wheel');
    assert.match(d.fix.pip!, /torch==1\.12\.0\+cu116/);
  });

  it('a torch that fails to import (missing shared library) is torch-broken, not no-torch', () => {
    const dir = join(tmp, 'broken', 'torch');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '__init__.py'), 'raise OSError("libcudnn.so.8: cannot open shared object file: No such file or directory")\n');
    const r = parseTorchProbe(runProbe({ PYTHONPATH: join(tmp, 'broken') }));
    assert.ok(r.ok);
    if (!r.ok) return;
    assert.equal(r.probe.torch, null);
    assert.match(r.probe.torchImportError!, /libcudnn/);
    assert.equal(diagnose({ driverVersion: '535.54.03', probe: r }).verdict, 'torch-broken');
  });
});

describe('parseTorchProbe failures', () => {
  it('no python, python 2, nothing, cut-off output', () => {
    const kind = (s: string): string => {
      const r = parseTorchProbe(s);
      return r.ok ? 'ok' : r.error.kind;
    };
    assert.equal(kind('bash: python3: command not found\n'), 'no-python');
    assert.equal(kind('  File "<stdin>", line 4\n    r = {"v": 1}\nSyntaxError: invalid syntax\n'), 'python-too-old');
    assert.equal(kind(''), 'no-output');
    assert.equal(kind(`${PROBE_BEGIN}{"v": 1, "tor`), 'malformed');
    assert.equal(kind(`${PROBE_BEGIN}[1,2]${PROBE_END}`), 'malformed');
  });
});

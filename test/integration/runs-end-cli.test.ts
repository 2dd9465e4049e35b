// The end of a run in the CLI, on a real box (loopback sshd): a job that dies printing a real CUDA
// OOM tail (test/fixtures/training-logs/real/failures) shows in `gpu-rent jobs` and `logs` with its
// exit code, duration, cost (--rate), cause and remedies, and `--json` carries them; a running job
// whose loss went NaN says it diverged and what it still bills; box text never reaches the
// terminal as control characters.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCli } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { tempDir } from './remote-helpers';

const REAL = resolve(__dirname, '..', 'fixtures', 'training-logs', 'real', 'failures');
const truth = JSON.parse(readFileSync(join(REAL, 'truth.json'), 'utf8')) as { file: string; kind: string; line: string }[];

describe('gpu-rent jobs / logs: the end of a run (real sshd)', function () {
  this.timeout(120000);
  let a: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const t = () => `ssh://${a.user}@127.0.0.1:${a.port}`;
  const keys = () => ['--accept-new', '--identity', a.privateKeyPath];
  const jobsJson = (...extra: string[]) => {
    const r = runCli(['jobs', t(), ...keys(), '--json', ...extra], { env, timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as { name: string; state: string; exitCode: number | null; end: { exitCode: number; durationSeconds: number; costFen: number | null; cause: { kind: string; line: string } | null; remedies: { code: string; text: string }[] } | null; diverged: { value: string; readings: number } | null }[];
  };
  const waitExited = async (name: string) => {
    for (let i = 0; i < 60; i++) {
      if (jobsJson().find((j) => j.name === name)?.state === 'exited') return;
      await new Promise((res) => setTimeout(res, 300));
    }
    assert.fail(`${name} did not exit`);
  };

  before(async () => {
    a = await startSshd();
    home = tempDir();
    env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_PASSWORD: '' };
    // The box's "training script" prints a real tail and dies; the files are readable by the test user.
    writeFileSync(join(a.home, 'oom.log'), readFileSync(join(REAL, 'oom-torch24-cads.log')), { mode: 0o644 });
    writeFileSync(join(a.home, 'kill9.log'), readFileSync(join(REAL, 'torchrun-sigkill-cppo.log')), { mode: 0o644 });
    // Synthetic (not a real capture): a loss that goes NaN, and a cause line carrying terminal escapes.
    writeFileSync(join(a.home, 'nan.log'), "{'loss': 0.912, 'epoch': 0.1}\n{'loss': nan, 'epoch': 0.2}\n{'loss': nan, 'epoch': 0.3}\n", { mode: 0o644 });
    writeFileSync(join(a.home, 'evil.log'), 'RuntimeError: CUDA out of memory. \x1b]0;pwned\x07\x1b[2J\x1b[31mred\n', { mode: 0o644 });
  });
  after(async () => {
    await a?.stop();
    home?.remove();
  });

  it('a job that died with a real OOM tail: jobs --json carries exit code, duration, cost, cause {kind, line} and remedies; the text names them; logs shows them after the log', async () => {
    const oom = truth.find((x) => x.file === 'oom-torch24-cads.log')!;
    assert.equal(runCli(['run', t(), ...keys(), '--name', 'oom', '--cwd', '~', '--', 'sh', '-c', 'sleep 1; cat "$HOME/oom.log"; exit 1'], { env, timeoutMs: 60000 }).code, 0);
    assert.equal(runCli(['run', t(), ...keys(), '--name', 'k9', '--cwd', '~', '--', 'sh', '-c', 'cat "$HOME/kill9.log"; exit 1'], { env, timeoutMs: 60000 }).code, 0);
    await waitExited('oom');
    await waitExited('k9');
    const rows = jobsJson('--rate', '3.6', '--storage-rate', '0.007', '--disk-gb', '50');
    const end = rows.find((j) => j.name === 'oom')!.end!;
    assert.equal(end.exitCode, 1);
    assert.ok(end.durationSeconds >= 1 && end.durationSeconds < 30, String(end.durationSeconds));
    assert.equal(typeof end.costFen, 'number');
    assert.deepEqual(end.cause, { kind: 'cudaOom', line: oom.line.slice(0, 300) }, 'the message line, its first 300 characters');
    assert.deepEqual(end.remedies.map((r) => r.code), ['smallerBatch', 'gradientCheckpointing', 'qlora4bit', 'freeGpu', 'moreVram']);
    const k9 = rows.find((j) => j.name === 'k9')!.end!;
    assert.equal(k9.cause?.kind, 'hostOom');
    assert.equal(k9.cause?.line, 'traceback : Signal 9 (SIGKILL) received by PID 14750');
    assert.ok(k9.remedies.some((r) => r.code === 'moreHostRam'));

    const text = runCli(['jobs', t(), ...keys()], { env, timeoutMs: 60000 });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /oom\s+exited 1\s.*exit 1 · ran \d+ s · CUDA out of memory: the GPU ran out of VRAM\./);
    assert.match(text.stdout, /^oom: cudaOom — torch\.OutOfMemoryError: CUDA out of memory\. Tried to allocate 22\.78 GiB/m);
    assert.match(text.stdout, /^ {2}- Use a smaller batch/m);
    assert.match(text.stdout, /^k9: hostOom — traceback : Signal 9 \(SIGKILL\) received by PID 14750$/m);
    assert.match(text.stdout, /^ {2}- Use fewer data loader workers/m);
    const zh = runCli(['jobs', t(), ...keys(), '--lang', 'zh-cn'], { env, timeoutMs: 60000 });
    assert.match(zh.stdout, /CUDA 显存不足/);
    assert.match(zh.stdout, /4-bit QLoRA/);

    const logs = runCli(['logs', t(), ...keys(), 'oom', '--rate', '3.6'], { env, timeoutMs: 60000 });
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /During handling of the above exception/);
    assert.match(logs.stderr, /^\[oom: exit 1 · ran \d+ s · ¥0\.\d\d · CUDA out of memory: the GPU ran out of VRAM\.\]$/m);
    assert.match(logs.stderr, /^ {2}- Turn on gradient checkpointing\.$/m);
    const lj = runCli(['logs', t(), ...keys(), 'oom', '--json'], { env, timeoutMs: 60000 });
    const lo = JSON.parse(lj.stdout);
    assert.equal(lo.end.cause.kind, 'cudaOom');
    assert.equal(lo.end.remedies[0].code, 'smallerBatch');
  });

  it('a full disk is priced per day from --storage-rate, ? without it', async () => {
    writeFileSync(join(a.home, 'disk.log'), readFileSync(join(REAL, 'errno28-dolly.log')), { mode: 0o644 });
    assert.equal(runCli(['run', t(), ...keys(), '--name', 'disk', '--cwd', '~', '--', 'sh', '-c', 'cat "$HOME/disk.log"; exit 1'], { env, timeoutMs: 60000 }).code, 0);
    await waitExited('disk');
    const priced = jobsJson('--storage-rate', '0.007').find((j) => j.name === 'disk')!.end!;
    assert.equal(priced.cause?.kind, 'diskFull');
    assert.match(priced.remedies.find((r) => r.code === 'enlargeDisk')!.text, /50 GB more costs ¥0\.35\/day/);
    assert.match(jobsJson().find((j) => j.name === 'disk')!.end!.remedies.find((r) => r.code === 'enlargeDisk')!.text, /costs \?\/day/);
  });

  it('a running job whose loss is NaN: jobs says it diverged and what it still bills; --json carries it', async () => {
    assert.equal(runCli(['run', t(), ...keys(), '--name', 'nan', '--cwd', '~', '--', 'sh', '-c', 'cat "$HOME/nan.log"; sleep 60'], { env, timeoutMs: 60000 }).code, 0);
    // The job's log on the box holds all three lines (instead of trusting a 1 s sleep).
    const log = join(a.home, '.gpu-rent', 'jobs', 'nan', 'output.log');
    for (let i = 0; existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length < 3 : true; i++) {
      if (i > 400) assert.fail(`the nan job's log did not fill: ${existsSync(log) ? JSON.stringify(readFileSync(log, 'utf8')) : 'no log'}`);
      await new Promise((res) => setTimeout(res, 50));
    }
    const d = jobsJson('--rate', '2.4').find((j) => j.name === 'nan')!;
    assert.equal(d.state, 'running');
    assert.deepEqual({ value: d.diverged?.value, readings: d.diverged?.readings }, { value: 'nan', readings: 2 });
    const text = runCli(['jobs', t(), ...keys(), '--rate', '2.4'], { env, timeoutMs: 60000 });
    assert.match(text.stdout, /nan\s+running\s.*loss NaN for 2 readings since \d\d:\d\d — the run has diverged, still billing ¥2\.40\/h/);
    assert.equal(runCli(['stop', t(), ...keys(), 'nan', '--grace', '1'], { env, timeoutMs: 60000 }).code, 0);
  });

  it('a cause line with terminal escapes: no control character reaches the terminal, in text or JSON', async () => {
    assert.equal(runCli(['run', t(), ...keys(), '--name', 'evil', '--cwd', '~', '--', 'sh', '-c', 'cat "$HOME/evil.log"; exit 1'], { env, timeoutMs: 60000 }).code, 0);
    await waitExited('evil');
    const text = runCli(['jobs', t(), ...keys()], { env, timeoutMs: 60000 });
    assert.match(text.stdout, /evil: cudaOom — RuntimeError: CUDA out of memory\. \\x1b\]0;pwned/);
    const json = runCli(['jobs', t(), ...keys(), '--json'], { env, timeoutMs: 60000 });
    const logs = runCli(['logs', t(), ...keys(), 'evil'], { env, timeoutMs: 60000 });
    for (const out of [text.stdout, json.stdout, logs.stdout, logs.stderr]) assert.doesNotMatch(out, /[\x00-\x08\x0b-\x1f\x7f]/);
  });
});

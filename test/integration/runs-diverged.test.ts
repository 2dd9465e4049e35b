// A diverged run on a real box: a real Python loop prints HF Trainer-style progress (the header,
// tqdm bars, `print(logs)` dicts) whose loss turns `nan`; the app-level watch (RunWatch read by
// byte offset + DivergedRuns) reports it once, and with gpuRent.training.onDiverged on stops
// the run after N readings in a row and runs the end action: the verified checkpoint sync (real
// SFTP pull), and the power action only after it. With the setting off a recovery and a new
// divergence are two notices and nothing is stopped. The platform's no-GPU switch cannot exist
// here: a recorder stands in for it, as in runs-end.test.ts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Instance } from '../../src/core/instances';
import type { RemoteConnection } from '../../src/remote/connection';
import { listJobs, startJob, stopJob } from '../../src/remote/jobs';
import { syncOnce } from '../../src/remote/sync';
import { syncRemote } from '../../src/app/sync';
import { RunWatch, type RunEntry } from '../../src/app/runs/watch';
import { runEndAction, syncOutcomeOf, type PowerActions } from '../../src/app/runs/endAction';
import { DivergedRuns, divergedEndAction, divergedPolicyOf, stopDivergedRun, type DivergedPolicy, type DivergedStep } from '../../src/app/runs/diverged';
import { runPriceOf } from '../../src/app/runs/progress';
import { startSshd, type TestSshd } from '../support/sshd';
import { until } from '../support/timing';
import { connectionTo, tempDir } from './remote-helpers';

// The loop: phases `f:N` (N finite losses), `n:N` or `n:forever` (NaN losses), `ckpt` (write a
// checkpoint), `wait:FILE` (until $HOME/FILE exists). The lines are what the HF Trainer prints.
const TRAIN_PY = String.raw`
import os, sys, time
home = os.path.expanduser('~')
print('***** Running training *****')
print('  Num Epochs = 1')
print('  Total optimization steps = 1,000', flush=True)
step = 0
def one(loss):
    global step
    step += 1
    sys.stdout.write('\r%3d%%|█         | %d/1000 [00:10<01:00,  5.00it/s]\n' % (step * 100 // 1000, step))
    print({'loss': loss, 'grad_norm': loss if loss != loss else 0.5, 'learning_rate': 2e-05, 'epoch': round(step / 1000, 3)}, flush=True)
    time.sleep(0.02)
for phase in sys.argv[1:]:
    kind, _, arg = phase.partition(':')
    if kind == 'f':
        for _ in range(int(arg)): one(round(2.0 - step * 0.001, 4))
    elif kind == 'n':
        for _ in range(10 ** 9 if arg == 'forever' else int(arg)): one(float('nan'))
    elif kind == 'ckpt':
        d = os.path.join(home, 'ckpt', 'checkpoint-%d' % step)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, 'model.safetensors'), 'wb') as f: f.write(os.urandom(200000))
        with open(os.path.join(d, 'trainer_state.json'), 'w') as f: f.write('{"global_step": %d}' % step)
    elif kind == 'wait':
        while not os.path.exists(os.path.join(home, arg)): time.sleep(0.05)
`;

const inst = { id: 'box1', name: '4090-a', intervals: [{ state: 'running', from: 1_000, computeRate: 198, storageRate: 100 }] } as unknown as Instance;

describe('a diverged run (real sshd, real Python)', function () {
  this.timeout(90000);
  let sshd: TestSshd;
  let dir: ReturnType<typeof tempDir>;
  let conn: RemoteConnection;

  before(async () => {
    sshd = await startSshd();
    dir = tempDir();
    conn = connectionTo(sshd, join(dir.path, 'known_hosts'));
    await conn.connect();
    sshd.runAsUser(`cat > "$HOME/train_nan.py" <<'EOF_PY'\n${TRAIN_PY}\nEOF_PY`);
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    dir?.remove();
  });

  /** Polls the run like the extension's poll does (every `everyMs`), each read's decision through the listener. */
  function watcher(jobId: string, logPath: string, policy: DivergedPolicy) {
    const watch = new RunWatch();
    const diverged = new DivergedRuns();
    const steps: { entry: RunEntry; step: DivergedStep; readings: number | null }[] = [];
    watch.onUpdate((entry) => steps.push({ entry, step: diverged.observe(entry.instanceId, entry.jobId, entry.progress.diverged, policy), readings: entry.progress.diverged?.readings ?? null }));
    const read = () => watch.update(conn, { instanceId: inst.id, jobId, logPath, alive: true, price: runPriceOf(inst, 300), now: Date.now() / 1000 });
    // Checks what is there first, then reads the log again before each later check.
    const readUntil = (what: string, ok: () => boolean) => {
      let first = true;
      const readThenOk = async () => (first ? ((first = false), ok()) : (await read(), ok()));
      return until(what, readThenOk, 30000, 250, () => `last ${JSON.stringify(steps.at(-1)?.entry.progress)}`);
    };
    return { watch, steps, read, readUntil };
  }

  it('setting on (stopThenNoGpu, N = 40): told once over several polls, stopped at N readings, then the verified sync, then no-GPU mode', async () => {
    const job = await startJob(conn, { name: 'nanrun', command: ['python3', '-u', join(sshd.home, 'train_nan.py'), 'f:30', 'ckpt', 'n:forever'], cwd: '~', runner: 'setsid' });
    const policy = divergedPolicyOf('stopThenNoGpu', 40);
    const w = watcher('nanrun', job.logPath, policy);
    await w.readUntil('the stop decision', () => w.steps.some((s) => s.step.stop));
    const decidedAt = Date.now();
    const at = w.steps.find((s) => s.step.stop)!;
    const d = at.entry.progress.diverged!;
    assert.equal(d.value, 'nan');
    assert.equal(d.step, 31, 'the first NaN came with step 31');
    assert.equal(d.lastFiniteLoss, 1.971);
    assert.ok(d.readings >= 40, `${d.readings} readings`);
    assert.ok(w.steps.filter((s) => s.readings !== null).length >= 2, 'the divergence was read by more than one poll before the stop');
    assert.equal(w.steps.filter((s) => s.step.notify).length, 1, 'told once, however many polls');
    assert.equal(w.steps.filter((s) => s.step.stop).length, 1);

    const order: string[] = [];
    const local = join(dir.path, 'local-ckpt');
    const power: PowerActions = { powerOff: async () => void order.push('powerOff'), noGpu: async () => void order.push(`noGpu after ${existsSync(join(local, 'checkpoint-30', 'model.safetensors')) ? 'the synced checkpoint' : 'nothing'}`) };
    const stop = await stopDivergedRun(conn, 'nanrun', { graceSeconds: 2 });
    const stopMs = Date.now() - decidedAt;
    order.push('stopped');
    assert.equal(stop.stopped, true, JSON.stringify(stop.job));
    assert.equal(stop.job.stopped, true);
    const action = divergedEndAction(policy.onDiverged, 'nothing', true);
    assert.equal(action, 'sync-then-no-gpu');
    const lines: string[] = [];
    const end = await runEndAction(action, inst, {
      sync: async () => {
        order.push('sync');
        return syncOutcomeOf(await syncOnce(syncRemote(conn), { remoteDir: join(sshd.home, 'ckpt'), localDir: local }));
      },
      power,
      log: (l) => lines.push(l),
    });
    const doneMs = Date.now() - decidedAt;
    assert.equal(end.ok, true, JSON.stringify(end));
    assert.deepEqual(order, ['stopped', 'sync', 'noGpu after the synced checkpoint']);
    assert.equal(readFileSync(join(local, 'checkpoint-30', 'model.safetensors')).length, 200000);
    assert.equal(readFileSync(join(local, 'checkpoint-30', 'trainer_state.json'), 'utf8'), '{"global_step": 30}');
    assert.ok(lines.some((l) => /final sync verified/.test(l)), lines.join('\n'));
    // The loop is gone on the box, not just its wrapper.
    assert.equal(sshd.runAsUser('pgrep -u "$(id -u)" -f "train_na[n].py" || true').trim(), '');
    assert.equal((await listJobs(conn, { name: 'nanrun' }))[0]?.state, 'exited');
    const firstNan = w.steps.findIndex((s) => s.readings !== null);
    console.log(`      measured: first NaN seen at poll ${firstNan + 1} (${w.steps[firstNan]!.readings} readings), stop decided at ${d.readings} readings; stop ${stopMs} ms, + verified sync + no-GPU ${doneMs} ms; log read ${w.watch.bytesRead(inst.id, 'nanrun')} bytes in ${w.steps.length} polls`);
  });

  it('setting off: a recovery and a new divergence are two notices, the spans are kept by step, nothing is stopped', async () => {
    sshd.runAsUser('rm -f "$HOME/go1" "$HOME/go2"');
    const job = await startJob(conn, { name: 'nanback', command: ['python3', '-u', join(sshd.home, 'train_nan.py'), 'f:5', 'n:3', 'wait:go1', 'f:4', 'wait:go2', 'n:2', 'wait:never'], cwd: '~', runner: 'setsid' });
    const w = watcher('nanback', job.logPath, divergedPolicyOf('off', 1));
    const diverged = () => w.steps.at(-1)?.entry.progress.diverged ?? null;
    await w.readUntil('the first divergence', () => diverged()?.readings === 3);
    sshd.runAsUser('touch "$HOME/go1"');
    await w.readUntil('the recovery', () => w.steps.at(-1)?.entry.progress.step === 12 && diverged() === null);
    assert.equal(w.steps.at(-1)!.entry.progress.loss, 1.989);
    sshd.runAsUser('touch "$HOME/go2"');
    await w.readUntil('the second divergence', () => diverged()?.readings === 2);
    // A few more polls of the same divergence: no further notice.
    for (let i = 0; i < 4; i++) await w.read();
    assert.equal(w.steps.filter((s) => s.step.notify).length, 2);
    assert.equal(w.steps.filter((s) => s.step.recovered).length, 1);
    assert.equal(w.steps.some((s) => s.step.stop), false);
    assert.deepEqual(
      w.watch.divergedSpans(inst.id, 'nanback').map((s) => [s.value, s.from, s.to, s.readings]),
      [
        ['nan', 6, 8, 3],
        ['nan', 13, 14, 2],
      ],
    );
    assert.equal((await listJobs(conn, { name: 'nanback' }))[0]?.state, 'running', 'the setting is off: the run goes on');
    await stopJob(conn, 'nanback', { graceSeconds: 1 });
  });
});

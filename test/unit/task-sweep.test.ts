// Sweeps (issue 42): `matrix:` in a task file read, bounded and diagnosed like every other key;
// each combination a task of its own with its values put into run/resume/env/paths; what goes
// into a shell command inert; the plan of which box each run takes and which run ends a shared box.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { parseTaskFile } from '../../src/core/task/schema';
import { combinations, laneDevices, memberTask, planSweep, substitute, SWEEP_WORD_RE, sweepValueProblem, taskOrSweepRun } from '../../src/core/task/sweep';
import { launchTask } from '../../src/app/launch/run';
import type { Task } from '../../src/core/task/types';
import { taskFileErrorLines } from '../../src/app/launch/taskFile';
import { _forTests, budgetShare, memberTaskOf, sweepExitCode, type SweepState } from '../../src/app/launch/sweep';

function one(yaml: string): Task {
  const r = parseTaskFile(yaml);
  assert.ok(r.ok, r.ok ? '' : taskFileErrorLines(r.errors).join('\n'));
  return r.tasks[0]!;
}
function problems(yaml: string): string[] {
  const r = parseTaskFile(yaml);
  assert.ok(!r.ok, 'expected problems');
  return taskFileErrorLines(r.errors);
}

const BASE = ['name: lora', 'run: python train.py --lr {lr} --rank {rank} --out ckpt', 'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}', 'resume: python train.py --lr {lr} --rank {rank} --out ckpt --resume {checkpoint}'];

describe('sweeps: matrix in the task file', () => {
  it('matrix {lr: [1e-4, 3e-4], rank: [8, 16]} is 4 runs, the first key slowest, each its own task', () => {
    const t = one([...BASE, 'matrix: {lr: [1e-4, 3e-4], rank: [8, 16]}', 'max_parallel: 2'].join('\n'));
    assert.deepEqual(t.sweep?.matrix, [['lr', [1e-4, 3e-4]], ['rank', [8, 16]]]);
    assert.equal(t.sweep?.maxParallel, 2);
    assert.equal(t.sweep?.failFast, false);
    const combos = combinations(t.sweep!.matrix);
    assert.deepEqual(combos, [{ lr: 1e-4, rank: 8 }, { lr: 1e-4, rank: 16 }, { lr: 3e-4, rank: 8 }, { lr: 3e-4, rank: 16 }]);
    const m = memberTask(t, 2, combos[1]!);
    assert.equal(m.name, 'lora-2');
    assert.equal(m.run, 'python train.py --lr 0.0001 --rank 16 --out ckpt');
    assert.equal(m.resume, 'python train.py --lr 0.0001 --rank 16 --out ckpt --resume {checkpoint}', '{checkpoint} is the resume’s own, left for the launch');
    assert.equal(m.remoteWorkdir, '~/gpu-rent/lora-2', 'its own workdir on the box, so its own ckpt folder');
    assert.equal(m.checkpoints?.local, './ckpt-home/lora-2', 'its own local checkpoint folder');
    assert.deepEqual(m.sweepMember, { sweep: 'lora', index: 2, params: { lr: 1e-4, rank: 16 } });
    assert.equal(m.sweep, undefined, 'a run is a single launch');
  });

  it('{key} in env and paths; other braces (a shell {1..3}, a Python f-string) are left as they are', () => {
    const t = one(['name: s', 'run: "for i in {1..3}; do python -c \\"print(f\'{x}\')\\" --model {model}; done"', 'env: {MODEL: "{model}", SEED: "{seed}"}', 'checkpoints: {remote: "out/{seed}", local: "./home/{model}/{seed}"}', 'remote_workdir: ~/work', 'matrix: {model: [Qwen/Qwen2.5-0.5B], seed: [1, 2]}'].join('\n'));
    const m = memberTask(t, 1, { model: 'Qwen/Qwen2.5-0.5B', seed: 1 });
    assert.equal(m.run, 'for i in {1..3}; do python -c "print(f\'{x}\')" --model Qwen/Qwen2.5-0.5B; done');
    assert.deepEqual(m.env, { MODEL: 'Qwen/Qwen2.5-0.5B', SEED: '1' });
    assert.equal(m.checkpoints?.remote, 'out/1');
    assert.equal(m.checkpoints?.local, './home/Qwen/Qwen2.5-0.5B/1');
    assert.equal(m.remoteWorkdir, '~/work', 'an explicit workdir is kept; the folder inside has the {seed}');
  });

  it('a value that would do something in a shell is refused with its line and field, in our words', () => {
    for (const bad of ['"1e-4; curl x|sh"', '"$(id)"', '"`id`"', '"a b"', "\"'q'\"", '"../x"', '".hidden"', '"a/../b"', '"*"', '"~/x"', '"x\\ny"', '{a: 1}', '[1]', 'null']) {
      const lines = problems([...BASE, `matrix: {lr: [${bad}], rank: [8]}`].join('\n'));
      assert.ok(lines.some((l) => /^line 5, column \d+ \(matrix\.lr(\[0\])?\): matrix value .* (can only hold|is not a number)/.test(l)), `${bad}: ${lines.join(' | ')}`);
    }
    // Inert words: whatever the quoting, the shell sees them as one plain word.
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (s) => {
        if (sweepValueProblem(s) !== undefined) return;
        assert.match(s, SWEEP_WORD_RE);
        const out = execFileSync('sh', ['-c', `printf '%s\\n' ${substitute('{v}', { v: s })}`], { encoding: 'utf8' });
        assert.equal(out, `${s}\n`);
      }),
      { numRuns: 200 },
    );
  });

  it('bounds: keys, values, runs, name length, and the sweep keys need a matrix', () => {
    assert.match(problems([...BASE, 'matrix: {lr: [1, 2, 3, 4, 5, 6, 7, 8, 9], rank: [1, 2, 3, 4, 5, 6, 7, 8, 9]}'].join('\n')).join('\n'), /matrix makes 81 runs; a sweep is at most 64/);
    assert.match(problems([...BASE, 'matrix: {lr: [1, 1], rank: [8]}'].join('\n')).join('\n'), /matrix\.lr has the same value twice/);
    assert.match(problems([...BASE, 'matrix: {lr: [], rank: [8]}'].join('\n')).join('\n'), /a matrix name has a list of 1 to 16 values/);
    assert.match(problems([...BASE, `matrix: {lr: [${'1,'.repeat(16)}1], rank: [8]}`].join('\n')).join('\n'), /a matrix name has a list of 1 to 16 values/);
    assert.match(problems([...BASE, 'matrix: {lr: [1], rank: [8], checkpoint: [1]}'].join('\n')).join('\n'), /a matrix name is letters/);
    assert.match(problems([...BASE, 'matrix: {lr: [1], rank: [8], "a-b": [1]}'].join('\n')).join('\n'), /a matrix name is letters/);
    assert.match(problems([...BASE, 'matrix: {lr: [1], rank: [8], seed: [1]}'].join('\n')).join('\n'), /\(matrix\.seed\): matrix\.seed is used nowhere: put \{seed\} in run/);
    assert.match(problems([...BASE, 'matrix: [1, 2]'].join('\n')).join('\n'), /matrix is a mapping of names/);
    assert.match(problems([...BASE.map((l) => l.replace('name: lora', `name: ${'n'.repeat(63)}`)), 'matrix: {lr: [1, 2], rank: [8]}'].join('\n')).join('\n'), /a sweep's name is at most 62 characters/);
    assert.match(problems([...BASE, 'fail_fast: true'].join('\n')).join('\n'), /\(fail_fast\): fail_fast is for a sweep: it needs matrix/);
    assert.match(problems([...BASE, 'matrix: {lr: [1], rank: [8]}', 'max_parallel: 0'].join('\n')).join('\n'), /max_parallel is at least 1/);
    assert.match(problems([...BASE, 'matrix: {lr: [1], rank: [8]}', 'resources: {gpus: 2}', 'gpus_per_run: 4'].join('\n')).join('\n'), /gpus_per_run is at most resources\.gpus \(2\)/);
    // A long value times many placeholders cannot grow a command past its cap.
    const long = 'a'.repeat(100);
    assert.match(problems(['name: x', `run: "${'{v}'.repeat(5000)}"`, `matrix: {v: [${long}]}`].join('\n')).join('\n'), /run is too long once the matrix values are put in/);
  });

  it('runs never share a checkpoint folder: an explicit workdir or an absolute folder needs a {key}; local paths stay inside', () => {
    assert.match(problems(['name: x', 'run: t {lr}', 'remote_workdir: ~/w', 'checkpoints: {remote: ckpt, local: ./h}', 'matrix: {lr: [1, 2]}'].join('\n')).join('\n'), /\(checkpoints\.remote\): the sweep's runs would share this checkpoint folder/);
    assert.match(problems(['name: x', 'run: t {lr}', 'checkpoints: {remote: /data/ckpt, local: ./h}', 'matrix: {lr: [1, 2]}'].join('\n')).join('\n'), /share this checkpoint folder/);
    one(['name: x', 'run: t {lr}', 'checkpoints: {remote: "/data/ckpt-{lr}", local: ./h}', 'matrix: {lr: [1, 2]}'].join('\n'));
    // The value cannot climb out of the folder (no ".." part) nor into .git (no part starts with ".").
    assert.match(problems(['name: x', 'run: t {lr}', 'checkpoints: {remote: ckpt, local: "./h/{lr}"}', 'matrix: {lr: [../../etc]}'].join('\n')).join('\n'), /matrix value/);
  });

  it('the plan: listed boxes round-robin, one run at a time each; lanes with gpus_per_run; the last run on a shared box carries its end', () => {
    const t = one([...BASE, 'instance: ["root@a.example:22", "root@b.example:22"]', 'end: power-off', 'matrix: {lr: [1, 2, 3], rank: [8]}'].join('\n'));
    const p = planSweep(t, 3);
    assert.deepEqual(p.slotOf, [0, 1, 0]);
    assert.equal(p.maxParallel, 2);
    assert.deepEqual(p.endCarrier, [2, undefined], 'box a has runs 1 and 3: run 3 ends it; box b has one run: its own end');
    const first = memberTaskOf(t, p, { index: 1, params: { lr: 1, rank: 8 }, slot: 0, devices: null, end: 'none', budgetFen: 500 });
    assert.deepEqual(first.instances, [{ kind: 'ssh', login: 'root@a.example:22' }]);
    assert.equal(first.end, 'none');
    assert.equal(first.budgetFen, 500);
    assert.deepEqual(planSweep({ ...t, end: 'none' }, 3).endCarrier, [undefined, undefined], 'end: none: no run waits for the others');
    const g = one([...BASE, 'instance: "root@a.example:22"', 'resources: {gpus: 4}', 'gpus_per_run: 2', 'matrix: {lr: [1, 2, 3], rank: [8]}'].join('\n'));
    const gp = planSweep(g, 3);
    assert.equal(gp.slots[0]!.lanes, 2);
    assert.equal(gp.maxParallel, 2);
    assert.equal(laneDevices(1, 2), '2,3');
    assert.equal(memberTask(g, 1, { lr: 1, rank: 8 }, { devices: '2,3' }).env.CUDA_VISIBLE_DEVICES, '2,3');
    const n = one([...BASE, 'matrix: {lr: [1, 2, 3, 4, 5, 6], rank: [8]}'].join('\n'));
    const np = planSweep(n, 6);
    assert.equal(np.slots[0]!.instance.kind, 'new');
    assert.equal(np.maxParallel, 4, 'new boxes: at most 4 at once unless max_parallel says');
    assert.deepEqual(np.endCarrier, [undefined], 'each run its own new box, its own end');
  });

  it('a sweep run is found by its name (the release check reads its checkpoint folders); a sweep is never launched as one task', async () => {
    const t = one([...BASE, 'matrix: {lr: [1e-4, 3e-4], rank: [8, 16]}'].join('\n'));
    const r3 = taskOrSweepRun([t], 'lora-3');
    assert.equal(r3?.run, 'python train.py --lr 0.0003 --rank 8 --out ckpt');
    assert.equal(r3?.remoteWorkdir, '~/gpu-rent/lora-3');
    assert.equal(r3?.checkpoints?.local, './ckpt-home/lora-3');
    assert.equal(taskOrSweepRun([t], 'lora-5'), undefined);
    assert.equal(taskOrSweepRun([t], 'lora-03'), undefined);
    assert.equal(taskOrSweepRun([t], 'lora'), t);
    await assert.rejects(launchTask({ file: '/nowhere/gpu-rent.yaml', task: t, smoke: false, resume: false, yes: false }, { configHome: '/nowhere', connectOptions: () => ({}) as never, accounts: async () => [] }), /lora is a sweep \(matrix: lr, rank\): run it with gpu-rent launch/);
  });

  it('runs going at once ask one question at a time (two prompts never share the terminal)', async () => {
    let open = 0;
    let most = 0;
    const asked: string[] = [];
    const host = _forTests.oneQuestionAtATime({
      configHome: '/x',
      connectOptions: () => ({}) as never,
      accounts: async () => [],
      confirmCreate: async (what) => {
        most = Math.max(most, ++open);
        await new Promise((r) => setTimeout(r, 20));
        asked.push(what);
        open--;
        return what !== 'b';
      },
    });
    const answers = await Promise.all(['a', 'b', 'c'].map((w) => host.confirmCreate!(w)));
    assert.deepEqual(answers, [true, false, true]);
    assert.deepEqual(asked, ['a', 'b', 'c']);
    assert.equal(most, 1);
  });

  it('the sweep’s exit status: a box still billing first, then a failed run, then a budget stop', () => {
    const s = (codes: (number | null)[], stopped: string | null = null): SweepState => ({ version: 1, sweep: 's', file: '/f', smoke: false, startedAt: 0, updatedAt: 0, maxParallel: 1, failFast: false, budgetFen: null, stopped, members: codes.map((c, i) => ({ index: i + 1, name: `s-${i + 1}`, params: {}, slot: 0, lane: 0, devices: null, end: 'none', budgetFen: null, status: c === null ? 'skipped' : c === 0 ? 'done' : 'failed', exitCode: c, detail: null })) });
    assert.equal(sweepExitCode(s([0, 0])), 0);
    assert.equal(sweepExitCode(s([0, 1])), 1);
    assert.equal(sweepExitCode(s([1, 4])), 4);
    assert.equal(sweepExitCode(s([0, null], 'budget: spent')), 3);
    assert.equal(sweepExitCode(s([1, null], 'fail_fast: s-1 failed')), 1);
    // A shared box the sweep could not end (its last run never started): still billing, 4.
    const left = { ...s([1, null], 'fail_fast: s-1 failed'), boxEnds: [{ slot: 0, label: 'box', end: 'power-off', ok: false, fenPerHour: 197, detail: 'read-only' }] };
    assert.equal(sweepExitCode(left), 4);
    assert.equal(sweepExitCode({ ...left, boxEnds: [{ ...left.boxEnds[0]!, ok: true }] }), 1);
  });

  it('one budget: a run that ends under its cap leaves the rest to the runs after it (each cap is what is left over the runs that may go at once)', () => {
    // ¥10, 4 runs, 2 at once: runs 1 and 2 start with ¥5 each.
    assert.equal(budgetShare(1000, 0, 2, 4), 500);
    // Run 1 ended at ¥1 (under its ¥5), run 2 has spent ¥2 so far: run 3's cap is (¥10 − ¥3) / 2.
    assert.equal(budgetShare(1000, 300, 2, 3), 350);
    // Run 2 ended at ¥2, run 3 (still going) has spent ¥1: run 4's cap is (¥10 − ¥4) / 2.
    assert.equal(budgetShare(1000, 400, 2, 2), 300);
    // A run that starts with no other run left to go gets all that is left.
    assert.equal(budgetShare(1000, 400, 2, 1), 600);
    // Spent: no further run starts.
    assert.equal(budgetShare(1000, 1000, 2, 2), null);
    assert.equal(budgetShare(1000, 1200, 2, 2), null);
    // Never a zero cap while something is left.
    assert.equal(budgetShare(1000, 999, 4, 4), 1);
  });
});

// The launch step machine's pure decisions (src/app/launch/rules.ts). The expectations come from
// the rules as the launch states them (the README's task file section and the step comments):
// which phase an outcome ends in, what the end does when nothing ran, which job states end the
// watch, when a progress line is said, when a silent spot box is reclaimed, what a second start
// runs. Shell text is checked by a real `sh` parsing it, not by comparing strings.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newLaunchState, type LaunchBox, type LaunchOutcome, type LaunchState } from '../../src/core/task/launch';
import { TASK_ENDS, type TaskEnd } from '../../src/core/task/types';
import type { JobInfo } from '../../src/remote/jobs';
import { activation, boxRecord, burnOf, createdSoFar, createName, deadNode, endActionFor, endActionOf, endReason, endTally, envName, errText, finishPatch, isFinished, jobVerdict, nodeEnd, onBox, outcomePhase, PROGRESS_LINE_SECONDS, ranNothing, reclaimDue, resumeCommand, sayProgress } from '../../src/app/launch/rules';

const box = (o: Partial<LaunchBox> = {}): LaunchBox => ({ candidate: 0, kind: 'ssh', label: 'root@h:22', priceFenPerHour: 360, spot: false, acquiredAt: 1000, ...o });
const state = (o: Partial<LaunchState> = {}): LaunchState => ({ ...newLaunchState({ task: 't', file: '/r/gpu-rent.yaml', taskDigest: 'd', smoke: false, now: 1000 }), ...o });
const job = (o: Partial<JobInfo> = {}): JobInfo => ({ name: 'train', state: 'running', exitCode: null, stopped: false, startedAt: 1000, finishedAt: null, pid: 42, logPath: '/h/.gpu-rent/jobs/train/log', cwd: '/h/w', runner: 'tmux', command: 'python train.py', ...o });
const ckpt = { remote: 'ckpt', local: './ckpt-home', everySeconds: 600 };

/** What `sh` makes of `script` (stdout), with `env`. */
const sh = (script: string, env: NodeJS.ProcessEnv = {}) => execFileSync('sh', ['-c', script], { env: { PATH: '/usr/bin:/bin', ...env }, encoding: 'utf8' });

describe('launch rules (app/launch/rules)', () => {
  it('an outcome ends in done (it did what was asked), stopped (a rule stopped it) or failed; those three are the finished phases', () => {
    const table: Record<LaunchOutcome, 'done' | 'stopped' | 'failed'> = { finished: 'done', smoke: 'done', budget: 'stopped', doctor: 'stopped', runFailed: 'failed', failed: 'failed', noBox: 'failed', diverged: 'failed', refused: 'failed' };
    for (const [kind, phase] of Object.entries(table)) assert.equal(outcomePhase(kind as LaunchOutcome), phase, kind);
    for (const p of ['done', 'stopped', 'failed'] as const) assert.equal(isFinished(state({ phase: p })), true, p);
    for (const p of ['acquire', 'check', 'push', 'setup', 'run', 'watch', 'end'] as const) assert.equal(isFinished(state({ phase: p })), false, p);
  });

  it('the end action: no-gpu and power-off sync first; none and release only sync, and only when there are checkpoints', () => {
    const want: Record<TaskEnd, [string, string]> = { none: ['sync', 'nothing'], release: ['sync', 'nothing'], 'no-gpu': ['sync-then-no-gpu', 'sync-then-no-gpu'], 'power-off': ['sync-then-power-off', 'sync-then-power-off'] };
    for (const end of TASK_ENDS) {
      assert.equal(endActionOf({ end, checkpoints: ckpt }), want[end][0], `${end} with checkpoints`);
      assert.equal(endActionOf({ end }), want[end][1], `${end} without`);
      // A launch that ran nothing has nothing to bring home: a power action stays (the meter goes off), sync does not.
      assert.equal(endActionFor({ end, checkpoints: ckpt }, true), want[end][1], `${end}, nothing ran`);
      assert.equal(endActionFor({ end, checkpoints: ckpt }, false), want[end][0], `${end}, it ran`);
    }
  });

  it('nothing ran when the doctor stopped the launch or no job was started; the end reason is this run\'s, else the saved outcome, else an interruption', () => {
    const started = { name: 'train', startedAt: 1, attempt: 1 };
    assert.equal(ranNothing({ kind: 'doctor', detail: '' }, { job: started }), true);
    assert.equal(ranNothing({ kind: 'budget', detail: '' }, { job: undefined }), true);
    assert.equal(ranNothing({ kind: 'budget', detail: '' }, { job: started }), false);
    const saved = { kind: 'runFailed' as const, detail: 'exit 2', exitCode: 2 };
    assert.deepEqual(endReason({ kind: 'smoke', detail: 'x' }, saved), { kind: 'smoke', detail: 'x' });
    assert.deepEqual(endReason(undefined, saved), { kind: 'runFailed', detail: 'exit 2', exitCode: 2 });
    const r = endReason(undefined, undefined);
    assert.equal(r.kind, 'failed');
    assert.match(r.detail, /interrupted before its end/);
  });

  it('the end adds up: ok only when every box acted and each succeeded; still billing when a box says so or a power action was due and a box never acted', () => {
    const ok = { ok: true };
    const bad = { ok: false };
    assert.deepEqual(endTally([ok, ok], 'sync-then-power-off', 2), { ok: true, stillBilling: false });
    assert.deepEqual(endTally([bad, ok], 'sync', 2), { ok: false, stillBilling: false });
    // Rank 0's sync failed: the second node never acted; its power-off did not happen.
    assert.deepEqual(endTally([bad], 'sync-then-power-off', 2), { ok: false, stillBilling: true });
    assert.deepEqual(endTally([bad], 'sync-then-no-gpu', 2), { ok: false, stillBilling: true });
    // Only a sync (or nothing) was due: a box that did not act is not a meter left on by the end.
    assert.deepEqual(endTally([bad], 'sync', 2), { ok: false, stillBilling: false });
    assert.deepEqual(endTally([{ ok: false, stillBilling: true }], 'sync-then-power-off', 1), { ok: false, stillBilling: true });
    // No box connected: nothing acted, nothing is ok.
    assert.deepEqual(endTally([], 'nothing', 0), { ok: false, stillBilling: false });
  });

  it('a watch poll: running or starting watches on; exit 0 finishes; another end fails the run with its code, unless this launch was stopping it; no job folder fails', () => {
    assert.deepEqual(jobVerdict(job({ state: 'running' }), false), { kind: 'watch' });
    assert.deepEqual(jobVerdict(job({ state: 'starting' }), true), { kind: 'watch' });
    assert.deepEqual(jobVerdict(job({ state: 'exited', exitCode: 0 }), false), { kind: 'finish', outcome: 'finished', detail: 'train finished (exit 0)', exitCode: 0 });
    // Exit 0 is a finished run even while a stop was under way (it ended on its own first).
    assert.equal(jobVerdict(job({ state: 'exited', exitCode: 0 }), true).kind, 'finish');
    assert.deepEqual(jobVerdict(job({ state: 'exited', exitCode: 3 }), false), { kind: 'finish', outcome: 'runFailed', detail: 'train exited with code 3', exitCode: 3 });
    assert.deepEqual(jobVerdict(job({ state: 'lost' }), false), { kind: 'finish', outcome: 'runFailed', detail: 'train was lost (the box restarted?)', exitCode: null });
    // Stopped by this launch (smoke, budget): the end step keeps the reason chosen when it stopped.
    assert.deepEqual(jobVerdict(job({ state: 'exited', exitCode: 143 }), true), { kind: 'end' });
    assert.deepEqual(jobVerdict(job({ state: 'lost' }), true), { kind: 'end' });
    const gone = jobVerdict(undefined, true);
    assert.equal(gone.kind === 'finish' && gone.outcome, 'failed');
  });

  it('another node has ended its part when its job exited other than 0 or was lost; running, starting, exit 0 and no job yet are not an end', () => {
    const nodes = [
      { label: 'a', job: job({ state: 'running' }) },
      { label: 'b', job: job({ state: 'starting' }) },
      { label: 'c', job: job({ state: 'exited', exitCode: 0 }) },
      { label: 'd', job: null },
    ];
    assert.equal(deadNode(nodes), undefined);
    assert.equal(deadNode([...nodes, { label: 'e', job: job({ state: 'exited', exitCode: 1 }) }, { label: 'f', job: job({ state: 'lost' }) }])?.label, 'e');
    assert.equal(deadNode([{ label: 'f', job: job({ state: 'lost' }) }])?.label, 'f');
    assert.equal(nodeEnd({ state: 'exited', exitCode: 9 }), 'exit 9');
    assert.equal(nodeEnd({ state: 'lost', exitCode: null }), 'lost');
  });

  it('a progress line is said when step or total changed: the first one and the first with a step at once, then at most every 30 s', () => {
    assert.equal(PROGRESS_LINE_SECONDS, 30);
    const at = 5000;
    assert.equal(sayProgress(undefined, { step: null, total: null }, 0, at), true, 'the first reading');
    assert.equal(sayProgress({ step: 10, total: 100 }, { step: 10, total: 100 }, at - 999, at), false, 'nothing changed');
    assert.equal(sayProgress({ step: 10, total: 100 }, { step: 11, total: 100 }, at - 29, at), false, '29 s after the last line');
    assert.equal(sayProgress({ step: 10, total: 100 }, { step: 11, total: 100 }, at - 30, at), true, '30 s after');
    assert.equal(sayProgress({ step: 10, total: 100 }, { step: 10, total: 200 }, at - 31, at), true, 'a new total');
    assert.equal(sayProgress({ step: null, total: null }, { step: 1, total: 100 }, at - 1, at), true, 'the first step is not held back');
    assert.equal(sayProgress({ step: 10, total: 100 }, { step: 11, total: 100 }, 0, at), true, 'no line said yet');
  });

  it('a silent spot box is reclaimed once it has not answered for reclaim_after seconds, not a second before', () => {
    assert.equal(reclaimDue(1000, 1000 + 119, 120), false);
    assert.equal(reclaimDue(1000, 1000 + 120, 120), true);
    assert.equal(reclaimDue(1000, 1000 + 500, 120), true);
  });

  it('the burn is every held box\'s price per hour together; unknown when one price is, none without a box', () => {
    assert.equal(burnOf(state()), null);
    assert.equal(burnOf(state({ box: box({ priceFenPerHour: 360 }) })), 360);
    assert.equal(burnOf(state({ box: box({ priceFenPerHour: 360 }), nodes: [box({ priceFenPerHour: 140 }), box({ priceFenPerHour: 100 })] })), 600);
    assert.equal(burnOf(state({ box: box(), nodes: [box({ priceFenPerHour: null })] })), null);
    // Boxes left earlier (`boxes`) are no longer billing.
    assert.equal(burnOf(state({ box: box({ priceFenPerHour: 90 }), boxes: [box({ priceFenPerHour: 5000, leftAt: 2000 })] })), 90);
  });

  it('created instances are named task, task-2, task-3 … counting every instance this launch created, left or held', () => {
    assert.equal(createName('bert', 0), 'bert');
    assert.equal(createName('bert', 1), 'bert-2');
    assert.equal(createName('bert', 2), 'bert-3');
    assert.equal(createdSoFar(state()), 0);
    assert.equal(createdSoFar(state({ box: box({ created: true }), boxes: [box({ created: true, leftAt: 1 }), box({ leftAt: 2 })] })), 2);
  });

  it('a second start (a recovery or a job started before) runs `resume` with the last verified checkpoint; otherwise, or without one, `run`', () => {
    const task = { run: 'python train.py', resume: 'python train.py --resume {checkpoint}' };
    const synced = { at: 1, files: 3, bytes: 9, checkpoint: 'step-0180' };
    const started = { name: 'train', startedAt: 1, attempt: 1 };
    assert.deepEqual(resumeCommand(task, state({ lastSync: synced }), '/h/w/ckpt'), { command: 'python train.py' }, 'a first start');
    assert.deepEqual(resumeCommand(task, state({ recoveries: 1 }), '/h/w/ckpt'), { command: 'python train.py' }, 'no checkpoint synced yet');
    assert.deepEqual(resumeCommand({ run: task.run }, state({ recoveries: 1, lastSync: synced }), '/h/w/ckpt'), { command: 'python train.py' }, 'no resume template');
    assert.deepEqual(resumeCommand(task, state({ recoveries: 1, lastSync: synced }), undefined), { command: 'python train.py' }, 'no remote checkpoints folder');
    const r = resumeCommand(task, state({ recoveries: 1, lastSync: synced }), '/h/w/ckpt');
    assert.equal(r.from, '/h/w/ckpt/step-0180');
    assert.equal(resumeCommand(task, state({ job: started, lastSync: synced }), '/h/w/ckpt').from, '/h/w/ckpt/step-0180', 'resumed after the job had started');
    // Every {checkpoint} becomes one shell word that is exactly the path, quoted by the user or not;
    // a name the box chose with characters a shell reads is refused (core/checkpoints checkpointArgument).
    for (const name of ['step-0180', 'epoch=3-step=1200.ckpt', 'weights/last.pt']) {
      for (const resume of ['set -- {checkpoint} {checkpoint}; printf "%s|%s|%s" "$#" "$1" "$2"', 'set -- "{checkpoint}" \'{checkpoint}\'; printf "%s|%s|%s" "$#" "$1" "$2"']) {
        const c = resumeCommand({ run: 'x', resume }, state({ recoveries: 1, lastSync: { ...synced, checkpoint: name } }), '/h/w/ckpt');
        assert.equal(sh(c.command), `2|/h/w/ckpt/${name}|/h/w/ckpt/${name}`, name);
      }
    }
    for (const name of ["it's 5 \"done\" $(echo injected)", 'a b;c', 'x`id`']) {
      assert.throws(() => resumeCommand({ run: 'x', resume: 'train --resume "{checkpoint}"' }, state({ recoveries: 1, lastSync: { ...synced, checkpoint: name } }), '/h/w/ckpt'), /resume: \{checkpoint\} would be .*characters a shell reads are refused/, name);
    }
  });

  it('the rebuilt environment is named after the task (a leading letter or digit, else env…); its activation puts that env first on PATH in a real sh', () => {
    assert.equal(envName('bert'), 'bert');
    assert.equal(envName('7b-run'), '7b-run');
    assert.equal(envName('-x'), 'env-x');
    assert.equal(envName('_y'), 'env_y');
    assert.deepEqual(activation({ name: 'bert' }), []);
    const home = mkdtempSync(join(tmpdir(), 'launch-rules-'));
    try {
      mkdirSync(join(home, '.gpu-rent/venvs/bert/bin'), { recursive: true });
      const [line] = activation({ name: 'bert', environment: 'env/capture.json' });
      assert.equal(sh(`${line}; printf %s "$PATH"`, { HOME: home }), `${home}/.gpu-rent/venvs/bert/bin:/usr/bin:/bin`);
      // No env of that name on the box: PATH stays as it was.
      const [other] = activation({ name: 'gpt', environment: 'env' });
      assert.equal(sh(`${other}; printf %s "$PATH"`, { HOME: home }), '/usr/bin:/bin');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a remote path: ~ and ~/ against the home, absolute normalised, relative against the base (else the home)', () => {
    assert.equal(onBox('~', '/root'), '/root');
    assert.equal(onBox('~/w/ckpt', '/root'), '/root/w/ckpt');
    assert.equal(onBox('/data/../mnt/x/', '/root'), '/mnt/x/');
    assert.equal(onBox('ckpt', '/root', '/root/w'), '/root/w/ckpt');
    assert.equal(onBox('ckpt', '/root'), '/root/ckpt');
  });

  it('an error is one line of at most 600 characters', () => {
    assert.equal(errText(new Error('a\n\n  b\tc')), 'a b c');
    assert.equal(errText('plain'), 'plain');
    assert.equal(errText(new Error('x'.repeat(5000))).length, 600);
  });

  it('a box record keeps the label to 300 and the login to 2000 characters, and names only what the box has', () => {
    const r = boxRecord({ kind: 'platform', label: 'L'.repeat(400), login: 'ssh '.repeat(1000), account: 'acc', ref: 'i-1', created: true, priceFenPerHour: 250, spot: true }, 2, 7777);
    assert.equal(r.label.length, 300);
    assert.equal(r.login?.length, 2000);
    assert.deepEqual({ ...r, label: '', login: '' }, { candidate: 2, kind: 'platform', label: '', login: '', account: 'acc', ref: 'i-1', created: true, priceFenPerHour: 250, spot: true, acquiredAt: 7777 });
    assert.deepEqual(boxRecord({ kind: 'ssh', label: 'u@h:22', priceFenPerHour: null, spot: false }, 0, 1), { candidate: 0, kind: 'ssh', label: 'u@h:22', priceFenPerHour: null, spot: false, acquiredAt: 1 });
  });

  it('when a launch ends every held box is marked left now (ended), one left earlier keeps its time and reason; the detail is kept to 2000', () => {
    const s = state({ box: box(), nodes: [box({ leftAt: 1500, leftBecause: 'failed' }), box()] });
    const p = finishPatch(s, 'budget', 'd'.repeat(3000), 9000, null);
    assert.equal(p.phase, 'stopped');
    assert.deepEqual(p.outcome, { kind: 'budget', detail: 'd'.repeat(2000), exitCode: null });
    assert.deepEqual([p.box?.leftAt, p.box?.leftBecause], [9000, 'ended']);
    assert.deepEqual(p.nodes?.map((n) => [n.leftAt, n.leftBecause]), [[1500, 'failed'], [9000, 'ended']]);
    const none = finishPatch(state(), 'noBox', 'no instance could be had', 9000);
    assert.deepEqual(none, { phase: 'failed', outcome: { kind: 'noBox', detail: 'no instance could be had' } });
  });
});

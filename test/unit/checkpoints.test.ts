// What counts as a checkpoint (src/core/checkpoints.ts): the real layouts trainers write, each
// with where it is documented, the writer-not-done rules, logs never, the order, the task's own
// pattern, and the `{checkpoint}` text a resume command gets (checked by a real `sh`).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointArgument, checkpointPatternProblem, findCheckpoints, globMatcher, newestComplete, newestFirst, stepOf, type CheckpointFile } from '../../src/core/checkpoints';
import { parseTaskFile } from '../../src/core/task/schema';

/** Files at mtime `t` (seconds); a name ending in "@N" gets mtime N. */
const tree = (t: number, ...rels: string[]): CheckpointFile[] =>
  rels.map((r) => {
    const m = /^(.*)@(\d+)$/.exec(r);
    return m ? { rel: m[1]!, mtime: Number(m[2]) } : { rel: r, mtime: t };
  });
const names = (files: CheckpointFile[], o = {}) => findCheckpoints(files, o).map((c) => `${c.name}${c.incomplete ? `:${c.incomplete}` : ''}`);

describe('checkpoints (core/checkpoints)', () => {
  it('the walk: a LLaMA-Factory output folder gives checkpoint-N, never trainer_log.jsonl (written every step) nor a half-written checkpoint-10.tmp', () => {
    // LLaMA-Factory's output_dir (its README "examples/train_lora" runs): trainer_log.jsonl appended
    // each logging step (LogCallback), checkpoint-N/ each save_steps through the HF Trainer.
    const files = tree(
      100,
      'trainer_log.jsonl@999',
      'running_log.txt@999',
      'checkpoint-10/adapter_model.safetensors@500',
      'checkpoint-10/adapter_config.json@500',
      'checkpoint-10/trainer_state.json@501',
      'checkpoint-20/adapter_model.safetensors@800',
      'checkpoint-20/trainer_state.json@801',
      'checkpoint-30.tmp/adapter_model.safetensors@990',
      'runs/Dec06_04-00-00/events.out.tfevents.1733457600.box.1.0@999',
    );
    assert.equal(newestComplete(files)?.name, 'checkpoint-20');
    assert.deepEqual(names(files), ['checkpoint-10', 'checkpoint-20']);
    // The half-written one as the issue saw it: a checkpoint-10.tmp beside an older complete one.
    assert.equal(newestComplete(tree(100, 'trainer_log.jsonl@999', 'checkpoint-10.tmp/adapter_model.safetensors@998', 'checkpoint-5/trainer_state.json@50', 'checkpoint-5/adapter_model.safetensors@50'))?.name, 'checkpoint-5');
    assert.equal(newestComplete(tree(100, 'trainer_log.jsonl@999', 'checkpoint-10.tmp/adapter_model.safetensors@998')), undefined, 'no complete one: nothing');
  });

  it('HF Trainer checkpoint-N/ counts once trainer_state.json is in it (transformers trainer.py _save_checkpoint writes it after the weights)', () => {
    const files = tree(100, 'checkpoint-500/model.safetensors@90', 'checkpoint-500/optimizer.pt@90', 'checkpoint-1000/model.safetensors@200');
    assert.deepEqual(names(files), ['checkpoint-1000:no-trainer-state', 'checkpoint-500:no-trainer-state']);
    files.push({ rel: 'checkpoint-500/trainer_state.json', mtime: 91 });
    assert.equal(newestComplete(files)?.name, 'checkpoint-500');
    files.push({ rel: 'checkpoint-1000/trainer_state.json', mtime: 201 });
    assert.equal(newestComplete(files)?.name, 'checkpoint-1000');
  });

  it('ms-swift output/vX-…/checkpoint-100 (its docs\' output tree) and a checkpoint nested a few folders down', () => {
    const files = tree(10, 'v0-20241206-040000/checkpoint-100/adapter_model.safetensors', 'v0-20241206-040000/checkpoint-100/trainer_state.json', 'v0-20241206-040000/logging.jsonl', 'v0-20241206-040000/args.json');
    assert.equal(newestComplete(files)?.name, 'v0-20241206-040000/checkpoint-100');
  });

  it('no .tmp / .part / .incomplete anywhere in it: a folder with one is not done', () => {
    for (const inner of ['model.safetensors.tmp', 'model.safetensors.part', 'model.safetensors.incomplete', 'tmp-x/model.bin', 'sub/.tmp-abc', 'tmpk3j2_x8q']) {
      const files = tree(10, 'checkpoint-20/trainer_state.json', `checkpoint-20/${inner}`, 'checkpoint-10/trainer_state.json', 'checkpoint-10/model.safetensors');
      assert.deepEqual(names(files), ['checkpoint-10', 'checkpoint-20:partial-file'], inner);
      assert.equal(newestComplete(files)?.name, 'checkpoint-10', inner);
    }
    // The sync's own unfinished file and HF's staging folder (tmp-checkpoint-N, transformers 4.36).
    assert.equal(newestComplete(tree(10, 'tmp-checkpoint-30/trainer_state.json', 'checkpoint-20/trainer_state.json', 'checkpoint-20/a.gpu-rent-1.part')), undefined);
  });

  it('stable: modified within the settle window (by the files\' own clock) is not done; a file the sync skipped is not all home', () => {
    const files = tree(0, 'epoch=1-step=100.ckpt@100', 'epoch=2-step=200.ckpt@198');
    assert.equal(newestComplete(files, { now: 200 })?.name, 'epoch=1-step=100.ckpt');
    assert.equal(newestComplete(files, { now: 204 })?.name, 'epoch=2-step=200.ckpt');
    assert.equal(newestComplete(files, { now: 200, settleSeconds: 1 })?.name, 'epoch=2-step=200.ckpt');
    const hf = tree(0, 'checkpoint-20/trainer_state.json', 'checkpoint-20/model.safetensors', 'checkpoint-10/trainer_state.json', 'checkpoint-10/model.safetensors');
    assert.equal(newestComplete(hf, { unsettled: new Set(['checkpoint-20/optimizer.pt']) })?.name, 'checkpoint-10');
    assert.equal(newestComplete(hf, { unsettled: new Set(['checkpoint-2/optimizer.pt']) })?.name, 'checkpoint-20', 'checkpoint-2 is not checkpoint-20');
  });

  it('PyTorch Lightning: epoch=3-step=1200.ckpt and last.ckpt (ModelCheckpoint\'s default filename and save_last), in lightning_logs/version_0/checkpoints/', () => {
    const d = 'lightning_logs/version_0/checkpoints';
    const files = tree(0, `${d}/epoch=2-step=900.ckpt@300`, `${d}/epoch=3-step=1200.ckpt@400`, 'lightning_logs/version_0/hparams.yaml@1', 'lightning_logs/version_0/metrics.csv@401');
    assert.equal(newestComplete(files)?.name, `${d}/epoch=3-step=1200.ckpt`);
    assert.equal(stepOf('epoch=3-step=1200.ckpt'), 1200);
    files.push({ rel: `${d}/last.ckpt`, mtime: 400 });
    assert.equal(newestComplete(files)?.name, `${d}/last.ckpt`, 'written with the newest numbered one: last.ckpt');
    files.push({ rel: `${d}/epoch=4-step=1500.ckpt`, mtime: 500 });
    assert.equal(newestComplete(files)?.name, `${d}/epoch=4-step=1500.ckpt`, 'an older last.ckpt loses to a newer numbered one');
  });

  it('DeepSpeed global_step500/ (engine.save_checkpoint\'s default tag) with its latest file', () => {
    const files = tree(0, 'latest@600', 'global_step500/mp_rank_00_model_states.pt@500', 'global_step500/zero_pp_rank_0_mp_rank_00_optim_states.pt@500', 'global_step1000/mp_rank_00_model_states.pt@600');
    assert.equal(newestComplete(files)?.name, 'global_step1000');
    assert.deepEqual(names(files), ['global_step1000', 'global_step500']);
  });

  it('YOLO weights/last.pt and best.pt (ultralytics trainer: last.pt is what resume=True reads, best.pt is picked only alone)', () => {
    const files = tree(0, 'runs/detect/train/weights/last.pt@100', 'runs/detect/train/weights/best.pt@101', 'runs/detect/train/results.csv@101', 'runs/detect/train/args.yaml@1');
    assert.equal(newestComplete(files)?.name, 'runs/detect/train/weights/last.pt');
    assert.equal(newestComplete(tree(0, 'weights/best.pt'))?.name, 'weights/best.pt');
  });

  it('step-N / epoch-N folders (Accelerate save_state, Megatron iter_0001000) and weight files with a step number; numbers order them, not names or mtimes', () => {
    assert.equal(newestComplete(tree(0, 'step-900/model.safetensors@900', 'step-1000/model.safetensors@800'))?.name, 'step-1000', 'step 1000 after step 900, whatever the mtime');
    assert.equal(newestComplete(tree(0, 'epoch_2/model.bin', 'epoch_10/model.bin'))?.name, 'epoch_10', 'numbers, not names (epoch_2 > epoch_10 as text)');
    assert.equal(newestComplete(tree(0, 'iter_0001000/mp_rank_00/model_optim_rng.pt', 'iter_0000500/mp_rank_00/model_optim_rng.pt'))?.name, 'iter_0001000');
    assert.equal(newestComplete(tree(0, 'model_step1000.pt', 'model_step999.pt', 'train.log'))?.name, 'model_step1000.pt');
    assert.equal(newestComplete(tree(0, 'adapter_500.safetensors', 'adapter_1500.safetensors'))?.name, 'adapter_1500.safetensors');
    assert.equal(newestComplete(tree(0, 'ckpt_3.pth@1', 'ckpt_3.pth.bak@2'))?.name, 'ckpt_3.pth');
    // Same number: the newer one.
    assert.equal(newestComplete(tree(0, 'a/step-5/x.bin@1', 'b/step-5/x.bin@2'))?.name, 'b/step-5');
  });

  it('never a log, and not a model\'s shards or a pretrained weight without a step', () => {
    const logs = tree(0, 'trainer_log.jsonl', 'train.log', 'step-10.log', 'epoch_3.txt', 'events.out.tfevents.1733457600.box.1.0', 'metrics.csv', 'model-00001-of-00004.safetensors', 'model-00002-of-00004.safetensors', 'yolov8n.pt', 'resnet50.pth', 'pytorch_model.bin', 'config.json');
    assert.deepEqual(names(logs), []);
    // Even a pattern that matches everything does not make a log a checkpoint.
    assert.deepEqual(names(tree(0, 'trainer_log.jsonl', 'ckpt.bin'), { patterns: ['*'] }), ['ckpt.bin']);
  });

  it('checkpoints.pattern: globs decide instead of the layouts (a name at any depth without /, ** across folders)', () => {
    const files = tree(0, 'save/model_a.bin@1', 'save/model_b.bin@2', 'checkpoint-5/trainer_state.json@3', 'out/final/weights.npz@4');
    assert.deepEqual(names(files, { patterns: ['model_*.bin'] }), ['save/model_a.bin', 'save/model_b.bin']);
    assert.equal(newestComplete(files, { patterns: ['model_*.bin'] })?.name, 'save/model_b.bin');
    assert.deepEqual(names(files, { patterns: ['out/**/*.npz'] }), ['out/final/weights.npz']);
    assert.deepEqual(names(files, { patterns: ['save'] }), ['save'], 'a folder');
    assert.ok(globMatcher('a*b')('x/aZZb') && !globMatcher('a*b')('a/b') && globMatcher('a/**/c')('a/c') && globMatcher('a/**/c')('a/b/b/c') && !globMatcher('a/*/c')('a/b/b/c'));
    assert.equal(checkpointPatternProblem('../x'), 'dotdot');
    assert.equal(checkpointPatternProblem('/abs/*'), 'absolute');
    assert.equal(checkpointPatternProblem('*a*b*c*d*e*f*g*h*i'), 'too-many-wildcards');
    assert.equal(checkpointPatternProblem('a\u0007'), 'control-char');
    assert.equal(checkpointPatternProblem('checkpoint-*'), undefined);
    // A hostile glob is quick: 8 wildcards over a 255-byte name.
    const t0 = Date.now();
    assert.equal(globMatcher('*a*a*a*a*a*a*a*b')('a'.repeat(255)), false);
    assert.equal(globMatcher('**/**/**/**/**/**/**/x*')('a/'.repeat(6) + 'a'.repeat(255)), false);
    assert.ok(Date.now() - t0 < 500);
  });

  it('the task file takes checkpoints.pattern as one glob or a list, and refuses a bad one', () => {
    const base = 'name: t\nrun: python train.py\ncheckpoints:\n  remote: out\n  local: ./ck\n';
    const one = parseTaskFile(`${base}  pattern: "*.ckpt"\n`);
    assert.ok(one.ok, JSON.stringify(one));
    assert.deepEqual(one.ok && one.tasks[0]!.checkpoints!.patterns, ['*.ckpt']);
    const list = parseTaskFile(`${base}  pattern: [checkpoint-*, weights/last.pt]\n`);
    assert.deepEqual(list.ok && list.tasks[0]!.checkpoints!.patterns, ['checkpoint-*', 'weights/last.pt']);
    const none = parseTaskFile(base);
    assert.equal(none.ok && none.tasks[0]!.checkpoints!.patterns, undefined);
    for (const bad of ['"../x"', '[]', '3', '"/root/*"']) {
      const r = parseTaskFile(`${base}  pattern: ${bad}\n`);
      assert.equal(r.ok, false, bad);
      assert.match(JSON.stringify(r), /checkpoints\.pattern/, bad);
    }
  });

  it('newestFirst is one order whatever the input order', () => {
    const list = findCheckpoints(tree(0, 'checkpoint-3/trainer_state.json@3', 'checkpoint-1/trainer_state.json@9', 'last.ckpt@5', 'best.ckpt@99', 'checkpoint-2/trainer_state.json@2'));
    const a = newestFirst(list).map((c) => c.name);
    assert.deepEqual(a, ['last.ckpt', 'checkpoint-3', 'checkpoint-2', 'checkpoint-1', 'best.ckpt']);
    assert.deepEqual(newestFirst([...list].reverse()).map((c) => c.name), a);
  });

  it('{checkpoint}: a path of shell-inert characters is the same word in "…", \'…\' and no quotes; anything a shell reads is refused, and no $( … ) ever runs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ckpt-arg-'));
    try {
      const sh = (script: string) => execFileSync('sh', ['-c', script], { cwd: dir, env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
      for (const name of ['checkpoint-20', 'epoch=3-step=1200.ckpt', 'weights/last.pt', '检查点-5', 'a+b,c@d%e:f']) {
        const a = checkpointArgument(`/root/ck/${name}`);
        assert.ok(a.ok, name);
        for (const template of ['printf %s {checkpoint}', 'printf %s "{checkpoint}"', "printf %s '{checkpoint}'"]) {
          assert.equal(sh(template.split('{checkpoint}').join(a.text)), `/root/ck/${name}`, `${name} in ${template}`);
        }
      }
      for (const name of ['x$(touch pwned)', 'x`touch pwned`', "x'$(touch pwned)'", 'x"$(touch pwned)"', 'a b', 'a;b', 'a\nb', '$HOME', 'a\\b', 'x{a,b}', 'a*', '~x', '-rf']) {
        const a = checkpointArgument(name.startsWith('-') ? name : `/root/ck/${name}`);
        assert.equal(a.ok, false, name);
        if (!a.ok) assert.ok(a.bad.length > 0 || name.startsWith('-'), name);
      }
      assert.equal(checkpointArgument('/root/../etc').ok, false);
      assert.equal(existsSync(join(dir, 'pwned')), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

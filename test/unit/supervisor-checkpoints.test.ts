// One notion of a checkpoint, on the laptop and on the box: the supervisor's python3 copy of
// core/checkpoints.ts's rules (handed the same regular expressions) must say the same as
// findCheckpoints for every layout, complete or not. Runs the real script's functions in python3.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findCheckpoints, type CheckpointFile } from '../../src/core/checkpoints';
import { SUPERVISOR_PY } from '../../src/remote/guards/supervisor-script';
import { supervisorConfigText, parseSupervisorStatus } from '../../src/remote/guards/supervisor';
import { ProgressTracker } from '../../src/core/progress';

const NOW = 1_800_000_000;
const old = NOW - 600;

const layouts: Record<string, CheckpointFile[]> = {
  'LLaMA-Factory output (the walk: a log written every step, a half-written .tmp)': [
    { rel: 'trainer_log.jsonl', mtime: NOW },
    { rel: 'checkpoint-10/adapter_model.safetensors', mtime: old },
    { rel: 'checkpoint-10/trainer_state.json', mtime: old },
    { rel: 'checkpoint-20/adapter_model.safetensors', mtime: old + 10 },
    { rel: 'checkpoint-20/trainer_state.json', mtime: old + 10 },
    { rel: 'checkpoint-30.tmp/adapter_model.safetensors', mtime: NOW - 1 },
    { rel: 'runs/events.out.tfevents.1.host', mtime: NOW },
  ],
  'HF folder without trainer_state.json yet, and one still being written': [
    { rel: 'checkpoint-5/model.safetensors', mtime: old },
    { rel: 'checkpoint-6/model.safetensors', mtime: NOW - 1 },
    { rel: 'checkpoint-6/trainer_state.json', mtime: NOW - 1 },
  ],
  'Lightning, DeepSpeed, Megatron, mmengine, YOLO, hand-written': [
    { rel: 'lightning_logs/version_0/checkpoints/epoch=3-step=1200.ckpt', mtime: old },
    { rel: 'last.ckpt', mtime: old + 5 },
    { rel: 'global_step500/mp_rank_00_model_states.pt', mtime: old },
    { rel: 'latest', mtime: old },
    { rel: 'iter_0001000/mp_rank_00/model_optim_rng.pt', mtime: old },
    { rel: 'epoch_3.pth', mtime: old },
    { rel: 'runs/train/exp/weights/last.pt', mtime: old },
    { rel: 'runs/train/exp/weights/best.pt', mtime: old },
    { rel: 'model_step1000.pt', mtime: old },
    { rel: 'model-00001-of-00004.safetensors', mtime: old },
    { rel: 'adapter_500.safetensors.part', mtime: old },
    { rel: 'train.log', mtime: NOW },
    { rel: 'notes.txt', mtime: old },
    { rel: '.gpu-rent-x/step-9.pt', mtime: old },
  ],
  'hostile and odd names': [
    { rel: 'checkpoint-$(touch x)/trainer_state.json', mtime: old },
    { rel: 'step_7/a b/c.bin', mtime: old },
    { rel: 'a/b/c/d/e/f/g/h/step-3.pt', mtime: old },
    { rel: 'tmp-checkpoint-40/trainer_state.json', mtime: old },
    { rel: 'checkpoint-٣/trainer_state.json', mtime: old },
    { rel: 'EPOCH-2.PT', mtime: old },
  ],
};

function pythonFind(files: CheckpointFile[], patterns: string[] | null): unknown {
  const dir = mkdtempSync(join(tmpdir(), 'gpr-sup-ck-'));
  try {
    writeFileSync(join(dir, 'supervisor.py'), SUPERVISOR_PY);
    const cfg = JSON.parse(supervisorConfigText({ job: 'j', pollSeconds: 1, checkpoints: { dir: '~/x', everySeconds: 1, patterns: patterns ?? undefined }, store: null, divergeAfter: null, budgetSeconds: null, bill: null, spot: null, end: { action: 'none', command: null }, notify: {}, laptopAwaySeconds: 60, graceSeconds: 0 })) as Record<string, unknown>;
    writeFileSync(join(dir, 'in.json'), JSON.stringify({ cfg, files: files.map((f) => [f.rel, f.mtime, f.size ?? 0]), now: NOW }));
    const harness = `import json, sys
sys.path.insert(0, ${JSON.stringify(dir)})
import supervisor as s
d = json.load(open(${JSON.stringify(join(dir, 'in.json'))}))
s.C = d["cfg"]
s.rules()
out = s.find_checkpoints([tuple(f) for f in d["files"]], d["now"], 5)
print(json.dumps(sorted([[n, v["kind"], v["step"], v["mtime"], v["incomplete"]] for n, v in out.items()])))`;
    return JSON.parse(execFileSync('python3', ['-c', harness], { encoding: 'utf8' }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function coreFind(files: CheckpointFile[], patterns: string[] | null): unknown {
  return findCheckpoints(files, { now: NOW, settleSeconds: 5, ...(patterns ? { patterns } : {}) })
    .map((c) => [c.name, c.kind, c.step ?? null, c.mtime, c.incomplete ?? null])
    .sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
}

describe('supervisor: the box finds the same checkpoints as the laptop', () => {
  for (const [name, files] of Object.entries(layouts)) {
    it(`default layouts: ${name}`, () => {
      const want = coreFind(files, null);
      assert.ok((want as unknown[]).length > 0, 'the layout has checkpoints');
      assert.deepEqual(pythonFind(files, null), want);
    });
  }
  it("a task's own checkpoints.pattern", () => {
    const files = [...layouts['Lightning, DeepSpeed, Megatron, mmengine, YOLO, hand-written']!, { rel: 'out/save_00012/weights.bin', mtime: old }];
    files.push({ rel: `${'a'.repeat(200)}.pt`, mtime: old }, { rel: `${'x/'.repeat(6)}${'a'.repeat(120)}`, mtime: old });
    // A hostile pattern from a cloned task file: both sides walk it in linear time (a backtracking regex would not finish).
    for (const patterns of [['out/save_*'], ['**/*.ckpt'], ['*.pt', 'global_step*'], ['*a*a*a*a*a*a*a*b'], ['**/**/**/**/*a*a*a*c']]) assert.deepEqual(pythonFind(files, patterns), coreFind(files, patterns), patterns.join(','));
  });
  it('never takes a log or a half-written folder for the checkpoint (the walk)', () => {
    const names = (pythonFind(layouts['LLaMA-Factory output (the walk: a log written every step, a half-written .tmp)']!, null) as [string, string, number, number, string | null][]).filter((c) => c[4] === null).map((c) => c[0]);
    assert.deepEqual(names, ['checkpoint-10', 'checkpoint-20']);
  });
});

describe('supervisor: config and status', () => {
  it('refuses a message command word a shell or python could read as more than a path', () => {
    const base = { job: 'j', pollSeconds: 1, checkpoints: null, store: null, divergeAfter: null, budgetSeconds: null, bill: null, spot: null, end: { action: 'none' as const, command: null }, laptopAwaySeconds: 60, graceSeconds: 0 };
    assert.throws(() => supervisorConfigText({ ...base, notify: { finished: [['python3', '$(id)']] } }), /unexpected word/);
    assert.throws(() => supervisorConfigText({ ...base, notify: { finished: [['python3', 'a b']] } }), /unexpected word/);
    assert.equal((JSON.parse(supervisorConfigText({ ...base, job: 'a;b', notify: {} })) as { job: string }).job, 'a-b');
    const cfg = JSON.parse(supervisorConfigText({ ...base, pollSeconds: 1e9, divergeAfter: -4, notify: { finished: [['python3', '-I', '~/.gpu-rent/x/notify-send.py', '/tmp/r.json']] } })) as { pollSeconds: number; divergeAfter: number };
    assert.equal(cfg.pollSeconds, 600);
    assert.equal(cfg.divergeAfter, 1);
  });
  it('reads a status with hostile journal lines as data and bounded', () => {
    const stdout = [
      'installed=1',
      'now=1000',
      'alive=1',
      'heartbeat=995',
      'state=running 990',
      '@@stored',
      JSON.stringify({ 'checkpoint-10': { files: [], at: 980, step: 10 }, '': { at: 1 } }),
      '@@events',
      JSON.stringify({ at: 990, kind: 'armed', detail: 'job=j' }),
      JSON.stringify({ at: 991, kind: 'Bad Kind!', detail: 'x' }),
      JSON.stringify({ at: 992, kind: 'stored', detail: 'x'.repeat(5000) }),
      '{"at": 993, "kind": "cut',
      '',
    ].join('\n');
    const s = parseSupervisorStatus(stdout);
    assert.equal(s.armed, true);
    assert.deepEqual(s.state, { text: 'running', at: 990 });
    assert.deepEqual(s.stored, [{ name: 'checkpoint-10', step: 10, at: 980 }]);
    assert.deepEqual(s.events.map((e) => e.kind), ['armed', 'stored']);
    assert.equal(s.events[1]!.detail.length, 300);
    assert.equal(parseSupervisorStatus('installed=0\n').installed, false);
  });
});

describe('supervisor: the box counts non-finite losses as the laptop does (one reading a line, never an eval loss)', () => {
  const boxStreak = (lines: string[]): number => {
    const dir = mkdtempSync(join(tmpdir(), 'gpr-sup-loss-'));
    try {
      writeFileSync(join(dir, 'supervisor.py'), SUPERVISOR_PY);
      writeFileSync(join(dir, 'lines.json'), JSON.stringify(lines));
      const py = `import json, sys
sys.path.insert(0, ${JSON.stringify(dir)})
import supervisor as s
for l in json.load(open(${JSON.stringify(join(dir, 'lines.json'))})):
    s.read_line(l)
print(s.LOG["streak"])`;
      return Number(execFileSync('python3', ['-c', py], { encoding: 'utf8' }).trim());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const laptopReadings = (lines: string[]): number => {
    const t = new ProgressTracker();
    lines.forEach((l, i) => t.feed(`${l}\n`, 1000 + i));
    return t.progress.diverged?.readings ?? 0;
  };
  const times = (line: (i: number) => string, n = 10) => Array.from({ length: n }, (_, i) => line(i + 1));
  for (const [name, lines] of [
    ['a Trainer dict', times((i) => `{'loss': nan, 'learning_rate': 5e-05, 'epoch': ${i / 10}}`)],
    ['key=value with a prefix', times((i) => `step ${i} train_loss=nan lr=1e-4`)],
    ['two losses on one line', times(() => 'loss: nan lm loss: nan')],
    ['kohya in a tqdm postfix', times((i) => `steps:  ${i}%|█         | ${i}/100 [00:0${i % 10}<00:10,  1.00it/s, avr_loss=nan]`)],
  ] as const) {
    it(name, () => {
      const box = boxStreak([...lines]);
      assert.equal(box, 10, `the box counted ${box}`);
      assert.equal(box, laptopReadings([...lines]), 'the laptop counts the same');
    });
  }
  it('an evaluation loss is no training reading on either side', () => {
    const lines = times((i) => `step ${i} eval/loss: nan`);
    assert.equal(boxStreak(lines), 0);
    assert.equal(laptopReadings(lines), 0);
  });
});

// The task file gpu-rent.yaml: the issue's example, several tasks, every kind of error with the
// line, column and field a user sees, the bounds (size, aliases, nesting) and the JSON Schema
// the editor uses. The YAML here is written for these tests (the project's own format).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import fc from 'fast-check';
import { parse } from 'yaml';
import { parseDuration, parseTaskFile, taskInputSchema } from '../../src/core/task/schema';
import type { Task, TaskFileError, TaskFileResult } from '../../src/core/task/types';
import { renderTaskSchema, TASK_SCHEMA_PATH } from '../../scripts/task-schema';

// Issue 21's example, verbatim.
const ISSUE_EXAMPLE = `name: lora
resources: {cards: [4090, 3090], gpus: 1, min_vram_gb: 22, max_yuan_per_hour: 4, spot: false}
instance: new        # or an instance's name or platform id, or an ssh login ("ssh -p 2222 root@host")
workdir: .           # pushed to ~/gpu-rent/<name> on the box unless remote_workdir says otherwise
setup: pip install -r requirements.txt
run: python train.py --out ckpt
checkpoints: {remote: ckpt, local: ./ckpt-home, every: 10m}
resume: python train.py --out ckpt --resume {checkpoint}
end: no-gpu          # none | no-gpu | power-off | release (release asks unless --yes)
budget_yuan: 50
`;

function tasksOf(r: TaskFileResult): Task[] {
  if (!r.ok) assert.fail(`expected ok, got ${JSON.stringify(r.errors)}`);
  return r.tasks;
}

/** The one error of a file that should have exactly one. */
/** Where and what in English (the problem's code is checked in task-words.test.ts). */
function placed(e: TaskFileError): Omit<TaskFileError, 'problem'> {
  const { problem: _problem, ...rest } = e;
  return rest;
}

function oneError(text: string, opts?: { platformIds?: readonly string[] }): Omit<TaskFileError, 'problem'> {
  const r = parseTaskFile(text, opts);
  if (r.ok) assert.fail('expected errors');
  assert.equal(r.errors.length, 1, JSON.stringify(r.errors));
  return placed(r.errors[0]!);
}

describe('task file (gpu-rent.yaml)', () => {
  it('reads the issue example exactly, in fen and seconds, with defaults', () => {
    const [t] = tasksOf(parseTaskFile(ISSUE_EXAMPLE));
    assert.deepEqual(t, {
      name: 'lora',
      resources: { cards: ['rtx4090', 'rtx3090'], gpus: 1, minVramGb: 22, maxFenPerHour: 400, platforms: [], spot: false },
      instances: [{ kind: 'new' }],
      workdir: '.',
      remoteWorkdir: '~/gpu-rent/lora',
      data: [],
      setup: ['pip install -r requirements.txt'],
      run: 'python train.py --out ckpt',
      env: {},
      checkpoints: { remote: 'ckpt', local: './ckpt-home', everySeconds: 600 },
      resume: 'python train.py --out ckpt --resume {checkpoint}',
      end: 'no-gpu',
      budgetFen: 5000,
      smoke: { steps: 20, seconds: 300 },
      reclaimAfterSeconds: 120,
    } satisfies Task);
  });

  it('reads every field of the long form, and two tasks with unique names', () => {
    const text = `tasks:
  - name: lora
    resources:
      cards: [4090, "RTX 3090", a100-80g]
      gpus: 2
      min_vram_gb: 22
      max_yuan_per_hour: 3.98
      platforms: [autodl]
      spot: true
    instance: [my-box, "ssh -p 2222 root@region-1.autodl.com", "root@10.0.0.2:2200", "ssh://root@host.example:22", new]
    remote_workdir: /root/autodl-tmp/lora
    data:
      - {push: ./data, remote: /root/autodl-tmp/data}
      - {fetch: "huggingface-cli download x", remote: ~/models}
    setup:
      environment: env.json
      commands: [pip install -r requirements.txt, python prep.py]
    run: python train.py --out ckpt
    env: {HF_ENDPOINT: https://hf-mirror.com, CUDA_VISIBLE_DEVICES: 0, WANDB_DISABLED: true}
    checkpoints: {remote: ckpt, local: ./ckpt-home, every: 1h30m}
    resume: python train.py --resume {checkpoint}
    end: release
    budget_yuan: 120.5
    smoke: {steps: 50, minutes: 2}
    price_yuan_per_hour: 1.98
    reclaim_after: 90s
  - name: eval
    run: python eval.py
    setup: [nvidia-smi, pip install -e .]
    end: power-off
`;
    const [a, b] = tasksOf(parseTaskFile(text, { platformIds: ['autodl', 'aliyun'] }));
    assert.deepEqual(a!.resources, { cards: ['rtx4090', 'rtx3090', 'a100-80g'], gpus: 2, minVramGb: 22, maxFenPerHour: 398, platforms: ['autodl'], spot: true });
    assert.deepEqual(a!.instances, [
      { kind: 'named', ref: 'my-box' },
      { kind: 'ssh', login: 'ssh -p 2222 root@region-1.autodl.com' },
      { kind: 'ssh', login: 'root@10.0.0.2:2200' },
      { kind: 'ssh', login: 'ssh://root@host.example:22' },
      { kind: 'new' },
    ]);
    assert.equal(a!.remoteWorkdir, '/root/autodl-tmp/lora');
    assert.deepEqual(a!.data, [{ push: './data', remote: '/root/autodl-tmp/data' }, { fetch: 'huggingface-cli download x', remote: '~/models' }]);
    assert.equal(a!.environment, 'env.json');
    assert.deepEqual(a!.setup, ['pip install -r requirements.txt', 'python prep.py']);
    assert.deepEqual(a!.env, { HF_ENDPOINT: 'https://hf-mirror.com', CUDA_VISIBLE_DEVICES: '0', WANDB_DISABLED: 'true' });
    assert.equal(a!.checkpoints!.everySeconds, 5400);
    assert.equal(a!.end, 'release');
    assert.equal(a!.budgetFen, 12050);
    assert.deepEqual(a!.smoke, { steps: 50, seconds: 120 });
    assert.equal(a!.priceFenPerHour, 198);
    assert.equal(a!.reclaimAfterSeconds, 90);
    assert.equal(b!.name, 'eval');
    assert.deepEqual(b!.setup, ['nvidia-smi', 'pip install -e .']);
    assert.equal(b!.remoteWorkdir, '~/gpu-rent/eval');
    assert.equal(b!.end, 'power-off');
    assert.deepEqual(b!.resources, { cards: [], gpus: 1, platforms: [], spot: false });
    assert.equal(b!.checkpoints, undefined);
  });

  it('reads durations: 90s, 10m, 1h30m, 2h, a bare number of seconds; refuses the rest', () => {
    assert.equal(parseDuration('90s'), 90);
    assert.equal(parseDuration('10m'), 600);
    assert.equal(parseDuration('1h30m'), 5400);
    assert.equal(parseDuration('2h'), 7200);
    assert.equal(parseDuration('1h0m5s'), 3605);
    assert.equal(parseDuration(45), 45);
    assert.equal(parseDuration('45'), 45);
    for (const bad of ['', 'm', '10x', '1.5h', '-5', '30m1h', '10 m', 'h1', '9999999h']) assert.equal(parseDuration(bad), undefined, bad);
    for (const bad of [-1, 1.5, Number.NaN, Infinity]) assert.equal(parseDuration(bad), undefined, String(bad));
  });

  describe('errors name the line, column and field', () => {
    it('a wrong type', () => {
      assert.deepEqual(oneError('name: a\nrun: python t.py\nresources:\n  gpus: two\n'), {
        line: 4, column: 9, field: 'resources.gpus', message: 'gpus is a whole number',
      });
      assert.deepEqual(oneError('name: a\nrun: 3\n'), { line: 2, column: 6, field: 'run', message: 'run is a shell command (a string)' });
    });

    it('an unknown key, with "did you mean" when it is close', () => {
      const e = oneError('name: a\nrun: x\nchekpoints: {remote: ckpt, local: ./c}\n');
      assert.deepEqual(e, { line: 3, column: 1, field: 'chekpoints', message: 'unknown key "chekpoints"; did you mean checkpoints?' });
      const inner = oneError('name: a\nrun: x\nresources:\n  cards: [4090]\n  max_yuan_per_hr: 3\n');
      assert.equal(inner.line, 5);
      assert.equal(inner.field, 'resources.max_yuan_per_hr');
      assert.match(inner.message, /did you mean max_yuan_per_hour\?/);
      for (const [text, field, want] of [
        ['name: a\nrun: x\nsmoke: {step: 3}\n', 'smoke.step', 'steps'],
        ['name: a\nrun: x\ndata: [{fetch: wget u, remot: /a}]\n', 'data[0].remot', 'remote'],
        ['name: a\nrun: x\ncheckpoints: {remote: a, local: b, evry: 10m}\n', 'checkpoints.evry', 'every'],
        ['tasks:\n  - name: a\n    run: x\n    smoke: {minute: 1}\n', 'tasks[0].smoke.minute', 'minutes'],
      ] as const) {
        const r = parseTaskFile(text);
        const e = r.ok ? undefined : r.errors.find((x) => x.field === field);
        assert.equal(e?.message, `unknown key "${field.split('.').pop()}"; did you mean ${want}?`, JSON.stringify(r));
      }
      const task = parseTaskFile('task:\n  - name: a\n    run: x\n');
      assert.ok(!task.ok && task.errors.some((e) => e.field === 'task' && e.message.endsWith('did you mean tasks?')));
      const far = oneError('name: a\nrun: x\nzzz: 1\n');
      assert.equal(far.message, 'unknown key "zzz"');
    });

    it('a bad duration', () => {
      assert.deepEqual(oneError('name: a\nrun: x\ncheckpoints:\n  remote: ckpt\n  local: ./c\n  every: 10 minutes\n'), {
        line: 6, column: 10, field: 'checkpoints.every', message: 'expected a duration like 90s, 10m, 1h30m, 2h, or a number of seconds',
      });
      const short = oneError('name: a\nrun: x\ncheckpoints: {remote: c, local: d, every: 10s}\n');
      assert.equal(short.field, 'checkpoints.every');
      assert.equal(short.message, 'must be at least 30 s');
    });

    it('an unknown card, listing known ids', () => {
      const e = oneError('name: a\nrun: x\nresources:\n  cards: [4090, 4080]\n');
      assert.equal(e.line, 4);
      assert.equal(e.column, 17);
      assert.equal(e.field, 'resources.cards[1]');
      assert.match(e.message, /^unknown card "4080" \(known: .*rtx4090.*\)$/);
    });

    it('a bad yuan amount: more than 2 decimals, zero, negative', () => {
      assert.deepEqual(oneError('name: a\nrun: x\nresources: {max_yuan_per_hour: 1.234}\n'), {
        line: 3, column: 32, field: 'resources.max_yuan_per_hour', message: 'max_yuan_per_hour has at most 2 decimals (whole fen)',
      });
      assert.deepEqual(oneError('name: a\nrun: x\nbudget_yuan: 0\n'), { line: 3, column: 14, field: 'budget_yuan', message: 'budget_yuan must be more than ¥0' });
      assert.equal(oneError('name: a\nrun: x\nprice_yuan_per_hour: -2\n').field, 'price_yuan_per_hour');
    });

    it('a missing run, or one with no value', () => {
      assert.deepEqual(oneError('name: a\nsetup: pip install x\n'), { line: 1, column: 1, field: 'run', message: 'run is required' });
      assert.deepEqual(oneError('name: a\nrun:\nend: none\n'), { line: 2, column: 1, field: 'run', message: 'run has no value' });
      const inTasks = oneError('tasks:\n  - name: a\n    run: x\n  - name: b\n    setup: y\n');
      assert.deepEqual(inTasks, { line: 4, column: 5, field: 'tasks[1].run', message: 'run is required' });
    });

    it('duplicate task names', () => {
      assert.deepEqual(oneError('tasks:\n  - name: a\n    run: x\n  - name: b\n    run: y\n  - name: a\n    run: z\n'), {
        line: 6, column: 11, field: 'tasks[2].name', message: 'duplicate task name "a"',
      });
    });

    it('resume without checkpoints, and resume without {checkpoint}', () => {
      assert.deepEqual(oneError('name: a\nrun: x\nresume: python t.py --resume {checkpoint}\n'), {
        line: 3, column: 9, field: 'resume', message: 'resume needs checkpoints (there is nothing to resume from)',
      });
      const e = oneError('name: a\nrun: x\ncheckpoints: {remote: c, local: d}\nresume: python t.py --resume last\n');
      assert.equal(e.line, 4);
      assert.match(e.message, /must contain \{checkpoint\}/);
    });

    it('a YAML syntax error, with its line', () => {
      const r = parseTaskFile('name: a\nrun: x\n\tend: none\n');
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.deepEqual(placed(r.errors[0]!), { line: 3, column: 1, field: '', message: 'YAML: Tabs are not allowed as indentation' });
      const dup = oneError('name: a\nrun: x\nname: b\n');
      assert.deepEqual(dup, { line: 3, column: 1, field: '', message: 'YAML: a key appears twice in the same mapping' });
      assert.deepEqual(oneError('name: a\nrun: x\nenv: {1: a, "1": b}\n'), { line: 3, column: 13, field: '', message: 'YAML: a key appears twice in the same mapping' });
    });

    it('the other checks: name, instance, paths, env names, data, setup, platforms, end', () => {
      const cases: [string, Partial<TaskFileError>][] = [
        ['name: "lo ra"\nrun: x\n', { line: 1, field: 'name', message: 'name is 1–64 letters, digits, - or _' }],
        ['name: a\nrun: x\ninstance: [new, "root@h:99999"]\n', { line: 3, column: 17, field: 'instance[1]' }],
        ['name: a\nrun: x\nremote_workdir: gpu/a\n', { line: 3, field: 'remote_workdir', message: 'remote_workdir must be absolute (/…) or start with ~/' }],
        ['name: a\nrun: x\nremote_workdir: ~/a/../../etc\n', { line: 3, field: 'remote_workdir', message: 'remote_workdir has a ".." segment' }],
        ['name: a\nrun: x\nremote_workdir: "/a\\x1b[2Jb"\n', { line: 3, field: 'remote_workdir', message: 'remote_workdir holds a control character' }],
        ['name: a\nrun: x\nenv:\n  1BAD: x\n', { line: 4, column: 3, field: 'env.1BAD' }],
        ['name: a\nrun: x\ndata:\n  - {push: ./d, fetch: "wget u", remote: /d}\n', { line: 4, column: 5, field: 'data[0]', message: 'a data entry has one of push, fetch or from' }],
        ['name: a\nrun: x\ndata:\n  - {push: ./d, remote: relative}\n', { line: 4, column: 25, field: 'data[0].remote' }],
        ['name: a\nrun: x\nsetup: {environment: e.json, commands: [ok, 3]}\n', { line: 3, column: 45, field: 'setup.commands[1]' }],
        ['name: a\nrun: x\nsetup: {environment: e.json, comands: [a]}\n', { line: 3, column: 30, field: 'setup.comands', message: 'unknown key "comands"; did you mean commands?' }],
        ['name: a\nrun: x\nend: shutdown\n', { line: 3, column: 6, field: 'end', message: 'end is one of none, no-gpu, power-off, release' }],
        ['name: a\nrun: x\nresources: {gpus: 9}\n', { line: 3, field: 'resources.gpus' }],
        ['name: a\nrun: x\nsmoke: {steps: 0}\n', { line: 3, column: 16, field: 'smoke.steps', message: 'smoke.steps is at least 1' }],
        ['name: a\nrun: "x\\0y"\n', { line: 2, field: 'run', message: 'run holds a control character' }],
      ];
      for (const [text, want] of cases) {
        const e = oneError(text);
        for (const [k, v] of Object.entries(want)) assert.equal(e[k as keyof typeof e], v, `${JSON.stringify(text)}: ${JSON.stringify(e)}`);
      }
      const p = oneError('name: a\nrun: x\nresources: {platforms: [autodl, vast]}\n', { platformIds: ['autodl', 'aliyun'] });
      assert.deepEqual(p, { line: 3, column: 33, field: 'resources.platforms[1]', message: 'unknown platform "vast" (known: autodl, aliyun)' });
      // Without the list, any id is taken (the catalog is the caller's).
      assert.ok(parseTaskFile('name: a\nrun: x\nresources: {platforms: [vast]}\n').ok);
    });

    it('reports several problems at once, in line order', () => {
      const r = parseTaskFile('name: a\nresources: {gpus: 0}\nend: later\nbudget_yuan: 1.001\n');
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.deepEqual(r.errors.map((e) => [e.line, e.field]), [[1, 'run'], [2, 'resources.gpus'], [3, 'end'], [4, 'budget_yuan']]);
    });

    it('refuses what is not a task: empty, a list, a scalar, a complex key', () => {
      assert.match(oneError('').message, /empty/);
      assert.match(oneError('# only a comment\n').message, /empty/);
      assert.match(oneError('- a\n- b\n').message, /mapping/);
      assert.match(oneError('just text\n').message, /mapping/);
      assert.deepEqual(oneError('name: a\nrun: x\n? [k]\n: 1\n'), { line: 3, column: 3, field: '', message: 'a key is a plain word, not a list or mapping' });
      assert.match(oneError('tasks: []\n').message, /tasks is empty/);
      assert.deepEqual(oneError('tasks:\n  - name: a\n    run: x\nextra: 1\n'), { line: 4, column: 1, field: 'extra', message: 'unknown key "extra"; a file with tasks: holds only tasks' });
    });
  });

  describe('bounds', () => {
    it('refuses a 300 KiB file unread, quickly', () => {
      const text = `name: a\nrun: x\n${'# padding line of a big file\n'.repeat(11_000)}`;
      assert.ok(text.length > 300 * 1024);
      const t0 = performance.now();
      const e = oneError(text);
      assert.ok(performance.now() - t0 < 50);
      assert.deepEqual(e, { line: 1, column: 1, field: '', message: 'the task file is larger than 256 KiB' });
      // Multi-byte characters count as bytes: 100k "模" is 300 KB in UTF-8 though 100k UTF-16 units.
      assert.match(oneError(`name: a\nrun: echo ${'模'.repeat(100_000)}\n`).message, /larger than 256 KiB/);
    });

    it('refuses a billion-laughs file of 10k aliases quickly, without throwing', () => {
      let text = 'l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
      for (let i = 1; i <= 10; i++) text += `l${i}: &l${i} [${Array.from({ length: 1000 }, () => `*l${i - 1}`).join(', ')}]\n`;
      text += 'name: a\nrun: x\n';
      assert.ok(text.length < 256 * 1024, String(text.length));
      assert.equal((text.match(/\*l/g) ?? []).length, 10_000);
      const t0 = performance.now();
      const r = parseTaskFile(text);
      const ms = performance.now() - t0;
      if (r.ok) assert.fail('accepted');
      // The 101st alias is the first of line 2 `l1: &l1 [*l0, …` past 100 × "*l0, " (5 characters each).
      assert.deepEqual(r.errors.map(placed), [{ line: 2, column: 10 + 100 * 5, field: '', message: 'more than 100 YAML aliases' }]);
      assert.ok(ms < 200, `${ms} ms`);
    });

    it('refuses a small file whose 30 aliases expand to a thousand nodes', () => {
      const text = `a: &a [lol]\nb: &b [${'*a, '.repeat(9)}*a]\nc: &c [${'*b, '.repeat(9)}*b]\nd: [${'*c, '.repeat(9)}*c]\nname: a\nrun: x\n`;
      assert.deepEqual(oneError(text), { line: 1, column: 1, field: '', message: 'more than 100 YAML aliases expanded' });
      // A few aliases are fine: an anchor used twice.
      const [t] = tasksOf(parseTaskFile('name: a\nrun: &cmd python train.py\nresume: python train.py --resume {checkpoint}\ncheckpoints: {remote: &c ckpt, local: *c}\n'));
      assert.equal(t!.checkpoints!.local, 'ckpt');
      assert.deepEqual(oneError('name: a\nrun: x\nresources:\n  cards: [*nope]\n'), { line: 4, column: 11, field: '', message: 'YAML: an alias (*name) with no anchor (&name) before it' });
    });

    it('refuses more than 4096 list items and keys before yaml builds them (a 120k-item list took 1.5 s)', () => {
      const t0 = performance.now();
      const e = oneError(`name: a\nrun: x\ndata: [${'1,'.repeat(120_000)}1]\n`);
      assert.ok(performance.now() - t0 < 500);
      assert.deepEqual(e, { line: 3, column: 8 + 4096 * 2 - 4 - 1, field: '', message: 'more than 4096 list items and mapping keys' });
    });

    it('refuses 33 tasks, a 17 KiB command and a 65-character name', () => {
      const many = `tasks:\n${Array.from({ length: 33 }, (_, i) => `  - {name: t${i}, run: x}\n`).join('')}`;
      assert.deepEqual(oneError(many), { line: 2, column: 3, field: 'tasks', message: 'at most 32 tasks in one file' });
      assert.equal(oneError(`name: a\nrun: ${'x'.repeat(17 * 1024)}\n`).message, 'run is longer than 16 KiB');
      assert.equal(oneError(`name: ${'n'.repeat(65)}\nrun: x\n`).field, 'name');
    });

    it('refuses flow collections nested more than 64 deep, before the recursive composer sees them', () => {
      const cases: [string, number, number][] = [
        [`name: a\nrun: x\nextra: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`, 3, 7 + 65],
        [`name: a\nrun: x\nextra: ${'{a: '.repeat(40_000)}1${'}'.repeat(40_000)}\n`, 3, 7 + 64 * 4 + 1],
        [`name: a\r\nrun: x\r\nextra:\r\n  - ${'['.repeat(70)}\r\n`, 4, 4 + 65],
        // Block lists nested on one line (`- - - 1`): 4000 of them overflowed yaml's stack.
        [`name: a\nrun: x\nextra:\n  ${'- '.repeat(4000)}1\n`, 4, 3 + 64 * 2],
      ];
      for (const [text, line, column] of cases) {
        const t0 = performance.now();
        assert.deepEqual(oneError(text), { line, column, field: '', message: 'lists or mappings nested more than 64 deep' });
        assert.ok(performance.now() - t0 < 500);
      }
      // Brackets inside a command are text, not nesting; a few nested lists are fine.
      assert.equal(oneError('name: a\nrun: x\nextra:\n  - - - 1\n').field, 'extra');
      assert.equal(tasksOf(parseTaskFile(`name: a\nrun: echo ${'['.repeat(100)}\n`))[0]!.run, `echo ${'['.repeat(100)}`);
    });

    it('turns any amount of whole fen written in yuan into exactly that many fen (fast-check)', () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 1_000_000_000 }), (fen) => {
          const yuanText = `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, '0')}`;
          const [t] = tasksOf(parseTaskFile(`name: a\nrun: x\nbudget_yuan: ${yuanText}\nprice_yuan_per_hour: ${fen <= 10_000_000 ? yuanText : 1}\n`));
          return t!.budgetFen === fen && (fen > 10_000_000 || t!.priceFenPerHour === fen);
        }),
        { numRuns: 500 },
      );
    });

    it('never throws, and every error has a line, column and message (fast-check)', () => {
      const piece = fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.string({ unit: 'binary', maxLength: 10 }),
        fc.constantFrom('name: ', 'run: ', 'tasks:\n', '  - ', 'resources: {', 'cards: [', '}', ']', '\n', '  ', ': ', '&a ', '*a', '? ', '--- ', '"', "'", '#', '{checkpoint}', '\t', 'every: ', '1h30m', '4090', '1.234', '<<: *a'),
      );
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
          const r = parseTaskFile(pieces.join(''));
          if (r.ok) return r.tasks.length >= 1;
          return r.errors.length >= 1 && r.errors.every((e) => e.line >= 1 && e.column >= 1 && typeof e.field === 'string' && e.message.length > 0 && e.message.length < 400);
        }),
        { numRuns: 400 },
      );
      fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (s) => typeof parseTaskFile(s).ok === 'boolean'), { numRuns: 300 });
    });
  });

  describe('JSON Schema for the editor', () => {
    it('the committed schemas/gpu-rent-task.schema.json is what scripts/task-schema.ts generates', () => {
      assert.equal(readFileSync(TASK_SCHEMA_PATH, 'utf8'), renderTaskSchema(), 'run: npx tsx scripts/task-schema.ts');
    });

    it('is draft-07, explains every field, accepts the issue example and refuses a typo', () => {
      const schema = JSON.parse(readFileSync(TASK_SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
      assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
      const undocumented: string[] = [];
      const walk = (n: unknown, at: string): void => {
        if (!n || typeof n !== 'object') return;
        const props = (n as { properties?: Record<string, { title?: string; description?: string }> }).properties;
        for (const [k, v] of Object.entries(props ?? {})) if (!v.title || !v.description) undocumented.push(`${at}.${k}`);
        for (const [k, v] of Object.entries(n)) walk(v, `${at}/${k}`);
      };
      walk(schema, '');
      assert.deepEqual(undocumented, []);
      for (const k of Object.keys(taskInputSchema.shape)) assert.ok(JSON.stringify(schema).includes(`"${k}"`), k);
      const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
      assert.ok(validate(parse(ISSUE_EXAMPLE)), JSON.stringify(validate.errors));
      assert.ok(validate(parse('tasks:\n  - name: a\n    run: x\n  - name: b\n    run: y\n')), JSON.stringify(validate.errors));
      assert.equal(validate(parse('name: a\nrun: x\nchekpoints: {remote: c, local: d}\n')), false);
      assert.equal(validate(parse('name: a\nrun: x\nend: later\n')), false);
      assert.equal(validate(parse('name: a\nrun: x\ncheckpoints: {remote: c, local: d, every: 10 minutes}\n')), false);
    });
  });
});

// The application layer's pure parts and its file work on real files: the transfer meter, the
// folders sync asks for, the .gitignore offer, job states, the rented-card check, the fix
// script, the login history, the pool's fingerprint and the release hook.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsyncHook, Emitter } from '../../src/app/events';
import { mergeJobStates } from '../../src/app/jobs';
import { connectionFingerprint } from '../../src/app/pool';
import { addToGitignore, checkRemoteDir, gitignoreAdvice, resolveLocalDir, TransferMeter } from '../../src/app/sync';
import { failureAction } from '../../src/app/session';
import { fixScript, pythonMinor } from '../../src/core/doctor-fix';
import { createInstance, MAX_PREVIOUS_ENDPOINTS, withLogin, type Instance } from '../../src/core/instances';
import { checkRentedCard } from '../../src/core/rentedCard';
import { RemoteError } from '../../src/remote/errors';
import { parseTarget } from '../../src/remote/target';

const GIB = 1024 ** 3;

describe('app: the sync meter', () => {
  it('counts files, bytes and speed from the engine events, resumed files by the bytes read', () => {
    let t = 1000;
    const m = new TransferMeter(() => t);
    m.observe({ kind: 'listed', files: 3, toPull: 2 });
    m.observe({ kind: 'file-start', name: 'a', size: 100, from: 0 });
    t += 500;
    m.observe({ kind: 'bytes', name: 'a', done: 60, size: 100 });
    m.observe({ kind: 'bytes', name: 'a', done: 100, size: 100 });
    m.observe({ kind: 'file-done', name: 'a', size: 100, bytes: 100, verifiedOnly: false });
    m.observe({ kind: 'file-start', name: 'b', size: 1000, from: 400 });
    m.observe({ kind: 'bytes', name: 'b', done: 600, size: 1000 });
    t += 1000;
    const s = m.snapshot();
    assert.equal(s.filesTotal, 2);
    assert.equal(s.filesDone, 1);
    assert.equal(s.bytesDone, 700);
    assert.equal(s.bytesStarted, 700);
    assert.equal(s.current, 'b');
    assert.equal(Math.round(s.bytesPerSecond), 700);
  });
});

describe('app: sync folders', () => {
  it('a folder on the box must be absolute, without .. or control characters', () => {
    assert.equal(checkRemoteDir('/root/autodl-tmp/ckpt'), undefined);
    assert.equal(checkRemoteDir('root/ckpt'), 'remote-not-absolute');
    assert.equal(checkRemoteDir('/root/../etc'), 'remote-dot-segment');
    assert.equal(checkRemoteDir('/root/ck\npt'), 'remote-control-char');
  });
  it('a relative local folder needs the workspace; an absolute one does not', () => {
    assert.deepEqual(resolveLocalDir('ckpt', '/ws'), { ok: true, path: '/ws/ckpt' });
    assert.deepEqual(resolveLocalDir('/data/ckpt', undefined), { ok: true, path: '/data/ckpt' });
    assert.deepEqual(resolveLocalDir('ckpt', undefined), { ok: false, problem: 'local-needs-workspace' });
    assert.deepEqual(resolveLocalDir('  ', '/ws'), { ok: false, problem: 'local-empty' });
  });
});

describe('app: the .gitignore offer for a checkpoint folder in a git work tree', () => {
  let root = '';
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gr-git-'));
    mkdirSync(join(root, '.git'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('offers the folder once, writes it, and does not offer it again', async () => {
    writeFileSync(join(root, '.gitignore'), 'node_modules\n');
    const advice = await gitignoreAdvice(join(root, 'runs', 'ckpt'));
    assert.deepEqual(advice, { repoRoot: root, entry: 'runs/ckpt' });
    await addToGitignore(advice!);
    assert.equal(readFileSync(join(root, '.gitignore'), 'utf8'), 'node_modules\n# checkpoints pulled by gpu-rent\n/runs/ckpt/\n');
    assert.equal(await gitignoreAdvice(join(root, 'runs', 'ckpt')), undefined);
  });
  it('a folder whose parent is ignored, or outside any work tree, gets no offer', async () => {
    writeFileSync(join(root, '.gitignore'), '/runs/\n');
    assert.equal(await gitignoreAdvice(join(root, 'runs', 'ckpt')), undefined);
    const outside = mkdtempSync(join(tmpdir(), 'gr-nogit-'));
    try {
      assert.equal(await gitignoreAdvice(join(outside, 'ckpt')), undefined);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('app: job states from the box', () => {
  it('marks a job exited once, with its code; a running one as running', () => {
    const refs = [
      { id: 'a', command: 'python a.py', startedAt: 1 },
      { id: 'b', command: 'python b.py', startedAt: 2 },
    ];
    const r1 = mergeJobStates(refs, [{ name: 'a', state: 'exited', exitCode: 1, finishedAt: 50 }, { name: 'b', state: 'running', exitCode: null, finishedAt: null }], 99);
    assert.deepEqual(r1.refs, [
      { id: 'a', command: 'python a.py', startedAt: 1, state: 'exited', exitCode: 1, endedAt: 50 },
      { id: 'b', command: 'python b.py', startedAt: 2, state: 'running' },
    ]);
    assert.deepEqual(r1.ended.map((j) => j.id), ['a']);
    const r2 = mergeJobStates(r1.refs, [{ name: 'a', state: 'exited', exitCode: 1, finishedAt: 50 }], 120);
    assert.deepEqual(r2.ended, [], 'told once');
  });
});

describe('core: is the box the card you rent', () => {
  it('matches the rented card by family and memory, and names what the box has instead', () => {
    const g4090 = { name: 'NVIDIA GeForce RTX 4090', memoryTotalBytes: 24 * GIB };
    assert.deepEqual(checkRentedCard('RTX 4090', 1, [g4090]), { kind: 'match' });
    assert.deepEqual(checkRentedCard('rtx4090', 2, [g4090]), { kind: 'fewer-gpus', rented: 2, seen: 1 });
    assert.deepEqual(checkRentedCard('RTX 4090', 1, [{ name: 'NVIDIA GeForce RTX 3090', memoryTotalBytes: 24 * GIB }]), { kind: 'other-card', rented: 'RTX 4090 24GB', seen: ['NVIDIA GeForce RTX 3090'] });
    assert.deepEqual(checkRentedCard('A100 80GB', 1, [{ name: 'NVIDIA A100-SXM4-40GB', memoryTotalBytes: 40 * GIB }]).kind, 'other-card');
    assert.deepEqual(checkRentedCard('RTX 4090', 1, []), { kind: 'no-gpu', rented: 1 });
    assert.equal(checkRentedCard('RTX 4090', 1, [{ name: 'Some Future GPU 9000' }]).kind, 'unknown');
  });
});

describe('core: the fix as a script', () => {
  it('a fresh conda env first where advised, with the box Python checked', () => {
    const fix = { pip: 'pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu118', env: ['fresh-conda-env' as const] };
    assert.deepEqual(fixScript({ fix, pythonVersion: '3.11.2' }), ['conda create -n work python=3.11 -y', 'conda activate work', fix.pip]);
    assert.deepEqual(fixScript({ fix: { pip: fix.pip }, pythonVersion: '3.11.2' }), [fix.pip]);
    assert.equal(fixScript({ fix: {}, pythonVersion: '3.11.2' }), null);
    assert.equal(pythonMinor('3;touch ~/PWNED;#.1'), null);
    assert.deepEqual(fixScript({ fix, pythonVersion: '3;touch ~/PWNED;#.1' })?.[0], 'conda create -n work python=3.10 -y');
  });
});

describe('core: a new login remembers where the same instance answered before', () => {
  const base = (): Instance =>
    createInstance({ id: 'i1', name: 'x', platform: 'autodl', card: 'RTX 4090', gpuCount: 1, login: { host: 'connect.example.com', port: 41234, user: 'root', auth: 'password' }, pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 0 } }, 'running', 1000);
  it('newest first, without the current one or repeats, bounded', () => {
    let i = withLogin(base(), { host: 'connect.example.com', port: 50000, user: 'root', auth: 'password' });
    assert.deepEqual(i.login.previousEndpoints, [{ host: 'connect.example.com', port: 41234 }]);
    i = withLogin(i, { host: 'connect.example.com', port: 41234, user: 'root', auth: 'password' });
    assert.deepEqual(i.login.previousEndpoints, [{ host: 'connect.example.com', port: 50000 }]);
    for (let p = 1; p <= 20; p++) i = withLogin(i, { host: 'connect.example.com', port: 60000 + p, user: 'root', auth: 'password' });
    assert.equal(i.login.previousEndpoints!.length, MAX_PREVIOUS_ENDPOINTS);
    assert.deepEqual(i.login.previousEndpoints![0], { host: 'connect.example.com', port: 60019 });
    const same = withLogin(base(), { host: 'connect.example.com', port: 41234, user: 'root', auth: 'password' });
    assert.equal(same.login.previousEndpoints, undefined);
  });
});

describe('app: the pool tells connections apart by what they were made with', () => {
  const t = parseTarget('ssh -p 41234 root@connect.example.com');
  it('a new password, port or timing setting is a different connection; prompts are not', () => {
    const a = connectionFingerprint(t, { password: 'one', keepaliveIntervalMs: 15000, confirmNewKey: async () => true });
    assert.equal(a, connectionFingerprint(t, { password: 'one', keepaliveIntervalMs: 15000, confirmNewKey: async () => false }));
    assert.notEqual(a, connectionFingerprint(t, { password: 'two', keepaliveIntervalMs: 15000 }));
    assert.notEqual(a, connectionFingerprint(t, { password: 'one', keepaliveIntervalMs: 7000 }));
    assert.notEqual(a, connectionFingerprint(parseTarget('ssh -p 41235 root@connect.example.com'), { password: 'one', keepaliveIntervalMs: 15000 }));
    assert.ok(!a.includes('one'));
  });
  it('what helps after a failure', () => {
    assert.equal(failureAction(new RemoteError('connect-refused', 'x')), 'update-login');
    assert.equal(failureAction(new RemoteError('auth-failed', 'x', { detail: { tried: ['password'] } } as never)), 'update-login');
    assert.equal(failureAction(new RemoteError('timeout', 'x')), 'retry');
  });
});

describe('app: events', () => {
  it('a failing listener does not stop the others; the async hook awaits each in turn', async () => {
    const e = new Emitter<number>();
    const got: number[] = [];
    e.event(() => {
      throw new Error('boom');
    });
    e.event((n) => got.push(n));
    e.fire(1);
    assert.deepEqual(got, [1]);
    const h = new AsyncHook<string>();
    const order: string[] = [];
    h.event(async (s) => {
      await new Promise((r) => setTimeout(r, 20));
      order.push(`slow ${s}`);
    });
    h.event(async () => {
      throw new Error('no');
    });
    h.event(async (s) => {
      order.push(`fast ${s}`);
    });
    const errors: unknown[] = [];
    await h.fire('x', (err) => errors.push(err));
    assert.deepEqual(order, ['slow x', 'fast x']);
    assert.equal(errors.length, 1);
  });
});

// Which log folder Open TensorBoard / forward --tensorboard uses when none is given: the one the
// task's run names on its command line (--logdir, --logging_dir …), the newest running job first,
// relative paths against the job's folder; box text with .., variables or quotes left open is not taken.
import assert from 'node:assert/strict';
import { logdirOfJobs, parsePortSpec, ForwardError } from '../../src/app/forward';

const job = (command: string, o: { state?: 'running' | 'exited'; cwd?: string | null; startedAt?: number; name?: string } = {}) => ({ name: o.name ?? 'train', state: o.state ?? 'running', command, cwd: o.cwd === undefined ? '/root/autodl-tmp/proj' : o.cwd, startedAt: o.startedAt ?? 100 });

describe('forward: the log folder from the task, and PORT[:LOCAL]', () => {
  it('takes --logdir / --logging_dir from the newest running job, absolute against its folder', () => {
    assert.equal(logdirOfJobs([job('python train.py --output_dir out --logging_dir out/tb')]), '/root/autodl-tmp/proj/out/tb');
    assert.equal(logdirOfJobs([job('python train.py --logdir=/root/tf-logs/run1')]), '/root/tf-logs/run1');
    assert.equal(logdirOfJobs([job("python t.py --log_dir './runs 2'")]), '/root/autodl-tmp/proj/runs 2');
    assert.equal(logdirOfJobs([job('python a.py --logdir /a', { startedAt: 1 }), job('python b.py --logdir /b', { startedAt: 2 })]), '/b');
    assert.equal(logdirOfJobs([job('python a.py --logdir /a', { state: 'exited' })]), undefined);
    assert.equal(logdirOfJobs([job('tensorboard --logdir /x', { name: 'gpu-rent-tensorboard' })]), undefined);
  });

  it('leaves box text it cannot trust: .., variables, no folder for a relative path', () => {
    assert.equal(logdirOfJobs([job('python t.py --logdir ../../etc')]), undefined);
    assert.equal(logdirOfJobs([job('python t.py --logdir $HOME/x')]), undefined);
    assert.equal(logdirOfJobs([job('python t.py --logdir runs', { cwd: null })]), undefined);
    assert.equal(logdirOfJobs([job('python t.py --epochs 3')]), undefined);
  });

  it('reads PORT and PORT:LOCAL, and refuses anything else', () => {
    assert.deepEqual(parsePortSpec('6006'), { remote: 6006 });
    assert.deepEqual(parsePortSpec('8888:18888'), { remote: 8888, local: 18888 });
    assert.deepEqual(parsePortSpec('8888:0'), { remote: 8888, local: 0 });
    for (const bad of ['0', '65536', 'x', '80:', ':80', '80:x', '1:2:3', '-1', '1e3', ''])
      assert.throws(() => parsePortSpec(bad), (e: unknown) => e instanceof ForwardError && e.code === 'bad-port', bad);
  });
});

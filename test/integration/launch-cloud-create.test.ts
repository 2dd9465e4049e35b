// The task file's create: block on the clouds (helper K, issue 38 item 1): vswitch, security_group,
// vpc/subnet, bandwidth, ssh_key, spot_reclaim are read and checked by core/task, and the launch's
// `instance: new` path (app/launch/boxes.ts) hands them to the same previewCreate `gpu-rent create`
// uses, against the local platform server: a 阿里云 create with a vSwitch and a key inside the home
// gets past the preview (to the create question); without the vSwitch, or with a key outside the
// home, it is refused before anything bills, the field named.
import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeConnector } from '../../src/app/platforms/accounts';
import { acquireBox, AcquireError, type AcquireOptions } from '../../src/app/launch/boxes';
import { PowerOnLocks } from '../../src/app/platforms/powerLock';
import { parseTaskFile } from '../../src/core/task/schema';
import type { Task } from '../../src/core/task/types';
import { PlatformServer } from '../support/platform-server';

const now = () => Math.floor(Date.now() / 1000);

function taskOf(yaml: string): Task {
  const r = parseTaskFile(yaml);
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  return r.tasks[0]!;
}
const base = ['name: cloud', 'run: python train.py', 'instance: new', 'resources: {cards: [a10], gpus: 1}'];

describe('launch instance: new on the clouds: the task file create: block (vswitch, ssh_key, …)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let home: string;
  let taskDir: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-home-'));
    taskDir = join(home, 'proj');
    await mkdir(join(home, '.ssh'), { recursive: true });
    await mkdir(taskDir);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(home, '.ssh', 'id_ed25519')]);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(taskDir, 'not_a_key')]);
  });
  after(() => rm(home, { recursive: true, force: true }));
  beforeEach(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 100;
  });
  afterEach(() => s.close());

  function options(asked: string[]): AcquireOptions {
    const connector = makeConnector({ kind: 'aliyun-ecs', region: ['cn-hangzhou'] }, { accessKeyId: s.creds.aliyunKeyId, accessKeySecret: 'k' }, s.endpoints, { timeoutMs: 3000, now });
    return {
      sshConfig: null,
      accounts: [{ id: 'ali', connector, powerActions: true }],
      waitForGpuMs: 1000,
      settleMs: 5000,
      intervalMs: 50,
      say: () => undefined,
      confirmCreate: (what) => {
        asked.push(what);
        return Promise.resolve(false);
      },
      createName: 'cloud-1',
      locks: new PowerOnLocks(),
      taskDir,
      home,
    };
  }
  const billed = () => s.sent('aliyun', 'RunInstances').length + s.sent('aliyun', 'ImportKeyPair').length + s.sent('aliyun', 'CreateSecurityGroup').length;

  it('reads and checks the fields: ids, bandwidth 1-100, ssh_key a .pub path, spot_reclaim stop|terminate only with resources.spot and max_yuan_per_hour', () => {
    const t = taskOf([...base, 'create: {vswitch: vsw-test, security_group: sg-1, bandwidth: 20, ssh_key: ../.ssh/id_ed25519.pub}'].join('\n'));
    assert.deepStrictEqual(t.create, { vSwitchId: 'vsw-test', securityGroupId: 'sg-1', bandwidthMbps: 20, sshKey: '../.ssh/id_ed25519.pub' });
    const problems = (yaml: string) => {
      const r = parseTaskFile([...base.filter((l) => !l.startsWith('resources') || !yaml.includes('resources')), yaml].join('\n'));
      assert.ok(!r.ok, yaml);
      return r.errors.map((e) => `${e.field} ${e.problem.code}`);
    };
    assert.deepStrictEqual(problems('create: {ssh_key: ~/.ssh/id_ed25519}'), ['create.ssh_key not-public-key-path']);
    assert.deepStrictEqual(problems('create: {bandwidth: 0}'), ['create.bandwidth at-least']);
    assert.deepStrictEqual(problems('create: {vswitch: "vsw;rm"}'), ['create.vswitch bad-id-chars']);
    assert.deepStrictEqual(problems('create: {spot_reclaim: keep}'), ['create.spot_reclaim not-spot-reclaim']);
    assert.deepStrictEqual(problems('create: {spot_reclaim: stop}'), ['create.spot_reclaim spot-reclaim-needs-spot']);
    const spot = taskOf([...base.slice(0, 3), 'resources: {cards: [a10], gpus: 1, spot: true, max_yuan_per_hour: 9}', 'create: {spot_reclaim: terminate}'].join('\n'));
    assert.strictEqual(spot.create?.spotReclaim, 'terminate');
  });

  it('阿里云 with create: {vswitch, ssh_key} gets past the preview to the create question (nothing billed, the answer is no)', async () => {
    const asked: string[] = [];
    const t = taskOf([...base, 'create: {spec: ecs.gn7i-c8g1.2xlarge, region: cn-hangzhou, image: ubuntu_22_04_x64_20G_alibase_20240130.vhd, vswitch: vsw-test, ssh_key: ../.ssh/id_ed25519.pub, bandwidth: 20}'].join('\n'));
    await assert.rejects(acquireBox({ kind: 'new' }, t, options(asked)), (e: unknown) => e instanceof AcquireError && e.code === 'createRefused' && /^not created: cloud-1 on ali \(ecs\.gn7i-c8g1\.2xlarge/.test(e.message));
    assert.strictEqual(asked.length, 1, 'the preview passed: the create was asked for');
    assert.strictEqual(billed(), 0);
  });

  it('阿里云 without create.vswitch: refused before anything bills, the field named; a key outside the home or not a public key: refused too', async () => {
    const asked: string[] = [];
    const t = taskOf([...base, 'create: {spec: ecs.gn7i-c8g1.2xlarge, region: cn-hangzhou, image: ubuntu_22_04_x64_20G_alibase_20240130.vhd, ssh_key: ../.ssh/id_ed25519.pub}'].join('\n'));
    await assert.rejects(acquireBox({ kind: 'new' }, t, options(asked)), (e: unknown) => e instanceof AcquireError && e.code === 'createRefused' && /networkMissing \(create\.vswitch/.test(e.message));
    const outside = await mkdtemp(join(tmpdir(), 'gpu-rent-out-'));
    try {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(outside, 'k')]);
      const t2 = taskOf([...base, `create: {spec: ecs.gn7i-c8g1.2xlarge, vswitch: vsw-test, image: ubuntu_22_04_x64_20G_alibase_20240130.vhd, ssh_key: ${join(outside, 'k.pub')}}`].join('\n'));
      await assert.rejects(acquireBox({ kind: 'new' }, t2, options(asked)), (e: unknown) => e instanceof AcquireError && e.code === 'createRefused' && /create\.ssh_key leads outside your home folder/.test(e.message));
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
    // A .pub name on a private key: the create's key reader refuses it (badPublicKey), the field named.
    execFileSync('cp', [join(taskDir, 'not_a_key'), join(taskDir, 'private.pub')]);
    const t3 = taskOf([...base, 'create: {spec: ecs.gn7i-c8g1.2xlarge, vswitch: vsw-test, image: ubuntu_22_04_x64_20G_alibase_20240130.vhd, ssh_key: private.pub}'].join('\n'));
    await assert.rejects(acquireBox({ kind: 'new' }, t3, options(asked)), (e: unknown) => e instanceof AcquireError && e.code === 'createRefused' && /badPublicKey \(create\.ssh_key/.test(e.message));
    assert.strictEqual(asked.length, 0);
    assert.strictEqual(billed(), 0);
  });
});

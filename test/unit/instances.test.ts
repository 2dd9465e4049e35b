import { strict as assert } from 'node:assert';
import { contextValueOf, createInstance, exportInstances, groupByPlatform, mergeImported, newInstanceId, parseImport, validateInstance, withState, type Instance } from '../../src/core/instances';

const T0 = 1_795_000_000;
const make = (id: string, platform = 'autodl', state: 'running' | 'spot' | 'stopped' = 'running'): Instance =>
  createInstance(
    { id, name: `n-${id}`, platform, card: 'RTX 3090 24GB', gpuCount: 1, login: { host: 'h.example.com', port: 2222, user: 'root', auth: 'password' }, pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 24 } },
    state,
    T0,
  );

describe('instance model', () => {
  it('export → import round-trips and carries no password field at all', () => {
    const list = [make('a1'), make('b2', 'lanrui')];
    const text = exportInstances(list);
    assert.doesNotMatch(text, /password"\s*:/i);
    const r = parseImport(text);
    assert.ok(r.ok);
    assert.deepEqual(r.instances, list);
  });

  it('one billing vocabulary with the catalog: lists saved with the older words (hourly, weekly …) still read, as hour, week …', () => {
    const inst = make('i0000old1', 'autodl');
    const old = JSON.parse(exportInstances([inst])) as { instances: { pricing: { billingMode: string } }[] };
    old.instances[0]!.pricing.billingMode = 'weekly';
    const r = parseImport(JSON.stringify(old));
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.instances[0]!.pricing.billingMode, 'week');
    old.instances[0]!.pricing.billingMode = 'fortnightly';
    assert.equal(parseImport(JSON.stringify(old)).ok, false);
  });

  it('import refuses garbage with a specific problem, never a throw', () => {
    assert.deepEqual(parseImport('{').ok ? null : (parseImport('{') as { problem: unknown }).problem, { kind: 'notJson' });
    const shape = parseImport('{"instances":[]}');
    assert.equal(shape.ok ? '' : shape.problem.kind, 'wrongShape');
    const good = JSON.parse(exportInstances([make('a1')]));
    good.instances[0].login.port = 70000;
    const bad = parseImport(JSON.stringify(good));
    assert.ok(!bad.ok && bad.problem.kind === 'badInstance' && bad.problem.path === 'login.port');
    const dup = JSON.parse(exportInstances([make('a1'), make('a1')]));
    const d = parseImport(JSON.stringify(dup));
    assert.deepEqual(d.ok ? null : d.problem, { kind: 'duplicateId', id: 'a1' });
    const extra = JSON.parse(exportInstances([make('a1')]));
    extra.instances[0].password = 'leak';
    assert.equal(parseImport(JSON.stringify(extra)).ok, false, 'an export with a password key is refused');
    const proto = parseImport('{"format":"gpu-rent.instances","version":1,"instances":[],"__proto__":{"x":1}}');
    assert.equal(proto.ok, false);
  });

  it('refuses hosts and users that could become ssh options or shell syntax', () => {
    for (const host of ['-oProxyCommand=x', '-oProxy', 'a b', 'h;rm', '', '$(id)']) {
      const i = { ...make('a1'), login: { ...make('a1').login, host } };
      assert.equal(validateInstance(i).ok, false, host);
    }
  });

  it('refuses overlapping or reversed intervals and an open interval before the last', () => {
    const i = make('a1');
    const open2 = { ...i, intervals: [{ ...i.intervals[0]! }, { ...i.intervals[0]!, from: T0 + 10 }] };
    assert.equal(validateInstance(open2).ok, false);
    const reversed = { ...i, intervals: [{ ...i.intervals[0]!, to: T0 - 1 }] };
    assert.equal(validateInstance(reversed).ok, false);
  });

  it('merges an import: same id replaced, new appended', () => {
    const r = mergeImported([make('a1'), make('b2')], [{ ...make('a1'), name: 'new' }, make('c3')]);
    assert.deepEqual(r.instances.map((i) => `${i.id}:${i.name}`), ['a1:new', 'b2:n-b2', 'c3:n-c3']);
    assert.deepEqual([r.added, r.replaced], [1, 1]);
  });

  it('contextValue says activity and offer for when-clauses', () => {
    assert.equal(contextValueOf(make('a1', 'autodl', 'spot')), 'instance:running:spot');
    assert.equal(contextValueOf(make('a1')), 'instance:running:ondemand');
    const stopped = withState(make('a1'), 'stopped', T0 + 5);
    assert.ok(stopped.ok);
    assert.equal(contextValueOf({ ...stopped.instance, sync: { remoteDir: '/r', localDir: '/l' } }), 'instance:stopped:ondemand:sync');
  });

  it('groups by platform and makes unique ids', () => {
    assert.deepEqual(groupByPlatform([make('a', 'mita'), make('b', 'autodl'), make('c', 'mita')]).map((g) => `${g.platform}:${g.instances.map((i) => i.id).join(',')}`), ['autodl:b', 'mita:a,c']);
    let n = 0;
    const seq = [0.5, 0.5, 0.25];
    const id = newInstanceId(new Set([newInstanceId(new Set(), () => 0.5)]), () => seq[n++]!);
    assert.equal(n, 3);
    assert.match(id, /^i[0-9a-z]{8}$/);
  });
});

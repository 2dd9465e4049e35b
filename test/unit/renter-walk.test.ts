// Issue 23 item 6, "from a renter's walk": the platform's own name beside the English (from the
// built-in catalog's names), a second entry for the same host:port found before it is added,
// and the instance row's link words telling a refused login from a stopped box from a lost link.
import { strict as assert } from 'node:assert';
import { builtinCatalog } from '../../src/core/catalog';
import { createInstance, sameEndpoint, withState, type Instance } from '../../src/core/instances';
import { platformDisplayName } from '../../src/core/platforms/names';
import { DEFAULT_SYNC_REMOTE_DIR, expandRemoteHome, suggestedRemoteDir } from '../../src/app/sync';
import type { L10n } from '../../src/extension/view/present';
import { connectionText } from '../../src/extension/view/instanceRows';

const l10n: L10n = { t: (m, ...a) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };
const T0 = 1_780_000_000;

describe("a renter's walk (issue 23.6)", () => {
  it('platform names: the platform’s own beside the English; once where they are the same; the own alone in Chinese', () => {
    const c = builtinCatalog();
    const name = (id: string, lang: string) => platformDisplayName(c.platforms.find((p) => p.id === id)!.name, lang);
    assert.equal(name('matpool', 'en'), 'Matpool (矩池云)');
    assert.equal(name('mita', 'en'), 'Mita Compute (秘塔智算)');
    assert.equal(name('autodl', 'en'), 'AutoDL');
    assert.equal(name('matpool', 'zh-cn'), '矩池云');
    assert.equal(name('mita', 'zh-cn'), '秘塔智算');
    for (const p of c.platforms) assert.ok(platformDisplayName(p.name, 'en').includes(p.name.zh), p.id);
  });

  it('the same host:port already added (any case of the host) is found; a released one or another port is not', () => {
    const make = (id: string, host: string, port: number): Instance =>
      createInstance({ id, name: id, platform: 'autodl', card: 'RTX 4090', gpuCount: 1, login: { host, port, user: 'root', auth: 'password' }, pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 0, dataDiskGb: 0 } }, 'running', T0);
    const released = (i: Instance): Instance => { const r = withState(i, 'released', T0 + 60); assert.ok(r.ok); return r.instance; };
    const list = [make('a', 'connect.westb.seetacloud.com', 12345), make('b', 'connect.westb.seetacloud.com', 23456), released(make('c', 'region-1.autodl.com', 40000))];
    assert.deepEqual(sameEndpoint(list, 'Connect.Westb.SeetaCloud.com', 12345).map((i) => i.id), ['a']);
    assert.deepEqual(sameEndpoint(list, 'connect.westb.seetacloud.com', 34567), []);
    assert.deepEqual(sameEndpoint(list, 'region-1.autodl.com', 40000), [], 'a released instance is no second entry');
  });

  it('the sync prompt’s ~: the probed home, /root for a root login never probed, refused when unknown; ~user left as typed', () => {
    assert.equal(expandRemoteHome('~/ckpt', '/home/ubuntu/', 'ubuntu'), '/home/ubuntu/ckpt');
    assert.equal(expandRemoteHome(' ~ ', '/root', 'root'), '/root');
    assert.equal(expandRemoteHome('~/autodl-tmp/ckpt', undefined, 'root'), '/root/autodl-tmp/ckpt');
    assert.equal(expandRemoteHome('~/ckpt', undefined, 'ubuntu'), undefined);
    assert.equal(expandRemoteHome('~bob/ckpt', '/root', 'root'), '~bob/ckpt');
    assert.equal(expandRemoteHome('/data/ckpt', undefined, 'ubuntu'), '/data/ckpt');
    assert.equal(suggestedRemoteDir(DEFAULT_SYNC_REMOTE_DIR, undefined), DEFAULT_SYNC_REMOTE_DIR, 'never probed: the setting');
  });

  it('the link words: a refused login, a box that does not answer, and a dropped link read differently', () => {
    const words = (['refused', 'unreachable', 'lost'] as const).map((s) => connectionText(s, l10n));
    assert.equal(new Set(words).size, 3);
    assert.match(words[0]!, /refused/);
    assert.match(words[1]!, /not answering.*stopped/);
    assert.equal(words[2], 'connection lost');
    assert.equal(connectionText('connected', l10n), '');
    assert.equal(connectionText(undefined, l10n), '');
  });
});

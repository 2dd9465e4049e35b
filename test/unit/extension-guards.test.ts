// The extension's guard glue with a fake clock: which notice fires when (idle GPU on real
// captured nvidia-smi outputs, stopped-instance release rules, evening peak, spot), and the
// words it shows, with a plain formatter standing in for vscode.l10n.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinCatalog } from '../../src/core/catalog';
import type { IdleSample } from '../../src/core/guards/idle';
import { createInstance, withState, type Instance } from '../../src/core/instances';
import { parseNvidiaSmi } from '../../src/core/smi';
import type { InstanceState, Pricing } from '../../src/core/spend';
import {
  envFolderName,
  guardFacts,
  IdleWatch,
  idleSettingsOf,
  offeredActions,
  peakNotice,
  ramMemoOf,
  releaseNotices,
  spotDecision,
  withoutRamDir,
  withRamDir,
  type IdlePreference,
  type ReleaseMemo,
} from '../../src/extension/guardDecisions';
import { beijingText, idleMessage, peakMessage, releaseWatchMessage, riskDetail, spotDetail } from '../../src/extension/words/guardText';
import type { L10n } from '../../src/extension/view/present';
import { readSettings } from '../../src/extension/settings';
import { fixturesDir } from '../support/sshd';

const l10n: L10n = { t: (m, ...a) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };
const H = 3600;
const DAY = 86400;
/** 2026-11-29 12:00 Beijing (04:00 UTC). */
const NOON = Date.UTC(2026, 10, 29, 4) / 1000;
const catalog = builtinCatalog();
const facts = (platform: string) => guardFacts(catalog, platform);

const PRICING: Pricing = { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 20 };
function inst(platform: string, state: InstanceState, at: number, pricing: Pricing = PRICING, id = 'i1'): Instance {
  return createInstance({ id, name: `box-${platform}`, platform, card: 'RTX 3090', gpuCount: 1, login: { host: 'h', port: 22, user: 'root', auth: 'agent' }, pricing }, state, at);
}
function switched(i: Instance, state: InstanceState, at: number): Instance {
  const r = withState(i, state, at);
  assert.ok(r.ok);
  return r.instance;
}

const smiDir = () => join(fixturesDir(), 'nvidia-smi');
const fixture = (name: string) => parseNvidiaSmi(readFileSync(join(smiDir(), name), 'utf8'));
/** A real idle capture (0 %, no process) and a real capture under load. */
const IDLE = 'rtx3090_driver525.147.05_q.xml';
const LOADED = 'h100_80gb_driver590.48.01_smi_load.txt';
const settingsOf = (windowMinutes = 30, threshold = 10) => {
  const r = idleSettingsOf({ idleUtilizationThresholdPct: threshold, idleWindowMinutes: windowMinutes });
  assert.ok(r.ok);
  return r.settings;
};

/** Feeds one probe a minute from `from` for `seconds`; returns the times at which a notice fired. */
function poll(watch: IdleWatch, box: Instance, from: number, seconds: number, make: (t: number) => Omit<IdleSample, 'at'>, preference: IdlePreference = 'recommended') {
  const fired: { at: number; notice: NonNullable<ReturnType<IdleWatch['observe']>['notice']> }[] = [];
  for (let t = from; t <= from + seconds; t += 60) {
    const r = watch.observe(box, { at: t, ...make(t) }, settingsOf(), facts(box.platform), preference);
    if (r.notice) fired.push({ at: t, notice: r.notice });
  }
  return fired;
}

describe('extension guards: idle GPU notices', () => {
  const idleSmi = () => ({ smi: fixture(IDLE), logSizes: {} });

  it('an idle AutoDL box gets one notice when the window is reached, offering no-GPU mode and its saving per hour', () => {
    const box = inst('autodl', 'running', NOON - H);
    const watch = new IdleWatch();
    const fired = poll(watch, box, NOON, 2 * H, idleSmi);
    assert.equal(fired.length, 1, 'one notice per idle stretch');
    assert.equal(fired[0]!.at, NOON + 30 * 60, 'fires when 30 quiet minutes are reached, not before');
    const n = fired[0]!.notice;
    assert.equal(n.offered[0]!.action, 'noGpuMode');
    assert.equal(n.offered[0]!.savingPerHour, 198 - 10, 'GPU rate minus the no-GPU rate (storage bills either way)');
    const msg = idleMessage(box.name, n, 10, l10n);
    assert.match(msg, /idle for 30m/);
    assert.match(msg, /Switch to No-GPU Mode saves ¥1\.88\/h/);
  });

  it('never fires on a busy GPU (a real capture under load), however long it runs', () => {
    const watch = new IdleWatch();
    assert.deepEqual(poll(watch, inst('autodl', 'running', NOON - H), NOON, 6 * H, () => ({ smi: fixture(LOADED), logSizes: {} })), []);
  });

  it('an idle GPU whose job log keeps growing is working: no notice', () => {
    const watch = new IdleWatch();
    const fired = poll(watch, inst('autodl', 'running', NOON - H), NOON, 3 * H, (t) => ({ smi: fixture(IDLE), logSizes: { '/root/.gpu-rent/jobs/train/log': t - NOON } }));
    assert.deepEqual(fired, []);
  });

  it('busy in between re-arms it: a second idle stretch gets a second notice', () => {
    const box = inst('autodl', 'running', NOON - H);
    const watch = new IdleWatch();
    const first = poll(watch, box, NOON, H, idleSmi);
    const busy = poll(watch, box, NOON + H + 60, 10 * 60, () => ({ smi: fixture(LOADED), logSizes: {} }));
    const second = poll(watch, box, NOON + H + 12 * 60, H, idleSmi);
    assert.equal(first.length, 1);
    assert.equal(busy.length, 0);
    assert.equal(second.length, 1);
    assert.equal(second[0]!.at, NOON + H + 12 * 60 + 30 * 60);
  });

  it('an unreadable probe in the window never counts as idle', () => {
    const watch = new IdleWatch();
    const fired = poll(watch, inst('autodl', 'running', NOON - H), NOON, 2 * H, (t) => (Math.floor((t - NOON) / 60) % 10 === 5 ? { smi: parseNvidiaSmi('NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver.'), logSizes: {} } : idleSmi()));
    assert.deepEqual(fired, [], 'a failed probe every 10 minutes keeps the 30-minute window from closing');
  });

  it('instances not billing for a GPU are not judged (no-GPU mode, stopped)', () => {
    const watch = new IdleWatch();
    assert.deepEqual(poll(watch, inst('autodl', 'noGpu', NOON - H), NOON, 2 * H, idleSmi), []);
    assert.deepEqual(poll(watch, inst('autodl', 'stopped', NOON - H), NOON, 2 * H, idleSmi), []);
  });

  it('the idle.action setting picks the first button where the platform allows it, else the recommendation', () => {
    const onAutodl = poll(new IdleWatch(), inst('autodl', 'running', NOON - H), NOON, H, idleSmi, 'release')[0]!.notice;
    assert.equal(onAutodl.offered[0]!.action, 'release');
    assert.ok(onAutodl.offered.some((o) => o.action === 'noGpuMode'), 'the others stay offered');
    // 阿里云 has no no-GPU mode and a stop keeps billing compute: release after a sync is what saves.
    const onAliyun = poll(new IdleWatch(), inst('aliyun', 'running', NOON - H), NOON, H, idleSmi, 'noGpuMode')[0]!.notice;
    assert.equal(onAliyun.offered[0]!.action, 'release');
    assert.ok(!onAliyun.offered.some((o) => o.action === 'noGpuMode' || o.action === 'stop'), JSON.stringify(onAliyun.offered));
  });

  it('a prepaid package is told, with nothing to click (idling it costs nothing extra)', () => {
    const box = inst('autodl', 'running', NOON - H, { ...PRICING, billingMode: 'week' });
    const n = poll(new IdleWatch(), box, NOON, H, idleSmi)[0]!.notice;
    assert.deepEqual(n.offered, []);
    assert.match(idleMessage(box.name, n, 10, l10n), /prepaid package/);
  });

  it('idle settings from minutes; out-of-range values name the setting', () => {
    assert.deepEqual(idleSettingsOf({ idleUtilizationThresholdPct: 5, idleWindowMinutes: 45 }), { ok: true, settings: { utilizationThresholdPct: 5, windowSeconds: 2700 } });
    const bad = idleSettingsOf({ idleUtilizationThresholdPct: 0, idleWindowMinutes: 45 });
    assert.ok(!bad.ok && bad.error.field === 'utilizationThresholdPct');
    const s = readSettings((k) => ({ 'idle.utilizationThresholdPct': 1000, 'idle.windowMinutes': -3, 'idle.action': 'explode', 'guards.ramDir': '/dev/shm/../root' })[k]);
    assert.equal(s.idleUtilizationThresholdPct, 100);
    assert.equal(s.idleWindowMinutes, 1);
    assert.equal(s.idleAction, 'recommended');
    assert.equal(s.ramDir, '/dev/shm/gpu-rent', 'a folder with .. falls back to the default');
    assert.equal(readSettings((k) => (k === 'guards.ramDir' ? 'relative/dir' : undefined)).ramDir, '/dev/shm/gpu-rent');
    assert.equal(readSettings((k) => (k === 'guards.ramDir' ? '/run/user/0/secrets/' : undefined)).ramDir, '/run/user/0/secrets');
  });

  it('offeredActions offers nothing that saves nothing', () => {
    const n = poll(new IdleWatch(), inst('autodl', 'running', NOON - H), NOON, H, idleSmi)[0]!.notice;
    assert.ok(offeredActions(n.advice, 'stop').every((o) => o.savingPerHour > 0));
  });
});

describe('extension guards: stopped instances and the platforms’ release rules', () => {
  const stoppedAutodl = () => switched(inst('autodl', 'running', NOON - 2 * H), 'stopped', NOON);

  it('AutoDL: silent until day 12, then one warning a day with the release date; none once running again', () => {
    let memo: ReleaseMemo = {};
    const shown: number[] = [];
    const box = stoppedAutodl();
    for (let t = NOON; t < NOON + 16 * DAY; t += H) {
      const r = releaseNotices([box], facts, t, memo);
      memo = r.memo;
      if (r.notices.length) shown.push(t);
    }
    const firstDay = Math.floor((shown[0]! - NOON) / DAY) + 1;
    assert.equal(firstDay, 12, 'first warning on day 12');
    assert.equal(shown[0], NOON + 11 * DAY);
    // Each Beijing day from day 12 gets one reminder per kind: "released soon", then "probably released".
    const perDay = new Map<string, number>();
    for (const t of shown) {
      const key = `${Math.floor((t + 8 * H) / DAY)}:${releaseNotices([box], facts, t, {}).notices[0]!.watch.kind}`;
      perDay.set(key, (perDay.get(key) ?? 0) + 1);
    }
    assert.ok([...perDay.values()].every((n) => n === 1), JSON.stringify([...perDay]));
    assert.equal(new Set([...perDay.keys()].map((k) => k.split(':')[0])).size, 6, 'days 12 to 16 and the day after (Beijing days, stop at noon)');
    assert.ok(shown.every((t) => t >= NOON + 11 * DAY));
    const w = releaseNotices([box], facts, NOON + 12 * DAY, {}).notices[0]!.watch;
    const msg = releaseWatchMessage(box.name, w, l10n)!;
    assert.ok(msg.includes(beijingText(NOON + 15 * DAY)), msg);
    assert.equal(beijingText(NOON + 15 * DAY), '2026-12-14 12:00');
    assert.match(msg, /15 days/);
    const restarted = switched(box, 'running', NOON + 12 * DAY + H);
    assert.deepEqual(releaseNotices([restarted], facts, NOON + 13 * DAY, memo).notices, []);
  });

  it('矩池云: the 24-hour free snapshot is announced with its end, then its expiry', () => {
    const box = switched(inst('matpool', 'running', NOON - H), 'stopped', NOON);
    const r1 = releaseNotices([box], facts, NOON + 60, {});
    assert.equal(r1.notices[0]?.watch.kind, 'snapshotExpires');
    assert.ok(releaseWatchMessage(box.name, r1.notices[0]!.watch, l10n)!.includes(beijingText(NOON + DAY)));
    assert.deepEqual(releaseNotices([box], facts, NOON + 2 * H, r1.memo).notices, [], 'not again the same day');
    const r2 = releaseNotices([box], facts, NOON + DAY + 60, r1.memo);
    assert.equal(r2.notices[0]?.watch.kind, 'snapshotExpired');
  });

  it('platforms without a rule, and running instances, are never warned', () => {
    const aliyun = switched(inst('aliyun', 'running', NOON - H, PRICING, 'a'), 'stopped', NOON);
    const running = inst('autodl', 'running', NOON - 20 * DAY, PRICING, 'b');
    assert.deepEqual(releaseNotices([aliyun, running], facts, NOON + 30 * DAY, {}).notices, []);
  });
});

describe('extension guards: evening peak, spot, release risk', () => {
  const EVENING = NOON + 8 * H; // 20:00 Beijing

  it('adding or starting an AutoDL instance at 20:00 Beijing gets the report’s advice and the overnight comparison; at noon, nothing', () => {
    const box = inst('autodl', 'running', EVENING);
    const c = peakNotice(box, facts('autodl'), EVENING);
    assert.ok(c);
    assert.ok(c.advice.includes('keepOvernightInNoGpuMode'));
    // 20:00 → 09:00 is 13 hours; no-GPU mode costs its ¥0.10/h on top of the storage a stop also pays.
    assert.ok(c.overnight && c.overnight.noGpuModeFen !== null);
    assert.equal(c.overnight.seconds, 13 * H);
    assert.ok(Math.abs(c.overnight.noGpuModeFen - c.overnight.stopFen - 130) <= 1, JSON.stringify(c.overnight));
    assert.equal(c.overnight.releaseFen, 0);
    const { message, detail } = peakMessage(box.name, 'AutoDL', c, l10n);
    assert.match(message, /19:00–23:00 Beijing time/);
    assert.match(detail, /no-GPU mode/);
    assert.match(detail, /Overnight until 2026-11-30 09:00/);
    assert.equal(peakNotice(inst('autodl', 'running', NOON), facts('autodl'), NOON), undefined);
    assert.equal(peakNotice(inst('autodl', 'stopped', EVENING), facts('autodl'), EVENING), undefined, 'a stopped box is not starting');
    assert.equal(peakNotice(inst('matpool', 'running', EVENING), facts('matpool'), EVENING), undefined, 'no evening queue there');
  });

  it('spot: a job over an hour needs an explicit yes; short ones go with the rework shown; unknown length asks', () => {
    const base = { spotRate: 120, syncIntervalSeconds: 1800, warnHours: 1, accepted: false };
    const short = spotDecision({ ...base, expectedHours: 0.5 });
    assert.equal(short.kind, 'go');
    assert.ok(short.kind === 'go' && short.check && short.check.expectedReworkFen >= 0);
    const long = spotDecision({ ...base, expectedHours: 8 });
    assert.equal(long.kind, 'confirm');
    assert.ok(long.kind === 'confirm' && long.reason === 'long' && long.check!.needsConfirmation);
    assert.match(spotDetail(long.check!, l10n), /^Syncing checkpoints every 30m \(gpuRent\.sync\.watchIntervalSeconds\): 0\.80 expected reclaims, about 12m of work redone, costing about ¥\d+\.\d\d\./);
    assert.equal(spotDecision({ ...base, expectedHours: 8, accepted: true }).kind, 'go');
    assert.deepEqual(spotDecision({ ...base, expectedHours: undefined }), { kind: 'confirm', reason: 'unknownLength' });
    assert.equal(spotDecision({ ...base, expectedHours: 0.5, warnHours: 0.25 }).kind, 'confirm', 'a stricter setting asks sooner');
    assert.equal(spotDecision({ ...base, expectedHours: 0 }).kind, 'go');
    assert.equal(spotDecision({ ...base, expectedHours: 2, spotRate: Number.NaN }).kind, 'badInput');
    const aliyun = spotDecision({ ...base, expectedHours: 2 }, facts('aliyun'));
    assert.ok(aliyun.kind === 'confirm' && /announces reclaims/.test(spotDetail(aliyun.check!, l10n)));
  });

  it('the release dialog lists what would be lost, biggest first, with the total', () => {
    assert.match(riskDetail(undefined, l10n), /Could not check/);
    assert.match(riskDetail({ remoteDir: '/root/ckpt', files: [], bytes: 0, unlisted: 0 }, l10n), /Every checkpoint/);
    const files = Array.from({ length: 25 }, (_, i) => ({ rel: `epoch${i}.pt`, size: 1_000_000 * (25 - i), reason: i === 0 ? ('differs' as const) : ('missing' as const) }));
    const text = riskDetail({ remoteDir: '/root/ckpt', files, bytes: files.reduce((a, f) => a + f.size, 0), unlisted: 2 }, l10n);
    assert.match(text, /epoch0\.pt {2}25 MB \(local copy differs\)/);
    assert.match(text, /… \(\+5\)/);
    assert.match(text, /25 files, 325 MB in all, in \/root\/ckpt/);
    assert.match(text, /2 folders on the box could not be listed/);
  });

  it('memory-only upload folders are remembered per instance and forgotten on wipe; stored garbage reads as empty', () => {
    let m = withRamDir({}, 'a', '/dev/shm/gpu-rent');
    m = withRamDir(m, 'a', '/dev/shm/gpu-rent');
    m = withRamDir(m, 'a', '/dev/shm/other');
    assert.deepEqual(m, { a: ['/dev/shm/gpu-rent', '/dev/shm/other'] });
    assert.deepEqual(withoutRamDir(m, 'a', '/dev/shm/other'), { a: ['/dev/shm/gpu-rent'] });
    assert.deepEqual(withoutRamDir(m, 'a'), {});
    assert.deepEqual(ramMemoOf({ a: ['/x', 3, 'rel', null], b: 'nope', c: [] }), { a: ['/x'] });
    assert.deepEqual(ramMemoOf('garbage'), {});
    assert.deepEqual(ramMemoOf([['/x']]), {});
  });

  it('environment folders are named after the instance, safely', () => {
    assert.equal(envFolderName({ id: 'k3j', name: 'AutoDL RTX 4090' }), 'AutoDL-RTX-4090-k3j');
    assert.equal(envFolderName({ id: 'k3j', name: '../../etc' }), 'etc-k3j');
    assert.equal(envFolderName({ id: 'k3j', name: '秘塔' }), 'k3j');
  });
});

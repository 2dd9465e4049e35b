// Core guard rules with a fake clock: idle detection, the cheapest safe action, peak hours,
// release rules and the secret scan.
import { strict as assert } from 'node:assert';
import { judgeIdle, trimSamples, checkIdleSettings, type IdleSample } from '../../src/core/guards/idle';
import { idleAdvice, idleCostFen } from '../../src/core/guards/actions';
import { factsFor, factsFromCatalog, normalizePlatformId } from '../../src/core/guards/facts';
import { builtinCatalog, findPlatform } from '../../src/core/catalog';
import { beijingClock, beijingDate, nextBeijingHour, peakCheck, overnightComparison } from '../../src/core/guards/peak';
import { stoppedSince, watchRelease, needsWarning, checkpointsAtRisk } from '../../src/core/guards/release';
import { scanFile, scanForSecrets, shouldReadContent } from '../../src/core/guards/secrets';
import { spotCheck } from '../../src/core/guards/spot';
import { checkRamUpload } from '../../src/core/guards/ramdisk';
import { withMarkedStatus } from '../../src/remote/guards/session';
import { parseEnvSnapshot, planTorch, portableEnvironmentYml, portableRequirements, safeEnvName, type EnvSnapshot } from '../../src/core/guards/environment';
import { rebuildScript } from '../../src/remote/guards/environment';
import { emptyGpu, type SmiResult, type SmiGpu, type SmiProcess } from '../../src/core/smi/types';
import { parseNvidiaSmi } from '../../src/core/smi';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from '../support/sshd';
import type { Pricing, StateInterval } from '../../src/core/spend';

const gpu = (util: number | null): SmiGpu => ({ ...emptyGpu(), index: 0, name: 'NVIDIA GeForce RTX 3090', memoryTotalMiB: 24576, memoryUsedMiB: 0, utilizationGpuPct: util });
const proc = (type: string): SmiProcess => ({ gpuIndex: 0, gpuUuid: null, gpuInstanceId: null, computeInstanceId: null, pid: 4242, type, name: 'python', usedMemoryMiB: 9000 });
const smi = (utils: (number | null)[], processes: SmiProcess[] = []): SmiResult => ({
  ok: true,
  report: { format: 'table', driverVersion: '535.86.05', cudaVersion: '12.2', gpus: utils.map(gpu), processes },
});
const T0 = Date.UTC(2026, 10, 29, 4, 0, 0) / 1000; // 12:00 Beijing
const settings = { utilizationThresholdPct: 10, windowSeconds: 1800 };

/** Probes every `step` seconds for `seconds`, each built by `make(i)`. */
function series(seconds: number, step: number, make: (i: number) => Omit<IdleSample, 'at'>): IdleSample[] {
  const out: IdleSample[] = [];
  for (let i = 0, t = 0; t <= seconds; i++, t += step) out.push({ at: T0 + t, ...make(i) });
  return out;
}

describe('guards: idle GPU on real captured nvidia-smi outputs', () => {
  const dir = join(fixturesDir(), 'nvidia-smi');
  const fixture = (name: string) => parseNvidiaSmi(readFileSync(join(dir, name), 'utf8'));
  const steady = (name: string) => judgeIdle(series(4 * 3600, 60, () => ({ smi: fixture(name), logSizes: {} })), settings);

  const loaded = readdirSync(dir).filter((f) => /_load/.test(f));
  it('finds the loaded captures', () => assert.ok(loaded.length >= 4, loaded.join(', ')));
  for (const name of loaded) {
    it(`never calls ${name} idle, even after four quiet-log hours`, () => {
      const v = steady(name);
      assert.notEqual(v.kind, 'idle');
      assert.notEqual(v.kind, 'quiet');
    });
  }
  // Idle captures: 0–6 % utilisation, no compute process (graphics clients at most).
  for (const name of ['titanv_driver515.65.01_smi.txt', 'p100_driver510.47.03_query.csv', 'rtx2080super_driver465.27_query.csv', 'v100sxm2_32gb_x8_driver520.61.05_smi.txt', 'rtx2070laptop_driver440.100_smi.txt', 'rtx2070_x2_driver590.44.01_q.xml', 'rtx3090_driver525.147.05_q.xml']) {
    it(`calls ${name} idle once the window has passed`, () => assert.equal(steady(name).kind, 'idle'));
  }
  it('a T4 with a compute process at 0 % is busy; a MIG A100 without utilisation cannot tell', () => {
    assert.equal(steady('t4_driver515.105.01_q.xml').kind, 'busy');
    assert.deepEqual(steady('a100_sxm4_40gb_mig_driver510.47.03_q.xml'), { kind: 'cannotTell', reason: 'utilizationUnavailable' });
    assert.deepEqual(steady('errors_nvml_driver_library_mismatch.txt'), { kind: 'cannotTell', reason: 'probeFailed' });
  });
  it('load then idle: fires one window after the load ends', () => {
    const busy = series(3600, 60, () => ({ smi: fixture('h100_80gb_driver590.48.01_smi_load.txt'), logSizes: {} }));
    const idle = series(1800, 60, () => ({ smi: fixture('titanv_driver515.65.01_smi.txt'), logSizes: {} })).map((x) => ({ ...x, at: x.at + 3660 }));
    assert.equal(judgeIdle([...busy, ...idle.slice(0, 29)], settings).kind, 'quiet');
    const v = judgeIdle([...busy, ...idle], settings);
    assert.ok(v.kind === 'idle' && v.quietSince === T0 + 3660);
  });
});

describe('guards: idle GPU', () => {
  it('calls a box idle only after the whole window is quiet', () => {
    const quiet = series(1800, 60, () => ({ smi: smi([0]), logSizes: { '/j/a/log': 100 } }));
    assert.equal(judgeIdle(quiet.slice(0, 30), settings).kind, 'quiet');
    const v = judgeIdle(quiet, settings);
    assert.equal(v.kind, 'idle');
    assert.equal(v.kind === 'idle' && v.quietSeconds, 1800);
    const early = judgeIdle(quiet.slice(0, 10), settings);
    assert.ok(early.kind === 'quiet' && early.remainingSeconds === 1800 - 540);
  });

  it('a busy GPU never fires: high utilisation, a compute process, or a growing log', () => {
    const highUtil = series(7200, 60, () => ({ smi: smi([97]), logSizes: {} }));
    assert.deepEqual(judgeIdle(highUtil, settings).kind, 'busy');
    // Low utilisation (a data-loading phase) with the trainer still on the GPU.
    const withProcess = series(7200, 60, () => ({ smi: smi([3], [proc('C')]), logSizes: {} }));
    const v = judgeIdle(withProcess, settings);
    assert.ok(v.kind === 'busy' && v.signals.includes('gpuProcesses'));
    // A container hides processes; the log still grows.
    const logGrows = series(7200, 60, (i) => ({ smi: smi([2]), logSizes: { '/j/a/log': 100 + i * 10 } }));
    const w = judgeIdle(logGrows, settings);
    assert.ok(w.kind === 'busy' && w.signals.includes('logGrowing'));
  });

  it('one busy probe in the window restarts the count', () => {
    const s = series(3600, 60, (i) => ({ smi: smi([i === 40 ? 85 : 1]), logSizes: {} }));
    const v = judgeIdle(s, settings);
    assert.ok(v.kind === 'quiet', JSON.stringify(v));
    assert.equal(v.kind === 'quiet' && v.quietSince, T0 + 41 * 60);
    const later = [...s, ...series(1800, 60, () => ({ smi: smi([1]), logSizes: {} })).map((x) => ({ ...x, at: x.at + 3660 }))];
    assert.equal(judgeIdle(later, settings).kind, 'idle');
  });

  it('catches a stalled loop: the process is gone from view, the log stops growing', () => {
    const running = series(1200, 60, (i) => ({ smi: smi([95]), logSizes: { '/j/train/log': 1000 + i * 500 } }));
    const stalled = series(1800, 60, () => ({ smi: smi([0]), logSizes: { '/j/train/log': 1000 + 20 * 500 } })).map((s) => ({ ...s, at: s.at + 1260 }));
    assert.equal(judgeIdle([...running, ...stalled], settings).kind, 'idle');
  });

  it('a graphics-only client (Xorg) does not keep a box busy; an unknown process type does', () => {
    assert.equal(judgeIdle(series(1800, 300, () => ({ smi: smi([0], [proc('G')]), logSizes: {} })), settings).kind, 'idle');
    assert.equal(judgeIdle(series(1800, 300, () => ({ smi: smi([0], [{ ...proc('C'), type: null }]), logSizes: {} })), settings).kind, 'busy');
  });

  it('every GPU must be quiet on a multi-GPU box', () => {
    assert.equal(judgeIdle(series(3600, 60, () => ({ smi: smi([0, 0, 0, 64]), logSizes: {} })), settings).kind, 'busy');
    assert.equal(judgeIdle(series(3600, 60, () => ({ smi: smi([0, 0, 0, 0]), logSizes: {} })), settings).kind, 'idle');
  });

  it('blind spots are never called idle', () => {
    const failed: SmiResult = { ok: false, error: { kind: 'nvml-mismatch', message: 'Failed to initialize NVML: Driver/library version mismatch' } };
    assert.deepEqual(judgeIdle(series(3600, 60, () => ({ smi: failed, logSizes: {} })), settings), { kind: 'cannotTell', reason: 'probeFailed' });
    assert.deepEqual(judgeIdle(series(3600, 60, () => ({ smi: smi([null]), logSizes: {} })), settings), { kind: 'cannotTell', reason: 'utilizationUnavailable' });
    assert.deepEqual(judgeIdle(series(3600, 60, () => ({ smi: smi([0]), logSizes: null })), settings), { kind: 'cannotTell', reason: 'logsUnreadable' });
    assert.deepEqual(judgeIdle([], settings), { kind: 'cannotTell', reason: 'noSamples' });
    // An unreadable probe in the middle restarts the quiet stretch after it.
    const s = series(3600, 60, (i) => ({ smi: i === 50 ? failed : smi([0]), logSizes: {} }));
    const v = judgeIdle(s, settings);
    assert.ok(v.kind === 'quiet' && v.quietSince === T0 + 51 * 60);
  });

  it('order of probes does not matter and trimming keeps the verdict', () => {
    const s = series(7200, 60, (i) => ({ smi: smi([i < 60 ? 90 : 0]), logSizes: {} }));
    const shuffled = [...s].reverse();
    assert.deepEqual(judgeIdle(shuffled, settings), judgeIdle(s, settings));
    const trimmed = trimSamples(s, T0 + 7200, settings);
    assert.ok(trimmed.length < s.length);
    const v = judgeIdle(trimmed, settings);
    assert.ok(v.kind === 'idle' && v.quietSeconds >= settings.windowSeconds);
  });

  it('settings are checked with a named field', () => {
    assert.deepEqual(checkIdleSettings({ utilizationThresholdPct: NaN }), { ok: false, error: { field: 'utilizationThresholdPct', problem: 'notANumber', min: 1, max: 100 } });
    assert.equal(checkIdleSettings({ windowSeconds: 5 }).ok, false);
    assert.deepEqual(checkIdleSettings({}), { ok: true, settings: { utilizationThresholdPct: 10, windowSeconds: 1800 } });
  });
});

const autodl3090: Pricing = { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 24 };

describe('guards: cheapest safe action', () => {
  it('AutoDL: no-GPU mode at ¥0.1/h, saving the card rate', () => {
    const a = idleAdvice(autodl3090, factsFor('AutoDL'));
    assert.equal(a.recommended?.action, 'noGpuMode');
    assert.equal(a.burnRateNow, 198 + 1200 / 24);
    assert.equal(a.recommended?.savingPerHour, 188);
    assert.equal(a.recommended?.boxReachable, true);
    // One night (12 h) of a forgotten idle 3090 plus its disk is tens of yuan: "一晚上就是几十块".
    assert.equal(idleCostFen(a, 12 * 3600), 2976);
  });

  it('elsewhere: stop (after a final sync); the big clouds: release, since a stopped instance still bills', () => {
    const matpool = idleAdvice({ ...autodl3090, noGpuModeRate: 0, hourlyRate: 160 }, factsFor('矩池云'));
    assert.equal(matpool.recommended?.action, 'stop');
    assert.equal(matpool.recommended?.needsFinalSync, true);
    assert.equal(matpool.recommended?.savingPerHour, 160);
    const aliyun = idleAdvice({ billingMode: 'hour', hourlyRate: 800, noGpuModeRate: 0, storageGbDay: 0, dataDiskGb: 0 }, factsFor('阿里云'));
    assert.equal(aliyun.recommended?.action, 'release');
    assert.equal(aliyun.recommended?.keepsData, false);
    assert.equal(aliyun.recommended?.needsFinalSync, true);
    assert.equal(aliyun.options.find((o) => o.action === 'stop')?.savingPerHour, 0);
    // 秘塔智算 clears the disk on shutdown: stopping is no safer than releasing.
    const mita = idleAdvice({ billingMode: 'hour', hourlyRate: 120, noGpuModeRate: 0, storageGbDay: 100, dataDiskGb: 10 }, factsFor('mita'));
    assert.equal(mita.options.find((o) => o.action === 'stop')?.keepsData, false);
    assert.equal(mita.recommended?.action, 'release');
    assert.equal(mita.recommended?.needsFinalSync, true);
  });

  it('a prepaid package saves nothing by stopping: no recommendation, with the reason', () => {
    const weekly = idleAdvice({ ...autodl3090, billingMode: 'week', storageGbDay: 0 }, factsFor('autodl'));
    assert.equal(weekly.recommended, null);
    assert.equal(weekly.reason, 'prepaidPackage');
  });

  it('platform names in either language map to one id', () => {
    assert.equal(normalizePlatformId('秘塔智算'), 'mita');
    assert.equal(normalizePlatformId(' AutoDL '), 'autodl');
    assert.equal(factsFor('unknown-cloud').noGpuMode, false);
    assert.equal(factsFor('autodl', { noGpuMode: false }).noGpuMode, false);
  });
});

describe('guards: peak hours (Beijing time, whatever TZ this machine has)', () => {
  const at = (bjHour: number, bjMinute = 0) => Date.UTC(2026, 10, 29, bjHour - 8, bjMinute) / 1000;

  it('19:00–23:00 Beijing is peak on platforms with evening queues', () => {
    const meta = factsFor('秘塔智算');
    assert.equal(peakCheck(meta, at(18, 59)).kind, 'offPeak');
    assert.equal(peakCheck(meta, at(19, 0)).kind, 'peak');
    assert.equal(peakCheck(meta, at(22, 59)).kind, 'peak');
    assert.equal(peakCheck(meta, at(23, 0)).kind, 'offPeak');
    assert.equal(peakCheck(factsFor('aliyun'), at(20)).kind, 'noEveningQueue');
    const mp = peakCheck(meta, at(19, 30));
    assert.ok(mp.kind === 'peak' && mp.advice.includes('syncBeforeStopping'));
    const p = peakCheck(meta, at(20, 30));
    assert.ok(p.kind === 'peak');
    assert.deepEqual(p.waitSeconds, [3600, 3 * 3600]);
    assert.equal(p.peakEnds, at(23));
  });

  it('does not depend on process.env.TZ', () => {
    const saved = process.env.TZ;
    try {
      for (const tz of ['America/Los_Angeles', 'UTC', 'Asia/Kolkata']) {
        process.env.TZ = tz;
        assert.deepEqual(beijingClock(at(19, 30)), { hour: 19, minute: 30 });
        assert.deepEqual(beijingDate(at(21, 5)), { year: 2026, month: 11, day: 29, hour: 21, minute: 5 });
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
    assert.equal(nextBeijingHour(at(20), 9), at(9) + 86400);
    assert.equal(nextBeijingHour(at(8), 9), at(9));
  });

  it('compares keeping the box overnight in no-GPU mode with releasing it', () => {
    const p = peakCheck(factsFor('autodl'), at(21), autodl3090);
    assert.ok(p.kind === 'peak' && p.overnight);
    // 21:00 → 09:00 is 12 hours: 12 × ¥0.10 + 12/24 × 24 GB × ¥0.50 = ¥1.20 + ¥6.00.
    assert.equal(p.overnight.seconds, 12 * 3600);
    assert.equal(p.overnight.noGpuModeFen, 120 + 600);
    assert.equal(p.overnight.stopFen, 600);
    assert.equal(p.overnight.releaseFen, 0);
    assert.deepEqual(p.advice, ['startInDaytime', 'keepOvernightInNoGpuMode']);
    const big = overnightComparison({ billingMode: 'hour', hourlyRate: 800, noGpuModeRate: 0, storageGbDay: 0, dataDiskGb: 0 }, factsFor('aliyun'), at(21));
    assert.equal(big.noGpuModeFen, null);
    assert.equal(big.stopFen, 800 * 12);
  });
});

describe('guards: release rules', () => {
  const DAY = 86400;
  const iv = (state: StateInterval['state'], from: number, to?: number): StateInterval => ({ state, from, to, computeRate: 0, storageRate: 1200 });

  it('AutoDL: counts consecutive stopped days, warns from day 12 with the release date', () => {
    const stopAt = T0;
    const intervals = [iv('running', T0 - 3600, stopAt), iv('stopped', stopAt)];
    const autodl = factsFor('autodl');
    const d11 = watchRelease(intervals, autodl, stopAt + 10 * DAY + 3600);
    assert.equal(d11.kind, 'counting');
    assert.equal(needsWarning(d11), false);
    const d12 = watchRelease(intervals, autodl, stopAt + 11 * DAY + 1);
    assert.ok(d12.kind === 'releaseSoon');
    assert.equal(d12.dayNumber, 12);
    assert.equal(d12.releaseAt, stopAt + 15 * DAY);
    assert.equal(d12.secondsLeft, 4 * DAY - 1);
    assert.equal(watchRelease(intervals, autodl, stopAt + 15 * DAY).kind, 'probablyReleased');
  });

  it('a power cycle restarts the count; a price edit does not', () => {
    const autodl = factsFor('autodl');
    const cycled = [iv('stopped', T0, T0 + 10 * DAY), iv('noGpu', T0 + 10 * DAY, T0 + 10 * DAY + 600), iv('stopped', T0 + 10 * DAY + 600)];
    assert.equal(stoppedSince(cycled), T0 + 10 * DAY + 600);
    assert.equal(watchRelease(cycled, autodl, T0 + 13 * DAY).kind, 'counting');
    const repriced = [iv('stopped', T0, T0 + 5 * DAY), iv('stopped', T0 + 5 * DAY)];
    assert.equal(stoppedSince(repriced), T0);
    assert.equal(watchRelease(repriced, autodl, T0 + 12 * DAY).kind, 'releaseSoon');
    assert.equal(watchRelease([iv('running', T0)], autodl, T0 + 30 * DAY).kind, 'ok');
  });

  it('矩池云: the free snapshot lasts 24 h after a stop', () => {
    const w = watchRelease([iv('stopped', T0)], factsFor('matpool'), T0 + 20 * 3600);
    assert.ok(w.kind === 'snapshotExpires' && w.expiresAt === T0 + 86400 && w.secondsLeft === 4 * 3600);
    assert.equal(watchRelease([iv('stopped', T0)], factsFor('matpool'), T0 + 86400).kind, 'snapshotExpired');
    assert.equal(watchRelease([iv('stopped', T0)], factsFor('aliyun'), T0 + 99 * DAY).kind, 'ok');
  });
});

describe('guards: secret scan', () => {
  const kinds = (path: string, content?: string) => scanFile({ path, content }).map((f) => f.kind);

  it('flags key files and .env by name', () => {
    assert.deepEqual(kinds('proj/.ssh/id_rsa'), ['sshKeyFile']);
    assert.deepEqual(kinds('proj/.ssh/id_rsa.pub'), []);
    assert.deepEqual(kinds('certs/server.pem'), ['keyFile']);
    assert.deepEqual(kinds('.env'), ['dotenv']);
    assert.deepEqual(kinds('app/.env.production'), ['dotenv']);
    assert.deepEqual(kinds('app/.env.example'), []);
    assert.deepEqual(kinds('home/.aws/credentials'), ['credentialsFile']);
    assert.deepEqual(kinds('kaggle.json'), ['credentialsFile']);
    assert.deepEqual(kinds('train.py'), []);
  });

  it('flags tokens by shape, with a masked hint and the line', () => {
    const text = [
      'import os',
      'HF = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"',
      'openai.api_key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"',
      'GH = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"',
      'aws = "AKIAIOSFODNN7EXAMPLE"',
    ].join('\n');
    const found = scanFile({ path: 'train.py', content: text });
    assert.deepEqual(
      found.map((f) => [f.kind, f.line]),
      [
        ['awsAccessKeyId', 5],
        ['huggingFaceToken', 2],
        ['openAiKey', 3],
        ['githubToken', 4],
      ],
    );
    for (const f of found) {
      assert.ok(f.hint.endsWith('…') && f.hint.length === 5, f.hint);
      assert.ok(!text.split('\n').some((l) => l.includes(f.hint.slice(0, -1) + 'x')));
    }
    assert.equal(scanFile({ path: 'k', content: 'x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n' })[0]?.kind, 'privateKey');
    assert.equal(scanFile({ path: 'k', content: '-----BEGIN RSA PRIVATE KEY-----' })[0]?.line, 1);
  });

  it('KEY=value assignments count, placeholders do not', () => {
    assert.deepEqual(kinds('.env.example', 'API_KEY=your-api-key-here\nDB_PASSWORD=changeme\nTOKEN=${TOKEN}\n'), []);
    assert.deepEqual(kinds('config.sh', 'export WANDB_TOKEN=9f8e7d6c5b4a39281706\n'), ['genericSecretAssignment']);
    assert.deepEqual(kinds('notes.md', 'The tokenizer returns input_ids.\nsk-learn is not a key.\n'), []);
  });

  it('never throws on garbage, binaries are skipped', () => {
    assert.deepEqual(scanFile({ path: 'w.bin', content: 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567\u0000\u0001' }), []);
    assert.deepEqual(scanFile({ path: '', content: 'x' }), []);
    assert.deepEqual(scanFile({ path: 'a', content: undefined }), []);
    assert.equal(scanForSecrets([{ path: '.env' }, { path: 'id_ed25519' }]).length, 2);
    assert.equal(shouldReadContent('model.safetensors', 100), false);
    assert.equal(shouldReadContent('.env', 100), true);
    assert.equal(shouldReadContent('huge.txt', 10 * 1024 * 1024), false);
  });
});

describe('guards: facts from the price catalog', () => {
  it('reads no-GPU mode, stop behaviour, release days and evening queues from the built-in catalog', () => {
    const catalog = builtinCatalog();
    const get = (id: string) => factsFromCatalog(findPlatform(catalog, id)!);
    const autodl = get('autodl');
    assert.equal(autodl.noGpuMode, true);
    assert.deepEqual(autodl.releaseRules, [{ kind: 'releaseAfterStoppedDays', days: 15, warnFromDay: 12 }]);
    assert.deepEqual(autodl.eveningQueue?.waitSeconds, [600, 1800]);
    const mita = get('mita');
    assert.equal(mita.stopKeepsData, false);
    assert.deepEqual(mita.eveningQueue, { fromHour: 19, toHour: 23, waitSeconds: [3600, 10800] });
    assert.deepEqual(get('matpool').releaseRules, [{ kind: 'freeSnapshotHours', hours: 24 }]);
    assert.equal(get('aliyun').eveningQueue, null);
    for (const p of catalog.platforms) assert.equal(factsFromCatalog(p).platform, p.id);
  });
});

describe('guards: spot confirmation', () => {
  it('the report case: 8 h on a ¥1.58/h spot card, syncing hourly', () => {
    const r = spotCheck({ spotRate: 158, jobSeconds: 8 * 3600, syncIntervalSeconds: 3600 });
    assert.ok(r.ok);
    // 0.1 reclaims/h × 8 h = 0.8 reclaims, each losing half an hour at ¥1.58/h.
    assert.ok(Math.abs(r.check.expectedReclaims - 0.8) < 1e-9);
    assert.equal(r.check.expectedReworkSeconds, 0.8 * 1800);
    assert.equal(r.check.expectedReworkFen, Math.round(158 * 0.8 * 0.5));
    assert.equal(r.check.needsConfirmation, true);
    // √(2 × 60 s × 36000 s) ≈ 2078 s: sync about every 35 minutes.
    assert.equal(r.check.recommendedSyncIntervalSeconds, 2078);
    assert.ok(r.check.reworkAtRecommendedFen < r.check.expectedReworkFen);
    assert.equal(r.check.syncTooSparse, true); // hourly is over 1.5× the recommended 35 min
  });

  it('short jobs need no confirmation; rare syncs are flagged; 阿里云 announces reclaims', () => {
    const short = spotCheck({ spotRate: 158, jobSeconds: 3600, syncIntervalSeconds: 600 });
    assert.ok(short.ok && !short.check.needsConfirmation);
    const sparse = spotCheck({ spotRate: 158, jobSeconds: 6 * 3600, syncIntervalSeconds: 6 * 3600 }, factsFor('aliyun'));
    assert.ok(sparse.ok && sparse.check.syncTooSparse && sparse.check.reclaimNotice === 'aliyunMetadata');
    // Never more rework than the job itself per reclaim.
    const huge = spotCheck({ spotRate: 100, jobSeconds: 1800, syncIntervalSeconds: 99999 });
    assert.ok(huge.ok && huge.check.expectedReworkSeconds === 0.05 * 900);
  });

  it('bad input names the field', () => {
    assert.deepEqual(spotCheck({ spotRate: 158, jobSeconds: NaN, syncIntervalSeconds: 60 }), { ok: false, error: { field: 'jobSeconds', problem: 'notANumber' } });
    assert.deepEqual(spotCheck({ spotRate: 0, jobSeconds: 60, syncIntervalSeconds: 60 }), { ok: false, error: { field: 'spotRate', problem: 'mustBePositive' } });
    assert.deepEqual(spotCheck({ spotRate: 1, jobSeconds: 60, syncIntervalSeconds: 60, reclaimRatePerHour: -1 }), { ok: false, error: { field: 'reclaimRatePerHour', problem: 'mustBePositive' } });
  });
});

describe('guards: memory-only upload checks', () => {
  const GiB = 1024 ** 3;
  it('only tmpfs/ramfs, with room on the mount and RAM left for the job', () => {
    assert.deepEqual(checkRamUpload({ fsType: 'tmpfs', mountAvailableBytes: 8 * GiB, memAvailableBytes: 16 * GiB }, 2 * GiB), { ok: true });
    assert.deepEqual(checkRamUpload({ fsType: 'ext2/ext3', mountAvailableBytes: 100 * GiB, memAvailableBytes: 16 * GiB }, 1), { ok: false, refusal: { kind: 'notRamBacked', fsType: 'ext2/ext3' } });
    assert.deepEqual(checkRamUpload({ fsType: 'overlayfs', mountAvailableBytes: null, memAvailableBytes: 16 * GiB }, 1).ok, false);
    // Docker's default 64 MiB /dev/shm.
    const small = checkRamUpload({ fsType: 'tmpfs', mountAvailableBytes: 64 * 1024 ** 2, memAvailableBytes: 16 * GiB }, 100 * 1024 ** 2);
    assert.ok(!small.ok && small.refusal.kind === 'mountTooSmall');
    const short = checkRamUpload({ fsType: 'tmpfs', mountAvailableBytes: 32 * GiB, memAvailableBytes: 3 * GiB }, 2.5 * GiB);
    assert.ok(!short.ok && short.refusal.kind === 'ramShort' && short.refusal.reserveBytes === GiB);
    assert.deepEqual(checkRamUpload({ fsType: 'ramfs', mountAvailableBytes: 0, memAvailableBytes: null }, 1), { ok: false, refusal: { kind: 'memoryUnknown' } });
  });
});

describe('guards: portable environment', () => {
  const snap: EnvSnapshot = {
    version: 1,
    capturedAt: T0,
    source: 'root@connect.example:12345',
    pythonVersion: '3.10.13',
    condaEnv: 'myenv',
    torch: '2.1.2+cu121',
    torchCuda: '12.1',
    driverVersion: '535.86.05',
    driverMaxCuda: '12.2',
    gpus: ['NVIDIA GeForce RTX 4090'],
    environmentYml: ['name: myenv', 'channels:', '  - defaults', 'dependencies:', '  - python=3.10.13', '  - pytorch=2.1.2', '  - pip:', '    - numpy==1.26.4', '    - torch==2.1.2+cu121', '    - peft==0.7.1', 'prefix: /root/miniconda3/envs/myenv', ''].join('\n'),
    requirements: ['numpy==1.26.4', 'torch==2.1.2+cu121', 'torchvision==0.16.2+cu121', 'nvidia-cublas-cu12==12.1.3.1', 'peft==0.7.1', 'mkl-service @ file:///croot/mkl-service_1', ''].join('\n'),
  };

  it('drops the prefix, renames, and leaves torch to be reinstalled for the new driver', () => {
    const yml = portableEnvironmentYml(snap.environmentYml!, 'moved');
    assert.ok(yml.startsWith('name: moved\n'));
    assert.ok(!/prefix:|pytorch=|torch==/.test(yml), yml);
    assert.ok(/numpy==1.26.4/.test(yml) && /peft==0.7.1/.test(yml) && /- pip:/.test(yml));
    assert.equal(portableRequirements(snap.requirements), 'numpy==1.26.4\npeft==0.7.1\n');
  });

  it('keeps the same CUDA build when the new driver runs it, else the newest one that runs', () => {
    const same = planTorch(snap, { version: '535.86.05', maxCuda: '12.2' });
    assert.ok(same.kind === 'install' && same.sameBuild && same.cuda === '12.1' && same.command.includes('torch==2.1.2'));
    const older = planTorch(snap, { version: '520.61.05', maxCuda: '11.8' });
    assert.ok(older.kind === 'install' && older.cuda === '11.8' && !older.sameBuild, JSON.stringify(older));
    assert.equal(planTorch(snap, { version: '418.43', maxCuda: '10.1' }).kind, 'cpuOnly');
    assert.deepEqual(planTorch({ torch: null, torchCuda: null }, { version: null, maxCuda: null }), { kind: 'none' });
    assert.deepEqual(planTorch({ torch: '9.9.9', torchCuda: null }, { version: null, maxCuda: null }), { kind: 'unknownRelease', torch: '9.9.9' });
  });

  it('the rebuild script makes a fresh env and runs the torch command with its python', () => {
    // Every value is shell-quoted now (issue 9): the python spec and the torch words included.
    const s = rebuildScript({ envName: 'moved', pythonMinor: '3.10' }, planTorch(snap, { version: '535.86.05', maxCuda: '12.2' }), true, snap.source);
    assert.ok(s.includes(`PYTHON_SPEC='python=3.10'`) && s.includes('conda create -y -n "$NAME" "$PYTHON_SPEC"'), s);
    assert.ok(s.includes('conda env update -n "$NAME" -f "$HERE/environment.yml"'));
    assert.ok(/"\$PY" -m pip install 'torch==2\.1\.2' /.test(s), s);
    assert.ok(s.includes('python3 -m venv'));
    assert.equal(safeEnvName('moved'), 'moved');
    assert.equal(safeEnvName('a b'), null);
    assert.equal(safeEnvName('$(rm -rf ~)'), null);
  });

  it('snapshots from disk are validated field by field', () => {
    assert.equal(parseEnvSnapshot(JSON.parse(JSON.stringify(snap))).ok, true);
    const bad = parseEnvSnapshot({ ...snap, version: 2, gpus: 'x', requirements: undefined });
    assert.ok(!bad.ok);
    assert.deepEqual(bad.ok ? [] : bad.problems.map((p) => `${p.path}:${p.problem}`), ['version:unsupportedVersion', 'requirements:missing', 'gpus:wrongType']);
    assert.equal(parseEnvSnapshot(null).ok, false);
    assert.equal(parseEnvSnapshot([1]).ok, false);
  });
});

describe('guards: release guard comparison', () => {
  it('lists box files with no identical local copy, biggest first', () => {
    const remote = [
      { rel: 'ckpt/epoch1.pt', size: 100, mtime: 1000 },
      { rel: 'ckpt/epoch2.pt', size: 300, mtime: 2000 },
      { rel: 'ckpt/epoch3.pt', size: 200, mtime: 3000 },
      { rel: 'log.txt', size: 5, mtime: 3001 },
    ];
    const local = new Map([
      ['ckpt/epoch1.pt', { size: 100, mtime: 1000.7 }],
      ['ckpt/epoch2.pt', { size: 299, mtime: 2000 }],
      ['log.txt', { size: 5, mtime: 2999 }],
    ]);
    const r = checkpointsAtRisk(remote, local);
    assert.deepEqual(
      r.files.map((f) => [f.rel, f.reason]),
      [
        ['ckpt/epoch2.pt', 'differs'],
        ['ckpt/epoch3.pt', 'missing'],
        ['log.txt', 'differs'],
      ],
    );
    assert.equal(r.bytes, 505);
    assert.deepEqual(checkpointsAtRisk([], new Map()), { files: [], bytes: 0 });
  });
});

describe('guards: remote script status', () => {
  it('takes the printed status when the channel gave none, and strips its line', () => {
    assert.deepEqual(withMarkedStatus({ code: null, stdout: 'installed=0\n@@gpu-rent-rc=0\n', stderr: '' }), { code: 0, stdout: 'installed=0\n', stderr: '' });
    assert.deepEqual(withMarkedStatus({ code: null, stdout: '@@gpu-rent-rc=5\n', stderr: 'x' }), { code: 5, stdout: '', stderr: 'x' });
    assert.deepEqual(withMarkedStatus({ code: 0, stdout: 'a\n@@gpu-rent-rc=3\n', stderr: '' }).code, 0, 'a real exit status wins');
    assert.deepEqual(withMarkedStatus({ code: null, stdout: 'cut off', stderr: '' }), { code: null, stdout: 'cut off', stderr: '' });
  });
});

describe('guards: secret scan on source code', () => {
  it('quoted literals count; code expressions and labels do not', () => {
    const kinds = (content: string) => scanFile({ path: 'app.py', content }).map((f) => f.kind);
    assert.deepEqual(kinds('db_password = "hunter2hunter2"\n'), ['genericSecretAssignment']);
    assert.deepEqual(kinds('config = { apiKey: "AbCdEf123456789" }\n'), ['genericSecretAssignment']);
    assert.deepEqual(kinds('password: io.env.GPU_RENT_PASSWORD || undefined,\n'), []);
    assert.deepEqual(kinds("genericSecretAssignment: 'secret-looking assignment',\n"), []);
    assert.deepEqual(kinds('token = os.environ["HF_TOKEN"]\n'), []);
    assert.deepEqual(kinds('password = "<your password>"\n'), []);
  });
});

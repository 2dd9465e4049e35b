// A diverged run (training loss NaN/±Inf): the decision (one notice per divergence, again only
// after it recovered and diverged anew; the stop after N readings in a row, once, only with the
// setting on; which end action follows), the words in English and Chinese (the tree row, the
// notification, the end report), and the monitor's marks (NaN stretches on the loss curve).
// Log lines here are fed through the real tracker; they are SYNTHETIC (HF Trainer's dict format
// as Python's print writes it: `{'loss': nan, ...}`); the integration test has a real Python print them.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { ProgressTracker, estimateFinish, type Diverged } from '../../src/core/progress';
import { DivergedRuns, divergedEndAction, divergedPolicyOf, divergedStep, burningFenPerHour, DEFAULT_DIVERGED_READINGS, type DivergedPolicy } from '../../src/app/runs/diverged';
import { progressText } from '../../src/extension/view/runText';
import { divergedActionButton, divergedEndLine, divergedMessage, divergedStopMessage } from '../../src/extension/words/diverged';
import { lineChart } from '../../src/webview/monitor-chart';
import { divergedSpansOf, parseMonitorHostMessage } from '../../src/webview/monitor-protocol';
import type { L10n } from '../../src/extension/view/present';

const en: L10n = { t: (m, ...a) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };
const zhBundle: Record<string, string> = JSON.parse(readFileSync('l10n/bundle.l10n.zh-cn.json', 'utf8'));
const zh: L10n = { t: (m, ...a) => (zhBundle[m] ?? `MISSING ${m}`).replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };

const HEADER = '***** Running training *****\n  Num Epochs = 1\n  Total optimization steps = 5,000\n';
const bar = (step: number) => `\r ${Math.floor((step * 100) / 5000)}%|█         | ${step}/5000 [10:00<40:00,  2.00it/s]`;
const dict = (loss: string) => `\n{'loss': ${loss}, 'grad_norm': ${loss === 'nan' ? 'nan' : '0.5'}, 'learning_rate': 2e-05, 'epoch': 0.2}\n`;

/** Feeds steps from..to with the given loss text each; returns the tracker's progress. */
function feed(t: ProgressTracker, from: number, to: number, loss: string, now: number) {
  for (let s = from; s <= to; s++) t.feed(bar(s) + dict(loss), now);
  return t.progress;
}

describe('diverged runs: the decision', () => {
  const on: DivergedPolicy = { onDiverged: 'stopThenPowerOff', readings: 5 };
  const off: DivergedPolicy = { onDiverged: 'off', readings: 5 };

  it('the settings are checked: unknown is off, the count a whole number 1…100000, default 20', () => {
    assert.deepEqual(divergedPolicyOf(undefined, undefined), { onDiverged: 'off', readings: DEFAULT_DIVERGED_READINGS });
    assert.equal(DEFAULT_DIVERGED_READINGS, 20);
    assert.deepEqual(divergedPolicyOf('stopThenNoGpu', 7.9), { onDiverged: 'stopThenNoGpu', readings: 7 });
    assert.deepEqual(divergedPolicyOf('rm -rf', 0), { onDiverged: 'off', readings: 1 });
    assert.deepEqual(divergedPolicyOf('stop', Number.POSITIVE_INFINITY), { onDiverged: 'stop', readings: 20 });
    assert.deepEqual(divergedPolicyOf('stop', 1e9), { onDiverged: 'stop', readings: 100_000 });
  });

  it('one notice per divergence across polls; a recovery and a new divergence notify again; the stop comes at N readings, once', () => {
    const t = new ProgressTracker();
    t.feed(HEADER, 0);
    const runs = new DivergedRuns();
    const look = (p: ReturnType<typeof feed>, policy = on) => runs.observe('box', 'job', p.diverged, policy);

    let s = look(feed(t, 1, 1199, '1.2345', 10));
    assert.deepEqual([s.notify, s.stop, s.recovered], [false, false, false]);
    // NaN from step 1200: first poll sees 3 readings: told once, not yet stopped (N = 5).
    let p = feed(t, 1200, 1202, 'nan', 20);
    assert.equal(p.diverged?.step, 1200);
    s = look(p);
    assert.deepEqual([s.notify, s.stop], [true, false]);
    // Next polls: no second notice; at 5 readings in a row the stop, and only once.
    s = look(feed(t, 1203, 1203, 'nan', 30));
    assert.deepEqual([s.notify, s.stop], [false, false]);
    s = look(feed(t, 1204, 1204, 'nan', 40));
    assert.deepEqual([s.notify, s.stop], [false, true]);
    s = look(feed(t, 1205, 1210, 'nan', 50));
    assert.deepEqual([s.notify, s.stop], [false, false], 'a stopped run is not stopped again every poll');
    // A finite loss clears it; then NaN anew is a new divergence: told again.
    s = look(feed(t, 1211, 1300, '0.9', 60));
    assert.deepEqual([s.notify, s.stop, s.recovered], [false, false, true]);
    p = feed(t, 1301, 1301, 'inf', 70);
    assert.equal(p.diverged?.value, 'inf');
    s = look(p);
    assert.deepEqual([s.notify, s.stop], [true, false]);
  });

  it('with the setting off it is told about, never stopped, however long it lasts', () => {
    const t = new ProgressTracker();
    t.feed(HEADER, 0);
    const runs = new DivergedRuns();
    const notices: boolean[] = [];
    for (let poll = 0; poll < 20; poll++) {
      const s = runs.observe('box', 'job', feed(t, poll * 10 + 1, poll * 10 + 10, 'nan', poll).diverged, off);
      assert.equal(s.stop, false);
      notices.push(s.notify);
    }
    assert.deepEqual(notices.filter(Boolean).length, 1);
    assert.equal(t.progress.diverged?.readings, 200);
  });

  it('the pure step: N = 1 stops at the first reading; runs are kept apart; the memo is bounded', () => {
    const d: Diverged = { value: 'nan', readings: 1, since: 5, step: 10, lastFiniteLoss: 1 };
    const s = divergedStep(d, { onDiverged: 'stop', readings: 1 });
    assert.deepEqual([s.notify, s.stop], [true, true]);
    const runs = new DivergedRuns(3);
    for (let i = 0; i < 10; i++) assert.equal(runs.observe('box', `job${i}`, d, off).notify, true);
    assert.equal(runs.observe('box', 'job9', d, off).notify, false);
    assert.equal(runs.observe('box', 'job0', d, off).notify, true, 'forgotten beyond the bound: told again rather than growing');
  });

  it('the end action after the stop: the setting’s power action, else the run’s own, else the sync where folders are set', () => {
    assert.equal(divergedEndAction('stopThenPowerOff', 'nothing', false), 'sync-then-power-off');
    assert.equal(divergedEndAction('stopThenNoGpu', 'sync-then-power-off', true), 'sync-then-no-gpu');
    assert.equal(divergedEndAction('stop', 'sync-then-power-off', true), 'sync-then-power-off');
    assert.equal(divergedEndAction('stop', 'nothing', true), 'sync');
    assert.equal(divergedEndAction('stop', 'nothing', false), 'nothing');
    assert.equal(burningFenPerHour({ computeFenPerHour: 336, storageFenPerDay: 576 }), 360);
    assert.equal(burningFenPerHour(null), null);
  });
});

describe('diverged runs: the words (en, zh)', () => {
  const t = new ProgressTracker();
  t.feed(HEADER, 0);
  feed(t, 1, 1199, '1.2345', 10);
  const p = feed(t, 1200, 1250, 'nan', 20);
  const f = estimateFinish(p, { computeFenPerHour: 336, storageFenPerDay: 576 }, { boxNow: 20, localNow: 20, alive: true });
  const words = { job: 'sft-qwen', instance: '4090-a', diverged: p.diverged!, burningFenPerHour: 360 };

  it('the tree row leads with it, no countdown or cost to finish: “loss NaN since step 1200 · ¥3.60/h burning”', () => {
    assert.equal(progressText(p, f, en, () => '21:40', null, 360), 'loss NaN since step 1200 · ¥3.60/h burning · step 1250/5000');
    assert.equal(progressText(p, f, zh, () => '21:40', null, 360), `从第 1200 步起 loss 为 NaN · 白烧 ¥3.60/时 · ${zh.t('step {0}/{1}', 1250, 5000)}`);
    assert.doesNotMatch(progressText(p, f, zh, undefined, null, 360), /MISSING|to finish|left/);
    assert.match(progressText(p, f, en, undefined, 600, 360), /^loss NaN since step 1200 · ¥3\.60\/h burning · step 1250\/5000 · box not answering · last seen 10 min ago$/);
    const noStep = new ProgressTracker();
    noStep.feed(dict('nan') + dict('nan'), 0);
    assert.match(progressText(noStep.progress, f, en), /^loss NaN for 2 log lines$/);
    // Recovered: the ordinary line again.
    const t2 = new ProgressTracker();
    t2.feed(HEADER, 0);
    feed(t2, 1, 1250, 'nan', 20);
    const back = feed(t2, 1251, 1260, '0.8', 30);
    assert.match(progressText(back, estimateFinish(back, null, { boxNow: 30, localNow: 30, alive: true }), en), /^step 1260\/5000/);
  });

  it('the notification: what, the burn rate, what the setting will do; buttons; the stop and the end report', () => {
    const off = divergedMessage(words, { onDiverged: 'off', readings: 20 }, 'sync', en);
    assert.equal(off, 'sft-qwen on 4090-a: loss NaN since step 1200. The run has diverged and 4090-a keeps billing ¥3.60/h for nothing.');
    const on = divergedMessage(words, { onDiverged: 'stopThenPowerOff', readings: 100 }, 'sync-then-power-off', en);
    assert.match(on, /It is stopped after 100 such log lines in a row \(now 51\), then: the checkpoint sync, then power-off once every file is verified\.$/);
    const zhOn = divergedMessage(words, { onDiverged: 'stopThenPowerOff', readings: 100 }, 'sync-then-power-off', zh);
    assert.match(zhOn, /4090-a 上的 sft-qwen：从第 1200 步起 loss 为 NaN。训练已经发散，4090-a 还在按 ¥3\.60\/时 白白计费。/);
    assert.match(zhOn, /连续 100 条这样的日志后会停止训练（现在 51 条），然后：同步 checkpoint，每个文件都校验过后关机。/);
    assert.equal(divergedActionButton('sync-then-no-gpu', en), 'Stop, Sync, No-GPU Mode');
    assert.equal(divergedActionButton('sync-then-power-off', zh), '停止、同步、关机');
    assert.match(divergedStopMessage(words, 'sync-then-no-gpu', en), /loss was NaN for 51 log lines in a row\. Stopping the run \(gpuRent\.training\.onDiverged\), then: the checkpoint sync, then no-GPU mode/);
    assert.doesNotMatch(divergedStopMessage(words, 'sync', zh), /MISSING/);
    assert.equal(divergedEndLine(p.diverged!, en), 'Stopped because the training loss was NaN for 51 log lines in a row (since step 1200).');
    assert.equal(divergedEndLine({ value: '-inf', readings: 3, step: null }, zh), '已停止：训练 loss 连续 3 条日志为 -Inf。');
    const noRate = divergedMessage({ ...words, burningFenPerHour: null }, { onDiverged: 'off', readings: 20 }, 'nothing', zh);
    assert.doesNotMatch(noRate, /MISSING|¥/);
  });
});

describe('diverged runs: the monitor’s loss curve', () => {
  it('NaN stretches go to the page by step (placed after the last finite point without steps) and are drawn as marked bands', () => {
    const current: Diverged = { value: 'inf', readings: 2, since: 2, step: null, lastFiniteLoss: 1 };
    const spans = divergedSpansOf(
      [
        { value: 'nan', from: 300, to: 320, readings: 4, since: 1 },
        { value: 'inf', from: null, to: null, readings: 2, since: 2 },
      ],
      current,
      400,
    );
    assert.deepEqual(spans, [
      { from: 300, to: 320, value: 'nan', readings: 4, current: false },
      { from: 400, to: 400, value: 'inf', readings: 2, current: true },
    ]);
    const msg = { type: 'loss', job: 'j', loss: [{ step: 1, loss: 2 }], diverged: spans };
    assert.ok(parseMonitorHostMessage(msg));
    assert.equal(parseMonitorHostMessage({ ...msg, diverged: [{ ...spans[0], value: 'NaN<script>' }] }), undefined);
    assert.equal(parseMonitorHostMessage({ ...msg, diverged: [{ ...spans[0], from: Number.NaN }] }), undefined);
    const svg = lineChart([{ label: 'loss', points: [[1, 2], [299, 1.5]] }], { width: 400, height: 160, title: 'Loss', unit: '', xMin: 1, xMax: 400, bands: [{ from: 300, to: 320, label: 'loss NaN <from 300>' }, { from: 400, to: 400, label: 'now', current: true }] });
    assert.equal((svg.match(/<g class="diverged/g) ?? []).length, 2);
    assert.ok(svg.includes('class="diverged current"') && svg.includes('loss NaN &lt;from 300&gt;') && !svg.includes('<from'));
    // A one-step stretch at the right edge is still at least 3 px wide and inside the plot.
    const w = Number(/class="diverged current"><rect x="([\d.]+)" y="\d+" width="([\d.]+)"/.exec(svg)![2]);
    const x = Number(/class="diverged current"><rect x="([\d.]+)"/.exec(svg)![1]);
    assert.ok(w >= 3 && x + w <= 400 - 8 + 0.01, `x ${x} w ${w}`);
    // Forged bounds draw nothing and never loop.
    assert.doesNotMatch(lineChart([], { width: 400, height: 160, title: 'L', unit: '', xMin: 0, xMax: 1, bands: [{ from: Number.NaN, to: 1, label: 'x' }] }), /diverged/);
  });
});

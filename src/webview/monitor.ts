// The GPU monitor page: per-GPU utilisation, memory, power and temperature over the last 30
// minutes, the run's loss curve, and the idle time as money. It only draws what the host posts
// (validated by monitor-protocol); redraws at most once a second.
import '../../media/calculator.css';
import '../../media/monitor.css';
import { formatCny } from '../core/money';
import { forHtml } from '../core/text';
import { fillTemplate } from '../core/l10n';
import { addCapped, MAX_GPUS } from '../core/progress/gpu';
import { lineChart, type Series } from './monitor-chart';
import { currentTable } from './monitor-current';
import { parseMonitorHostMessage, type DivergedSpanMessage, type MonitorHostMessage, type SampleTuple } from './monitor-protocol';

declare function acquireVsCodeApi(): { postMessage(msg: unknown): void; setState(s: unknown): void };
const vscode = acquireVsCodeApi();

const TEXT = {
  en: { gpu: 'GPU', secondsAgo: '{0} s ago', noReading: 'No reading yet: the stream starts when the box answers.', lastLoss: 'Last logged: step {0}, loss {1}', powerShort: 'Power', tempShort: 'Temp.', util: 'Utilisation', mem: 'Memory used', power: 'Power', temp: 'Temperature', loss: 'Loss', idle: 'GPU idle {0} ≈ {1}', noLoss: 'No loss in the log yet', streaming: 'live', reconnecting: 'reconnecting…', stopped: 'paused', ago: '{0} min ago', now: 'now', step: 'step {0}', nanSpan: 'loss {0} from step {1} to {2} ({3} log lines)', nanNow: 'The loss is {0} since step {1}: the run has diverged (the curve shows finite losses only; the red stretch is where it is {0}).' },
  'zh-cn': { gpu: 'GPU', secondsAgo: '{0} 秒前', noReading: '还没有读数：连上实例后开始读取。', lastLoss: '最新日志：第 {0} 步，loss {1}', powerShort: '功耗', tempShort: '温度', util: '利用率', mem: '显存占用', power: '功耗', temp: '温度', loss: '损失（loss）', idle: 'GPU 空闲 {0} ≈ {1}', noLoss: '日志里还没有 loss', streaming: '实时', reconnecting: '重新连接中…', stopped: '已暂停', ago: '{0} 分钟前', now: '现在', step: '第 {0} 步', nanSpan: '第 {1} 步到第 {2} 步 loss 为 {0}（{3} 条日志）', nanNow: '从第 {1} 步起 loss 为 {0}：训练已经发散（曲线只画有限的 loss，红色区段是 {0} 的部分）。' },
};
type Words = (typeof TEXT)['en'];

let words: Words = TEXT.en;
let windowSeconds = 1800;
let rate = 0;
let name = '';
let idleSeconds = 0;
let now = Date.now() / 1000;
let state = 'stopped';
let job = '';
let loss: { step: number; loss: number }[] = [];
let diverged: DivergedSpanMessage[] = [];
const nonFinite = (v: DivergedSpanMessage['value']) => (v === 'nan' ? 'NaN' : v === 'inf' ? 'Inf' : '-Inf');
let dirty = false;

type Timed = { t: number; s: SampleTuple };
const byGpu = new Map<number, Timed[]>();

/** The host's samples into the page's window: at most MAX_GPUS GPUs, one sample per GPU per second (as the host keeps them). */
function add(samples: readonly SampleTuple[]): void {
  for (const s of samples) {
    let l = byGpu.get(s[0]);
    if (!l) {
      if (byGpu.size >= MAX_GPUS) continue;
      byGpu.set(s[0], (l = []));
    }
    addCapped(l, { t: s[1], s }, windowSeconds);
  }
  const cutoff = now - windowSeconds;
  for (const l of byGpu.values()) {
    let i = 0;
    while (i < l.length && l[i]!.t < cutoff) i++;
    if (i) l.splice(0, i);
  }
}

function minutes(s: number): string {
  return s < 3600 ? `${Math.round(s / 60)} min` : `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

function render(): void {
  dirty = false;
  const app = document.getElementById('app');
  if (!app) return;
  const width = Math.max(320, Math.min(900, (document.body.clientWidth || 640) - 24));
  const gpus = [...byGpu.keys()].sort((a, b) => a - b);
  const xMin = now - windowSeconds;
  const xLabel = (x: number) => (now - x < 30 ? words.now : fillTemplate(words.ago, [Math.round((now - x) / 60)]));
  const chart = (title: string, unit: string, pick: (s: SampleTuple) => number | null, yMax?: number) => {
    const series: Series[] = gpus.map((g) => ({ label: `GPU ${g}`, points: byGpu.get(g)!.flatMap(({ s }) => (pick(s) === null ? [] : [[s[1], pick(s)!] as const])) }));
    return lineChart(series, { width, height: 140, title, unit, xMin, xMax: now, ...(yMax !== undefined ? { yMax } : {}), xLabel });
  };
  const idleFen = Math.round((idleSeconds * rate) / 3600);
  const head = `<header><h1>${forHtml(name)}</h1><span class="state ${state}">${forHtml(words[state as 'streaming'] ?? state)}</span><p class="idle">${forHtml(fillTemplate(words.idle, [minutes(idleSeconds), formatCny(idleFen)]))}</p></header>`;
  const legend = `<p class="legend">${gpus.map((g, i) => `<span class="series-key s${i % 8}">GPU ${g}</span>`).join(' ')}</p>`;
  // The curve holds finite losses only: where the loss was NaN/Inf it is a red stretch, so the curve never just stops.
  const bands = diverged.map((d) => ({ from: d.from, to: d.to, current: d.current, label: fillTemplate(words.nanSpan, [nonFinite(d.value), d.from, d.to, d.readings]) }));
  const steps = [...loss.map((p) => p.step), ...diverged.flatMap((d) => [d.from, d.to])];
  const now_ = diverged.find((d) => d.current);
  const lossSvg = steps.length
    ? (now_ ? `<p class="diverged-note">${forHtml(fillTemplate(words.nanNow, [nonFinite(now_.value), now_.from]))}</p>` : '') +
      lineChart([{ label: job || words.loss, points: loss.map((p) => [p.step, p.loss] as const) }], { width, height: 160, title: `${words.loss}${job ? ` — ${job}` : ''}`, unit: '', xMin: Math.min(...steps), xMax: Math.max(...steps), xLabel: (x) => fillTemplate(words.step, [Math.round(x)]), bands })
    : `<p class="empty">${forHtml(words.noLoss)}</p>`;
  // The newest reading of each GPU, and the run's last logged loss: the figures now, above the curves.
  const latest = gpus.flatMap((g) => {
    const l = byGpu.get(g)!;
    return l.length ? [l[l.length - 1]!.s] : [];
  });
  const last = loss.length ? loss[loss.length - 1] : undefined;
  const current = currentTable(latest, now, { gpu: words.gpu, util: words.util, mem: words.mem, power: words.powerShort, temp: words.tempShort, secondsAgo: words.secondsAgo, noReading: words.noReading, lastLoss: words.lastLoss }, last);
  app.innerHTML =
    head +
    current +
    legend +
    chart(`${words.util} (%)`, '%', (s) => s[2], 100) +
    chart(`${words.mem} (%)`, '%', (s) => (s[3] !== null && s[4] ? (s[3] / s[4]) * 100 : null), 100) +
    chart(`${words.power} (W)`, 'W', (s) => s[5]) +
    chart(`${words.temp} (°C)`, '°', (s) => s[6]) +
    lossSvg;
}

function onMessage(m: MonitorHostMessage): void {
  switch (m.type) {
    case 'init':
      words = TEXT[m.locale];
      windowSeconds = m.windowSeconds;
      rate = m.computeFenPerHour;
      name = m.instanceName;
      // The panel serializer reopens this instance's monitor after a reload.
      vscode.setState({ instanceId: m.instanceId });
      idleSeconds = m.idleSeconds;
      state = m.state;
      now = m.now;
      byGpu.clear();
      add(m.samples);
      loss = m.loss;
      diverged = [];
      break;
    case 'samples':
      now = m.now;
      idleSeconds = m.idleSeconds;
      add(m.samples);
      break;
    case 'loss':
      loss = m.loss;
      job = m.job;
      diverged = m.diverged ?? [];
      break;
    case 'state':
      state = m.state;
      break;
  }
  dirty = true;
}

window.addEventListener('message', (ev: MessageEvent<unknown>) => {
  const m = parseMonitorHostMessage(ev.data);
  if (!m) {
    vscode.postMessage({ type: 'error', message: 'dropped a host message that does not match the protocol' });
    return;
  }
  onMessage(m);
});
setInterval(() => dirty && render(), 1000);
window.addEventListener('resize', () => (dirty = true));
vscode.postMessage({ type: 'ready', requestId: 1 });

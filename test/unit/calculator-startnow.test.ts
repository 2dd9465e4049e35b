// The calculator's start-now messages: the page asks for the rows it shows (stockWanted), the
// host answers with core/startNow's result only (startNow), both validated by the protocol. The
// marks are computed from the real stock shapes (stock-bodies.json) against the calculator's own
// quote rows; anything else in a message (an account's secret, a flood of places, a bad count) is dropped.
import { strict as assert } from 'node:assert';
import stock from '../fixtures/platforms/stock-bodies.json';
import { builtinCatalog } from '../../src/core/catalog';
import { quoteCatalog } from '../../src/core/cost';
import { autodlStock, tencentStock } from '../../src/core/platforms/stock';
import { startNowText } from '../../src/core/quote-notes';
import { MAX_PLACES, startNowFor, type StockReading } from '../../src/core/startNow';
import { jobInputFor } from '../../src/webview/job-input';
import { DEFAULT_INPUTS, MAX_STOCK_KEYS, parseHostMessage, parseWebviewMessage } from '../../src/webview/protocol';
import { strings } from '../../src/webview/strings';

const readings: StockReading[] = [
  { account: 'autodl-1', kind: 'autodl-pro', ok: true, rows: autodlStock(stock.autodlGpuStock.data, '内蒙C区', 100) },
  { account: 'tc-1', kind: 'tencent-cvm', ok: true, rows: tencentStock(stock.tencentDescribeZoneInstanceConfigInfos, 'ap-guangzhou', 100) },
  { account: 'ali-1', kind: 'aliyun-ecs', ok: false },
];

describe('calculator: start-now marks through the protocol', () => {
  it('the page asks for its rows; the host answers with the matcher result, which the page accepts as sent', () => {
    const rows = quoteCatalog(builtinCatalog(), jobInputFor({ ...DEFAULT_INPUTS, card: 'rtx3090' })).rows;
    const keys = [...new Map(rows.map((r) => [`${r.platform}/${r.card}/${r.gpus}`, { platform: r.platform, card: r.card, gpus: r.gpus }])).values()];
    const ask = parseWebviewMessage({ type: 'stockWanted', requestId: 101, rows: keys });
    assert.ok(ask && ask.type === 'stockWanted');
    const marks = startNowFor(ask.rows, readings);
    const answer = parseHostMessage({ type: 'startNow', requestId: 101, marks });
    assert.ok(answer && answer.type === 'startNow');
    assert.deepEqual(answer.marks, marks);
    const byPlatform = Object.fromEntries(answer.marks.map((m) => [m.key.platform, m.mark]));
    assert.deepEqual(byPlatform.autodl, { state: 'free', places: [{ account: 'autodl-1', region: '内蒙C区', free: 1 }] });
    // Rows of platforms without an account stay unmarked: no words for them.
    const lanrui = answer.marks.find((m) => m.key.platform === 'lanrui')!;
    assert.deepEqual(lanrui.mark, { state: 'unknown', reason: 'noAccount' });
    assert.equal(startNowText(lanrui.mark, 'zh-cn'), undefined);
    assert.equal(startNowText(byPlatform.autodl!, 'zh-cn'), '可立即开机（内蒙C区 空闲 1 张）');
    assert.equal(startNowText(byPlatform.autodl!, 'en'), 'can start now (1 free in 内蒙C区)');
    assert.match(strings('zh-cn').startNowTitle, /每分钟最多/);
    assert.ok(parseHostMessage({ type: 'stockAvailable', available: true }));
  });

  it('drops a start-now message that carries anything but the matcher result', () => {
    const ok = { key: { platform: 'autodl', card: 'rtx3090', gpus: 1 }, mark: { state: 'free', places: [{ account: 'a', region: 'r', free: 1 }] } };
    assert.ok(parseHostMessage({ type: 'startNow', requestId: 1, marks: [ok] }));
    const place = (p: Record<string, unknown>) => ({ ...ok, mark: { state: 'free', places: [{ account: 'a', region: 'r', ...p }] } });
    const bad = [
      { ...ok, mark: { ...ok.mark, token: 'secret' } },
      place({ secret: 'sk-…' }),
      place({ free: -1 }),
      place({ free: 1.5 }),
      place({ priceFenPerHour: Number.NaN }),
      place({ region: 'x'.repeat(201) }),
      place({ region: '' }),
      { ...ok, mark: { state: 'free', places: [] } },
      { ...ok, mark: { state: 'free', places: Array.from({ length: MAX_PLACES + 1 }, () => ({ account: 'a', region: 'r' })) } },
      { ...ok, mark: { state: 'maybe' } },
      { ...ok, mark: { state: 'unknown', reason: 'because' } },
      { ...ok, key: { ...ok.key, gpus: 9 } },
      { ...ok, key: { ...ok.key, extra: 1 } },
    ];
    for (const m of bad) assert.equal(parseHostMessage({ type: 'startNow', requestId: 1, marks: [m] }), undefined, JSON.stringify(m).slice(0, 200));
    assert.equal(parseHostMessage({ type: 'startNow', requestId: 1, marks: Array.from({ length: MAX_STOCK_KEYS + 1 }, () => ok) }), undefined);
    assert.equal(parseHostMessage({ type: 'stockAvailable', available: 'yes' }), undefined);
  });

  it('drops a stock question that is empty, too long or not a row key', () => {
    const key = { platform: 'autodl', card: 'rtx3090', gpus: 1 };
    assert.ok(parseWebviewMessage({ type: 'stockWanted', requestId: 1, rows: [key] }));
    for (const rows of [[], Array.from({ length: MAX_STOCK_KEYS + 1 }, () => key), [{ ...key, gpus: 0 }], [{ ...key, account: 'x' }], [{ ...key, platform: '' }], 'autodl']) {
      assert.equal(parseWebviewMessage({ type: 'stockWanted', requestId: 1, rows }), undefined, JSON.stringify(rows).slice(0, 100));
    }
    assert.equal(parseWebviewMessage({ type: 'stockWanted', requestId: -1, rows: [key] }), undefined);
  });
});

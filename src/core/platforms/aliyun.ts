// 阿里云 ECS / BSS JSON (the documented PascalCase shapes) → instance facts. Prices and the
// balance are yuan (numbers or "1,234.56" strings).
import { yuanTextToFen } from './money';
import { boundText, type PlatformBilling, type PlatformInstance, type PlatformState } from './types';

const STATE: Record<string, PlatformState> = {
  Pending: 'starting',
  Starting: 'starting',
  Running: 'running',
  Stopping: 'stopping',
  Stopped: 'stopped',
};

export function aliyunState(status: unknown): PlatformState {
  return STATE[typeof status === 'string' ? status : ''] ?? 'unknown';
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const firstIp = (v: unknown): string | undefined => {
  const list = obj(v).IpAddress;
  const ip = Array.isArray(list) ? list[0] : typeof list === 'string' ? list : undefined;
  return typeof ip === 'string' && /^[0-9a-fA-F.:]{2,45}$/.test(ip) ? ip : undefined;
};

export function aliyunInstance(raw: unknown): PlatformInstance | undefined {
  const o = obj(raw);
  const ref = boundText(o.InstanceId, 64);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(ref)) return undefined;
  const out: PlatformInstance = { ref, name: boundText(o.InstanceName, 120) || ref, state: aliyunState(o.Status), rawState: boundText(o.Status, 40) };
  if (o.StoppedMode === 'StopCharging') {
    out.stopCharging = true;
    out.rawState += ' (StopCharging)';
  }
  const card = boundText(o.GPUSpec, 120) || boundText(o.InstanceType, 120);
  if (card) out.card = card;
  if (typeof o.GPUAmount === 'number' && Number.isInteger(o.GPUAmount) && o.GPUAmount >= 1 && o.GPUAmount <= 64) out.gpuCount = o.GPUAmount;
  const region = boundText(o.RegionId, 40);
  if (region) out.region = region;
  const ip = firstIp(o.EipAddress) ?? firstIp(o.PublicIpAddress);
  if (ip) out.ssh = { host: ip, port: 22, user: 'root' };
  const billing = aliyunBilling(o.InstanceChargeType, o.SpotStrategy);
  if (billing) out.billing = billing;
  const release = aliyunUtc(o.AutoReleaseTime);
  if (release !== undefined) out.platformTimer = { action: 'release', at: release };
  return out;
}

/** 阿里云's UTC times, `yyyy-MM-ddTHH:mm[:ss]Z` (AutoReleaseTime; "" when none is set): epoch seconds. */
export function aliyunUtc(v: unknown): number | undefined {
  if (typeof v !== 'string' || v.length > 30) return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?Z$/.exec(v.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi] = m.slice(1, 6).map(Number) as [number, number, number, number, number];
  const se = m[6] === undefined ? 0 : Number(m[6]);
  if (y < 2000 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59) return undefined;
  return Math.floor(Date.UTC(y, mo - 1, d, h, mi, se) / 1000);
}

/** InstanceChargeType PrePaid: compute paid ahead (包年包月); PostPaid with a SpotStrategy other than NoSpot: spot; PostPaid: by the hour. */
export function aliyunBilling(chargeType: unknown, spotStrategy: unknown): PlatformBilling | undefined {
  if (chargeType === 'PrePaid') return 'prepaid';
  if (chargeType !== 'PostPaid') return undefined;
  return spotStrategy === 'SpotWithPriceLimit' || spotStrategy === 'SpotAsPriceGo' ? 'spot' : 'postpaid';
}

/** DescribeSpotPriceHistory: the latest SpotPrice (yuan per hour) → fen. */
export function aliyunSpotPrice(body: unknown): number | undefined {
  const list = obj(obj(body).SpotPrices).SpotPriceType;
  const rows = Array.isArray(list) ? list.slice(0, 1000).map(obj) : [];
  let best: { t: string; fen: number } | undefined;
  for (const r of rows) {
    const fen = yuanTextToFen(r.SpotPrice);
    const t = typeof r.Timestamp === 'string' ? r.Timestamp : '';
    if (fen !== undefined && fen >= 0 && (!best || t > best.t)) best = { t, fen };
  }
  return best?.fen;
}

/** DescribeRegions: the region ids (at most 100). */
export function aliyunRegions(body: unknown): string[] {
  const list = obj(obj(body).Regions).Region;
  const ids = (Array.isArray(list) ? list.slice(0, 100) : []).map((r) => boundText(obj(r).RegionId, 40)).filter((id) => /^[a-z0-9-]{2,40}$/.test(id));
  return [...new Set(ids)];
}

/** A page of DescribeInstances: no more rows than the page size asked for (`cut` says some were dropped). */
export function aliyunPage(body: unknown, pageSize: number): { instances: PlatformInstance[]; total: number; cut: boolean } {
  const b = obj(body);
  const list = obj(b.Instances).Instance;
  const all = Array.isArray(list) ? list : [];
  const rows = all.slice(0, pageSize);
  const total = typeof b.TotalCount === 'number' && b.TotalCount >= 0 ? Math.min(b.TotalCount, 100_000) : rows.length;
  return { instances: rows.map(aliyunInstance).filter((x): x is PlatformInstance => !!x), total, cut: all.length > pageSize };
}

/** DescribePrice (pay-as-you-go, PriceUnit Hour): TradePrice in yuan per hour → fen. */
export function aliyunPrice(body: unknown): number | undefined {
  const p = obj(obj(obj(body).PriceInfo).Price);
  const fen = yuanTextToFen(p.TradePrice ?? p.OriginalPrice);
  return fen !== undefined && fen >= 0 ? fen : undefined;
}

/** BSS QueryAccountBalance: Data.AvailableAmount ("1,234.56" yuan) → fen. */
export function aliyunBalance(body: unknown): number | undefined {
  return yuanTextToFen(obj(obj(body).Data).AvailableAmount);
}

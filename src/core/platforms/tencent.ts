// 腾讯云 CVM / billing JSON (the documented `Response` contents) → instance facts. Prices
// from InquiryPriceRunInstances are yuan per hour; the account balance is fen.
import { fenOf, yuanTextToFen } from './money';
import { boundText, type PlatformBilling, type PlatformInstance, type PlatformState } from './types';

const STATE: Record<string, PlatformState> = {
  PENDING: 'starting',
  STARTING: 'starting',
  REBOOTING: 'starting',
  RUNNING: 'running',
  STOPPING: 'stopping',
  STOPPED: 'stopped',
  SHUTDOWN: 'releasing',
  TERMINATING: 'releasing',
  LAUNCH_FAILED: 'unknown',
};

export function tencentState(s: unknown): PlatformState {
  return STATE[typeof s === 'string' ? s : ''] ?? 'unknown';
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export function tencentInstance(raw: unknown): PlatformInstance | undefined {
  const o = obj(raw);
  const ref = boundText(o.InstanceId, 64);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(ref)) return undefined;
  const out: PlatformInstance = { ref, name: boundText(o.InstanceName, 120) || ref, state: tencentState(o.InstanceState), rawState: boundText(o.InstanceState, 40) };
  if (o.StopChargingMode === 'STOP_CHARGING') {
    out.stopCharging = true;
    out.rawState += ' (STOP_CHARGING)';
  }
  const gpu = obj(o.GPUInfo);
  const card = (Array.isArray(gpu.GPUType) ? boundText(gpu.GPUType[0], 120) : boundText(gpu.GPUType, 120)) || boundText(o.InstanceType, 120);
  if (card) out.card = card;
  if (typeof gpu.GPUCount === 'number' && gpu.GPUCount >= 1 && gpu.GPUCount <= 64) out.gpuCount = Math.round(gpu.GPUCount);
  const zone = boundText(obj(o.Placement).Zone, 40);
  if (zone) out.region = zone;
  const ips = Array.isArray(o.PublicIpAddresses) ? o.PublicIpAddresses : [];
  const ip = ips.find((x): x is string => typeof x === 'string' && /^[0-9a-fA-F.:]{2,45}$/.test(x));
  if (ip) out.ssh = { host: ip, port: 22, user: boundText(o.DefaultLoginUser, 32) || 'root' };
  const billing = tencentBilling(o.InstanceChargeType);
  if (billing) out.billing = billing;
  return out;
}

/** InstanceChargeType: PREPAID (包年包月, compute paid ahead), SPOTPAID (spot), POSTPAID_BY_HOUR (by the hour); others are not said. */
export function tencentBilling(chargeType: unknown): PlatformBilling | undefined {
  return chargeType === 'PREPAID' ? 'prepaid' : chargeType === 'SPOTPAID' ? 'spot' : chargeType === 'POSTPAID_BY_HOUR' ? 'postpaid' : undefined;
}

/** DescribeRegions: the available region ids (at most 100). */
export function tencentRegions(resp: unknown): string[] {
  const list = obj(resp).RegionSet;
  const ids = (Array.isArray(list) ? list.slice(0, 100) : []).map(obj).filter((r) => r.RegionState === undefined || r.RegionState === 'AVAILABLE').map((r) => boundText(r.Region, 40)).filter((id) => /^[a-z0-9-]{2,40}$/.test(id));
  return [...new Set(ids)];
}

/** A page of DescribeInstances: no more rows than the Limit asked for (`cut` says some were dropped). */
export function tencentPage(resp: unknown, limit: number): { instances: PlatformInstance[]; total: number; cut: boolean } {
  const r = obj(resp);
  const all = Array.isArray(r.InstanceSet) ? r.InstanceSet : [];
  const rows = all.slice(0, limit);
  const total = typeof r.TotalCount === 'number' && r.TotalCount >= 0 ? Math.min(r.TotalCount, 100_000) : rows.length;
  return { instances: rows.map(tencentInstance).filter((x): x is PlatformInstance => !!x), total, cut: all.length > limit };
}

/** InquiryPriceRunInstances: Price.InstancePrice.UnitPriceDiscount (yuan/h) → fen. */
export function tencentPrice(resp: unknown): number | undefined {
  const p = obj(obj(obj(resp).Price).InstancePrice);
  const fen = yuanTextToFen(p.UnitPriceDiscount ?? p.UnitPrice);
  return fen !== undefined && fen >= 0 ? fen : undefined;
}

/** billing DescribeAccountBalance: Balance in fen (RealBalance when Balance is absent). */
export function tencentBalance(resp: unknown): number | undefined {
  const r = obj(resp);
  return fenOf(r.Balance ?? r.RealBalance);
}

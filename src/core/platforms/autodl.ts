// AutoDL's JSON (official Pro developer API and the web console's endpoints) → instance facts.
// Shapes: test/fixtures/platforms/autodl-*.json (from the issue text and public client
// conventions). Envelope: { code: "Success", msg, data }. Prices and balances are ¥/1000.
import { liToFen } from './money';
import { boundText, type PlatformInstance, type PlatformState, type SshLogin } from './types';

export interface Envelope {
  code: string;
  msg: string;
  data: unknown;
}

/** The envelope, or undefined when the JSON is not one. */
export function envelopeOf(json: unknown): Envelope | undefined {
  if (!json || typeof json !== 'object') return undefined;
  const o = json as Record<string, unknown>;
  if (typeof o.code !== 'string') return undefined;
  return { code: boundText(o.code, 80), msg: boundText(o.msg ?? o.message ?? ''), data: o.data };
}

export const isSuccess = (e: Envelope): boolean => e.code === 'Success';

const STATE: Record<string, PlatformState> = {
  creating: 'starting',
  starting: 'starting',
  restarting: 'starting',
  re_initializing: 'starting',
  running: 'running',
  shutting_down: 'stopping',
  stopping: 'stopping',
  shutdown: 'stopped',
  stopped: 'stopped',
  releasing: 'releasing',
  released: 'released',
};

/** AutoDL's status word (and, on the console API, its start mode) → our state. */
export function autodlState(status: unknown, startMode?: unknown): PlatformState {
  const s = STATE[typeof status === 'string' ? status.toLowerCase() : ''] ?? 'unknown';
  return s === 'running' && startMode === 'non_gpu' ? 'noGpu' : s;
}

const SSH_CMD = /\bssh\s+(?:-p\s*(\d{1,5})\s+)?([A-Za-z0-9_][A-Za-z0-9._-]{0,63})@([A-Za-z0-9][A-Za-z0-9.:-]{0,254})(?:\s+-p\s*(\d{1,5}))?/;

/** `ssh -p 12345 root@host` → host, port, user; undefined when it is not one. */
export function parseSshCommand(cmd: unknown): { host: string; port: number; user: string } | undefined {
  if (typeof cmd !== 'string' || cmd.length > 1000) return undefined;
  const m = SSH_CMD.exec(cmd);
  if (!m) return undefined;
  const port = Number(m[1] ?? m[4] ?? 22);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host: m[3]!, port, user: m[2]! };
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const posInt = (v: unknown, max: number): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max ? v : undefined);

/** One row of a list (Pro `data.list[]` or console `data.list[]`), or a snapshot. */
export function autodlInstance(raw: unknown, readAt: number): PlatformInstance | undefined {
  const o = obj(raw);
  const ref = boundText(o.uuid ?? o.instance_uuid, 64);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(ref)) return undefined;
  const state = autodlState(o.status, o.start_mode);
  const ssh = parseSshCommand(o.ssh_command) ?? (typeof o.proxy_host === 'string' && posInt(o.ssh_port, 65535) ? parseSshCommand(`ssh -p ${String(o.ssh_port)} root@${o.proxy_host}`) : undefined);
  // AutoDL shows a price only while the instance runs: a 0 or absent price is no reading.
  const price = liToFen(o.payg_price);
  const out: PlatformInstance = {
    ref,
    name: boundText(o.name ?? o.instance_name ?? o.machine_alias ?? ref, 120) || ref,
    state,
    rawState: boundText(o.status, 40) + (o.start_mode === 'non_gpu' ? ' (non_gpu)' : ''),
  };
  const card = boundText(o.gpu_name ?? o.snapshot_gpu_alias_name, 120);
  if (card) out.card = card;
  const n = posInt(o.gpu_num ?? o.req_gpu_amount, 64);
  if (n) out.gpuCount = n;
  const region = boundText(o.region_name, 60);
  if (region) out.region = region;
  if (ssh) out.ssh = ssh;
  if (price !== undefined && price > 0) {
    out.priceFenPerHour = price;
    out.priceReadAt = readAt;
  }
  return out;
}

/** The SSH login in a snapshot (port and password change after a restart). */
export function autodlLogin(raw: unknown): SshLogin | undefined {
  const o = obj(raw);
  const ssh = parseSshCommand(o.ssh_command);
  if (!ssh) return undefined;
  const pw = typeof o.root_password === 'string' && o.root_password.length > 0 && o.root_password.length <= 200 && !/[\r\n\0]/.test(o.root_password) ? o.root_password : undefined;
  return pw ? { ...ssh, password: pw } : ssh;
}

/** A page of a list: rows and how many pages there are. No more rows than the page size asked for are taken (`cut` says some were dropped). */
export function autodlPage(data: unknown, readAt: number, pageSize: number): { instances: PlatformInstance[]; maxPage: number; cut: boolean } {
  const d = obj(data);
  const all = Array.isArray(d.list) ? d.list : [];
  const list = all.slice(0, pageSize);
  const instances = list.map((r) => autodlInstance(r, readAt)).filter((x): x is PlatformInstance => !!x);
  const maxPage = posInt(d.max_page, 10_000) ?? 1;
  return { instances, maxPage, cut: all.length > pageSize };
}

/** The wallet's spendable balance in fen (`assets`, ¥/1000). */
export function autodlBalance(data: unknown): number | undefined {
  const d = obj(data);
  return liToFen(d.assets ?? d.balance);
}

// AutoDL's JSON (official Pro developer API and the web console's endpoints) → instance facts.
// Shapes: test/fixtures/platforms/autodl-*.json (SOURCES.md there: the Pro API page's examples,
// public clients' test data). Envelope: { code: "Success", msg, data }. Prices and balances are
// ¥/1000. A Pro list row carries state, spec id and the platform's stop time but no GPU name,
// price or login: those are in the instance's snapshot (which has no state), merged in here.
import { liToFen } from './money';
import { AUTODL_RELEASE_DAYS, boundText, type PlatformInstance, type PlatformState, type SshLogin } from './types';

/**
 * The Pro API page's appendix, as it names them: gpu_spec_uuid → card (the fallback when no
 * snapshot says). All seven rows, `4090D` included (SOURCES.md: the appendix as the page gives
 * it, quoted by public clients that read the page).
 */
export const AUTODL_SPEC_CARDS: Readonly<Record<string, string>> = {
  h800: 'H800-80G',
  'v-48g': '4090-48G',
  'pro6000-p': 'PRO6000-96G',
  'v-32g-p': '4080(S)-32G',
  'v-48g-350w': '3090-48G',
  '5090-p': '5090-32G',
  '4090D': '4090D',
};

/**
 * The Pro page's appendix of public base images (`image_uuid` → the CUDA its tag names): a
 * create with one of these and no CUDA bound asks `cuda_v_from` for the image's CUDA.
 */
export const AUTODL_BASE_IMAGE_CUDA: Readonly<Record<string, string>> = {
  'base-image-12be412037': '11.1',
  'base-image-u9r24vthlk': '11.3',
  'base-image-l374uiucui': '11.3',
  'base-image-l2t43iu6uk': '11.8',
  'base-image-0gxqmciyth': '11.2',
  'base-image-uxeklgirir': '11.2',
  'base-image-4bpg0tt88l': '11.4',
  'base-image-mbr2n4urrc': '11.6',
  'base-image-qkkhitpik5': '10.2',
  'base-image-h041hn36yt': '11.1',
  'base-image-7bn8iqhkb5': '11.3',
  'base-image-k0vep6kyq8': '9.0',
  'base-image-l2843iu23k': '11.8',
};

/**
 * `cuda_v_from` when neither a CUDA bound nor the image says one: the lowest the Pro page lists
 * (its create field: `113` = CUDA ≥ 11.3; every spec's hosts meet it). A lower bound only
 * narrows which hosts may take the instance, never widens what runs there.
 */
export const AUTODL_PAGE_CUDA_FLOOR = '11.3';

/** Where a Pro create's `cuda_v_from` came from: the flag, the PyTorch asked, the image's CUDA, or the page's lowest. */
export type AutodlCudaSource = 'flag' | 'torch' | 'image' | 'page';

/**
 * The `cuda_v_from` every Pro create sends (the page marks it required): the bound asked
 * (`--cuda-min` / `--torch`), else the CUDA of a public base image the page lists, else the
 * lowest value the page lists. `code` is the page's integer (113 for 11.3).
 */
export function autodlCudaFrom(bound: { cuda: string; from: 'flag' | 'torch' } | undefined, image: string | undefined): { cuda: string; code: number; from: AutodlCudaSource } {
  const pick = (cuda: string, from: AutodlCudaSource) => {
    const [maj, min] = cuda.split('.').map(Number) as [number, number];
    return { cuda, code: maj * 10 + (min ?? 0), from };
  };
  if (bound) return pick(bound.cuda, bound.from);
  if (image !== undefined && Object.hasOwn(AUTODL_BASE_IMAGE_CUDA, image)) return pick(AUTODL_BASE_IMAGE_CUDA[image]!, 'image');
  return pick(AUTODL_PAGE_CUDA_FLOOR, 'page');
}

const BEIJING_OFFSET_S = 8 * 3600;
const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * An AutoDL time: `{Time, Valid}` (Pro and console rows; `Valid: false` or year 1 is no time) or a
 * string, ISO with its offset or "2026-04-08 10:00:00" (the console's `release_at`, Beijing time).
 * Epoch seconds, or undefined.
 */
export function autodlTime(v: unknown): number | undefined {
  let t: unknown = v;
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as { Time?: unknown; Valid?: unknown };
    if (o.Valid !== true) return undefined;
    t = o.Time;
  }
  if (typeof t !== 'string' || t.length > 40) return undefined;
  const m = ISO.exec(t.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (y < 2000 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return undefined;
  const zone = m[7];
  const offset = zone === undefined ? BEIJING_OFFSET_S : zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  return Math.floor(Date.UTC(y, mo - 1, d, h, mi, se) / 1000) - offset;
}

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

// Every state word a source reports (SOURCES.md, "AutoDL state words"): the page's `running`,
// live clients' `shutting_down` / `shutdown`, and the words public clients meet beyond them.
const STATE: Record<string, PlatformState> = {
  creating: 'starting',
  starting: 'starting',
  restarting: 'starting',
  re_initializing: 'starting',
  // The system disk being made before a create or start runs (clients wait on it like `starting`).
  sys_volume_creating: 'starting',
  running: 'running',
  shutting_down: 'stopping',
  stopping: 'stopping',
  shutdown: 'stopped',
  stopped: 'stopped',
  // Shut down: clients power it on again like `shutdown`, and bill it as disk only.
  power_off: 'stopped',
  // A start that failed, or a run that ended in an error, left it shut down (the console shows 已关机).
  shutdown_by_starting_error: 'stopped',
  shutdown_by_running_error: 'stopped',
  releasing: 'releasing',
  removing: 'releasing',
  released: 'released',
  removed: 'released',
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

/** One row of a list: Pro `pro/list` `data.list[]` or the console's `/api/v1/instance` `data.list[]`. */
export function autodlInstance(raw: unknown, readAt: number): PlatformInstance | undefined {
  const o = obj(raw);
  const ref = boundText(o.uuid ?? o.instance_uuid, 64);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(ref)) return undefined;
  const state = autodlState(o.status, o.start_mode);
  const out: PlatformInstance = {
    ref,
    name: boundText(o.name ?? o.instance_name ?? o.machine_alias ?? ref, 120) || ref,
    state,
    rawState: boundText(o.status, 40) + (o.start_mode === 'non_gpu' ? ' (non_gpu)' : ''),
  };
  // The console row names its card; a Pro row only its spec id (the appendix names that card).
  const spec = typeof o.gpu_spec_uuid === 'string' ? o.gpu_spec_uuid : '';
  const card = boundText(o.snapshot_gpu_alias_name, 120) || (Object.hasOwn(AUTODL_SPEC_CARDS, spec) ? AUTODL_SPEC_CARDS[spec]! : '');
  if (card) out.card = card;
  const n = posInt(o.req_gpu_amount, 64);
  if (n) out.gpuCount = n;
  const region = boundText(o.region_name, 60);
  if (region) out.region = region;
  const ssh = sshOf(o);
  if (ssh) out.ssh = ssh;
  if (o.charge_type === 'payg') out.billing = 'postpaid';
  applyPrice(out, o, readAt);
  // A timed shutdown armed in the console: `{Time, Valid}` on Pro and console rows alike.
  const timed = autodlTime(o.timed_shutdown_at);
  if (timed !== undefined) out.platformTimer = { action: 'shutdown', at: timed };
  // The platform's clock for the 15-day release: its own stop time, its own release time where it sends one.
  if (state === 'stopped') {
    const stoppedAt = autodlTime(o.stopped_at);
    if (stoppedAt !== undefined) out.stoppedAt = stoppedAt;
    const releaseAt = autodlTime(o.release_at) ?? (stoppedAt !== undefined ? stoppedAt + AUTODL_RELEASE_DAYS * 86400 : undefined);
    if (releaseAt !== undefined) out.releaseAt = releaseAt;
  }
  return out;
}

function sshOf(o: Record<string, unknown>): { host: string; port: number; user: string } | undefined {
  return parseSshCommand(o.ssh_command) ?? (typeof o.proxy_host === 'string' && posInt(o.ssh_port, 65535) ? parseSshCommand(`ssh -p ${String(o.ssh_port)} root@${o.proxy_host}`) : undefined);
}

// AutoDL shows a price only while the instance runs: a 0 or absent price is no reading.
function applyPrice(out: PlatformInstance, o: Record<string, unknown>, readAt: number): void {
  const price = liToFen(o.payg_price);
  if (price !== undefined && price > 0) {
    out.priceFenPerHour = price;
    out.priceReadAt = readAt;
  }
}

/**
 * A list row's facts with its snapshot's: the card (`snapshot_gpu_alias_name`), the price after
 * discount (`payg_price`, ¥/1000 per hour) and the login (`ssh_command`, `proxy_host`/`ssh_port`).
 * The snapshot has no state: the row's stays.
 */
export function withAutodlSnapshot(p: PlatformInstance, snapshot: unknown, readAt: number): PlatformInstance {
  const o = obj(snapshot);
  const out: PlatformInstance = { ...p };
  const card = boundText(o.snapshot_gpu_alias_name, 120) || boundText(obj(obj(o.machine_info_snapshot).gpu_type).name, 120);
  if (card) out.card = card;
  const ssh = sshOf(o);
  if (ssh) out.ssh = ssh;
  applyPrice(out, o, readAt);
  return out;
}

/** The SSH login in a snapshot or a console row (port and password change after a restart). */
export function autodlLogin(raw: unknown): SshLogin | undefined {
  const o = obj(raw);
  const ssh = sshOf(o);
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

/**
 * The wallet's balance in fen: `assets` (¥/1000), as the page and every public client read it.
 * Nothing is subtracted: no source says what `blocked_asset` is or that `assets` includes it.
 */
export function autodlBalance(data: unknown): number | undefined {
  return liToFen(obj(data).assets);
}

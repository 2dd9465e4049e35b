// AutoDL console clone: when an instance's host has no free card (该主机空闲GPU不足), the console
// offers to clone it onto another host of the same card, copying its data disk. Pure: the host
// list's rows read through bounded zod shapes, the candidates picked and ordered, the request
// bodies built, the clone's states read. Shapes as public clients read them (no official page):
// test/fixtures/platforms/SOURCES.md, `autodl-web-clone.json`.
import { z } from 'zod';
import { liToFen } from './money';
import type { Fen } from '../money';
import { boundText } from './types';

/** The most host rows read for one instance (pages × page size). */
export const MACHINE_PAGE_SIZE = 50;
export const MACHINE_MAX_PAGES = 6;
export const MAX_MACHINE_ROWS = MACHINE_PAGE_SIZE * MACHINE_MAX_PAGES;
/** The most candidates offered (the cheapest first). */
export const MAX_CANDIDATES = 20;

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const count = z.number().int().min(0).max(100_000);
const bytes = z.number().int().min(0).max(2 ** 53);
const text = (max: number) => z.string().max(max);

/** One row of `POST /api/v1/user/machine/list` (gpuhunter's docstring, autodl helper clients' reads). */
export const MachineRowSchema = z.object({
  machine_id: z.string().regex(ID),
  machine_alias: text(200).optional(),
  region_sign: text(80).optional(),
  region_name: text(200).optional(),
  gpu_name: text(200).optional(),
  gpu_idle_num: count.optional(),
  /** gpuhunter: "use gpu_order_num to tell whether it can be rented" (cards that can be ordered now). */
  gpu_order_num: count.optional(),
  max_instance_num: count.optional(),
  binding_instance_num: count.optional(),
  highest_cuda_version: text(20).optional(),
  payg: z.boolean().optional(),
  /** ¥/1000 per hour per card. */
  payg_price: z.number().min(0).max(1e9).optional(),
  /** Bytes the data disk can be expanded to on that host. */
  max_data_disk_expand_size: bytes.optional(),
  /** One client prices a host by its last level's `discounted_price` (¥/1000 per hour): the fallback where no payg_price is sent. */
  machine_sku_info: z
    .array(z.object({ level_config: z.array(z.object({ discounted_price: z.number().min(0).max(1e9).optional() })).max(20).optional() }))
    .max(20)
    .optional(),
});
export type MachineRow = z.infer<typeof MachineRowSchema>;

/** What a clone needs to know about the instance being moved (its console list row and its detail). */
export interface CloneSource {
  ref: string;
  name: string;
  card: string;
  gpus: number;
  /** The region's sign (west-B), where the row sends one. */
  regionSign?: string;
  regionName?: string;
  /** The host it is on now (never a candidate). */
  machineId?: string;
  /** Bytes of data-disk expansion it has (the clone asks the same; the target must have room). */
  dataDiskBytes: number;
  /** Its image fields, sent back as they were (a clone keeps the instance's image). */
  image: { image: string; private_image_uuid: string; reproduction_uuid: string; reproduction_id: number };
  /** The platform's state word for it (a source being cloned reads shutdown_cloning / cloning). */
  rawState: string;
}

export interface CloneCandidate {
  machineId: string;
  alias: string;
  regionSign: string;
  regionName: string;
  idle: number;
  /** The host's pay-as-you-go price for the instance's cards, fen/h; undefined when the row shows none. */
  priceFenPerHour?: Fen;
  maxDataDiskBytes?: number;
  highestCuda?: string;
  sameRegion: boolean;
}

export type SkipReason = 'badRow' | 'otherCard' | 'sameHost' | 'fewFreeCards' | 'noDiskRoom' | 'hostFull' | 'notPayg';

export interface CandidatePick {
  candidates: CloneCandidate[];
  /** Rows read and why each that is not a candidate was left out. */
  seen: number;
  skipped: Partial<Record<SkipReason, number>>;
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown, max: number): string => (typeof v === 'string' ? boundText(v, max) : '');
const nonNegInt = (v: unknown, max: number): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max ? v : undefined);

/** A refusal before anything is sent, as a code with its facts; the front ends word it. */
export type CloneRefusal =
  | { code: 'notSupported' }
  | { code: 'noCard'; detail: { ref: string } }
  | { code: 'cloning'; detail: { ref: string; rawState: string } }
  | { code: 'noCandidate'; detail: { card: string; gpus: number; region: string; dataDiskBytes: number; seen: number; skipped: CandidatePick['skipped'] } }
  | { code: 'unknownMachine'; detail: { machineId: string } };

export const isCloneRefusal = (v: unknown): v is CloneRefusal => !!v && typeof v === 'object' && 'code' in v;

/**
 * The instance as a clone sees it: card, GPUs, region, host and image from its console list row
 * (gpuhunter's list docstring: machine_id, region_sign, image…; req_gpu_amount as another client
 * reads it), the data-disk expansion and host from `instance/detail`. A refusal when no card is named.
 */
export function cloneSourceOf(row: unknown, detail: unknown): CloneSource | CloneRefusal {
  const r = obj(row);
  const d = obj(detail);
  const ref = str(r.uuid ?? r.instance_uuid, 64);
  const card = str(r.snapshot_gpu_alias_name, 120) || str(obj(d.machine).gpu_name, 120);
  if (!card) return { code: 'noCard', detail: { ref } };
  const gpus = nonNegInt(r.req_gpu_amount, 64) || nonNegInt(d.req_gpu_amount, 64) || 1;
  const machineId = str(r.machine_id, 64) || str(obj(d.machine).machine_id, 64);
  const regionSign = str(r.region_sign, 80);
  const regionName = str(r.region_name, 200);
  return {
    ref,
    name: str(r.instance_name ?? r.name, 120) || ref,
    card,
    gpus,
    ...(regionSign ? { regionSign } : {}),
    ...(regionName ? { regionName } : {}),
    ...(ID.test(machineId) ? { machineId } : {}),
    // The detail names it data_disk_expand_size; the console list row expand_data_disk_size (SOURCES.md).
    dataDiskBytes: nonNegInt(d.data_disk_expand_size, 2 ** 53) ?? nonNegInt(r.expand_data_disk_size, 2 ** 53) ?? 0,
    image: {
      image: typeof r.image === 'string' && r.image.length <= 500 ? r.image : '',
      private_image_uuid: typeof r.private_image_uuid === 'string' && r.private_image_uuid.length <= 120 ? r.private_image_uuid : '',
      reproduction_uuid: typeof r.reproduction_uuid === 'string' && r.reproduction_uuid.length <= 300 ? r.reproduction_uuid : '',
      reproduction_id: nonNegInt(r.reproduction_id, 2 ** 31) ?? 0,
    },
    rawState: str(d.status ?? r.status, 40),
  };
}

/** States of a clone in progress (the source locked while its disk is copied, the new one being made). */
const IN_PROGRESS = new Set(['cloning', 'shutdown_cloning', 'creating', 'starting', 'clone_preparing']);
const FAILED = new Set(['clone_failed', 'create_failed']);

/** A clone's new instance: `done` once it runs or is shut down, `failed` on clone_failed/create_failed, else `inProgress`. */
export function cloneState(rawState: string): 'done' | 'failed' | 'inProgress' {
  const s = rawState.toLowerCase();
  if (FAILED.has(s)) return 'failed';
  if (s === 'running' || s === 'shutdown') return 'done';
  return 'inProgress';
}

/** The source is being cloned now (a second clone would be refused by the platform). */
export const sourceBusy = (rawState: string): boolean => IN_PROGRESS.has(rawState.toLowerCase()) && rawState.toLowerCase().includes('clon');

/** The host list's request for hosts of the instance's card with enough free cards, in its region (the console's own form). */
export function machineListBody(src: CloneSource, page: number): Record<string, unknown> {
  return {
    charge_type: 'payg',
    region_sign: '',
    gpu_type_name: [src.card],
    machine_tag_name: [],
    gpu_idle_num: src.gpus,
    mount_net_disk: false,
    instance_disk_size_order: '',
    date_range: '',
    date_from: '',
    date_to: '',
    page_index: page,
    page_size: MACHINE_PAGE_SIZE,
    pay_price_order: '',
    gpu_idle_type: '',
    default_order: true,
    region_sign_list: src.regionSign ? [src.regionSign] : [],
  };
}

/** One page of the host list: its rows (at most a page) and its max_page. */
export function machinePage(data: unknown): { rows: unknown[]; maxPage: number } {
  const d = obj(data);
  const rows = Array.isArray(d.list) ? d.list.slice(0, MACHINE_PAGE_SIZE) : [];
  const maxPage = nonNegInt(d.max_page, 100_000) ?? 1;
  return { rows, maxPage };
}

function priceOf(m: MachineRow, gpus: number): Fen | undefined {
  const levels = m.machine_sku_info?.[0]?.level_config;
  const li = m.payg_price ?? levels?.[levels.length - 1]?.discounted_price;
  const perCard = liToFen(li);
  return perCard !== undefined && perCard > 0 ? perCard * gpus : undefined;
}

const sameCard = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The hosts a clone can go to: the same card, at least the instance's GPUs free (and orderable,
 * where the row says), room for its data disk, a free instance slot, not its own host. Same
 * region first, then the cheapest, then the most free cards.
 */
export function pickCandidates(src: CloneSource, rows: readonly unknown[]): CandidatePick {
  const skipped: CandidatePick['skipped'] = {};
  const skip = (r: SkipReason) => void (skipped[r] = (skipped[r] ?? 0) + 1);
  const out: CloneCandidate[] = [];
  const seenIds = new Set<string>();
  const list = rows.slice(0, MAX_MACHINE_ROWS);
  for (const raw of list) {
    const p = MachineRowSchema.safeParse(raw);
    if (!p.success) {
      skip('badRow');
      continue;
    }
    const m = p.data;
    if (seenIds.has(m.machine_id)) continue;
    seenIds.add(m.machine_id);
    if (m.machine_id === src.machineId) skip('sameHost');
    else if (!m.gpu_name || !sameCard(m.gpu_name, src.card)) skip('otherCard');
    else if (m.payg === false) skip('notPayg');
    else if ((m.gpu_idle_num ?? 0) < src.gpus || (m.gpu_order_num !== undefined && m.gpu_order_num < src.gpus)) skip('fewFreeCards');
    else if (src.dataDiskBytes > 0 && (m.max_data_disk_expand_size ?? 0) < src.dataDiskBytes) skip('noDiskRoom');
    else if (m.max_instance_num !== undefined && m.binding_instance_num !== undefined && m.binding_instance_num >= m.max_instance_num) skip('hostFull');
    else {
      const price = priceOf(m, src.gpus);
      const regionSign = boundText(m.region_sign ?? '', 80);
      out.push({
        machineId: m.machine_id,
        alias: boundText(m.machine_alias ?? '', 60) || m.machine_id,
        regionSign,
        regionName: boundText(m.region_name ?? '', 60) || regionSign,
        idle: m.gpu_idle_num ?? 0,
        ...(price !== undefined ? { priceFenPerHour: price } : {}),
        ...(m.max_data_disk_expand_size !== undefined ? { maxDataDiskBytes: m.max_data_disk_expand_size } : {}),
        ...(m.highest_cuda_version ? { highestCuda: boundText(m.highest_cuda_version, 20) } : {}),
        sameRegion: !!src.regionSign && regionSign === src.regionSign,
      });
    }
  }
  out.sort((a, b) => Number(b.sameRegion) - Number(a.sameRegion) || (a.priceFenPerHour ?? Infinity) - (b.priceFenPerHour ?? Infinity) || b.idle - a.idle || (a.machineId < b.machineId ? -1 : 1));
  return { candidates: out.slice(0, MAX_CANDIDATES), seen: list.length, skipped };
}

/** The clone's name: the one given, else the source's with "-clone" (bounded to the create name rule's 60). */
export function cloneName(src: CloneSource, given?: string): string {
  if (given) return given;
  const base = src.name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 54) || 'instance';
  return `${base}-clone`;
}

/**
 * `POST /api/v1/order/instance/clone/payg`: the source's uuid, the target host, the same cards,
 * image and data-disk expansion, its data disk copied; price_info as the console sends it.
 */
export function cloneBody(src: CloneSource, c: Pick<CloneCandidate, 'machineId'>, name: string): Record<string, unknown> {
  return {
    instance_uuid: src.ref,
    instance_info: {
      machine_id: c.machineId,
      charge_type: 'payg',
      req_gpu_amount: src.gpus,
      ...src.image,
      instance_name: name,
      expand_data_disk: src.dataDiskBytes,
      copy_data_disk_after_clone: true,
      keep_src_user_service_address_after_clone: false,
    },
    price_info: { coupon_id_list: [], machine_id: c.machineId, charge_type: 'payg', duration: 1, num: src.gpus, expand_data_disk: src.dataDiskBytes },
  };
}

/** The new instance's uuid from the clone's answer (`data`), or undefined. */
export function clonedRef(data: unknown): string | undefined {
  return typeof data === 'string' && ID.test(data) ? data : undefined;
}

/** What a clone costs, as facts for the front ends' words. */
export interface CloneCost {
  /** The target's price for the instance's cards, fen/h (undefined: the row shows none). */
  priceFenPerHour?: Fen;
  /** The data disk is copied (bytes of expansion; 0: only the base disk) — it takes time before the clone runs. */
  dataDiskBytes: number;
  /** The source stays (shut down, its paid data disk still billing) until it is released in the console. */
  sourceStays: true;
}

export function cloneCost(src: CloneSource, c: CloneCandidate): CloneCost {
  return { ...(c.priceFenPerHour !== undefined ? { priceFenPerHour: c.priceFenPerHour } : {}), dataDiskBytes: src.dataDiskBytes, sourceStays: true };
}

/** Bytes as GiB, for the cost line (the console's own unit is bytes of 1024³). */
export const gib = (b: number): number => Math.round((b / 2 ** 30) * 10) / 10;

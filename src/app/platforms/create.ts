// Creating an instance through a platform's API, written once for both front ends.
// previewCreate checks everything it can before anything is created (the input, the name not
// taken, the card, region and image known to the platform, the CUDA bound, the price per hour
// and the storage per day where the platform quotes them, the balance covering an hour);
// createInstance sends the create once. A create whose answer is lost (a timeout or a dropped
// connection after sending) is looked for by its name before anything else is said: found, it
// is the created instance; not found yet, its outcome is unknown (never "failed"), and running
// the same create again is safe because the name is checked first (the clouds also get the
// name as their idempotency ClientToken).
import { builtinCatalog, findPlatform } from '../../core/catalog';
import { roundFen, type Fen } from '../../core/money';
import { aliyunPrice } from '../../core/platforms/aliyun';
import { autodlCudaCode, autodlSpecFor, autoReleaseAt, balanceRefusal, checkSpec, clientToken, createRefusalOf, cudaBound, existingByName, isRefusal, type CreateRefusal, type CreateSpec } from '../../core/platforms/create';
import { tencentPrice } from '../../core/platforms/tencent';
import { can, type Connector, type PlatformInstance, type SshLogin } from '../../core/platforms/types';
import type { AliyunConnector } from './aliyun';
import type { AutodlProConnector } from './autodl';
import { PlatformError } from './errors';
import { TARGET, waitForState } from './settle';
import type { TencentConnector } from './tencent';

export interface CreateInput extends Omit<CreateSpec, 'cudaMin'> {
  cudaMin?: string;
  /** A PyTorch version or wheel tag the CUDA bound is taken from when cudaMin is not given. */
  torch?: string;
  /** 阿里云: the vSwitch (its zone and VPC) and security group RunInstances needs. */
  vSwitchId?: string;
  securityGroupId?: string;
}

export interface CreatePreview {
  kind: Connector['kind'];
  spec: CreateSpec;
  /** What will be sent (the platform's own field names), for the preview and --json. */
  request: Record<string, unknown>;
  cuda?: { cuda: string; from: 'flag' | 'torch' };
  /** The platform's quote before creating, fen/h; undefined where it gives none before a create (AutoDL Pro). */
  priceFenPerHour?: Fen;
  /** What the disk asked for bills per day: the platform's quote, or the catalog's figure (labelled), or none. */
  storageFenPerDay?: Fen;
  storageSource?: 'platform' | 'catalog';
  balanceFen?: Fen;
  /** An instance of that name is already there: it is the one (never a second). */
  existing?: PlatformInstance;
  /** Where the create goes (阿里云/腾讯云: the region). */
  region?: string;
}

export type CreateOutcome =
  | { status: 'created'; ref: string; recovered: boolean; settled: boolean; instance?: PlatformInstance; login?: SshLogin }
  | { status: 'refused'; refusal: CreateRefusal }
  | { status: 'unknown'; name: string; reason: string };

type ProConnector = Pick<AutodlProConnector, 'proCreate'>;
type CvmConnector = Pick<TencentConnector, 'cvmCall' | 'regions'>;
type EcsConnector = Pick<AliyunConnector, 'ecsCall' | 'regions'>;

const asObj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The refusal a failure stands for, or the failure itself. */
function refusedOr(e: unknown, spec: CreateSpec): CreateRefusal {
  if (e instanceof PlatformError) {
    const r = createRefusalOf(e.failure, spec);
    if (r) return r;
  }
  throw e;
}

/** Everything checked before a create; a refusal when it would fail. Reads only. */
export async function previewCreate(c: Connector, input: CreateInput, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal> {
  const bound = cudaBound({ ...(input.cudaMin !== undefined ? { cudaMin: input.cudaMin } : {}), ...(input.torch !== undefined ? { torch: input.torch } : {}) });
  if (isRefusal(bound)) return bound;
  const spec: CreateSpec = { card: input.card, gpus: input.gpus, name: input.name, ...(input.region !== undefined ? { region: input.region } : {}), ...(input.image !== undefined ? { image: input.image } : {}), ...(input.diskGb !== undefined ? { diskGb: input.diskGb } : {}), ...(bound.cuda ? { cudaMin: bound.cuda } : {}), ...(input.spot ? { spot: input.spot } : {}), ...(input.autoReleaseHours !== undefined ? { autoReleaseHours: input.autoReleaseHours } : {}) };
  const bad = checkSpec(c.kind, spec);
  if (bad) return bad;
  const cuda = bound.cuda ? { cuda: bound.cuda, from: bound.from! } : undefined;
  // The name check first: a create sent before (its answer lost) is the instance, not a reason for another.
  const existing = existingByName(await c.list(signal), spec.name);
  const base = { kind: c.kind, spec, ...(cuda ? { cuda } : {}), ...(existing ? { existing } : {}) };
  try {
    if (c.kind === 'autodl-pro') return await previewAutodl(c, spec, base, signal);
    if (c.kind === 'tencent-cvm') return await previewTencent(c as Connector & CvmConnector, spec, base, signal);
    if (c.kind === 'aliyun-ecs') return await previewAliyun(c as Connector & EcsConnector, spec, input, base, signal);
  } catch (e) {
    return refusedOr(e, spec);
  }
  return { code: 'notSupported', detail: { kind: c.kind } };
}

type Base = Pick<CreatePreview, 'kind' | 'spec' | 'cuda' | 'existing'>;

async function withBalance(c: Connector, p: CreatePreview, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal> {
  if (!can(c.kind, 'balance')) return p;
  const b = await c.balance(signal).catch((e: unknown) => {
    // A refused key fails the preview; a balance that cannot be read now is left out.
    if (e instanceof PlatformError && (e.failure.kind === 'auth' || e.failure.kind === 'tokenExpired')) throw e;
    return undefined;
  });
  if (!b) return p;
  // An existing instance needs no balance check: nothing new is created.
  if (!p.existing) {
    const low = balanceRefusal(b.fen, p.priceFenPerHour);
    if (low) return low;
  }
  return { ...p, balanceFen: b.fen };
}

async function previewAutodl(c: Connector, spec: CreateSpec, base: Base, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal> {
  const gpuSpec = autodlSpecFor(spec.card);
  if (isRefusal(gpuSpec)) return gpuSpec;
  // The Pro page's body: data_center_list?, req_gpu_amount, expand_system_disk_by_gb, gpu_spec_uuid, image_uuid, cuda_v_from, instance_name?.
  const request: Record<string, unknown> = {
    ...(spec.region ? { data_center_list: [spec.region] } : {}),
    req_gpu_amount: spec.gpus,
    expand_system_disk_by_gb: spec.diskGb ?? 0,
    gpu_spec_uuid: gpuSpec,
    image_uuid: spec.image,
    ...(spec.cudaMin ? { cuda_v_from: autodlCudaCode(spec.cudaMin) } : {}),
    instance_name: spec.name,
  };
  // No price query before a create is documented: the snapshot's payg_price shows once it exists. The disk: the catalog's AutoDL figure, labelled so.
  const perGbDay = findPlatform(builtinCatalog(), 'autodl')?.dataDisk.fenPerGbDay?.max;
  const storage = spec.diskGb && perGbDay !== undefined ? { storageFenPerDay: roundFen(spec.diskGb * perGbDay), storageSource: 'catalog' as const } : {};
  return withBalance(c, { ...base, request, ...storage }, signal);
}

/** 腾讯云 `--region` is a zone (ap-guangzhou-3); calls go to its region. */
const tencentRegionOf = (zone: string) => zone.replace(/-\d{1,2}$/, '');

async function previewTencent(c: Connector & CvmConnector, spec: CreateSpec, base: Base, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal> {
  const zone = spec.region!;
  const region = tencentRegionOf(zone);
  const known = await c.regions();
  if (known.length && !known.includes(region)) return { code: 'unknownRegion', detail: { region: zone, known: known.join(', ') } };
  const images = await c.cvmCall('DescribeImages', { ImageIds: [spec.image] }, region);
  if (!Array.isArray(images.ImageSet) || !images.ImageSet.some((i) => asObj(i).ImageId === spec.image)) return { code: 'imageNotFound', detail: { image: spec.image ?? '' } };
  // cvm_models.d.ts RunInstancesRequest; spot: InstanceMarketOptions.SpotOptions.MaxPrice (yuan per hour, a string).
  const request: Record<string, unknown> = {
    InstanceChargeType: spec.spot ? 'SPOTPAID' : 'POSTPAID_BY_HOUR',
    ...(spec.spot ? { InstanceMarketOptions: { MarketType: 'spot', SpotOptions: { MaxPrice: (spec.spot.maxPriceFen / 100).toFixed(2), SpotInstanceType: 'one-time' } } } : {}),
    Placement: { Zone: zone },
    InstanceType: spec.card,
    ImageId: spec.image,
    ...(spec.diskGb ? { DataDisks: [{ DiskSize: spec.diskGb, DiskType: 'CLOUD_PREMIUM', DeleteWithInstance: true }] } : {}),
    InstanceCount: 1,
    InstanceName: spec.name,
    ClientToken: clientToken(spec.name),
    ...(spec.autoReleaseHours !== undefined ? { ActionTimer: { TimerAction: 'TerminateInstances', ActionTime: autoReleaseAt(Math.floor(Date.now() / 1000), spec.autoReleaseHours) } } : {}),
  };
  const { InstanceCount: _n, InstanceName: _name, ClientToken: _t, ActionTimer: _a, ...inquiry } = request;
  const price = tencentPrice(await c.cvmCall('InquiryPriceRunInstances', inquiry, region));
  return withBalance(c, { ...base, request, region, ...(price !== undefined ? { priceFenPerHour: price } : {}) }, signal);
}

async function previewAliyun(c: Connector & EcsConnector, spec: CreateSpec, input: CreateInput, base: Base, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal> {
  const region = spec.region ?? (await c.regions())[0]!;
  const known = await c.regions();
  if (spec.region && known.length && !known.includes(region)) return { code: 'unknownRegion', detail: { region, known: known.join(', ') } };
  const images = await c.ecsCall((x, m) => x.describeImages(new m.DescribeImagesRequest({ regionId: region, imageId: spec.image })), region);
  const list = asObj(images.Images).Image;
  if (!Array.isArray(list) || !list.some((i) => asObj(i).ImageId === spec.image)) return { code: 'imageNotFound', detail: { image: spec.image ?? '' } };
  // RunInstancesRequest (toMap names): pay-as-you-go, or spot with a price ceiling in yuan per hour.
  const request: Record<string, unknown> = {
    RegionId: region,
    InstanceType: spec.card,
    ImageId: spec.image,
    InstanceName: spec.name,
    InstanceChargeType: 'PostPaid',
    SpotStrategy: spec.spot ? 'SpotWithPriceLimit' : 'NoSpot',
    ...(spec.spot ? { SpotPriceLimit: spec.spot.maxPriceFen / 100 } : {}),
    ...(input.vSwitchId ? { VSwitchId: input.vSwitchId } : {}),
    ...(input.securityGroupId ? { SecurityGroupId: input.securityGroupId } : {}),
    ...(spec.diskGb ? { DataDisk: [{ Size: spec.diskGb, Category: 'cloud_essd', DeleteWithInstance: true }] } : {}),
    Amount: 1,
    ClientToken: clientToken(spec.name),
    ...(spec.autoReleaseHours !== undefined ? { AutoReleaseTime: autoReleaseAt(Math.floor(Date.now() / 1000), spec.autoReleaseHours) } : {}),
  };
  const price = aliyunPrice(await c.ecsCall((x, m) => x.describePrice(new m.DescribePriceRequest({ regionId: region, resourceType: 'instance', instanceType: spec.card, priceUnit: 'Hour', ...(spec.spot ? { spotStrategy: 'SpotWithPriceLimit' } : {}) })), region));
  let storage: Pick<CreatePreview, 'storageFenPerDay' | 'storageSource'> = {};
  if (spec.diskGb) {
    const hourly = aliyunPrice(await c.ecsCall((x, m) => x.describePrice(new m.DescribePriceRequest({ regionId: region, resourceType: 'disk', priceUnit: 'Hour', dataDisk: [new m.DescribePriceRequestDataDisk({ size: spec.diskGb, category: 'cloud_essd' })] })), region));
    if (hourly !== undefined) storage = { storageFenPerDay: hourly * 24, storageSource: 'platform' };
  }
  return withBalance(c, { ...base, request, region, ...(price !== undefined ? { priceFenPerHour: price } : {}), ...storage }, signal);
}

/** A lost answer: no reply, or one that could not be read, after the create went out. */
const lostAnswer = (e: unknown): boolean => e instanceof PlatformError && (e.failure.kind === 'timeout' || e.failure.kind === 'network' || e.failure.kind === 'badResponse' || e.failure.kind === 'server');

export interface CreateOptions {
  /** How long to wait for the new instance to run (0: do not wait). */
  settleMs: number;
  intervalMs: number;
  /** After a lost answer: how many lists look for the name, intervalMs apart. */
  findAttempts?: number;
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** The id(s) a create's reply names. */
function newRef(kind: Connector['kind'], reply: unknown): string | undefined {
  if (kind === 'autodl-pro') return typeof reply === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(reply) ? reply : undefined;
  const o = asObj(reply);
  const ids = kind === 'tencent-cvm' ? o.InstanceIdSet : asObj(o.InstanceIdSets).InstanceIdSet;
  const id = Array.isArray(ids) ? ids[0] : undefined;
  return typeof id === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : undefined;
}

async function send(c: Connector, p: CreatePreview, signal?: AbortSignal): Promise<unknown> {
  if (c.kind === 'autodl-pro') return (c as unknown as ProConnector).proCreate(p.request, signal);
  if (c.kind === 'tencent-cvm') return (c as unknown as CvmConnector).cvmCall('RunInstances', p.request, p.region!);
  const r = p.request;
  return (c as unknown as EcsConnector).ecsCall(
    (x, m) =>
      x.runInstances(
        new m.RunInstancesRequest({
          regionId: r.RegionId as string,
          instanceType: r.InstanceType as string,
          imageId: r.ImageId as string,
          instanceName: r.InstanceName as string,
          instanceChargeType: r.InstanceChargeType as string,
          spotStrategy: r.SpotStrategy as string,
          ...(r.SpotPriceLimit !== undefined ? { spotPriceLimit: r.SpotPriceLimit as number } : {}),
          ...(r.VSwitchId ? { vSwitchId: r.VSwitchId as string } : {}),
          ...(r.SecurityGroupId ? { securityGroupId: r.SecurityGroupId as string } : {}),
          ...(Array.isArray(r.DataDisk) ? { dataDisk: (r.DataDisk as { Size: number; Category: string; DeleteWithInstance: boolean }[]).map((d) => new m.RunInstancesRequestDataDisk({ size: d.Size, category: d.Category, deleteWithInstance: d.DeleteWithInstance })) } : {}),
          amount: 1,
          clientToken: r.ClientToken as string,
          ...(r.AutoReleaseTime ? { autoReleaseTime: r.AutoReleaseTime as string } : {}),
        }),
      ),
    p.region!,
  );
}

/**
 * Sends the create once (never for a preview with an existing instance: that one is returned),
 * then waits for it to run and reads its login where the platform gives one.
 */
export async function createInstance(c: Connector, p: CreatePreview, o: CreateOptions): Promise<CreateOutcome> {
  const say = o.onProgress ?? (() => undefined);
  let ref: string | undefined;
  let recovered = false;
  if (p.existing) {
    ref = p.existing.ref;
    recovered = true;
  } else {
    try {
      ref = newRef(c.kind, await send(c, p, o.signal));
      if (!ref) throw new PlatformError({ platform: c.kind, kind: 'badResponse', code: 'BadResponse', message: 'the create answered without an instance id' });
    } catch (e) {
      if (!lostAnswer(e)) {
        if (e instanceof PlatformError) {
          const r = createRefusalOf(e.failure, p.spec);
          if (r) return { status: 'refused', refusal: r };
        }
        throw e;
      }
      // The answer is lost, not the create: look for it by name.
      say(`the create's answer was lost (${(e as PlatformError).failure.code}); looking for "${p.spec.name}" by name`);
      for (let i = 0; i < (o.findAttempts ?? 3) && !ref; i++) {
        if (i > 0) await sleep(o.intervalMs, o.signal);
        const found = await c.list(o.signal).then((l) => existingByName(l, p.spec.name), () => undefined);
        if (found) ref = found.ref;
      }
      if (!ref) return { status: 'unknown', name: p.spec.name, reason: (e as PlatformError).message };
      recovered = true;
    }
  }
  if (o.settleMs <= 0) return { status: 'created', ref, recovered, settled: false };
  let last = '';
  const r = await waitForState(c, ref, TARGET.powerOnGpu, { deadlineMs: o.settleMs, intervalMs: o.intervalMs, ...(o.signal ? { signal: o.signal } : {}), onProgress: (x) => x.state !== last && say((last = x.state)) }).catch(() => ({ settled: false as const }));
  const login = r.settled && can(c.kind, 'sshLogin') ? await c.sshLogin(ref, o.signal).catch(() => undefined) : undefined;
  return { status: 'created', ref, recovered, settled: r.settled, ...('last' in r && r.last ? { instance: r.last } : {}), ...(login ? { login } : {}) };
}

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
import { autodlCudaFrom, type AutodlCudaSource } from '../../core/platforms/autodl';
import { aliyunPrice } from '../../core/platforms/aliyun';
import { autodlSpecFor, autoReleaseAt, balanceRefusal, checkSpec, clientToken, createRefusalOf, cudaBound, existingByName, isRefusal, type CreateRefusal, type CreateSpec } from '../../core/platforms/create';
import { tencentPrice } from '../../core/platforms/tencent';
import { can, type Connector, type PlatformInstance, type SshLogin } from '../../core/platforms/types';
import type { AliyunConnector } from './aliyun';
import type { AutodlProConnector } from './autodl';
import { PlatformError } from './errors';
import { TARGET, waitForState } from './settle';
import type { TencentConnector } from './tencent';
import { aliyunNetwork, aliyunKeyExists, groupId, loadLoginKey, prepareAliyun, prepareTencent, tencentGroup, tencentKeyId, zoneSoldOut, type CloudPlan } from './cloudCreate';
import { DEFAULT_BANDWIDTH_MBPS, spotReclaimFate, SSH_ONLY_GROUP, tencentPriceSteps, type PriceSteps, type ReclaimFate } from '../../core/platforms/cloudCreate';

export interface CreateInput extends Omit<CreateSpec, 'cudaMin'> {
  cudaMin?: string;
  /** A PyTorch version or wheel tag the CUDA bound is taken from when cudaMin is not given. */
  torch?: string;
  /** 阿里云: the vSwitch (its zone and VPC) and security group RunInstances needs; 腾讯云: the security group. */
  vSwitchId?: string;
  securityGroupId?: string;
  /** 腾讯云: the VPC and subnet (both, or neither: the default VPC). */
  vpcId?: string;
  subnetId?: string;
  /** 阿里云/腾讯云: the OpenSSH public key file imported as the login (default ~/.ssh/id_ed25519.pub, id_ecdsa.pub, id_rsa.pub; 腾讯云 id_rsa.pub). */
  sshKeyPath?: string;
}

export interface CreatePreview {
  kind: Connector['kind'];
  spec: CreateSpec;
  /** What will be sent (the platform's own field names), for the preview and --json. */
  request: Record<string, unknown>;
  /** The CUDA lower bound and where it came from (AutoDL Pro always has one: `cuda_v_from` is required; `image`/`page` only there). */
  cuda?: { cuda: string; from: AutodlCudaSource };
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
  /** 阿里云/腾讯云: the login key, network and bandwidth the create sets (cloudCreate.ts). */
  cloud?: CloudPlan;
  /** Spot on the clouds: what a reclaim does to each disk, and what then bills. */
  reclaim?: ReclaimFate;
  /** 腾讯云 pay-as-you-go: the hourly price's later steps (after 96 h, after 360 h) where the inquiry sends them. */
  priceSteps?: PriceSteps;
}

export type CreateOutcome =
  | { status: 'created'; ref: string; recovered: boolean; settled: boolean; instance?: PlatformInstance; login?: SshLogin }
  | { status: 'refused'; refusal: CreateRefusal }
  | { status: 'unknown'; name: string; reason: string };

type ProConnector = Pick<AutodlProConnector, 'proCreate'>;
type CvmConnector = Pick<TencentConnector, 'cvmCall' | 'vpcCall' | 'regions'>;
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
  const spec: CreateSpec = { card: input.card, gpus: input.gpus, name: input.name, ...(input.region !== undefined ? { region: input.region } : {}), ...(input.image !== undefined ? { image: input.image } : {}), ...(input.diskGb !== undefined ? { diskGb: input.diskGb } : {}), ...(bound.cuda ? { cudaMin: bound.cuda } : {}), ...(input.spot ? { spot: input.spot } : {}), ...(input.autoReleaseHours !== undefined ? { autoReleaseHours: input.autoReleaseHours } : {}), ...(input.bandwidthMbps !== undefined ? { bandwidthMbps: input.bandwidthMbps } : {}), ...(input.spotInterruption !== undefined ? { spotInterruption: input.spotInterruption } : {}) };
  const bad = checkSpec(c.kind, spec);
  if (bad) return bad;
  const cuda = bound.cuda ? { cuda: bound.cuda, from: bound.from! } : undefined;
  // The name check first: a create sent before (its answer lost) is the instance, not a reason for another.
  const existing = existingByName(await c.list(signal), spec.name);
  const base = { kind: c.kind, spec, ...(cuda ? { cuda } : {}), ...(existing ? { existing } : {}) };
  try {
    if (c.kind === 'autodl-pro') return await previewAutodl(c, spec, base, signal);
    if (c.kind === 'tencent-cvm') return await previewTencent(c as Connector & CvmConnector, spec, input, base, signal);
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
  const cudaFrom = autodlCudaFrom(base.cuda && (base.cuda.from === 'flag' || base.cuda.from === 'torch') ? { cuda: base.cuda.cuda, from: base.cuda.from } : undefined, spec.image);
  // The Pro page's body: data_center_list?, req_gpu_amount, expand_system_disk_by_gb, gpu_spec_uuid, image_uuid, cuda_v_from, instance_name?.
  const request: Record<string, unknown> = {
    ...(spec.region ? { data_center_list: [spec.region] } : {}),
    req_gpu_amount: spec.gpus,
    expand_system_disk_by_gb: spec.diskGb ?? 0,
    gpu_spec_uuid: gpuSpec,
    image_uuid: spec.image,
    // Required by the page, so always sent: the bound asked, else the image's CUDA, else the page's lowest (autodlCudaFrom).
    cuda_v_from: cudaFrom.code,
    instance_name: spec.name,
  };
  // No price query before a create is documented: the snapshot's payg_price shows once it exists. The disk: the catalog's AutoDL figure, labelled so.
  const perGbDay = findPlatform(builtinCatalog(), 'autodl')?.dataDisk.fenPerGbDay?.max;
  const storage = spec.diskGb && perGbDay !== undefined ? { storageFenPerDay: roundFen(spec.diskGb * perGbDay), storageSource: 'catalog' as const } : {};
  return withBalance(c, { ...base, cuda: { cuda: cudaFrom.cuda, from: cudaFrom.from }, request, ...storage }, signal);
}

/** 腾讯云 `--region` is a zone (ap-guangzhou-3); calls go to its region. */
const tencentRegionOf = (zone: string) => zone.replace(/-\d{1,2}$/, '');

async function previewTencent(c: Connector & CvmConnector, spec: CreateSpec, input: CreateInput, base: Base, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal> {
  const zone = spec.region!;
  const region = tencentRegionOf(zone);
  const known = await c.regions();
  if (known.length && !known.includes(region)) return { code: 'unknownRegion', detail: { region: zone, known: known.join(', ') } };
  // Every network piece before anything bills: the security group (CVM binds the project's default group, which may open more than SSH, when none is named), the VPC and subnet together or neither.
  if (!!input.vpcId !== !!input.subnetId) return { code: 'networkMissing', detail: { missing: input.vpcId ? 'subnet' : 'vpc', platform: 'tencent-cvm', note: 'give the VPC and its subnet together, or neither (the default VPC)' } };
  const key = await loadLoginKey(c.kind, input.sshKeyPath);
  if (isRefusal(key)) return key;
  const images = await c.cvmCall('DescribeImages', { ImageIds: [spec.image] }, region);
  if (!Array.isArray(images.ImageSet) || !images.ImageSet.some((i) => asObj(i).ImageId === spec.image)) return { code: 'imageNotFound', detail: { image: spec.image ?? '' } };
  const soldOut = await zoneSoldOut(c as Connector & { stock?: TencentConnector['stock'] }, region, zone, spec.card);
  if (soldOut) return soldOut;
  // Without a named group CVM binds the project's default group, which may open more than SSH: a group that opens SSH only is made (or reused) instead.
  const group = await tencentGroup(c, region, input.securityGroupId);
  if (isRefusal(group)) return group;
  const keyId = await tencentKeyId(c, region, key.name);
  const cloud: CloudPlan = { bandwidthMbps: spec.bandwidthMbps ?? DEFAULT_BANDWIDTH_MBPS, key: { ...key, exists: !!keyId, ...(keyId ? { id: keyId } : {}) }, group, ...(input.vpcId ? { vpcId: input.vpcId } : {}) };
  const request = tencentRequest(spec, cloud, input);
  const { InstanceCount: _n, InstanceName: _name, ClientToken: _t, ActionTimer: _a, LoginSettings: _l, ...inquiry } = request;
  const quote = await c.cvmCall('InquiryPriceRunInstances', inquiry, region);
  const price = tencentPrice(quote);
  const bw = tencentPriceSteps(asObj(asObj(quote.Price).BandwidthPrice));
  const unit = asObj(asObj(quote.Price).BandwidthPrice).ChargeUnit;
  if (bw && (unit === 'GB' || unit === 'HOUR')) cloud.bandwidthPrice = { fen: bw.first, unit };
  const reclaim = spec.spot ? { reclaim: spotReclaimFate(c.kind, 'terminate', !!spec.diskGb) } : {};
  const steps = tencentPriceSteps(asObj(quote.Price).InstancePrice);
  const later = steps && (steps.second !== undefined || steps.third !== undefined) ? { priceSteps: steps } : {};
  return withBalance(c, { ...base, request, region, cloud, ...reclaim, ...later, ...(price !== undefined ? { priceFenPerHour: price } : {}) }, signal);
}

/** 腾讯云 RunInstances (cvm_models.d.ts RunInstancesRequest), from the spec and the plan: the preview shows it, the create sends it. */
function tencentRequest(spec: CreateSpec, cloud: CloudPlan, input: Pick<CreateInput, 'vpcId' | 'subnetId'>): Record<string, unknown> {
  return {
    InstanceChargeType: spec.spot ? 'SPOTPAID' : 'POSTPAID_BY_HOUR',
    ...(spec.spot ? { InstanceMarketOptions: { MarketType: 'spot', SpotOptions: { MaxPrice: (spec.spot.maxPriceFen / 100).toFixed(2), SpotInstanceType: 'one-time' } } } : {}),
    Placement: { Zone: spec.region },
    InstanceType: spec.card,
    ImageId: spec.image,
    // A spot reclaim releases the instance: its data disk stays (and bills) instead of going with it.
    ...(spec.diskGb ? { DataDisks: [{ DiskSize: spec.diskGb, DiskType: 'CLOUD_PREMIUM', DeleteWithInstance: !spec.spot }] } : {}),
    // Without it: 0 Mbps, no public IP (InternetAccessible's doc). By traffic: an idle box costs nothing for it.
    InternetAccessible: { InternetChargeType: 'TRAFFIC_POSTPAID_BY_HOUR', InternetMaxBandwidthOut: cloud.bandwidthMbps, PublicIpAssigned: true },
    // Both DEFAULT: the default VPC (VirtualPrivateCloud's doc), never the classic network.
    VirtualPrivateCloud: { VpcId: input.vpcId ?? 'DEFAULT', SubnetId: input.subnetId ?? 'DEFAULT' },
    SecurityGroupIds: [groupId(cloud.group) ?? `(${SSH_ONLY_GROUP.name}: made at create, SSH only)`],
    // The key's id once imported; before that its name stands in the preview (the create imports it first).
    LoginSettings: { KeyIds: [cloud.key.id ?? `(${cloud.key.name}: imported at create)`] },
    InstanceCount: 1,
    InstanceName: spec.name,
    ClientToken: clientToken(spec.name),
    ...(spec.autoReleaseHours !== undefined ? { ActionTimer: { TimerAction: 'TerminateInstances', ActionTime: autoReleaseAt(Math.floor(Date.now() / 1000), spec.autoReleaseHours) } } : {}),
  };
}

async function previewAliyun(c: Connector & EcsConnector, spec: CreateSpec, input: CreateInput, base: Base, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal> {
  const region = spec.region ?? (await c.regions())[0]!;
  const known = await c.regions();
  if (spec.region && known.length && !known.includes(region)) return { code: 'unknownRegion', detail: { region, known: known.join(', ') } };
  // No launch template is offered: RunInstances then needs the vSwitch (VPC) and a security group. Checked before anything bills.
  const net = await aliyunNetwork(c, region, input.vSwitchId, input.securityGroupId);
  if (isRefusal(net)) return net;
  const key = await loadLoginKey(c.kind, input.sshKeyPath);
  if (isRefusal(key)) return key;
  const images = await c.ecsCall((x, m) => x.describeImages(new m.DescribeImagesRequest({ regionId: region, imageId: spec.image })), region);
  const list = asObj(images.Images).Image;
  if (!Array.isArray(list) || !list.some((i) => asObj(i).ImageId === spec.image)) return { code: 'imageNotFound', detail: { image: spec.image ?? '' } };
  const soldOut = await zoneSoldOut(c as Connector & { stock?: AliyunConnector['stock'] }, region, net.zone, spec.card);
  if (soldOut) return soldOut;
  const cloud: CloudPlan = { bandwidthMbps: spec.bandwidthMbps ?? DEFAULT_BANDWIDTH_MBPS, key: { ...key, exists: await aliyunKeyExists(c, region, key.name) }, ...net };
  const behavior = spec.spot ? (spec.spotInterruption ?? 'stop') : undefined;
  const request = aliyunRequest(spec, cloud, region);
  const price = aliyunPrice(await c.ecsCall((x, m) => x.describePrice(new m.DescribePriceRequest({ regionId: region, resourceType: 'instance', instanceType: spec.card, priceUnit: 'Hour', ...(net.zone ? { zoneId: net.zone } : {}), ...(spec.spot ? { spotStrategy: 'SpotWithPriceLimit' } : {}) })), region));
  let storage: Pick<CreatePreview, 'storageFenPerDay' | 'storageSource'> = {};
  if (spec.diskGb) {
    const hourly = aliyunPrice(await c.ecsCall((x, m) => x.describePrice(new m.DescribePriceRequest({ regionId: region, resourceType: 'disk', priceUnit: 'Hour', dataDisk: [new m.DescribePriceRequestDataDisk({ size: spec.diskGb, category: 'cloud_essd' })] })), region));
    if (hourly !== undefined) storage = { storageFenPerDay: hourly * 24, storageSource: 'platform' };
  }
  const reclaim = behavior ? { reclaim: spotReclaimFate(c.kind, behavior, !!spec.diskGb) } : {};
  return withBalance(c, { ...base, request, region, cloud, ...reclaim, ...(price !== undefined ? { priceFenPerHour: price } : {}), ...storage }, signal);
}

/** 阿里云 RunInstances (RunInstancesRequest, toMap names), from the spec and the plan: the preview shows it, the create sends it. */
function aliyunRequest(spec: CreateSpec, cloud: CloudPlan, region: string): Record<string, unknown> {
  const behavior = spec.spot ? (spec.spotInterruption ?? 'stop') : undefined;
  return {
    RegionId: region,
    InstanceType: spec.card,
    ImageId: spec.image,
    InstanceName: spec.name,
    InstanceChargeType: 'PostPaid',
    SpotStrategy: spec.spot ? 'SpotWithPriceLimit' : 'NoSpot',
    ...(spec.spot ? { SpotPriceLimit: spec.spot.maxPriceFen / 100 } : {}),
    // Default Terminate (the SDK's doc): the user's choice is always sent.
    ...(behavior ? { SpotInterruptionBehavior: behavior === 'stop' ? 'Stop' : 'Terminate' } : {}),
    VSwitchId: cloud.vSwitchId,
    ...(cloud.group && 'id' in cloud.group ? { SecurityGroupId: cloud.group.id } : { SecurityGroupId: `(${cloud.group && 'make' in cloud.group ? cloud.group.make : '?'}: made at create, SSH only)` }),
    // InternetMaxBandwidthOut defaults to 0: no public address.
    InternetChargeType: 'PayByTraffic',
    InternetMaxBandwidthOut: cloud.bandwidthMbps,
    KeyPairName: cloud.key.name,
    // A spot instance's data disk outlives a reclaim (it holds the checkpoints).
    ...(spec.diskGb ? { DataDisk: [{ Size: spec.diskGb, Category: 'cloud_essd', DeleteWithInstance: !spec.spot }] } : {}),
    Amount: 1,
    ClientToken: clientToken(spec.name),
    ...(spec.autoReleaseHours !== undefined ? { AutoReleaseTime: autoReleaseAt(Math.floor(Date.now() / 1000), spec.autoReleaseHours) } : {}),
  };
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

/**
 * The clouds, before RunInstances: the key pair imported and the SSH-only group made where the
 * plan says so (neither bills), then the preview's request with their ids filled in (the only
 * things the preview could not know). A failure here is said as it is: nothing was created.
 */
async function prepareCloud(c: Connector, p: CreatePreview): Promise<CreatePreview> {
  if (!p.cloud || p.existing) return p;
  if (c.kind === 'tencent-cvm') {
    const plan = await prepareTencent(c as unknown as CvmConnector, p.region!, p.cloud);
    return { ...p, cloud: plan, request: { ...p.request, LoginSettings: { KeyIds: [plan.key.id] }, SecurityGroupIds: [groupId(plan.group)] } };
  }
  const plan = await prepareAliyun(c as unknown as EcsConnector, p.region!, p.cloud);
  return { ...p, cloud: plan, request: { ...p.request, SecurityGroupId: groupId(plan.group) } };
}

async function send(c: Connector, p: CreatePreview, signal?: AbortSignal): Promise<unknown> {
  if (c.kind === 'autodl-pro') return (c as unknown as ProConnector).proCreate(p.request, signal);
  if (c.kind === 'tencent-cvm') return (c as unknown as CvmConnector).cvmCall('RunInstances', p.request, p.region!);
  const ecs = c as unknown as EcsConnector;
  const r = p.request;
  return ecs.ecsCall(
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
          ...(r.SpotInterruptionBehavior ? { spotInterruptionBehavior: r.SpotInterruptionBehavior as string } : {}),
          ...(r.InternetMaxBandwidthOut !== undefined ? { internetChargeType: r.InternetChargeType as string, internetMaxBandwidthOut: r.InternetMaxBandwidthOut as number } : {}),
          ...(r.KeyPairName ? { keyPairName: r.KeyPairName as string } : {}),
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
    p = await prepareCloud(c, p);
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
  let inst = 'last' in r ? r.last : undefined;
  // The clouds give the public address a moment after running: waited for within the same time.
  if (r.settled && (c.kind === 'aliyun-ecs' || c.kind === 'tencent-cvm') && !inst?.ssh) inst = await waitForAddress(c, ref, o, Date.now() + o.settleMs);
  const login = r.settled && can(c.kind, 'sshLogin') ? await c.sshLogin(ref, o.signal).catch(() => undefined) : undefined;
  const cloudLogin = !login && inst?.ssh && p.cloud ? inst.ssh : undefined;
  return { status: 'created', ref, recovered, settled: r.settled, ...(inst ? { instance: inst } : {}), ...(login ? { login } : cloudLogin ? { login: cloudLogin } : {}) };
}

async function waitForAddress(c: Connector, ref: string, o: CreateOptions, until: number): Promise<PlatformInstance | undefined> {
  let last: PlatformInstance | undefined;
  while (!o.signal?.aborted) {
    last = await c.get(ref, o.signal).catch(() => last);
    if (last?.ssh || Date.now() + o.intervalMs > until) return last;
    o.onProgress?.('waiting for the public IP');
    await sleep(o.intervalMs, o.signal);
  }
  return last;
}

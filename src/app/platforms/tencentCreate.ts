// 腾讯云's create (cvm_models.d.ts RunInstancesRequest): `--region` is a zone, the login an
// imported RSA key pair, the security group the user's or one that opens SSH only, the price
// from InquiryPriceRunInstances (with its later hourly steps), the reply's InstanceIdSet the new
// instance. The connector sets these as its `createHooks`; create.ts runs them.
import { autoReleaseAt, clientToken, isRefusal, type CreateRefusal, type CreateSpec } from '../../core/platforms/create';
import { DEFAULT_BANDWIDTH_MBPS, spotReclaimFate, SSH_ONLY_GROUP, tencentPriceSteps } from '../../core/platforms/cloudCreate';
import { tencentPrice } from '../../core/platforms/tencent';
import { groupId, loadLoginKey, prepareTencent, tencentGroup, tencentKeyId, zoneSoldOut, type CloudPlan } from './cloudCreate';
import { instanceIdOf, withBalance, type CreateHooks, type CreateInput, type CreatePreview, type PreviewBase } from './create';
import type { TencentConnector } from './tencent';

const asObj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** 腾讯云 `--region` is a zone (ap-guangzhou-3); calls go to its region. */
const tencentRegionOf = (zone: string) => zone.replace(/-\d{1,2}$/, '');

async function preview(c: TencentConnector, spec: CreateSpec, input: CreateInput, base: PreviewBase, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal> {
  const zone = spec.region!;
  const region = tencentRegionOf(zone);
  const known = await c.regions();
  if (known.length && !known.includes(region)) return { code: 'unknownRegion', detail: { region: zone, known: known.join(', ') } };
  // Every network piece before anything bills: the security group (CVM binds the project's default group, which may open more than SSH, when none is named), the VPC and subnet together or neither.
  if (!!input.vpcId !== !!input.subnetId) return { code: 'networkMissing', detail: { missing: input.vpcId ? 'subnet' : 'vpc', platform: c.kind, note: 'give the VPC and its subnet together, or neither (the default VPC)' } };
  const key = await loadLoginKey(c.kind, input.sshKeyPath);
  if (isRefusal(key)) return key;
  const images = await c.cvmCall('DescribeImages', { ImageIds: [spec.image] }, region);
  if (!Array.isArray(images.ImageSet) || !images.ImageSet.some((i) => asObj(i).ImageId === spec.image)) return { code: 'imageNotFound', detail: { image: spec.image ?? '' } };
  const soldOut = await zoneSoldOut(c, region, zone, spec.card);
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


export const TENCENT_CREATE: CreateHooks<TencentConnector> = {
  preview,
  // The key pair imported and the SSH-only group made where the plan says so, then their ids in the request.
  async prepare(c, p) {
    const plan = await prepareTencent(c, p.region!, p.cloud!);
    return { ...p, cloud: plan, request: { ...p.request, LoginSettings: { KeyIds: [plan.key.id] }, SecurityGroupIds: [groupId(plan.group)] } };
  },
  send: (c, p) => c.cvmCall('RunInstances', p.request, p.region!),
  createdRef(reply) {
    const ids = asObj(reply).InstanceIdSet;
    return instanceIdOf(Array.isArray(ids) ? ids[0] : undefined);
  },
  addressAfterRunning: true,
};

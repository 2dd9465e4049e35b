// 阿里云's create (@alicloud/ecs20140526 RunInstancesRequest): the vSwitch (its zone and VPC) and
// a security group, the login an imported key pair, the prices from DescribePrice (the instance,
// the data disk), a spot reclaim that stops by default, the reply's InstanceIdSets the new
// instance. The connector sets these as its `createHooks`; create.ts runs them.
import { aliyunPrice } from '../../core/platforms/aliyun';
import { autoReleaseAt, clientToken, isRefusal, type CreateRefusal, type CreateSpec } from '../../core/platforms/create';
import { DEFAULT_BANDWIDTH_MBPS, spotReclaimFate } from '../../core/platforms/cloudCreate';
import type { AliyunConnector } from './aliyun';
import { aliyunKeyExists, aliyunNetwork, groupId, loadLoginKey, prepareAliyun, zoneSoldOut, type CloudPlan } from './cloudCreate';
import { instanceIdOf, withBalance, type CreateHooks, type CreateInput, type CreatePreview, type PreviewBase } from './create';

const asObj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

async function preview(c: AliyunConnector, spec: CreateSpec, input: CreateInput, base: PreviewBase, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal> {
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
  const soldOut = await zoneSoldOut(c, region, net.zone, spec.card);
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

/** RunInstances with the preview's request (the SDK's field names). */
function send(c: AliyunConnector, p: CreatePreview): Promise<unknown> {
  const r = p.request;
  return c.ecsCall(
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

export const ALIYUN_CREATE: CreateHooks<AliyunConnector> = {
  preview,
  // The key pair imported and the SSH-only group made where the plan says so, then the group's id in the request.
  async prepare(c, p) {
    const plan = await prepareAliyun(c, p.region!, p.cloud!);
    return { ...p, cloud: plan, request: { ...p.request, SecurityGroupId: groupId(plan.group) } };
  },
  send,
  createdRef(reply) {
    const ids = asObj(asObj(reply).InstanceIdSets).InstanceIdSet;
    return instanceIdOf(Array.isArray(ids) ? ids[0] : undefined);
  },
  addressAfterRunning: true,
};

// What a 阿里云 / 腾讯云 create needs beside RunInstances, checked by the preview and made by the
// create, through one plan (so the two never disagree): the login (the user's SSH public key,
// imported once as a key pair named after it: 阿里云 ImportKeyPair → KeyPairName, 腾讯云
// ImportKeyPair → LoginSettings.KeyIds), the network (阿里云: the vSwitch and its VPC, a
// security group: the user's, or one that opens SSH (22) only, made at create), the public
// bandwidth, and the zones that still sell the type where the chosen one is sold out. Shapes:
// @alicloud/ecs20140526 dist/models (DescribeVSwitches, DescribeSecurityGroups,
// CreateSecurityGroup, AuthorizeSecurityGroup, DescribeKeyPairs, ImportKeyPair) and
// tencentcloud-sdk-nodejs-cvm cvm_models.d.ts (DescribeKeyPairs, ImportKeyPair).
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { keyPairName, keyTypeAccepted, parsePublicKey, rsaKeysOnly, SSH_ONLY_GROUP, zonesWithStock } from '../../core/platforms/cloudCreate';
import { descriptorOf } from '../../core/platforms/descriptors';
import type { CreateRefusal } from '../../core/platforms/create';
import type { StockRow } from '../../core/platforms/stock';
import type { Connector, PlatformKind } from '../../core/platforms/types';
import type { AliyunConnector } from './aliyun';
import type { TencentConnector } from './tencent';
import { formatCny } from '../../core/money';

type EcsConnector = Pick<AliyunConnector, 'kind' | 'ecsCall'>;
type CvmConnector = Pick<TencentConnector, 'cvmCall' | 'vpcCall'>;

const asObj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.slice(0, 1000).map(asObj) : []);
const refuse = (code: CreateRefusal['code'], detail: CreateRefusal['detail']): CreateRefusal => ({ code, detail });

/** The login key a create imports: the public key file, its line, and the key pair name it gets. */
export interface LoginKey {
  path: string;
  line: string;
  name: string;
}

/** Where a key is looked for when none is named: the usual OpenSSH files (RSA only where the cloud imports only that: 腾讯云). */
export function defaultKeyFiles(kind: PlatformKind, home = homedir()): string[] {
  const names = rsaKeysOnly(kind) ? ['id_rsa.pub'] : ['id_ed25519.pub', 'id_ecdsa.pub', 'id_rsa.pub'];
  return names.map((n) => join(home, '.ssh', n));
}

async function readSmall(path: string): Promise<string | undefined> {
  const f = await open(path, 'r').catch(() => undefined);
  if (!f) return undefined;
  try {
    const buf = Buffer.alloc(16_384);
    const { bytesRead } = await f.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await f.close();
  }
}

/** The user's public key for the login: the file named, else the first usual one the cloud accepts. */
export async function loadLoginKey(kind: PlatformKind, path?: string): Promise<LoginKey | CreateRefusal> {
  const files = path ? [path] : defaultKeyFiles(kind);
  for (const f of files) {
    const text = await readSmall(f);
    if (text === undefined) continue;
    const k = parsePublicKey(text);
    if (!k) return refuse('badPublicKey', { path: f, note: 'not an OpenSSH public key line (ssh-ed25519 AAAA…)' });
    if (!keyTypeAccepted(kind, k.type)) {
      if (path) return refuse('badPublicKey', { path: f, type: k.type, note: '腾讯云 imports OpenSSH RSA keys only (ImportKeyPair)' });
      continue;
    }
    const line = `${k.type} ${k.body}`;
    return { path: f, line, name: keyPairName(createHash('sha256').update(line).digest('hex')) };
  }
  return refuse('badPublicKey', { path: files.join(', '), note: rsaKeysOnly(kind) ? 'no RSA public key found: give one with --ssh-key (腾讯云 imports RSA only)' : 'no public key found: give one with --ssh-key, or make one with ssh-keygen' });
}

/** The security group a create uses: the user's, one made before (reused), or one to make. */
export type GroupPlan = { id: string; made?: 'reused' } | { make: string; vpcId: string };

export interface CloudPlan {
  bandwidthMbps: number;
  /** What the bandwidth costs (腾讯云's inquiry: per GB out); undefined: no figure (`?`). */
  bandwidthPrice?: { fen: number; unit: 'GB' | 'HOUR' };
  key: LoginKey & { id?: string; exists: boolean };
  group?: GroupPlan;
  vSwitchId?: string;
  vpcId?: string;
  zone?: string;
}

/** 阿里云: the vSwitch (its VPC and zone) and the security group, checked before anything bills. */
export async function aliyunNetwork(c: EcsConnector, region: string, vSwitchId: string | undefined, securityGroupId: string | undefined): Promise<Pick<CloudPlan, 'group' | 'vSwitchId' | 'vpcId' | 'zone'> | CreateRefusal> {
  if (!vSwitchId) return refuse('networkMissing', { missing: 'vSwitch', platform: c.kind });
  const vs = await c.ecsCall((x, m) => x.describeVSwitches(new m.DescribeVSwitchesRequest({ regionId: region, vSwitchId })), region);
  const row = list(asObj(vs.VSwitches).VSwitch).find((r) => r.VSwitchId === vSwitchId);
  if (!row || typeof row.VpcId !== 'string') return refuse('networkMissing', { missing: 'vSwitch', given: vSwitchId, region, note: 'not found in the region' });
  const vpcId = row.VpcId;
  const zone = typeof row.ZoneId === 'string' ? row.ZoneId : undefined;
  const base = { vSwitchId, vpcId, ...(zone ? { zone } : {}) };
  if (securityGroupId) {
    const sg = await c.ecsCall((x, m) => x.describeSecurityGroups(new m.DescribeSecurityGroupsRequest({ regionId: region, securityGroupIds: JSON.stringify([securityGroupId]) })), region);
    const g = list(asObj(sg.SecurityGroups).SecurityGroup).find((r) => r.SecurityGroupId === securityGroupId);
    if (!g) return refuse('networkMissing', { missing: 'securityGroup', given: securityGroupId, region, note: 'not found in the region' });
    if (typeof g.VpcId === 'string' && g.VpcId !== vpcId) return refuse('networkMissing', { missing: 'securityGroup', given: securityGroupId, note: `it is in ${g.VpcId}, the vSwitch in ${vpcId}` });
    return { ...base, group: { id: securityGroupId } };
  }
  const sg = await c.ecsCall((x, m) => x.describeSecurityGroups(new m.DescribeSecurityGroupsRequest({ regionId: region, vpcId, securityGroupName: SSH_ONLY_GROUP.name })), region);
  const mine = list(asObj(sg.SecurityGroups).SecurityGroup).find((r) => r.SecurityGroupName === SSH_ONLY_GROUP.name && r.VpcId === vpcId && typeof r.SecurityGroupId === 'string');
  return { ...base, group: mine ? { id: mine.SecurityGroupId as string, made: 'reused' } : { make: SSH_ONLY_GROUP.name, vpcId } };
}

/** 阿里云: whether the key pair is there already (its name is the key's hash: the same key, the same name). */
export async function aliyunKeyExists(c: EcsConnector, region: string, name: string): Promise<boolean> {
  const r = await c.ecsCall((x, m) => x.describeKeyPairs(new m.DescribeKeyPairsRequest({ regionId: region, keyPairName: name })), region);
  return list(asObj(r.KeyPairs).KeyPair).some((k) => k.KeyPairName === name);
}

/** 腾讯云: the key pair's id where it is there already. */
export async function tencentKeyId(c: CvmConnector, region: string, name: string): Promise<string | undefined> {
  const r = await c.cvmCall('DescribeKeyPairs', { Filters: [{ Name: 'key-name', Values: [name] }] }, region);
  const k = list(r.KeyPairSet).find((x) => x.KeyName === name && typeof x.KeyId === 'string');
  return k?.KeyId as string | undefined;
}

/**
 * At create, before RunInstances: the key pair imported and the SSH-only group made where the
 * plan says so. Returns the plan with the ids filled in. Key pairs and security groups do not bill.
 */
export async function prepareAliyun(c: EcsConnector, region: string, plan: CloudPlan): Promise<CloudPlan> {
  const out = { ...plan };
  if (!plan.key.exists && !(await aliyunKeyExists(c, region, plan.key.name))) {
    await c.ecsCall((x, m) => x.importKeyPair(new m.ImportKeyPairRequest({ regionId: region, keyPairName: plan.key.name, publicKeyBody: plan.key.line })), region);
  }
  out.key = { ...plan.key, exists: true };
  const g = plan.group;
  if (g && 'make' in g) {
    const made = await c.ecsCall((x, m) => x.createSecurityGroup(new m.CreateSecurityGroupRequest({ regionId: region, vpcId: g.vpcId, securityGroupName: SSH_ONLY_GROUP.name, description: 'gpu-rent: SSH (TCP 22) in, nothing else' })), region);
    const id = typeof made.SecurityGroupId === 'string' ? made.SecurityGroupId : undefined;
    if (!id) throw new Error('CreateSecurityGroup answered without SecurityGroupId');
    await c.ecsCall((x, m) => x.authorizeSecurityGroup(new m.AuthorizeSecurityGroupRequest({ regionId: region, securityGroupId: id, ipProtocol: 'tcp', portRange: `${SSH_ONLY_GROUP.port}/${SSH_ONLY_GROUP.port}`, sourceCidrIp: SSH_ONLY_GROUP.cidr, policy: 'accept', description: 'gpu-rent: SSH' })), region);
    out.group = { id };
  }
  return out;
}

export async function prepareTencent(c: CvmConnector, region: string, plan: CloudPlan): Promise<CloudPlan> {
  let out = plan;
  if (!plan.key.id) {
    const id = (await tencentKeyId(c, region, plan.key.name)) ?? (await c.cvmCall('ImportKeyPair', { KeyName: plan.key.name, ProjectId: 0, PublicKey: plan.key.line }, region)).KeyId;
    if (typeof id !== 'string' || !id) throw new Error('ImportKeyPair answered without KeyId');
    out = { ...out, key: { ...plan.key, id, exists: true } };
  }
  if (plan.group && 'make' in plan.group) {
    // VPC CreateSecurityGroupWithPolicies: SSH (TCP 22) in, everything out (the box fetches packages); nothing else in.
    const made = await c.vpcCall('CreateSecurityGroupWithPolicies', { GroupName: SSH_ONLY_GROUP.name, GroupDescription: 'gpu-rent: SSH (TCP 22) in, nothing else', SecurityGroupPolicySet: { Ingress: [{ Protocol: 'TCP', Port: String(SSH_ONLY_GROUP.port), CidrBlock: SSH_ONLY_GROUP.cidr, Action: 'ACCEPT', PolicyDescription: 'gpu-rent: SSH' }], Egress: [{ Protocol: 'ALL', Port: 'all', CidrBlock: '0.0.0.0/0', Action: 'ACCEPT' }] } }, region);
    const id = asObj(made.SecurityGroup).SecurityGroupId;
    if (typeof id !== 'string' || !id) throw new Error('CreateSecurityGroupWithPolicies answered without SecurityGroupId');
    out = { ...out, group: { id } };
  }
  return out;
}

/** 腾讯云 (VPC DescribeSecurityGroups): the user's group checked, else the SSH-only group made before (reused), else one to make at create. */
export async function tencentGroup(c: CvmConnector, region: string, securityGroupId: string | undefined): Promise<GroupPlan | CreateRefusal> {
  if (securityGroupId) {
    const r = await c.vpcCall('DescribeSecurityGroups', { SecurityGroupIds: [securityGroupId] }, region);
    if (!list(r.SecurityGroupSet).some((g) => g.SecurityGroupId === securityGroupId)) return refuse('networkMissing', { missing: 'securityGroup', given: securityGroupId, region, note: 'not found in the region' });
    return { id: securityGroupId };
  }
  const r = await c.vpcCall('DescribeSecurityGroups', { Filters: [{ Name: 'security-group-name', Values: [SSH_ONLY_GROUP.name] }] }, region);
  const g = list(r.SecurityGroupSet).find((x) => x.SecurityGroupName === SSH_ONLY_GROUP.name && typeof x.SecurityGroupId === 'string');
  return g ? { id: g.SecurityGroupId as string, made: 'reused' } : { make: SSH_ONLY_GROUP.name, vpcId: '' };
}

/** The security group ids RunInstances gets: the user's or the one made (none while it is still to be made). */
export const groupId = (g: GroupPlan | undefined): string | undefined => (g && 'id' in g ? g.id : undefined);

/**
 * The chosen zone sold out for the type, by the platform's own stock read: a refusal naming
 * the zones that sell it (with their prices where the read has them). Undefined: the zone sells
 * it, the read says nothing of it, or the read failed (the create will say).
 */
export async function zoneSoldOut(c: Connector & { stock?(q: { regions?: string[] }): Promise<StockRow[]> }, region: string, zone: string | undefined, instanceType: string): Promise<CreateRefusal | undefined> {
  if (!zone || typeof c.stock !== 'function') return undefined;
  const rows = await c.stock({ regions: [region] }).catch(() => undefined);
  if (!rows) return undefined;
  const here = rows.filter((r) => r.zone === zone && (r.instanceType ?? r.card) === instanceType);
  if (!here.length || here.some((r) => r.status !== 'soldOut')) return undefined;
  const others = zonesWithStock(rows, instanceType, zone);
  return refuse('noStock', { card: instanceType, zone, zones: others.map((o) => `${o.zone} ${o.priceFenPerHour !== undefined ? `${formatCny(o.priceFenPerHour)}/h` : '?/h'}`).join(', '), note: descriptorOf(c.kind).create?.network ? 'the create never picks another zone itself: give --vswitch of one of these zones' : 'the create never picks another zone itself: give --region with one of these' });
}

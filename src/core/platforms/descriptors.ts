// One descriptor per platform kind: everything about a kind that is data (its names, the
// secret's fields and their prompts, the endpoint and its setting, regions, what the connector
// can do, billing and release rules, the words its errors use). A new connector is its
// descriptor here and its adapter in app/platforms/registry.ts; every front end reads these
// instead of switching on the kind. Pure data, no I/O.
import type { Capability, FailureKind } from './types';

export const PLATFORM_KINDS = ['autodl-pro', 'autodl-web', 'aliyun-ecs', 'tencent-cvm'] as const;
export type PlatformKind = (typeof PLATFORM_KINDS)[number];

/** A text in both languages the front ends speak. */
export interface Words {
  en: string;
  zh: string;
}

export interface SecretField {
  /** The field in the stored secret (and in a scripted Add Platform Account argument). */
  field: string;
  /** The environment variable the CLI reads it from. */
  env: string;
  maxLength: number;
  /** What the Add Platform Account input box asks. */
  prompt: Words;
}

/** Base-URL overrides: one key per kind in `Endpoints` (the settings and the environment). */
export type EndpointKey = 'autodlApi' | 'autodlWebApi' | 'aliyun' | 'tencent';

/** What a create asks and what its options mean on a platform (the request itself is the adapter's). */
export interface CreateTraits {
  /** A card and a count from the platform's list (AutoDL), or an instance type that fixes both. */
  spec: 'cardList' | 'instanceType';
  instanceTypeExample?: string;
  /** Where it goes: a region from the platform's list, a zone typed (required), or a data center typed (empty: any). */
  where: 'regionList' | 'zone' | 'dataCenter';
  whereExample?: string;
  imageExample: string;
  /** What the disk option adds: AutoDL Pro expands the system disk, the clouds attach a data disk. */
  disk: 'moreSystemDisk' | 'dataDisk';
  /** CUDA is a create parameter (AutoDL's cuda_v); elsewhere the image decides the driver. */
  cudaParameter: boolean;
  /** A vSwitch and a security group are asked (阿里云). */
  network: boolean;
  /** The CLI's price line when the platform quotes none before a create; absent: "the platform gave no quote". */
  unquotedPrice?: string;
  /** `where: 'zone'`: what a zone as typed looks like (checked before anything is sent). */
  zonePattern?: RegExp;
  /**
   * The login key types the cloud imports: 'rsaOnly' (腾讯云 ImportKeyPair: "OpenSSH RSA 格式");
   * absent: RSA, Ed25519 and ECDSA.
   */
  keyTypes?: 'rsaOnly';
  /**
   * What a spot reclaim may be asked to do (阿里云 SpotInterruptionBehavior "Terminate | Stop");
   * a reclaim asked for anything else is refused. 腾讯云 reclaims release the instance.
   */
  spotReclaims?: readonly ('stop' | 'terminate')[];
}

export interface PlatformDescriptor {
  kind: PlatformKind;
  /** The catalog platform the connector belongs to (the tree and `--platform` group by it). */
  catalogPlatform: string;
  /** The name as the platform writes it, in the UI's language (CLI lines and errors use `en`). */
  name: Words;
  /** Opt-in connectors: what the user is told before accepting one. */
  experimental?: {
    /** Quick-pick description. */
    note: Words;
    /** The modal warning before the token is asked. */
    warning: Words;
    /** A scripted add without `experimental: true`. */
    refusal: Words;
    /** The CLI's reason to need `--experimental` (after the kind). */
    cliReason: string;
  };
  secrets: readonly SecretField[];
  /**
   * The secret field that names the paying account (one key added for two regions is one
   * account); absent: a fingerprint of the whole token.
   */
  accountKeyField?: string;
  endpoint: {
    key: EndpointKey;
    /** The `gpuRent.` setting (package.json contributes it). */
    setting: string;
    /** The environment variable (CLI and extension both read it). */
    env: string;
    /** The platform's own address; absent: the SDK's. */
    default?: string;
  };
  /** Clouds read one region, several or all; absent: the platform has no region choice. */
  regions?: {
    /** Where region-wide calls go when the account names none. */
    default: string;
    /** The environment variable an environment-defined account takes its regions from. */
    env: string;
  };
  /** What the connector can do; the UI and CLI offer only these. */
  capabilities: readonly Capability[];
  /** `gpu-rent create` / Create Platform Instance offers it (core/platforms/create.ts checks the spec); absent: no create. */
  create?: CreateTraits;
  /**
   * A plain (keep-charging) stop keeps billing compute as if it ran, and the economical stop
   * (StopCharging) is what a power-off asks for: 阿里云, 腾讯云 pay-as-you-go.
   */
  keepChargingStopBills: boolean;
  /**
   * Where a spot instance's reclaim notice is read on the box (instance metadata): 阿里云's
   * `instance/spot/termination-time` (with its metadata token), 腾讯云's `spot/termination-time`;
   * absent: the platform has no notice to read.
   */
  spotNotice?: 'aliyun' | 'tencent';
  /**
   * A shutdown inside the instance is the platform's own stop (AutoDL's help: 实例内执行 shutdown
   * 关机 stops it like the console's 关机; the GPU stops billing): the box may end its own run's
   * billing while the laptop is away (core/task/unattended.ts).
   */
  insideShutdownIsStop?: true;
  /** What still bills once it is stopped, in the CLI's English line. */
  stillBillsWhenStopped: string;
  /** The API releases only a stopped instance: release is power off → stopped → release. */
  releaseNeedsStopped: boolean;
  /** The platform releases a shut-down instance on a clock (AutoDL: 15 days); Keep from Release applies. */
  releasesStoppedOnClock: boolean;
  /** The platform's own stop timer, named for `gpu-rent schedule` (it runs while this machine sleeps). */
  stopTimer?: string;
  /**
   * Why a schedule rule is not kept by that timer (core/schedule.ts noPlatformTimer): no timer
   * request in the API, a timer for one time only (AutoDL's console: `gpu-rent shutdown-timer`),
   * or a timer that releases / terminates the instance rather than stopping it.
   */
  stopTimerLimit: 'proNoTimerApi' | 'oneOffTimer' | 'releaseOnly' | 'terminateOnly' | 'noTimer';
  /** The console clones an instance onto another host with a free card, its data disk copied (core/platforms/autodlClone.ts). */
  clone?: true;
  /** Stock is read for the regions the account's instances name (no region list in the API). */
  stockRegionsFromInstances: boolean;
  /**
   * Words in the platform's messages that decide the failure kind whatever its code says
   * (AutoDL answers no stock as `InternalError` "当前算力规格暂无库存").
   */
  errorWords: readonly (readonly [RegExp, FailureKind])[];
}

const AUTODL_WORDS: PlatformDescriptor['errorWords'] = [
  [/空闲GPU不足/, 'noGpuOnHost'],
  [/暂无库存|库存不足/, 'noStock'],
  [/未完成实名认证|实名认证/, 'realName'],
  [/无当前资源访问权限/, 'auth'],
];

export const PLATFORM_DESCRIPTORS: { readonly [K in PlatformKind]: PlatformDescriptor & { kind: K } } = {
  'autodl-pro': {
    kind: 'autodl-pro',
    stopTimerLimit: 'proNoTimerApi',
    catalogPlatform: 'autodl',
    name: { en: 'AutoDL Pro', zh: 'AutoDL Pro' },
    secrets: [{ field: 'token', env: 'GPU_RENT_AUTODL_TOKEN', maxLength: 4096, prompt: { en: 'AutoDL developer token (控制台 → 设置 → 开发者 Token)', zh: 'AutoDL 开发者 Token（控制台 → 设置 → 开发者 Token）' } }],
    endpoint: { key: 'autodlApi', setting: 'platforms.autodlApi', env: 'GPU_RENT_AUTODL_API', default: 'https://api.autodl.com' },
    // The official developer API has no no-GPU start and no stop-charging mode (AutoDL stops charging compute when shut down anyway).
    capabilities: ['list', 'get', 'powerOn:gpu', 'powerOff:keep', 'release', 'price', 'balance', 'sshLogin'],
    create: { spec: 'cardList', where: 'dataCenter', whereExample: 'westDC3', imageExample: 'base-image-…', disk: 'moreSystemDisk', cudaParameter: true, network: false, unquotedPrice: 'not quoted by AutoDL before a create: its price shows once it exists (gpu-rent instances)' },
    keepChargingStopBills: false,
    stillBillsWhenStopped: 'its paid data disk, if any',
    releaseNeedsStopped: true,
    releasesStoppedOnClock: true,
    insideShutdownIsStop: true,
    stopTimer: 'AutoDL console timed shutdown',
    stockRegionsFromInstances: false,
    errorWords: AUTODL_WORDS,
  },
  'autodl-web': {
    kind: 'autodl-web',
    stopTimerLimit: 'oneOffTimer',
    catalogPlatform: 'autodl',
    name: { en: 'AutoDL (console token, experimental)', zh: 'AutoDL（控制台令牌，实验性）' },
    experimental: {
      note: { en: 'experimental: unofficial endpoints, the console token expires', zh: '实验性：非官方接口，控制台令牌会过期' },
      warning: {
        en: 'The console token is the web console’s login token, used with endpoints AutoDL does not document. It expires; paste a new one then. GPU Rent never asks for your phone number or password and never logs in for you.',
        zh: '控制台令牌是网页控制台的登录令牌，配合 AutoDL 未公开文档的接口使用。它会过期，过期后请粘贴新的。GPU Rent 绝不索要手机号或密码，也绝不替你登录。',
      },
      refusal: { en: 'The AutoDL console token is experimental: pass experimental: true to accept it.', zh: 'AutoDL 控制台令牌是实验性的：传入 experimental: true 以接受。' },
      cliReason: "uses the web console's login token and unofficial endpoints",
    },
    secrets: [{ field: 'token', env: 'GPU_RENT_AUTODL_WEB_TOKEN', maxLength: 8192, prompt: { en: 'AutoDL console login token (experimental: it expires; never your phone number or password)', zh: 'AutoDL 控制台登录令牌（实验性：会过期；绝不要填手机号或密码）' } }],
    endpoint: { key: 'autodlWebApi', setting: 'platforms.autodlWebApi', env: 'GPU_RENT_AUTODL_WEB_API', default: 'https://www.autodl.com' },
    // The console endpoints: the only programmatic no-GPU start. Release stays in the console.
    capabilities: ['list', 'get', 'powerOn:gpu', 'powerOn:noGpu', 'powerOff:keep', 'price', 'balance', 'sshLogin'],
    keepChargingStopBills: false,
    stillBillsWhenStopped: 'its paid data disk, if any',
    releaseNeedsStopped: false,
    releasesStoppedOnClock: true,
    insideShutdownIsStop: true,
    stopTimer: 'AutoDL console timed shutdown',
    clone: true,
    stockRegionsFromInstances: false,
    errorWords: AUTODL_WORDS,
  },
  'aliyun-ecs': {
    kind: 'aliyun-ecs',
    stopTimerLimit: 'releaseOnly',
    catalogPlatform: 'aliyun',
    name: { en: '阿里云 ECS', zh: '阿里云 ECS' },
    secrets: [
      { field: 'accessKeyId', env: 'ALIBABA_CLOUD_ACCESS_KEY_ID', maxLength: 128, prompt: { en: 'AccessKey ID of a RAM user', zh: 'RAM 用户的 AccessKey ID' } },
      { field: 'accessKeySecret', env: 'ALIBABA_CLOUD_ACCESS_KEY_SECRET', maxLength: 256, prompt: { en: 'AccessKey Secret', zh: 'AccessKey Secret' } },
    ],
    accountKeyField: 'accessKeyId',
    endpoint: { key: 'aliyun', setting: 'platforms.aliyunEndpoint', env: 'GPU_RENT_ALIYUN_ENDPOINT' },
    regions: { default: 'cn-hangzhou', env: 'ALIBABA_CLOUD_REGION_ID' },
    capabilities: ['list', 'get', 'powerOn:gpu', 'powerOff:keep', 'powerOff:stopCharging', 'release', 'price', 'balance'],
    create: { spec: 'instanceType', instanceTypeExample: 'ecs.gn7i-c8g1.2xlarge', where: 'regionList', imageExample: 'ubuntu_22_04_x64_20G_alibase_….vhd', disk: 'dataDisk', cudaParameter: false, network: true, spotReclaims: ['stop', 'terminate'] },
    keepChargingStopBills: true,
    spotNotice: 'aliyun',
    stillBillsWhenStopped: 'its disks and any public IP / EIP',
    // DeleteInstance with Force=false, which its connector refuses to send otherwise.
    releaseNeedsStopped: true,
    releasesStoppedOnClock: false,
    stopTimer: '阿里云 auto-release time, which RELEASES it, disks and all',
    stockRegionsFromInstances: false,
    errorWords: [],
  },
  'tencent-cvm': {
    kind: 'tencent-cvm',
    stopTimerLimit: 'terminateOnly',
    catalogPlatform: 'tencent',
    name: { en: '腾讯云 CVM', zh: '腾讯云 CVM' },
    secrets: [
      { field: 'secretId', env: 'TENCENTCLOUD_SECRET_ID', maxLength: 128, prompt: { en: 'SecretId of a CAM sub-user', zh: 'CAM 子用户的 SecretId' } },
      { field: 'secretKey', env: 'TENCENTCLOUD_SECRET_KEY', maxLength: 256, prompt: { en: 'SecretKey', zh: 'SecretKey' } },
    ],
    accountKeyField: 'secretId',
    endpoint: { key: 'tencent', setting: 'platforms.tencentEndpoint', env: 'GPU_RENT_TENCENT_ENDPOINT' },
    regions: { default: 'ap-guangzhou', env: 'TENCENTCLOUD_REGION' },
    capabilities: ['list', 'get', 'powerOn:gpu', 'powerOff:keep', 'powerOff:stopCharging', 'release', 'price', 'balance'],
    create: { spec: 'instanceType', instanceTypeExample: 'GN7.2XLARGE32', where: 'zone', whereExample: 'ap-guangzhou-3', zonePattern: /^[a-z]{2}-[a-z]+-\d{1,2}$/, imageExample: 'img-…', disk: 'dataDisk', cudaParameter: false, network: false, keyTypes: 'rsaOnly', spotReclaims: ['terminate'] },
    keepChargingStopBills: true,
    spotNotice: 'tencent',
    stillBillsWhenStopped: 'its disks and any public IP / EIP',
    releaseNeedsStopped: false,
    releasesStoppedOnClock: false,
    stockRegionsFromInstances: false,
    errorWords: [],
  },
};

export function descriptorOf(kind: PlatformKind): PlatformDescriptor {
  return PLATFORM_DESCRIPTORS[kind];
}

/** Every descriptor, in PLATFORM_KINDS order. */
export const DESCRIPTORS: readonly PlatformDescriptor[] = PLATFORM_KINDS.map((k) => PLATFORM_DESCRIPTORS[k]);

/** A descriptor text in the UI's language (`zh…` → Chinese). */
export function inLanguage(w: Words, language: string): string {
  return language.toLowerCase().startsWith('zh') ? w.zh : w.en;
}

/** Add Platform Account's choices (every kind, the experimental ones so marked), in the UI's language. */
export function accountChoices(language: string): { kind: PlatformKind; label: string; description: string }[] {
  return DESCRIPTORS.map((d) => ({ kind: d.kind, label: inLanguage(d.name, language), description: d.experimental ? inLanguage(d.experimental.note, language) : '' }));
}

/** What Add Platform Account asks for a kind's secret, one input box per field, in the UI's language. */
export function secretPrompts(kind: PlatformKind, language: string): { field: string; prompt: string }[] {
  return PLATFORM_DESCRIPTORS[kind].secrets.map((f) => ({ field: f.field, prompt: inLanguage(f.prompt, language) }));
}

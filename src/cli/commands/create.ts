// `gpu-rent create --account ID --card C …`: a new instance through the platform's API. Without
// --yes it shows what it would create, its price per hour and the storage per day, and creates
// nothing. With --yes the create is sent once; a create whose answer is lost is looked for by
// its name (and running the same command again finds it by name before sending anything), so
// an instance is never created twice nor reported failed while it exists.
import { randomBytes } from 'node:crypto';
import { createInstance, previewCreate, type CreateInput, type CreateOutcome, type CreatePreview } from '../../app/platforms/create';
import { PLATFORM_NAMES } from '../../app/platforms/errors';
import { formatCny, yuanToFen } from '../../core/money';
import { AUTODL_MAX_EXPAND_GB, canCreate, CREATE_KINDS, defaultCreateName, isRefusal, type CreateRefusal } from '../../core/platforms/create';
import { AUTODL_SPEC_CARDS } from '../../core/platforms/autodl';
import { DEFAULT_BANDWIDTH_MBPS } from '../../core/platforms/cloudCreate';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { bounded, formatHelp, parseArgs, UsageError, type FlagSpecs } from '../args';
import { BOUNDS } from '../../core/bounds';
import type { CliCommand, CliIO } from '../command';
import { PLATFORM_DESCRIPTORS } from '../../core/platforms/descriptors';
import type { SshLogin } from '../../core/platforms/types';
import { jsonError } from '../json-error';
import { connectorFor, failureLine, loadAccounts } from './accounts';
import { cliLang, LANG_FLAG_SPEC, type CliLang } from '../lang';
import { helpLang, stateWord, t } from '../words';

const specs = {
  account: { type: 'string', valueName: 'ID', description: 'the platform account to create it on (gpu-rent accounts list)', zh: '在哪个平台账号上创建（gpu-rent accounts list 可查看）' },
  card: { type: 'string', valueName: 'C', description: `AutoDL Pro: the card or its spec id (${Object.entries(AUTODL_SPEC_CARDS).map(([s, c]) => `${c} = ${s}`).join(', ')}); 阿里云/腾讯云: the instance type (ecs.gn7i-c8g1.2xlarge, GN7.2XLARGE32)`, zh: `AutoDL Pro：显卡或其规格 id（${Object.entries(AUTODL_SPEC_CARDS).map(([s, c]) => `${c} = ${s}`).join(', ')}）；阿里云/腾讯云：实例规格（ecs.gn7i-c8g1.2xlarge、GN7.2XLARGE32）` },
  gpus: { type: 'number', valueName: 'N', ...bounded(BOUNDS.gpus), description: 'GPUs (AutoDL Pro 1-4; on the clouds the instance type fixes it; default 1)', zh: 'GPU 数（AutoDL Pro 1-4；云平台由实例规格决定；默认 1）' },
  region: { type: 'string', valueName: 'R', description: 'AutoDL Pro: a data center (westDC3, beijingDC2; default any); 阿里云: a region id (default the account\'s first); 腾讯云: a zone (ap-guangzhou-3, required)', zh: 'AutoDL Pro：数据中心（westDC3、beijingDC2；默认不限）；阿里云：地区 id（默认账号的第一个）；腾讯云：可用区（ap-guangzhou-3，必填）' },
  image: { type: 'string', valueName: 'ID', description: 'the image: AutoDL Pro base-image-… or your image-…; 阿里云/腾讯云 an image id (checked with DescribeImages)', zh: '镜像：AutoDL Pro 的 base-image-… 或你自己的 image-…；阿里云/腾讯云为镜像 id（用 DescribeImages 检查）' },
  'disk-gb': { type: 'number', valueName: 'N', integer: true, min: 0, max: 32768, description: `AutoDL Pro: system disk expansion (0-${AUTODL_MAX_EXPAND_GB} GB); 阿里云/腾讯云: a data disk of N GB`, zh: `AutoDL Pro：系统盘扩容（0-${AUTODL_MAX_EXPAND_GB} GB）；阿里云/腾讯云：N GB 的数据盘` },
  'cuda-min': { type: 'string', valueName: 'X.Y', description: 'the lowest CUDA the host\'s driver must offer (AutoDL cuda_v_from)', zh: '主机驱动至少要支持的 CUDA 版本（AutoDL cuda_v_from）' },
  torch: { type: 'string', valueName: 'VERSION', description: 'take the CUDA bound from your PyTorch: 2.1.0+cu121, cu121, or a plain 2.4.0 (its PyPI wheel\'s CUDA)', zh: '按你的 PyTorch 定 CUDA 下限：2.1.0+cu121、cu121，或不带后缀的 2.4.0（取其 PyPI wheel 的 CUDA）' },
  name: { type: 'string', valueName: 'N', description: 'the instance name (letters, digits, . _ -; default gpu-rent-DATE-TIME-xxxx). A create is looked for by it: run the same command with the same --name to retry safely', zh: '实例名称（字母、数字、. _ -；默认 gpu-rent-日期-时间-xxxx）。创建按名称查找：用同一个 --name 再运行同一条命令即可安全重试' },
  spot: { type: 'boolean', description: '阿里云/腾讯云: a spot (preemptible) instance; needs --max-price', zh: '阿里云/腾讯云：抢占式实例；需要 --max-price' },
  'max-price': { type: 'number', valueName: 'YUAN', min: 0.01, max: 10000, description: 'with --spot: the most per hour you pay, in yuan', zh: '配合 --spot：每小时最多愿付的价格，元' },
  'auto-release': { type: 'number', valueName: 'HOURS', min: 1, max: 8760, description: '阿里云/腾讯云: the platform releases it itself this many hours from now (AutoReleaseTime / ActionTimer)', zh: '阿里云/腾讯云：平台自己在从现在起这么多小时后释放它（AutoReleaseTime / ActionTimer）' },
  vswitch: { type: 'string', valueName: 'ID', description: '阿里云: the vSwitch (its zone and VPC) RunInstances needs', zh: '阿里云：RunInstances 需要的交换机（vSwitch，决定可用区和 VPC）' },
  'security-group': { type: 'string', valueName: 'ID', description: '阿里云/腾讯云: the security group (default: gpu-rent-ssh-only, opening SSH, TCP 22, only, made at create and reused; 阿里云 in the vSwitch\'s VPC)', zh: '阿里云/腾讯云：安全组（默认：gpu-rent-ssh-only，只开放 SSH（TCP 22），创建时新建并沿用；阿里云建在交换机所在 VPC 中）' },
  vpc: { type: 'string', valueName: 'ID', description: '腾讯云: the VPC, with --subnet (default: the default VPC)', zh: '腾讯云：VPC，与 --subnet 一起（默认：默认 VPC）' },
  subnet: { type: 'string', valueName: 'ID', description: '腾讯云: the subnet of --vpc', zh: '腾讯云：--vpc 的子网' },
  bandwidth: { type: 'number', valueName: 'MBPS', integer: true, min: 1, max: 100, description: `阿里云/腾讯云: public bandwidth out, billed by traffic (per GB sent; default ${DEFAULT_BANDWIDTH_MBPS} Mbit/s; without it the clouds give 0, no public IP)`, zh: `阿里云/腾讯云：公网出带宽，按流量计费（按发送的 GB；默认 ${DEFAULT_BANDWIDTH_MBPS} Mbit/s；不设时云平台给 0，没有公网 IP）` },
  'ssh-key': { type: 'string', valueName: 'FILE.pub', description: '阿里云/腾讯云: the OpenSSH public key imported as the login key pair (default ~/.ssh/id_ed25519.pub, id_ecdsa.pub, id_rsa.pub; 腾讯云 RSA only)', zh: '阿里云/腾讯云：作为登录密钥对导入的 OpenSSH 公钥（默认 ~/.ssh/id_ed25519.pub、id_ecdsa.pub、id_rsa.pub；腾讯云只支持 RSA）' },
  'spot-reclaim': { type: 'string', valueName: 'stop|terminate', description: '阿里云 --spot: what a reclaim does: stop (default: the instance stops, its disks stay) or terminate (released; the data disk stays). 腾讯云 always releases (the data disk stays)', zh: '阿里云 --spot：回收时怎么做：stop（默认：停机，磁盘保留）或 terminate（释放；数据盘保留）。腾讯云总是释放（数据盘保留）' },
  yes: { type: 'boolean', description: 'create it (without it, only what would be created and its price are shown)', zh: '执行创建（不加时只显示将创建什么及其价格）' },
  wait: { type: 'number', valueName: 'SECONDS', integer: true, min: 0, max: 1800, description: 'how long to wait for it to run and give its login (default 300; 0: do not wait)', zh: '等它运行并给出登录信息的秒数（默认 300；0：不等待）' },
  'no-pin': { type: 'boolean', description: 'do not connect once to pin the new instance\'s host key', zh: '不连接一次去记住新实例的主机密钥' },
  json: { type: 'boolean', description: 'print JSON', zh: '以 JSON 输出' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const USAGE = 'gpu-rent create --account ID --card C [--gpus N] [--region R] [--image ID] [--disk-gb N] [--cuda-min X.Y | --torch VERSION] [--name N] [--spot --max-price YUAN [--spot-reclaim stop|terminate]] [--auto-release HOURS] [--bandwidth MBPS] [--ssh-key FILE.pub] [--vswitch ID] [--security-group ID] [--vpc ID --subnet ID] --yes [--json]';

/** One English sentence per refusal, with what to do. */
export function refusalLine(r: CreateRefusal): string {
  const d = r.detail;
  const own = d.platformCode ? ` (${String(d.platformCode)}${d.platformMessage ? ` ${String(d.platformMessage)}` : ''})` : '';
  switch (r.code) {
    case 'unknownCard':
      return `unknown card "${String(d.card)}"${own}: ${d.known ? `AutoDL Pro offers ${String(d.known)}` : 'give an instance type the platform sells in that zone (gpu-rent stock lists them)'}`;
    case 'unknownRegion':
      return `unknown region "${String(d.region)}"${own}${d.known ? `: the account reads ${String(d.known)}` : ''}${d.note ? ` (${String(d.note)})` : ''}`;
    case 'imageNotFound':
      return `image "${String(d.image)}" not found${own}: give an image id the platform lists (AutoDL: base-image-… or your image-…; 阿里云/腾讯云: DescribeImages in that region)`;
    case 'imageRequired':
      return '--image is required: the platform creates no instance without one';
    case 'cudaUnmet':
      return d.newest ? `no host offers CUDA ≥ ${String(d.cuda)}: the newest driver known offers CUDA ${String(d.newest)}; lower --cuda-min or use a PyTorch built for an older CUDA` : `no host with a free ${String(d.card)} meets CUDA ≥ ${String(d.cuda)} now${own}: lower --cuda-min (or pick a PyTorch built for an older CUDA), another card, or try later`;
    case 'balanceTooLow':
      return `the balance does not cover an hour${d.balanceFen !== undefined ? ` (${formatCny(Number(d.balanceFen))}${d.priceFenPerHour !== undefined ? ` for ${formatCny(Number(d.priceFenPerHour))}/h` : ''})` : ''}${own}: top the account up first`;
    case 'realName':
      return `the account is not real-name verified (实名认证)${own}: finish the verification in the platform's console, then run this again`;
    case 'quotaExceeded':
      return `the account's instance quota is used up${own}: release an instance or ask the platform for a higher quota`;
    case 'noStock':
      return d.zone ? `${String(d.card)} is sold out in ${String(d.zone)}${own}; ${d.zones ? `zones that sell it now: ${String(d.zones)}` : 'no other zone of the region sells it now'}. Nothing was created, and no other zone is picked for you: ${d.note ? String(d.note).replace(/^.*: /, '') : 'give --region with one of them'}` : `no ${String(d.card)} is free now${own}: try another card or region, or later (gpu-rent stock shows free cards)`;
    case 'tooManyGpus':
      return `${String(d.gpus)} GPUs: at most ${String(d.max)} here${d.note ? ` (${String(d.note)})` : ''}`;
    case 'diskTooLarge':
      return `--disk-gb ${String(d.diskGb)}: at most ${String(d.max)}`;
    case 'spotNotOffered':
      return 'AutoDL Pro creates pay-as-you-go instances only: no --spot';
    case 'autoReleaseNotOffered':
      return 'AutoDL Pro has no auto-release time in its create: no --auto-release';
    case 'badName':
      return `--name "${String(d.name)}": letters, digits, . _ - only, at most 60, starting with a letter or digit`;
    case 'badCuda':
      return `"${String(d.given)}" is not a CUDA version (12.1) nor a PyTorch version or wheel tag (2.1.0+cu121, cu121)`;
    case 'networkMissing':
      return `no ${d.missing === 'vSwitch' ? 'vSwitch (--vswitch)' : d.missing === 'securityGroup' ? 'security group (--security-group)' : d.missing === 'subnet' ? 'subnet (--subnet)' : 'VPC (--vpc)'}${d.given ? ` "${String(d.given)}"` : ''}${d.note ? `: ${String(d.note)}` : ': RunInstances needs one'}`;
    case 'badPublicKey':
      return `no usable SSH public key (${String(d.path)}${d.type ? `, ${String(d.type)}` : ''}): ${String(d.note ?? '')}; the instance's login is this key, imported as a key pair`;
    case 'badBandwidth':
      return `--bandwidth ${String(d.mbps)}: 1 to ${String(d.max)} Mbit/s (0 gives no public address, a box nobody can reach)`;
    case 'spotStopNotOffered':
      return d.note ? `--spot-reclaim: ${String(d.note)}` : `--spot-reclaim stop: 腾讯云 releases a reclaimed spot instance (its data disk is kept); use --spot-reclaim terminate or leave it out`;
    case 'notSupported':
      return `${PLATFORM_NAMES[d.kind as keyof typeof PLATFORM_NAMES] ?? String(d.kind)} accounts cannot create instances here (${CREATE_KINDS.join(', ')} can)`;
  }
}

/** refusalLine in Chinese (the JSON keeps the English). */
export function refusalLineZh(r: CreateRefusal): string {
  const d = r.detail;
  const own = d.platformCode ? `（${String(d.platformCode)}${d.platformMessage ? ` ${String(d.platformMessage)}` : ''}）` : '';
  switch (r.code) {
    case 'unknownCard':
      return `未知显卡 "${String(d.card)}"${own}：${d.known ? `AutoDL Pro 提供 ${String(d.known)}` : '请给出平台在该可用区出售的实例规格（gpu-rent stock 会列出）'}`;
    case 'unknownRegion':
      return `未知地区 "${String(d.region)}"${own}${d.known ? `：该账号读取的是 ${String(d.known)}` : ''}${d.note ? `（${String(d.note)}）` : ''}`;
    case 'imageNotFound':
      return `找不到镜像 "${String(d.image)}"${own}：请给出平台列出的镜像 ID（AutoDL：base-image-… 或你的 image-…；阿里云/腾讯云：该地区 DescribeImages 列出的）`;
    case 'imageRequired':
      return '必须给出 --image：平台不能在没有镜像时创建实例';
    case 'cudaUnmet':
      return d.newest ? `没有主机提供 CUDA ≥ ${String(d.cuda)}：已知最新的驱动提供 CUDA ${String(d.newest)}；请降低 --cuda-min，或用针对较旧 CUDA 构建的 PyTorch` : `现在没有空闲 ${String(d.card)} 的主机满足 CUDA ≥ ${String(d.cuda)}${own}：请降低 --cuda-min（或选针对较旧 CUDA 构建的 PyTorch）、换显卡，或稍后再试`;
    case 'balanceTooLow':
      return `余额不够一小时${d.balanceFen !== undefined ? `（${formatCny(Number(d.balanceFen))}${d.priceFenPerHour !== undefined ? `，价格 ${formatCny(Number(d.priceFenPerHour))}/小时` : ''}）` : ''}${own}：请先充值`;
    case 'realName':
      return `账号未完成实名认证${own}：请在平台控制台完成认证后再运行一次`;
    case 'quotaExceeded':
      return `账号的实例配额已用完${own}：请释放一个实例，或向平台申请提高配额`;
    case 'noStock':
      if (d.zone) return `${String(d.card)} 在 ${String(d.zone)} 已售罄${own}；${d.zones ? `现在有货的可用区：${String(d.zones)}` : '该地域其他可用区现在也没有'}。没有创建任何实例，也不会替你换可用区：${String(d.note ?? '').includes('--vswitch') ? '请用 --vswitch 指定其中一个可用区的交换机' : '请用 --region 指定其中一个'}`;
      return `现在没有空闲的 ${String(d.card)}${own}：请换显卡或地区，或稍后再试（gpu-rent stock 显示空闲显卡）`;
    case 'tooManyGpus':
      return `${String(d.gpus)} 块 GPU：这里最多 ${String(d.max)} 块${d.note ? `（${String(d.note)}）` : ''}`;
    case 'diskTooLarge':
      return `--disk-gb ${String(d.diskGb)}：最多 ${String(d.max)}`;
    case 'spotNotOffered':
      return 'AutoDL Pro 只能创建按量计费实例：不能用 --spot';
    case 'autoReleaseNotOffered':
      return 'AutoDL Pro 创建时没有自动释放时间：不能用 --auto-release';
    case 'badName':
      return `--name "${String(d.name)}"：只能用字母、数字、. _ -，最多 60 个，以字母或数字开头`;
    case 'badCuda':
      return `"${String(d.given)}" 既不是 CUDA 版本（12.1），也不是 PyTorch 版本或 wheel 标签（2.1.0+cu121、cu121）`;
    case 'networkMissing':
      return `缺少${d.missing === 'vSwitch' ? '交换机（--vswitch）' : d.missing === 'securityGroup' ? '安全组（--security-group）' : d.missing === 'subnet' ? '子网（--subnet）' : 'VPC（--vpc）'}${d.given ? ` "${String(d.given)}"` : ''}${d.note ? `：${String(d.note)}` : '：RunInstances 需要它'}`;
    case 'badPublicKey':
      return `没有可用的 SSH 公钥（${String(d.path)}${d.type ? `，${String(d.type)}` : ''}）：${String(d.note ?? '')}；实例的登录就是这把公钥，作为密钥对导入`;
    case 'badBandwidth':
      return `--bandwidth ${String(d.mbps)}：1 到 ${String(d.max)} Mbit/s（0 没有公网地址，谁也连不上）`;
    case 'spotStopNotOffered':
      return d.note ? `--spot-reclaim：只用于 --spot` : `--spot-reclaim stop：腾讯云回收抢占式实例时会释放它（数据盘保留）；请用 --spot-reclaim terminate 或不写`;
    case 'notSupported':
      return `${PLATFORM_NAMES[d.kind as keyof typeof PLATFORM_NAMES] ?? String(d.kind)} 账号不能在这里创建实例（${CREATE_KINDS.join('、')} 可以）`;
  }
}

/** 腾讯云's later hourly steps, where the inquiry sends them. */
function stepsText(p: CreatePreview, lang: CliLang): string {
  const s = p.priceSteps;
  if (!s) return '';
  const parts = [s.second !== undefined ? [96, s.second] : undefined, s.third !== undefined ? [360, s.third] : undefined].filter((x): x is number[] => !!x);
  return lang === 'zh-cn' ? `；用满 ${parts.map(([h, f]) => `${h} 小时后 ${formatCny(f!)}/小时`).join('，')}` : `; ${parts.map(([h, f]) => `${formatCny(f!)}/h after ${h} h`).join(', ')}`;
}

/** The cloud create's own rows: bandwidth and its price, login key, network, what a spot reclaim does. Never a secret. */
export function cloudRows(p: CreatePreview, lang: CliLang): [string, string][] {
  const c = p.cloud!;
  const zh = lang === 'zh-cn';
  const bwPrice = c.bandwidthPrice ? `${formatCny(c.bandwidthPrice.fen)}/${c.bandwidthPrice.unit === 'GB' ? 'GB' : zh ? '小时' : 'h'}` : zh ? '?/GB（平台没有报价）' : '?/GB (no quote from the platform)';
  const rows: [string, string][] = [
    [zh ? '带宽' : 'bandwidth', zh ? `公网 ${c.bandwidthMbps} Mbit/s，按流量计费 ${bwPrice}` : `public ${c.bandwidthMbps} Mbit/s, billed by traffic ${bwPrice}`],
    [zh ? '登录' : 'login', zh ? `密钥对 ${c.key.name}（${c.key.path}${c.key.exists ? '，已导入' : '，创建时导入'}）` : `key pair ${c.key.name} (${c.key.path}${c.key.exists ? ', imported already' : ', imported at create'})`],
  ];
  const g = c.group;
  if (g) rows.push([zh ? '安全组' : 'sec.group', 'make' in g ? (zh ? `${g.make}：创建时新建，只开放 SSH（TCP 22）` : `${g.make}: made at create, SSH (TCP 22) in only`) : `${g.id}${g.made === 'reused' ? (zh ? '（之前为 SSH 新建的，沿用）' : ' (made before for SSH, reused)') : ''}`]);
  if (c.vSwitchId) rows.push([zh ? '网络' : 'network', `${c.vSwitchId} (${c.vpcId ?? '?'}${c.zone ? `, ${c.zone}` : ''})`]);
  const r = p.reclaim;
  if (r) {
    const disk = (d: { disk: string; fate: string }) => (zh ? `${d.disk === 'system' ? '系统盘' : '数据盘'}${d.fate === 'kept' ? '保留' : '随实例释放'}` : `${d.disk} disk ${d.fate}`);
    const after =
      r.afterwards === 'stoppedStorage'
        ? zh ? `之后计算不计费，磁盘照常计费（数据盘 ${p.storageFenPerDay !== undefined ? `${formatCny(p.storageFenPerDay)}/天` : '?/天'}，系统盘 ?/天）` : `then compute stops billing, the disks bill on (data ${p.storageFenPerDay !== undefined ? `${formatCny(p.storageFenPerDay)}/day` : '?/day'}, system ?/day)`
        : r.afterwards === 'detachedDisk'
          ? zh ? `之后数据盘单独计费 ${p.storageFenPerDay !== undefined ? `${formatCny(p.storageFenPerDay)}/天` : '?/天'}，直到你删除它` : `then the data disk bills on its own, ${p.storageFenPerDay !== undefined ? `${formatCny(p.storageFenPerDay)}/day` : '?/day'}, until you delete it`
          : zh ? '之后不再计费' : 'then nothing bills';
    rows.push([zh ? '回收' : 'reclaim', zh ? `${r.behavior === 'stop' ? '停机' : '释放'}：${r.disks.map(disk).join('，')}；${after}` : `${r.behavior}: ${r.disks.map(disk).join(', ')}; ${after}`]);
  }
  return rows;
}

function previewLinesZh(p: CreatePreview, account: string): string[] {
  const s = p.spec;
  const lines = [`将在 ${PLATFORM_NAMES[p.kind]}（账号 ${account}）上创建：`];
  const row = (k: string, v: string) => lines.push(`  ${k}：${v}`);
  row('名称', s.name);
  row('显卡', `${s.card} ×${s.gpus}${typeof p.request.gpu_spec_uuid === 'string' ? `（规格 ${p.request.gpu_spec_uuid}）` : ''}`);
  row('地区', s.region ?? (p.region ? p.region : '任意'));
  row('镜像', s.image ?? '?');
  const traits = PLATFORM_DESCRIPTORS[p.kind].create;
  if (s.diskGb) row('磁盘', `${s.diskGb} GB${traits?.disk === 'moreSystemDisk' ? ' 系统盘扩容' : ' 数据盘'}`);
  if (p.cuda) row('CUDA', `≥ ${p.cuda.cuda}${p.cuda.from === 'torch' ? '（你的 PyTorch 需要的）' : p.cuda.from === 'image' ? `（镜像 ${p.spec.image ?? '?'} 的 CUDA，Pro 文档的公共镜像表）` : p.cuda.from === 'page' ? '（没给 --cuda-min/--torch，镜像的 CUDA 也不知道：用 Pro 文档所列的最低值，任何主机都可接）' : ''}${typeof p.request.cuda_v_from === 'number' ? ` → cuda_v_from ${p.request.cuda_v_from}（必填）` : ''}${traits?.cudaParameter ? '' : '：这里不是创建参数，驱动由镜像决定'}`);
  row('计费', s.spot ? `抢占式，最多 ${formatCny(s.spot.maxPriceFen)}/小时` : '按量计费');
  row('价格', p.priceFenPerHour !== undefined ? `${formatCny(p.priceFenPerHour)}/小时（平台报价）${stepsText(p, 'zh-cn')}` : (traits?.unquotedPrice ?? '?（平台没有报价）'));
  if (s.diskGb) row('存储', p.storageFenPerDay !== undefined ? `${formatCny(p.storageFenPerDay)}/天（${p.storageSource === 'catalog' ? '价格目录估算，不是平台报价' : '平台报价'}）` : '?/天（没有单独报价；平台计入时已含在上面的价格里）');
  if (s.autoReleaseHours !== undefined) row('释放', `${s.autoReleaseHours} 小时后由平台自行释放`);
  if (p.cloud) for (const [k, v] of cloudRows(p, 'zh-cn')) row(k, v);
  if (p.balanceFen !== undefined) row('余额', formatCny(p.balanceFen));
  return lines;
}

function previewLines(p: CreatePreview, account: string, lang: CliLang = 'en'): string[] {
  if (lang === 'zh-cn') return previewLinesZh(p, account);
  const s = p.spec;
  const lines = [`would create on ${PLATFORM_NAMES[p.kind]} (account ${account}):`];
  const row = (k: string, v: string) => lines.push(`  ${k.padEnd(9)} ${v}`);
  row('name', s.name);
  row('card', `${s.card} ×${s.gpus}${typeof p.request.gpu_spec_uuid === 'string' ? ` (spec ${p.request.gpu_spec_uuid})` : ''}`);
  row('region', s.region ?? (p.region ? p.region : 'any'));
  row('image', s.image ?? '?');
  const traits = PLATFORM_DESCRIPTORS[p.kind].create;
  if (s.diskGb) row('disk', `${s.diskGb} GB${traits?.disk === 'moreSystemDisk' ? ' more system disk' : ' data disk'}`);
  if (p.cuda) row('CUDA', `≥ ${p.cuda.cuda}${p.cuda.from === 'torch' ? ' (what your PyTorch needs)' : p.cuda.from === 'image' ? ` (the CUDA of image ${p.spec.image ?? '?'}, the Pro page's public image table)` : p.cuda.from === 'page' ? " (no --cuda-min/--torch and the image's CUDA is not known: the lowest the Pro page lists, any host may take it)" : ''}${typeof p.request.cuda_v_from === 'number' ? ` → cuda_v_from ${p.request.cuda_v_from} (required)` : ''}${traits?.cudaParameter ? '' : ': not a create parameter here, the image decides the driver'}`);
  row('billing', s.spot ? `spot, at most ${formatCny(s.spot.maxPriceFen)}/h` : 'pay-as-you-go');
  row('price', p.priceFenPerHour !== undefined ? `${formatCny(p.priceFenPerHour)}/h (the platform's quote)${stepsText(p, 'en')}` : (traits?.unquotedPrice ?? '? (the platform gave no quote)'));
  if (s.diskGb) row('storage', p.storageFenPerDay !== undefined ? `${formatCny(p.storageFenPerDay)}/day (${p.storageSource === 'catalog' ? 'catalog estimate, not the platform\'s quote' : 'the platform\'s quote'})` : '?/day (not quoted separately; included in the price above where the platform counts it)');
  if (s.autoReleaseHours !== undefined) row('release', `by the platform itself in ${s.autoReleaseHours} h`);
  if (p.cloud) for (const [k, v] of cloudRows(p, 'en')) row(k, v);
  if (p.balanceFen !== undefined) row('balance', formatCny(p.balanceFen));
  return lines;
}

function outcomeJson(account: string, p: CreatePreview, o: CreateOutcome | undefined, hostKey?: string): Record<string, unknown> {
  return {
    account,
    platform: p.kind,
    name: p.spec.name,
    request: p.request,
    priceFenPerHour: p.priceFenPerHour ?? null,
    storageFenPerDay: p.storageFenPerDay ?? null,
    storageSource: p.storageSource ?? null,
    balanceFen: p.balanceFen ?? null,
    cudaMin: p.cuda?.cuda ?? null,
    created: o?.status === 'created' && !o.recovered && !p.existing,
    existing: p.existing ? p.existing.ref : null,
    ...(o?.status === 'created' ? { ref: o.ref, recovered: o.recovered, settled: o.settled, state: o.instance?.state ?? null, login: o.login ? { host: o.login.host, port: o.login.port, user: o.login.user, password: o.login.password !== undefined } : null } : {}),
    ...(o?.status === 'unknown' ? { outcome: 'unknown' } : {}),
    ...(hostKey ? { hostKey } : {}),
  };
}

/**
 * First contact with the new instance: one SSH connection that pins its host key in gpu-rent's
 * known_hosts (the instance was just created by this command, so its key is trusted on first
 * contact, as --accept-new does), and says the fingerprint. A box that does not answer yet is
 * no failure: its key is pinned on the first command that reaches it.
 */
export async function pinHostKey(login: SshLogin, io: CliIO, lang: CliLang, keyFile?: string): Promise<string | undefined> {
  const { SshPool } = await import('../../app/pool');
  const pool = new SshPool();
  try {
    const conn = await pool.get(`create:${login.host}:${login.port}`, { host: login.host, port: login.port, user: login.user, identityFiles: [], source: 'address', ignored: [] }, { acceptNew: true, identityFiles: keyFile ? [keyFile] : [], env: io.env, connectTimeoutMs: 20_000, ...(login.password ? { password: login.password } : {}), ...(io.env.GPU_RENT_KNOWN_HOSTS ? { knownHostsPath: io.env.GPU_RENT_KNOWN_HOSTS } : {}) });
    const fp = conn.hostKeyFingerprint;
    io.stderr(`  ${t(lang, 'host key pinned on first contact: {0}', '首次连接已记住主机密钥：{0}', fp ?? '?')}\n`);
    return fp;
  } catch (e) {
    io.stderr(forTerminal(`  ${t(lang, 'not reachable over SSH yet ({0}): its host key is pinned on the first command that reaches it', '暂时还连不上 SSH（{0}）：第一条连上它的命令会记住其主机密钥', e instanceof Error ? e.message : String(e))}`) + '\n');
    return undefined;
  } finally {
    pool.dispose();
  }
}

export const command: CliCommand = {
  name: 'create',
  summary: 'create an instance through a platform account (AutoDL Pro, 阿里云, 腾讯云): shows the price first, creates only with --yes',
  summaryZh: '通过平台账号创建实例（AutoDL Pro、阿里云、腾讯云）：先显示价格，加 --yes 才创建',
  help: (ctx) =>
    formatHelp(
      USAGE,
      [
        'Creates a new instance. Without --yes: what would be created, its price per hour and the storage per day, and nothing is created.',
        'Refused before anything is created: an unknown card or region, an image not found, a CUDA bound no host meets, a balance',
        'short of an hour, an account not real-name verified, a quota used up. The name is checked first: an instance of that name',
        'is the one (never a second). A create whose answer is lost is looked for by its name; run the same command again to retry.',
        'The AutoDL console token cannot create here; gpu-rent clone copies one of its instances onto a host with a free card.',
        'Exit codes: 0 created (or found by name), 1 refused or failed, 2 preview only (no --yes) or bad usage, 3 outcome unknown.',
      ].join('\n'),
      specs,
      helpLang(ctx),
      [
        '创建新实例。不加 --yes：只显示将创建什么、每小时价格和每天的存储费，什么也不创建。',
        '创建之前就会拒绝：未知的显卡或地区、找不到镜像、没有主机满足的 CUDA 下限、余额不够一小时、',
        '账号未实名认证、配额已用完。先检查名称：已有同名实例就是它（绝不创建第二个）。回答丢失的创建按名称查找；',
        '再运行同一条命令即可重试。',
        'AutoDL 控制台令牌不能在这里创建；gpu-rent clone 可把它的实例复制到有空闲卡的主机。',
        '退出码：0 已创建（或按名称找到），1 被拒绝或失败，2 只是预览（没有 --yes）或用法错误，3 结果未知。',
      ].join('\n'),
    ),
  run: async (argv, io) => {
    const { flags } = parseArgs(argv, specs, { maxPositionals: 0 });
    const lang = cliLang(flags.lang, io.env);
    if (!flags.account) throw new UsageError('--account ID is required (gpu-rent accounts list)', '必须给出 --account ID（gpu-rent accounts list 可查看）');
    if (!flags.card) throw new UsageError('--card is required', '必须给出 --card');
    if (flags.spot && flags['max-price'] === undefined) throw new UsageError('--spot needs --max-price YUAN (the most per hour you pay)', '--spot 需要 --max-price YUAN（每小时最多愿付的价格）');
    if (!flags.spot && flags['max-price'] !== undefined) throw new UsageError('--max-price is for --spot', '--max-price 只用于 --spot');
    if (flags['spot-reclaim'] !== undefined && flags['spot-reclaim'] !== 'stop' && flags['spot-reclaim'] !== 'terminate') throw new UsageError('--spot-reclaim is stop or terminate', '--spot-reclaim 只能是 stop 或 terminate');
    if (flags['cuda-min'] !== undefined && flags.torch !== undefined) throw new UsageError('--cuda-min and --torch exclude each other', '--cuda-min 与 --torch 不能同时使用');
    const json = flags.json === true;
    // `zh`: the message in Chinese for stderr; --json keeps the English.
    const fail = (code: string, message: string, exit = 1, zh?: string) => {
      if (json) io.stdout(jsonError(code, message));
      io.stderr(`gpu-rent create: ${lang === 'zh-cn' && zh ? zh : message}\n`);
      return exit;
    };
    const a = (await loadAccounts(io)).find((x) => x.account.id === flags.account);
    if (!a) return fail('no-account', `no account ${forTerminal(flags.account)} (gpu-rent accounts list)`, 1, `没有账号 ${forTerminal(flags.account)}（gpu-rent accounts list 可查看）`);
    if (!canCreate(a.account.kind)) return fail('not-supported', refusalLine({ code: 'notSupported', detail: { kind: a.account.kind } }), 1, refusalLineZh({ code: 'notSupported', detail: { kind: a.account.kind } }));
    if (flags.yes && !a.account.powerActions) return fail('read-only', `account ${a.account.id} is read-only (${a.source === 'env' ? 'set GPU_RENT_ALLOW_POWER=1' : 'add it again with --allow-power'})`, 1, `账号 ${a.account.id} 是只读的（${a.source === 'env' ? '请设置 GPU_RENT_ALLOW_POWER=1' : '请加 --allow-power 重新添加'}）`);
    const name = flags.name ?? defaultCreateName(Math.floor(Date.now() / 1000), randomBytes(2).toString('hex'));
    const input: CreateInput = {
      card: flags.card,
      gpus: flags.gpus ?? 1,
      name,
      ...(flags.region !== undefined ? { region: flags.region } : {}),
      ...(flags.image !== undefined ? { image: flags.image } : {}),
      ...(flags['disk-gb'] ? { diskGb: flags['disk-gb'] } : {}),
      ...(flags['cuda-min'] !== undefined ? { cudaMin: flags['cuda-min'] } : {}),
      ...(flags.torch !== undefined ? { torch: flags.torch } : {}),
      ...(flags.spot ? { spot: { maxPriceFen: yuanToFen(flags['max-price']!) } } : {}),
      ...(flags['auto-release'] !== undefined ? { autoReleaseHours: flags['auto-release'] } : {}),
      ...(flags.vswitch ? { vSwitchId: flags.vswitch } : {}),
      ...(flags['security-group'] ? { securityGroupId: flags['security-group'] } : {}),
      ...(flags.vpc ? { vpcId: flags.vpc } : {}),
      ...(flags.subnet ? { subnetId: flags.subnet } : {}),
      ...(flags.bandwidth !== undefined ? { bandwidthMbps: flags.bandwidth } : {}),
      ...(flags['ssh-key'] ? { sshKeyPath: flags['ssh-key'] } : {}),
      ...(flags['spot-reclaim'] !== undefined ? { spotInterruption: flags['spot-reclaim'] as 'stop' | 'terminate' } : {}),
    };
    const c = connectorFor(a, io);
    let p: CreatePreview | CreateRefusal;
    try {
      p = await previewCreate(c, input);
    } catch (e) {
      return fail('failed', failureLine(e), 1, failureLine(e, lang));
    }
    const refusedText = (r: CreateRefusal) => (lang === 'zh-cn' ? `被拒绝，没有创建任何实例：${refusalLineZh(r)}` : `refused, nothing created: ${refusalLine(r)}`);
    if (isRefusal(p)) {
      if (json) io.stdout(jsonError(p.code, refusalLine(p), { refused: true }));
      io.stderr(forTerminal(`gpu-rent create: ${refusedText(p)}`) + '\n');
      return 1;
    }
    if (p.existing)
      io.stderr(
        forTerminal(
          `gpu-rent create: ${t(lang, 'an instance named "{0}" already exists ({1}, {2}): it is the one, nothing new is created (use another --name for a second)', '名为 "{0}" 的实例已存在（{1}，{2}）：就是它，不会新建（要第二个请换一个 --name）', name, p.existing.ref, p.existing.rawState || p.existing.state)}`,
        ) + '\n',
      );
    for (const l of previewLines(p, a.account.id, lang)) io.stderr(forTerminal(l) + '\n');
    if (!flags.yes) {
      if (json) io.stdout(jsonForTerminal({ preview: true, ...outcomeJson(a.account.id, p, undefined) }, 2) + '\n');
      io.stderr(`gpu-rent create: ${t(lang, 'nothing created; add --yes to create it', '没有创建任何实例；加 --yes 才会创建')}\n`);
      return 2;
    }
    const waitS = flags.wait ?? 300;
    const interval = Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) > 0 ? Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) : 3000;
    let o: CreateOutcome;
    try {
      o = await createInstance(c, p, { settleMs: waitS * 1000, intervalMs: interval, onProgress: (l) => io.stderr(forTerminal(`  ${l}`) + '\n') });
    } catch (e) {
      return fail('failed', `not created: ${failureLine(e)}`, 1, `没有创建：${failureLine(e, lang)}`);
    }
    if (o.status === 'refused') {
      if (json) io.stdout(jsonError(o.refusal.code, refusalLine(o.refusal), { refused: true }));
      io.stderr(forTerminal(`gpu-rent create: ${refusedText(o.refusal)}`) + '\n');
      return 1;
    }
    if (o.status === 'unknown') {
      const msg = `the create was sent but its answer was lost (${o.reason}); no instance named "${o.name}" is listed yet. It may still appear: check gpu-rent instances; running this same command again (same --name ${o.name}) looks for it by name before creating anything`;
      if (json) io.stdout(jsonForTerminal({ ...outcomeJson(a.account.id, p, o), error: { code: 'outcome-unknown', message: msg } }, 2) + '\n');
      const msgZh = `创建请求已发送，但回答丢失了（${o.reason}）；还没有列出名为 "${o.name}" 的实例。它可能仍会出现：请查看 gpu-rent instances；再运行同一条命令（同样的 --name ${o.name}）会先按名称查找，再决定是否创建`;
      io.stderr(forTerminal(`gpu-rent create: ${lang === 'zh-cn' ? msgZh : msg}`) + '\n');
      return 3;
    }
    if (o.recovered && !p.existing) io.stderr(forTerminal(`  ${t(lang, 'found by name after the lost answer: {0}', '回答丢失后按名称找到了：{0}', o.ref)}`) + '\n');
    let hostKey: string | undefined;
    if (o.login) {
      io.stderr(forTerminal(`  ssh -p ${o.login.port} ${o.login.user}@${o.login.host}${o.login.password ? t(lang, ' (password: in the platform console; gpu-rent keeps it for you in the extension)', '（密码：见平台控制台；gpu-rent 会在扩展中替你保存）') : ''}`) + '\n');
      if (!flags['no-pin']) hostKey = await pinHostKey(o.login, io, lang, p.cloud ? p.cloud.key.path.replace(/\.pub$/, '') : undefined);
    }
    else if (waitS > 0 && !o.settled) io.stderr(forTerminal(`  ${t(lang, '{0} is not running after {1} s (last: {2}); gpu-rent instances shows it and its login once the platform gives one', '{0} 在 {1} 秒后仍未运行（最后：{2}）；平台给出登录信息后 gpu-rent instances 会显示它和登录信息', o.ref, waitS, stateWord(lang, o.instance?.state ?? 'unknown'))}`) + '\n');
    if (json) io.stdout(jsonForTerminal(outcomeJson(a.account.id, p, o, hostKey), 2) + '\n');
    else io.stdout(`${forTerminal(o.ref)}: ${p.existing ? t(lang, 'exists', '已存在') : o.recovered ? t(lang, 'created (found by name)', '已创建（按名称找到）') : t(lang, 'created', '已创建')}${o.settled ? `, ${stateWord(lang, o.instance?.state ?? 'running')}` : ''}\n`);
    return 0;
  },
};

// The report's warnings as codes, each with English and Chinese text and where the report
// says it. Adapters may localize further; these are the defaults.
import type { WarningCode } from './schema';

export interface WarningText {
  en: string;
  zh: string;
  /** Where in the field report this comes from. */
  ref: string;
}

export const WARNING_TEXT: Record<WarningCode, WarningText> = {
  dataDiskAddsUp: {
    en: 'Data disk is billed per GB per day, stopped days included: 24 GB × ¥0.5 = ¥12/day, ¥360/month. Keep only the current experiment on it.',
    zh: '数据盘按 GB/天计费（停机也算）：24GB × 0.5 元 = 每天 12 元、每月 360 元。只保留当前实验需要的文件。',
    ref: '§2',
  },
  spotReclaim: {
    en: 'Spot instances are ~20% cheaper but can be reclaimed at any time; use them only for short (≤1 h) or exploratory runs.',
    zh: '竞价实例便宜约 20%，但随时可能被回收；只跑 1 小时内的短任务或探索性实验。',
    ref: '§4',
  },
  releaseAfterStopped: {
    en: 'An instance left shut down for 15 days is released with its data (platform rule; not from the report).',
    zh: '实例关机 15 天后会被释放，数据一并删除（平台规则，非实测报告内容）。',
    ref: 'platform docs',
  },
  diskUnencrypted: {
    en: 'Data disks are not encrypted; encrypt sensitive data and de-identify user data before uploading.',
    zh: '数据盘不加密；敏感数据先加密、用户数据先脱敏再上传。',
    ref: '§4',
  },
  eveningQueue: {
    en: 'Evening peak 19:00–23:00: starting an instance takes 1–3 h (once 4 h). Start it during the day.',
    zh: '晚高峰 19:00–23:00 开机要排队 1–3 小时（曾等 4 小时）。白天错峰开好实例。',
    ref: '§4',
  },
  noRoot: { en: 'No root access.', zh: '非 Root 权限。', ref: '§1' },
  storageExtra: { en: 'Storage must be bought separately.', zh: '存储空间要额外购买。', ref: '§1' },
  dataLostOnShutdown: {
    en: 'The data disk was wiped after shutdown: two days of training lost. Sync checkpoints off the box every epoch.',
    zh: '关机后整个数据盘被清空，白跑两天训练。每个 epoch 把 checkpoint 同步出去。',
    ref: '§4',
  },
  slowDownload: {
    en: 'Downloads measured below 2 Mbps at times: an hour of downloading before training starts.',
    zh: '实测下载有时不到 2Mbps，训练前先花一小时下数据。',
    ref: '§2',
  },
  cardSupplyUnstable: {
    en: 'Cards released to rent are unstable; once waited half a day for an instance to start.',
    zh: '放出的卡量不稳定，曾下单后等了半天才开机。',
    ref: '§1',
  },
  imageCudaMismatch: {
    en: 'A PyTorch 1.13 image had a CUDA mismatch (torch.cuda.is_available() False); check the driver and torch CUDA first.',
    zh: 'PyTorch 1.13 镜像 CUDA 版本不匹配（torch.cuda.is_available() 返回 False）；先核对驱动与 torch 的 CUDA 版本。',
    ref: '§4',
  },
  bundledResources: {
    en: 'Rented per whole instance: CPU, RAM, system disk, data disk and bandwidth are paid with the GPU.',
    zh: '按整台实例购买：CPU、内存、系统盘、数据盘、带宽一起付费。',
    ref: '§1',
  },
  billsWhileStopped: {
    en: 'A pay-as-you-go instance bills while it exists, even shut down; release it when done.',
    zh: '按量实例只要存在，关机也收费；用完即释放。',
    ref: '§2',
  },
  bandwidthExtra: {
    en: 'Bandwidth is bought monthly and billed separately (1 Mbps costs tens of yuan); a low tier means 1–2 h per model download.',
    zh: '带宽按月购买另计费（1Mbps 也要几十块）；买低了下载一个大模型要一两个小时。',
    ref: '§2',
  },
  imageUnfriendly: {
    en: 'Images are unfriendly: three hours lost to CUDA 11.7 vs PyTorch 2.0.',
    zh: '镜像不友好：CUDA 11.7 与 PyTorch 2.0 兼容问题折腾了三小时。',
    ref: '§2',
  },
  minRentalWeek: { en: 'Minimum rental is one week.', zh: '最少按周起租。', ref: '§1' },
  priceRoughlyDouble: {
    en: 'Stable, but "the price simply doubles"; the report gives no figure.',
    zh: '性能稳定但价格直接翻倍（报告未给具体数字）。',
    ref: '§1',
  },
  enterpriseVerification: {
    en: 'Needs enterprise verification to open; students and independent developers are shut out.',
    zh: '需企业认证才能开通，学生和独立开发者基本被挡在门外。',
    ref: '§1',
  },
  closedEnvironment: {
    en: 'Closed environment with Stable Diffusion preinstalled: good for images, poor for training.',
    zh: '环境封闭、预装 SD：适合出图，不适合正经训练。',
    ref: '§1',
  },
  freeQuotaUnstable: { en: 'The free quota is unstable.', zh: '免费额度不稳定。', ref: '§1' },
  freeQuotaShort: { en: 'Only about an hour of free T4 time: enough for small tests.', zh: '免费 T4 只有个把小时，够跑小型测试。', ref: '§5' },
  vramTooSmallFor7B: { en: '16 GB: not enough VRAM for 7B fine-tuning.', zh: '16GB 显存不够做 7B 微调。', ref: '§1' },
  noSla: { en: 'No SLA of any kind.', zh: '没有任何 SLA 保障。', ref: '§1' },
  dataInsecure: { en: 'Data security is essentially nil.', zh: '数据安全基本裸奔。', ref: '§1' },
};

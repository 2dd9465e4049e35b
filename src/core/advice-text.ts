// The advice's words: default English/Chinese text for every code, and the sentences of the
// field report each suggestion comes from (exactly as the report's text has them).
import type { AdviceCode, ReasonCode } from './advice';

/** A sentence of the report a suggestion cites. */
export interface Cite {
  section: '§3' | '§5';
  text: string;
}

const s5 = (text: string): Cite => ({ section: '§5', text });
const s3 = (text: string): Cite => ({ section: '§3', text });

export const CITES = {
  p1Intro: s5('如果你只是偶尔跑一次实验、学习为主、预算很紧月预算 100 元内优先考虑免费或极低成本的资源。'),
  p1Free: s5('Google Colab 免费版有个把小时的 T4 可用额度用来跑跑小型测试足够了百度的 AI Studio 也有免费 V100 额度。'),
  p1Mita: s5('如果你一定要在国内租卡选择秘塔智算的低峰时段用 3090 按小时租错开晚高峰一次实验控制在 1-2 小时内这样一个月可能只花 30-50 元。'),
  p2Autodl: s5('如果日常跑 LoRA 微调、模型推理 demo、预算中等月预算 300-1000 元AutoDL 是最稳妥的选择。'),
  p2Plans: s5('它的 3090 包周大概是 250-300 元一个月 700-900 元价格不是最便宜但胜在稳定——排队可控、镜像好用、无卡模式省钱、文档详细。'),
  p24090: s5('如果你对性能有更高要求直接上 4090 包月大约 1200-1500 元训练速度翻倍体验提升明显。'),
  p3Big: s5('如果要跑更大模型13B 甚至 70B 的微调、对算力要求很高月预算 3000 元以上建议去大厂云开企业认证用真正的多卡集群和高速互联。'),
  p3A100: s5('大厂云上 A100-80G 按量付费大约 20-30 元/小时包月大概 1.5-2 万虽然贵但物有所值。'),
  p3Zero: s5('如果只是偶尔跑一次 70B 的实验我建议用 DeepSpeed ZeRO-Infinity 加 8-bit 优化器在 4×4090 或 4×3090 上凑合跑但一定要做好性能和显存优化不要直接上原生 PyTorch 跑全量参数。'),
  p4Aigc: s5('如果你主要做 SD 出图、ComfyUI 工作流等 AIGC 推理场景实际上很多 AI 绘画云平台青椒云、赞奇云等预装了完整的 SD 生态按时间计费对不会配环境的人最友好。'),
  p4Autodl: s5('但如果你想省钱 灵活AutoDL 这种平台也能配出同样的环境而且定价更低3090 出图一张 1024×1024 的图大约 2-3 秒比本地 2080Ti 快不少。'),
  p5Combo: s5('AutoDL 上长期租一张 4090 跑日常实验和微调工作用无卡模式休眠实际消耗不高'),
  p5Total: s5('这个组合让我把月度算力成本控制在 1500 元左右同时覆盖了绝大多数场景。'),
  s3Lora: s3('所以如果你是个人跑 Lora 微调单卡 4090 是最优解'),
  s3Qlora: s3('或者用更省显存的方法QLoRA 梯度检查点在单卡上硬啃'),
  s3A100: s3('我在揽睿星舟上短暂租过一张 A100-80G大约 11 元/小时主要是为了跑一个 13B 模型的全参数微调实验'),
  s3A100Not: s3('除非是公司报销或者科研经费充足否则个人开发者不用考虑这个档位'),
  s3Inference: s3('所以如果有推理服务需求别犹豫直接上 4090'),
} as const satisfies Record<string, Cite>;

export const ADVICE_TEXT: Record<AdviceCode | ReasonCode, { en: string; zh: string }> = {
  freeColabT4: { en: 'Google Colab free T4 for small tests', zh: 'Google Colab 免费 T4 跑小型测试' },
  freeAiStudioV100: { en: 'Baidu AI Studio free V100 quota', zh: '百度 AI Studio 免费 V100 额度' },
  mitaOffPeak: { en: '秘塔智算 3090 by the hour, off-peak, 1–2 h per experiment (the report: maybe ¥30–50 a month, before the data disk)', zh: '秘塔智算低峰时段按小时租 3090，一次实验 1-2 小时（报告：每月可能 30-50 元，未计数据盘）' },
  autodlHourly: { en: 'AutoDL 3090 by the hour, no-GPU mode between runs', zh: 'AutoDL 3090 按小时，空闲时无卡模式' },
  autodl3090WeekMonth: { en: 'AutoDL 3090: weekly (¥250–300), monthly (¥700–900) or by the hour with no-GPU mode', zh: 'AutoDL 3090：包周（250-300 元）、包月（700-900 元）或按小时加无卡模式' },
  autodl4090Month: { en: 'AutoDL 4090 monthly (¥1200–1500) if you need more speed', zh: '需要更快就上 AutoDL 4090 包月（1200-1500 元）' },
  authorCombo: { en: "The author's mix (~¥1500/month): a 4090 on AutoDL in no-GPU mode between runs for daily work (priced here), 秘塔智算 for bursts, a big cloud for big jobs", zh: '作者的组合拳（每月约 1500 元）：AutoDL 长租 4090、空闲时无卡模式做日常（此处计价），秘塔智算跑临时任务，大任务去大厂云' },
  bigCloudEnterprise: { en: 'A big cloud with enterprise verification: A100-80G ¥20–30/h, ¥15,000–20,000/month', zh: '大厂云企业认证：A100-80G 每小时 20-30 元，包月 1.5-2 万' },
  zeroInfinityOccasional70b: { en: 'An occasional 70B run: DeepSpeed ZeRO-Infinity + 8-bit optimizer on 4×4090 or 4×3090', zh: '偶尔跑 70B：4×4090 或 4×3090 上用 DeepSpeed ZeRO-Infinity 加 8-bit 优化器' },
  aigcPlatforms: { en: '青椒云 / 赞奇云: Stable Diffusion preinstalled, pay by time', zh: '青椒云、赞奇云：预装 SD，按时间计费' },
  aigcAutodl: { en: 'AutoDL 3090 with your own SD/ComfyUI image: cheaper and flexible', zh: 'AutoDL 3090 自配 SD/ComfyUI 环境：更便宜、更灵活' },
  inference4090: { en: 'An RTX 4090 for inference', zh: '推理直接上 RTX 4090' },
  lora4090: { en: 'One RTX 4090 for LoRA: the best option for a person (the ¥3000+ tier of §5 is for 13B/70B models)', zh: '个人跑 LoRA：单卡 4090 是最优解（§5 的 3000 元以上档位是给 13B/70B 的）' },
  a100For13bFull: { en: '揽睿星舟 A100-80G (~¥11/h) for a 13B full fine-tune', zh: '揽睿星舟 A100-80G（约 11 元/小时）跑 13B 全参微调' },
  qloraSingleCard: { en: 'QLoRA + gradient checkpointing on one 4090 instead of full fine-tuning', zh: '单卡 4090 上用 QLoRA 加梯度检查点代替全参微调' },
  freeQuotaLimited: { en: 'free, but the quota is small or unstable', zh: '免费但额度小或不稳定' },
  offPeakOnly: { en: 'cheapest 3090 (¥1.2–1.5/h) if you avoid 19:00–23:00', zh: '避开 19:00-23:00 就是最便宜的 3090（1.2-1.5 元/时）' },
  queueAndDataLoss: { en: 'expect evening queues of 1–3 h and possible data loss', zh: '做好晚高峰排队 1-3 小时和数据丢失的准备' },
  stableQueueImagesNoGpuMode: { en: 'stable: short queues, good images, a no-GPU mode, good docs', zh: '稳定：排队可控、镜像好用、无卡模式省钱、文档详细' },
  speedDoubles: { en: 'training about twice as fast as a 3090', zh: '训练速度约为 3090 的两倍' },
  cheaperPerJob: { en: 'cheaper per finished job: the LoRA run cost ¥18 on a 4090 vs ¥30 on a 3090', zh: '按完成任务算更便宜：同一 LoRA 任务 4090 花 18 元，3090 花 30 元' },
  pciePenalty: { en: 'multi-card rentals talk over PCIe: 2×4090 gave only 1.6×', zh: '个人平台多卡走 PCIe：2×4090 加速比只有 1.6 倍' },
  realInterconnect: { en: 'real multi-GPU clusters with fast interconnect for 13B–70B', zh: '13B-70B 用真正的多卡集群和高速互联' },
  noSetup: { en: 'friendliest if you do not want to set up an environment', zh: '对不会配环境的人最友好' },
  cheaperFlexible: { en: 'the same environment can be built for less', zh: '同样环境可以自己配，定价更低' },
  imageSpeed: { en: 'a 3090 renders a 1024×1024 image in about 2–3 s', zh: '3090 出一张 1024×1024 的图约 2-3 秒' },
  saveCustomImage: { en: 'install ControlNet and LoRA plugins once and save a custom image', zh: '装好 ControlNet、LoRA 插件后保存自定义镜像' },
  tokensPerSecond: { en: 'ChatGLM3-6B fp16: 25–30 tokens/s on a 4090 vs 12–15 on a 3090', zh: 'ChatGLM3-6B FP16：4090 每秒 25-30 token，3090 只有 12-15' },
  vramRoom: { en: '80 GB: large batches, little gradient accumulation', zh: '80GB 显存：batch 可以开很大' },
  overBudget: { en: 'costs more than this budget', zh: '超出该预算' },
  budgetGap: { en: 'the report gives no advice for this budget; derived from its prices', zh: '报告未覆盖该预算档，按其价格推算' },
  authorMix: { en: "the author's own setup kept the monthly bill around ¥1500", zh: '作者用这个组合把月度算力成本控制在 1500 元左右' },
  vram16Short: { en: '16 GB is not enough for 7B fine-tuning', zh: '16GB 显存不够 7B 微调' },
  individualsSkipA100: { en: 'only with company or research funding: individuals need not consider this tier', zh: '除非公司报销或科研经费充足，个人开发者不用考虑这个档位' },
  largeModelsOnly: { en: "the report's ¥3000+ tier is for 13B–70B fine-tunes; for LoRA one 4090 is best", zh: '报告的 3000 元以上档位是给 13B-70B 微调的；LoRA 单卡 4090 最优' },
  unpricedCost: { en: 'part of the month has no figure (?): cannot be called within budget', zh: '部分费用没有数字（?），无法判断是否在预算内' },
  dataDiskMonth: { en: 'the data disk is billed per GB per day, stopped days included (24 GB: ¥360 a month on AutoDL)', zh: '数据盘按 GB/天计费，停机也算（AutoDL 24GB 一个月 360 元）' },
};

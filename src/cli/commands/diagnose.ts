// `gpu-rent diagnose --driver VER [--cuda X.Y] --torch VER[+cuXYZ|+cpu] [--gpu NAME | --compute-cap X.Y]`:
// the verdict from versions typed by hand (e.g. read off a screenshot).
import { forTerminalLines } from '../../core/text';
import { UsageError } from '../args';
import { LANG_FLAG_SPEC } from '../lang';
import { defineCommand } from '../define';
import type { CliCommand } from '../command';
import { diagnose, type Diagnosis } from '../../core/doctor';
import { describeDiagnosis } from '../../core/doctor-text';
import { parseTorchVersion } from '../../core/compat/version';

const specs = {
  driver: { type: 'string', valueName: 'VER', description: 'NVIDIA driver version, e.g. 535.104.05 (nvidia-smi "Driver Version")', zh: 'NVIDIA 驱动版本，例如 535.104.05（nvidia-smi 的 "Driver Version"）' },
  cuda: { type: 'string', valueName: 'X.Y', description: 'the "CUDA Version" nvidia-smi prints (the driver\'s maximum)', zh: 'nvidia-smi 显示的 "CUDA Version"（驱动支持的最高版本）' },
  torch: { type: 'string', valueName: 'VER', description: 'torch version, e.g. 2.1.0+cu121, 1.13.1+cpu, or 2.1.0 (PyPI default build)', zh: 'torch 版本，例如 2.1.0+cu121、1.13.1+cpu 或 2.1.0（PyPI 默认构建）' },
  gpu: { type: 'string', valueName: 'NAME', description: 'GPU name, e.g. "RTX 3090" (to check the architecture)', zh: 'GPU 名称，例如 "RTX 3090"（用于检查架构）' },
  'compute-cap': { type: 'string', valueName: 'X.Y', description: 'GPU compute capability, e.g. 8.6', zh: 'GPU 计算能力，例如 8.6' },
  json: { type: 'boolean', description: 'print the verdict as JSON (exit 1 adds error {code: "incompatible", message} beside it)', zh: '以 JSON 输出结论（退出码为 1 时旁边多一个 error {code: "incompatible", message}）' },
  lang: LANG_FLAG_SPEC,
} as const;

const USAGE = 'gpu-rent diagnose --driver VER [--cuda X.Y] --torch VER[+cuXYZ|+cpu] [--gpu NAME | --compute-cap X.Y] [--json]';
const SUMMARY = 'Check a driver / PyTorch / GPU combination and print the exact fix. Exit 0 when compatible, 1 when not.';

export function diagnosisJson(d: Diagnosis): unknown {
  return { verdict: d.verdict, driverMaxCuda: d.driverMaxCuda, torchCuda: d.torchCuda, fix: d.fix, reasons: d.reasons };
}

/**
 * The `error` object beside a verdict that is not ok (exit 1 under --json, issue 45): `code` names
 * the command's verdict, the message is the verdict's headline in English and its code.
 */
export function verdictError(d: Diagnosis, code: string): { code: string; message: string } | undefined {
  if (d.verdict === 'ok') return undefined;
  return { code, message: `${d.verdict}: ${describeDiagnosis(d, 'en').split('\n')[0]}` };
}

const SUMMARY_ZH = '检查驱动 / PyTorch / GPU 组合并打印确切的修复办法。兼容时退出码为 0，不兼容为 1。';

export const command: CliCommand = defineCommand({
  name: 'diagnose',
  summary: 'Verdict for a driver + PyTorch (+ GPU) combination, with the pip fix',
  summaryZh: '判断驱动 + PyTorch（+ GPU）组合是否可用，并给出 pip 修复命令',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 0 },
  run: async (flags): Promise<Diagnosis> => {
    if (flags.driver === undefined) throw new UsageError('needs --driver VER (the "Driver Version" nvidia-smi prints)', '需要 --driver VER（nvidia-smi 打印的 "Driver Version"）');
    if (!/^\d{2,4}\.\d{1,3}(\.\d{1,3})?$/.test(flags.driver)) throw new UsageError(`--driver expects a driver version like 535.104.05, got "${flags.driver}"`, `--driver 需要像 535.104.05 这样的驱动版本，却是 "${flags.driver}"`);
    if (flags.cuda !== undefined && !/^\d{1,2}\.\d$/.test(flags.cuda)) throw new UsageError(`--cuda expects X.Y like 12.2, got "${flags.cuda}"`, `--cuda 需要像 12.2 这样的 X.Y，却是 "${flags.cuda}"`);
    if (flags.torch === undefined) throw new UsageError('needs --torch VER (e.g. 2.1.0+cu121; torch.__version__)', '需要 --torch VER（例如 2.1.0+cu121；即 torch.__version__）');
    const tv = parseTorchVersion(flags.torch);
    if (!tv || (tv.local !== null && !/^(cpu|cu\d{2,4}|rocm[\d.]+)$/.test(tv.local))) {
      throw new UsageError(`--torch expects a version like 2.1.0, 2.1.0+cu121 or 2.1.0+cpu, got "${flags.torch}"`, `--torch 需要像 2.1.0、2.1.0+cu121 或 2.1.0+cpu 这样的版本，却是 "${flags.torch}"`);
    }
    if (flags.gpu !== undefined && flags['compute-cap'] !== undefined) throw new UsageError('give either --gpu or --compute-cap, not both', '--gpu 和 --compute-cap 只能给一个');
    if (flags.gpu !== undefined && flags.gpu.trim() === '') throw new UsageError('--gpu needs a GPU name, e.g. "RTX 3090"', '--gpu 需要 GPU 名称，例如 "RTX 3090"');
    if (flags['compute-cap'] !== undefined && !/^\d{1,2}\.\d$/.test(flags['compute-cap'])) {
      throw new UsageError(`--compute-cap expects X.Y like 8.6, got "${flags['compute-cap']}"`, `--compute-cap 需要像 8.6 这样的 X.Y，却是 "${flags['compute-cap']}"`);
    }
    return diagnose({
      driverVersion: flags.driver,
      ...(flags.cuda ? { driverMaxCuda: flags.cuda } : {}),
      torchVersion: flags.torch,
      ...(flags.gpu ? { gpuName: flags.gpu } : {}),
      ...(flags['compute-cap'] ? { computeCapability: flags['compute-cap'] } : {}),
    });
  },
  // An incompatible combination exits 1 in both formats; its verdict is the report (stdout), with `error` beside it under --json.
  json: (d) => {
    const error = verdictError(d, 'incompatible');
    return error ? { ...(diagnosisJson(d) as object), error } : diagnosisJson(d);
  },
  text: (d, lang) => forTerminalLines(describeDiagnosis(d, lang)),
  exit: (d) => (d.verdict === 'ok' ? 0 : 1),
});
